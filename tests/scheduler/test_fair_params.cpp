// Fair-class parameters from reference/scheduler/01-fair-cfs.md and 02-fair-eevdf.md: the nice table, the
// inverse weights, the CPU-count scaling of the tunables, and the feature flags of each kernel.
#include "scheduler/core/sched_features.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/fair/weights.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace warmsched::scheduler;

TEST_CASE("nice weights: nice 0 is 1024, one step is about 1.25x, shares as published") {
    CHECK(weight_of_nice(0) == 1024);
    CHECK(weight_of_nice(-20) == 88761);
    CHECK(weight_of_nice(19) == 15);
    for (int n = -20; n < 19; ++n) {
        const double r = static_cast<double>(weight_of_nice(n)) / weight_of_nice(n + 1);
        CHECK(r >= 1.19);
        CHECK(r <= 1.29);
    }
    // Nice 0 vs nice 5: 75.35% / 24.65%; nice 0 vs nice 19: 98.56% / 1.44%.
    CHECK(1024.0 / (1024 + weight_of_nice(5)) == Approx(0.7535).margin(0.0001));
    CHECK(1024.0 / (1024 + weight_of_nice(19)) == Approx(0.9856).margin(0.0001));
}

TEST_CASE("inverse weights: the kernel's table for nice levels, WMULT_CONST / w elsewhere") {
    CHECK(inverse_weight_of_nice(0) == 4194304);
    CHECK(inverse_weight_of_nice(-20) == 48388);
    CHECK(inverse_weight_of_nice(2) == 6557202);
    CHECK(inverse_weight_of_nice(5) == 12820798);
    CHECK(inverse_weight_of_nice(19) == 286331153);
    for (int n = -20; n <= 19; ++n) { // the table is 2^32 / weight, rounded
        const double exact = 4294967296.0 / weight_of_nice(n);
        CHECK(std::abs(static_cast<double>(inverse_weight_of_nice(n)) - exact) <= 1.0);
    }
    CHECK(inverse_weight(2048) == 2097151);
}

TEST_CASE("tunables scale with 1 + ilog2(min(ncpus, 8))") {
    const unsigned expected[] = {1, 2, 2, 3, 3, 3, 3, 4};
    for (unsigned n = 1; n <= 8; ++n) CHECK(fair_tunables::scaling_factor(n) == expected[n - 1]);
    CHECK(fair_tunables::scaling_factor(384) == 4);
    const auto t = fair_tunables::defaults(32);
    CHECK(t.latency_ns == 24'000'000);
    CHECK(t.min_granularity_ns == 3'000'000);
    CHECK(t.wakeup_granularity_ns == 4'000'000);
    CHECK(t.base_slice_ns == 3'000'000);
    CHECK(t.migration_cost_ns == 500'000);
    CHECK(fair_tunables::defaults(4).base_slice_ns == 2'250'000);
    CHECK(fair_tunables::defaults(2).base_slice_ns == 1'500'000);
}

TEST_CASE("feature flags default as in v5.15 (CFS) and v6.12 (EEVDF)") {
    const sched_features cfs(kernel_version::cfs_v5_15), eevdf(kernel_version::eevdf_v6_12);
    for (feature f :
         {feature::GENTLE_FAIR_SLEEPERS, feature::START_DEBIT, feature::LAST_BUDDY, feature::CACHE_HOT_BUDDY,
          feature::WAKEUP_PREEMPTION, feature::ALT_PERIOD, feature::BASE_SLICE})
        CHECK(cfs[f]);
    for (feature f :
         {feature::NEXT_BUDDY, feature::HRTICK, feature::SCALE_WAKEUP_GRAN, feature::WAKEE_FLIPS_COUPLE})
        CHECK_FALSE(cfs[f]);
    for (feature f : {feature::PLACE_LAG, feature::PLACE_DEADLINE_INITIAL, feature::PLACE_REL_DEADLINE,
                      feature::RUN_TO_PARITY, feature::PREEMPT_SHORT, feature::CACHE_HOT_BUDDY,
                      feature::DELAY_DEQUEUE, feature::DELAY_ZERO, feature::WAKEUP_PREEMPTION})
        CHECK(eevdf[f]);
    CHECK_FALSE(eevdf[feature::NEXT_BUDDY]);
    CHECK_FALSE(eevdf.exists(feature::GENTLE_FAIR_SLEEPERS));
    CHECK_FALSE(cfs.exists(feature::RUN_TO_PARITY));
}

TEST_CASE("feature flags are set by name, unknown or absent flags are refused with a reason") {
    sched_features cfs(kernel_version::cfs_v5_15);
    CHECK(cfs.set("SCALE_WAKEUP_GRAN", true).empty());
    CHECK(cfs[feature::SCALE_WAKEUP_GRAN]);
    CHECK(cfs.set("RUN_TO_PARITY", false) == "feature RUN_TO_PARITY does not exist in the cfs kernel model");
    CHECK(cfs.set("RUN_TO_PARTY", false) == "unknown scheduler feature 'RUN_TO_PARTY'");
    CHECK(std::string(sched_features::name(feature::DELAY_ZERO)) == "DELAY_ZERO");
}

TEST_CASE("version changes: every one exists in both kernels, off in v5.15 and on in v6.12, and is set by "
          "name in either") {
    const sched_features cfs(kernel_version::cfs_v5_15), eevdf(kernel_version::eevdf_v6_12);
    int n = 0;
    for (int i = 0; i < static_cast<int>(feature::count); ++i) {
        const auto f = static_cast<feature>(i);
        if (!sched_features::version_change(f)) {
            CHECK(n == 0); // the kernel's flags come first, then the version changes
            continue;
        }
        ++n;
        CAPTURE(sched_features::name(f));
        CHECK(cfs.exists(f));
        CHECK(eevdf.exists(f));
        CHECK_FALSE(cfs[f]);
        CHECK(eevdf[f]);
        sched_features back = eevdf, forward = cfs;
        CHECK(back.set(sched_features::name(f), false).empty());
        CHECK(forward.set(sched_features::name(f), true).empty());
        CHECK_FALSE(back[f]);
        CHECK(forward[f]);
    }
    CHECK(n >= 20);
    CHECK_FALSE(sched_features::version_change(feature::RUN_TO_PARITY));
    CHECK(sched_features::version_change(feature::LB_SMT_BALANCE));
}
