// llc_sticky: keep each task in the LLC it last ran in, so that its cache stays warm. A waking task goes
// to an idle CPU of its previous CPU's LLC, else back to its previous CPU; a task that must wait joins
// the queue of the LLC it is on. A CPU runs its own LLC's queue, and takes a task from another LLC only
// when that LLC has at least two waiting and its own has none -- a real imbalance, not a passing one.
// It trades a little waiting for far fewer moves across LLCs.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class llc_sticky final : public policy {
public:
    const char* name() const override { return "llc_sticky"; }

    void init() override {
        for (unsigned llc = 0; llc < k().topology().nr_llcs; ++llc) k().create_dsq(llc);
    }

    unsigned select_cpu(task_info& p, unsigned prev_cpu, u64 wake_flags) override {
        (void)wake_flags;
        const topology& t = k().topology();
        if (k().task_allowed_on(p, prev_cpu) && k().test_and_clear_cpu_idle(prev_cpu)) {
            k().dispatch(p, dsq_local, slice_dfl);
            return prev_cpu;
        }
        const int cpu = k().pick_idle_cpu(p, t.llc_cpus[t.llc_of[prev_cpu]]);
        if (cpu < 0) return prev_cpu;
        k().dispatch(p, dsq_local, slice_dfl);
        return static_cast<unsigned>(cpu);
    }

    void enqueue(task_info& p, u64 enq_flags) override {
        (void)enq_flags;
        k().dispatch(p, k().topology().llc_of[p.cpu], slice_dfl);
    }

    void dispatch(unsigned cpu, task_info* prev) override {
        (void)prev;
        const topology& t = k().topology();
        const unsigned mine = t.llc_of[cpu];
        if (k().move_to_local(mine)) return;
        for (unsigned i = 1; i < t.nr_llcs; ++i) {
            const unsigned other = (mine + i) % t.nr_llcs;
            if (k().dsq_nr_queued(other) >= 2 && k().move_to_local(other)) return;
        }
    }
};

WARMSCHED_POLICY(llc_sticky)
