// Streaming read bandwidth probe; see stream_bandwidth.h.
#include "workloads/probes/stream_bandwidth.h"

#include "workloads/probes/probe_program.h"

#include <algorithm>

namespace warmsched::workloads {

std::vector<stream_set> default_stream_sets(const platform::topology& t) {
    auto first_threads = [&](const std::vector<unsigned>& cores) {
        std::vector<unsigned> cpus;
        for (unsigned c : cores) cpus.push_back(t.cpu_of(c, 0));
        return cpus;
    };
    std::vector<stream_set> sets;
    sets.push_back({"1 core", {t.cpu_of(0, 0)}});
    auto llc0 = t.cores_of_group(t.cache_group(t.llc_level()), 0);
    sets.push_back({"llc0 (" + std::to_string(llc0.size()) + " cores)", first_threads(llc0)});
    if (t.num_sockets() > 1) {
        auto s0 = t.cores_of_group("socket", 0);
        sets.push_back({"socket0 (" + std::to_string(s0.size()) + " cores)", first_threads(s0)});
    }
    auto all = t.cores_of_group("machine", 0);
    sets.push_back({"machine (" + std::to_string(all.size()) + " cores)", first_threads(all)});
    // Drop sets that repeat the previous one.
    sets.erase(std::unique(sets.begin(), sets.end(),
                           [](const stream_set& a, const stream_set& b) { return a.cpus == b.cpus; }),
               sets.end());
    return sets;
}

stream_bandwidth::stream_bandwidth(models::machine& m, stream_bandwidth_options o)
    : m_(m), o_(std::move(o)) {}

void stream_bandwidth::run() {
    const std::uint64_t line = m_.line_size();
    const std::uint64_t lines = o_.bytes_per_cpu / line;
    std::uint64_t region = 1ull << 45;
    for (const auto& set : o_.sets) {
        std::vector<models::ps_t> starts(set.cpus.size()), ends(set.cpus.size());
        std::vector<sc_core::sc_process_handle> threads;
        for (std::size_t i = 0; i < set.cpus.size(); ++i) {
            const std::uint64_t base = region + (static_cast<std::uint64_t>(i) << 36);
            threads.push_back(spawn_program("stream", [&, i, base] {
                models::hart& h = m_.cpu(set.cpus[i]);
                h.sync();
                std::vector<models::mem_access> chunk(4096);
                starts[i] = h.now();
                for (std::uint64_t done = 0; done < lines; done += chunk.size()) {
                    const std::size_t n =
                        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), lines - done));
                    for (std::size_t k = 0; k < n; ++k) chunk[k] = {base + (done + k) * line, false};
                    h.stream(chunk.data(), n, true);
                }
                h.sync();
                ends[i] = h.now();
            }));
        }
        for (auto& t : threads) join(t);
        const models::ps_t t0 = *std::min_element(starts.begin(), starts.end());
        const models::ps_t t1 = *std::max_element(ends.begin(), ends.end());
        const double bytes = static_cast<double>(lines * line * set.cpus.size());
        results_.push_back(
            {set.label, static_cast<unsigned>(set.cpus.size()), bytes / static_cast<double>(t1 - t0) * 1e3});
        region += 1ull << 44;
    }
}

} // namespace warmsched::workloads
