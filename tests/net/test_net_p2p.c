/* The point-to-point engine between nodes (SMARTMAP_NODE_SIZE splits one
 * machine into several, under mpirun): every size from 0 B to 4 MiB to a
 * rank on another node and one on this node (UCX's eager and rendezvous),
 * MPI_ANY_SOURCE mixing senders on both paths (each sender's order kept),
 * probe and matched probe, synchronous send, cancel of receives (specific
 * and ANY_SOURCE; of one that completed as it started), the small
 * blocking send's path without a request, a datatype on both sides, truncation, internal negative
 * tags (which ANY_TAG does not take). */
#include <stdio.h>
#include <stdlib.h>

#include "p2ptest.h"

#define MAX (4u << 20)

static void pingpong(int peer, size_t len, char *out, char *in, unsigned seed)
{
    fill(out, len, seed + (unsigned)me);
    memset(in, 0, len);
    struct p2p_req *r = irecv(in, len, peer, 1, NULL), *s = isend(out, len, peer, 1, NULL);
    sm_status_t st = p2p_wait(r);
    CHECK(st == SM_OK && r->st.len == len && r->st.source == peer && r->st.tag == 1,
          "%zu bytes from rank %d: %s, len %zu source %d tag %d", len, peer, sm_status_name(st), r->st.len,
          r->st.source, r->st.tag);
    p2p_req_free(r);
    finish(s, "send");
    verify(in, len, seed + (unsigned)peer, "ping-pong");
}

