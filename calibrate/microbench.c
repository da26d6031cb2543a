// warmsched-microbench: the small programs `warmsched calibrate` runs on the host, each isolating one
// cost of the kernel or of the memory system. Built static with the project (calibrate/CMakeLists.txt).
//
//   warmsched-microbench KIND CPU[,CPU2] [ARG]
//
// Every kind pins its threads or processes (sched_setaffinity; a CPU it cannot be pinned to is exit 3),
// times a loop with CLOCK_MONOTONIC after a warm-up, and prints one line "KIND FIGURE=VALUE ..." with
// nanoseconds per operation (bandwidth in bytes per second). Kinds and what one operation is:
//
//   syscall        getppid(2) through syscall(2): entry and exit, nothing else
//   pipe           1-byte write(2) into a pipe with room, then read(2) of one byte, in batches of 4096:
//                  write_ns and read_ns separately (no task blocks, nothing is woken)
//   unix           the same over an AF_UNIX stream socketpair, in batches of 64 (the send buffer's room)
//   yield_threads  two threads of one process on one CPU calling sched_yield(2): ns per context switch
//                  (the switches are counted from /proc/self/task/*/status, not assumed)
//   yield_procs    the same between two processes: the switch changes the address space
//   pipe_rt        perf bench sched pipe's loop: two threads (ARG "threads") or processes ("procs")
//                  hand one byte back and forth over two pipes; ns per round trip (two hand-offs). With
//                  two CPUs given, each side is pinned to its own. cpu_ns: the two sides' CPU time in
//                  their loops (CLOCK_THREAD_CPUTIME_ID) per round trip
//   futex_rt       the same hand-off over two futex words (FUTEX_WAIT / FUTEX_WAKE, threads)
//   ring           ARG processes on one CPU passing a byte around a ring of pipes: ns per hand-off
//   ctx_footprint  pipe_rt between two processes on one CPU, each summing ARG bytes of its own array
//                  before it hands off (lat_ctx); prints round_ns and the summing alone, touch_ns
//   fork           fork(2), the child _exit(0)s, waitpid(2): call_ns the fork call in the parent, exit_ns
//                  from the child's _exit to waitpid's return (see run_fork)
//   clone          pthread_create, the thread returns, pthread_join: call_ns the create call
//   exec           fork(2), the child execve(2)s this program with "exit": ns to the new image's main
//   chase          a dependent load chain through ARG bytes in random line order: ns per load
//   c2c            one cache line bounced between two pinned threads (each waits for its turn and writes
//                  the next): ns per one-way transfer (half a round trip)
//   bandwidth      streaming 64-bit reads of ARG bytes, one thread per CPU given: bytes per second in all
//   clock          a chain of dependent multiplies (3 cycles each): the clock of a busy core, in GHz
//   exit           the image `exec` starts: writes its start time to fd 3 and exits
//
// Exit status: 0, 2 for bad arguments, 3 when a CPU cannot be pinned, 1 for a failed system call.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char* self_path;
static int cpu_a = 0, cpu_b = -1;

static void fail(const char* what) {
    fprintf(stderr, "warmsched-microbench: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "warmsched-microbench: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        exit(3);
    }
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void full_write(int fd, const void* b, size_t n) {
    if (write(fd, b, n) != (ssize_t)n) fail("write");
}
static void full_read(int fd, void* b, size_t n) {
    if (read(fd, b, n) != (ssize_t)n) fail("read");
}

// Starts the other side of a hand-off in a thread, pins this one to CPU A and lets the other settle
// on its CPU before the timing starts.
static pthread_t start_partner(void* (*side)(void*)) {
    pthread_t t;
    if (pthread_create(&t, NULL, side, NULL)) fail("pthread_create");
    pin(cpu_a);
    usleep(10000);
    return t;
}

// --- syscall
static void run_syscall(long n) {
    pin(cpu_a);
    for (long i = 0; i < n / 10; ++i) syscall(SYS_getppid);
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) syscall(SYS_getppid);
    printf("syscall ns=%.2f\n", (now_ns() - t0) / (double)n);
}

