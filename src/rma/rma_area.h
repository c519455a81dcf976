/* rma_area.h: the one-sided engine's layout of SM_AREA_RMA in every rank's
 * control region (internal to src/rma). */
#ifndef RMA_AREA_H
#define RMA_AREA_H

#include "sm_core.h"

/* The symmetric heap's same-call check: each rank's latest collective call,
 * written only by that rank, read by all between the two meetings. */
struct rma_heap_call {
    _Atomic uint64_t seq;     /* the rank's collective heap calls so far */
    uint64_t op, a, b;        /* the latest: enum heap_op (heap.c) and its arguments */
    _Atomic int32_t result;   /* a step that can fail in one rank (growing the region): 0 or a status */
};

struct rma_area {
    alignas(SM_CACHELINE) struct rma_heap_call call;
};
_Static_assert(sizeof(struct rma_area) <= SM_AREA_SIZE, "the rma area fits");

static inline struct rma_area *rma_area_of(int rank) { return sm_area(rank, SM_AREA_RMA); }

#endif
