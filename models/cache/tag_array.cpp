// Set-associative tag array; see tag_array.h.
#include "models/cache/tag_array.h"

#include <algorithm>
#include <cassert>

namespace warmsched::models {

namespace {
unsigned log2_of(unsigned n) {
    unsigned s = 0;
    while ((1u << s) < n) ++s;
    return s;
}
} // namespace

tag_array::tag_array(std::uint64_t size_bytes, unsigned associativity, unsigned line_size,
                     bool random_replacement, std::uint64_t seed, unsigned set_sampling)
    : full_sets_(size_bytes / (static_cast<std::uint64_t>(associativity) * line_size)),
      sampling_shift_(log2_of(set_sampling)), sets_(full_sets_ >> sampling_shift_), assoc_(associativity),
      pow2_((full_sets_ & (full_sets_ - 1)) == 0), random_(random_replacement),
      tags_(sets_ * associativity, no_line), stamps_(sets_ * associativity, 0),
      states_(sets_ * associativity, line_state::invalid), rng_(seed) {
    assert(sets_ > 0 && (1u << sampling_shift_) == set_sampling && full_sets_ % set_sampling == 0);
}

tag_array::victim tag_array::insert(std::uint64_t line, line_state s) {
    assert(find(line) < 0 && s != line_state::invalid);
    ++set_visits_;
    const std::size_t base = set_of(line) * assoc_;
    unsigned way = assoc_;
    for (unsigned w = 0; w < assoc_; ++w)
        if (tags_[base + w] == no_line) {
            way = w;
            break;
        }
    victim v;
    if (way == assoc_) {
        if (random_) {
            way = static_cast<unsigned>(rng_() % assoc_);
        } else {
            way = 0;
            for (unsigned w = 1; w < assoc_; ++w)
                if (stamps_[base + w] < stamps_[base + way]) way = w;
        }
        v.line = tags_[base + way];
        v.state = states_[base + way];
    }
    tags_[base + way] = line;
    states_[base + way] = s;
    stamps_[base + way] = next_stamp();
    v.slot = static_cast<long>(base + way);
    return v;
}

// Renumbers stamps before the clock wraps, keeping their order within each set.
void tag_array::renumber_stamps() {
    std::vector<unsigned> order(assoc_);
    for (std::size_t set = 0; set < sets_; ++set) {
        std::uint32_t* st = &stamps_[set * assoc_];
        for (unsigned w = 0; w < assoc_; ++w) order[w] = w;
        std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return st[a] < st[b]; });
        for (unsigned r = 0; r < assoc_; ++r) st[order[r]] = r;
    }
    clock_ = assoc_;
}

line_state tag_array::invalidate(std::uint64_t line) {
    ++set_visits_;
    const std::size_t base = set_of(line) * assoc_;
    for (unsigned w = 0; w < assoc_; ++w)
        if (tags_[base + w] == line) {
            line_state s = states_[base + w];
            tags_[base + w] = no_line;
            states_[base + w] = line_state::invalid;
            stamps_[base + w] = 0;
            return s;
        }
    return line_state::invalid;
}

std::uint64_t tag_array::occupancy() const {
    return static_cast<std::uint64_t>(
        std::count_if(tags_.begin(), tags_.end(), [](std::uint64_t t) { return t != no_line; }));
}

} // namespace warmsched::models
