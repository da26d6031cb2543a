// run_simulation: it runs the simulation as sc_start does, and in a sanitizer build (make test-asan) it
// leaves AddressSanitizer with the main thread's real stack, which SystemC 2.3.4's coroutine switches do not.
#include "models/common/run_simulation.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <systemc>

using namespace warmsched;

namespace {

struct ticker : sc_core::sc_module {
    int ticks = 0;
    SC_HAS_PROCESS(ticker);
    explicit ticker(sc_core::sc_module_name n) : sc_core::sc_module(n) { SC_THREAD(run); }
    void run() {
        for (int i = 0; i < 3; ++i) {
            wait(10, sc_core::SC_NS);
            ++ticks;
        }
    }
};

// A frame with an array ASan guards with redzones, as the frames an exception unwinds have.
int sum_of_multiples(int n) {
    volatile int multiples[64];
    int sum = 0;
    for (int i = 0; i < 64; ++i) multiples[i] = i * n;
    for (int i = 0; i < 64; ++i) sum += multiples[i];
    return sum;
}

} // namespace

TEST_CASE("run_simulation runs to the end, and ASan then knows the main thread's stack, so throwing after "
          "a simulation unwinds cleanly") {
    ticker t("ticker");
    models::run_simulation(sc_core::sc_time(15, sc_core::SC_NS));
    CHECK(t.ticks == 1);
    CHECK(sc_core::sc_time_stamp() == sc_core::sc_time(15, sc_core::SC_NS));
    models::run_simulation();
    CHECK(t.ticks == 3);
    CHECK(sc_core::sc_time_stamp() == sc_core::sc_time(30, sc_core::SC_NS));

    const models::sanitizer_stack_bounds real = models::pthread_thread_stack();
    REQUIRE(real.size > 0);
    const models::sanitizer_stack_bounds asan = models::sanitizer_thread_stack();
    if constexpr (models::built_with_address_sanitizer) {
        CHECK(asan.bottom == real.bottom);
        CHECK(asan.size == real.size);
    } else {
        CHECK(asan.size == 0);
    }
    // What the three tests that failed under ASan did: throw on the main stack after a simulation, then
    // reuse the stack the exception unwound.
    CHECK_THROWS_AS(throw std::runtime_error("after the simulation"), std::runtime_error);
    CHECK(sum_of_multiples(2) == 2 * (63 * 64 / 2));
}
