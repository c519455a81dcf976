/* coll.h: the collective algorithms behind the MPI collective bindings. For
 * now simple and correct, built on the p2p engine over the communicator's
 * collective context; SMARTMAP-native in-place versions replace them later. */
#ifndef COLL_H
#define COLL_H

#include <stdbool.h>
#include <stddef.h>
#include "p2p.h"

/* inout[i] = in[i] op inout[i] for count elements; supplied by the bindings. */
struct coll_op {
    void (*fn)(const void *in, void *inout, size_t count, const void *ctx);
    const void *ctx;
    size_t elem;                /* bytes per element */
};

/* All buffers are contiguous bytes; c is the collective context. */
void coll_barrier(const struct p2p_comm *c);
void coll_bcast(void *buf, size_t len, int root, const struct p2p_comm *c);
/* rbuf (at root) receives the reduction of every rank's sbuf; sbuf == rbuf
 * is allowed (in place). */
void coll_reduce(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op, int root,
                 const struct p2p_comm *c);
void coll_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op,
                    const struct p2p_comm *c);
/* Blocks of len bytes per rank, in rank order in rbuf / sbuf. */
void coll_gather(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c);
void coll_scatter(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c);
void coll_allgather(const void *sbuf, void *rbuf, size_t len, const struct p2p_comm *c);
void coll_alltoall(const void *sbuf, void *rbuf, size_t len, const struct p2p_comm *c);

/* Prefix reductions in rank order; exclusive leaves rank 0's rbuf untouched. */
void coll_scan(const void *sbuf, void *rbuf, size_t count, const struct coll_op *op, bool exclusive,
               const struct p2p_comm *c);

/* The v-variants: per-rank byte counts and byte displacements. */
void coll_gatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                  int root, const struct p2p_comm *c);
void coll_scatterv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf, size_t rlen,
                   int root, const struct p2p_comm *c);
void coll_allgatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                     const struct p2p_comm *c);
void coll_alltoallv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf,
                    const size_t *rlens, const size_t *rdispls, const struct p2p_comm *c);

#endif