// --- pipe / unix: batches of writes, then as many reads, timed apart
static void run_batches(const char* kind, int wfd, int rfd, long n, int batch) {
    pin(cpu_a);
    char c = 'x';
    double wsum = 0, rsum = 0;
    long done = 0;
    for (int warm = 1; warm >= 0; --warm) {
        const long rounds = warm ? 2 : n / batch;
        wsum = rsum = 0;
        for (long r = 0; r < rounds; ++r) {
            const double t0 = now_ns();
            for (int i = 0; i < batch; ++i) full_write(wfd, &c, 1);
            const double t1 = now_ns();
            for (int i = 0; i < batch; ++i) full_read(rfd, &c, 1);
            wsum += t1 - t0;
            rsum += now_ns() - t1;
        }
        done = rounds * batch;
    }
    printf("%s write_ns=%.2f read_ns=%.2f\n", kind, wsum / (double)done, rsum / (double)done);
}


// --- sched_yield between two threads or two processes on one CPU. The time runs until the first of the
// two ends (the other then yields alone, without switching); each side counts its own switches
// (getrusage RUSAGE_THREAD) over its loop, so none is assumed.
struct yield_shared {
    atomic_int go, ended;
    double first_end;
    uint64_t switches[2];
};
static struct yield_shared* ys;
static long yield_n;

