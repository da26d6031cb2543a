// llc_rr: per-LLC round-robin. Each task gets a home LLC when it is created, the LLCs taken in turn, so
// that tasks spread evenly over the LLCs; each LLC runs its tasks round-robin from its own FIFO queue
// with a 5 ms slice. A CPU whose LLC has nothing queued takes work from the other LLCs' queues (the next
// LLC first), so no CPU idles while a task waits; a task taken that way keeps its home and goes back to
// its home queue when its slice ends.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class llc_rr final : public policy {
    static constexpr u64 slice = 5'000'000;
    unsigned next_home_ = 0;

    unsigned home(const task_info& p) const { return static_cast<unsigned>(p.data[0]); }

public:
    const char* name() const override { return "llc_rr"; }

    void init() override {
        for (unsigned llc = 0; llc < k().topology().nr_llcs; ++llc) k().create_dsq(llc);
    }

    void init_task(task_info& p) override {
        p.data[0] = next_home_;
        next_home_ = (next_home_ + 1) % k().topology().nr_llcs;
    }

    // A waking task goes to an idle CPU of its home LLC, else stays on its CPU until a CPU takes it.
    unsigned select_cpu(task_info& p, unsigned prev_cpu, u64 wake_flags) override {
        (void)wake_flags;
        const int cpu = k().pick_idle_cpu(p, k().topology().llc_cpus[home(p)]);
        if (cpu < 0) return prev_cpu;
        k().dispatch(p, dsq_local, slice);
        return static_cast<unsigned>(cpu);
    }

    void enqueue(task_info& p, u64 enq_flags) override {
        (void)enq_flags;
        k().dispatch(p, home(p), slice);
    }

    void dispatch(unsigned cpu, task_info* prev) override {
        (void)prev;
        const unsigned n = k().topology().nr_llcs, mine = k().topology().llc_of[cpu];
        for (unsigned i = 0; i < n; ++i)
            if (k().move_to_local((mine + i) % n)) return;
    }
};

WARMSCHED_POLICY(llc_rr)
