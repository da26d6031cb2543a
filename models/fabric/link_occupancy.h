// Bandwidth of one directed link (or a memory channel group): transfers reserve bytes in fixed time
// buckets of capacity bandwidth x bucket length; a transfer that finds its bucket full moves to the next
// one with room, and waits for the bytes queued before it. Bucketing (rather than a single "free at"
// time) keeps the model fair when initiators run ahead of each other by up to a quantum (temporal
// decoupling): arrivals slightly out of time order still see the load of their own time window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warmsched::models {

class link_occupancy {
public:
    // bytes_per_s: the link's bandwidth; bucket_ps: accounting granularity; horizon: buckets kept.
    link_occupancy(double bytes_per_s, std::uint64_t bucket_ps, unsigned horizon = 4096)
        : bytes_per_ps_(bytes_per_s / 1e12), bucket_ps_(bucket_ps), capacity_(bytes_per_s * bucket_ps / 1e12),
          used_(horizon, 0.0) {}

    // Reserves `bytes` for a transfer that wants to start at `t_ps`; returns the queueing delay in ps.
    std::uint64_t reserve(std::uint64_t t_ps, double bytes) {
        total_bytes_ += bytes;
        std::uint64_t b = std::max(t_ps / bucket_ps_, base_);
        const std::uint64_t horizon = used_.size();
        for (;; ++b) {
            if (b >= base_ + horizon) slide_to(b - horizon + 1);
            double& used = used_[b % horizon];
            if (used + bytes <= capacity_ || used == 0) {
                const double start = static_cast<double>(b * bucket_ps_) + used / bytes_per_ps_;
                used += bytes;
                const double wait = start - static_cast<double>(t_ps);
                const std::uint64_t d = wait > 0 ? static_cast<std::uint64_t>(wait) : 0;
                queued_ps_ += d;
                return d;
            }
        }
    }

    double total_bytes() const { return total_bytes_; }
    std::uint64_t queued_ps() const { return queued_ps_; }
    double bytes_per_s() const { return bytes_per_ps_ * 1e12; }

private:
    void slide_to(std::uint64_t new_base) {
        const std::uint64_t horizon = used_.size();
        if (new_base - base_ >= horizon)
            std::fill(used_.begin(), used_.end(), 0.0);
        else
            for (std::uint64_t b = base_; b < new_base; ++b) used_[b % horizon] = 0;
        base_ = new_base;
    }

    double bytes_per_ps_;
    std::uint64_t bucket_ps_;
    double capacity_;
    std::vector<double> used_;
    std::uint64_t base_ = 0;
    double total_bytes_ = 0;
    std::uint64_t queued_ps_ = 0;
};

} // namespace warmsched::models
