// A run queue's list of its queued fair tasks in most-recently-run order (rq->cfs_tasks): a task joins at
// the head when it is enqueued and moves back to the head when it is picked to run; the balancer walks it
// from the tail (the task that ran longest ago, the coldest) and rotates the tasks it skips to the head.
// Intrusive and O(1), as the kernel's list_head through se.group_node.
#pragma once

#include "scheduler/task/task.h"

namespace warmsched::scheduler {

struct task_list {
    task* head = nullptr; // most recently run
    task* tail = nullptr; // least recently run
    unsigned size = 0;

    bool empty() const { return head == nullptr; }
    void push_front(task& p) {
        p.mru_prev = nullptr;
        p.mru_next = head;
        if (head) head->mru_prev = &p;
        head = &p;
        if (!tail) tail = &p;
        ++size;
    }
    void erase(task& p) {
        (p.mru_prev ? p.mru_prev->mru_next : head) = p.mru_next;
        (p.mru_next ? p.mru_next->mru_prev : tail) = p.mru_prev;
        p.mru_prev = p.mru_next = nullptr;
        --size;
    }
    void move_to_front(task& p) {
        if (head == &p) return;
        erase(p);
        push_front(p);
    }
};

} // namespace warmsched::scheduler
