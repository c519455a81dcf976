/* shmem_internal.h: state shared by the OpenSHMEM binding's files: the
 * binding's state and symmetric view, its error reports, teams (and the
 * deprecated active sets, which are teams without a handle), contexts, and
 * the layout of SM_AREA_SHMEM in every PE's control region. */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "shmem.h"
#include "rma.h"

/* --- State, translation, reports -------------------------------------------------
 * The binding's symmetric view (rma.h) is open from shmem_init to
 * shmem_finalize only, so every routine that translates an address reports
 * a call outside that span without a test of its own. */
enum shmem_state { SHMEM_NEVER, SHMEM_ON, SHMEM_FINALIZED };
extern enum shmem_state shmem_state;
extern struct rma_sym shmem_sym;

/* Report one line (sm_say) and end the job as shmem_global_exit(1) does. */
_Noreturn void shmem_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
/* "routine: called before shmem_init" (or after shmem_finalize) if so, else
 * "routine: <the engine's reason>"; then the job ends. */
_Noreturn void shmem_fail_engine(const char *routine) __attribute__((cold));
/* A collective engine call failed with st: SM_ERR_PEER means another PE's
 * call was at fault and reports it; this one waits (boundedly) for the job
 * to end, then reports too. */
_Noreturn void shmem_fail_status(const char *routine, sm_status_t st) __attribute__((cold));

static inline void shmem_require_init(const char *routine)
{
    if (SM_UNLIKELY(shmem_state != SHMEM_ON)) shmem_fail_engine(routine);
}

/* pe's instance of [addr, addr+len) as the caller reaches it (rma.h); the
 * job ends with a report if it cannot be reached. */
static inline __attribute__((always_inline)) void *shmem_xlate(int pe, const void *addr, size_t len,
                                                               const char *routine)
{
    return rma_sym_xlate_or(&shmem_sym, pe, addr, len, shmem_fail_engine, routine);
}
/* The same, NULL if it cannot be reached (shmem_ptr, shmem_addr_accessible);
 * only a call outside init..finalize is reported. */
void *shmem_lookup(int pe, const void *addr, const char *routine);

/* Strided put (iput) or get (iget) of nelems elements of elem bytes, strides
 * in elements; the job ends with a report on bad input. */
void shmem_strided(bool put, int pe, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                   size_t elem, size_t nelems, const char *routine);

/* --- Teams -------------------------------------------------------------------------
 * A team: world PEs start + i*stride, i < size (stride < 0: reverse order). Its barrier state lives in
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

void shmem_teams_init(void);
/* Team checks: ends the job with a message on a bad or destroyed team. */
struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine);
void shmem_team_barrier(struct shmem_team_s *t);
static inline int shmem_team_pe(const struct shmem_team_s *t, int i) { return t->start + i * t->stride; }

/* --- Contexts ------------------------------------------------------------------------
 * A context: its team's PE numbering; kept after destroy so that later use
 * is reported. */
struct shmem_ctx_s { struct shmem_team_s *team; int destroyed; };
_Noreturn void shmem_ctx_bad(shmem_ctx_t ctx, int pe, const char *routine) __attribute__((cold));
/* The world PE of the context's team PE pe; ends the job on a bad context or PE. */
static inline int shmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (SM_UNLIKELY(!ctx || ctx->destroyed || ctx->team->destroyed || (unsigned)pe >= (unsigned)ctx->team->size))
        shmem_ctx_bad(ctx, pe, routine);
    return shmem_team_pe(ctx->team, pe);
}

#endif
