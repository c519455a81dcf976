/* pt2pt.c: collectives on point-to-point, where no in-place algorithm
 * exists yet (and the baseline the in-place ones are measured against):
 * binomial broadcast, linear reduce/gather/scatter, pairwise allgatherv and
 * alltoallv, a chain for scans. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Collectives on a communicator are ordered, so one tag per context will do
 * (c->coll_tag: 0, or an internal negative tag on a borrowed context). */
#define COLL_TAG c->coll_tag

static struct p2p_req *req(void)
{
    struct p2p_req *r = p2p_req_alloc();
    if (!r) sm_fail(SM_ERR_NOMEM, "no memory for a request");
    return r;
}
static void finish(struct p2p_req *r)
{
    p2p_wait(r);
    p2p_req_free(r);
}
static sm_status_t send_wait(const void *buf, size_t len, int dst, const struct p2p_comm *c)
{
    struct p2p_req *r = req();
    if (!r) return SM_ERR_NOMEM;
    p2p_isend(r, buf, len, dst, COLL_TAG, c, P2P_STANDARD, NULL);
    finish(r);
    return SM_OK;
}
static sm_status_t recv_wait(void *buf, size_t len, int src, const struct p2p_comm *c)
{
    struct p2p_req *r = req();
    if (!r) return SM_ERR_NOMEM;
    p2p_irecv(r, buf, len, src, COLL_TAG, c, NULL);
    finish(r);
    return SM_OK;
}
static sm_status_t sendrecv(const void *sb, size_t slen, int dst, void *rb, size_t rlen, int src,
                            const struct p2p_comm *c)
{
    struct p2p_req *r = req(), *s = r ? req() : NULL;
    if (!s) {
        if (r) p2p_req_free(r);
        return SM_ERR_NOMEM;
    }
    p2p_irecv(r, rb, rlen, src, COLL_TAG, c, NULL);
    p2p_isend(s, sb, slen, dst, COLL_TAG, c, P2P_STANDARD, NULL);
    finish(s);
    finish(r);
    return SM_OK;
}
/* The statement's status, returned if it failed. */
#define TRY(x) do { sm_status_t st_ = (x); if (st_) return st_; } while (0)

static sm_status_t bcast(void *buf, size_t len, int root, const struct p2p_comm *c)
{
    int n = c->size, me = (c->rank - root + n) % n;      /* rank relative to the root */
    int mask = 1;
    while (mask < n) {                                   /* receive from the parent */
        if (me & mask) { TRY(recv_wait(buf, len, (c->rank - mask + n) % n, c)); break; }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)               /* then send to the children */
        if (me + mask < n) TRY(send_wait(buf, len, (c->rank + mask) % n, c));
    return SM_OK;
}

sm_status_t coll_p2p_reduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op, int root,
                            const struct p2p_comm *c)
{
    size_t len = count * op->elem;
    if (c->rank != root) return send_wait(sbuf, len, root, c);
    /* In rank order, x0 op x1 op ..., as non-commutative operations need:
     * fn(in, inout) computes inout = in op inout. */
    char *acc = malloc(len ? len : 1), *cur = malloc(len ? len : 1);
    sm_status_t st = SM_OK;
    if (!acc || !cur) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", len);
    for (int i = 0; i < c->size && !st; i++) {
        if (i == root) memcpy(cur, sbuf, len);
        else if ((st = recv_wait(cur, len, i, c))) break;
        if (i > 0) op->fn(acc, cur, count, op->ctx);
        char *t = acc; acc = cur; cur = t;
    }
    if (!st) memcpy(rbuf, acc, len);
    free(acc);
    free(cur);
    return st;
}

sm_status_t coll_p2p_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op,
                               const struct p2p_comm *c)
{
    TRY(coll_p2p_reduce(sbuf, rbuf, count, op, 0, c));
    return bcast(rbuf, count * op->elem, 0, c);
}

