// The simulated operating system: it owns the tasks, their programs and address spaces, the kernel
// objects they share (pipes, sockets, futexes), the scheduler, and one cpu_executor per CPU that runs
// tasks on the machine's hardware threads. Memory is handed out from simulated physical address ranges
// -- kernel objects from a line-granular slab, user memory in pages -- and every access to it goes
// through the hardware model. Randomness comes from per-task RNGs seeded from the run's seed.
#pragma once

#include "models/io/block_device.h"
#include "models/system/machine.h"
#include "scheduler/core/scheduler.h"
#include "workloads/kernel/channel.h"
#include "workloads/kernel/futex_word.h"
#include "workloads/kernel/io_context.h"
#include "workloads/kernel/kernel_task.h"
#include "workloads/kernel/migration_cost.h"

#include <systemc>

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

namespace warmsched::workloads {

class cpu_executor;

class sim_kernel final : public sc_core::sc_module,
                         public scheduler::scheduler_hooks,
                         public models::block_completion_sink {
public:
    // `track_migration_cost`: run the cost-of-migration tracker (it observes every L1 miss; off, a run
    // is about 10-25% faster and prints no cost-of-migration report).
    sim_kernel(const sc_core::sc_module_name& name, models::machine& m, const scheduler::sched_config& cfg,
               std::uint64_t seed, bool track_migration_cost = true);
    ~sim_kernel() override;

    // Set-up, before the run.
    channel& make_channel(channel_kind kind);
    futex_word& make_futex();
    // An I/O context whose requests are `bytes` each, on the machine's block device (created with the
    // first context, from the platform's block_device parameters).
    io_context& make_io_context(std::uint64_t bytes, bool write, bool sequential);
    // The block device; nullptr until an I/O context exists.
    const models::block_device* disk() const { return disk_.get(); }
    // Kernel memory shared by tasks of any process (e.g. a connection's socket state), line-aligned:
    // the address for memory_profile::shared_region.
    std::uint64_t alloc_shared(std::uint64_t bytes) { return alloc_kernel(bytes); }
    // The ACPI PM timer's I/O port (one per machine, in the chipset): a read issued at `at_ps` waits for
    // the reads before it, then takes `service_ps`; returns the time from `at_ps` to its answer. This is
    // acpi_idle's "dummy wait" after an I/O-port C-state (kernel_costs.acpi_dummy_wait), which many CPUs
    // leaving C2 at once queue on.
    models::ps_t pm_timer_read(models::ps_t at_ps, models::ps_t service_ps) {
        const models::ps_t begin = std::max(at_ps, pm_timer_free_ps_);
        pm_timer_free_ps_ = begin + service_ps;
        ++pm_timer_reads_;
        return pm_timer_free_ps_ - at_ps;
    }
    std::uint64_t pm_timer_reads() const { return pm_timer_reads_; }
    // A task that exists when the run starts, queued on `cpu`. Under LAUNCH_FORK_EXEC (a model flag) it
    // is created now but started as a shell starts a command: at the run's start a launcher task ("sh",
    // on CPU 0) forks one child per spawned task, in the order spawned, and each child, with the spawned
    // task's pid, affinity, policy and nice (taskset, chrt and nice act before the exec), execs it. So
    // fork and exec balancing place them, each fork_ps after the one before.
    kernel_task& spawn(const spawn_spec& s, unsigned cpu);
    static constexpr const char* launcher_comm = "sh";
    // Puts a task spawn() made into cgroup `g` (cgroup.procs); a task the launcher has yet to fork is
    // forked into it (clone3's CLONE_INTO_CGROUP).
    void attach_initial(kernel_task& t, scheduler::group_id g);

    // Fast-forward compute that has settled (cpu_executor.h): 1 in `n` of its accesses is simulated;
    // 0 or 1: every access is.
    void set_fast_forward(unsigned n) { fast_forward_ = n; }
    unsigned fast_forward() const { return fast_forward_; }

    // Runs until every task has exited or `limit` of simulated time has passed (0: no limit).
    void run(scheduler::nsec limit = 0);
    // Runs to simulated time `t` (absolute), in steps of a run that a plain run() would take in one: as
    // run(t - now()) with a limit, or, with `until_idle` (a run without one), stopping early at the last
    // event when every task has exited. Returns false when it stopped so (nothing is left to simulate).
    bool run_to(scheduler::nsec t, bool until_idle);
    scheduler::nsec now() const;

    // What the executors use.
    kernel_task& fork_task(kernel_task& parent, const spawn_spec& s);
    // execve(): `t` gets a new address space (its working sets are allocated afresh on first use), a
    // new user stack, and runs `image` (its comm and a copy of its body) from the start.
    void exec_task(kernel_task& t, const spawn_spec& image);
    void task_exited(kernel_task& t);
    // Submits `n` requests of `io` to the block device from `cpu` (at the current SystemC time).
    void submit_io(io_context& io, unsigned cpu, std::uint64_t n);
    // The device completed a request: its interrupt goes to the submitting CPU or the fixed IRQ CPU.
    void block_completed(const models::block_request& r, models::ps_t submitted_ps) override;
    bool finished() const { return live_ == 0; }
    scheduler::scheduler& sched() { return *sched_; }
    const scheduler::scheduler& sched() const { return *sched_; }
    // uname -r of the simulated kernel, as the tools that record it print it ("6.12.0-warmsched").
    std::string uname_release() const {
        return sched_->config().kernel == scheduler::kernel_version::cfs_v5_15 ? "5.15.0-warmsched"
                                                                               : "6.12.0-warmsched";
    }
    models::machine& machine() { return m_; }
    cpu_executor& executor(unsigned cpu) { return *executors_[cpu]; }
    const cpu_executor& executor(unsigned cpu) const { return *executors_[cpu]; }
    const platform::kernel_cost_params& costs() const { return m_.platform().kernel_costs; }
    std::uint64_t rq_line(unsigned cpu) const { return rq_lines_[cpu]; }
    // The CPU whose kernel code is running (the sender of any IPI the scheduler asks for).
    void set_running_cpu(unsigned cpu) { running_cpu_ = cpu; }
    void kick_cpu(unsigned cpu) override;
    // The scheduler's hrtimer (CFS bandwidth period/slack): an interrupt on `cpu` at `expiry`.
    void arm_sched_timer(unsigned cpu, scheduler::nsec expiry) override;
    // The loaded policy failed: an interrupt on `cpu` at once runs the scheduler's disable work, which
    // moves its tasks to the fair class; the run goes on.
    void queue_policy_disable(unsigned cpu) override;
    // Tells the cost-of-migration tracker.
    void task_migrated(const scheduler::task& p, unsigned from, unsigned to,
                       scheduler::migration_cause why) override;
    // What migrations and stacking cost in refetched lines (the cost-of-migration report).
    // nullptr when the tracker is off.
    const migration_cost* migration_costs() const { return cost_.get(); }
    // The generator of `t`'s accesses for profile `p` (its working set allocated on first use).
    access_generator& generator(kernel_task& t, const memory_profile& p);

    const std::deque<std::unique_ptr<kernel_task>>& tasks() const { return tasks_; }
    std::uint64_t forks() const { return forks_; }
    std::uint64_t execs() const { return execs_; }
    // The run's seed (workloads derive their own generators from it).
    std::uint64_t seed() const { return seed_; }

private:
    std::uint64_t alloc_kernel(std::uint64_t bytes); // line-aligned
    models::ps_t pm_timer_free_ps_ = 0;
    std::uint64_t pm_timer_reads_ = 0;
    std::uint64_t alloc_user(std::uint64_t bytes); // page-aligned
    kernel_task& new_task(const spawn_spec& s, kernel_task* parent);
    // LAUNCH_FORK_EXEC: queues the launcher that forks the tasks spawn() made (once, before the run).
    void launch();

    bool launched_ = false;
    std::vector<kernel_task*> launches_; // spawned, for the launcher to fork, in order
    std::size_t launches_forked_ = 0;
    kernel_task* launcher_ = nullptr;

    models::machine& m_;
    std::uint64_t seed_;
    std::unique_ptr<migration_cost> cost_; // observes the machine from construction to destruction
    std::unique_ptr<scheduler::scheduler> sched_;
    std::vector<std::unique_ptr<scheduler::task>> idle_tasks_;
    std::vector<std::unique_ptr<cpu_executor>> executors_;
    std::deque<std::unique_ptr<kernel_task>> tasks_;
    std::deque<std::unique_ptr<channel>> channels_;
    std::deque<std::unique_ptr<futex_word>> futexes_;
    std::deque<std::unique_ptr<io_context>> io_contexts_;
    std::unique_ptr<models::block_device> disk_;
    std::vector<std::uint64_t> rq_lines_;
    std::uint64_t next_kernel_ = 1ull << 40, next_user_ = 1ull << 32;
    int next_pid_ = 1;
    unsigned live_ = 0;
    unsigned running_cpu_ = 0;
    std::uint64_t forks_ = 0, execs_ = 0;
    unsigned fast_forward_ = 0;
};

} // namespace warmsched::workloads
