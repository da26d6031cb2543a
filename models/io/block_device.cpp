// The NVMe SSD model; see block_device.h.
#include "models/io/block_device.h"

#include <algorithm>

namespace warmsched::models {

namespace {
constexpr std::uint64_t base_block = 4096; // the size the latencies and IOPS figures are quoted for
} // namespace

block_device::block_device(const sc_core::sc_module_name& name, const platform::block_device_params& p,
                           block_completion_sink& sink)
    : sc_module(name), p_(p), sink_(sink) {
    SC_HAS_PROCESS(block_device);
    SC_METHOD(complete);
    sensitive << due_;
    dont_initialize();
}

ps_t block_device::latency(const block_request& r) const {
    const double base = r.write ? (r.sequential ? p_.sequential_write_latency_ps : p_.random_write_latency_ps)
                                : (r.sequential ? p_.sequential_read_latency_ps : p_.random_read_latency_ps);
    const double bw = r.write ? p_.write_bandwidth : p_.read_bandwidth;
    const double extra = r.bytes > base_block ? static_cast<double>(r.bytes - base_block) / bw * 1e12 : 0.0;
    return static_cast<ps_t>(base + extra);
}

ps_t block_device::media_time(const block_request& r) const {
    const double bw = r.write ? p_.write_bandwidth : p_.read_bandwidth;
    const double transfer = static_cast<double>(r.bytes) / bw * 1e12;
    if (r.sequential) return static_cast<ps_t>(transfer);
    const double iops = r.write ? p_.write_iops : p_.read_iops;
    const double blocks = std::max(1.0, static_cast<double>(r.bytes) / static_cast<double>(base_block));
    return static_cast<ps_t>(std::max(transfer, blocks / iops * 1e12));
}

void block_device::account(ps_t now) {
    if (now <= accounted_) return;
    const std::uint64_t outstanding = inflight_ + host_queue_.size();
    const std::uint64_t dt_ns = (now - accounted_) / 1000;
    if (outstanding) {
        stats_.busy_ns += dt_ns;
        stats_.in_queue_ns += dt_ns * outstanding;
    }
    accounted_ = now;
}

block_device_stats block_device::stats() const {
    block_device_stats s = stats_;
    const ps_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t outstanding = inflight_ + host_queue_.size();
    if (now > accounted_ && outstanding) {
        s.busy_ns += (now - accounted_) / 1000;
        s.in_queue_ns += (now - accounted_) / 1000 * outstanding;
    }
    return s;
}

void block_device::submit(const block_request& r) {
    const ps_t now = sc_core::sc_time_stamp().value();
    account(now);
    if (inflight_ >= p_.queue_depth) {
        host_queue_.emplace_back(r, now);
        return;
    }
    start(r, now, now);
}

void block_device::start(const block_request& r, ps_t submitted, ps_t now) {
    ++inflight_;
    stats_.max_inflight = std::max<std::uint64_t>(stats_.max_inflight, inflight_);
    const ps_t done = std::max(now + latency(r), std::max(media_free_, now) + media_time(r));
    media_free_ = done;
    pending_.emplace(done, seq_++, r, submitted);
    due_.notify(ps_time(std::get<0>(pending_.top()) - now));
}

void block_device::complete() {
    const ps_t now = sc_core::sc_time_stamp().value();
    account(now);
    while (!pending_.empty() && std::get<0>(pending_.top()) <= now) {
        const pending c = pending_.top();
        pending_.pop();
        --inflight_;
        const block_request& r = std::get<2>(c);
        const ps_t submitted = std::get<3>(c);
        const int d = r.write ? 1 : 0;
        ++stats_.ios[d];
        stats_.bytes[d] += r.bytes;
        stats_.ticks_ns[d] += (now - submitted) / 1000;
        if (!host_queue_.empty()) { // the freed slot takes the oldest waiting command
            const auto next = host_queue_.front();
            host_queue_.pop_front();
            start(next.first, next.second, now);
        }
        sink_.block_completed(r, submitted);
    }
    if (!pending_.empty()) due_.notify(ps_time(std::get<0>(pending_.top()) - now));
}

} // namespace warmsched::models
