// A set-associative array of cache-line tags with a coherence state per line and a replacement policy
// (true LRU by access stamps, or random from a seeded generator). It holds real line addresses (address /
// line size) and knows nothing about the hierarchy around it: callers decide what a hit, a fill or an
// eviction means. Data values are not stored; the model tracks where lines are, not what they hold.
// With set sampling 1-in-N, only the sets whose index is a multiple of N exist, and only lines whose
// address is a multiple of N (exactly the lines that map to those sets) may be presented.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace warmsched::models {

// MESI state of one cached copy. `invalid` means "not present".
enum class line_state : std::uint8_t { invalid = 0, shared, exclusive, modified };
// "I", "S", "E" or "M".
inline const char* to_string(line_state s) {
    switch (s) {
    case line_state::shared:
        return "S";
    case line_state::exclusive:
        return "E";
    case line_state::modified:
        return "M";
    default:
        return "I";
    }
}

class tag_array {
public:
    static constexpr std::uint64_t no_line = ~0ull;

    struct victim {
        std::uint64_t line = no_line; // no_line when the fill used a free way
        line_state state = line_state::invalid;
        long slot = -1; // where the inserted line went (see slot())
    };

    tag_array(std::uint64_t size_bytes, unsigned associativity, unsigned line_size, bool random_replacement,
              std::uint64_t seed, unsigned set_sampling = 1);

    // Way index of `line` or -1. find() does not update replacement state; touch() does.
    int find(std::uint64_t line) const {
        ++set_visits_;
        const std::size_t base = set_of(line) * assoc_;
        for (unsigned w = 0; w < assoc_; ++w)
            if (tags_[base + w] == line) return static_cast<int>(w);
        return -1;
    }
    void touch(std::uint64_t line, int way) { stamps_[set_of(line) * assoc_ + way] = next_stamp(); }
    line_state state(std::uint64_t line, int way) const { return states_[set_of(line) * assoc_ + way]; }
    void set_state(std::uint64_t line, int way, line_state s) { states_[set_of(line) * assoc_ + way] = s; }

    // Slot-based access for hot paths: slot() finds a line once (-1 on a miss), the *_at calls use the slot.
    long slot(std::uint64_t line) const {
        ++set_visits_;
        const std::size_t base = set_of(line) * assoc_;
        // Every way is compared, without an early exit: where a line sits is random, and a branch on it
        // would be mispredicted on most scans. A line is in at most one way.
        long found = -1;
        const std::uint64_t* t = &tags_[base];
        for (unsigned w = 0; w < assoc_; ++w) found = t[w] == line ? static_cast<long>(base + w) : found;
        return found;
    }
    line_state state_at(long slot) const { return states_[slot]; }
    void set_state_at(long slot, line_state s) { states_[slot] = s; }
    void touch_at(long slot) { stamps_[slot] = next_stamp(); }
    // Removes the line in `slot`; returns its state.
    line_state invalidate_at(long slot) {
        const line_state s = states_[slot];
        tags_[slot] = no_line;
        states_[slot] = line_state::invalid;
        stamps_[slot] = 0;
        return s;
    }

    // Looks up and, on a hit, marks the line most recently used. Returns the state (invalid on a miss).
    line_state access(std::uint64_t line) {
        ++set_visits_;
        const std::size_t base = set_of(line) * assoc_;
        for (unsigned w = 0; w < assoc_; ++w)
            if (tags_[base + w] == line) {
                stamps_[base + w] = next_stamp();
                return states_[base + w];
            }
        return line_state::invalid;
    }

    // Inserts a line that is not present, evicting by the replacement policy when the set is full.
    victim insert(std::uint64_t line, line_state s);
    // Removes a line; returns its state (invalid if it was absent).
    line_state invalidate(std::uint64_t line);
    // The lines present, in slot order.
    std::vector<std::uint64_t> lines() const {
        std::vector<std::uint64_t> v;
        for (std::size_t i = 0; i < tags_.size(); ++i)
            if (tags_[i] != no_line) v.push_back(tags_[i]);
        return v;
    }

    std::uint64_t num_sets() const { return sets_; }
    unsigned associativity() const { return assoc_; }
    std::uint64_t capacity_lines() const { return sets_ * assoc_; }
    std::uint64_t occupancy() const; // valid lines (for tests and stats)
    // Host work: the set scans made so far (find, slot, access, insert, invalidate), for the benchmarks.
    std::uint64_t set_visits() const { return set_visits_; }

private:
    std::uint32_t next_stamp() {
        if (clock_ == UINT32_MAX) renumber_stamps();
        return ++clock_;
    }
    void renumber_stamps();
    std::size_t set_of(std::uint64_t line) const {
        return static_cast<std::size_t>((pow2_ ? (line & (full_sets_ - 1)) : (line % full_sets_)) >>
                                        sampling_shift_);
    }

    std::uint64_t full_sets_; // sets of the real cache
    unsigned sampling_shift_; // log2 of the set-sampling ratio
    std::uint64_t sets_;      // sets simulated
    unsigned assoc_;
    bool pow2_;
    bool random_;
    std::uint32_t clock_ = 0;
    mutable std::uint64_t set_visits_ = 0;
    std::vector<std::uint64_t> tags_;
    std::vector<std::uint32_t> stamps_;
    std::vector<line_state> states_;
    std::mt19937_64 rng_;
};

} // namespace warmsched::models
