// run_simulation: sc_start, then AddressSanitizer told the main thread's real stack (see the header).
#include "models/common/run_simulation.h"

#include <pthread.h>

#ifdef WARMSCHED_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace warmsched::models {

sanitizer_stack_bounds pthread_thread_stack() {
    sanitizer_stack_bounds b;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
    void* bottom = nullptr;
    if (pthread_attr_getstack(&attr, &bottom, &b.size) == 0)
        b.bottom = bottom;
    else
        b.size = 0;
    pthread_attr_destroy(&attr);
    return b;
}

#ifdef WARMSCHED_ASAN
namespace {

// A "switch" from the current stack to `to`: ASan's fiber interface records `to` as the thread's stack
// and reports the stack it believed in before.
sanitizer_stack_bounds switch_sanitizer_stack(sanitizer_stack_bounds to) {
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, to.bottom, to.size);
    sanitizer_stack_bounds was;
    __sanitizer_finish_switch_fiber(fake_stack, &was.bottom, &was.size);
    return was;
}

// The calling thread's stack as the C library knows it, made ASan's view again. pthread_getattr_np reads
// /proc/self/maps for the main thread: once per simulation, in sanitizer builds only.
void restore_sanitizer_stack() {
    if (const sanitizer_stack_bounds real = pthread_thread_stack(); real.size != 0)
        switch_sanitizer_stack(real);
}

} // namespace

sanitizer_stack_bounds sanitizer_thread_stack() {
    // Read by switching to the real stack: afterwards ASan's view is right whatever it was before.
    return switch_sanitizer_stack(pthread_thread_stack());
}
#else
namespace {
void restore_sanitizer_stack() {}
} // namespace

sanitizer_stack_bounds sanitizer_thread_stack() {
    return {};
}
#endif

void run_simulation() {
    sc_core::sc_start();
    restore_sanitizer_stack();
}

void run_simulation(const sc_core::sc_time& duration, bool stop_when_idle) {
    sc_core::sc_start(duration, stop_when_idle ? sc_core::SC_EXIT_ON_STARVATION : sc_core::SC_RUN_TO_TIME);
    restore_sanitizer_stack();
}

} // namespace warmsched::models
