/* The small blocking receive's path (p2p_recv_eager): it takes a message
 * straight from the sender's ring (counted in fast_recvs) only when that
 * message is the one the receive must get: nothing posted ahead of it,
 * nothing kept aside that matches, an eager, standard record that fits.
 * Otherwise it does nothing (the count unchanged, the ring untouched) and
 * the general path gets the same message it would have without it: posted
 * receives (MPI_ANY_SOURCE among them) keep their order, a probe's kept
 * messages come first, a cancelled send is skipped, a truncation, a large
 * or a synchronous message is the request's. MPI_ANY_SOURCE takes every
 * sender's message once; a ping-pong with the receive before the message. */
#include <sched.h>
#include <stdlib.h>

#include "p2ptest.h"

static uint64_t fast(void)
{
    struct p2p_stats s;
    p2p_stats(&s);
    return s.fast_recvs;
}

/* p2p_recv_eager must take (want) or leave the message; with got, its seed. */
static void eager(void *buf, size_t len, int src, int tag, bool want, size_t glen, int gsrc, int seed,
                  const char *what)
{
    uint64_t f0 = fast();
    struct p2p_status st = { -5, -5, false, 99, SM_OK };
    bool took = p2p_recv_eager(buf, len, src, tag, &W, &st);
    CHECK(took == want, "%s: the fast path %s", what, took ? "took the message" : "left it");
    CHECK(fast() == f0 + want, "%s: fast_recvs went up by %llu, not %d", what, (unsigned long long)(fast() - f0),
          want);
    if (!want) return;
    CHECK(st.len == glen && st.source == gsrc && (tag == P2P_ANY_TAG || st.tag == tag),
          "%s: %zu bytes from %d tag %d, not %zu from %d", what, st.len, st.source, st.tag, glen, gsrc);
    verify(buf, glen, (unsigned)seed, what);
}

/* The general path's receive, which must get len bytes of seed with tag. */
static void general(void *buf, size_t cap, int src, int tag, size_t len, int seed, const char *what)
{
    struct p2p_req *r = irecv(buf, cap, src, tag, NULL);
    CHECK(p2p_wait(r) == SM_OK && r->st.len == len && r->st.tag == tag, "%s: %s, %zu bytes tag %d", what,
          sm_fail_reason(), r->st.len, r->st.tag);
    verify(buf, len, (unsigned)seed, what);
    p2p_req_free(r);
}

static void send_seed(char *b, size_t len, int to, int tag, int seed, enum p2p_mode mode)
{
    fill(b, len, (unsigned)seed);
    struct p2p_req *r = req_new();
    CHECK(p2p_isend(r, b, len, to, tag, &W, mode, NULL) == SM_OK, "isend tag %d", tag);
    if (mode == P2P_STANDARD && len <= p2p_eager_max()) finish(r, "eager send");
    else p2p_req_free(r);       /* (completes when received: the engine frees it) */
}

