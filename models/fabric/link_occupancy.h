// Bandwidth of one directed link or a memory controller's channels, as a queue whose backlog is tracked
// in fixed time buckets. Each bucket records the bytes that asked to start in it; the backlog at the
// start of a bucket is what the earlier buckets could not drain at the link's bandwidth. A transfer waits
// for the backlog plus the bytes that arrived before it in its own bucket. Because the backlog is derived
// from the demand of whole buckets, it does not depend on the order in which initiators that run ahead of
// each other (temporal decoupling) present their requests: everyone arriving in a bucket sees the same
// queue, and a saturated link delivers exactly its bandwidth, shared fairly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warmsched::models {

class link_occupancy {
public:
    // bytes_per_s: bandwidth; bucket_ps: accounting granularity; horizon: buckets remembered.
    link_occupancy(double bytes_per_s, std::uint64_t bucket_ps, unsigned horizon = 4096)
        : bytes_per_ps_(bytes_per_s / 1e12), bucket_ps_(bucket_ps), capacity_(bytes_per_s * bucket_ps / 1e12),
          demand_(horizon, 0.0), backlog_(horizon, 0.0) {}

    // Reserves `bytes` for a transfer that wants to start at `t_ps`; returns its queueing delay in ps.
    std::uint64_t reserve(std::uint64_t t_ps, double bytes) {
        total_bytes_ += bytes;
        const std::uint64_t horizon = demand_.size();
        std::uint64_t b = std::max(t_ps / bucket_ps_, base_);
        if (b >= base_ + horizon) slide_to(b - horizon + 1);
        const double ahead = backlog_at(b) + demand_[b % horizon];
        demand_[b % horizon] += bytes;
        if (known_ > b) known_ = b; // later buckets' backlog must be recomputed
        const double wait =
            static_cast<double>(b * bucket_ps_) + ahead / bytes_per_ps_ - static_cast<double>(t_ps);
        const std::uint64_t d = wait > 0 ? static_cast<std::uint64_t>(wait) : 0;
        queued_ps_ += d;
        return d;
    }

    double total_bytes() const { return total_bytes_; }
    std::uint64_t queued_ps() const { return queued_ps_; }

private:
    // Bytes still queued at the start of bucket b.
    double backlog_at(std::uint64_t b) {
        const std::uint64_t horizon = demand_.size();
        while (known_ < b) {
            const double next =
                std::max(0.0, backlog_[known_ % horizon] + demand_[known_ % horizon] - capacity_);
            ++known_;
            backlog_[known_ % horizon] = next;
        }
        return backlog_[b % horizon];
    }

    // Forgets the buckets before `new_base`, carrying their backlog forward.
    void slide_to(std::uint64_t new_base) {
        const std::uint64_t horizon = demand_.size();
        if (new_base - base_ < horizon) {
            backlog_at(new_base);
            for (std::uint64_t k = base_; k < new_base; ++k) demand_[k % horizon] = 0;
            if (known_ < new_base) known_ = new_base;
        } else { // a jump past everything remembered: the old backlog drains over the gap
            const std::uint64_t last = base_ + horizon - 1;
            double carry = std::max(0.0, backlog_at(last) + demand_[last % horizon] - capacity_);
            carry = std::max(0.0, carry - capacity_ * static_cast<double>(new_base - last - 1));
            std::fill(demand_.begin(), demand_.end(), 0.0);
            backlog_[new_base % horizon] = carry;
            known_ = new_base;
        }
        base_ = new_base;
    }

    double bytes_per_ps_;
    std::uint64_t bucket_ps_;
    double capacity_;
    std::vector<double> demand_, backlog_;
    std::uint64_t base_ = 0;  // oldest bucket remembered
    std::uint64_t known_ = 0; // backlog_ is valid for buckets base_..known_
    double total_bytes_ = 0;
    std::uint64_t queued_ps_ = 0;
};

} // namespace warmsched::models
