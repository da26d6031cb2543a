// Benchmark: N CPU-bound tasks, each walking its own working set (uniform random lines, a quarter of them
// stores), under the simulated kernel for a given simulated time. Reports wall time, memory accesses
// simulated per wall second and simulated seconds per wall second. Not a test; see docs/performance.md.
//
//   cpu_hogs PLATFORM TASKS WORKING_SET_MIB ACCESSES_PER_KILO_INSTRUCTION SIMULATED_SECONDS [SET_SAMPLING]
#include "models/system/machine.h"
#include "platforms/config/config_error.h"
#include "platforms/platform_loader.h"
#include "workloads/kernel/scripted_program.h"
#include "workloads/kernel/sim_kernel.h"

#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace warmsched;

int sc_main(int argc, char* argv[]) {
    if (argc != 6 && argc != 7) {
        std::fprintf(
            stderr, "usage: cpu_hogs PLATFORM TASKS WORKING_SET_MIB APKI SIMULATED_SECONDS [SET_SAMPLING]\n");
        return 2;
    }
    try {
        const auto p = platform::load_platform(argv[1]);
        const unsigned tasks = static_cast<unsigned>(std::atoi(argv[2]));
        workloads::memory_profile prof;
        prof.working_set = static_cast<std::uint64_t>(std::atof(argv[3]) * 1024 * 1024);
        prof.accesses_per_kilo_instruction = std::atof(argv[4]);
        prof.write_fraction = 0.25;
        const double seconds = std::atof(argv[5]);

        const auto wall0 = std::chrono::steady_clock::now();
        models::machine_options mo;
        mo.set_sampling = argc == 7 ? static_cast<unsigned>(std::atoi(argv[6])) : 1;
        if (const std::string why = platform::set_sampling_problem(p, mo.set_sampling); !why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return 2;
        }
        models::machine m("system", p, mo);
        const auto cfg =
            scheduler::sched_config::defaults(scheduler::kernel_version::eevdf_v6_12, m.num_cpus());
        workloads::sim_kernel k("kernel", m, cfg, 1);
        for (unsigned i = 0; i < tasks; ++i) {
            workloads::spawn_spec s;
            s.comm = "hog" + std::to_string(i);
            s.body = std::make_shared<workloads::scripted_program>(
                std::vector<workloads::op>{workloads::op::compute(1'000'000'000, &prof)}, -1);
            k.spawn(s, i % m.num_cpus());
        }
        k.run(static_cast<scheduler::nsec>(seconds * 1e9));
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        std::uint64_t accesses = 0, dram = 0;
        for (unsigned c = 0; c < m.num_cpus(); ++c) {
            const auto& a = m.cpu(c).stats().accesses;
            for (auto n : a) accesses += n;
            dram += a[static_cast<int>(models::mem_source::local_memory)] +
                    a[static_cast<int>(models::mem_source::remote_memory)];
        }
        std::printf(
            "%s: %u tasks x %s MiB, %s accesses/kilo-instruction, %.3f simulated s, set sampling 1/%u\n",
            p.name.c_str(), tasks, argv[3], argv[4], seconds, mo.set_sampling);
        std::printf("wall %.2f s; %.1f M accesses simulated (%.1f%% from DRAM), %.2f M accesses/s; "
                    "%.5f simulated s per wall s\n",
                    wall, static_cast<double>(accesses) / 1e6,
                    accesses ? 100.0 * static_cast<double>(dram) / static_cast<double>(accesses) : 0.0,
                    static_cast<double>(accesses) / wall / 1e6, seconds / wall);
    } catch (const config::config_error& e) {
        for (const auto& l : e.lines()) std::fprintf(stderr, "error: %s\n", l.c_str());
        return 2;
    }
    return 0;
}
