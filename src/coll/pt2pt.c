/* pt2pt.c: the one collective still on point-to-point: an allreduce over a
 * communicator that has no group of the engine yet (coll_group_create_p2p,
 * for MPI_Comm_create_group): a linear reduce at rank 0 in rank order, then
 * a binomial broadcast. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Collectives on a communicator are ordered, so one tag per context will do
 * (c->coll_tag: 0, or an internal negative tag on a borrowed context). */
static sm_status_t xfer(bool send, void *buf, size_t len, int peer, const struct p2p_comm *c)
{
    struct p2p_req *r = p2p_req_alloc();
    if (!r) return SM_ERR_NOMEM;
    sm_status_t st = send ? p2p_isend(r, buf, len, peer, c->coll_tag, c, P2P_STANDARD, NULL)
                          : p2p_irecv(r, buf, len, peer, c->coll_tag, c, NULL);
    if (!st) st = p2p_wait(r);
    p2p_req_free(r);
    return st;
}

sm_status_t coll_p2p_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op,
                               const struct p2p_comm *c)
{
    size_t len = count * op->elem;
    int n = c->size, me = c->rank;
    sm_status_t st = SM_OK;
    if (me != 0) st = xfer(true, (void *)sbuf, len, 0, c);
    else {
        /* x0 op x1 op ...: fn(in, inout) computes inout = in op inout, so
         * each rank's vector is combined as the right operand */
        char *cur = malloc(len ? len : 1);
        if (!cur) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", len);
        memmove(rbuf, sbuf, len);
        for (int i = 1; i < n && !st; i++)
            if (!(st = xfer(false, cur, len, i, c))) {
                op->fn(rbuf, cur, count, op->ctx);
                memcpy(rbuf, cur, len);
            }
        free(cur);
    }
    /* binomial broadcast from rank 0 */
    int mask = 1;
    while (mask < n && !st) {
        if (me & mask) { st = xfer(false, rbuf, len, me - mask, c); break; }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && !st; mask >>= 1)
        if (me + mask < n) st = xfer(true, rbuf, len, me + mask, c);
    return st;
}
