// Benchmark: how many accesses per wall-clock second the hardware model executes on one host core,
// through the full path a workload uses (hart -> TLM -> core L1/L2 -> LLC -> fabric -> directory ->
// memory). Streams: hit-dominated (L1), L2, LLC, and miss-dominated (DRAM). Usage:
//   build/bench/cache_throughput [platform] [million-accesses] [stream index 0-3, default all]
// Under each stream, the host structures the model visited per access (models/common/host_visits.h).
// Results are recorded in docs/performance.md.
#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "platforms/platform_loader.h"
#include "workloads/probes/probe_program.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace warmsched;

int sc_main(int argc, char* argv[]) {
    const std::string platform_name = argc > 1 ? argv[1] : "zen3-5950x";
    const double millions = argc > 2 ? std::atof(argv[2]) : 20;
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    models::machine m("system", platform::load_platform(platform_name), {});
    struct stream {
        const char* name;
        std::uint64_t footprint;
        double share; // of the access budget (misses are slower)
    };
    const stream streams[] = {{"L1 hits (16 KiB)", 16 << 10, 1.0},
                              {"L2 hits (256 KiB)", 256 << 10, 0.5},
                              {"LLC hits (8 MiB)", 8 << 20, 0.25},
                              {"DRAM misses (1 GiB)", 1ull << 30, 0.1}};
    std::printf("# cache model throughput on %s, one host core\n", platform_name.c_str());
    std::printf("%-22s %12s %10s %14s\n", "stream", "accesses", "wall_s", "accesses/s");
    workloads::spawn_program("bench", [&] {
        models::hart& h = m.cpu(0);
        std::mt19937_64 rng(1);
        std::uint64_t region = 1ull << 40;
        for (int k = 0; k < 4; ++k) {
            if (only >= 0 && k != only) continue;
            const stream& s = streams[k];
            const std::uint64_t lines = s.footprint / 64;
            const std::uint64_t n = static_cast<std::uint64_t>(millions * 1e6 * s.share);
            for (std::uint64_t i = 0; i < std::min<std::uint64_t>(lines, 1u << 22); ++i)
                h.load(region + i * 64); // warm
            std::vector<std::uint32_t> order(1 << 16);
            for (auto& o : order) o = static_cast<std::uint32_t>(rng() % lines);
            const models::host_visits before = m.visits();
            const auto t0 = std::chrono::steady_clock::now();
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t line =
                    (order[i & 0xffff] + (i >> 16) * 7919) & (lines - 1); // footprints are powers of two
                if (i % 4 == 3)
                    h.store(region + line * 64);
                else
                    h.load(region + line * 64);
            }
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("%-22s %12llu %10.3f %14.0f\n", s.name, static_cast<unsigned long long>(n), wall,
                        n / wall);
            std::printf("  host work %s\n", m.visits().since(before).per_access().c_str());
            region += 1ull << 40;
        }
    });
    models::run_simulation();
    return 0;
}
