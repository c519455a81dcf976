/* Ring wrap-around: bursts of messages of every size up to the eager limit
 * (0 and the largest included, and many of a few bytes: records are packed
 * in 32-byte units) around the ring of ranks, until every ring has gone
 * round four times, so that records start everywhere in it and those near
 * its end run on into the slack. Every fourth message is synchronous (its
 * descriptor is longer), and every other burst is sent before its receives
 * are posted (kept aside as unexpected). Content, length and order of every
 * message checked. */
#include <stdlib.h>

#include "p2ptest.h"

enum { BURST = 24 };

int main(void)
{
    p2ptest_init();
    struct p2p_stats s;
    p2p_stats(&s);
    size_t emax = p2p_eager_max(), cap = s.ring_bytes, bytes = 0;
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb = malloc(BURST * emax), *rb = malloc(BURST * emax);
    CHECK(sb && rb, "malloc");
    rs = 2024;                                   /* the same sizes in every rank */
    unsigned k = 0;
    while (bytes < 4 * cap) {
        int burst = 1 + (int)rnd(BURST);
        struct p2p_req *sr[BURST], *rr[BURST];
        size_t len[BURST];
        bool late = (k / 7) % 2;        /* (k: the same in every rank) */
        for (int i = 0; i < burst; i++) {
            unsigned m = k + (unsigned)i;
            len[i] = m % 5 == 0 ? emax : m % 2 ? rnd(41) : rnd((unsigned)emax + 1);
            if (!late) rr[i] = irecv(rb + i * emax, emax, from, 3, NULL);
        }
        for (int i = 0; i < burst; i++) {
            unsigned m = k + (unsigned)i;
            fill(sb + i * emax, len[i], (unsigned)(me * 100000 + m));
            sr[i] = req_new();
            CHECK(p2p_isend(sr[i], sb + i * emax, len[i], to, 3, &W, m % 4 == 3 ? P2P_SYNC : P2P_STANDARD, NULL) ==
                  SM_OK, "p2p_isend of %zu bytes to %d: %s", len[i], to, sm_fail_reason());
            bytes += len[i] + 32;
        }
        if (late)
            for (int i = 0; i < burst; i++) rr[i] = irecv(rb + i * emax, emax, from, 3, NULL);
        for (int i = 0; i < burst; i++) {
            finish(sr[i], "send");
            CHECK(p2p_wait(rr[i]) == SM_OK, "receive %u", k + i);
            CHECK(rr[i]->st.len == len[i] && rr[i]->st.source == from && rr[i]->st.tag == 3,
                  "message %u: %zu bytes from %d tag %d, expected %zu", k + i, rr[i]->st.len, rr[i]->st.source,
                  rr[i]->st.tag, len[i]);
            verify(rb + i * emax, len[i], (unsigned)(from * 100000 + k + i), "wrapped message");
            p2p_req_free(rr[i]);
        }
        k += (unsigned)burst;
    }
    if (me == 0) printf("test_ring_wrap: %u messages, %.1f times round a %zu-byte ring\n", k, (double)bytes / cap, cap);
    free(sb), free(rb);
    p2ptest_end("test_ring_wrap");
    return 0;
}
