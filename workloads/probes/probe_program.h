// What the probes share: running a function as a SystemC thread (a "program" on one or more harts), and a
// flag two programs use to hand work to each other at an exact simulated time.
#pragma once

#include <systemc>
#include <sysc/kernel/sc_dynamic_processes.h> // sc_spawn (what SC_INCLUDE_DYNAMIC_PROCESSES would include)

#include <functional>
#include <string>

namespace warmsched::workloads {

// Starts `body` as a dynamic SC_THREAD; returns its handle (wait on terminated_event() to join it).
inline sc_core::sc_process_handle spawn_program(const std::string& name, std::function<void()> body) {
    sc_core::sc_spawn_options opts;
    opts.set_stack_size(256 * 1024);
    return sc_core::sc_spawn(std::move(body), sc_core::sc_gen_unique_name(name.c_str()), &opts);
}

inline void join(sc_core::sc_process_handle& h) {
    if (!h.terminated()) sc_core::wait(h.terminated_event());
}

// A value one program sets and another waits for (the probe's view of a flag in memory; the memory
// traffic of the flag itself is made by the programs' own loads and stores).
struct handoff {
    long value = 0;
    sc_core::sc_event changed;
    void set(long v) {
        value = v;
        changed.notify(sc_core::SC_ZERO_TIME);
    }
    void wait_for(long v) {
        while (value != v) sc_core::wait(changed);
    }
};

} // namespace warmsched::workloads
