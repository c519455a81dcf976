/* rma_area.h: the one-sided engine's layout of SM_AREA_RMA in every rank's
 * control region (internal to src/rma). */
#ifndef RMA_AREA_H
#define RMA_AREA_H

#include "rma.h"
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

/* A window's sync block, one per window in each member's area (rma.h,
 * "Windows"): written by the other members, so its words are the only
 * ones they touch besides the window memory itself. Zeroed when claimed,
 * before any member learns its address. */
#define RMA_WIN_ACC_LOCKS 16     /* accumulate locks, by 4 KiB region of the target address */
#define RMA_WIN_REGION_SHIFT 12
struct rma_win_sync {
    alignas(SM_CACHELINE) struct rma_rwlock lock;      /* passive target (MPI_Win_lock) */
    alignas(SM_CACHELINE) struct rma_lock acc[RMA_WIN_ACC_LOCKS];
    /* 1 while this member holds lock_all without taking the targets' locks
     * (win.c, "lock_all"): written by this member alone, read by the
     * writers (exclusive locks) at every target, on a line of its own */
    alignas(SM_CACHELINE) _Atomic uint32_t all;
    /* PSCW, by peer: the posts this member has made to the peer (as its
     * target) and its completions at the peer (as its origin); counts only
     * this member writes, with plain release stores (no read-modify-write),
     * and the peer reads here: the writer keeps the line. */
    alignas(SM_CACHELINE) struct { _Atomic uint32_t post, complete; } pscw[SM_NMAX];
};

/* A dynamic window's attached regions, in the member's own heap (exposed:
 * the engine's blocks live in the slot), sorted by address, changed by the
 * member alone (MPI_Win_attach is local) and read by the others in place
 * under a sequence lock, odd while it changes; unlike rma_region.h's
 * tables, of which each reader holds its own copy of every rank's regions. */
struct rma_win_regions {
    _Atomic uint32_t seq;
    uint32_t n;
    struct rma_win_region { uint64_t lo, len, global; } r[RMA_WIN_ATTACH_MAX];   /* global 0: not exposed */
};

struct rma_area {
    alignas(SM_CACHELINE) uint64_t calls;      /* this rank's collective heap calls so far */
    alignas(SM_CACHELINE) struct rma_heap_call call[2];
    alignas(SM_CACHELINE) struct rma_win_sync win[RMA_WIN_MAX];
};
_Static_assert(sizeof(struct rma_area) <= SM_AREA_SIZE, "the rma area fits");

static inline struct rma_area *rma_area_of(int rank) { return sm_area(rank, SM_AREA_RMA); }

#endif
