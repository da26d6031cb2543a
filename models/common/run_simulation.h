// run_simulation: sc_start, and then the main thread's stack made known to AddressSanitizer again.
//
// SystemC 2.3.4 tells ASan about its QuickThreads stack switches (__sanitizer_start_switch_fiber), but on
// a switch back to the main coroutine it passes bounds that are not the main thread's stack: once sc_start
// returns, ASan believes the main thread runs on the last simulation thread's 256 KiB stack (or on none).
// An exception thrown on the main stack afterwards then cannot unpoison the frames it unwinds (ASan prints
// "ignoring requested __asan_handle_no_return", google/sanitizers#189), and the redzones it leaves are
// reported later as stack-buffer-overflow or stack-use-after-scope where the stack is reused.
//
// Every sc_start in warmsched goes through here. In a build without ASan this is sc_start and nothing
// more. Left out: exceptions thrown on the main stack *during* a simulation (SC_METHODs, the simulation
// kernel); nothing in warmsched throws there, since model errors stop the simulation and are thrown after.
#pragma once

#include <systemc>

#if defined(__SANITIZE_ADDRESS__) // gcc
#define WARMSCHED_ASAN 1
#elif defined(__has_feature) // clang
#if __has_feature(address_sanitizer)
#define WARMSCHED_ASAN 1
#endif
#endif

namespace warmsched::models {

#ifdef WARMSCHED_ASAN
inline constexpr bool built_with_address_sanitizer = true;
#else
inline constexpr bool built_with_address_sanitizer = false;
#endif

// Runs the simulation until nothing is left to do or sc_stop (sc_start()).
void run_simulation();
// Runs the simulation for `duration` of simulated time (sc_start(duration)). With `stop_when_idle`, it
// returns early, at the last event, when nothing is left to do (SC_EXIT_ON_STARVATION); otherwise time
// advances to the end of `duration` regardless.
void run_simulation(const sc_core::sc_time& duration, bool stop_when_idle = false);

// What AddressSanitizer took as the calling thread's stack until this call: [bottom, bottom + size). The
// call makes ASan's view the real stack (pthread_thread_stack). Both 0 in a build without ASan. For the
// test of run_simulation.
struct sanitizer_stack_bounds {
    const void* bottom = nullptr;
    std::size_t size = 0;
};
sanitizer_stack_bounds sanitizer_thread_stack();
// The calling thread's stack as the C library knows it (pthread_getattr_np).
sanitizer_stack_bounds pthread_thread_stack();

} // namespace warmsched::models