int main(void)
{
    p2ptest_init();
    size_t emax = p2p_eager_max(), big = emax + 1000;
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb = malloc(big), *rb = malloc(big), sb2[8];
    CHECK(sb && rb, "malloc");

    /* In the ring: taken, data and status right, sizes 0 to the largest eager. */
    size_t sizes[] = { 0, 1, 8, 9, 24, 100, emax };
    for (int k = 0; k < 7; k++) {
        send_seed(sb, sizes[k], to, 1, me * 10 + k, P2P_STANDARD);
        sm_barrier();
        eager(rb, emax, from, 1, true, sizes[k], from, from * 10 + k, "a message in the ring");
    }

    /* A receive posted ahead (MPI_ANY_SOURCE): the fast path leaves both
     * messages; the posted receive gets the first, the next receive the second. */
    struct p2p_req *any = irecv(rb, 8, P2P_ANY_SOURCE, 2, NULL);
    sm_barrier();
    send_seed(sb, 8, to, 2, me + 100, P2P_STANDARD);
    send_seed(sb, 8, to, 2, me + 200, P2P_STANDARD);
    sm_barrier();
    char got[8];
    eager(got, 8, from, 2, false, 0, 0, 0, "behind a posted receive");
    CHECK(p2p_wait(any) == SM_OK && any->st.source == from, "the posted receive: %s, from %d", sm_fail_reason(),
          any->st.source);
    p2p_req_free(any);
    verify(rb, 8, (unsigned)from + 100, "the posted receive (the first message)");
    eager(got, 8, from, 2, true, 8, from, from + 200, "after the posted receive (the second message)");

    /* A record for another tag at the head: left, and the fast path takes
     * nothing from behind it; the general path keeps it aside. */
    send_seed(sb, 8, to, 3, me + 300, P2P_STANDARD);
    send_seed(sb, 8, to, 4, me + 400, P2P_STANDARD);
    sm_barrier();
    eager(rb, 8, from, 4, false, 0, 0, 0, "another tag at the head");
    general(rb, 8, from, 4, 8, from + 400, "the second tag");
    /* Tag 3 now waits aside: a later message for tag 3 is not taken before it. */
    send_seed(sb, 8, to, 3, me + 310, P2P_STANDARD);
    sm_barrier();
    eager(rb, 8, from, 3, false, 0, 0, 0, "a matching message kept aside");
    general(rb, 8, from, 3, 8, from + 300, "the message kept aside");
    eager(rb, 8, from, 3, true, 8, from, from + 310, "the next one, in the ring");

    /* A probe keeps a message aside; one for another tag behind it is still taken from the ring. */
    send_seed(sb, 8, to, 5, me + 500, P2P_STANDARD);
    sm_barrier();
    bool found = false;
    struct p2p_status pst;
    CHECK(p2p_iprobe(from, 5, &W, false, &found, &pst, NULL) == SM_OK && found, "the probe found nothing");
    sm_barrier();               /* (a probe drains every ring: tag 6 must come after it) */
    send_seed(sb, 8, to, 6, me + 600, P2P_STANDARD);
    sm_barrier();
    eager(rb, 8, from, 6, true, 8, from, from + 600, "behind a message kept aside for another tag");
    eager(rb, 8, from, 5, false, 0, 0, 0, "the probed message");
    general(rb, 8, from, 5, 8, from + 500, "the probed message");

    /* Truncation, large and synchronous messages: the request's. */
    send_seed(sb, 16, to, 7, me + 700, P2P_STANDARD);
    sm_barrier();
    eager(rb, 8, from, 7, false, 0, 0, 0, "a message longer than the buffer");
    struct p2p_req *r = irecv(rb, 8, from, 7, NULL);
    CHECK(p2p_wait(r) == SM_ERR_TRUNCATE, "the long message was not a truncation");
    p2p_req_free(r);
    send_seed(sb, big, to, 8, me + 800, P2P_STANDARD);
    send_seed(sb2, 8, to, 9, me + 900, P2P_SYNC);
    sm_barrier();
    eager(rb, big, from, 8, false, 0, 0, 0, "a large message");
    general(rb, big, from, 8, big, from + 800, "the large message");
    eager(rb, 8, from, 9, false, 0, 0, 0, "a synchronous message");
    general(rb, 8, from, 9, 8, from + 900, "the synchronous message");
    sm_barrier();               /* (the senders' buffers are free again) */

    /* A cancelled send is skipped: the next message is taken. */
    struct p2p_req *c = req_new();
    fill(sb, 8, (unsigned)me + 1000);
    CHECK(p2p_isend(c, sb, 8, to, 10, &W, P2P_STANDARD, NULL) == SM_OK, "isend to cancel");
    CHECK(p2p_cancel(c) == SM_OK && c->st.cancelled, "the send could not be cancelled");
    p2p_req_free(c);
    send_seed(sb + 64, 8, to, 10, me + 1100, P2P_STANDARD);
    sm_barrier();
    eager(rb, 8, from, 10, true, 8, from, from + 1100, "behind a cancelled send");

    /* MPI_ANY_SOURCE: every other rank's message, each once. */
    for (int p = 0; p < np; p++)
        if (p != me) send_seed(sb + 64 * p, 8, p, 11, me * 100 + 11, P2P_STANDARD);
    sm_barrier();
    uint64_t seen = 0;
    for (int k = 0; k < np - 1; k++) {
        struct p2p_status st;
        uint64_t f0 = fast();
        CHECK(p2p_recv_eager(rb, 8, P2P_ANY_SOURCE, P2P_ANY_TAG, &W, &st) && fast() == f0 + 1,
              "MPI_ANY_SOURCE: message %d of %d was not taken", k, np - 1);
        CHECK(st.source >= 0 && st.source < np && st.source != me && !(seen >> st.source & 1) && st.tag == 11 &&
              st.len == 8, "MPI_ANY_SOURCE: %zu bytes from %d tag %d", st.len, st.source, st.tag);
        seen |= 1ull << st.source;
        verify(rb, 8, (unsigned)st.source * 100 + 11, "MPI_ANY_SOURCE");
    }
    struct p2p_status none;
    CHECK(!p2p_recv_eager(rb, 8, P2P_ANY_SOURCE, 11, &W, &none), "MPI_ANY_SOURCE took a message nobody sent");

    /* A ping-pong between pairs, the receive before its message: the fast
     * path or the request, always the right message. */
    int peer = me ^ 1;
    if (peer < np)
        for (int i = 0; i < 2000; i++) {
            if ((me & 1) == i % 2) send_seed(sb, (size_t)i % 17, peer, 12, i, P2P_STANDARD);
            else {
                struct p2p_status st;
                if (p2p_recv_eager(rb, 64, peer, 12, &W, &st))
                    CHECK(st.len == (size_t)i % 17 && st.source == peer, "ping-pong %d: %zu bytes", i, st.len);
                else general(rb, 64, peer, 12, (size_t)i % 17, i, "ping-pong");
                verify(rb, (size_t)i % 17, (unsigned)i, "ping-pong");
            }
        }

    free(sb), free(rb);
    p2ptest_end("test_fastrecv");
    return 0;
}
