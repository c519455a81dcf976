/* Cancel: a receive that has not matched is cancelled (complete, flagged,
 * no data), and the message it would have taken goes to the next receive;
 * one that matched already cannot be, and completes as usual. A send whose
 * message still waits in the receiver's ring is cancelled (eager, sync and
 * large ones): the receiver never sees it and takes the next message; one
 * that was received cannot be (SM_ERR_STATE). */
#include <stdlib.h>

#include "p2ptest.h"

#define BIG (256u << 10)        /* above any eager limit */

static void cancel_send(struct p2p_req *s, const char *what)
{
    CHECK(p2p_cancel(s) == SM_OK, "cancelling %s nobody received: %s", what, sm_fail_reason());
    CHECK(p2p_done(s) && s->st.cancelled, "cancelled %s: done %d cancelled %d", what, p2p_done(s), s->st.cancelled);
    CHECK(p2p_wait(s) == SM_OK, "waiting for cancelled %s", what);
    p2p_req_free(s);
}

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    int a = -1, b = -1, v = me;
    struct p2p_req *r = irecv(&a, sizeof a, from, 4, NULL);
    CHECK(p2p_cancel(r) == SM_OK, "cancelling an unmatched receive: %s", sm_fail_reason());
    CHECK(p2p_done(r) && r->st.cancelled && a == -1, "cancelled receive: done %d cancelled %d", p2p_done(r),
          r->st.cancelled);
    CHECK(p2p_wait(r) == SM_OK, "waiting for a cancelled receive");
    p2p_req_free(r);
    sm_barrier();                                /* every receive is cancelled before anything is sent */

    /* One rank at a time sends and cancels while the others wait in the
     * barrier: a receiver that makes progress (any call of its own) moves
     * what its ring holds to its unexpected queue, and from there a send
     * can no longer be cancelled (which MPI allows). So every cancelled
     * message is still in the ring. */
    char *big = malloc(BIG), *in = malloc(BIG);
    CHECK(big && in, "no memory");
    fill(big, BIG, (unsigned)me);
    int w = me + 100;
    struct p2p_req *s = NULL, *l = NULL;
    for (int turn = 0; turn < np; turn++) {
        if (turn == me) {
            cancel_send(isend(&v, sizeof v, to, 4, NULL), "an eager send");
            s = req_new();
            CHECK(p2p_isend(s, &v, sizeof v, to, 4, &W, P2P_SYNC, NULL) == SM_OK, "p2p_isend: %s", sm_fail_reason());
            cancel_send(s, "a synchronous send");
            cancel_send(isend(big, BIG, to, 4, NULL), "a large send");
            CHECK(p2p_cancel(r = irecv(&a, sizeof a, from, 5, NULL)) == SM_OK, "cancelling a receive");
            p2p_req_free(r);
            s = isend(&w, sizeof w, to, 4, NULL);        /* the one that counts */
            l = isend(big, BIG, to, 6, NULL);
        }
        sm_barrier();
    }

    r = irecv(&b, sizeof b, from, 4, NULL);
    CHECK(p2p_wait(r) == SM_OK && b == from + 100 && !r->st.cancelled,
          "the message after the cancelled ones: %d, not %d", b, from + 100);
    CHECK(p2p_cancel(r) == SM_ERR_STATE && !r->st.cancelled, "cancelling a completed receive");
    p2p_req_free(r);
    r = irecv(in, BIG, from, 6, NULL);
    CHECK(p2p_wait(r) == SM_OK && r->st.len == BIG, "the large message: %zu bytes", r->st.len);
    verify(in, BIG, (unsigned)from, "the large message");
    p2p_req_free(r);
    sm_barrier();                                /* every message received */
    CHECK(p2p_cancel(s) == SM_ERR_STATE && !s->st.cancelled, "cancelling a received eager send");
    finish(s, "a received eager send");
    CHECK(p2p_wait(l) == SM_OK && p2p_cancel(l) == SM_ERR_STATE && !l->st.cancelled, "cancelling a received send");
    p2p_req_free(l);
    free(big), free(in);
    p2ptest_end("test_cancel");
    return 0;
}
