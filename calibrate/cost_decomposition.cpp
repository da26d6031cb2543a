// See cost_decomposition.h.
#include "calibrate/cost_decomposition.h"

#include <algorithm>
#include <stdexcept>

namespace warmsched::calibrate {

spread spread_of(std::vector<double> v) {
    spread s;
    s.n = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    const std::size_t m = v.size() / 2;
    s.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    return s;
}

const std::vector<std::string>& solved_cost_keys() {
    static const std::vector<std::string> keys = {
        "syscall", "pipe_write", "pipe_read", "unix_skb_alloc", "unix_skb_free", "context_switch", "mm_switch",
        "wakeup", "ipi_send", "ipi", "ipi_handler", "idle_exit", "fork", "clone", "exit", "exec"};
    return keys;
}

std::vector<solved_cost> decompose_costs(const host_costs& h, const model_residuals& r,
                                         const platform::kernel_cost_params& e) {
    const std::size_t n = h.syscall.size();
    for (const auto* v : {&h.pipe_write, &h.pipe_read, &h.unix_write, &h.unix_read, &h.yield_threads,
                          &h.yield_procs, &h.pipe_rt_threads, &h.pipe_rt_threads_2cpu, &h.pipe_rt_threads_2cpu_cpu, &h.fork_call,
                          &h.exit_reap, &h.clone_call, &h.exec})
        if (v->size() != n) throw std::logic_error("decompose_costs: the microbenchmarks' repeats differ in number");

    std::vector<solved_cost> out;
    out.reserve(solved_cost_keys().size()); // add() hands out references into it: no reallocation
    auto add = [&](const std::string& key, const std::string& how, double estimate_ps) -> solved_cost& {
        out.push_back(solved_cost{key, std::vector<double>(n, 0.0), how, estimate_ps / 1e3});
        return out.back();
    };
    auto& sys = add("syscall", "getppid() per call", e.syscall_ps);
    auto& pw = add("pipe_write", "1-byte pipe write - syscall - the model's residual", e.pipe_write_ps);
    auto& pr = add("pipe_read", "1-byte pipe read - syscall - the model's residual", e.pipe_read_ps);
    auto& ua = add("unix_skb_alloc", "AF_UNIX write - syscall - pipe_write - the model's residual", e.unix_skb_alloc_ps);
    auto& uf = add("unix_skb_free", "AF_UNIX read - syscall - pipe_read - the model's residual", e.unix_skb_free_ps);
    auto& cs = add("context_switch", "sched_yield between two threads on one CPU, per switch - syscall - residual", e.context_switch_ps);
    auto& mm = add("mm_switch", "the same between two processes - between two threads", e.mm_switch_ps);
    auto& wk = add("wakeup", "(pipe round trip between two threads on one CPU - residual) / 2 - "
                             "(2 syscall + pipe_write + pipe_read + context_switch)", e.wakeup_ps);
    auto& re = add("ipi_send", "(CPU time per pipe round trip between threads on two CPUs - residual) / 2 - "
                               "(2 syscall + pipe_write + pipe_read + wakeup + context_switch)", e.ipi_send_ps);
    const std::string remote_how = "a share of (pipe round trip between threads on two CPUs - residual) / 2 - "
                                   "(2 syscall + pipe_write + pipe_read + wakeup + context_switch + ipi_send)";
    auto& ipi = add("ipi", remote_how, e.ipi_ps);
    auto& ih = add("ipi_handler", remote_how, e.ipi_handler_ps);
    auto& ie = add("idle_exit", remote_how, e.idle_exit_ps);
    auto& fk = add("fork", "fork() call in the parent - syscall", e.fork_ps);
    auto& cl = add("clone", "pthread_create call - syscall", e.clone_ps);
    auto& ex = add("exit", "child's _exit to the parent's waitpid return - (syscall + wakeup + context_switch + "
                           "mm_switch)", e.exit_ps);
    auto& xc = add("exec", "execve to the new image's main - syscall", e.exec_ps);
    for (auto* s : {&ipi, &ih, &ie}) s->split_estimated = true;

    const double remote_est = e.ipi_ps + e.ipi_handler_ps + e.idle_exit_ps;
    auto set = [](solved_cost& c, std::size_t i, double v) {
        if (v < 0) {
            c.clamped = true;
            v = 0;
        }
        c.ns[i] = v;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double S = std::max(0.0, h.syscall[i]);
        set(sys, i, S);
        set(pw, i, h.pipe_write[i] - S - r.pipe_write);
        set(pr, i, h.pipe_read[i] - S - r.pipe_read);
        set(ua, i, h.unix_write[i] - S - pw.ns[i] - r.unix_write);
        set(uf, i, h.unix_read[i] - S - pr.ns[i] - r.unix_read);
        set(cs, i, h.yield_threads[i] - S - r.yield_switch);
        set(mm, i, h.yield_procs[i] - h.yield_threads[i]);
        const double local_path = 2 * S + pw.ns[i] + pr.ns[i] + cs.ns[i];
        set(wk, i, (h.pipe_rt_threads[i] - r.pipe_rt_threads) / 2 - local_path);
        const double shared_path = local_path + wk.ns[i];
        set(re, i, (h.pipe_rt_threads_2cpu_cpu[i] - r.pipe_rt_threads_2cpu_cpu) / 2 - shared_path);
        const double remote = (h.pipe_rt_threads_2cpu[i] - r.pipe_rt_threads_2cpu) / 2 - shared_path - re.ns[i];
        const double share = remote_est > 0 ? 1.0 / remote_est : 1.0 / 3;
        set(ipi, i, remote * (remote_est > 0 ? e.ipi_ps * share : share));
        set(ih, i, remote * (remote_est > 0 ? e.ipi_handler_ps * share : share));
        set(ie, i, remote * (remote_est > 0 ? e.idle_exit_ps * share : share));
        set(fk, i, h.fork_call[i] - S);
        set(cl, i, h.clone_call[i] - S);
        set(ex, i, h.exit_reap[i] - (S + wk.ns[i] + cs.ns[i] + mm.ns[i]));
        set(xc, i, h.exec[i] - S);
    }
    return out;
}

} // namespace warmsched::calibrate