static uint64_t own_switches(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

static void yield_side(int index) {
    pin(cpu_a);
    while (!atomic_load(&ys->go)) sched_yield();
    const uint64_t s0 = own_switches();
    for (long i = 0; i < yield_n; ++i) sched_yield();
    if (atomic_fetch_add(&ys->ended, 1) == 0) ys->first_end = now_ns();
    ys->switches[index] = own_switches() - s0;
}
static void* yield_thread(void* arg) {
    yield_side((int)(intptr_t)arg);
    return NULL;
}

static void run_yield(int threads, long n) {
    pin(cpu_a);
    yield_n = n;
    ys = mmap(NULL, sizeof *ys, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (ys == MAP_FAILED) fail("mmap");
    memset(ys, 0, sizeof *ys);
    pthread_t t[2];
    pid_t kids[2];
    for (int k = 0; k < 2; ++k) {
        if (threads) {
            if (pthread_create(&t[k], NULL, yield_thread, (void*)(intptr_t)k)) fail("pthread_create");
        } else {
            kids[k] = fork();
            if (kids[k] < 0) fail("fork");
            if (kids[k] == 0) {
                yield_side(k);
                _exit(0);
            }
        }
    }
    usleep(20000);
    const double t0 = now_ns();
    atomic_store(&ys->go, 1);
    for (int k = 0; k < 2; ++k) {
        if (threads)
            pthread_join(t[k], NULL);
        else
            waitpid(kids[k], NULL, 0);
    }
    const uint64_t sw = ys->switches[0] + ys->switches[1];
    printf("%s ns=%.2f switches=%llu yields=%ld\n", threads ? "yield_threads" : "yield_procs",
           sw ? (ys->first_end - t0) / (double)sw : 0.0, (unsigned long long)sw, 2 * n);
}

// --- pipe round trips (perf bench sched pipe), optionally with a footprint summed before each hand-off
static long rt_n;
static size_t rt_touch;
static int rt_p1[2], rt_p2[2];

static volatile uint64_t touch_sink;
static void touch(const uint64_t* a, size_t bytes) {
    uint64_t s = 0;
    for (size_t i = 0; i < bytes / 8; i += 8) s += a[i]; // one load per line
    touch_sink += s;
}

static uint64_t* footprint(size_t bytes) {
    if (!bytes) return NULL;
    uint64_t* a = malloc(bytes);
    if (!a) fail("malloc");
    memset(a, 1, bytes);
    return a;
}

// CPU time (user + system, ns) each side spent in its loop: shared, so a forked side reports it too.
static double* rt_cpu;

static double thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pipe_side(int cpu, int rfd, int wfd, int starts) {
    pin(cpu);
    uint64_t* a = footprint(rt_touch);
    char c = 'x';
    const double cpu0 = thread_cpu_ns();
    for (long i = 0; i < rt_n; ++i) {
        if (starts) {
            touch(a, rt_touch);
            full_write(wfd, &c, 1);
            full_read(rfd, &c, 1);
        } else {
            full_read(rfd, &c, 1);
            touch(a, rt_touch);
            full_write(wfd, &c, 1);
        }
    }
    rt_cpu[starts] = thread_cpu_ns() - cpu0;
    free(a);
}

static void* pipe_echo_thread(void* arg) {
    (void)arg;
    pipe_side(cpu_b >= 0 ? cpu_b : cpu_a, rt_p1[0], rt_p2[1], 0);
    return NULL;
}

static double pipe_round_trips(int threads, long n, double* cpu_per_round) {
    rt_n = n;
    if (!rt_cpu) {
        rt_cpu = mmap(NULL, 2 * sizeof *rt_cpu, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (rt_cpu == MAP_FAILED) fail("mmap");
    }
    if (pipe(rt_p1) || pipe(rt_p2)) fail("pipe");
    const int other = cpu_b >= 0 ? cpu_b : cpu_a;
    pthread_t t;
    pid_t kid = -1;
    if (threads) {
        if (pthread_create(&t, NULL, pipe_echo_thread, NULL)) fail("pthread_create");
    } else {
        kid = fork();
        if (kid < 0) fail("fork");
        if (kid == 0) {
            pipe_side(other, rt_p1[0], rt_p2[1], 0);
            _exit(0);
        }
    }
    pin(cpu_a);
    usleep(10000);
    const double t0 = now_ns();
    pipe_side(cpu_a, rt_p2[0], rt_p1[1], 1);
    const double el = now_ns() - t0;
    if (threads)
        pthread_join(t, NULL);
    else
        waitpid(kid, NULL, 0);
    close(rt_p1[0]), close(rt_p1[1]), close(rt_p2[0]), close(rt_p2[1]);
    if (cpu_per_round) *cpu_per_round = (rt_cpu[0] + rt_cpu[1]) / (double)n;
    return el / (double)n;
}

static void run_pipe_rt(const char* how, long n) {
    int threads;
    if (!strcmp(how, "threads"))
        threads = 1;
    else if (!strcmp(how, "procs"))
        threads = 0;
    else {
        fprintf(stderr, "warmsched-microbench: pipe_rt: threads or procs, not '%s'\n", how);
        exit(2);
    }
    pipe_round_trips(threads, n / 10, NULL);
    double cpu = 0;
    const double round = pipe_round_trips(threads, n, &cpu);
    printf("pipe_rt round_ns=%.2f cpu_ns=%.2f\n", round, cpu);
}

static void run_ctx_footprint(size_t bytes, long n) {
    rt_touch = bytes;
    pin(cpu_a);
    uint64_t* a = footprint(bytes);
    const long reps = n;
    const double t0 = now_ns();
    for (long i = 0; i < reps; ++i) touch(a, bytes);
    const double touch_ns = bytes ? (now_ns() - t0) / (double)reps : 0;
    free(a);
    pipe_round_trips(0, n / 10, NULL);
    printf("ctx_footprint round_ns=%.2f touch_ns=%.2f bytes=%zu\n", pipe_round_trips(0, n, NULL), touch_ns, bytes);
}

// --- a ring of ARG processes on one CPU passing a byte along pipes: ns per hand-off. Against the ring's
// size it shows what each task's own kernel state (stack, task_struct, mm, pipe) costs once the tasks
// no longer fit the caches: the kernel's cache footprint per switch.
static void run_ring(long tasks, long n) {
    pin(cpu_a);
    if (tasks < 2 || tasks > 4096) {
        fprintf(stderr, "warmsched-microbench: ring: 2 to 4096 tasks\n");
        exit(2);
    }
    int (*p)[2] = malloc((size_t)tasks * sizeof *p);
    if (!p) fail("malloc");
    for (long i = 0; i < tasks; ++i)
        if (pipe(p[i])) fail("pipe");
    const long rounds = n / tasks + 1;
    pid_t* kids = malloc((size_t)tasks * sizeof *kids);
    if (!kids) fail("malloc");
    for (long i = 1; i < tasks; ++i) { // task i reads p[i], writes p[(i + 1) % tasks]
        kids[i] = fork();
        if (kids[i] < 0) fail("fork");
        if (kids[i] == 0) {
            char c;
            for (long r = 0; r < rounds + 1; ++r) {
                full_read(p[i][0], &c, 1);
                full_write(p[(i + 1) % tasks][1], &c, 1);
            }
            _exit(0);
        }
    }
    char c = 'x';
    double t0 = 0;
    for (long r = 0; r < rounds + 1; ++r) {
        if (r == 1) t0 = now_ns(); // the first round warms the ring
        full_write(p[1 % tasks][1], &c, 1);
        full_read(p[0][0], &c, 1);
    }
    const double el = now_ns() - t0;
    for (long i = 1; i < tasks; ++i) waitpid(kids[i], NULL, 0);
    printf("ring ns=%.2f tasks=%ld\n", el / (double)(rounds * tasks), tasks);
}

// --- futex hand-off between two threads
static atomic_int fx_turn; // 0: the first thread's, 1: the echo's
static long fx_n;

static void futex_wait_for(int want) {
    int v;
    while ((v = atomic_load(&fx_turn)) != want) syscall(SYS_futex, &fx_turn, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
static void futex_give(int to) {
    atomic_store(&fx_turn, to);
    syscall(SYS_futex, &fx_turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
static void* futex_echo(void* arg) {
    (void)arg;
    pin(cpu_b >= 0 ? cpu_b : cpu_a);
    for (long i = 0; i < fx_n; ++i) {
        futex_wait_for(1);
        futex_give(0);
    }
    return NULL;
}
static double futex_round_trips(long n) {
    fx_n = n;
    atomic_store(&fx_turn, 0);
    const pthread_t t = start_partner(futex_echo);
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) {
        futex_give(1);
        futex_wait_for(0);
    }
    const double el = now_ns() - t0;
    pthread_join(t, NULL);
    return el / (double)n;
}
static void run_futex_rt(long n) {
    futex_round_trips(n / 10);
    printf("futex_rt round_ns=%.2f\n", futex_round_trips(n));
}

// --- process and thread life cycle. Linux runs the parent first after fork (sched_child_runs_first is
// 0), so the call's own time is the kernel's fork; the child then runs when the parent blocks in
// waitpid. exit_ns runs from the child's last instruction before _exit(2) to waitpid's return in the
// parent: the exit, the parent's wakeup and the switch back, and the reap. exec_ns runs from just before
// execve(2) to the first instruction of the new image's main (this program, static, started with "exit").
struct life_shared {
    double child_last;
};

static struct life_shared* life_map(void) {
    struct life_shared* m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) fail("mmap");
    return m;
}

static void run_fork(long n) {
    pin(cpu_a);
    struct life_shared* m = life_map();
    double call = 0, exit_reap = 0;
    for (long i = 0; i < n; ++i) {
        const double t0 = now_ns();
        const pid_t k = fork();
        if (k < 0) fail("fork");
        if (k == 0) {
            m->child_last = now_ns();
            _exit(0);
        }
        call += now_ns() - t0;
        if (waitpid(k, NULL, 0) != k) fail("waitpid");
        exit_reap += now_ns() - m->child_last;
    }
    printf("fork call_ns=%.2f exit_ns=%.2f\n", call / (double)n, exit_reap / (double)n);
}

static void* nothing(void* arg) { return arg; }

static void run_clone(long n) {
    pin(cpu_a);
    double call = 0;
    for (long i = 0; i < n; ++i) {
        pthread_t t;
        const double t0 = now_ns();
        if (pthread_create(&t, NULL, nothing, NULL)) fail("pthread_create");
        call += now_ns() - t0;
        pthread_join(t, NULL);
    }
    printf("clone call_ns=%.2f\n", call / (double)n);
}

static void run_exec(long n) {
    pin(cpu_a);
    struct life_shared* m = life_map();
    double sum = 0;
    for (long i = 0; i < n; ++i) {
        int p[2];
        if (pipe(p)) fail("pipe");
        const pid_t k = fork();
        if (k < 0) fail("fork");
        if (k == 0) {
            if (dup2(p[1], 3) < 0) _exit(127);
            char* const argv[] = {(char*)self_path, (char*)"exit", NULL};
            char* const envp[] = {NULL};
            m->child_last = now_ns();
            execve(self_path, argv, envp);
            _exit(127);
        }
        close(p[1]);
        double started = 0;
        if (read(p[0], &started, sizeof started) != (ssize_t)sizeof started) fail("exec of itself");
        close(p[0]);
        int st = 0;
        if (waitpid(k, &st, 0) != k || !WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("exec of itself");
        sum += started - m->child_last;
    }
    printf("exec ns=%.2f\n", sum / (double)n);
}

// --- memory: pointer chase, line bounce, streaming reads
static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_random(void) { // xorshift64: the chase order only, the same every run
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void run_chase(size_t bytes, long n) {
    pin(cpu_a);
    const size_t lines = bytes / 64;
    if (lines < 2) {
        fprintf(stderr, "warmsched-microbench: chase: at least 128 bytes\n");
        exit(2);
    }
    char* buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) fail("mmap");
    madvise(buf, bytes, MADV_HUGEPAGE); // fewer TLB misses: the model has no TLB
    size_t* order = malloc(lines * sizeof *order);
    if (!order) fail("malloc");
    for (size_t i = 0; i < lines; ++i) order[i] = i;
    for (size_t i = lines - 1; i > 0; --i) {
        const size_t j = next_random() % (i + 1);
        const size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; ++i) *(char**)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
    free(order);
    char* p = buf;
    for (size_t i = 0; i < lines; ++i) p = *(char**)p; // warm: one pass
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) p = *(char**)p;
    const double el = now_ns() - t0;
    touch_sink += (uint64_t)(uintptr_t)p;
    printf("chase ns=%.3f bytes=%zu\n", el / (double)n, bytes);
}

static _Alignas(64) atomic_long bounce_line;
static long bounce_n;
static void* bounce_echo(void* arg) {
    (void)arg;
    pin(cpu_b);
    for (long i = 0; i < bounce_n; ++i) {
        while (atomic_load_explicit(&bounce_line, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&bounce_line, 2 * i + 2, memory_order_release);
    }
    return NULL;
}
static void run_c2c(long n) {
    if (cpu_b < 0) {
        fprintf(stderr, "warmsched-microbench: c2c needs two CPUs (A,B)\n");
        exit(2);
    }
    bounce_n = n;
    atomic_store(&bounce_line, 0);
    const pthread_t t = start_partner(bounce_echo);
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) {
        atomic_store_explicit(&bounce_line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&bounce_line, memory_order_acquire) != 2 * i + 2) {
        }
    }
    const double el = now_ns() - t0;
    pthread_join(t, NULL);
    printf("c2c ns=%.2f\n", el / (double)n / 2);
}

struct stream_arg {
    int cpu;
    size_t bytes;
    int passes;
    double ns;
};
static pthread_barrier_t stream_barrier;
static void* stream_thread(void* p) {
    struct stream_arg* a = p;
    pin(a->cpu);
    uint64_t* buf = footprint(a->bytes);
    uint64_t s = 0;
    for (size_t i = 0; i < a->bytes / 8; ++i) s += buf[i]; // warm the TLB and the pages
    pthread_barrier_wait(&stream_barrier);
    const double t0 = now_ns();
    for (int k = 0; k < a->passes; ++k)
        for (size_t i = 0; i < a->bytes / 8; i += 4) s += buf[i] + buf[i + 1] + buf[i + 2] + buf[i + 3];
    a->ns = now_ns() - t0;
    touch_sink += s;
    free(buf);
    return NULL;
}
static void run_bandwidth(size_t bytes, int passes) {
    const int nt = cpu_b >= 0 ? 2 : 1;
    struct stream_arg args[2] = {{cpu_a, bytes, passes, 0}, {cpu_b, bytes, passes, 0}};
    pthread_t t[2];
    pthread_barrier_init(&stream_barrier, NULL, (unsigned)nt);
    for (int i = 0; i < nt; ++i)
        if (pthread_create(&t[i], NULL, stream_thread, &args[i])) fail("pthread_create");
    double slowest = 0;
    for (int i = 0; i < nt; ++i) {
        pthread_join(t[i], NULL);
        if (args[i].ns > slowest) slowest = args[i].ns;
    }
    printf("bandwidth bytes_per_s=%.0f threads=%d\n", (double)nt * (double)bytes * passes / slowest * 1e9, nt);
}

// --- the clock a busy core runs at: a chain of dependent 64-bit multiplies retires one per 3 cycles on
// every x86 core since Nehalem (imul r64,r64 latency 3; Agner Fog's instruction tables). No PMU needed.
static void run_clock(long n) {
    pin(cpu_a);
    uint64_t x = 3;
    const double t0 = now_ns();
    for (long i = 0; i < n; i++) __asm__ volatile("imul %0,%0\n\timul %0,%0\n\timul %0,%0\n\timul %0,%0" : "+r"(x));
    const double el = now_ns() - t0;
    touch_sink += x;
    printf("clock ghz=%.4f\n", 12.0 * (double)n / el);
}

static long positive(const char* s, const char* what) {
    char* end = NULL;
    const long v = strtol(s, &end, 10);
    if (!end || *end || v <= 0) {
        fprintf(stderr, "warmsched-microbench: %s: a positive whole number, not '%s'\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char** argv) {
    self_path = "/proc/self/exe";
    if (argc >= 2 && !strcmp(argv[1], "exit")) { // the image `exec` starts: its start time to fd 3
        const double t = now_ns();
        return write(3, &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: warmsched-microbench KIND CPU[,CPU2] N [ARG]\n");
        return 2;
    }
    static char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) exe[len] = 0, self_path = exe;
    const char* kind = argv[1];
    char* comma = strchr(argv[2], ',');
    if (comma) *comma = 0, cpu_b = (int)strtol(comma + 1, NULL, 10);
    cpu_a = (int)strtol(argv[2], NULL, 10);
    const long n = positive(argv[3], "N");
    const char* arg = argc > 4 ? argv[4] : NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(kind, "syscall")) run_syscall(n);
    else if (!strcmp(kind, "pipe")) {
        int p[2];
        if (pipe(p)) fail("pipe");
        run_batches("pipe", p[1], p[0], n, 4096);
    } else if (!strcmp(kind, "unix")) {
        int s[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, s)) fail("socketpair");
        run_batches("unix", s[0], s[1], n, 64);
    } else if (!strcmp(kind, "yield_threads")) run_yield(1, n);
    else if (!strcmp(kind, "yield_procs")) run_yield(0, n);
    else if (!strcmp(kind, "pipe_rt")) run_pipe_rt(arg ? arg : "procs", n);
    else if (!strcmp(kind, "futex_rt")) run_futex_rt(n);
    else if (!strcmp(kind, "ring")) run_ring(arg ? positive(arg, "tasks") : 2, n);
    else if (!strcmp(kind, "ctx_footprint")) run_ctx_footprint(arg ? (size_t)positive(arg, "bytes") : 0, n);
    else if (!strcmp(kind, "fork")) run_fork(n);
    else if (!strcmp(kind, "clone")) run_clone(n);
    else if (!strcmp(kind, "exec")) run_exec(n);
    else if (!strcmp(kind, "clock")) run_clock(n);
    else if (!strcmp(kind, "chase")) run_chase(arg ? (size_t)positive(arg, "bytes") : 1 << 20, n);
    else if (!strcmp(kind, "c2c")) run_c2c(n);
    else if (!strcmp(kind, "bandwidth")) run_bandwidth(arg ? (size_t)positive(arg, "bytes") : 256u << 20, (int)n);
    else {
        fprintf(stderr, "warmsched-microbench: unknown kind '%s'\n", kind);
        return 2;
    }
    return 0;
}
