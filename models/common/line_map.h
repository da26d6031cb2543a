// A hash map from line addresses to small values, for the per-line bookkeeping on the miss path (which
// cores of an LLC hold a line, which LLCs a directory entry lists). Open addressing with linear probing in
// one flat power-of-two table, deletion by backward shift (no tombstones): a lookup touches one or two
// cache lines of the host, where std::unordered_map chases a node pointer per element. Consecutive keys
// take adjacent slots (see slot()). (Boost 1.74, the project's Boost, predates boost::unordered_flat_map.)
#pragma once

#include <cstdint>
#include <vector>

namespace warmsched::models {

template <class V> class line_map {
public:
    static constexpr std::uint64_t empty_key = ~0ull;

    explicit line_map(std::size_t expected = 1024) { rehash(capacity_for(expected)); }

    V* find(std::uint64_t key) {
        ++visits_;
        for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
            if (keys_[i] == key) return &values_[i];
            if (keys_[i] == empty_key) return nullptr;
        }
    }
    const V* find(std::uint64_t key) const { return const_cast<line_map*>(this)->find(key); }

    // Returns the value of `key`, inserting a default-constructed one if absent.
    V& operator[](std::uint64_t key) {
        ++visits_;
        for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
            if (keys_[i] == key) return values_[i];
            if (keys_[i] == empty_key) {
                if ((size_ + 1) * 4 > keys_.size() * 3) { // keep the load factor under 3/4
                    rehash(keys_.size() * 2);
                    return (*this)[key];
                }
                keys_[i] = key;
                values_[i] = V{};
                ++size_;
                return values_[i];
            }
        }
    }

    bool erase(std::uint64_t key) {
        ++visits_;
        std::size_t i = slot(key);
        for (;; i = (i + 1) & mask_) {
            if (keys_[i] == empty_key) return false;
            if (keys_[i] == key) break;
        }
        erase_slot(i);
        return true;
    }
    // Erases the entry whose value find() or [] returned (no second lookup). Entries may move: pointers
    // and references into the map are invalid afterwards.
    void erase_found(V* value) { erase_slot(static_cast<std::size_t>(value - values_.data())); }

    std::size_t size() const { return size_; }
    std::size_t capacity() const { return keys_.size(); } // slots (each a key and a value)
    // Host work: the lookups made so far (find, [], erase), for the benchmarks.
    std::uint64_t visits() const { return visits_; }

private:
    void erase_slot(std::size_t i) {
        // Backward-shift deletion: move later members of the probe run into the hole.
        for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
            if (keys_[j] == empty_key) break;
            const std::size_t home = slot(keys_[j]);
            const bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                keys_[i] = keys_[j];
                values_[i] = values_[j];
                i = j;
            }
        }
        keys_[i] = empty_key;
        --size_;
    }
    static std::size_t capacity_for(std::size_t n) {
        std::size_t c = 16;
        while (c * 3 < n * 4) c *= 2;
        return c;
    }
    // Keys come in runs (consecutive lines of a buffer, a stack, a pipe's ring): a run of 2^run_bits
    // consecutive keys shares one hashed base and takes adjacent slots, so the lookups of a copy touch
    // one host cache line of keys instead of one per line. Runs are spread by Fibonacci hashing.
    static constexpr unsigned run_bits = 3;
    std::size_t slot(std::uint64_t key) const {
        const std::uint64_t base = ((key >> run_bits) * 0x9E3779B97F4A7C15ull) >> (shift_ + run_bits);
        return static_cast<std::size_t>((base << run_bits) | (key & ((1u << run_bits) - 1))) & mask_;
    }
    void rehash(std::size_t capacity) {
        std::vector<std::uint64_t> old_keys(capacity, empty_key);
        std::vector<V> old_values(capacity);
        old_keys.swap(keys_);
        old_values.swap(values_);
        mask_ = capacity - 1;
        shift_ = 64;
        for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
        size_ = 0;
        const std::uint64_t visits = visits_; // moving the entries is not a lookup
        for (std::size_t i = 0; i < old_keys.size(); ++i)
            if (old_keys[i] != empty_key) (*this)[old_keys[i]] = old_values[i];
        visits_ = visits;
    }

    std::vector<std::uint64_t> keys_;
    std::vector<V> values_;
    std::size_t mask_ = 0;
    unsigned shift_ = 60;
    std::size_t size_ = 0;
    mutable std::uint64_t visits_ = 0;
};

} // namespace warmsched::models
