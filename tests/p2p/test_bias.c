/* With threads (p2p_threads), the send and receive sides' locks are biased
 * to one thread, which takes them with no atomic read-modify-write (p2p.c
 * "Threads"). (1) The thread that turned threads on sends and receives
 * alone: no lock is taken through the spin lock, and none is revoked;
 * its blocking receives that find the ring empty watch the sender's next
 * record as a single-threaded program's do (p2p.c may_watch), unless ranks
 * outnumber cores, and get the right messages.
 * (2) 4 threads per rank at once, each its own tag to the next rank:
 * windows of sends and receives, blocking sends and receives on the small
 * paths, matched probes, MPI_ANY_SOURCE receives, receives and sends
 * cancelled; every message checked for its data and its order per (source,
 * tag), sizes from 8 bytes to above the eager limit. The other threads
 * revoke the main thread's bias. (3) The main thread alone again: once it
 * has taken the locks many times in a row, the bias is its own again (no
 * more spin locks). (4) Threads that take and give back more requests
 * than their caches hold, end, and are followed by others (which may get
 * the same thread-local memory): every request is counted back (a cache
 * left on the engine's list when its thread ended would be counted twice,
 * or loop the list). */
#include <pthread.h>
#include <stdlib.h>

#include "p2ptest.h"

#define T     4
#define ITER  600
#define WIN   16
#define BIG   (64u << 10)       /* above the eager limit */
#define CANCEL_TAG 100          /* + t: receives cancelled, sends perhaps */

static int to, from;
static int cancelled_sends[T];  /* sends of tag CANCEL_TAG + 100 + t withdrawn */

static size_t size_of(int i) { return i % 16 == 15 ? BIG : 8 + (size_t)(i % 7) * 40; }
static unsigned seed_of(int rank, int t, int i) { return (unsigned)(rank * 100000 + t * 10000 + i); }

/* Message i of thread t: its index in its first bytes, then the pattern. */
static void make(char *b, int t, int i)
{
    size_t n = size_of(i);
    fill(b, n, seed_of(me, t, i));
    memcpy(b, &i, sizeof i);
}
static void check_msg(const char *b, size_t got, int t, int i, const char *how)
{
    int idx;
    memcpy(&idx, b, sizeof idx);
    CHECK(idx == i, "thread %d (%s): message %d arrived where %d was expected (order per source and tag)", t, how,
          idx, i);
    CHECK(got == size_of(i), "thread %d (%s): message %d has %zu bytes, not %zu", t, how, i, got, size_of(i));
}
/* verify() without the index's bytes. */
static void check_data(const char *b, int t, int i, const char *how)
{
    size_t n = size_of(i);
    for (size_t k = sizeof(int); k < n; k++)
        CHECK((unsigned char)b[k] == pattern(seed_of(from, t, i), k), "thread %d (%s): message %d byte %zu", t, how,
              i, k);
}

/* A send of message i: the small blocking path, or a request (NULL: sent)
 * waited for after the receive (a large message waits for its receiver). */
static struct p2p_req *send_one(char *b, int t, int i)
{
    make(b, t, i);
    if (size_of(i) <= p2p_eager_max() && p2p_send_eager(b, size_of(i), to, t, &W)) return NULL;
    return isend(b, size_of(i), to, t, NULL);
}

static void recv_one(char *b, int t, int i, int how)
{
    struct p2p_status st;
    const char *name = "";
    if (how == 1) {         /* the small blocking receive, else a request */
        name = "blocking";
        if (p2p_recv_eager(b, BIG, from, t, &W, &st)) {
            st.err = SM_OK;     /* (its status has source, tag and length: it takes only what fits) */
        } else {
            struct p2p_req *r = irecv(b, BIG, from, t, NULL);
            CHECK(p2p_wait(r) == SM_OK, "thread %d: receive %d: %s", t, i, sm_fail_reason());
            st = r->st;
            p2p_req_free(r);
        }
    } else if (how == 2) {  /* a matched probe, then its receive */
        name = "matched probe";
        struct p2p_msg *m = NULL;
        bool found = false;
        while (!found) {
            CHECK(p2p_iprobe(from, t, &W, true, &found, &st, &m) == SM_OK, "thread %d: probe: %s", t,
                  sm_fail_reason());
            if (!found) sched_yield();
        }
        CHECK(st.len == size_of(i) && st.tag == t, "thread %d: probe of message %d: %zu bytes, tag %d", t, i, st.len,
              st.tag);
        struct p2p_req *r = req_new();
        CHECK(p2p_mrecv(r, b, BIG, m, NULL) == SM_OK && p2p_wait(r) == SM_OK, "thread %d: mrecv %d: %s", t, i,
              sm_fail_reason());
        st = r->st;
        p2p_req_free(r);
    } else {                /* MPI_ANY_SOURCE, with a receive cancelled before it */
        name = "any source";
        char x;
        struct p2p_req *c = irecv(&x, 1, from, CANCEL_TAG + t, NULL);
        CHECK(p2p_cancel(c) == SM_OK && c->st.cancelled, "thread %d: cancelling a receive nothing matches", t);
        p2p_req_free(c);
        struct p2p_req *r = irecv(b, BIG, P2P_ANY_SOURCE, t, NULL);
        CHECK(p2p_wait(r) == SM_OK, "thread %d: receive %d: %s", t, i, sm_fail_reason());
        st = r->st;
        p2p_req_free(r);
        CHECK(st.source == from, "thread %d: message %d from %d, not %d", t, i, st.source, from);
    }
    CHECK(st.err == SM_OK && st.tag == t, "thread %d: receive %d: error %d, tag %d", t, i, st.err, st.tag);
    check_msg(b, st.len, t, i, name);
    check_data(b, t, i, name);
}

