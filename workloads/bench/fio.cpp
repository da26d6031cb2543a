// fio; see fio.h.
#include "workloads/bench/fio.h"

#include <nlohmann/json.hpp>

#include "workloads/bench/fio_option_names.h"
#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace warmsched::workloads {

namespace {

// fio's latency histogram (stat.c): FIO_IO_U_PLAT_BITS 6, 29 groups of 64 buckets.
constexpr unsigned plat_bits = 6, plat_val = 1u << plat_bits, plat_nr = 29 * plat_val;

unsigned plat_val_to_idx(std::uint64_t val) {
    const unsigned msb = val == 0 ? 0 : 63 - static_cast<unsigned>(__builtin_clzll(val));
    if (msb <= plat_bits) return static_cast<unsigned>(val);
    const unsigned error_bits = msb - plat_bits;
    const unsigned base = (error_bits + 1) << plat_bits;
    const unsigned offset = static_cast<unsigned>((plat_val - 1) & (val >> error_bits));
    return std::min(base + offset, plat_nr - 1);
}

std::uint64_t plat_idx_to_val(unsigned idx) {
    if (idx < (plat_val << 1)) return idx;
    const unsigned error_bits = (idx >> plat_bits) - 1;
    const std::uint64_t base = 1ull << (error_bits + plat_bits);
    const std::uint64_t k = idx % plat_val;
    return base + static_cast<std::uint64_t>((static_cast<double>(k) + 0.5) *
                                             static_cast<double>(1ull << error_bits));
}

constexpr double percentile_list[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// io_u_mark_depth / io_u_mark_submit / io_u_mark_complete buckets.
unsigned depth_idx(unsigned nr) {
    return nr >= 64 ? 6 : nr >= 32 ? 5 : nr >= 16 ? 4 : nr >= 8 ? 3 : nr >= 4 ? 2 : nr >= 2 ? 1 : 0;
}
unsigned batch_idx(unsigned nr) {
    return nr == 0 ? 0 : nr <= 4 ? 1 : nr <= 8 ? 2 : nr <= 16 ? 3 : nr <= 32 ? 4 : nr <= 64 ? 5 : 6;
}
// io_u_mark_latency: the 10 buckets of a unit (below 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000).
unsigned lat_idx(std::uint64_t v) {
    return v >= 750   ? 9
           : v >= 500 ? 8
           : v >= 250 ? 7
           : v >= 100 ? 6
           : v >= 50  ? 5
           : v >= 20  ? 4
           : v >= 10  ? 3
           : v >= 4   ? 2
           : v >= 2   ? 1
                      : 0;
}

constexpr std::uint64_t ms_ns = 1'000'000, sample_ns = 500 * ms_ns; // bwavgtime / iopsavgtime

// One job: its I/O loop and its statistics.
class fio_job final : public copyable_program<fio_job> {
public:
    fio_job(const fio_options& o, std::uint64_t instructions_per_io, std::shared_ptr<const memory_profile> p,
            io_context& io, std::shared_ptr<fio::result> r, std::size_t index)
        : o_(o), instructions_(instructions_per_io), p_(std::move(p)), io_(&io), r_(std::move(r)),
          index_(index) {}

    op next(program_context& ctx) override {
        fio::job_stat& s = r_->jobs[index_];
        if (!s.started) {
            s.started = true;
            s.pid = ctx.pid;
            s.start_ns = last_sample_ns_ = ctx.now;
            end_ns_ = o_.runtime_ms ? ctx.now + o_.runtime_ms * ms_ns : 0;
        }
        switch (pending_) {
        case pending::work:
            break;
        case pending::submit: // io_submit returned: the requests are issued
            if (o_.async()) {
                inflight_.push_back({start_ns_, ctx.now});
                s.slat.add(ctx.now - start_ns_);
            } else { // pread returned: issued and completed
                complete(s, start_ns_, start_ns_, ctx.now);
                mark(s.submit, s.total_submit, 1);
                mark(s.complete, s.total_complete, 1);
                sample(s, ctx.now);
            }
            break;
        case pending::reap: { // io_getevents returned
            const std::size_t n = io_->reaped.size();
            for (std::size_t i = 0; i < n && !inflight_.empty(); ++i) {
                complete(s, inflight_.front().start, inflight_.front().issue, ctx.now);
                inflight_.pop_front();
            }
            mark(s.complete, s.total_complete, static_cast<unsigned>(n));
            sample(s, ctx.now);
            break;
        }
        case pending::none:
            break;
        }
        pending_ = pending::none;
        const bool more = (!end_ns_ || ctx.now < end_ns_) &&
                          (!o_.size || o_.time_based || issued_bytes_ + o_.bs <= o_.size);
        const unsigned depth = o_.async() ? o_.iodepth : 1;
        if (more && inflight_.size() < depth) {
            if (!worked_ && instructions_ > 0) { // get an io_u, pick an offset, account the last one
                worked_ = true;
                pending_ = pending::work;
                return op::compute(instructions_, p_.get());
            }
            worked_ = false;
            start_ns_ = ctx.now;
            issued_bytes_ += o_.bs;
            const unsigned cur = static_cast<unsigned>(inflight_.size()) + 1;
            s.depth[depth_idx(cur)] += 1;
            pending_ = pending::submit;
            if (o_.async()) {
                mark(s.submit, s.total_submit, 1); // iodepth_batch_submit=1: one request per io_submit
                return op::io_submit(*io_, 1);
            }
            return op::io_submit(*io_, 1, true);
        }
        if (!inflight_.empty()) {
            pending_ = pending::reap;
            return op::io_getevents(*io_, 1, o_.iodepth); // iodepth_batch_complete min 1, max iodepth
        }
        s.stop_ns = ctx.now;
        s.done = true;
        return op::exit();
    }

private:
    enum class pending { none, work, submit, reap };
    struct in_flight {
        std::uint64_t start, issue;
    };

    static void mark(std::array<std::uint64_t, 7>& dist, std::uint64_t& total, unsigned nr) {
        ++dist[batch_idx(nr)];
        ++total;
    }
    // account_io_completion: lat from the io_u's start, clat from its issue (sync engines: slat is 0).
    void complete(fio::job_stat& s, std::uint64_t start, std::uint64_t issue, std::uint64_t now) {
        ++s.ios;
        s.bytes += o_.bs;
        const std::uint64_t clat = now - issue, lat = now - start;
        s.clat.add(clat);
        s.lat.add(lat);
        if (s.clat_hist.empty()) s.clat_hist.assign(plat_nr, 0);
        ++s.clat_hist[plat_val_to_idx(clat)];
        if (clat < 1000)
            ++s.lat_n[lat_idx(clat)];
        else if (clat < 1'000'000)
            ++s.lat_u[lat_idx(clat / 1000)];
        else {
            const std::uint64_t msec = clat / 1'000'000;
            ++s.lat_m[msec >= 2000 ? 11 : msec >= 1000 ? 10 : lat_idx(msec)];
        }
    }
    // add_bw_samples / add_iops_samples every 500 ms.
    void sample(fio::job_stat& s, std::uint64_t now) {
        const std::uint64_t spent = now - last_sample_ns_;
        if (spent < sample_ns) return;
        const std::uint64_t spent_ms = spent / ms_ns;
        s.bw.add((s.bytes - last_bytes_) * 1000 / spent_ms / 1024); // KiB/s
        s.iops.add((s.ios - last_ios_) * 1000 / spent_ms);
        last_sample_ns_ = now;
        last_bytes_ = s.bytes;
        last_ios_ = s.ios;
    }

    fio_options o_;
    std::uint64_t instructions_;
    std::shared_ptr<const memory_profile> p_;
    io_context* io_;
    std::shared_ptr<fio::result> r_;
    std::size_t index_;
    std::uint64_t end_ns_ = 0, start_ns_ = 0, issued_bytes_ = 0;
    std::uint64_t last_sample_ns_ = 0, last_bytes_ = 0, last_ios_ = 0;
    std::deque<in_flight> inflight_;
    pending pending_ = pending::none;
    bool worked_ = false;
};

// The fio backend: forks the jobs, waits for them, takes the disk statistics.
class fio_main final : public copyable_program<fio_main> {
public:
    fio_main(sim_kernel& k, std::vector<std::shared_ptr<spawn_spec>> jobs, std::shared_ptr<fio::result> r)
        : k_(&k), jobs_(std::move(jobs)), r_(std::move(r)) {}
    op next(program_context& ctx) override {
        if (forked_ == 0) r_->start_ns = ctx.now;
        if (forked_ < jobs_.size()) return op::fork(jobs_[forked_++]);
        if (!waited_) {
            waited_ = true;
            return op::wait_children();
        }
        r_->stop_ns = ctx.now;
        collect();
        r_->done = true;
        return op::exit();
    }

private:
    void collect() {
        for (auto& s : r_->jobs) // getrusage of each job process
            for (const auto& t : k_->tasks())
                if (t->t.pid == s.pid) {
                    s.usr_s = static_cast<double>(t->utime) / 1e9;
                    s.sys_s = std::max(0.0, static_cast<double>(t->t.se.sum_exec_runtime - t->utime) / 1e9);
                    s.ctx = t->t.stats.nr_voluntary_switches + t->t.stats.nr_involuntary_switches;
                }
        if (const models::block_device* d = k_->disk()) {
            const models::block_device_stats st = d->stats();
            r_->device_name = d->params().name;
            for (int i = 0; i < 2; ++i) {
                r_->device_ios[i] = st.ios[i];
                r_->device_sectors[i] = st.bytes[i] / 512;
                r_->device_ticks_ms[i] = st.ticks_ns[i] / ms_ns;
            }
            r_->device_in_queue_ms = st.in_queue_ns / ms_ns;
            r_->device_busy_ns = st.busy_ns;
        }
    }

    sim_kernel* k_;
    std::vector<std::shared_ptr<spawn_spec>> jobs_;
    std::shared_ptr<fio::result> r_;
    std::size_t forked_ = 0;
    bool waited_ = false;
};

// fio's sizes: a number with an optional k/m/g/t (KiB... with kb_base 1024) and an optional "i", "b".
bool parse_fio_size(const std::string& text, std::uint64_t& out) {
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == 0) return false;
    long long n = 0;
    if (!parse_int(text.substr(0, i), 0, 1ll << 50, n)) return false;
    std::string unit = text.substr(i);
    for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::uint64_t mult = 1;
    if (!unit.empty()) {
        const std::string prefixes = "kmgt";
        const std::size_t p = prefixes.find(unit[0]);
        if (p == std::string::npos) {
            if (unit != "b") return false;
        } else {
            mult = 1ull << (10 * (p + 1));
            const std::string rest = unit.substr(1);
            if (!(rest.empty() || rest == "b" || rest == "i" || rest == "ib")) return false;
        }
    }
    out = static_cast<std::uint64_t>(n) * mult;
    return true;
}

// fio's times: an integer with an optional unit (default seconds): us, ms, s, m, h, d.
bool parse_fio_time_ms(const std::string& text, std::uint64_t& out) {
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    long long n = 0;
    if (i == 0 || !parse_int(text.substr(0, i), 0, 1ll << 40, n)) return false;
    const std::string unit = text.substr(i);
    const double ms = unit.empty() || unit == "s" ? 1000.0
                      : unit == "ms"              ? 1.0
                      : unit == "us"              ? 0.001
                      : unit == "m"               ? 60000.0
                      : unit == "h"               ? 3600000.0
                      : unit == "d"               ? 86400000.0
                                                  : -1;
    if (ms < 0) return false;
    out = static_cast<std::uint64_t>(static_cast<double>(n) * ms);
    return true;
}

// fio's show_closest_option (init.c): the l_opts name at the least Levenshtein distance (parse.c's
// string_distance; the first of equals) from the word without its leading dashes -- "=value" included,
// as fio leaves it -- if that distance is at most half the word's length (string_distance_ok); else "".
std::string fio_closest_option(const std::string& word, const std::vector<std::string>& names) {
    const std::string s1 = word.substr(std::min(word.find_first_not_of('-'), word.size()));
    std::size_t best_distance = SIZE_MAX;
    const std::string* best = nullptr;
    for (const std::string& s2 : names) {
        std::vector<std::size_t> p(s2.size() + 1), q(s2.size() + 1);
        for (std::size_t j = 0; j <= s2.size(); ++j) p[j] = j;
        for (std::size_t i = 1; i <= s1.size(); ++i) {
            q[0] = p[0] + 1;
            for (std::size_t j = 1; j <= s2.size(); ++j) {
                const std::size_t sub = p[j - 1] + (s1[i - 1] != s2[j - 1] ? 1 : 0);
                q[j] = std::min(p[j] + 1, std::min(q[j - 1] + 1, sub));
            }
            std::swap(p, q);
        }
        if (p[s2.size()] < best_distance) best_distance = p[s2.size()], best = &s2;
    }
    return best && best_distance <= (s1.size() + 1) / 2 ? *best : std::string();
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

void display_lat(std::ostream& out, const char* name, const fio::io_stat& st) {
    if (!st.samples) return;
    std::uint64_t min = st.min, max = st.max;
    double mean = st.mean, dev = st.samples > 1 ? std::sqrt(st.s / static_cast<double>(st.samples - 1)) : 0;
    const char* base = "(nsec)";
    if (min > 2000000 && max > 99999999ull && dev > 1000000.0) { // nsec_to_msec
        min /= 1000000, max /= 1000000, mean /= 1e6, dev /= 1e6;
        base = "(msec)";
    } else if (min > 2000 && max > 99999 && dev > 1000.0) { // nsec_to_usec
        min /= 1000, max /= 1000, mean /= 1e3, dev /= 1e3;
        base = "(usec)";
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, base,
                  fio_num2str(min, 6, 1, false, 0).c_str(), fio_num2str(max, 6, 1, false, 0).c_str(), mean,
                  dev);
    out << buf;
}

// calc_clat_percentiles: the latency (ns) at each of percentile_list, from the io_u_plat buckets.
std::vector<std::uint64_t> clat_percentiles(const std::vector<std::uint64_t>& hist, std::uint64_t nr) {
    const std::size_t len = sizeof percentile_list / sizeof percentile_list[0];
    std::vector<std::uint64_t> ovals(len);
    std::uint64_t sum = 0;
    std::size_t j = 0;
    bool is_last = false;
    for (unsigned i = 0; i < plat_nr && !is_last; ++i) {
        sum += hist[i];
        while (static_cast<long double>(sum) >= percentile_list[j] / 100.0L * static_cast<long double>(nr)) {
            ovals[j] = plat_idx_to_val(i);
            is_last = j == len - 1;
            if (is_last) break;
            ++j;
        }
    }
    return ovals;
}

void show_clat_percentiles(std::ostream& out, const std::vector<std::uint64_t>& hist, std::uint64_t nr) {
    if (hist.empty() || nr == 0) return;
    const std::size_t len = sizeof percentile_list / sizeof percentile_list[0];
    std::vector<std::uint64_t> ovals = clat_percentiles(hist, nr);
    const std::uint64_t minv = *std::min_element(ovals.begin(), ovals.end());
    const std::uint64_t maxv = *std::max_element(ovals.begin(), ovals.end());
    std::size_t j = 0;
    unsigned divisor = 1, scale_down = 0;
    const char* unit = "nsec";
    if (minv > 2000000 && maxv > 99999999ull) {
        scale_down = 2, divisor = 1000000, unit = "msec";
    } else if (minv > 2000 && maxv > 99999) {
        scale_down = 1, divisor = 1000, unit = "usec";
    }
    out << "    clat percentiles (" << unit << "):\n     |";
    const unsigned precision = 2;
    const int time_width = std::max(5, static_cast<int>(std::log10(static_cast<double>(maxv / divisor)) + 1));
    const unsigned per_line = (80 - 7) / (precision + 10 + static_cast<unsigned>(time_width));
    for (j = 0; j < len; ++j) {
        if (j != 0 && j % per_line == 0) out << "     |";
        const bool last = j == len - 1;
        for (unsigned i = 0; i < scale_down; ++i) ovals[j] = (ovals[j] + 999) / 1000;
        char buf[64];
        std::snprintf(buf, sizeof buf, " %5.2fth=[%*llu]%c", percentile_list[j], time_width,
                      static_cast<unsigned long long>(ovals[j]), last ? '\n' : ',');
        out << buf;
        if (last) break;
        if (j % per_line == per_line - 1) out << "\n";
    }
}

void show_lat(std::ostream& out, const double* pct, std::size_t nr, const char* const* ranges,
              const char* msg) {
    bool new_line = true, shown = false;
    int line = 0;
    for (std::size_t i = 0; i < nr; ++i) {
        if (pct[i] <= 0.0) continue;
        shown = true;
        if (new_line) {
            if (line) out << "\n";
            out << "  lat (" << msg << ")   : ";
            new_line = false;
            line = 0;
        }
        if (line) out << ", ";
        out << ranges[i] << fmt("%3.2f%%", pct[i]);
        if (++line == 5) new_line = true;
    }
    if (shown) out << "\n";
}

void dist(const std::uint64_t* map, std::size_t n, std::uint64_t total, double* out) { // stat_calc_dist
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = total ? static_cast<double>(map[i]) / static_cast<double>(total) * 100.0 : 0.0;
        if (total && out[i] < 0.1 && map[i]) out[i] = 0.1;
    }
}

// A unit's latency buckets as percentages of all I/Os (stat_calc_lat).
template <std::size_t N>
std::array<double, N> lat_pct(const std::array<std::uint64_t, N>& a, std::uint64_t total) {
    std::array<double, N> p{};
    for (std::size_t i = 0; i < N; ++i) {
        p[i] = total ? static_cast<double>(a[i]) / static_cast<double>(total) * 100.0 : 0.0;
        if (total && p[i] < 0.01 && a[i]) p[i] = 0.01;
    }
    return p;
}

std::string ctime_of(std::uint64_t ns) { // the simulated clock starts at the epoch
    const std::time_t t = static_cast<std::time_t>(ns / 1'000'000'000ull);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
    return buf;
}

} // namespace

std::string fio_num2str(std::uint64_t num, int maxlen, int base, bool pow2, int units) {
    static const char* sistr[] = {"", "k", "M", "G", "T", "P"};
    static const char* iecstr[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    static const char* unitstr[] = {"", "/s", "B", "bit", "B/s", "bit/s"};
    const char** prefix = pow2 ? iecstr : sistr;
    const unsigned thousand = pow2 ? 1024 : 1000;
    unsigned modulo = ~0u;
    int post_index = 0, carry = 0;
    for (; base > 1; ++post_index) base /= static_cast<int>(thousand);
    while (post_index < 6) {
        if (static_cast<int>(std::to_string(num).size()) <= maxlen) break;
        modulo = static_cast<unsigned>(num % thousand);
        num /= thousand;
        carry = modulo >= thousand / 2;
        ++post_index;
    }
    auto done = [&] {
        if (post_index >= 6) post_index = 0;
        return std::to_string(num) + prefix[post_index] + unitstr[units];
    };
    if (modulo == ~0u) return done();
    const int digits = static_cast<int>(std::to_string(num).size());
    if (maxlen - digits <= 1) {
        if (carry) ++num;
        return done();
    }
    char f[16], tmp[64];
    std::snprintf(f, sizeof f, "%%.%df", maxlen - digits - 1);
    std::snprintf(tmp, sizeof tmp, f, static_cast<double>(modulo) / static_cast<double>(thousand));
    return std::to_string(num) + "." + (tmp + 2) + prefix[post_index] + unitstr[units];
}

void fio::io_stat::add(std::uint64_t v) {
    ++samples;
    min = std::min(min, v);
    max = std::max(max, v);
    const double delta = static_cast<double>(v) - mean;
    mean += delta / static_cast<double>(samples);
    s += delta * (static_cast<double>(v) - mean);
}

void fio::io_stat::merge(const io_stat& o) { // __sum_stat (Chan et al.)
    if (!o.samples) return;
    if (!samples) {
        *this = o;
        return;
    }
    const double n1 = static_cast<double>(samples), n2 = static_cast<double>(o.samples);
    const double delta = o.mean - mean;
    mean = (n1 * mean + n2 * o.mean) / (n1 + n2);
    s += o.s + delta * delta * n1 * n2 / (n1 + n2);
    samples += o.samples;
    min = std::min(min, o.min);
    max = std::max(max, o.max);
}

void fio::job_stat::merge(const job_stat& o) {
    if (!pid) pid = o.pid;
    start_ns = std::min(start_ns ? start_ns : o.start_ns, o.start_ns);
    stop_ns = std::max(stop_ns, o.stop_ns);
    ios += o.ios;
    bytes += o.bytes;
    slat.merge(o.slat), clat.merge(o.clat), lat.merge(o.lat), bw.merge(o.bw), iops.merge(o.iops);
    if (clat_hist.empty()) clat_hist.assign(plat_nr, 0);
    for (std::size_t i = 0; i < o.clat_hist.size(); ++i) clat_hist[i] += o.clat_hist[i];
    for (std::size_t i = 0; i < lat_n.size(); ++i) lat_n[i] += o.lat_n[i], lat_u[i] += o.lat_u[i];
    for (std::size_t i = 0; i < lat_m.size(); ++i) lat_m[i] += o.lat_m[i];
    for (std::size_t i = 0; i < depth.size(); ++i)
        depth[i] += o.depth[i], submit[i] += o.submit[i], complete[i] += o.complete[i];
    total_submit += o.total_submit;
    total_complete += o.total_complete;
    usr_s += o.usr_s;
    sys_s += o.sys_s;
    ctx += o.ctx;
}

fio::fio(const fio_options& o, const fio_params& p, std::string command)
    : o_(o), p_(p), command_(std::move(command)) {}

std::unique_ptr<fio> fio::from_command_line(const std::vector<std::string>& args, const std::string& command,
                                            workload_params& params) {
    const std::string usage =
        "fio (warmsched subset): fio --name=NAME [--rw=read|write|randread|randwrite] [--bs=SIZE]\n"
        "    [--iodepth=N] [--numjobs=N] [--runtime=TIME] [--time_based] [--size=SIZE]\n"
        "    [--ioengine=libaio|psync|sync|pvsync] [--direct=0|1] [--thread] [--group_reporting]\n"
        "    [--filename=DEVICE] [--output-format=normal|json]";
    fio_options o;
    bool named = false;
    auto bad = [](const std::string& opt, const std::string& v, const std::string& why) {
        return "fio: --" + opt + "=" + v + ": " + why;
    };
    // The modelled job options, by their (full) name; each records itself for the JSON's "job options".
    using job_handler = std::function<std::string(const std::string& key, const std::string& v)>;
    auto required = [](job_handler h) {
        return [h](const std::string& key, const std::string& v) {
            if (v.empty()) return "fio: option '--" + key + "' requires an argument"; // "--key="
            return h(key, v);
        };
    };
    auto set_flag = [bad](bool& f) {
        return [&f, bad](const std::string& key, const std::string& v) {
            if (!v.empty() && v != "1" && v != "0") return bad(key, v, "expected 0 or 1 (or no value)");
            f = v.empty() || v == "1";
            return std::string();
        };
    };
    long long n = 0;
    const std::map<std::string, job_handler> modelled = {
        {"name", required([&](const std::string&, const std::string& v) {
             if (named) throw usage_error("fio: one job only: a second --name (" + v + ") is not supported");
             o.name = v;
             named = true;
             return std::string();
         })},
        {"rw", required([&](const std::string& key, const std::string& v) {
             if (v == "randrw" || v == "rw" || v == "readwrite" || v == "trim" || v == "randtrim" ||
                 v == "trimwrite" || v == "randtrimwrite")
                 return bad(key, v,
                            "mixed and trim workloads are not modelled (read, write, randread, randwrite)");
             if (v != "read" && v != "write" && v != "randread" && v != "randwrite")
                 return bad(key, v, "invalid value (read, write, randread, randwrite)");
             o.rw = v;
             return std::string();
         })},
        {"bs", required([&](const std::string& key, const std::string& v) {
             if (!parse_fio_size(v, o.bs) || o.bs < 512 || o.bs % 512 != 0 || o.bs > (64ull << 20))
                 return bad(key, v, "expected a size that is a multiple of 512 bytes, up to 64M (e.g. 4k)");
             return std::string();
         })},
        {"iodepth", required([&](const std::string& key, const std::string& v) {
             if (!parse_int(v, 1, 65536, n)) return bad(key, v, "expected an integer in [1, 65536]");
             o.iodepth = static_cast<unsigned>(n);
             return std::string();
         })},
        {"numjobs", required([&](const std::string& key, const std::string& v) {
             if (!parse_int(v, 1, 4096, n)) return bad(key, v, "expected an integer in [1, 4096]");
             o.numjobs = static_cast<unsigned>(n);
             return std::string();
         })},
        {"runtime", required([&](const std::string& key, const std::string& v) {
             if (!parse_fio_time_ms(v, o.runtime_ms) || o.runtime_ms == 0)
                 return bad(key, v,
                            "expected a time > 0 (e.g. 10, 500ms, 1m; integer, default unit seconds)");
             return std::string();
         })},
        {"time_based", set_flag(o.time_based)},
        {"size", required([&](const std::string& key, const std::string& v) {
             if (!parse_fio_size(v, o.size) || o.size == 0)
                 return bad(key, v, "expected a size > 0 (e.g. 1g)");
             return std::string();
         })},
        {"ioengine", required([&](const std::string& key, const std::string& v) {
             if (v == "io_uring" || v == "posixaio" || v == "mmap" || v == "splice" || v == "null")
                 return bad(key, v, "this engine is not modelled (libaio, psync, sync, pvsync)");
             if (v != "libaio" && v != "psync" && v != "sync" && v != "pvsync")
                 return bad(key, v, "unknown I/O engine (libaio, psync, sync, pvsync)");
             o.ioengine = v;
             return std::string();
         })},
        // A bool (FIO_OPT_BOOL) in fio, so a value is required, unlike the FIO_OPT_STR_SET flags.
        {"direct", required([&](const std::string& key, const std::string& v) {
             if (v != "1" && v != "0") return bad(key, v, "expected 0 or 1");
             o.direct = v == "1";
             return std::string();
         })},
        {"thread", set_flag(o.thread)},
        {"group_reporting", set_flag(o.group_reporting)},
        {"filename", required([&](const std::string&, const std::string& v) {
             o.filename = v;
             return std::string();
         })},
    };
    const std::map<std::string, std::string> aliases = {
        {"readwrite", "rw"}, {"blocksize", "bs"}, {"timeout", "runtime"}};
    // fio's whole table (fio_option_names.h), in its order: what warmsched does not model is refused by
    // name once getopt has matched it -- so abbreviations are unique or ambiguous exactly as in fio.
    auto not_modelled = [](const std::string& name) {
        return [name](const std::string&) -> std::string {
            return "fio: --" + name + ": this fio option is not modelled by warmsched";
        };
    };
    const std::function<bool(const std::string&)> never_the_next_word = [](const std::string&) {
        return false;
    };
    std::vector<option_spec> specs;
    std::vector<std::string> table_names; // l_opts' names in order, up to the engine's, for "Did you mean"
    for (std::size_t i = 0; i < fio_command_option_count; ++i) {
        const fio_command_option& c = fio_command_options[i];
        const std::string name = c.name;
        table_names.push_back(name);
        if (name == "help") {
            specs.push_back(help_option(c.short_name, usage));
        } else if (name == "output-format") {
            specs.push_back(
                {c.short_name, name, true, [&o, bad](const std::string& v) {
                     if (v == "json+" || v == "terse")
                         return bad("output-format", v, "not written by warmsched (normal or json)");
                     if (v != "normal" && v != "json")
                         return bad("output-format", v, "invalid value (normal, json, json+, terse)");
                     o.json = v == "json";
                     return std::string(); // not a job option: not in "job options"
                 }});
        } else {
            specs.push_back({c.short_name, name, c.arg == fio_arg::required, not_modelled(name),
                             c.arg == fio_arg::optional ? never_the_next_word : nullptr});
        }
    }
    std::vector<std::string> engine_names(fio_libaio_option_names,
                                          fio_libaio_option_names + fio_libaio_option_count);
    std::vector<std::string> job_names(fio_job_option_names, fio_job_option_names + fio_job_option_count);
    const std::set<std::string> set_options(fio_set_option_names,
                                            fio_set_option_names + fio_set_option_count);
    auto unmodelled_spec = [&](const std::string& name) -> option_spec {
        const bool is_flag = set_options.count(name) > 0;
        return {0, name, !is_flag, not_modelled(name), is_flag ? never_the_next_word : nullptr};
    };
    std::set<std::string> seen;
    for (const std::string& name : job_names) {
        table_names.push_back(name);
        const auto alias = aliases.find(name);
        const std::string canonical = alias == aliases.end() ? name : alias->second;
        const auto h = modelled.find(canonical);
        if (h == modelled.end() || !seen.insert(name).second) { // the profiles' own "size" is the second
            specs.push_back(unmodelled_spec(name));
            continue;
        }
        const job_handler handle = h->second;
        const bool is_flag = set_options.count(name) > 0; // time_based, thread, group_reporting
        specs.push_back({0, name, !is_flag,
                         [&o, name, canonical, handle](const std::string& v) {
                             // fio's "job options" name the option (o->name), not its alias
                             o.given.emplace_back(canonical, v);
                             return handle(name, v);
                         },
                         is_flag ? never_the_next_word : nullptr});
    }
    // fio_options_set_ioengine_opts: the loaded engine's options end the table (psync, sync and pvsync
    // have none; the first job option loads the default, psync).
    std::vector<option_spec> libaio_specs;
    for (const std::string& name : engine_names) libaio_specs.push_back(unmodelled_spec(name));
    auto engine_options = [&o, libaio_specs] {
        return o.ioengine == "libaio" ? libaio_specs : std::vector<option_spec>();
    };
    // parse_cmd_line's '?': its own line after getopt's, then show_closest_option's guess over l_opts.
    auto unrecognized = [&o, &table_names, &engine_names](const std::string& word) {
        std::vector<std::string> l_opts = table_names;
        if (o.ioengine == "libaio") l_opts.insert(l_opts.end(), engine_names.begin(), engine_names.end());
        std::string text = "fio: unrecognized option '" + word + "'";
        const std::string closest = fio_closest_option(word, l_opts);
        if (!closest.empty()) text += "\nDid you mean " + closest + "?";
        return text;
    };
    const std::vector<std::string> job_files = parse_options(
        "fio", args, specs, usage, option_dialect::getopt_long_only, {unrecognized, engine_options});
    if (!job_files.empty())
        throw usage_error("fio: '" + job_files.front() +
                          "': job files are not supported, give the job as --options\n" + usage);
    if (!named) throw usage_error("fio: --name=NAME is required: a job needs a name\n" + usage);
    if (!o.runtime_ms && !o.size)
        throw usage_error("fio: give --runtime or --size (warmsched does not read a whole 2 TB device)\n" +
                          usage);
    if (o.time_based && !o.runtime_ms) throw usage_error("fio: --time_based needs --runtime\n" + usage);
    fio_params p;
    p.instructions_per_io = params.number("fio", "instructions_per_io", p.instructions_per_io, 0, 1e9);
    p.working_set_kib = params.number("fio", "fio_working_set_kib", p.working_set_kib, 0, 1 << 24);
    p.accesses_per_kilo_instruction =
        params.number("fio", "fio_accesses_per_kilo_instruction", p.accesses_per_kilo_instruction, 0, 1000);
    return std::make_unique<fio>(o, p, command);
}

void fio::start(sim_kernel& k, const std::vector<bool>& allowed) {
    k_ = &k;
    // fio on a block device: the job's region must fit on it (fio: "file ... exceeds device size").
    const platform::block_device_params& dev = k.machine().platform().block_device;
    if (o_.size > dev.capacity)
        throw usage_error("fio: --size=" + std::to_string(o_.size) + " is larger than the device (" + dev.name +
                          ": " + std::to_string(dev.capacity) + " bytes, platform key block_device.capacity)");
    profile_->working_set = static_cast<std::uint64_t>(p_.working_set_kib * 1024);
    profile_->pattern = access_pattern::uniform;
    profile_->accesses_per_kilo_instruction = p_.accesses_per_kilo_instruction;
    profile_->write_fraction = 0.3;
    result_->jobs.assign(o_.numjobs, {});
    std::vector<std::shared_ptr<spawn_spec>> jobs;
    for (unsigned j = 0; j < o_.numjobs; ++j) {
        io_context& io = k.make_io_context(o_.bs, o_.write(), o_.sequential());
        auto s = std::make_shared<spawn_spec>();
        s->comm = "fio";
        s->thread = o_.thread;
        s->body = std::make_shared<fio_job>(o_, static_cast<std::uint64_t>(p_.instructions_per_io), profile_,
                                            io, result_, j);
        jobs.push_back(std::move(s));
    }
    spawn_spec s;
    s.comm = "fio";
    s.allowed = allowed;
    s.body = std::make_shared<fio_main>(k, std::move(jobs), result_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

bool fio::finished() const {
    return result_->done;
}

std::vector<fio::job_stat> fio::reported_units() const {
    if (!o_.group_reporting) return result_->jobs;
    job_stat g;
    for (const auto& j : result_->jobs) g.merge(j);
    return {g};
}

void fio::report(std::ostream& out) const {
    if (o_.json) {
        report_json(out);
        return;
    }
    const result& r = *result_;
    const bool w = o_.write();
    const char* ddir = w ? "write" : "read";
    out << o_.name << ": (g=0): rw=" << o_.rw << ", bs=(R) " << fio_num2str(o_.bs, 4, 1, true, 2) << "-"
        << fio_num2str(o_.bs, 4, 1, true, 2) << ", (W) " << fio_num2str(o_.bs, 4, 1, true, 2) << "-"
        << fio_num2str(o_.bs, 4, 1, true, 2) << ", (T) " << fio_num2str(o_.bs, 4, 1, true, 2) << "-"
        << fio_num2str(o_.bs, 4, 1, true, 2) << ", ioengine=" << o_.ioengine << ", iodepth=" << o_.iodepth
        << "\n";
    if (o_.numjobs > 1) out << "...\n";
    const char* what = o_.thread ? "thread" : "process";
    out << "fio-3.33\nStarting " << o_.numjobs << " " << what
        << (o_.numjobs > 1 ? (o_.thread ? "s" : "es") : "") << "\n";
    if (!r.done) {
        out << "fio: (did not finish)\n";
        return;
    }
    const std::vector<job_stat> units = reported_units();
    // Group figures (show_group_stats): aggregate bandwidth over the longest run, min/max per job.
    std::uint64_t io_bytes = 0, min_run = ~0ull, max_run = 0, min_bw = ~0ull, max_bw = 0;
    for (const auto& j : r.jobs) {
        const std::uint64_t runt = std::max<std::uint64_t>(1, j.runtime_ms());
        io_bytes += j.bytes;
        min_run = std::min(min_run, runt);
        max_run = std::max(max_run, runt);
        const std::uint64_t bw = 1000 * j.bytes / runt;
        min_bw = std::min(min_bw, bw);
        max_bw = std::max(max_bw, bw);
    }
    const std::uint64_t agg = max_run ? io_bytes * 1000 / max_run : 0;
    for (const auto& s : units) {
        const unsigned members = o_.group_reporting ? o_.numjobs : 1;
        out << "\n"
            << o_.name << ": (groupid=0, jobs=" << members << "): err= 0: pid=" << s.pid << ": "
            << ctime_of(r.stop_ns) << "\n";
        const std::uint64_t runt = std::max<std::uint64_t>(1, s.runtime_ms());
        const std::uint64_t bw = 1000 * s.bytes / runt, iops = 1000 * s.ios / runt;
        out << "  " << ddir << ": IOPS=" << fio_num2str(iops, 4, 1, false, 0)
            << ", BW=" << fio_num2str(bw, 4, 1, true, 4) << " (" << fio_num2str(bw, 4, 1, false, 4) << ")("
            << fio_num2str(s.bytes, 4, 1, true, 2) << "/" << runt << "msec)\n";
        display_lat(out, "slat", s.slat);
        display_lat(out, "clat", s.clat);
        display_lat(out, " lat", s.lat);
        show_clat_percentiles(out, s.clat_hist, s.clat.samples);
        if (s.bw.samples) {
            double min = static_cast<double>(s.bw.min), max = static_cast<double>(s.bw.max), mean = s.bw.mean;
            double dev = s.bw.samples > 1 ? std::sqrt(s.bw.s / static_cast<double>(s.bw.samples - 1)) : 0;
            double per = 100.0;
            if (agg > 1024) per = std::min(100.0, mean * 100.0 / (static_cast<double>(agg) / 1024.0));
            const char* unit = "KiB";
            if (mean > 1024.0 * 1024.0) min /= 1024, max /= 1024, mean /= 1024, dev /= 1024, unit = "MiB";
            char buf[256];
            std::snprintf(
                buf, sizeof buf,
                "   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
                unit, static_cast<unsigned long long>(min), static_cast<unsigned long long>(max), per, mean,
                dev, static_cast<unsigned long long>(s.bw.samples));
            out << buf;
        }
        if (s.iops.samples) {
            const double dev =
                s.iops.samples > 1 ? std::sqrt(s.iops.s / static_cast<double>(s.iops.samples - 1)) : 0;
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
                          static_cast<unsigned long long>(s.iops.min),
                          static_cast<unsigned long long>(s.iops.max), s.iops.mean, dev,
                          static_cast<unsigned long long>(s.iops.samples));
            out << buf;
        }
        static const char* const ranges_nu[] = {
            "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000="};
        static const char* const ranges_m[] = {
            "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000="};
        const auto pn = lat_pct(s.lat_n, s.ios), pu = lat_pct(s.lat_u, s.ios);
        const auto pm = lat_pct(s.lat_m, s.ios);
        show_lat(out, pn.data(), pn.size(), ranges_nu, "nsec");
        show_lat(out, pu.data(), pu.size(), ranges_nu, "usec");
        show_lat(out, pm.data(), pm.size(), ranges_m, "msec");
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%llu, majf=0, minf=0\n",
                      s.usr_s * 1000 * 100 / static_cast<double>(runt * members),
                      s.sys_s * 1000 * 100 / static_cast<double>(runt * members),
                      static_cast<unsigned long long>(s.ctx));
        out << buf;
        double d[7];
        std::uint64_t depth_total = 0;
        for (auto v : s.depth) depth_total += v;
        dist(s.depth.data(), 7, depth_total, d);
        std::snprintf(buf, sizeof buf,
                      "  IO depths    : 1=%3.1f%%, 2=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, "
                      ">=64=%3.1f%%\n",
                      d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
        out << buf;
        dist(s.submit.data(), 7, s.total_submit, d);
        std::snprintf(buf, sizeof buf,
                      "     submit    : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, "
                      ">=64=%3.1f%%\n",
                      d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
        out << buf;
        dist(s.complete.data(), 7, s.total_complete, d);
        std::snprintf(buf, sizeof buf,
                      "     complete  : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, "
                      ">=64=%3.1f%%\n",
                      d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
        out << buf;
        out << "     issued rwts: total=" << (w ? 0 : s.ios) << "," << (w ? s.ios : 0)
            << ",0,0 short=0,0,0,0 dropped=0,0,0,0\n";
        out << "     latency   : target=0, window=0, percentile=100.00%, depth=" << o_.iodepth << "\n";
    }
    out << "\nRun status group 0 (all jobs):\n";
    out << (w ? "  WRITE" : "   READ") << ": bw=" << fio_num2str(agg, 4, 1, true, 4) << " ("
        << fio_num2str(agg, 4, 1, false, 4) << "), " << fio_num2str(min_bw, 4, 1, true, 4) << "-"
        << fio_num2str(max_bw, 4, 1, true, 4) << " (" << fio_num2str(min_bw, 4, 1, false, 4) << "-"
        << fio_num2str(max_bw, 4, 1, false, 4) << "), io=" << fio_num2str(io_bytes, 4, 1, true, 2) << " ("
        << fio_num2str(io_bytes, 4, 1, false, 2) << "), run=" << min_run << "-" << max_run << "msec\n";
    if (!r.device_name.empty()) {
        const std::uint64_t span = r.stop_ns > r.start_ns ? r.stop_ns - r.start_ns : 1;
        const double util =
            std::min(100.0, 100.0 * static_cast<double>(r.device_busy_ns) / static_cast<double>(span));
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "  %s: ios=%llu/%llu, merge=0/0, ticks=%llu/%llu, in_queue=%llu, util=%3.2f%%\n",
                      r.device_name.c_str(), static_cast<unsigned long long>(r.device_ios[0]),
                      static_cast<unsigned long long>(r.device_ios[1]),
                      static_cast<unsigned long long>(r.device_ticks_ms[0]),
                      static_cast<unsigned long long>(r.device_ticks_ms[1]),
                      static_cast<unsigned long long>(r.device_in_queue_ms), util);
        out << "\nDisk stats (read/write):\n" << buf;
    }
}

void fio::report_json(std::ostream& out) const {
    using json = nlohmann::ordered_json;
    const result& r = *result_;
    const bool w = o_.write();
    json doc;
    doc["fio version"] = "fio-3.33";
    doc["timestamp"] = r.stop_ns / 1'000'000'000; // the simulated clock, from the epoch
    doc["timestamp_ms"] = r.stop_ns / 1'000'000;
    doc["time"] = ctime_of(r.stop_ns);
    const std::vector<job_stat> units = reported_units();
    std::uint64_t io_bytes = 0, max_run = 0;
    for (const auto& j : r.jobs) {
        io_bytes += j.bytes;
        max_run = std::max<std::uint64_t>(max_run, std::max<std::uint64_t>(1, j.runtime_ms()));
    }
    const std::uint64_t agg = max_run ? io_bytes * 1000 / max_run : 0;
    auto stat = [](const io_stat& s) {
        json o;
        o["min"] = s.samples ? s.min : 0;
        o["max"] = s.max;
        o["mean"] = s.samples ? s.mean : 0.0;
        o["stddev"] = s.samples > 1 ? std::sqrt(s.s / static_cast<double>(s.samples - 1)) : 0.0;
        o["N"] = s.samples;
        return o;
    };
    auto zero_dir = [&] {
        json d;
        for (const char* k : {"io_bytes", "io_kbytes", "bw_bytes", "bw"}) d[k] = 0;
        d["iops"] = 0.0;
        for (const char* k : {"runtime", "total_ios", "short_ios", "drop_ios"}) d[k] = 0;
        for (const char* k : {"slat_ns", "clat_ns", "lat_ns"}) d[k] = stat(io_stat{});
        d["bw_min"] = 0;
        d["bw_max"] = 0;
        for (const char* k : {"bw_agg", "bw_mean", "bw_dev"}) d[k] = 0.0;
        d["bw_samples"] = 0;
        d["iops_min"] = 0;
        d["iops_max"] = 0;
        d["iops_mean"] = 0.0;
        d["iops_stddev"] = 0.0;
        d["iops_samples"] = 0;
        return d;
    };
    json jobs = json::array();
    for (const auto& s : units) {
        const unsigned members = o_.group_reporting ? o_.numjobs : 1;
        const std::uint64_t runt = std::max<std::uint64_t>(1, s.runtime_ms());
        json job;
        job["jobname"] = o_.name;
        job["groupid"] = 0;
        job["error"] = 0;
        job["eta"] = 2147483647; // what fio 3.33 prints at the end of a run
        job["elapsed"] = (r.stop_ns - r.start_ns + 999'999'999) / 1'000'000'000;
        json opts = json::object();
        for (const auto& [k, v] : o_.given) opts[k] = v;
        job["job options"] = opts;
        json d = zero_dir();
        d["io_bytes"] = s.bytes;
        d["io_kbytes"] = s.bytes / 1024;
        d["bw_bytes"] = 1000 * s.bytes / runt;
        d["bw"] = 1000 * s.bytes / runt / 1024;
        d["iops"] = 1000.0 * static_cast<double>(s.ios) / static_cast<double>(runt);
        d["runtime"] = runt;
        d["total_ios"] = s.ios;
        d["slat_ns"] = stat(s.slat);
        json clat = stat(s.clat);
        if (s.clat.samples && !s.clat_hist.empty()) {
            const auto vals = clat_percentiles(s.clat_hist, s.clat.samples);
            json pct;
            for (std::size_t i = 0; i < vals.size(); ++i) pct[fmt("%f", percentile_list[i])] = vals[i];
            clat["percentile"] = pct;
        }
        d["clat_ns"] = clat;
        d["lat_ns"] = stat(s.lat);
        if (s.bw.samples) {
            d["bw_min"] = s.bw.min;
            d["bw_max"] = s.bw.max;
            d["bw_agg"] =
                agg > 1024 ? std::min(100.0, s.bw.mean * 100.0 / (static_cast<double>(agg) / 1024.0)) : 100.0;
            d["bw_mean"] = s.bw.mean;
            d["bw_dev"] = s.bw.samples > 1 ? std::sqrt(s.bw.s / static_cast<double>(s.bw.samples - 1)) : 0.0;
            d["bw_samples"] = s.bw.samples;
        }
        if (s.iops.samples) {
            d["iops_min"] = s.iops.min;
            d["iops_max"] = s.iops.max;
            d["iops_mean"] = s.iops.mean;
            d["iops_stddev"] =
                s.iops.samples > 1 ? std::sqrt(s.iops.s / static_cast<double>(s.iops.samples - 1)) : 0.0;
            d["iops_samples"] = s.iops.samples;
        }
        job["read"] = w ? zero_dir() : d;
        job["write"] = w ? d : zero_dir();
        job["trim"] = zero_dir();
        job["sync"] = {{"total_ios", 0}, {"lat_ns", stat(io_stat{})}};
        job["job_runtime"] = runt;
        job["usr_cpu"] = s.usr_s * 1000 * 100 / static_cast<double>(runt * members);
        job["sys_cpu"] = s.sys_s * 1000 * 100 / static_cast<double>(runt * members);
        job["ctx"] = s.ctx;
        job["majf"] = 0;
        job["minf"] = 0;
        auto depth_map = [](const std::array<std::uint64_t, 7>& a, std::uint64_t total, bool level) {
            double pct[7];
            dist(a.data(), 7, total, pct);
            static const char* const levels[] = {"1", "2", "4", "8", "16", "32", ">=64"};
            static const char* const subs[] = {"0", "4", "8", "16", "32", "64", ">=64"};
            json o;
            for (int i = 0; i < 7; ++i) o[level ? levels[i] : subs[i]] = pct[i];
            return o;
        };
        std::uint64_t depth_total = 0;
        for (auto v : s.depth) depth_total += v;
        job["iodepth_level"] = depth_map(s.depth, depth_total, true);
        job["iodepth_submit"] = depth_map(s.submit, s.total_submit, false);
        job["iodepth_complete"] = depth_map(s.complete, s.total_complete, false);
        static const char* const ranges_nu[] = {"2",   "4",   "10",  "20",  "50",
                                                "100", "250", "500", "750", "1000"};
        static const char* const ranges_m[] = {"2",   "4",   "10",  "20",   "50",   "100",
                                               "250", "500", "750", "1000", "2000", ">=2000"};
        const auto pn = lat_pct(s.lat_n, s.ios), pu = lat_pct(s.lat_u, s.ios);
        const auto pm = lat_pct(s.lat_m, s.ios);
        json ln, lu, lm;
        for (std::size_t i = 0; i < pn.size(); ++i) ln[ranges_nu[i]] = pn[i];
        for (std::size_t i = 0; i < pu.size(); ++i) lu[ranges_nu[i]] = pu[i];
        for (std::size_t i = 0; i < pm.size(); ++i) lm[ranges_m[i]] = pm[i];
        job["latency_ns"] = ln;
        job["latency_us"] = lu;
        job["latency_ms"] = lm;
        job["latency_depth"] = o_.iodepth;
        job["latency_target"] = 0;
        job["latency_percentile"] = 100.0;
        job["latency_window"] = 0;
        jobs.push_back(job);
    }
    doc["jobs"] = jobs;
    if (!r.device_name.empty()) {
        const std::uint64_t span = r.stop_ns > r.start_ns ? r.stop_ns - r.start_ns : 1;
        doc["disk_util"] =
            json::array({{{"name", r.device_name},
                          {"read_ios", r.device_ios[0]},
                          {"write_ios", r.device_ios[1]},
                          {"read_merges", 0},
                          {"write_merges", 0},
                          {"read_ticks", r.device_ticks_ms[0]},
                          {"write_ticks", r.device_ticks_ms[1]},
                          {"in_queue", r.device_in_queue_ms},
                          {"util", std::min(100.0, 100.0 * static_cast<double>(r.device_busy_ns) /
                                                       static_cast<double>(span))}}});
    }
    if (!r.done) doc["error"] = "did not finish (the experiment's duration ended first)";
    out << doc.dump(2) << "\n";
}

} // namespace warmsched::workloads
