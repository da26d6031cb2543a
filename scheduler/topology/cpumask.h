// A set of Linux CPU numbers as the scheduler's struct cpumask serves it: a bitmap for an O(1)
// membership test (cpumask_test_cpu) next to the sorted CPU list that iteration, cpumask_first,
// cpumask_weight and the cpulist notation need. A mask is fixed once built; the kernel's in-place
// operations (and, or, andnot on scratch masks) are left out, as the sched-domain code only reads spans.
#pragma once

#include <cstdint>
#include <vector>

namespace warmsched::scheduler {

class cpumask {
public:
    cpumask() = default;
    // `cpus`: sorted, without duplicates, each below `nr_cpu_ids`.
    cpumask(std::vector<unsigned> cpus, unsigned nr_cpu_ids)
        : cpus_(std::move(cpus)), words_((nr_cpu_ids + 63) / 64) {
        for (unsigned c : cpus_) words_[c >> 6] |= std::uint64_t{1} << (c & 63);
    }

    bool test(unsigned cpu) const {
        return (cpu >> 6) < words_.size() && ((words_[cpu >> 6] >> (cpu & 63)) & 1) != 0;
    }
    unsigned weight() const { return static_cast<unsigned>(cpus_.size()); }
    bool empty() const { return cpus_.empty(); }
    unsigned first() const { return cpus_.front(); } // the mask must not be empty
    const std::vector<unsigned>& cpus() const { return cpus_; }
    std::vector<unsigned>::const_iterator begin() const { return cpus_.begin(); }
    std::vector<unsigned>::const_iterator end() const { return cpus_.end(); }

    bool operator==(const cpumask& o) const { return cpus_ == o.cpus_; }
    bool operator!=(const cpumask& o) const { return !(*this == o); }
    bool subset_of(const cpumask& o) const {
        for (unsigned c : cpus_)
            if (!o.test(c)) return false;
        return true;
    }
    bool intersects(const cpumask& o) const {
        for (unsigned c : cpus_)
            if (o.test(c)) return true;
        return false;
    }

    // for_each_cpu_wrap: the CPUs from `start` upwards, then those below it.
    template <class F> void for_each_wrap(unsigned start, F&& f) const {
        std::size_t i = 0;
        while (i < cpus_.size() && cpus_[i] < start) ++i;
        for (std::size_t k = 0; k < cpus_.size(); ++k) f(cpus_[(i + k) % cpus_.size()]);
    }

private:
    std::vector<unsigned> cpus_;
    std::vector<std::uint64_t> words_;
};

} // namespace warmsched::scheduler