/* Thread t: ITER messages of tag t to the next rank, ITER from the previous. */
static void *work(void *arg)
{
    int t = (int)(intptr_t)arg;
    char *out = malloc((size_t)BIG * WIN), *in = malloc((size_t)BIG * WIN);
    CHECK(out && in, "no memory");
    for (int i = 0; i < ITER;) {
        if (t == 0) {       /* windows of nonblocking receives and sends */
            struct p2p_req *r[2 * WIN];
            int k = ITER - i < WIN ? ITER - i : WIN;
            for (int w = 0; w < k; w++) r[w] = irecv(in + (size_t)w * BIG, BIG, from, t, NULL);
            for (int w = 0; w < k; w++) {
                make(out + (size_t)w * BIG, t, i + w);
                r[WIN + w] = isend(out + (size_t)w * BIG, size_of(i + w), to, t, NULL);
            }
            for (int w = 0; w < k; w++) finish(r[WIN + w], "a window's send");
            for (int w = 0; w < k; w++) {
                CHECK(p2p_wait(r[w]) == SM_OK, "thread 0: receive %d: %s", i + w, sm_fail_reason());
                check_msg(in + (size_t)w * BIG, r[w]->st.len, t, i + w, "window");
                check_data(in + (size_t)w * BIG, t, i + w, "window");
                p2p_req_free(r[w]);
            }
            i += k;
            continue;
        }
        struct p2p_req *s = send_one(out, t, i);
        if (t == 3 && i % 32 == 0) {   /* a send to cancel: withdrawn, or received after the threads */
            struct p2p_req *c = isend(&i, sizeof i, to, CANCEL_TAG + 100 + t, NULL);
            if (p2p_cancel(c) == SM_OK) cancelled_sends[t]++;
            CHECK(p2p_wait(c) == SM_OK, "thread %d: a cancelled send: %s", t, sm_fail_reason());
            p2p_req_free(c);
        }
        recv_one(in, t, i, t);
        if (s) finish(s, "a send");
        i++;
    }
    free(out), free(in);
    return NULL;
}

/* Requests taken and given back in this thread, more than a cache holds,
 * and 100 left for the main thread to give back after this one ends. */
static struct p2p_req *left[T][100];
static void *churn(void *arg)
{
    struct p2p_req *q[600];
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < 600; k++) CHECK((q[k] = req_new()) != NULL, "a request");
        for (int k = 0; k < 600; k++) p2p_req_free(q[k]);
    }
    for (int k = 0; k < 100; k++) CHECK((left[(intptr_t)arg][k] = req_new()) != NULL, "a request");
    return NULL;
}

/* The main thread alone: n rounds of a small nonblocking send and receive
 * around the ring, and a blocking pair every 8th. */
static void solo(int n, int tag)
{
    for (int i = 0; i < n; i++) {
        long a = (long)me * 1000000 + i, b = -1;
        struct p2p_req *r = irecv(&b, sizeof b, from, tag, NULL);
        struct p2p_req *s = req_new();
        if (!p2p_isend_eager(s, &a, sizeof a, to, tag, &W))
            CHECK(p2p_isend(s, &a, sizeof a, to, tag, &W, P2P_STANDARD, NULL) == SM_OK, "p2p_isend: %s",
                  sm_fail_reason());
        finish(s, "a solo send");
        finish(r, "a solo receive");
        CHECK(b == (long)from * 1000000 + i, "solo %d: got %ld", i, b);
        if (i % 8 == 7) {
            struct p2p_status st;
            CHECK(p2p_send_eager(&a, sizeof a, to, tag + 1, &W), "a small blocking send");
            if (!p2p_recv_eager(&b, sizeof b, from, tag + 1, &W, &st)) finish(r = irecv(&b, sizeof b, from, tag + 1, NULL),
                                                                             "a solo blocking receive");
            CHECK(b == (long)from * 1000000 + i, "solo blocking %d: got %ld", i, b);
        }
    }
}

