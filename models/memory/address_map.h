// Where each line lives: pages get a NUMA node on first touch (the node of the LLC that first misses on
// them) unless placed explicitly, and a node's memory is interleaved over its memory controllers in
// fixed chunks. The home memory controller of a line is also where its coherence directory entry lives.
#pragma once

#include "models/common/line_map.h"

#include <cstdint>
#include <vector>

namespace warmsched::models {

class address_map {
public:
    address_map(std::uint64_t line_size, std::uint64_t page_size, std::uint64_t interleave,
                std::vector<std::vector<unsigned>> controllers_of_node,
                std::vector<unsigned> node_of_controller);

    // Home controller of `line`; `toucher_node` places the page if it has no home yet (first touch).
    unsigned home(std::uint64_t line, unsigned toucher_node) {
        const std::uint64_t page = line * line_size_ / page_size_;
        const unsigned* placed = page_node_.find(page);
        const unsigned node = placed ? *placed : (page_node_[page] = toucher_node);
        const auto& mcs = controllers_of_node_[node];
        return mcs[(line * line_size_ / interleave_) % mcs.size()];
    }
    // Binds [addr, addr+bytes) to a node (like numactl --membind), overriding first touch.
    void place(std::uint64_t addr, std::uint64_t bytes, unsigned node);
    unsigned node_of_controller(unsigned mc) const { return node_of_controller_[mc]; }
    std::uint64_t line_size() const { return line_size_; }
    std::uint64_t line_record_visits() const { return page_node_.visits(); } // host work, for the benchmarks

private:
    std::uint64_t line_size_, page_size_, interleave_;
    std::vector<std::vector<unsigned>> controllers_of_node_;
    std::vector<unsigned> node_of_controller_;
    line_map<unsigned> page_node_;
};

} // namespace warmsched::models
