// Benchmark: N CPU-bound tasks, each walking its own working set (uniform random lines, a quarter of them
// stores), under the simulated kernel for a given simulated time. Reports wall time, memory accesses
// simulated per wall second and simulated seconds per wall second, and the instructions the tasks
// retired (what fast-forward must preserve). Not a test; see docs/performance.md.
//
//   cpu_hogs PLATFORM TASKS WORKING_SET_MIB ACCESSES_PER_KILO_INSTRUCTION SIMULATED_SECONDS
//            [SET_SAMPLING [FAST_FORWARD]]
#include "models/system/machine.h"
#include "platforms/config/config_error.h"
#include "platforms/platform_loader.h"
#include "workloads/kernel/cpu_executor.h"
#include "workloads/kernel/scripted_program.h"
#include "workloads/kernel/sim_kernel.h"

#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace warmsched;

int sc_main(int argc, char* argv[]) {
    if (argc < 6 || argc > 8) {
        std::fprintf(stderr, "usage: cpu_hogs PLATFORM TASKS WORKING_SET_MIB APKI SIMULATED_SECONDS "
                             "[SET_SAMPLING [FAST_FORWARD]]\n");
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
        mo.set_sampling = argc >= 7 ? static_cast<unsigned>(std::atoi(argv[6])) : 1;
        if (const std::string why = platform::set_sampling_problem(p, mo.set_sampling); !why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return 2;
        }
        models::machine m("system", p, mo);
        const auto cfg =
            scheduler::sched_config::defaults(scheduler::kernel_version::eevdf_v6_12, m.num_cpus());
        workloads::sim_kernel k("kernel", m, cfg, 1);
        const unsigned fast_forward = argc == 8 ? static_cast<unsigned>(std::atoi(argv[7])) : 1;
        k.set_fast_forward(fast_forward);
        for (unsigned i = 0; i < tasks; ++i) {
            workloads::spawn_spec s;
            s.comm = "hog" + std::to_string(i);
            s.body = std::make_shared<workloads::scripted_program>(
                std::vector<workloads::op>{workloads::op::compute(1'000'000'000'000'000, &prof)}, -1);
            k.spawn(s, i % m.num_cpus());
        }
        k.run(static_cast<scheduler::nsec>(seconds * 1e9));
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        std::uint64_t accesses = 0, dram = 0, dram_ps = 0;
        for (unsigned c = 0; c < m.num_cpus(); ++c) {
            const auto& a = m.cpu(c).stats().accesses;
            for (auto n : a) accesses += n;
            dram += a[static_cast<int>(models::mem_source::local_memory)] +
                    a[static_cast<int>(models::mem_source::remote_memory)];
            const auto& l = m.cpu(c).stats().latency_ps;
            dram_ps += l[static_cast<int>(models::mem_source::local_memory)] +
                       l[static_cast<int>(models::mem_source::remote_memory)];
        }
        double instructions = 0;
        std::uint64_t ff = 0, ff_sampled = 0, ff_drifts = 0;
        for (const auto& t : k.tasks())
            if (t->current) instructions += static_cast<double>(t->current->count - t->remaining);
        for (unsigned c = 0; c < m.num_cpus(); ++c) {
            ff += k.executor(c).stats().ff_accesses;
            ff_sampled += k.executor(c).stats().ff_sampled;
            ff_drifts += k.executor(c).stats().ff_drifts;
        }
        std::printf("%s: %u tasks x %s MiB, %s accesses/kilo-instruction, %.3f simulated s, set sampling "
                    "1/%u, fast-forward 1/%u\n",
                    p.name.c_str(), tasks, argv[3], argv[4], seconds, mo.set_sampling, fast_forward);
        std::printf("instructions retired %.4g (%.4g per task per simulated s); fast-forwarded %.1f%% of "
                    "accesses (%.1f M simulated of them), %llu drifts back to detailed\n",
                    instructions, instructions / tasks / seconds,
                    accesses ? 100.0 * static_cast<double>(ff) / static_cast<double>(accesses) : 0.0,
                    static_cast<double>(ff_sampled) / 1e6, static_cast<unsigned long long>(ff_drifts));
        std::printf("wall %.2f s; %.1f M accesses simulated (%.1f%% from DRAM, %.1f ns each), %.2f M "
                    "accesses/s; %.5f simulated s per wall s\n",
                    wall, static_cast<double>(accesses) / 1e6,
                    accesses ? 100.0 * static_cast<double>(dram) / static_cast<double>(accesses) : 0.0,
                    dram ? static_cast<double>(dram_ps) / static_cast<double>(dram) / 1000 : 0.0,
                    static_cast<double>(accesses) / wall / 1e6, seconds / wall);
    } catch (const config::config_error& e) {
        for (const auto& l : e.lines()) std::fprintf(stderr, "error: %s\n", l.c_str());
        return 2;
    }
    return 0;
}
