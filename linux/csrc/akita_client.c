/* akita_client: the request process of a request-serving VM, sent to a real memcached
 * over loopback (akita.linux.workloads).
 *
 * ARRIVALS is a binary file of little-endian int64 arrival instants (ns from T0,
 * CLOCK_MONOTONIC), the simulator's own Poisson stream for the VM
 * (akita.reference.workloads.arrivals, same seed).  An open loop: request i is sent at
 * T0 + arrival[i] whatever the replies, on connection i mod CONNS (TCP_NODELAY; a
 * connection with a request outstanding pipelines the next, memcached answers each
 * connection in order).  Each request is "get KEY\r\n" for a key stored before T0; a
 * reply ends with "END\r\n".  Between sends the client polls (epoll_wait with timeout 0)
 * and reads replies, so no timer wake-up delays a send.  It stops sending at END and
 * waits at most GRACE_NS more for the replies.
 *
 * OUT receives, per request, three little-endian int64: the round trip counted from the
 * request's scheduled arrival (reply received - T0 - arrival[i], the simulator's
 * "completion minus arrival"; -1 if no reply came), the send's lateness (sent - scheduled)
 * and the round trip counted from the actual send.
 *
 * T0 and END (CLOCK_MONOTONIC, ns) are read from stdin ("T0 END") once the connections
 * are made, as the controller writes them when every task has started.
 *
 * usage: akita_client PORT ARRIVALS OUT CONNS KEY GRACE_NS   (stdin: T0_NS END_NS)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int64_t now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct {
    int fd;
    int64_t *queue; /* outstanding request indices, FIFO */
    size_t head, tail, cap;
    char buf[65536];
    size_t len;
} conn_t;

static int64_t *scheduled, *sent, *received;
static long outstanding;

static void push(conn_t *c, int64_t i) {
    if (c->tail - c->head == c->cap) {
        size_t cap = c->cap * 2;
        int64_t *q = malloc(cap * sizeof *q);
        for (size_t k = 0; k < c->cap; k++) q[k] = c->queue[(c->head + k) % c->cap];
        free(c->queue);
        c->queue = q;
        c->tail = c->cap;
        c->head = 0;
        c->cap = cap;
    }
    c->queue[c->tail++ % c->cap] = i;
}

static void drain(conn_t *c) {
    for (;;) {
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n <= 0) return;
        int64_t t = now();
        c->len += (size_t)n;
        char *p = c->buf, *end = c->buf + c->len, *hit;
        while ((hit = memmem(p, (size_t)(end - p), "END\r\n", 5)) != NULL) {
            if (c->head < c->tail) {
                received[c->queue[c->head++ % c->cap]] = t;
                outstanding--;
            }
            p = hit + 5;
        }
        size_t keep = (size_t)(end - p);
        if (keep > 4 && p == c->buf && c->len == sizeof c->buf) keep = 4; /* no END in a full buffer */
        memmove(c->buf, end - keep, keep);
        c->len = keep;
    }
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: akita_client PORT ARRIVALS OUT CONNS KEY GRACE_NS (stdin: T0 END)\n");
        return 2;
    }
    int port = atoi(argv[1]), conns = atoi(argv[4]);
    int64_t grace = atoll(argv[6]);
    const char *key = argv[5];
    FILE *in = fopen(argv[2], "rb");
    if (!in || conns < 1) {
        perror("akita_client: arrivals");
        return 2;
    }
    struct stat st;
    fstat(fileno(in), &st);
    long n = (long)(st.st_size / 8);
    scheduled = malloc((size_t)(n + 1) * 8);
    sent = calloc((size_t)(n + 1), 8);
    received = malloc((size_t)(n + 1) * 8);
    if (fread(scheduled, 8, (size_t)n, in) != (size_t)n) {
        perror("akita_client: read");
        return 2;
    }
    for (long i = 0; i < n; i++) received[i] = -1;
    char request[300];
    int reqlen = snprintf(request, sizeof request, "get %s\r\n", key);
    int ep = epoll_create1(0);
    conn_t *cs = calloc((size_t)conns, sizeof *cs);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int k = 0; k < conns; k++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
            perror("akita_client: connect");
            return 2;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        cs[k].fd = fd;
        cs[k].cap = 64;
        cs[k].queue = malloc(64 * sizeof(int64_t));
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    long long t0_, end_;
    if (scanf("%lld %lld", &t0_, &end_) != 2) {
        fprintf(stderr, "akita_client: no T0 END on stdin\n");
        return 2;
    }
    int64_t t0 = t0_, end = end_;
    struct epoll_event evs[64];
    long next = 0;
    for (;;) {
        int64_t t = now();
        while (next < n && t0 + scheduled[next] <= t && t0 + scheduled[next] < end) {
            conn_t *c = &cs[next % conns];
            if (write(c->fd, request, (size_t)reqlen) != reqlen) {
                perror("akita_client: write");
                return 1;
            }
            sent[next] = now();
            push(c, next);
            outstanding++;
            next++;
            t = now();
        }
        int done_sending = next >= n || t0 + scheduled[next] >= end;
        if (done_sending && (outstanding == 0 || t >= end + grace)) break;
        int k = epoll_wait(ep, evs, 64, 0);
        for (int j = 0; j < k; j++) {
            conn_t *c = &cs[evs[j].data.u32];
            drain(c);
        }
    }
    FILE *out = fopen(argv[3], "wb");
    if (!out) {
        perror("akita_client: out");
        return 2;
    }
    for (long i = 0; i < next; i++) {
        int64_t row[3] = {-1, sent[i] - (t0 + scheduled[i]), -1};
        if (received[i] >= 0) {
            row[0] = received[i] - (t0 + scheduled[i]);
            row[2] = received[i] - sent[i];
        }
        fwrite(row, 8, 3, out);
    }
    fclose(out);
    return 0;
}