int main(void)
{
    p2ptest_init();
    CHECK(np >= 2, "needs 2 ranks");
    char *out = malloc(MAX), *in = malloc(MAX);
    CHECK(out && in, "no memory");
    int far = (me + np / 2) % np;            /* another node in 2x2, 4x1, 2x4 */
    if (me == 0) printf("net_p2p: %d ranks, %d on this node, rank %d is %s\n", np, sm_core.nlocal, far,
                        sm_rank_local(far) ? "on this node" : "on another node");

    /* sizes across UCX's eager and rendezvous thresholds, both partners: over TCP a
     * standard send (FAST_CMPL, net_send) goes eagerly below 256 KiB and by
     * rendezvous from it (UCX_RNDV_SEND_NBR_THRESH), so one byte each side */
    static const size_t sizes[] = { 0, 1, 8, 100, 1024, 8192, 8193, 65536, 262143, 262144, 262145, 1u << 20, MAX };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) pingpong(far, sizes[i], out, in, (unsigned)i);
    int near = me ^ 1;
    if (near < np)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i += 3) pingpong(near, sizes[i], out, in, 50u + (unsigned)i);
    sm_barrier();

    /* MPI_ANY_SOURCE at rank 0 from every other rank, on- and off-node:
     * each sender's messages in its order, all of them. */
    enum { K = 20 };
    if (me == 0) {
        int next[SM_NMAX] = { 0 };
        for (int k = 0; k < K * (np - 1); k++) {
            int v[2] = { -1, -1 };
            struct p2p_req *r = irecv(v, sizeof v, P2P_ANY_SOURCE, P2P_ANY_TAG, NULL);
            CHECK(p2p_wait(r) == SM_OK, "ANY_SOURCE receive: %s", sm_fail_reason());
            int s = r->st.source;
            CHECK(s > 0 && s < np && v[0] == s && v[1] == next[s] && r->st.tag == 10 + v[1],
                  "ANY_SOURCE: from %d got (%d, %d) tag %d, expected seq %d", s, v[0], v[1], r->st.tag, s > 0 && s < np ? next[s] : -1);
            next[s]++;
            p2p_req_free(r);
        }
        for (int s = 1; s < np; s++) CHECK(next[s] == K, "%d messages from %d", next[s], s);
    } else {
        struct p2p_req *s[K];
        int v[K][2];
        for (int k = 0; k < K; k++) {
            v[k][0] = me, v[k][1] = k;
            s[k] = isend(v[k], sizeof v[k], 0, 10 + k, NULL);
        }
        for (int k = 0; k < K; k++) finish(s[k], "send to rank 0");
    }
    sm_barrier();

    /* probe (specific and any source), then a matched probe and its receive */
    {
        int v = me * 3, got = -1;
        struct p2p_req *s = isend(&v, sizeof v, far, 30, NULL);
        bool found = false;
        struct p2p_status st;
        struct p2p_msg *m = NULL;
        while (!found) CHECK(p2p_iprobe(far, 30, &W, false, &found, &st, NULL) == SM_OK, "iprobe");
        CHECK(st.source == far && st.tag == 30 && st.len == sizeof v, "probe: source %d tag %d len %zu", st.source,
              st.tag, st.len);
        found = false;
        while (!found) CHECK(p2p_iprobe(P2P_ANY_SOURCE, 30, &W, true, &found, &st, &m) == SM_OK, "mprobe");
        CHECK(st.source == far && p2p_msg_pending(m), "mprobe: source %d", st.source);
        struct p2p_req *r = req_new();
        CHECK(p2p_mrecv(r, &got, sizeof got, m, NULL) == SM_OK, "mrecv");
        CHECK(p2p_wait(r) == SM_OK && got == far * 3 && r->st.source == far, "mrecv: got %d", got);
        p2p_req_free(r);
        finish(s, "send for the probe");
    }
    sm_barrier();

    /* synchronous send: not complete before the receive is posted */
    {
        int v = 5 + me, got = -1;
        struct p2p_req *s = req_new();
        CHECK(p2p_isend(s, &v, sizeof v, far, 40, &W, P2P_SYNC, NULL) == SM_OK, "ssend");
        for (int i = 0; i < 200; i++) CHECK(p2p_test(s) == SM_INPROGRESS, "a synchronous send completed before its receive was posted");
        sm_barrier();
        struct p2p_req *r = irecv(&got, sizeof got, far, 40, NULL);
        finish(r, "receive of a synchronous send");
        CHECK(got == 5 + far, "ssend: got %d", got);
        finish(s, "synchronous send");
    }
    sm_barrier();

    /* cancel: a receive from another node nobody sends to, an ANY_SOURCE one */
    {
        int x = -1;
        struct p2p_req *r = irecv(&x, sizeof x, far, 77, NULL);
        CHECK(p2p_cancel(r) == SM_OK && p2p_done(r) && r->st.cancelled, "cancel a receive from another node: %s",
              sm_fail_reason());
        p2p_req_free(r);
        r = irecv(&x, sizeof x, P2P_ANY_SOURCE, 78, NULL);
        CHECK(p2p_cancel(r) == SM_OK && p2p_done(r) && r->st.cancelled, "cancel an ANY_SOURCE receive: %s",
              sm_fail_reason());
        p2p_req_free(r);
        /* what a cancelled receive would have taken goes to the next one */
        r = irecv(&x, sizeof x, far, 79, NULL);
        CHECK(p2p_cancel(r) == SM_OK, "cancel: %s", sm_fail_reason());
        p2p_req_free(r);
        sm_barrier();                           /* cancelled before anything is sent */
        int v = 100 + me;
        struct p2p_req *s = isend(&v, sizeof v, far, 79, NULL);
        finish(irecv(&x, sizeof x, far, 79, NULL), "receive after a cancel");
        CHECK(x == 100 + far && x != -1, "after a cancel: got %d", x);
        finish(s, "send");
    }
    sm_barrier();

    /* a small blocking send to another node goes without a request
     * (p2p_send_eager), in order behind a request's send to the same rank;
     * a tag UCX cannot carry is left to the request (which says why) */
    {
        int a = 400 + me, b = 500 + me, x = -1, y = -1;
        struct p2p_req *s = isend(&a, sizeof a, far, 82, NULL);
        CHECK(p2p_send_eager(&b, sizeof b, far, 82, &W), "a small send to another node was left to a request");
        CHECK(!p2p_send_eager(&b, sizeof b, far, 1 << 23, &W), "a send with tag 2^23 to another node was sent");
        finish(irecv(&x, sizeof x, far, 82, NULL), "the request's message");
        finish(irecv(&y, sizeof y, far, 82, NULL), "the eager message");
        CHECK(x == 400 + far && y == 500 + far, "to another node, in order: got %d then %d", x, y);
        finish(s, "send");
    }
    sm_barrier();

    /* the cancel of a receive from another node that completed as it
     * started (its message was there) fails, and leaves alone the receive
     * posted after it, to which UCX gives the request the first freed (it
     * was cancelled, and its message never came) */
    {
        int x = -1, y = -1, v = 200 + me, w = 300 + me;
        finish(isend(&v, sizeof v, far, 80, NULL), "send");
        bool found = false;
        struct p2p_status ps;
        while (!found) CHECK(p2p_iprobe(far, 80, &W, false, &found, &ps, NULL) == SM_OK, "probe: %s", sm_fail_reason());
        struct p2p_req *r = irecv(&x, sizeof x, far, 80, NULL), *r2 = irecv(&y, sizeof y, far, 81, NULL);
        CHECK(p2p_cancel(r) == SM_ERR_STATE, "the cancel of a completed receive did not fail");
        CHECK(p2p_wait(r) == SM_OK && !r->st.cancelled && x == 200 + far, "a completed receive cancelled: got %d", x);
        p2p_req_free(r);
        sm_barrier();                           /* r2 posted everywhere before its message is sent */
        struct p2p_req *s = isend(&w, sizeof w, far, 81, NULL);
        CHECK(p2p_wait(r2) == SM_OK && !r2->st.cancelled && y == 300 + far,
              "the receive after a failed cancel: cancelled %d, got %d", r2->st.cancelled, y);
        p2p_req_free(r2);
        finish(s, "send");
    }
    sm_barrier();

    /* a datatype on both sides: every other 24-byte block, into a contiguous
     * receive and back into a strided one */
    {
        struct dt_predef byte;
        dt_predef_init(&byte, 1, 1, 1, 1, 0, 0);
        struct dt_type *v;
        CHECK(dt_hvector(1000, 24, 48, &byte.t, &v) == SM_OK, "dt_hvector");
        size_t n = 1000 * 24;
        fill(out, 48000, 7u + (unsigned)me);
        memset(in, 0, 48000);
        struct p2p_req *r = irecv(in, n, far, 50, v), *s = isend(out, n, far, 50, v);
        finish(r, "typed receive");
        finish(s, "typed send");
        char *ref = malloc(48000);
        fill(ref, 48000, 7u + (unsigned)far);
        for (size_t i = 0; i < 48000; i++)
            CHECK(in[i] == (i % 48 < 24 ? ref[i] : 0), "typed: byte %zu", i);
        free(ref);
        dt_unref(v);
    }
    sm_barrier();

    /* truncation; a negative (internal) tag, which ANY_TAG does not match */
    {
        fill(out, 100, 3);
        struct p2p_req *s = isend(out, 100, far, 60, NULL), *r = irecv(in, 50, far, 60, NULL);
        CHECK(p2p_wait(r) == SM_ERR_TRUNCATE && r->st.len == 50, "truncated receive: %s len %zu",
              sm_status_name(r->st.err), r->st.len);
        p2p_req_free(r);
        finish(s, "truncated send");
        int a = me, b = -1, c = -1;
        struct p2p_req *neg = isend(&a, sizeof a, far, -5, NULL), *pos = isend(&a, sizeof a, far, 61, NULL);
        finish(irecv(&b, sizeof b, far, P2P_ANY_TAG, NULL), "ANY_TAG");
        finish(irecv(&c, sizeof c, far, -5, NULL), "negative tag");
        CHECK(b == far && c == far, "tags: %d %d", b, c);
        finish(neg, "send"), finish(pos, "send");
    }

    struct p2p_stats s;
    p2p_stats(&s);
    CHECK(sm_rank_local(far) || (s.net_sent > MAX && s.net_received > MAX), "bytes between nodes: sent %llu received %llu",
          (unsigned long long)s.net_sent, (unsigned long long)s.net_received);
    free(out), free(in);
    p2ptest_end("net_p2p");
    return 0;
}
