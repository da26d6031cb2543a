// A program given as a fixed list of operations, run once, a number of times, or forever -- the
// building block of simple workloads and of the scheduler tests (a CPU hog is one compute op looped).
#pragma once

#include "workloads/kernel/program.h"

#include <vector>

namespace warmsched::workloads {

class scripted_program final : public copyable_program<scripted_program> {
public:
    // loops < 0: forever.
    explicit scripted_program(std::vector<op> ops, long loops = 1) : ops_(std::move(ops)), loops_(loops) {}
    op next(program_context&) override {
        if (index_ == ops_.size()) {
            if (loops_ >= 0 && --loops_ <= 0) return op::exit();
            index_ = 0;
        }
        if (ops_.empty()) return op::exit();
        return ops_[index_++];
    }

private:
    std::vector<op> ops_;
    long loops_;
    std::size_t index_ = 0;
};

} // namespace warmsched::workloads
