// First-touch page placement and controller interleaving; see address_map.h.
#include "models/memory/address_map.h"

namespace warmsched::models {

address_map::address_map(std::uint64_t line_size, std::uint64_t page_size, std::uint64_t interleave,
                         std::vector<std::vector<unsigned>> controllers_of_node,
                         std::vector<unsigned> node_of_controller)
    : line_size_(line_size), page_size_(page_size), interleave_(interleave),
      controllers_of_node_(std::move(controllers_of_node)),
      node_of_controller_(std::move(node_of_controller)) {}

void address_map::place(std::uint64_t addr, std::uint64_t bytes, unsigned node) {
    for (std::uint64_t page = addr / page_size_; page * page_size_ < addr + bytes; ++page)
        page_node_[page] = node;
}

} // namespace warmsched::models
