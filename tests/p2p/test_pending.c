/* A full ring never aborts: the sender keeps sends in its pending queue
 * while the receiver does not drain (it sits in a barrier), and posts them
 * as room frees, in order. Then sends the program frees at once (detached)
 * and forgets until p2p_finalize, which must still deliver them. */
#include <stdlib.h>

#include "p2ptest.h"

int main(void)
{
    p2ptest_init();
    struct p2p_stats s;
    p2p_stats(&s);
    size_t emax = p2p_eager_max(), n = 3 * s.ring_bytes / emax + 8;   /* three rings' worth */
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb = malloc(n * emax), *rb = malloc(emax);
    struct p2p_req **sr = malloc(n * sizeof *sr);
    CHECK(sb && rb && sr, "malloc");
    for (size_t i = 0; i < n; i++) {
        fill(sb + i * emax, emax, (unsigned)(me * 1000 + i));
        sr[i] = isend(sb + i * emax, emax, to, 1, NULL);
    }
    p2p_stats(&s);
    CHECK(s.pending > 0 && s.pending < n, "%zu sends into a receiver that does not drain: %llu pending", n,
          (unsigned long long)s.pending);
    sm_barrier();                                /* nobody drains while the others queue */
    for (size_t i = 0; i < n; i++) {
        struct p2p_req *r = irecv(rb, emax, from, 1, NULL);
        CHECK(p2p_wait(r) == SM_OK && r->st.len == emax, "receive %zu", i);
        verify(rb, emax, (unsigned)(from * 1000 + i), "a message queued while the ring was full");
        p2p_req_free(r);
    }
    for (size_t i = 0; i < n; i++) finish(sr[i], "queued send");
    p2p_stats(&s);
    CHECK(s.pending == 0, "%llu sends still pending", (unsigned long long)s.pending);
    /* Forgotten sends: freed at once, some still queued when p2p_finalize
     * runs; the receiver takes them only after its own finalize began. */
    uint64_t before = s.requests;
    for (size_t i = 0; i < n; i++) {
        fill(sb + i * emax, emax, (unsigned)(me * 7000 + i));
        p2p_req_free(isend(sb + i * emax, emax, to, 2, NULL));
    }
    if (me % 2 == 0) CHECK(p2p_finalize() == SM_OK, "p2p_finalize with queued sends: %s", sm_fail_reason());
    for (size_t i = 0; i < n; i++) {
        struct p2p_req *r = irecv(rb, emax, from, 2, NULL);
        CHECK(p2p_wait(r) == SM_OK, "receive %zu", i);
        verify(rb, emax, (unsigned)(from * 7000 + i), "a forgotten send");
        p2p_req_free(r);
    }
    CHECK(p2p_finalize() == SM_OK, "p2p_finalize: %s", sm_fail_reason());
    p2p_stats(&s);
    CHECK(s.requests == before, "%llu requests alive after the forgotten sends, %llu before",
          (unsigned long long)s.requests, (unsigned long long)before);
    free(sb), free(rb), free(sr);
    p2ptest_end("test_pending");
    return 0;
}
