/* coll.c: OpenSHMEM teams and collectives, in place on peers' memory
 * (DESIGN.md §4): after a barrier every PE pulls what it needs straight from
 * its peers' symmetric sources into its own destination, then a second
 * barrier keeps the sources intact until all have read them. Also the
 * deprecated active-set forms, which are teams without a handle. */
#include <stdbool.h>
#include <stdlib.h>

#include "shmem_internal.h"

struct shmem_team_s shmem_team_world_s, shmem_team_shared_s;

static _Atomic uint32_t *team_sync(int root, uint64_t off)
{
    return (_Atomic uint32_t *)((char *)sm_area(root, SM_AREA_SHMEM) + off);
}

/* The index of world PE pe in team t, or -1. The stride may be negative
 * (a team in reverse order of its parent): start is then its highest PE. */
static int team_index(const struct shmem_team_s *t, int pe)
{
    int d = pe - t->start;
    return d % t->stride == 0 && d / t->stride >= 0 && d / t->stride < t->size ? d / t->stride : -1;
}

static void team_set(struct shmem_team_s *t, int start, int stride, int size, int id, _Atomic uint32_t *sync)
{
    *t = (struct shmem_team_s){start, stride, size, -1, id, 0, 0, sync};
    t->my_pe = team_index(t, sm_core.rank);
}

/* Mark team number id used (or free) in this PE's published set. */
static void team_mark(int id, int used)
{
    uint64_t *w = &shmem_pub_of(sm_core.rank)->team_used[id / 64], bit = 1ULL << (id % 64);
    __atomic_store_n(w, used ? *w | bit : *w & ~bit, __ATOMIC_RELAXED);
}

void shmem_teams_init(void)
{
    team_set(&shmem_team_world_s, 0, 1, sm_core.size, 0, team_sync(0, SHMEM_TEAM_OFF));
    team_set(&shmem_team_shared_s, 0, 1, sm_core.size, 1, team_sync(0, SHMEM_TEAM_OFF + 64));
    team_mark(0, 1), team_mark(1, 1);   /* world and shared: numbers 0 and 1 */
}

struct shmem_team_s *shmem_team_check(shmem_team_t team, const char *routine)
{
    shmem_require_init(routine);
    if (!team) shmem_fail("%s: team is SHMEM_TEAM_INVALID", routine);
    if (team->destroyed) shmem_fail("%s: team %p was destroyed", routine, (void *)team);
    if (team->my_pe < 0) shmem_fail("%s: PE %d is not a member of team %p", routine, sm_core.rank, (void *)team);
    return team;
}

