/* Detached requests: requests freed by the program while active (MPI lets
 * it free a send or receive it will not wait for). The engine completes
 * them and releases them then: a large send the receiver takes only later,
 * a receive posted before its message, and eager sends still queued for a
 * full ring. Data arrives intact, and the requests alive return to what
 * they were (none leaked, none released early: a release while the peer
 * still writes the request would corrupt the free list). */
#include <stdlib.h>

#include "p2ptest.h"

enum { BIG = 300000 };

static uint64_t live(void)
{
    struct p2p_stats s;
    p2p_stats(&s);
    return s.requests;
}

static bool back_to(void *arg) { return live() == *(uint64_t *)arg; }

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    uint64_t base = live();
    size_t emax = p2p_eager_max();
    struct p2p_stats s;
    p2p_stats(&s);
    size_t nq = 2 * s.ring_bytes / emax + 4;     /* more than a ring holds */
    char *big = malloc(BIG), *got = malloc(BIG), *small = malloc(nq * emax), *rs_ = malloc(emax);
    CHECK(big && got && small && rs_, "malloc");
    /* a receive, freed as soon as it is posted */
    memset(got, 0, BIG);
    p2p_req_free(irecv(got, BIG, from, 1, NULL));
    /* a large send, freed at once: the receiver copies from big later */
    fill(big, BIG, (unsigned)me);
    p2p_req_free(isend(big, BIG, to, 1, NULL));
    /* eager sends into a ring nobody drains yet, freed while queued */
    for (size_t i = 0; i < nq; i++) {
        fill(small + i * emax, emax, (unsigned)(me * 100 + i));
        p2p_req_free(isend(small + i * emax, emax, to, 2, NULL));
    }
    CHECK(live() > base, "freed active requests were released at once");
    sm_barrier();
    for (size_t i = 0; i < nq; i++) {
        struct p2p_req *r = irecv(rs_, emax, from, 2, NULL);
        CHECK(p2p_wait(r) == SM_OK, "receive %zu", i);
        verify(rs_, emax, (unsigned)(from * 100 + i), "a detached queued send");
        p2p_req_free(r);
    }
    /* everything completes in the end: the detached receive got its data,
     * the detached sends were released once the peers had them */
    CHECK(p2p_wait_until(back_to, &base) == SM_OK, "waiting for the detached requests");
    verify(got, BIG, (unsigned)from, "the detached receive");
    sm_barrier();                                /* nobody reads big any more */
    free(big), free(got), free(small), free(rs_);
    p2ptest_end("test_detached");
    return 0;
}
