// cpuidle: the menu governor's choices against menu.c's arithmetic (v6.1), and what the idle states do
// to a run -- cyclictest's latency with Milan's C2 enabled and disabled, the core flush, the ACPI PM
// timer's dummy wait queueing -- read the way users read it (cyclictest's T: line, the report's idle
// states line).
#include "workloads/kernel/cpuidle_menu.h"

#include "platforms/platform_loader.h"
#include "support/cli_runner.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>

using namespace warmsched;
using workloads::menu_governor;

namespace {
// milan-7713-2s's states: POLL, C1 (1/2 us), C2 (400/800 us advertised).
std::vector<platform::idle_state_params> milan_states() {
    return platform::load_platform("milan-7713-2s").idle_states;
}
constexpr std::uint64_t us = 1000;
} // namespace

TEST_CASE("Milan's idle states are POLL, C1 and C2 as its ACPI _CST advertises them") {
    const auto s = milan_states();
    REQUIRE(s.size() == 3);
    CHECK(s[0].name == "POLL");
    CHECK(s[0].polling);
    CHECK(s[1].exit_latency_ps == 1e6);
    CHECK(s[1].target_residency_ps == 2e6); // latency_factor 2
    CHECK(s[2].exit_latency_ps == 400e6);
    CHECK(s[2].target_residency_ps == 800e6);
    CHECK(s[2].exit_time_ps == 22e6); // measured 20-25 us on Zen 2, not the advertised 400
    CHECK(s[2].flushes_core);
    CHECK(s[2].io_port);
    // A platform without the list has the single C1 of kernel_costs.idle_exit.
    const auto z = platform::load_platform("zen3-5950x").idle_states;
    REQUIRE(z.size() == 1);
    CHECK(z[0].exit_time_ps == platform::load_platform("zen3-5950x").kernel_costs.idle_exit_ps);
}

TEST_CASE("menu: a timer closer than C1's target residency means POLL, and POLL spins that long") {
    menu_governor g(milan_states(), -1);
    CHECK(g.select(1500, false) == 0);
    CHECK(g.poll_limit_ns() == 2 * us); // cpuidle_poll_time: the smallest enabled target residency
}

TEST_CASE("menu: with no history the next timer is the prediction, and 1 ms picks C2 (800 us residency)") {
    menu_governor g(milan_states(), -1);
    // correction factor RESOLUTION * DECAY (1.0); no intervals yet: get_typical_interval is UINT_MAX.
    CHECK(g.select(1000 * us, false) == 2);
    CHECK(g.predicted_ns() == 1000 * us);
    // 700 us: C2's residency does not fit; C1's does.
    menu_governor h(milan_states(), -1);
    CHECK(h.select(700 * us, false) == 1);
}

TEST_CASE("menu: max_cstate=1 leaves C2 out whatever the prediction") {
    menu_governor g(milan_states(), 1);
    CHECK(g.select(1'000'000 * us, false) == 1);
}

TEST_CASE("menu: eight steady 50 us periods make the typical interval 50 us, so a far timer still gets C1") {
    menu_governor g(milan_states(), -1);
    for (int i = 0; i < 8; ++i) {
        REQUIRE(g.select(1'000'000 * us, false) >= 1);
        g.reflect(51 * us, 1, false); // 51 us in C1: measured = 51 - 1 (exit latency) = 50 us
    }
    CHECK(g.typical_interval_us(UINT32_MAX) == 50);
    CHECK(g.select(1'000'000 * us, false) == 1);
    CHECK(g.predicted_ns() == 50 * us);
}

TEST_CASE("menu: the typical interval drops the outliers above, down to 6 of the 8 periods") {
    menu_governor g(milan_states(), -1);
    for (int i = 0; i < 7; ++i) {
        g.select(1'000'000 * us, false);
        g.reflect(51 * us, 1, false);
    }
    g.select(1'000'000 * us, false);
    g.reflect(5001 * us, 1, false); // one 5 ms outlier
    // All 8: avg 668, stddev ~1634: not steady. Without the 5000: avg 50, variance 0.
    CHECK(g.typical_interval_us(UINT32_MAX) == 50);
    // Two outliers of different sizes: 6 of 8 left is still steady; three leave 5: none.
    menu_governor h(milan_states(), -1);
    for (unsigned v : {50u, 50u, 50u, 50u, 50u, 3000u, 4000u, 5000u}) {
        h.select(1'000'000 * us, false);
        h.reflect((v + 1) * us, 1, false);
    }
    CHECK(h.typical_interval_us(UINT32_MAX) == UINT32_MAX);
}

