// Bandwidth of one directed link or a memory controller's channels, as a queue whose backlog is tracked
// in fixed time buckets. Each bucket records the bytes that asked to start in it; the backlog at the
// start of a bucket is what the earlier buckets could not drain at the link's bandwidth. A transfer waits
// for the backlog plus the bytes that arrived before it in its own bucket. Because the backlog is derived
// from the demand of whole buckets, it does not depend on the order in which initiators that run ahead of
// each other (temporal decoupling) present their requests: everyone arriving in a bucket sees the same
// queue, and a saturated link delivers exactly its bandwidth, shared fairly.
//
// A steady background flow (the traffic of fast-forwarded compute, models/fabric/flow_meter.h) takes a
// constant share of the bandwidth: the transfers that are simulated see what is left of it, never less
// than a twentieth (a link oversubscribed by flows still drains, slowly, and its queues show it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warmsched::models {

class link_occupancy {
public:
    // bytes_per_s: bandwidth; bucket_ps: accounting granularity; horizon: buckets remembered (rounded
    // up to a power of two, so that a bucket's ring slot is a mask, not a division).
    link_occupancy(double bytes_per_s, std::uint64_t bucket_ps, unsigned horizon = 4096)
        : full_bytes_per_ps_(bytes_per_s / 1e12), bytes_per_ps_(full_bytes_per_ps_), bucket_ps_(bucket_ps),
          capacity_(bytes_per_s * bucket_ps / 1e12), mask_(round_up_pow2(horizon) - 1), ring_(mask_ + 1) {}

    // Reserves `bytes` for a transfer that wants to start at `t_ps`; returns its queueing delay in ps.
    std::uint64_t reserve(std::uint64_t t_ps, double bytes) {
        ++reservations_;
        total_bytes_ += bytes;
        const std::uint64_t horizon = mask_ + 1;
        std::uint64_t b = std::max(t_ps / bucket_ps_, base_);
        if (b >= base_ + horizon) slide_to(b - horizon + 1);
        const double ahead = backlog_at(b) + demand(b);
        set_demand(b, demand(b) + bytes);
        if (b > last_demand_ || !any_demand_) last_demand_ = b;
        any_demand_ = true;
        if (known_ > b) known_ = b; // later buckets' backlog must be recomputed
        const double wait =
            static_cast<double>(b * bucket_ps_) + ahead / bytes_per_ps_ - static_cast<double>(t_ps);
        const std::uint64_t d = wait > 0 ? static_cast<std::uint64_t>(wait) : 0;
        queued_ps_ += d;
        return d;
    }

    // Adds (negative: removes) a steady flow of `bytes_per_ps`; `bytes` of its traffic are counted.
    void add_background(double bytes_per_ps) {
        background_ += bytes_per_ps;
        if (background_ < 1e-12 * full_bytes_per_ps_) background_ = 0; // rounding after the last removal
        bytes_per_ps_ = std::max(full_bytes_per_ps_ / 20, full_bytes_per_ps_ - background_);
        capacity_ = bytes_per_ps_ * static_cast<double>(bucket_ps_);
    }
    void count_background_bytes(double bytes) { total_bytes_ += bytes; }
    double background() const { return background_; }

    double total_bytes() const { return total_bytes_; }
    std::uint64_t queued_ps() const { return queued_ps_; }
    std::uint64_t reservations() const { return reservations_; } // host work, for the benchmarks

private:
    static constexpr std::uint64_t no_bucket = ~std::uint64_t{0};
    static std::uint64_t round_up_pow2(std::uint64_t n) {
        std::uint64_t p = 1;
        while (p < n) p <<= 1;
        return p;
    }
    // Each ring slot remembers which bucket it holds, so forgetting old buckets costs nothing: a slot
    // holding another bucket reads as no demand / no backlog. A slot's four fields sit together (two
    // slots to a host cache line): the backlog walk below reads consecutive slots.
    struct slot {
        double demand = 0, backlog = 0;
        std::uint64_t demand_tag = no_bucket, backlog_tag = no_bucket;
    };
    double demand(std::uint64_t k) const {
        const slot& s = ring_[k & mask_];
        return s.demand_tag == k ? s.demand : 0.0;
    }
    void set_demand(std::uint64_t k, double v) {
        slot& s = ring_[k & mask_];
        s.demand = v;
        s.demand_tag = k;
    }
    double backlog(std::uint64_t k) const {
        const slot& s = ring_[k & mask_];
        return s.backlog_tag == k ? s.backlog : 0.0;
    }
    void set_backlog(std::uint64_t k, double v) {
        slot& s = ring_[k & mask_];
        s.backlog = v;
        s.backlog_tag = k;
    }

    // Bytes still queued at the start of bucket b. Buckets after the last demand whose backlog has
    // drained are skipped in one step (an idle link costs nothing to catch up with): a bucket in
    // [base_, known_] whose slot was never written has no backlog.
    double backlog_at(std::uint64_t b) {
        while (known_ < b) {
            const double cur = backlog(known_);
            if (cur == 0.0 && (!any_demand_ || known_ > last_demand_)) {
                known_ = b;
                return 0.0;
            }
            const double next = std::max(0.0, cur + demand(known_) - capacity_);
            ++known_;
            set_backlog(known_, next);
        }
        return backlog(b);
    }

    // Forgets the buckets before `new_base`, carrying their backlog forward.
    void slide_to(std::uint64_t new_base) {
        if (known_ < new_base) backlog_at(new_base);
        base_ = new_base;
    }

    double full_bytes_per_ps_;
    double bytes_per_ps_; // what the background flows leave
    std::uint64_t bucket_ps_;
    double capacity_;
    std::uint64_t mask_;
    std::vector<slot> ring_;
    std::uint64_t base_ = 0;        // oldest bucket remembered
    std::uint64_t known_ = 0;       // backlog is valid for buckets base_..known_
    std::uint64_t last_demand_ = 0; // the latest bucket that received demand (if any_demand_)
    bool any_demand_ = false;
    double total_bytes_ = 0;
    std::uint64_t queued_ps_ = 0;
    std::uint64_t reservations_ = 0;
    double background_ = 0; // bytes/ps of steady flows
};

} // namespace warmsched::models
