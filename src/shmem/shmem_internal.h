/* shmem_internal.h: state shared by the OpenSHMEM binding's files: teams
 * (groups of the collective engine, with a handle) and the layout of
 * SM_AREA_SHMEM in every PE's control region. */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "shmem.h"
#include "rma.h"
#include "coll.h"

/* A team: world PEs start + i*stride, i < size (stride < 0: reverse order),
 * as a group of the collective engine, which also keeps its collective state. */
struct shmem_team_s {
    struct coll_group g;        /* g.m: size, my index (-1: not a member), start, stride */
    int destroyed;
    int num_contexts;           /* as configured at the split */
};

/* SM_AREA_SHMEM layout. */
struct shmem_pub {              /* one per PE, in its own area */
    _Atomic uint64_t alloc_seq; /* collective allocation check */
    uint64_t alloc_op, alloc_size, alloc_align;
};
_Static_assert(sizeof(struct shmem_pub) <= SM_AREA_SIZE, "shmem_pub fits its area");

static inline struct shmem_pub *shmem_pub_of(int pe) { return sm_area(pe, SM_AREA_SHMEM); }

extern int shmem_initialized;
void shmem_require_init(const char *routine);
void shmem_heap_init(void);
void shmem_teams_init(void);
/* Team checks: ends the job with a message on a bad or destroyed team. */
struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine);
void shmem_team_barrier(struct shmem_team_s *t);
/* The world PE of team PE i (teams are always start/stride: no table to look at). */
static inline int shmem_team_pe(const struct shmem_team_s *t, int i) { return t->g.m.start + i * t->g.m.stride; }

/* A context: its team's PE numbering; kept after destroy so that later use
 * is reported. */
struct shmem_ctx_s { struct shmem_team_s *team; int destroyed; };
/* The world PE of the context's team PE pe; ends the job on a bad context or PE. */
static inline int shmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (SM_UNLIKELY(!ctx)) rma_fail("%s: context is SHMEM_CTX_INVALID", routine);
    if (SM_UNLIKELY(ctx->destroyed)) rma_fail("%s: context %p was destroyed", routine, (void *)ctx);
    struct shmem_team_s *t = ctx->team;
    if (SM_UNLIKELY(t->destroyed)) rma_fail("%s: the team of context %p was destroyed", routine, (void *)ctx);
    if (SM_UNLIKELY(pe < 0 || pe >= t->g.m.size))
        rma_fail("%s: PE %d out of range (0..%d) in the context's team", routine, pe, t->g.m.size - 1);
    return shmem_team_pe(t, pe);
}

#endif