/* n round trips of small blocking messages between pairs (me ^ 1), each
 * receive before its message most of the time: how many of this rank's
 * receives watched the ring (p2p_stats.watched). */
static uint64_t pingpong(int n, int tag)
{
    int peer = me ^ 1;
    struct p2p_stats a, b;
    p2p_stats(&a);
    for (int i = 0; i < n && peer < np; i++)
        for (int k = 0; k < 2; k++) {
            long v = (long)i * 2 + k, got = -1;
            if ((me & 1) == k) {
                CHECK(p2p_send_eager(&v, sizeof v, peer, tag, &W), "a ping-pong's send");
                continue;
            }
            struct p2p_status st;
            if (!p2p_recv_eager(&got, sizeof got, peer, tag, &W, &st))
                finish(irecv(&got, sizeof got, peer, tag, NULL), "a ping-pong's receive");
            CHECK(got == v, "ping-pong %d: got %ld, not %ld", i, got, v);
        }
    p2p_stats(&b);
    return b.watched - a.watched;
}

int main(void)
{
    p2ptest_init();
    /* Single-threaded, then with threads: watched the same way (a round
     * trip's first look at the ring comes right after the send: in 200,
     * some find the reply not there yet). */
    uint64_t w_st = pingpong(200, 40);
    CHECK(p2p_threads() == SM_OK, "p2p_threads: %s", sm_fail_reason());
    uint64_t w_mt = pingpong(200, 41);
    CHECK(sm_core.oversubscribed ? w_st == 0 && w_mt == 0 : w_st > 0 && w_mt > 0,
          "blocking receives that watched the ring: %llu single-threaded, %llu with threads (ranks %s cores)",
          (unsigned long long)w_st, (unsigned long long)w_mt, sm_core.oversubscribed ? "outnumber" : "within");
    to = (me + 1) % np, from = (me + np - 1) % np;
    struct p2p_stats s0, s1, s2, s3;

    solo(2000, 50);
    p2p_stats(&s0);
    CHECK(s0.locked == 0 && s0.revoked == 0, "one thread, threads on: %llu locks through the spin lock, %llu revoked",
          (unsigned long long)s0.locked, (unsigned long long)s0.revoked);
    sm_barrier();

    pthread_t th[T];
    for (int t = 0; t < T; t++) CHECK(!pthread_create(&th[t], NULL, work, (void *)(intptr_t)t), "pthread_create");
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    p2p_stats(&s1);
    CHECK(s1.locked > 0 && s1.revoked > 0, "four threads: %llu locks through the spin lock, %llu revoked",
          (unsigned long long)s1.locked, (unsigned long long)s1.revoked);
    CHECK(s1.requests == s0.requests, "four threads ended: %llu requests in use, %llu before",
          (unsigned long long)s1.requests, (unsigned long long)s0.requests);
    for (int gen = 0; gen < 4; gen++) {
        for (int t = 0; t < T; t++) CHECK(!pthread_create(&th[t], NULL, churn, (void *)(intptr_t)t), "pthread_create");
        for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
        for (int t = 0; t < T; t++)
            for (int k = 0; k < 100; k++) p2p_req_free(left[t][k]);
        struct p2p_stats sc;
        p2p_stats(&sc);
        CHECK(sc.requests == s0.requests, "generation %d of threads ended: %llu requests in use, %llu before", gen,
              (unsigned long long)sc.requests, (unsigned long long)s0.requests);
    }
    sm_barrier();               /* every send cancelled or not by now: the rest are received here */
    int got = 0;
    for (;;) {
        bool found;
        struct p2p_status st;
        int x;
        CHECK(p2p_iprobe(from, CANCEL_TAG + 100 + 3, &W, false, &found, &st, NULL) == SM_OK, "probe");
        if (!found) break;
        finish(irecv(&x, sizeof x, from, CANCEL_TAG + 100 + 3, NULL), "a send not cancelled");
        CHECK(x % 32 == 0 && x < ITER, "a send not cancelled: %d", x);
        got++;
    }
    int expect = 0;             /* the previous rank's sends that were not withdrawn */
    int mine = (ITER + 31) / 32 - cancelled_sends[3];
    struct p2p_req *r = irecv(&expect, sizeof expect, from, 60, NULL);
    finish(isend(&mine, sizeof mine, to, 60, NULL), "a count");
    finish(r, "a count");
    CHECK(got == expect, "%d sends not cancelled arrived, %d were sent", got, expect);

    solo(6000, 70);             /* more than BIAS_RUN takes of each lock in a row */
    p2p_stats(&s2);
    solo(2000, 80);
    p2p_stats(&s3);
    CHECK(s3.locked == s2.locked && s3.revoked == s2.revoked,
          "one thread again: %llu more locks through the spin lock after %llu (the bias did not come back)",
          (unsigned long long)(s3.locked - s2.locked), (unsigned long long)s2.locked);
    p2ptest_end("p2p_bias");
    return 0;
}
