/* coll_internal.h: the layout of SM_AREA_COLL in every rank's control region
 * (the groups' state: barrier cells and records) and the helpers that the
 * engine's files share. */
#ifndef COLL_INTERNAL_H
#define COLL_INTERNAL_H

#include "coll.h"

/* A member's record for the collective in progress on a group: written by
 * the member (then stamped), read by its peers. */
struct coll_rec {
    alignas(SM_CACHELINE) _Atomic uint32_t stamp;  /* the group's sequence number it is published for */
    uint32_t sig;               /* which collective: kind, root, type, op (checked by readers) */
    uint64_t len;               /* bytes this member contributes (or expects) */
    uint64_t src, dst;          /* its buffers (coll_pub) */
    uint32_t flags;             /* COLL_REC_* */
    /* Peers count themselves here when done with this member's buffers
     * (+COLL_DONE_ERR each if it found a mismatch); reset at publication. */
    alignas(SM_CACHELINE) _Atomic uint32_t done;
};
#define COLL_DONE_ERR   (1u << 16)
#define COLL_DONE_COUNT (COLL_DONE_ERR - 1)
enum { COLL_REC_SLICEABLE = 1 };   /* dst is src or disjoint from it */

/* A group's state in one member's area. */
struct coll_slot {
    struct sm_barrier_cell bar;
    struct coll_rec rec;
};

/* Active sets: start + i * 2^logstride for i < size; a flat barrier per
 * (logstride, size) in the first member's area. */
#define COLL_ASET_LOGSTRIDES 10  /* 2^9 > SM_NMAX: larger strides cannot hold two ranks */
#define COLL_ASET_KEYS (COLL_ASET_LOGSTRIDES * (SM_NMAX + 1))

struct coll_area {
    uint64_t used[COLL_GROUPS_MAX / 64];     /* group numbers this rank is a member of */
    struct coll_slot slot[COLL_GROUPS_MAX];
    struct coll_rec aset_rec;                /* the record for active-set collectives */
    struct sm_barrier_cell aset_bar[COLL_ASET_KEYS];   /* flat: only counter 0 and gen are used */
};
_Static_assert(sizeof(struct coll_area) <= SM_AREA_SIZE, "the collective state fits its area");

static inline struct coll_area *coll_area_of(int rank) { return sm_area(rank, SM_AREA_COLL); }

#endif
