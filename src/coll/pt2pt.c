/* Collectives on point-to-point (the baseline the SMARTMAP-native versions
 * will be measured against): dissemination barrier, binomial broadcast,
 * linear reduce/gather/scatter, pairwise allgatherv and alltoall(v). */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "coll.h"

/* Collectives on a communicator are ordered, so one tag per context will do
 * (c->coll_tag: 0, or an internal negative tag on a borrowed context). */
#define COLL_TAG c->coll_tag

static struct p2p_req *start_send(const void *buf, size_t len, int dst, const struct p2p_comm *c)
{
    struct p2p_req *r = p2p_req_alloc();
    if (!r) sm_fatal("coll: out of memory");
    p2p_isend(r, buf, len, dst, COLL_TAG, c, P2P_STANDARD, NULL);
    return r;
}
static struct p2p_req *start_recv(void *buf, size_t len, int src, const struct p2p_comm *c)
{
    struct p2p_req *r = p2p_req_alloc();
    if (!r) sm_fatal("coll: out of memory");
    p2p_irecv(r, buf, len, src, COLL_TAG, c, NULL);
    return r;
}
static void finish(struct p2p_req *r)
{
    p2p_wait(r);
    p2p_req_free(r);
}
static void sendrecv(const void *sb, size_t slen, int dst, void *rb, size_t rlen, int src,
                     const struct p2p_comm *c)
{
    struct p2p_req *r = start_recv(rb, rlen, src, c);
    struct p2p_req *s = start_send(sb, slen, dst, c);
    finish(s);
    finish(r);
}

void coll_barrier(const struct p2p_comm *c)
{
    char x = 0, y;
    for (int d = 1; d < c->size; d *= 2)
        sendrecv(&x, 0, (c->rank + d) % c->size, &y, 0, (c->rank - d + c->size) % c->size, c);
}

void coll_bcast(void *buf, size_t len, int root, const struct p2p_comm *c)
{
    int n = c->size, me = (c->rank - root + n) % n;      /* rank relative to the root */
    int mask = 1;
    while (mask < n) {                                   /* receive from the parent */
        if (me & mask) { finish(start_recv(buf, len, (c->rank - mask + n) % n, c)); break; }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)               /* then send to the children */
        if (me + mask < n) finish(start_send(buf, len, (c->rank + mask) % n, c));
}

void coll_reduce(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op, int root,
                 const struct p2p_comm *c)
{
    size_t len = count * op->elem;
    if (c->rank != root) { finish(start_send(sbuf, len, root, c)); return; }
    /* In rank order, x0 op x1 op ... , so that every run combines the same
     * way: fn(in, inout) computes inout = in op inout. */
    char *acc = malloc(len ? len : 1), *cur = malloc(len ? len : 1);
    if (!acc || !cur) sm_fatal("coll_reduce: out of memory for %zu bytes", len);
    for (int i = 0; i < c->size; i++) {
        if (i == root) memcpy(cur, sbuf, len);
        else finish(start_recv(cur, len, i, c));
        if (i > 0) op->fn(acc, cur, count, op->ctx);
        char *t = acc; acc = cur; cur = t;
    }
    memcpy(rbuf, acc, len);
    free(acc);
    free(cur);
}

void coll_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op,
                    const struct p2p_comm *c)
{
    coll_reduce(sbuf, rbuf, count, op, 0, c);
    coll_bcast(rbuf, count * op->elem, 0, c);
}

void coll_gather(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c)
{
    if (c->rank != root) { finish(start_send(sbuf, len, root, c)); return; }
    for (int i = 0; i < c->size; i++) {
        char *dst = (char *)rbuf + (size_t)i * len;
        if (i == root) { if (sbuf != dst) memmove(dst, sbuf, len); }
        else finish(start_recv(dst, len, i, c));
    }
}

void coll_scatter(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c)
{
    if (c->rank != root) { finish(start_recv(rbuf, len, root, c)); return; }
    for (int i = 0; i < c->size; i++) {
        const char *src = (const char *)sbuf + (size_t)i * len;
        if (i == root) { if (rbuf != src) memmove(rbuf, src, len); }
        else finish(start_send(src, len, i, c));
    }
}

void coll_allgather(const void *sbuf, void *rbuf, size_t len, const struct p2p_comm *c)
{
    coll_gather(sbuf, rbuf, len, 0, c);
    coll_bcast(rbuf, len * (size_t)c->size, 0, c);
}

void coll_alltoall(const void *sbuf, void *rbuf, size_t len, const struct p2p_comm *c)
{
    int n = c->size, me = c->rank;
    memmove((char *)rbuf + (size_t)me * len, (const char *)sbuf + (size_t)me * len, len);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        sendrecv((const char *)sbuf + (size_t)to * len, len, to, (char *)rbuf + (size_t)from * len, len,
                 from, c);
    }
}

void coll_gatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                  int root, const struct p2p_comm *c)
{
    if (c->rank != root) { finish(start_send(sbuf, slen, root, c)); return; }
    for (int i = 0; i < c->size; i++) {
        char *dst = (char *)rbuf + rdispls[i];
        if (i == root) { if (sbuf != dst) memmove(dst, sbuf, rlens[i] < slen ? rlens[i] : slen); }
        else finish(start_recv(dst, rlens[i], i, c));
    }
}

void coll_scatterv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf, size_t rlen,
                   int root, const struct p2p_comm *c)
{
    if (c->rank != root) { finish(start_recv(rbuf, rlen, root, c)); return; }
    for (int i = 0; i < c->size; i++) {
        const char *src = (const char *)sbuf + sdispls[i];
        if (i == root) { if (rbuf != src) memmove(rbuf, src, slens[i] < rlen ? slens[i] : rlen); }
        else finish(start_send(src, slens[i], i, c));
    }
}

void coll_allgatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                     const struct p2p_comm *c)
{
    int n = c->size, me = c->rank;
    char *mine = (char *)rbuf + rdispls[me];
    if (sbuf != mine) memmove(mine, sbuf, slen);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        sendrecv(mine, slen, to, (char *)rbuf + rdispls[from], rlens[from], from, c);
    }
}

void coll_alltoallv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf,
                    const size_t *rlens, const size_t *rdispls, const struct p2p_comm *c)
{
    int n = c->size, me = c->rank;
    memmove((char *)rbuf + rdispls[me], (const char *)sbuf + sdispls[me], slens[me] < rlens[me] ? slens[me] : rlens[me]);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        sendrecv((const char *)sbuf + sdispls[to], slens[to], to, (char *)rbuf + rdispls[from], rlens[from], from, c);
    }
}

/* A chain: rank r gets the prefix of ranks 0..r-1 from r-1, passes on 0..r. */
void coll_scan(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op, bool exclusive,
               const struct p2p_comm *c)
{
    size_t len = count * op->elem;
    char *prefix = malloc(len ? len : 1), *mine = malloc(len ? len : 1);
    if (!prefix || !mine) sm_fatal("coll_scan: out of memory for %zu bytes", len);
    memcpy(mine, sbuf, len);                            /* sbuf may be rbuf (in place) */
    if (c->rank > 0) {
        finish(start_recv(prefix, len, c->rank - 1, c));
        op->fn(prefix, mine, count, op->ctx);           /* mine = prefix op mine */
    }
    if (c->rank + 1 < c->size) finish(start_send(mine, len, c->rank + 1, c));
    if (!exclusive) memcpy(rbuf, mine, len);
    else if (c->rank > 0) memcpy(rbuf, prefix, len);
    free(prefix);
    free(mine);
}
