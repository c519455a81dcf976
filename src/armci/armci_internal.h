/* armci_internal.h: what the ARMCI binding's files share: its state, the
 * translation of a remote address (an ARMCI_Malloc region of the target,
 * rma_region.h), groups, and the fatal reports. */
#ifndef ARMCI_INTERNAL_H
#define ARMCI_INTERNAL_H

#include "armci.h"
#include "coll.h"
#include "rma.h"
#include "rma_region.h"

/* --- State and reports --------------------------------------------------------- */
enum armci_state { ARMCI_NEVER, ARMCI_ON, ARMCI_FINALIZED };
extern enum armci_state armci_state;
extern int armci_me, armci_nproc;   /* the caller's absolute id (job rank) and the job's size */

/* Every process's ARMCI_Malloc memory (the regions' data: the allocation). */
extern struct rma_regions armci_regions;

/* One line "routine: message" (sm_say), then the job ends with code 1. */
_Noreturn void armci_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
/* "routine: called before ARMCI_Init" (or after ARMCI_Finalize), else "routine: <the engine's reason>". */
_Noreturn void armci_fail_engine(const char *routine) __attribute__((cold));
/* A collective engine call failed: SM_ERR_PEER means another process's call
 * was at fault and reports it; this one waits (boundedly) for the job to
 * end, then reports too. */
_Noreturn void armci_fail_status(const char *routine, sm_status_t st) __attribute__((cold));

static inline void armci_require_init(const char *routine)
{
    if (SM_UNLIKELY(armci_state != ARMCI_ON)) armci_fail_engine(routine);
}
/* A process id in 0..nproc-1 (the caller's state checked too). */
void armci_check_proc(int proc, const char *routine);

/* --- Remote addresses --------------------------------------------------------------
 * Where the caller reaches [addr, addr + len) of proc's ARMCI memory (len
 * bytes from an int: negative ones are refused as such). The job ends with
 * one line for anything else. len 0 checks only proc (nothing is accessed). */
void *armci_remote_slow(int proc, const void *addr, size_t len, const char *routine) __attribute__((cold, noinline));
static inline __attribute__((always_inline)) void *armci_remote(int proc, const void *addr, size_t len,
                                                                const char *routine)
{
    const struct rma_region *r = rma_regions_find(&armci_regions, proc, addr, len);
    if (SM_LIKELY(r != NULL)) return (void *)((uintptr_t)addr + r->delta);
    return armci_remote_slow(proc, addr, len, routine);
}
/* --- Processes on other nodes ---------------------------------------------------------
 * (a job a PMIx launcher spread over nodes): the translated address is where
 * the process has the memory in its own slot, reached by UCX (rma_remote);
 * a failure there ends the job naming the routine. Puts are complete at the
 * target at the next armci_quiet (fences, barriers), as ARMCI says. */
void armci_put_remote(int proc, void *dst, const void *src, size_t len, const char *routine)
    __attribute__((cold, noinline));
void armci_get_remote(int proc, void *dst, const void *src, size_t len, const char *routine)
    __attribute__((cold, noinline));
/* len bytes from src to dst (translated) in proc, and back. */
static inline __attribute__((always_inline)) void armci_put(int proc, void *dst, const void *src, size_t len,
                                                            const char *routine)
{
    if (SM_UNLIKELY(rma_remote(proc))) armci_put_remote(proc, dst, src, len, routine);
    else rma_copy(dst, src, len);
}
static inline __attribute__((always_inline)) void armci_get(int proc, void *dst, const void *src, size_t len,
                                                            const char *routine)
{
    if (SM_UNLIKELY(rma_remote(proc))) armci_get_remote(proc, dst, src, len, routine);
    else rma_copy(dst, src, len);
}
/* Every operation of the caller's complete at its target: a full barrier,
 * and across nodes a UCX flush (which also runs this process's worker, so
 * that others' operations on its memory go on: ARMCI_WaitAll in a loop). */
void armci_quiet(const char *routine);

/* A size given as an int: the job ends on a negative one. */
static inline size_t armci_bytes(int bytes, const char *routine)
{
    if (SM_UNLIKELY(bytes < 0)) armci_fail("%s: size %d is negative", routine, bytes);
    return (size_t)bytes;
}

/* --- Groups --------------------------------------------------------------------------
 * Behind ARMCI_Group.impl: the members (absolute ids, in group order) as a
 * group of the collective engine. The world group's lives as long as ARMCI. */
struct armci_igroup {
    struct coll_group cg;       /* cg.m.ranks = abs */
    int *abs;                   /* member i's absolute id */
    MPI_Comm comm;              /* made here, freed here (MPI_COMM_NULL: none) */
};
extern ARMCI_Group armci_world, armci_default;
/* g's internals; the job ends if g is not a live group of which the caller is a member. */
struct armci_igroup *armci_group_check(const ARMCI_Group *g, const char *routine);
/* Group rank of absolute id proc in g, or -1. */
int armci_group_rank_of(const struct armci_igroup *g, int proc);
void armci_groups_init(void);
void armci_groups_finalize(void);

/* --- Accumulate ------------------------------------------------------------------------
 * dst (translated, proc's) += scale * src over bytes, element by element
 * atomically; the job ends on a bad type or a size that is not a multiple
 * of its elements. */
void armci_acc(int datatype, const void *scale, const void *src, void *dst, size_t bytes, int proc,
               const char *routine);
/* The accumulate locks (one per process, for the elements no CPU atomic
 * can update: misaligned ones, or 16 bytes without cmpxchg16b). */
sm_status_t armci_acc_init(void);
void armci_acc_finalize(void);

/* Every ARMCI allocation and mutex set made over the world group is released at Finalize. */
void armci_memory_finalize(void);
void armci_mutex_finalize(void);

#endif
