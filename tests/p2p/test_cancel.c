/* Cancel: a receive that has not matched is cancelled (complete, flagged,
 * no data), and the message it would have taken goes to the next receive;
 * one that matched already cannot be, and completes as usual; a send
 * cannot be (SM_ERR_UNSUPPORTED) and completes as usual. */
#include "p2ptest.h"

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
    struct p2p_req *s = isend(&v, sizeof v, to, 4, NULL);
    CHECK(p2p_cancel(s) == SM_ERR_UNSUPPORTED, "cancelling a send");
    finish(s, "a send after a failed cancel");
    r = irecv(&b, sizeof b, from, 4, NULL);
    CHECK(p2p_wait(r) == SM_OK && b == from && !r->st.cancelled, "the message went to the next receive: %d", b);
    CHECK(p2p_cancel(r) == SM_ERR_STATE && !r->st.cancelled, "cancelling a completed receive");
    p2p_req_free(r);
    p2ptest_end("test_cancel");
    return 0;
}
