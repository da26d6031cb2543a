// loopback_rr: netperf's TCP_RR and UDP_RR over 127.0.0.1, as a host measurement for calibrating the
// model's loopback stack (docs/workloads.md, "The loopback stack"), and the same loop over two pipes
// (`pipe`: perf bench sched pipe's ping-pong, REQ and RESP bytes instead of an int), the part of a
// transaction that is not the network stack. netperf is not packaged for Debian, so this is its
// request/response loop and nothing else: a client and a forked server, TCP_NODELAY on
// both ends for TCP (netperf sets it for TCP_RR), REQ bytes one way and RESP bytes back per
// transaction, for SECONDS. Pin it with taskset: `taskset -c 0 loopback_rr tcp 5 1 1` puts both ends
// on one CPU, which is netperf -T 0,0: no IPI and no idle exit, only the stack, the copies and two
// context switches per transaction. Prints "<transactions/s> trans/s".
// Left out: netperf's banner, its confidence intervals and its -l timer signal (the loop reads the clock
// every 256 transactions instead).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int full(int fd, char *buf, size_t n, int writing) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = writing ? write(fd, buf + done, n - done) : read(fd, buf + done, n - done);
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

static void nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// UDP_RR: one datagram of REQ bytes to the server, one of RESP bytes back (the server answers the
// address each request came from, as netserver does).
static int udp_rr(double seconds, size_t req, size_t resp, char *buf) {
    int ss = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (ss < 0 || bind(ss, (struct sockaddr *)&a, sizeof a) || getsockname(ss, (struct sockaddr *)&a, &alen)) {
        perror("loopback_rr: bind");
        return 1;
    }
    pid_t server = fork();
    if (server == 0) {
        struct sockaddr_in from;
        for (;;) {
            socklen_t flen = sizeof from;
            ssize_t r = recvfrom(ss, buf, req, 0, (struct sockaddr *)&from, &flen);
            if (r <= 0) _exit(0);
            if (sendto(ss, buf, resp, 0, (struct sockaddr *)&from, flen) < 0) _exit(1);
        }
    }
    int c = socket(AF_INET, SOCK_DGRAM, 0);
    if (connect(c, (struct sockaddr *)&a, sizeof a)) {
        perror("loopback_rr: connect");
        kill(server, SIGKILL);
        return 1;
    }
    unsigned long n = 0;
    const double start = now();
    double t = start;
    while (t - start < seconds) {
        for (int i = 0; i < 256; ++i)
            if (write(c, buf, req) != (ssize_t)req || read(c, buf, resp) != (ssize_t)resp) {
                fprintf(stderr, "loopback_rr: a datagram went missing\n");
                kill(server, SIGKILL);
                return 1;
            }
        n += 256;
        t = now();
    }
    kill(server, SIGKILL); // a UDP server sees no end of file
    waitpid(server, NULL, 0);
    printf("%.0f trans/s\n", n / (t - start));
    return 0;
}

// The request/response loop over a pipe each way, or (unix) over an AF_UNIX stream socketpair each
// way, as hackbench's sockets mode writes them: the same loop, so the difference is the socket's own
// path (the sk_buff's allocation and free, the send buffer's accounting, the socket's locks).
static int pipe_rr(double seconds, size_t req, size_t resp, char *buf, int unix_sockets) {
    int up[2], down[2];
    if (unix_sockets ? socketpair(AF_UNIX, SOCK_STREAM, 0, up) || socketpair(AF_UNIX, SOCK_STREAM, 0, down)
                     : pipe(up) || pipe(down)) {
        perror(unix_sockets ? "loopback_rr: socketpair" : "loopback_rr: pipe");
        return 1;
    }
    pid_t server = fork();
    if (server == 0) {
        close(up[1]);
        close(down[0]);
        while (full(up[0], buf, req, 0) == 0 && full(down[1], buf, resp, 1) == 0) {}
        _exit(0);
    }
    close(up[0]);
    close(down[1]);
    unsigned long n = 0;
    const double start = now();
    double t = start;
    while (t - start < seconds) {
        for (int i = 0; i < 256; ++i)
            if (full(up[1], buf, req, 1) || full(down[0], buf, resp, 0)) {
                fprintf(stderr, "loopback_rr: the server went away\n");
                return 1;
            }
        n += 256;
        t = now();
    }
    close(up[1]);
    waitpid(server, NULL, 0);
    printf("%.0f trans/s\n", n / (t - start));
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp") && strcmp(argv[1], "pipe") &&
                      strcmp(argv[1], "unix"))) {
        fprintf(stderr, "usage: loopback_rr tcp|udp|pipe|unix SECONDS REQ_BYTES RESP_BYTES\n");
        return 2;
    }
    const int udp = strcmp(argv[1], "udp") == 0;
    const double seconds = atof(argv[2]);
    const size_t req = (size_t)atol(argv[3]), resp = (size_t)atol(argv[4]);
    const size_t limit = udp ? 65507 : (1 << 20);
    if (seconds <= 0 || req == 0 || resp == 0 || req > limit || resp > limit) {
        fprintf(stderr, "loopback_rr: SECONDS > 0, 1 <= bytes <= %zu\n", limit);
        return 2;
    }
    char *buf = calloc(1, req > resp ? req : resp);
    if (udp) return udp_rr(seconds, req, resp, buf);
    if (strcmp(argv[1], "pipe") == 0 || strcmp(argv[1], "unix") == 0)
        return pipe_rr(seconds, req, resp, buf, strcmp(argv[1], "unix") == 0);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) ||
        getsockname(ls, (struct sockaddr *)&a, &alen)) {
        perror("loopback_rr: listen");
        return 1;
    }
    pid_t server = fork();
    if (server == 0) { // netserver: echo RESP bytes per REQ bytes until the client closes
        int s = accept(ls, NULL, NULL);
        nodelay(s);
        while (full(s, buf, req, 0) == 0 && full(s, buf, resp, 1) == 0) {}
        _exit(0);
    }
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(c, (struct sockaddr *)&a, sizeof a)) {
        perror("loopback_rr: connect");
        kill(server, SIGKILL);
        return 1;
    }
    nodelay(c);
    unsigned long n = 0;
    const double start = now();
    double t = start;
    while (t - start < seconds) {
        for (int i = 0; i < 256; ++i)
            if (full(c, buf, req, 1) || full(c, buf, resp, 0)) {
                fprintf(stderr, "loopback_rr: the server went away\n");
                return 1;
            }
        n += 256;
        t = now();
    }
    close(c);
    waitpid(server, NULL, 0);
    printf("%.0f trans/s\n", n / (t - start));
    return 0;
}
