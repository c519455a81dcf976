/* shmem_internal.h: state shared by the OpenSHMEM binding's files: the
 * binding's state and symmetric view, its error reports, teams (groups of
 * the collective engine, with a handle) and contexts. */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "shmem.h"
#include "rma.h"
#include "coll.h"

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

/* Order (fence) or complete (quiet) the puts and atomics issued, on the
 * node (rma.h) and across nodes (UCX). */
static inline void shmem_order(bool quiet, const char *routine)
{
    if (quiet) rma_quiet();
    else rma_fence();
    if (SM_UNLIKELY(rma_remote_up) && (quiet ? rma_remote_quiet() : rma_remote_fence())) shmem_fail_engine(routine);
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
 * A team: world PEs start + i*stride, i < size (stride < 0: reverse order),
 * as a group of the collective engine, which also keeps its collective state. */
/* shmem.h exports the predefined teams and the default context as objects:
 * a program linked against the library holds copies of them (R_X86_64_COPY
 * relocations, PIE or not) of the size they had at its link. They keep a
 * fixed size, so that the library's structs can grow without breaking
 * programs already linked (Open MPI pads its predefined objects alike). */
#define SHMEM_TEAM_ABI_SIZE 512
#define SHMEM_CTX_ABI_SIZE 64

struct shmem_team_s {
    union {
        struct {
            struct coll_group g;        /* g.m: size, my index (-1: not a member), start, stride */
            int destroyed;
            int num_contexts;           /* as configured at the split */
        };
        char abi_size[SHMEM_TEAM_ABI_SIZE];
    };
};
_Static_assert(sizeof(struct shmem_team_s) == SHMEM_TEAM_ABI_SIZE, "struct shmem_team_s outgrew its exported size");

void shmem_teams_init(void);
/* The deprecated active sets' groups (coll.c), at shmem_finalize. */
void shmem_asets_free(void);
/* Team checks: ends the job with a message on a bad or destroyed team. */
struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine);
void shmem_team_barrier(struct shmem_team_s *t);
/* The world PE of team PE i (teams are always start/stride: no table to look at). */
static inline int shmem_team_pe(const struct shmem_team_s *t, int i) { return t->g.m.start + i * t->g.m.stride; }

/* --- Contexts ------------------------------------------------------------------------
 * A context: its team's PE numbering; kept after destroy so that later use
 * is reported. */
struct shmem_ctx_s {
    union {
        struct { struct shmem_team_s *team; int destroyed; };
        char abi_size[SHMEM_CTX_ABI_SIZE];
    };
};
_Static_assert(sizeof(struct shmem_ctx_s) == SHMEM_CTX_ABI_SIZE, "struct shmem_ctx_s outgrew its exported size");
_Noreturn void shmem_ctx_bad(shmem_ctx_t ctx, int pe, const char *routine) __attribute__((cold));
/* The world PE of the context's team PE pe; ends the job on a bad context or PE. */
static inline int shmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (SM_UNLIKELY(!ctx || ctx->destroyed || ctx->team->destroyed || (unsigned)pe >= (unsigned)ctx->team->g.m.size))
        shmem_ctx_bad(ctx, pe, routine);
    return shmem_team_pe(ctx->team, pe);
}

#endif