sm_status_t coll_p2p_gather(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c)
{
    if (c->rank != root) return send_wait(sbuf, len, root, c);
    for (int i = 0; i < c->size; i++) {
        char *dst = (char *)rbuf + (size_t)i * len;
        if (i == root) { if (sbuf != dst) memmove(dst, sbuf, len); }
        else TRY(recv_wait(dst, len, i, c));
    }
    return SM_OK;
}

sm_status_t coll_p2p_scatter(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c)
{
    if (c->rank != root) return recv_wait(rbuf, len, root, c);
    for (int i = 0; i < c->size; i++) {
        const char *src = (const char *)sbuf + (size_t)i * len;
        if (i == root) { if (rbuf != src) memmove(rbuf, src, len); }
        else TRY(send_wait(src, len, i, c));
    }
    return SM_OK;
}

sm_status_t coll_p2p_gatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                             int root, const struct p2p_comm *c)
{
    if (c->rank != root) return send_wait(sbuf, slen, root, c);
    for (int i = 0; i < c->size; i++) {
        char *dst = (char *)rbuf + rdispls[i];
        if (i == root) { if (sbuf != dst) memmove(dst, sbuf, rlens[i] < slen ? rlens[i] : slen); }
        else TRY(recv_wait(dst, rlens[i], i, c));
    }
    return SM_OK;
}

sm_status_t coll_p2p_scatterv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf, size_t rlen,
                              int root, const struct p2p_comm *c)
{
    if (c->rank != root) return recv_wait(rbuf, rlen, root, c);
    for (int i = 0; i < c->size; i++) {
        const char *src = (const char *)sbuf + sdispls[i];
        if (i == root) { if (rbuf != src) memmove(rbuf, src, slens[i] < rlen ? slens[i] : rlen); }
        else TRY(send_wait(src, slens[i], i, c));
    }
    return SM_OK;
}

sm_status_t coll_p2p_allgatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens,
                                const size_t *rdispls, const struct p2p_comm *c)
{
    int n = c->size, me = c->rank;
    char *mine = (char *)rbuf + rdispls[me];
    if (sbuf != mine) memmove(mine, sbuf, slen);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        TRY(sendrecv(mine, slen, to, (char *)rbuf + rdispls[from], rlens[from], from, c));
    }
    return SM_OK;
}

sm_status_t coll_p2p_alltoallv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf,
                               const size_t *rlens, const size_t *rdispls, const struct p2p_comm *c)
{
    int n = c->size, me = c->rank;
    memmove((char *)rbuf + rdispls[me], (const char *)sbuf + sdispls[me], slens[me] < rlens[me] ? slens[me] : rlens[me]);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        TRY(sendrecv((const char *)sbuf + sdispls[to], slens[to], to, (char *)rbuf + rdispls[from], rlens[from],
                     from, c));
    }
    return SM_OK;
}

/* A chain: rank r gets the prefix of ranks 0..r-1 from r-1, passes on 0..r. */
sm_status_t coll_p2p_scan(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op, bool exclusive,
                          const struct p2p_comm *c)
{
    size_t len = count * op->elem;
    char *prefix = malloc(len ? len : 1), *mine = malloc(len ? len : 1);
    sm_status_t st = SM_OK;
    if (!prefix || !mine) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", len);
    if (!st) memcpy(mine, sbuf, len);                   /* sbuf may be rbuf (in place) */
    if (!st && c->rank > 0 && !(st = recv_wait(prefix, len, c->rank - 1, c)))
        op->fn(prefix, mine, count, op->ctx);           /* mine = prefix op mine */
    if (!st && c->rank + 1 < c->size) st = send_wait(mine, len, c->rank + 1, c);
    if (!st && !exclusive) memcpy(rbuf, mine, len);
    else if (!st && c->rank > 0) memcpy(rbuf, prefix, len);
    free(prefix);
    free(mine);
    return st;
}
