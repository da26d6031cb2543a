// A task group's presence on one CPU: its fair run queue there and the group entity that represents
// that queue in its parent's queue (tg->cfs_rq[cpu] and tg->se[cpu] of kernel/sched/fair.c). The fair
// class allocates one the first time a task of the group's subtree is queued on the CPU (with its
// ancestors), so an 8,000-task hierarchy on 384 CPUs holds only the pairs it uses; runqueue::tg indexes
// them by group. The entity's weight is the group's share of its cpu.weight on this CPU
// (calc_group_shares), and its PELT averages follow the queue's (load propagation).
#pragma once

#include "scheduler/fair/cfs_rq.h"

namespace warmsched::scheduler {

struct group_sched {
    cfs_rq q;        // the group's queue on this CPU (its tasks and child groups' entities)
    sched_entity se; // its entity, queued in the parent group's queue (or the root queue)
};

} // namespace warmsched::scheduler