TEST_CASE("menu: periods far shorter than the timer teach the bucket's correction factor") {
    // A 10 ms timer (bucket 3) and 100 us idle periods of irregular length (no typical interval): each
    // update decays the factor by 1/8 and adds RESOLUTION x measured / next_timer; it converges to 1%.
    menu_governor g(milan_states(), -1);
    const std::uint64_t periods[] = {80, 130, 95, 160, 60, 120, 70, 140};
    for (int i = 0; i < 80; ++i) {
        g.select(10'000 * us, false);
        g.reflect((periods[i % 8] + 1) * us, 1, false);
    }
    g.select(10'000 * us, false);
    // factor ~ 8 x 1024 x 0.0107 (the mean of the measured / next_timer): predicted ~107 us, C1.
    CHECK(g.predicted_ns() == Approx(107 * us).epsilon(0.15));
}

namespace {
struct ct_line {
    int min = -1, avg = -1, max = -1;
    double c2_usage = -1; // stats.txt kernel.idleState::C2.usage
};
ct_line cyclictest_on_milan(const std::string& extra) {
    const std::string out = "/tmp/warmsched-cpuidle-" + std::to_string(::getpid());
    const auto r = test::run_cli("run --platform milan-7713-2s " + extra + " --out " + out +
                                 " -- cyclictest -t 1 -i 5000 -l 40 -q");
    INFO(r.err);
    REQUIRE(r.status == 0);
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(Min:\s+(\d+) Act:\s+\d+ Avg:\s+(\d+) Max:\s+(\d+))")));
    ct_line l{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
    std::ifstream in(out + "/stats.txt");
    const std::string stats((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch u;
    if (std::regex_search(stats, u, std::regex(R"(kernel\.idleState::C2\.usage\s+(\d+))"))) l.c2_usage = std::stod(u[1]);
    std::filesystem::remove_all(out);
    return l;
}
} // namespace

TEST_CASE("cyclictest on Milan pays C2's exit once menu has learnt the 5 ms period") {
    // The first periods go to C1 (no history); the periods then are steady, the typical interval is 5 ms,
    // and C2 (residency 800 us) fits: every wakeup from then on waits C2's 22 us exit.
    const ct_line l = cyclictest_on_milan("");
    CHECK(l.min <= 3);
    CHECK(l.max >= 22);
    CHECK(l.max <= 26);
    CHECK(l.avg >= 15);
    CHECK(l.c2_usage > 0);
}

TEST_CASE("cyclictest on Milan with C2 disabled (max_cstate 1) stays at C1's latency") {
    const ct_line l = cyclictest_on_milan("-p platform.kernel_costs.max_cstate=1");
    CHECK(l.max <= 3);
    CHECK(l.c2_usage == 0);
}

TEST_CASE("A max_cstate beyond the platform's states is a one-line error naming the key") {
    const auto r = test::run_cli("run --platform milan-7713-2s -p platform.kernel_costs.max_cstate=3 -- "
                                 "cyclictest -t 1 -i 5000 -l 4 -q");
    CHECK(r.status == 2);
    CHECK(r.err.find("max_cstate") != std::string::npos);
    CHECK(r.err.find("0..2") != std::string::npos);
}

TEST_CASE("acpi_dummy_wait: each exit from C2 also reads the ACPI PM timer, and the wakeup waits for it") {
    // One cyclictest thread: no other CPU queues on the port, so each C2 exit costs 22 + 1 us.
    const ct_line l = cyclictest_on_milan("-p platform.kernel_costs.acpi_dummy_wait=1us");
    CHECK(l.max >= 23);
    CHECK(l.max <= 27);
}

TEST_CASE("idle_exit on a platform that lists idle_states is a one-line error, not silently ignored") {
    const auto r = test::run_cli("run --platform milan-7713-2s -p platform.kernel_costs.idle_exit=2us -- "
                                 "cyclictest -t 1 -i 5000 -l 4 -q");
    CHECK(r.status == 2);
    CHECK(r.err.find("idle_exit") != std::string::npos);
    CHECK(r.err.find("exit_time") != std::string::npos);
}
