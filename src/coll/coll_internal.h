/* coll_internal.h: the layout of SM_AREA_COLL in every rank's control region
 * (the groups' state: barrier cells and records) and the helpers that the
 * engine's files share. */
#ifndef COLL_INTERNAL_H
#define COLL_INTERNAL_H

#include "coll.h"

/* A member's record for one collective on a group: written by the member
 * (then stamped with the collective's sequence number), read by its peers.
 * Two per group, used in turn, so that a member may publish the next while
 * slow peers still read the last. A small contribution travels in the
 * record itself (data), so that the member returns without waiting for its
 * readers: it waits for them only before it writes the record again. */
#define COLL_INLINE 160
/* Up to this many bytes, a contribution is copied to the member's bounce
 * buffer (coll_group.bounce, in its exposed heap) and travels from there,
 * as from the record: the member returns without waiting for its readers. */
#define COLL_BOUNCE 8192
struct coll_rec {
    alignas(SM_CACHELINE) _Atomic uint32_t stamp;  /* the sequence number it is published for */
    uint32_t sig;               /* which collective: kind, root, type, op (checked by readers) */
    uint64_t len;               /* bytes this member contributes (or expects) */
    uint64_t src, dst;          /* its buffers (see pub() in inplace.c), src perhaps data below */
    /* the first 32 bytes share the stamp's line; aligned for any element
     * (long double), as the kernels read it in place */
    alignas(16) unsigned char data[COLL_INLINE];
};
_Static_assert(offsetof(struct coll_rec, data) == 32 && sizeof(struct coll_rec) == 192,
               "a small contribution starts in the stamp's line; a record is three lines");

/* A group's state in one member's area. Readers do not tell the owner
 * they are done: a member says what it has finished in its own progress
 * word, which the owners of the records and buffers it used read when they
 * cannot tell otherwise (a member that publishes collective s has finished
 * s - 1). The one word peers write is a large broadcast's share claim. */
struct coll_slot {
    struct sm_barrier_cell bar;
    struct coll_rec rec[2];             /* for odd and even sequence numbers */
    alignas(SM_CACHELINE) _Atomic uint32_t progress;   /* the last collective finished; never cleared */
    /* A large broadcast's reader and its root claim the tail of the reader's
     * copy here, one word per record: the root writes to a reader's slot. */
    _Atomic uint32_t share[2];
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

/* Wait until every member of g (only member `only` if >= 0) other than the
 * caller has finished collective seq on g (inplace.c). */
void coll_wait_finished(struct coll_group *g, uint32_t seq, int only);

#endif
