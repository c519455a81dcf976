/* rma_area.h: the one-sided engine's layout of SM_AREA_RMA in every rank's
 * control region (internal to src/rma). */
#ifndef RMA_AREA_H
#define RMA_AREA_H

#include "sm_core.h"

/* The symmetric heap's same-call check: each rank's collective calls,
 * written only by that rank, read by all after the first meeting. Two, by
 * the call's parity: a rank that is done with call s may publish call s+1
 * while others still read its call s (it cannot publish s+2 before they
 * have met it in call s+1). */
struct rma_heap_call {
    _Atomic uint64_t seq;     /* which of the rank's collective heap calls this is (1, 2, ...) */
    uint64_t op, a, b;        /* enum heap_op (heap.c) and its arguments */
    _Atomic int32_t result;   /* a step that can fail in one rank (growing the region): 0 or a status */
};

struct rma_area {
    alignas(SM_CACHELINE) uint64_t calls;      /* this rank's collective heap calls so far */
    alignas(SM_CACHELINE) struct rma_heap_call call[2];
};
_Static_assert(sizeof(struct rma_area) <= SM_AREA_SIZE, "the rma area fits");

static inline struct rma_area *rma_area_of(int rank) { return sm_area(rank, SM_AREA_RMA); }

#endif
