// A task's I/O context on the machine's block device, as libaio uses one (io_setup, io_submit,
// io_getevents), also serving the synchronous path of an O_DIRECT pread/pwrite (submit one request,
// sleep until its completion interrupt). Every request of a context has the same size and direction
// (a fio job's bs and rw). A completion interrupt (on the CPU the device's queue maps to) moves the
// request into the context's ring and wakes a task sleeping in io_getevents once `min_nr` events are
// ready. The ring's head line is written by the interrupt and read by the reaper; the submission
// queue's tail line (and doorbell) by the submitter. Left out: merging, plugging, tag exhaustion (the
// device's host queue absorbs any excess), and the data itself (DMA does not pass through the caches).
#pragma once

#include "scheduler/task/task.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace warmsched::workloads {

struct kernel_task;

struct io_context {
    std::uint64_t bytes = 4096;
    bool write = false;
    bool sequential = false;     // each request follows the previous one (fio rw=read/write)
    std::uint64_t ring_line = 0; // aio ring head/tail, written on completion, read by io_getevents
    std::uint64_t sq_line = 0;   // submission queue tail and doorbell, written by io_submit

    struct completion {
        scheduler::nsec submitted = 0, completed = 0; // device submit and completion times
    };
    unsigned inflight = 0;          // submitted, completion interrupt not yet taken
    std::deque<completion> ready;   // completed, not yet reaped
    std::vector<completion> reaped; // what the last io_getevents (or pread) returned
    kernel_task* waiter = nullptr;  // sleeping until `min_nr` events are ready
    std::uint64_t min_nr = 1;
    std::uint64_t submitted = 0, completed = 0;
};

} // namespace warmsched::workloads
