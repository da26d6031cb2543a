// calibrate/cost_decomposition.h on synthetic input: host figures built from known direct costs and
// known model residuals must give those costs back, repeat by repeat; a cost the residual already covers
// is clamped to 0 and flagged; the remote hand-off's sum is split in the estimated table's proportions.
#include "calibrate/cost_decomposition.h"

#include <catch2/catch.hpp>

#include <map>

using namespace warmsched;
using namespace warmsched::calibrate;

namespace {

// Direct costs (ns) a synthetic host "has", per repeat.
struct truth {
    double S, pw, pr, ua, uf, cs, mm, wk, re, remote, fork, clone, exit, exec; // re: ipi_send; remote: ipi + handler + exit
};

host_costs host_of(const std::vector<truth>& t, const model_residuals& r) {
    host_costs h;
    for (const auto& x : t) {
        h.syscall.push_back(x.S);
        h.pipe_write.push_back(x.S + x.pw + r.pipe_write);
        h.pipe_read.push_back(x.S + x.pr + r.pipe_read);
        h.unix_write.push_back(x.S + x.pw + x.ua + r.unix_write);
        h.unix_read.push_back(x.S + x.pr + x.uf + r.unix_read);
        h.yield_threads.push_back(x.S + x.cs + r.yield_switch);
        h.yield_procs.push_back(x.S + x.cs + x.mm + r.yield_switch);
        const double hand_off = 2 * x.S + x.pw + x.pr + x.wk + x.cs;
        h.pipe_rt_threads.push_back(2 * hand_off + r.pipe_rt_threads);
        h.pipe_rt_threads_2cpu.push_back(2 * (hand_off + x.re + x.remote) + r.pipe_rt_threads_2cpu);
        h.pipe_rt_threads_2cpu_cpu.push_back(2 * (hand_off + x.re) + r.pipe_rt_threads_2cpu_cpu);
        h.fork_call.push_back(x.S + x.fork);
        h.clone_call.push_back(x.S + x.clone);
        h.exit_reap.push_back(x.S + x.exit + x.wk + x.cs + x.mm);
        h.exec.push_back(x.S + x.exec);
    }
    return h;
}

std::map<std::string, solved_cost> by_key(const std::vector<solved_cost>& v) {
    std::map<std::string, solved_cost> m;
    for (const auto& c : v) m[c.key] = c;
    return m;
}

} // namespace

TEST_CASE("the decomposition gives back the direct costs the host figures were built from") {
    model_residuals r;
    r.pipe_write = 3.3;
    r.pipe_read = 3.3;
    r.unix_write = 2.2;
    r.unix_read = 2.2;
    r.yield_switch = 6.6;
    r.pipe_rt_threads = 420;
    r.pipe_rt_threads_2cpu = 910;
    r.pipe_rt_threads_2cpu_cpu = 640;
    const std::vector<truth> t = {
        {250, 310, 290, 700, 380, 1100, 150, 900, 13000, 6000, 40000, 9000, 30000, 250000},
        {260, 300, 280, 690, 370, 1150, 170, 950, 13500, 6400, 41000, 9500, 31000, 260000},
        {245, 305, 295, 710, 390, 1080, 140, 870, 12800, 5800, 39000, 8800, 29000, 255000},
    };
    const platform::kernel_cost_params est; // ipi 1.5, ipi_handler 0.5, idle_exit 1.0 us: shares 1/2, 1/6, 1/3
    const auto m = by_key(decompose_costs(host_of(t, r), r, est));
    REQUIRE(m.size() == solved_cost_keys().size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        INFO("repeat " << i);
        CHECK(m.at("syscall").ns[i] == Approx(t[i].S));
        CHECK(m.at("pipe_write").ns[i] == Approx(t[i].pw));
        CHECK(m.at("pipe_read").ns[i] == Approx(t[i].pr));
        CHECK(m.at("unix_skb_alloc").ns[i] == Approx(t[i].ua));
        CHECK(m.at("unix_skb_free").ns[i] == Approx(t[i].uf));
        CHECK(m.at("context_switch").ns[i] == Approx(t[i].cs));
        CHECK(m.at("mm_switch").ns[i] == Approx(t[i].mm));
        CHECK(m.at("wakeup").ns[i] == Approx(t[i].wk));
        CHECK(m.at("ipi_send").ns[i] == Approx(t[i].re));
        CHECK(m.at("ipi").ns[i] == Approx(t[i].remote * 1.5 / 3.0));
        CHECK(m.at("ipi_handler").ns[i] == Approx(t[i].remote * 0.5 / 3.0));
        CHECK(m.at("idle_exit").ns[i] == Approx(t[i].remote * 1.0 / 3.0));
        CHECK(m.at("fork").ns[i] == Approx(t[i].fork));
        CHECK(m.at("clone").ns[i] == Approx(t[i].clone));
        CHECK(m.at("exit").ns[i] == Approx(t[i].exit));
        CHECK(m.at("exec").ns[i] == Approx(t[i].exec));
    }
    for (const auto& [k, c] : m) {
        CHECK_FALSE(c.clamped);
        CHECK(c.split_estimated == (k == "ipi" || k == "ipi_handler" || k == "idle_exit"));
    }
    // The spread over the repeats: the median, min and max of the solved values.
    const spread w = spread_of(m.at("wakeup").ns);
    CHECK(w.median == Approx(900));
    CHECK(w.min == Approx(870));
    CHECK(w.max == Approx(950));
    CHECK(w.n == 3);
}

TEST_CASE("a cost the model's residual already covers is clamped to 0 and flagged, nothing counted twice") {
    model_residuals r;
    r.pipe_rt_threads = 5000; // the model's cache misses alone take longer than the host's round trip
    const std::vector<truth> t = {{100, 200, 200, 300, 300, 1000, 100, 800, 5000, 3000, 30000, 8000, 20000, 200000}};
    host_costs h = host_of(t, model_residuals{});
    h.pipe_rt_threads[0] = 4000;
    const auto m = by_key(decompose_costs(h, r, platform::kernel_cost_params{}));
    CHECK(m.at("wakeup").ns[0] == 0);
    CHECK(m.at("wakeup").clamped);
    CHECK_FALSE(m.at("context_switch").clamped);
    CHECK(m.at("context_switch").ns[0] == Approx(1000));
}

TEST_CASE("the median of an even number of repeats is the mean of the middle two") {
    const spread s = spread_of({4, 1, 3, 2});
    CHECK(s.median == Approx(2.5));
    CHECK(s.min == 1);
    CHECK(s.max == 4);
    CHECK(spread_of({}).n == 0);
}

TEST_CASE("repeats of different lengths are our bug, not the user's") {
    host_costs h;
    h.syscall = {1, 2};
    CHECK_THROWS_AS(decompose_costs(h, model_residuals{}, platform::kernel_cost_params{}), std::logic_error);
}
