/* coll.c: OpenSHMEM teams and collectives: argument checks, then one call
 * into the collective engine (src/coll), which does them in place on the
 * PEs' memory. Teams are the engine's groups; the deprecated active-set
 * forms are its active sets, with pSync and pWrk unused. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "shmem_internal.h"

struct shmem_team_s shmem_team_world_s, shmem_team_shared_s;

/* An engine status: nothing, or the job ends with the routine and the reason. */
static inline void done(sm_status_t st, const char *routine)
{
    if (SM_UNLIKELY(st)) shmem_fail_status(routine, st);
}

/* A collective's buffer must be symmetric (the engine could reach any
 * memory, the specification asks for this): checked as puts are. */
static inline void symmetric(const void *p, size_t len, const char *routine)
{
    if (len) shmem_xlate(sm_core.rank, p, len, routine);
}

void shmem_teams_init(void)
{
    struct sm_group all = { sm_core.world_size, sm_core.rank, 0, 1, NULL };
    done(coll_group_create(&shmem_team_world_s.g, &all, NULL), "shmem_init");
    /* SHMEM_TEAM_SHARED: the PEs whose memory shmem_ptr reaches, those of
     * the node (a team is start and stride: the node's block of consecutive
     * ranks, or this PE alone if the node's ranks are not consecutive). */
    struct sm_group shared = all;
    if (sm_spans_nodes()) {
        int lo = sm_core.rank, hi = sm_core.rank;
        while (lo > 0 && sm_rank_local(lo - 1)) lo--;
        while (hi + 1 < sm_core.world_size && sm_rank_local(hi + 1)) hi++;
        if (hi - lo + 1 != sm_core.nlocal) lo = hi = sm_core.rank;
        shared = (struct sm_group){ hi - lo + 1, sm_core.rank - lo, lo, 1, NULL };
    }
    done(coll_group_create(&shmem_team_shared_s.g, &shared, &shmem_team_world_s.g), "shmem_init");
}

struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine)
{
    shmem_require_init(routine);
    if (!team) shmem_fail("%s: team is SHMEM_TEAM_INVALID", routine);
    if (team->destroyed) shmem_fail("%s: team %p was destroyed", routine, (void *)team);
    if (team->g.m.me < 0) shmem_fail("%s: PE %d is not a member of team %p", routine, sm_core.rank, (void *)team);
    return team;
}

void shmem_team_barrier(struct shmem_team_s *t)
{
    shmem_order(true, "shmem_barrier");
    coll_barrier(&t->g);
}

void shmem_barrier_all(void) { shmem_team_barrier(shmem_team_check(SHMEM_TEAM_WORLD, "shmem_barrier_all")); }
void shmem_sync_all(void) { shmem_team_barrier(shmem_team_check(SHMEM_TEAM_WORLD, "shmem_sync_all")); }
int shmem_team_sync(shmem_team_t team) { shmem_team_barrier(shmem_team_check(team, "shmem_team_sync")); return 0; }

/* --- Teams ------------------------------------------------------------------------ */
int shmem_team_my_pe(shmem_team_t team)
{
    if (!team) return -1;
    return shmem_team_check(team, "shmem_team_my_pe")->g.m.me;
}
int shmem_team_n_pes(shmem_team_t team)
{
    if (!team) return -1;
    return shmem_team_check(team, "shmem_team_n_pes")->g.m.size;
}
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (!team) return -1;   /* the specification: nonzero for SHMEM_TEAM_INVALID */
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_get_config");
    if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS)) config->num_contexts = t->num_contexts;
    return 0;
}
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!src_team || !dest_team) return -1;
    if (src_team->destroyed || dest_team->destroyed)
        shmem_fail("shmem_team_translate_pe: team %p was destroyed",
                 (void *)(src_team->destroyed ? src_team : dest_team));
    if (src_pe < 0 || src_pe >= src_team->g.m.size) return -1;
    return coll_group_index(&dest_team->g, shmem_team_pe(src_team, src_pe));
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_ptr");
    return pe < 0 || pe >= t->g.m.size ? NULL : shmem_lookup(shmem_team_pe(t, pe), dest, "shmem_team_ptr");
}

/* Collective over parent: the new team's members are parent PEs start +
 * i*stride, i < size (world PEs pstart + that*pstride). The engine gives
 * it a number free in every parent member, so teams may be split and
 * destroyed without end. */
