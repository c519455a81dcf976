/* shmem_internal.h: state shared by the OpenSHMEM binding's files: teams (and
 * the deprecated active sets, which are teams without a handle) and the
 * layout of SM_AREA_SHMEM in every PE's control region. */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "shmem.h"
#include "rma.h"

/* A team: world PEs start + i*stride, i < size (stride < 0: reverse order). Its barrier state lives in
 * the area of its PE 0 ("root"), at a place every member computes alike. */
struct shmem_team_s {
    int start, stride, size;
    int my_pe;                  /* my index in the team, -1 if not a member */
    int id;                     /* team number, the same in every member */
    int destroyed;
    int num_contexts;           /* as configured at the split */
    _Atomic uint32_t *sync;     /* {arrived, generation} in the root's area */
};

/* SM_AREA_SHMEM layout. */
#define SHMEM_TEAM_OFF   4096ULL                /* team barriers, 64 B each */
#define SHMEM_TEAM_MAX   16384                  /* team numbers in use at once */
struct shmem_pub {              /* one per PE, in its own area */
    _Atomic uint64_t alloc_seq; /* collective allocation check */
    uint64_t alloc_op, alloc_size, alloc_align;
    alignas(SM_CACHELINE) uint64_t coll_val;   /* a value published for one collective */
    /* The team numbers of the teams this PE is a member of (bit per number),
     * written only by this PE: a split takes the lowest number free in all
     * of the parent's members, and a destroy frees it again. */
    alignas(SM_CACHELINE) uint64_t team_used[SHMEM_TEAM_MAX / 64];
};
_Static_assert(sizeof(struct shmem_pub) <= SHMEM_TEAM_OFF, "shmem_pub fits before the team barriers");
#define SHMEM_ASET_OFF   (2ULL << 20)           /* active-set barriers, 64 B each */
_Static_assert(SHMEM_TEAM_OFF + SHMEM_TEAM_MAX * 64ULL <= SHMEM_ASET_OFF, "team area fits");
_Static_assert(SHMEM_ASET_OFF + 10ULL * (SM_NMAX + 1) * 64 <= SM_AREA_SIZE, "active sets fit");

static inline struct shmem_pub *shmem_pub_of(int pe) { return sm_area(pe, SM_AREA_SHMEM); }

extern int shmem_initialized;
void shmem_require_init(const char *routine);
void shmem_heap_init(void);
void shmem_teams_init(void);
/* Team checks: ends the job with a message on a bad or destroyed team. */
struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine);
void shmem_team_barrier(struct shmem_team_s *t);
static inline int shmem_team_pe(const struct shmem_team_s *t, int i) { return t->start + i * t->stride; }

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
    if (SM_UNLIKELY(pe < 0 || pe >= t->size))
        rma_fail("%s: PE %d out of range (0..%d) in the context's team", routine, pe, t->size - 1);
    return shmem_team_pe(t, pe);
}

#endif
