// What a task's computation does to memory: a private working set walked in a pattern (uniform random,
// sequential stream, or hot/cold), a rate of accesses per kilo-instruction and a share of writes, and
// optionally a share of accesses into a shared set: its process's heap (shared by the threads of one
// process), or a region named by address that tasks of different processes share (a kernel object such
// as a socket's state, or a shared memory segment). The working set too can be such a region (a buffer
// that several tasks walk, each with its own cursor).
// access_generator turns a profile into line addresses, drawing from the task's seeded RNG.
#pragma once

#include "models/cpu/hart.h"

#include <cstdint>
#include <random>
#include <vector>

namespace warmsched::workloads {

enum class access_pattern { uniform, stream, hot_cold };

struct memory_profile {
    std::uint64_t working_set = 0; // bytes, private to each task using the profile (unless working_region)
    access_pattern pattern = access_pattern::uniform;
    double accesses_per_kilo_instruction = 0;
    double write_fraction = 0;
    double hot_fraction = 0.1;    // hot_cold: share of the working set that is hot
    double hot_access = 0.9;      // hot_cold: share of accesses that go to the hot part
    std::uint64_t shared_set = 0; // bytes of the process heap touched (threads of a process share it)
    double shared_access = 0;     // share of accesses that go to the shared set
    // Where the shared set lives: 0 = the process heap; else the address of a region every task using
    // the profile shares, whatever its process (from sim_kernel::alloc_shared).
    std::uint64_t shared_region = 0;
    // Where the working set lives: 0 = a private allocation per task; else the address of a region every
    // task using the profile walks, each with its own cursor (from sim_kernel::alloc_shared).
    std::uint64_t working_region = 0;
};

class access_generator {
public:
    access_generator() = default;
    access_generator(const memory_profile& p, std::uint64_t private_base, std::uint64_t shared_base,
                     unsigned line_size)
        : p_(&p), private_base_(private_base), shared_base_(shared_base), line_(line_size) {}

    // Appends `n` accesses to `out`.
    void generate(std::size_t n, std::mt19937_64& rng, std::vector<models::mem_access>& out) {
        const std::uint64_t lines = p_->working_set / line_;
        const std::uint64_t shared_lines = p_->shared_set / line_;
        const std::uint64_t hot_lines =
            std::max<std::uint64_t>(1, static_cast<std::uint64_t>(lines * p_->hot_fraction));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (std::size_t i = 0; i < n; ++i) {
            models::mem_access a;
            a.write = p_->write_fraction > 0 && u(rng) < p_->write_fraction;
            if (shared_lines && p_->shared_access > 0 && u(rng) < p_->shared_access) {
                a.addr = shared_base_ + (rng() % shared_lines) * line_;
            } else if (lines == 0) {
                a.addr = private_base_;
            } else if (p_->pattern == access_pattern::stream) {
                a.addr = private_base_ + (cursor_++ % lines) * line_;
            } else if (p_->pattern == access_pattern::hot_cold && lines > hot_lines) {
                const bool hot = u(rng) < p_->hot_access;
                a.addr = private_base_ +
                         (hot ? rng() % hot_lines : hot_lines + rng() % (lines - hot_lines)) * line_;
            } else {
                a.addr = private_base_ + (rng() % lines) * line_;
            }
            out.push_back(a);
        }
    }
    bool sequential() const { return p_->pattern == access_pattern::stream; }
    const memory_profile& profile() const { return *p_; }

private:
    const memory_profile* p_ = nullptr;
    std::uint64_t private_base_ = 0, shared_base_ = 0, cursor_ = 0;
    unsigned line_ = 64;
};

} // namespace warmsched::workloads
