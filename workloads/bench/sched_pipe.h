// perf bench sched pipe: two tasks ping-pong an int over two pipes `loops` times (one op = one round
// trip: 2 writes, 2 reads, 2 wakeups, at least 2 switches). Process mode: the main process forks the
// peer and is itself the other end; -T: two threads. Prints perf's "Total time", "usecs/op" and
// "ops/sec" lines. The time includes creating the peer, as perf's does.
#pragma once

#include "workloads/workload.h"

#include <memory>

namespace warmsched::workloads {

class sched_pipe final : public workload {
public:
    sched_pipe(long long loops, bool threaded, std::string command);
    static std::unique_ptr<sched_pipe> from_perf(const std::vector<std::string>& args,
                                                 const std::string& command);

    std::string command() const override { return command_; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return result_->done; }
    void report(std::ostream& out) const override;
    double usecs_per_op() const;

    struct result {
        bool done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
    };

private:
    long long loops_;
    bool threaded_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
};

} // namespace warmsched::workloads