/* Central counter and generation in the team root's area (as sm_barrier). */
void shmem_team_barrier(struct shmem_team_s *t)
{
    rma_quiet();
    if (t->size == 1) return;
    _Atomic uint32_t *arrived = t->sync, *gen = t->sync + 1;
    uint32_t g = atomic_load_explicit(gen, memory_order_acquire);
    if (atomic_fetch_add(arrived, 1) == (uint32_t)t->size - 1) {
        atomic_store_explicit(arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(gen, 1, memory_order_release);
        sm_wake_word((volatile uint32_t *)gen);
    } else {
        while (atomic_load_explicit(gen, memory_order_acquire) == g)
            sm_wait_word((volatile uint32_t *)gen, g);
    }
}

void shmem_barrier_all(void) { shmem_team_barrier(shmem_team_check(SHMEM_TEAM_WORLD, "shmem_barrier_all")); }
void shmem_sync_all(void) { shmem_team_barrier(shmem_team_check(SHMEM_TEAM_WORLD, "shmem_sync_all")); }
int shmem_team_sync(shmem_team_t team) { shmem_team_barrier(shmem_team_check(team, "shmem_team_sync")); return 0; }

/* --- Teams ------------------------------------------------------------------------ */
int shmem_team_my_pe(shmem_team_t team)
{
    if (!team) return -1;
    return shmem_team_check(team, "shmem_team_my_pe")->my_pe;
}
int shmem_team_n_pes(shmem_team_t team)
{
    if (!team) return -1;
    return shmem_team_check(team, "shmem_team_n_pes")->size;
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
    if (src_pe < 0 || src_pe >= src_team->size) return -1;
    return team_index(dest_team, shmem_team_pe(src_team, src_pe));
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_ptr");
    return pe < 0 || pe >= t->size ? NULL : shmem_lookup(shmem_team_pe(t, pe), dest, "shmem_team_ptr");
}

/* Collective over parent: every member gets the same new team number, the
 * lowest one that no parent member is using, so the new team's barrier
 * state (in its first PE's area, at the number's place) is used by no live
 * team: any team with that first PE has that PE as a member, and it is in
 * the parent. Numbers of destroyed teams are taken again, so a program may
 * split and destroy without end. Members of the new team are parent PEs
 * start + i*stride, i < size (world: pstart + that*pstride). */
static int split(struct shmem_team_s *p, int start, int stride, int size, shmem_team_t *new_team,
                 const shmem_team_config_t *config, long config_mask, const char *routine)
{
    shmem_team_barrier(p);    /* every member's set of numbers is current */
    int id = -1;
    for (int w = 0; w < SHMEM_TEAM_MAX / 64 && id < 0; w++) {
        uint64_t used = 0;
        for (int i = 0; i < p->size; i++)
            used |= __atomic_load_n(&shmem_pub_of(shmem_team_pe(p, i))->team_used[w], __ATOMIC_RELAXED);
        if (~used) id = w * 64 + __builtin_ctzll(~used);
    }
    shmem_team_barrier(p);    /* all have read the sets before a member marks its own */
    if (id < 0) shmem_fail("%s: more than %d teams at once", routine, SHMEM_TEAM_MAX);
    *new_team = SHMEM_TEAM_INVALID;
    if (size < 1) return 0;
    int wstart = shmem_team_pe(p, start);
    struct shmem_team_s t;
    team_set(&t, wstart, stride * p->stride, size, id, team_sync(wstart, SHMEM_TEAM_OFF + (uint64_t)id * 64));
    if (t.my_pe < 0) return 0;
    team_mark(id, 1);
    struct shmem_team_s *n = malloc(sizeof *n);
    if (!n) shmem_fail("%s: out of memory", routine);
    t.num_contexts = config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS) ? config->num_contexts : 0;
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
    if (size < 1 || (stride == 0 && size > 1) || start < 0 || start >= p->size || last < 0 || last >= p->size) {
        if (p->my_pe == 0)   /* not an error (the caller is told): one line for the job, not one per PE */
            sm_say("shmem_team_split_strided: start %d, stride %d, size %d do not fit the parent team of %d PEs",
                   start, stride, size, p->size);
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
        if (p->my_pe == 0) sm_say("shmem_team_split_2d: xrange %d must be positive", xrange);
        *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    if (xrange > p->size) xrange = p->size;
    int me = p->my_pe, row = me / xrange, col = me % xrange;
    int xsize = p->size - row * xrange < xrange ? p->size - row * xrange : xrange;
    split(p, row * xrange, 1, xsize, xaxis_team, xaxis_config, xaxis_mask, "shmem_team_split_2d");
    split(p, col, xrange, (p->size - col + xrange - 1) / xrange, yaxis_team, yaxis_config, yaxis_mask,
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
    team_mark(t->id, 0);   /* the number may serve a new team */
}

/* --- Deprecated active sets ---------------------------------------------------------
 * The set (start, 2^logstride, size) has its barrier state in its first PE's
 * area, indexed by (logstride, size): the same for every member, distinct
 * for distinct sets that share a first PE. pSync is not needed. */
static struct shmem_team_s aset(int start, int logstride, int size, const char *routine)
{
    shmem_require_init(routine);
    if (start < 0 || logstride < 0 || logstride > 9 || size < 1 || size > sm_core.size ||
        (long)start + ((long)(size - 1) << logstride) >= sm_core.size)
        shmem_fail("%s: active set PE_start %d, logPE_stride %d, PE_size %d does not fit %d PEs",
                 routine, start, logstride, size, sm_core.size);
    struct shmem_team_s t;
    team_set(&t, start, 1 << logstride, size, -1,
             team_sync(start, SHMEM_ASET_OFF + ((uint64_t)logstride * (SM_NMAX + 1) + (uint64_t)size) * 64));
    if (t.my_pe < 0)
        shmem_fail("%s: PE %d is not in the active set PE_start %d, logPE_stride %d, PE_size %d",
                 routine, sm_core.rank, start, logstride, size);
    return t;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_barrier");
    shmem_team_barrier(&t);
}

void (shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_sync");
    shmem_team_barrier(&t);
}

/* --- Collective engines (bytes) ------------------------------------------------------ */
static size_t cbytes(size_t nelems, size_t elem, const char *routine)
{
    size_t n;
    if ((ptrdiff_t)nelems < 0) shmem_fail("%s: nelems %td is negative", routine, (ptrdiff_t)nelems);
    if (__builtin_mul_overflow(nelems, elem, &n)) shmem_fail("%s: %zu elements overflow", routine, nelems);
    return n;
}

static void bcast(struct shmem_team_s *t, void *dest, const void *src, size_t len, int root,
                  bool to_root, const char *routine)
{
    if (root < 0 || root >= t->size)
        shmem_fail("%s: PE_root %d out of range (team of %d PEs)", routine, root, t->size);
    shmem_team_barrier(t);
    if (t->my_pe != root) memcpy(dest, shmem_xlate(shmem_team_pe(t, root), src, len, routine), len);
    else if (to_root && dest != src) memmove(dest, src, len);
    shmem_team_barrier(t);
}

/* fixed: every PE contributes len bytes; otherwise each publishes its length. */
static void collect(struct shmem_team_s *t, void *dest, const void *src, size_t len, bool fixed,
                    const char *routine)
{
    if (!fixed) shmem_pub_of(sm_core.rank)->coll_val = len;
    shmem_team_barrier(t);
    size_t off = 0;
    for (int j = 0; j < t->size; j++) {
        int pe = shmem_team_pe(t, j);
        size_t n = fixed ? len : shmem_pub_of(pe)->coll_val;
        memcpy((char *)dest + off, shmem_xlate(pe, src, n, routine), n);
        off += n;
    }
    shmem_team_barrier(t);
}

static void alltoalls(struct shmem_team_s *t, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                      size_t elem, size_t nelems, const char *routine)
{
    shmem_team_barrier(t);
    size_t me = (size_t)t->my_pe;
    for (int j = 0; j < t->size; j++)
        shmem_strided(false, shmem_team_pe(t, j), (char *)dest + (size_t)j * nelems * (size_t)dst * elem,
                      (const char *)src + me * nelems * (size_t)sst * elem, dst, sst, elem, nelems, routine);
    shmem_team_barrier(t);
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    bcast(shmem_team_check(team, "shmem_broadcastmem"), dest, source, nelems, PE_root, true, "shmem_broadcastmem");
    return 0;
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    collect(shmem_team_check(team, "shmem_collectmem"), dest, source, nelems, false, "shmem_collectmem");
    return 0;
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    collect(shmem_team_check(team, "shmem_fcollectmem"), dest, source, nelems, true, "shmem_fcollectmem");
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
{ (void)pSync; struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_broadcast" #S); \
  bcast(&t, dest, source, cbytes(nelems, S / 8, "shmem_broadcast" #S), PE_root, false, "shmem_broadcast" #S); } \
void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_collect" #S); \
  collect(&t, dest, source, cbytes(nelems, S / 8, "shmem_collect" #S), false, "shmem_collect" #S); } \
void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_fcollect" #S); \
  collect(&t, dest, source, cbytes(nelems, S / 8, "shmem_fcollect" #S), true, "shmem_fcollect" #S); } \
void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_alltoall" #S); \
  alltoalls(&t, dest, source, 1, 1, S / 8, nelems, "shmem_alltoall" #S); }
#define DEF_ASET_ALLTOALLS(S) \
void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync) \
{ (void)pSync; struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_alltoalls" #S); \
  alltoalls(&t, dest, source, dst, sst, S / 8, nelems, "shmem_alltoalls" #S); }
DEF_ASET_ALLTOALLS(32)
DEF_ASET_ALLTOALLS(64)
DEF_ASET_SIZE(32)
DEF_ASET_SIZE(64)

/* --- Reductions ---------------------------------------------------------------------
 * Small vectors: every PE reads all members' sources into its own dest.
 * Large ones are sliced (DESIGN.md §4): each PE reduces its slice of the
 * vector across all members' sources, block by block, and writes the result
 * straight into every member's dest; each PE then reads about n elements
 * and writes about n, instead of reading n * size. Either way an element is
 * combined in team order, so results are identical on every PE. Slicing
 * needs a symmetric dest that is the source or disjoint from it (as the
 * specification requires): slice j of every source is read only by the PE
 * that computes slice j, before that PE writes slice j of the dests.
 * Otherwise, when dest overlaps the source, the all-read path goes through a
 * private buffer until all have read. */
#define OP_and(a, b)  ((a) & (b))
#define OP_or(a, b)   ((a) | (b))
#define OP_xor(a, b)  ((a) ^ (b))
#define OP_max(a, b)  ((a) > (b) ? (a) : (b))
#define OP_min(a, b)  ((a) < (b) ? (a) : (b))
#define OP_sum(a, b)  ((a) + (b))
#define OP_prod(a, b) ((a) * (b))
#define RED_SLICE_MIN 8192      /* bytes; below, one pass by every PE is cheaper (bench/shmem coll) */
#define RED_BLOCK     4096      /* bytes reduced at a time: the sources' blocks stay in L1/L2 */

#define DEF_RED_ENGINE(N, T, OP) \
static void red_##N##_##OP(struct shmem_team_s *t, T *dest, const T *source, size_t n, const char *routine) \
{ \
    size_t len = cbytes(n, sizeof(T), routine); \
    bool alias = (uintptr_t)dest < (uintptr_t)source + len && (uintptr_t)source < (uintptr_t)dest + len; \
    if (len >= RED_SLICE_MIN && t->size > 1 && (!alias || dest == source) && rma_sym_xlate(&shmem_sym, sm_core.rank, dest, len)) { \
        /* slices in whole cache lines, so no two PEs write one line of a dest */ \
        size_t per = sizeof(T) >= SM_CACHELINE ? 1 : SM_CACHELINE / sizeof(T), chunks = (n + per - 1) / per; \
        size_t me = (size_t)t->my_pe, P = (size_t)t->size; \
        size_t lo = chunks * me / P * per, hi = chunks * (me + 1) / P * per; \
        if (hi > n) hi = n; \
        T buf[RED_BLOCK / sizeof(T)]; \
        shmem_team_barrier(t); \
        for (size_t b = lo; b < hi; b += RED_BLOCK / sizeof(T)) { \
            size_t m = hi - b < RED_BLOCK / sizeof(T) ? hi - b : RED_BLOCK / sizeof(T); \
            memcpy(buf, shmem_xlate(shmem_team_pe(t, 0), source + b, m * sizeof(T), routine), m * sizeof(T)); \
            for (int j = 1; j < t->size; j++) { \
                const T *s = shmem_xlate(shmem_team_pe(t, j), source + b, m * sizeof(T), routine); \
                for (size_t k = 0; k < m; k++) buf[k] = OP_##OP(buf[k], s[k]); \
            } \
            for (size_t j = 0; j < P; j++) {   /* start after me: writers spread over targets */ \
                int pe = shmem_team_pe(t, (int)((me + 1 + j) % P)); \
                memcpy(shmem_xlate(pe, dest + b, m * sizeof(T), routine), buf, m * sizeof(T)); \
            } \
        } \
        shmem_team_barrier(t); \
        return; \
    } \
    shmem_team_barrier(t); \
    T *acc = alias && len ? malloc(len) : dest; \
    if (!acc) shmem_fail("%s: out of memory for %zu bytes", routine, len); \
    if (len) { \
        memcpy(acc, shmem_xlate(shmem_team_pe(t, 0), source, len, routine), len); \
        for (int j = 1; j < t->size; j++) { \
            const T *s = shmem_xlate(shmem_team_pe(t, j), source, len, routine); \
            for (size_t k = 0; k < n; k++) acc[k] = OP_##OP(acc[k], s[k]); \
        } \
    } \
    shmem_team_barrier(t); \
    if (acc != dest) { memcpy(dest, acc, len); free(acc); } \
}
#define DEF_RED(N, T, OP) DEF_RED_ENGINE(N, T, OP) \
int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) \
{ red_##N##_##OP(shmem_team_check(team, "shmem_" #N "_" #OP "_reduce"), dest, source, nreduce, \
                 "shmem_" #N "_" #OP "_reduce"); return 0; }
#define DEF_RED_BIT(N, T) DEF_RED(N, T, and) DEF_RED(N, T, or) DEF_RED(N, T, xor)
#define DEF_RED_MM(N, T) DEF_RED(N, T, max) DEF_RED(N, T, min)
#define DEF_RED_AR(N, T) DEF_RED(N, T, sum) DEF_RED(N, T, prod)
SHMEM_REDUCE_BIT_TYPES(DEF_RED_BIT)
SHMEM_REDUCE_MINMAX_TYPES(DEF_RED_MM)
SHMEM_REDUCE_ARITH_TYPES(DEF_RED_AR)

/* The deprecated *_to_all: the same engine, over an active set. */
#define DEF_TOALL(N, T, OP) DEF_RED_ENGINE(ta_##N, T, OP) \
void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync) \
{ \
    (void)pWrk, (void)pSync; \
    struct shmem_team_s t = aset(PE_start, logPE_stride, PE_size, "shmem_" #N "_" #OP "_to_all"); \
    if (nreduce < 0) shmem_fail("shmem_" #N "_" #OP "_to_all: nreduce %d is negative", nreduce); \
    red_ta_##N##_##OP(&t, dest, source, (size_t)nreduce, "shmem_" #N "_" #OP "_to_all"); \
}
#define DEF_TOALL_BIT(N, T) DEF_TOALL(N, T, and) DEF_TOALL(N, T, or) DEF_TOALL(N, T, xor)
#define DEF_TOALL_MM(N, T) DEF_TOALL(N, T, max) DEF_TOALL(N, T, min)
#define DEF_TOALL_AR(N, T) DEF_TOALL(N, T, sum) DEF_TOALL(N, T, prod)
SHMEM_TOALL_BIT_TYPES(DEF_TOALL_BIT)
SHMEM_TOALL_MINMAX_TYPES(DEF_TOALL_MM)
SHMEM_TOALL_ARITH_TYPES(DEF_TOALL_AR)