static int split(struct shmem_team_s *p, int start, int stride, int size, shmem_team_t *new_team,
                 const shmem_team_config_t *config, long config_mask, const char *routine)
{
    struct shmem_team_s t = { .num_contexts = config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS) ? config->num_contexts : 0 };
    struct sm_group m = { size, -1, shmem_team_pe(p, start), stride * p->g.m.stride, NULL };
    t.g.m = m;
    m.me = coll_group_index(&t.g, sm_core.rank);
    done(coll_group_create(&t.g, &m, &p->g), routine);
    *new_team = SHMEM_TEAM_INVALID;
    if (m.me < 0) return 0;
    struct shmem_team_s *n = malloc(sizeof *n);
    if (!n) shmem_fail("%s: out of memory", routine);
    *n = t;
    *new_team = n;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    if (!new_team) shmem_fail("shmem_team_split_strided: new_team is NULL");
    /* The specification: an invalid parent gives an invalid team and nonzero. */
    if (!parent_team) { *new_team = SHMEM_TEAM_INVALID; return -1; }
    struct shmem_team_s *p = shmem_team_check(parent_team, "shmem_team_split_strided");
    /* Valid: size >= 1 and start + i*stride a parent PE for every i < size.
     * A negative stride lists the PEs downwards from start (reverse order);
     * stride 0 names one PE, so it needs size 1. */
    long last = (long)start + (long)(size - 1) * stride;
    if (size < 1 || (stride == 0 && size > 1) || start < 0 || start >= p->g.m.size || last < 0 || last >= p->g.m.size) {
        if (p->g.m.me == 0)   /* not an error (the caller is told): one line for the job, not one per PE */
            sm_say("shmem_team_split_strided: start %d, stride %d, size %d do not fit the parent team of %d PEs",
                   start, stride, size, p->g.m.size);
        *new_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return split(p, start, size == 1 ? 1 : stride, size, new_team, config, config_mask, "shmem_team_split_strided");
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team,
                        const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (!xaxis_team || !yaxis_team) shmem_fail("shmem_team_split_2d: a new team pointer is NULL");
    if (!parent_team) { *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID; return -1; }
    struct shmem_team_s *p = shmem_team_check(parent_team, "shmem_team_split_2d");
    if (xrange < 1) {
        if (p->g.m.me == 0) sm_say("shmem_team_split_2d: xrange %d must be positive", xrange);
        *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    int n = p->g.m.size;
    if (xrange > n) xrange = n;
    int me = p->g.m.me, row = me / xrange, col = me % xrange;
    int xsize = n - row * xrange < xrange ? n - row * xrange : xrange;
    split(p, row * xrange, 1, xsize, xaxis_team, xaxis_config, xaxis_mask, "shmem_team_split_2d");
    split(p, col, xrange, (n - col + xrange - 1) / xrange, yaxis_team, yaxis_config, yaxis_mask,
          "shmem_team_split_2d");
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    if (!team) return;   /* the specification: no operation for SHMEM_TEAM_INVALID */
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_destroy");
    if (t == SHMEM_TEAM_WORLD || t == SHMEM_TEAM_SHARED)
        shmem_fail("shmem_team_destroy: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
    t->destroyed = 1;   /* kept, not freed: later use is reported, not undefined */
    coll_group_destroy(&t->g);   /* the number may serve a new team */
}

/* --- Deprecated active sets ---------------------------------------------------------
 * The set (start, 2^logstride, size): on one node an active set of the
 * engine, in *t (nothing to create: pSync is not needed). A set with
 * members on other nodes needs a group of its own over point-to-point (the
 * engine's active sets reach every member's memory): the first call on the
 * set makes it, kept to the end. The specification has the set's members
 * make the same calls on it in the same order, so they make it together. */
struct aset_team {
    struct aset_team *next;
    int start, logstride, size;
    struct shmem_team_s t;
};
static struct aset_team *asets;
static pthread_mutex_t asets_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shmem_team_s *aset_spanning(int start, int logstride, int size, const char *routine)
{
    pthread_mutex_lock(&asets_lock);
    struct aset_team *a = asets;
    while (a && (a->start != start || a->logstride != logstride || a->size != size)) a = a->next;
    pthread_mutex_unlock(&asets_lock);
    if (a) return &a->t;
    /* Made outside the lock: two threads may make two sets at once (one set
     * from two threads at once is the program's error). */
    if (!(a = calloc(1, sizeof *a))) shmem_fail("%s: out of memory", routine);
    a->start = start, a->logstride = logstride, a->size = size;
    done(coll_group_aset_span(&a->t.g, start, logstride, size), routine);
    pthread_mutex_lock(&asets_lock);
    a->next = asets, asets = a;
    pthread_mutex_unlock(&asets_lock);
    return &a->t;
}

static struct shmem_team_s *aset(struct shmem_team_s *t, int start, int logstride, int size, const char *routine)
{
    shmem_require_init(routine);
    if (start < 0 || logstride < 0 || logstride > 9 || size < 1 || size > sm_core.world_size ||
        (long)start + ((long)(size - 1) << logstride) >= sm_core.world_size)
        shmem_fail("%s: active set PE_start %d, logPE_stride %d, PE_size %d does not fit %d PEs",
                 routine, start, logstride, size, sm_core.world_size);
    *t = (struct shmem_team_s){ 0 };
    coll_group_aset(&t->g, start, logstride, size);
    if (t->g.m.me < 0)
        shmem_fail("%s: PE %d is not in the active set PE_start %d, logPE_stride %d, PE_size %d",
                 routine, sm_core.rank, start, logstride, size);
    return SM_UNLIKELY(coll_aset_spans(&t->g)) ? aset_spanning(start, logstride, size, routine) : t;
}

/* The sets' groups, at shmem_finalize (local: nothing of them is in the areas). */
void shmem_asets_free(void)
{
    pthread_mutex_lock(&asets_lock);
    for (struct aset_team *a = asets, *next; a; a = next) {
        next = a->next;
        coll_group_destroy(&a->t.g);
        free(a);
    }
    asets = NULL;
    pthread_mutex_unlock(&asets_lock);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    struct shmem_team_s set;
    shmem_team_barrier(aset(&set, PE_start, logPE_stride, PE_size, "shmem_barrier"));
}

void (shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    struct shmem_team_s set;
    shmem_team_barrier(aset(&set, PE_start, logPE_stride, PE_size, "shmem_sync"));
}

/* --- Data movement ------------------------------------------------------------------- */
static size_t cbytes(size_t nelems, size_t elem, const char *routine)
{
    size_t n;
    if ((ptrdiff_t)nelems < 0) shmem_fail("%s: nelems %td is negative", routine, (ptrdiff_t)nelems);
    if (__builtin_mul_overflow(nelems, elem, &n)) shmem_fail("%s: %zu elements overflow", routine, nelems);
    return n;
}

/* to_root: the root's dest receives the data too (teams; not active sets). */
static void bcast(struct shmem_team_s *t, void *dest, const void *src, size_t len, int root,
                  bool to_root, const char *routine)
{
    if (root < 0 || root >= t->g.m.size)
        shmem_fail("%s: PE_root %d out of range (team of %d PEs)", routine, root, t->g.m.size);
    symmetric(dest, len, routine);
    if (t->g.m.me == root) symmetric(src, len, routine);
    done(coll_bcast(&t->g, to_root || t->g.m.me != root ? dest : NULL, src, len, root), routine);
}

/* fixed: every PE contributes len bytes; otherwise each its own. */
static void collect(struct shmem_team_s *t, void *dest, const void *src, size_t len, bool fixed,
                    const char *routine)
{
    symmetric(src, len, routine);
    if (fixed) symmetric(dest, len * (size_t)t->g.m.size, routine);
    done(fixed ? coll_allgather(&t->g, dest, src, len) : coll_collect(&t->g, dest, src, len), routine);
}

static void alltoalls(struct shmem_team_s *t, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                      size_t elem, size_t nelems, const char *routine)
{
    if ((ptrdiff_t)nelems < 0) shmem_fail("%s: nelems %td is negative", routine, (ptrdiff_t)nelems);
    done(coll_alltoalls(&t->g, dest, src, dst, sst, elem, nelems), routine);
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    bcast(shmem_team_check(team, "shmem_broadcastmem"), dest, source, cbytes(nelems, 1, "shmem_broadcastmem"),
          PE_root, true, "shmem_broadcastmem");
    return 0;
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    collect(shmem_team_check(team, "shmem_collectmem"), dest, source, cbytes(nelems, 1, "shmem_collectmem"), false,
            "shmem_collectmem");
    return 0;
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    collect(shmem_team_check(team, "shmem_fcollectmem"), dest, source, cbytes(nelems, 1, "shmem_fcollectmem"), true,
            "shmem_fcollectmem");
    return 0;
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    /* one element of nelems bytes per block (none when nelems is 0) */
    alltoalls(shmem_team_check(team, "shmem_alltoallmem"), dest, source, 1, 1, nelems ? nelems : 1,
              nelems ? 1 : 0, "shmem_alltoallmem");
    return 0;
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    alltoalls(shmem_team_check(team, "shmem_alltoallsmem"), dest, source, dst, sst, 1, nelems, "shmem_alltoallsmem");
    return 0;
}

#define DEF_COLL(N, T) \
int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) \
{ bcast(shmem_team_check(team, "shmem_" #N "_broadcast"), dest, source, \
        cbytes(nelems, sizeof(T), "shmem_" #N "_broadcast"), PE_root, true, "shmem_" #N "_broadcast"); return 0; } \
int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) \
{ collect(shmem_team_check(team, "shmem_" #N "_collect"), dest, source, \
          cbytes(nelems, sizeof(T), "shmem_" #N "_collect"), false, "shmem_" #N "_collect"); return 0; } \
int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) \
{ collect(shmem_team_check(team, "shmem_" #N "_fcollect"), dest, source, \
          cbytes(nelems, sizeof(T), "shmem_" #N "_fcollect"), true, "shmem_" #N "_fcollect"); return 0; } \
int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) \
{ alltoalls(shmem_team_check(team, "shmem_" #N "_alltoall"), dest, source, 1, 1, sizeof(T), nelems, \
            "shmem_" #N "_alltoall"); return 0; } \
int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems) \
{ alltoalls(shmem_team_check(team, "shmem_" #N "_alltoalls"), dest, source, dst, sst, sizeof(T), nelems, \
            "shmem_" #N "_alltoalls"); return 0; }
SHMEM_RMA_TYPES(DEF_COLL)

#define DEF_ASET_SIZE(S) \
void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_broadcast" #S); \
  bcast(t, dest, source, cbytes(nelems, S / 8, "shmem_broadcast" #S), PE_root, false, "shmem_broadcast" #S); } \
void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_collect" #S); \
  collect(t, dest, source, cbytes(nelems, S / 8, "shmem_collect" #S), false, "shmem_collect" #S); } \
void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_fcollect" #S); \
  collect(t, dest, source, cbytes(nelems, S / 8, "shmem_fcollect" #S), true, "shmem_fcollect" #S); } \
void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_alltoall" #S); \
  alltoalls(t, dest, source, 1, 1, S / 8, nelems, "shmem_alltoall" #S); }
#define DEF_ASET_ALLTOALLS(S) \
void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_alltoalls" #S); \
  alltoalls(t, dest, source, dst, sst, S / 8, nelems, "shmem_alltoalls" #S); }
DEF_ASET_ALLTOALLS(32)
DEF_ASET_ALLTOALLS(64)
DEF_ASET_SIZE(32)
DEF_ASET_SIZE(64)

/* --- Reductions: the engine's kernels, in place (dest may be source) ------------------ */
#define REDOP_and  COLL_BAND
#define REDOP_or   COLL_BOR
#define REDOP_xor  COLL_BXOR
#define REDOP_max  COLL_MAX
#define REDOP_min  COLL_MIN
#define REDOP_sum  COLL_SUM
#define REDOP_prod COLL_PROD

static void reduce(struct shmem_team_s *t, void *dest, const void *source, size_t n, enum coll_dtype type,
                   enum coll_redop op, const char *routine)
{
    if ((ptrdiff_t)n < 0) shmem_fail("%s: nreduce %td is negative", routine, (ptrdiff_t)n);
    size_t len = n * coll_dtype_size(type);
    symmetric(source, len, routine);
    symmetric(dest, len, routine);
    done(coll_reduce(&t->g, dest, source, n, type, op, COLL_ALL), routine);
}

#define DEF_RED(N, T, OP) \
int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) \
{ reduce(shmem_team_check(team, "shmem_" #N "_" #OP "_reduce"), dest, source, nreduce, COLL_DTYPE_OF(T), \
         REDOP_##OP, "shmem_" #N "_" #OP "_reduce"); return 0; }
#define DEF_RED_BIT(N, T) DEF_RED(N, T, and) DEF_RED(N, T, or) DEF_RED(N, T, xor)
#define DEF_RED_MM(N, T) DEF_RED(N, T, max) DEF_RED(N, T, min)
#define DEF_RED_AR(N, T) DEF_RED(N, T, sum) DEF_RED(N, T, prod)
SHMEM_REDUCE_BIT_TYPES(DEF_RED_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_RED_MM)
SHMEM_REDUCE_ARITH_TYPES(DEF_RED_AR)

/* The deprecated *_to_all: the same, over an active set. */
#define DEF_TOALL(N, T, OP) \
void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync) \
{ \
    (void)pWrk, (void)pSync; \
    struct shmem_team_s set, *t = aset(&set, PE_start, logPE_stride, PE_size, "shmem_" #N "_" #OP "_to_all"); \
    if (nreduce < 0) shmem_fail("shmem_" #N "_" #OP "_to_all: nreduce %d is negative", nreduce); \
    reduce(t, dest, source, (size_t)nreduce, COLL_DTYPE_OF(T), REDOP_##OP, "shmem_" #N "_" #OP "_to_all"); \
}
#define DEF_TOALL_BIT(N, T) DEF_TOALL(N, T, and) DEF_TOALL(N, T, or) DEF_TOALL(N, T, xor)
#define DEF_TOALL_MM(N, T) DEF_TOALL(N, T, max) DEF_TOALL(N, T, min)
#define DEF_TOALL_AR(N, T) DEF_TOALL(N, T, sum) DEF_TOALL(N, T, prod)
SHMEM_TOALL_BIT_TYPES(DEF_TOALL_BIT)
SHMEM_TOALL_MINMAX_TYPES(DEF_TOALL_MM)
SHMEM_TOALL_ARITH_TYPES(DEF_TOALL_AR)
