/* reduce.c: the reductions (DESIGN.md §4, seed 000 §3.4, §3.6): reduce,
 * allreduce, reduce-scatter, scan and exscan, with the predefined kernels
 * (kernels.c) or a user function, in member order.
 *
 * Serial, for small vectors: every member whose source others need sends a
 * copy in its record (C arrays of the type; packed elements for user
 * functions) and completes without waiting (2 members on cores of their
 * own: past the record, the source itself, and the reader waited for:
 * coll_carrier); each member that needs a
 * result (the root, or everyone) combines the copies itself.
 * Sliced, for large ones: every member publishes its source and
 * destination, and the members claim chunks of the vector from a counter in
 * member 0's record: whoever claims a chunk combines it across every
 * source, straight out of the peers' buffers, and writes the result
 * straight into the destinations (the root's; everyone's for an
 * allreduce; the block's owner's for a reduce-scatter; each prefix into its
 * member's for a scan). A member that waits has work while chunks are left:
 * when ranks outnumber cores, those that run do the work.
 *
 * Crossovers, measured on this machine (2 cores, under other helpers' load
 * of 30-45: provisional) with
 *   bench/mpi/crossover.sh "2 4" 5 65536
 * (every reduction serial against every one sliced, every broadcast plain
 * against every one cooperative; medians of 5 alternated runs; sliced/serial
 * time, below 1 the sliced or cooperative algorithm wins):
 *   bytes        4     64    256    1K     4K    16K    64K
 *   2 ranks
 *   reduce     0.86  0.94  1.66  1.53   0.38   0.45   0.48   -> serial to 2 KiB
 *   allreduce  0.91  0.77  0.57  1.13   1.69   0.81   0.84   -> serial to 8 KiB
 *   bcast      (noise below 4 KiB)     1.37   0.53   0.63   -> cooperative from 16 KiB
 *   4 ranks on 2 cores
 *   reduce     1.69  1.96  1.26  1.58   1.01   0.59   0.44   -> serial to 4 KiB
 *   allreduce  1.24  1.23  0.83  0.83   0.89   0.26   0.37   -> serial to 4 KiB
 *   bcast      (noise)                 0.86   1.27   1.15   -> cooperative from 64 KiB
 * Below 1 KiB both algorithms take the same few microseconds and the
 * ratios are the load's noise.
 *
 * Crowded: three or more members a CPU (2026-11-28, 2 cores, other helpers'
 * load of 13-17) with
 *   OPS=Reduce,Allreduce,Scan,Exscan bench/mpi/crossover.sh "4 6 8" 5 16384
 *   bytes        4     64    256    1K     4K    16K
 *   6 ranks on 2 cores
 *   reduce     1.09  0.96   1.56  1.13   1.19   0.45   -> as 4 ranks
 *   allreduce  0.87  0.92   2.18  1.15   1.08   0.30   -> as 4 ranks
 *   scan       1.04  0.99   0.46  0.58   0.35   0.82   -> serial only inline
 *   8 ranks on 2 cores
 *   reduce     0.81  1.06   0.17  0.23   0.23   0.68   -> serial only inline
 *   scan       1.11  0.97   0.23  0.28   0.21   0.39   -> serial only inline
 *   exscan     0.95  0.89   0.18  0.16   0.27   0.30   -> serial only inline
 *   allreduce  1.15  1.14   0.86  0.96   0.76   0.28   -> serial to 2 KiB
 * (4 ranks gave the table above again: serial to 4 KiB.) A serial member
 * whose readers lag runs ahead as far as its bounce buffer's parts go
 * (COLL_BOUNCES calls), then waits for them, and crowded such waits sleep:
 * 8 ranks, 4 KiB reduces, 1.6 sleeps a call serial against 0.003 sliced
 * (SMARTMAP_STATS), 45-55 us a call against 10-14. Members that all need
 * every source (allreduce) do not run ahead.
 *
 * A source past the record, 2 members on cores of their own: copied into
 * the bounce buffer, or published in place and its reader waited for
 * (coll_internal.h COLL_CARRY_MAX_2; 2026-11-28, load 5, medians of 7
 * alternated runs, in place/copied):
 *   OPS=Allgather,Alltoall,Gather,Scatter SMRUN_ARGS="--bind-to core" \
 *   bench/mpi/crossover.sh 2 7 4096
 *   bytes        4     16     64    256     1K     4K
 *   allgather  1.01   0.99   1.03   1.03   0.61   0.39
 *   alltoall   0.98   0.99   1.00   1.08   0.64   0.42
 *   gather     0.98   0.98   1.00   0.81   0.48   0.25
 *   scatter    1.01   0.99   1.00   0.74   0.48   0.31  -> in place past the record (96 B)
 * (up to 96 B both builds carry it in the record: the same code.) */
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

#define RED_BLOCK 4096          /* bytes combined at a time: the chunk's sources stay in L1 */

/* The crossovers of the table above; bench/mpi/crossover.sh builds with
 * -DCOLL_SERIAL_MAX_...=... to try others. */
#ifndef COLL_SERIAL_MAX_ROOTED
#define COLL_SERIAL_MAX_ROOTED 2048     /* a reduce to a root, 2 members */
#endif
#ifndef COLL_SERIAL_MAX_2
#define COLL_SERIAL_MAX_2 8192          /* the others, 2 members (at most COLL_BOUNCE, where members share cores) */
#endif
#ifndef COLL_SERIAL_MAX_N
#define COLL_SERIAL_MAX_N 4096          /* every reduction, more members */
#endif
#ifndef COLL_DIRECT_MAX
#define COLL_DIRECT_MAX (512 * 1024)    /* a two members' exscan copied once by member 1 (setup) */
#endif
#ifndef COLL_SERIAL_MAX_AHEAD
#define COLL_SERIAL_MAX_AHEAD COLL_INLINE   /* reduce, scan, exscan, crowded (below): the record's copy only */
#endif
#ifndef COLL_SERIAL_MAX_CROWDED
#define COLL_SERIAL_MAX_CROWDED 2048        /* allreduce, reduce-scatter, four members a CPU or more */
#endif
static size_t serial_max(int n, enum coll_kind k)
{
    if (n <= 2) return k == COLL_REDUCE ? COLL_SERIAL_MAX_ROOTED : COLL_SERIAL_MAX_2;
    int per_cpu = sm_per_cpu(n);      /* on the CPUs the ranks may run on (a confined job's few) */
    bool scan = k == COLL_SCAN || k == COLL_EXSCAN;
    if (per_cpu >= 4) return k == COLL_REDUCE || scan ? COLL_SERIAL_MAX_AHEAD : COLL_SERIAL_MAX_CROWDED;
    if (per_cpu >= 3 && scan) return COLL_SERIAL_MAX_AHEAD;
    return COLL_SERIAL_MAX_N;
}

static bool is_red(enum coll_kind k) { return k >= COLL_REDUCE && k <= COLL_EXSCAN; }

/* This member's source as a buffer: src, or dst in place (a reduce-scatter's
 * whole vector: n blocks' elements of dst's type). */
static struct coll_buf my_src(const struct coll_op *o)
{
    if (o->a->src.base != COLL_IN_PLACE) return o->a->src;
    struct coll_buf b = o->a->dst;
    if (o->a->kind == COLL_REDUCE_SCATTER) {
        size_t total = 0;
        for (int i = 0; i < o->n; i++)
            total += b.counts ? (size_t)(b.counts[i] > 0 ? b.counts[i] : 0) : b.count;
        b.count = total, b.counts = NULL, b.displs = NULL;
    }
    return b;
}

/* Elements of a reduction buffer: basic elements of t (predefined), or of the datatype (user). */
static size_t elements(const struct coll_op *o, const struct coll_buf *b)
{
    if (o->r.user) return b->count;
    return b->type ? b->count * b->type->nbasic : b->count / o->r.es_c;
}

/* Does member j's output depend on this kind's sources 0..j (scan), 0..j-1 (exscan), all? */
static bool gets_result(const struct coll_op *o, int i)
{
    switch (o->a->kind) {
    case COLL_REDUCE: return i == o->a->root;
    case COLL_EXSCAN: return i > 0;
    default: return true;
    }
}
/* Is member i's source read by another member (serial)? */
static bool source_read(const struct coll_op *o, int i)
{
    switch (o->a->kind) {
    case COLL_REDUCE: return i != o->a->root;
    case COLL_SCAN: case COLL_EXSCAN: return i < o->n - 1;
    default: return true;
    }
}

/* --- Views and outputs ---------------------------------------------------------------
 * Predefined ops work on C arrays of t; user functions on elements in this
 * member's datatype layout, an extent apart (a pointer to the origin of the
 * chunk's first element). Sources are read in place where their layout is
 * that already, else copied into scratch. */

static const struct coll_lay *lay_of(struct coll_op *o, int j, bool *carried, struct coll_lay *tmp)
{
    if (j == o->me) {
        *carried = false;
        return &o->r.mine;
    }
    struct coll_rec *p = coll_rec_of(o->g, j, o->seq);
    *carried = p->flags & REC_CARRIED;
    return coll_src(p, tmp);
}

/* The C layout of the chunk's elements: NULL (plain bytes) unless t's own layout has padding. */
static inline size_t c_step(const struct coll_op *o) { return o->a->red.elem ? o->r.es_c : o->r.es_s; }

/* A reduce-scatter's carried copy leaves out its carrier's own block, which
 * no reader needs (carry_copy): element e of member j's copy is at e, or
 * past j's block, one block's length back. */
static size_t carried_at(const struct coll_op *o, int j, size_t e)
{
    if (o->a->kind != COLL_REDUCE_SCATTER || e < o->r.bstart[j + 1]) return e;
    return e - (o->r.bstart[j + 1] - o->r.bstart[j]);
}

static const char *view(struct coll_op *o, int j, size_t e0, size_t k, char *scratch)
{
    bool carried;
    struct coll_lay tmp;
    const struct coll_lay *l = lay_of(o, j, &carried, &tmp);
    if (carried) e0 = carried_at(o, j, e0);
    const char *base = (const char *)(uintptr_t)l->base;
    const struct dt_type *T = (const struct dt_type *)(uintptr_t)l->type;
    if (!o->r.user) {
        if (!T) return base + e0 * o->r.es_c;
        if (o->r.es_s == o->r.es_c && T->contig) return base + T->true_lb + e0 * o->r.es_s;
        dt_copy(scratch - e0 * c_step(o), o->a->red.elem, base, T, e0 * o->r.es_s, k * o->r.es_s);
        return scratch;
    }
    const struct dt_type *U = o->r.U;
    size_t ext = (size_t)dt_extent(U);
    if (T && o->r.same[j]) return base + e0 * ext;
    char *origin = scratch - U->true_lb;
    dt_copy(origin - (ptrdiff_t)(e0 * ext), U, base, carried ? NULL : T, e0 * U->size, k * U->size);
    return origin;
}

/* The chunk's result (acc, in the canonical layout) into member i's
 * destination at element e0 of it. */
static void emit(struct coll_op *o, int i, const char *acc, size_t e0, size_t k)
{
    const struct coll_lay *l = i == o->me ? &o->dst : &coll_rec_of(o->g, i, o->seq)->dst;
    char *base = (char *)(uintptr_t)l->base;
    const struct dt_type *T = (const struct dt_type *)(uintptr_t)l->type;
    if (!o->r.user) {
        if (!T) memcpy(base + e0 * o->r.es_c, acc, k * o->r.es_c);
        else if (o->r.es_s == o->r.es_c && T->contig) memcpy(base + T->true_lb + e0 * o->r.es_s, acc, k * o->r.es_s);
        else dt_copy(base, T, acc - e0 * c_step(o), o->a->red.elem, e0 * o->r.es_s, k * o->r.es_s);
        return;
    }
    const struct dt_type *U = o->r.U;
    dt_copy(base, T, acc - (ptrdiff_t)(e0 * (size_t)dt_extent(U)), U, e0 * U->size, k * U->size);
}

/* Bytes of k elements' span in the canonical layout. */
static size_t span(const struct coll_op *o, size_t k)
{
    if (!o->r.user) return k * o->r.es_c;
    const struct dt_type *U = o->r.U;
    return k ? (k - 1) * (size_t)dt_extent(U) + (size_t)(U->true_ub - U->true_lb) : 0;
}

/* Elements [e0, e0 + k) of the sources from..to combined in member order,
 * ((s_from op s_from+1) op ...) op s_to. Returns the result: a C array in
 * accmem (predefined), or the origin of its first element in accmem or s2
 * (user functions compute inout = in op inout, so each source is copied
 * into the buffer that takes the next result). Prefixes go out on the way:
 * with SCAN each member j gets the result up to its source, with EXSCAN
 * the one before it (member j's source read first: in place, it is its
 * destination). */
enum prefix { NONE, SCAN, EXSCAN };
static const char *fold(struct coll_op *o, size_t e0, size_t k, int from, int to, char *accmem, char *s1, char *s2,
                        enum prefix pre)
{
    if (!o->r.user) {
        size_t bytes = k * o->r.es_c;
        const char *x = view(o, from, e0, k, s1);
        if (from == to || pre) memcpy(accmem, x, bytes);
        if (pre == SCAN) emit(o, from, accmem, e0, k);
        for (int j = from + 1; j <= to; j++) {
            const char *y = view(o, j, e0, k, s2);
            if (pre == EXSCAN) {
                if (y != s2) y = memcpy(s2, y, bytes);
                emit(o, j, accmem, e0, k);
                if (j == to) break;
            }
            o->r.k(accmem, j == from + 1 && !pre ? x : accmem, y, k);
            if (pre == SCAN) emit(o, j, accmem, e0, k);
        }
        return accmem;
    }
    ptrdiff_t lb = o->r.U->true_lb;
    size_t bytes = span(o, k);
    char *a = accmem, *b = s2;
    memcpy(a, view(o, from, e0, k, s1) + lb, bytes);
    if (pre == SCAN) emit(o, from, a - lb, e0, k);
    for (int j = from + 1; j <= to; j++) {
        memcpy(b, view(o, j, e0, k, s1) + lb, bytes);
        if (pre == EXSCAN) {
            emit(o, j, a - lb, e0, k);
            if (j == to) break;
        }
        o->a->red.fn.fn(a - lb, b - lb, k, o->a->red.fn.ctx);     /* b = a op s_j */
        char *t = a; a = b, b = t;
        if (pre == SCAN) emit(o, j, a - lb, e0, k);
    }
    return a - lb;
}

/* Scratch for one chunk: on the stack when it fits. */
struct scratch { char *acc, *s1, *s2; char *heap; };
#define SCRATCH_ON_STACK(name) _Alignas(64) char name##_b[3][RED_BLOCK]; struct scratch name = { name##_b[0], name##_b[1], name##_b[2], NULL }
static bool scratch_fit(struct coll_op *o, struct scratch *s)
{
    size_t need = span(o, o->r.E);
    if (need <= RED_BLOCK) return true;
    if (!(s->heap = malloc(3 * need + 192))) {
        coll_fail(o, sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes of reduction scratch", 3 * need));
        return false;
    }
    s->acc = s->heap, s->s1 = s->heap + need + 64, s->s2 = s->heap + 2 * (need + 64);
    return true;
}

/* Chunk c: its elements [*e0, *e0 + *k) and, for a reduce-scatter, the block's member. */
static int chunk_of(const struct coll_op *o, uint32_t c, size_t *e0, size_t *k)
{
    if (o->a->kind != COLL_REDUCE_SCATTER) {
        *e0 = (size_t)c * o->r.E;
        *k = o->r.N - *e0 < o->r.E ? o->r.N - *e0 : o->r.E;
        return -1;
    }
    int i = 0;
    while (o->r.cstart[i + 1] <= c) i++;
    size_t b0 = o->r.bstart[i], bn = o->r.bstart[i + 1] - b0;
    *e0 = b0 + (size_t)(c - o->r.cstart[i]) * o->r.E;
    *k = b0 + bn - *e0 < o->r.E ? b0 + bn - *e0 : o->r.E;
    return i;
}

/* Combine chunk c across every source and write it where it goes. */
static void sliced_chunk(struct coll_op *o, uint32_t c, struct scratch *s)
{
    size_t e0, k;
    int owner = chunk_of(o, c, &e0, &k);
    if (!k) return;
    switch (o->a->kind) {
    case COLL_SCAN:
    case COLL_EXSCAN:
        fold(o, e0, k, 0, o->n - 1, s->acc, s->s1, s->s2, o->a->kind == COLL_SCAN ? SCAN : EXSCAN);
        return;
    default: break;
    }
    const char *acc = fold(o, e0, k, 0, o->n - 1, s->acc, s->s1, s->s2, NONE);
    if (o->a->kind == COLL_REDUCE) emit(o, o->a->root, acc, e0, k);
    else if (o->a->kind == COLL_REDUCE_SCATTER) emit(o, owner, acc, e0 - o->r.bstart[owner], k);
    else
        for (int d = 1; d <= o->n; d++) emit(o, coll_next(o, d % o->n), acc, e0, k);   /* the others first */
}

/* Serial: this member's own result, from the copies in the records. */
static void serial_result(struct coll_op *o)
{
    SCRATCH_ON_STACK(s);
    if (!scratch_fit(o, &s)) return;
    size_t lo = 0, hi = o->r.N;
    int to = o->n - 1;
    if (o->a->kind == COLL_REDUCE_SCATTER) lo = o->r.bstart[o->me], hi = o->r.bstart[o->me + 1];
    if (o->a->kind == COLL_SCAN) to = o->me;
    if (o->a->kind == COLL_EXSCAN) to = o->me - 1;
    for (size_t e0 = lo; e0 < hi; e0 += o->r.E) {
        size_t k = hi - e0 < o->r.E ? hi - e0 : o->r.E;
        emit(o, o->me, fold(o, e0, k, 0, to, s.acc, s.s1, s.s2, NONE), e0 - lo, k);
    }
    free(s.heap);
}

static void sliced_claims(struct coll_op *o)
{
    struct coll_rec *r0 = coll_rec_of(o->g, 0, o->seq);
    SCRATCH_ON_STACK(s);
    bool ok = !o->st && scratch_fit(o, &s);
    uint32_t c;
    while ((c = atomic_fetch_add_explicit(&r0->claim, 1, memory_order_relaxed)) < o->r.nchunks) {
        if (ok && !o->st) sliced_chunk(o, c, &s);
        if (atomic_fetch_add_explicit(&r0->done, 1, memory_order_acq_rel) + 1 == o->r.nchunks) coll_wake_all(o->g);
    }
    free(s.heap);
}

/* --- Small scans: a chain -------------------------------------------------------------
 * Member j of a serial scan would read the records of members 0..j: j line
 * transfers, most for the last member. As a chain, each member but the first
 * and last publishes its prefix (sources 0..j combined) in its record and
 * the next one reads only that (Open MPI's linear scan, without messages);
 * with the records COLL_RECS deep, the members still run ahead of each
 * other. For predefined operations on vectors that fit a record. Every
 * member decides the same (the same type signature and count). */
static bool chain_fits(const struct coll_op *o)
{
    return (o->a->kind == COLL_SCAN || o->a->kind == COLL_EXSCAN) && !o->r.user && !o->r.sliced && o->n > 2 &&
           !coll_aset(o->g) && o->r.N * o->r.es_c <= COLL_INLINE;
}

/* Member me > 0: the previous member's prefix, then this one's result and prefix. */
static void chain_step(struct coll_op *o, const struct coll_rec *prev)
{
    struct coll_red_state *r = &o->r;
    _Alignas(64) char scratch[COLL_INLINE], acc[COLL_INLINE];
    const char *p = (const char *)prev->data;
    const char *x = view(o, o->me, 0, r->N, scratch);      /* read before dst is written: in place it is dst */
    r->k(acc, p, x, r->N);                                 /* sources 0..me, in member order */
    emit(o, o->me, o->a->kind == COLL_SCAN ? acc : p, 0, r->N);
    if (o->me < o->n - 1) memcpy(coll_rec_of(o->g, o->me, o->seq)->data, acc, r->N * r->es_c);
}

/* --- The schedule ---------------------------------------------------------------------- */

/* The readers' copy of this member's source (C arrays of t, or packed
 * elements): for a reduce-scatter without this member's own block, which
 * no reader needs (carried_at). Its bytes, and the copy into c. */
static size_t carry_step(const struct coll_op *o) { return o->r.user ? o->r.es_s : o->r.es_c; }
static size_t carry_bytes(const struct coll_op *o)
{
    size_t own = o->a->kind == COLL_REDUCE_SCATTER ? o->r.bstart[o->me + 1] - o->r.bstart[o->me] : 0;
    return (o->r.N - own) * carry_step(o);
}
static void carry_copy(struct coll_op *o, char *c, const struct coll_buf *src, const struct dt_type *as)
{
    struct coll_red_state *r = &o->r;
    size_t b0 = r->N, b1 = r->N;
    if (o->a->kind == COLL_REDUCE_SCATTER) b0 = r->bstart[o->me], b1 = r->bstart[o->me + 1];
    dt_copy(c, as, src->base, src->type, 0, b0 * r->es_s);
    if (b1 < r->N) dt_copy(c - (b1 - b0) * carry_step(o), as, src->base, src->type, b1 * r->es_s, (r->N - b1) * r->es_s);
}

/* In place, a reduce-scatter's result goes to the start of dst, which
 * others read from: it is made aside and copied at the end. */
static void out_copy(struct coll_op *o)
{
    struct coll_blk s = coll_block(&o->dst, 0, 1), d;
    struct coll_lay l;
    coll_lay_local(&l, &o->a->dst);
    l.count = o->r.N, l.counts = l.displs = l.types = 0;
    d = coll_block(&l, 0, 1);
    size_t bytes = (o->r.bstart[o->me + 1] - o->r.bstart[o->me]) * (o->r.user ? o->r.U->size : o->r.es_s);
    coll_copy(&d, &s, 0, bytes);
}

static sm_status_t setup(struct coll_op *o)
{
    struct coll_red_state *r = &o->r;
    const struct coll_red *red = &o->a->red;
    r->user = red->op == COLL_USER;
    r->k = r->user ? NULL : r->k ? r->k : coll_kernel(red->t, red->op);     /* coll_op_init found it */
    struct coll_buf sb = my_src(o);
    const struct coll_buf *src = &sb;
    if (r->user) {
        r->U = src->type;
        if (!r->U) return sm_fail(SM_ERR_ARG, "a user operation needs the buffers' datatype");
        if (dt_extent(r->U) <= 0 && r->U->size) return sm_fail(SM_ERR_ARG, "a user operation needs a positive extent");
        size_t ext = (size_t)dt_extent(r->U);
        r->E = ext && ext < RED_BLOCK ? RED_BLOCK / ext : 1;
        r->es_s = r->U->size;
    } else {
        r->es_c = coll_dtype_size(red->t);
        const struct dt_type *t = src->type;
        r->es_s = t && t->nbasic ? t->size / t->nbasic : r->es_c;
        r->E = RED_BLOCK / r->es_c;
    }
    r->N = elements(o, src);
    if (o->a->kind == COLL_REDUCE_SCATTER) {
        /* blocks: dst.count (or dst.counts[i]) elements of the datatype each */
        size_t per = r->user ? 1 : (o->a->dst.type ? o->a->dst.type->nbasic : 0);
        r->bstart = coll_alloc(o, sizeof *r->bstart * (size_t)(o->n + 1));
        r->cstart = coll_alloc(o, sizeof *r->cstart * (size_t)(o->n + 1));
        if (!r->bstart || !r->cstart) return o->st;
        r->bstart[0] = 0, r->cstart[0] = 0;
        for (int i = 0; i < o->n; i++) {
            size_t c = o->a->dst.counts ? (size_t)(o->a->dst.counts[i] > 0 ? o->a->dst.counts[i] : 0) : o->a->dst.count;
            size_t e = per ? c * per : c / r->es_c;      /* bytes (no type): C arrays */
            r->bstart[i + 1] = r->bstart[i] + e;
            r->cstart[i + 1] = r->cstart[i] + (uint32_t)((e + r->E - 1) / r->E);
        }
        if (r->bstart[o->n] != r->N)
            return sm_fail(SM_ERR_ARG, "the blocks add up to %zu elements, the source has %zu", r->bstart[o->n], r->N);
        r->nchunks = r->cstart[o->n];
    } else {
        r->nchunks = (uint32_t)((r->N + r->E - 1) / r->E);
    }
    if (r->N / (r->E ? r->E : 1) > UINT32_MAX - 1) return sm_fail(SM_ERR_ARG, "%zu elements are too many", r->N);
    r->sliced = span(o, r->N) > serial_max(o->n, o->a->kind) && o->n > 1;
    /* Two members' exscan is member 0's source copied into member 1's
     * destination, no op applied. Sliced, both members claimed chunks and
     * each chunk took three copies (the source into scratch, member 1's
     * source aside, the scratch out), lines of member 1's destination
     * written from member 0's core. Above the serial copy, member 1 copies
     * member 0's source in place once, from its own cache after the first
     * call (member 0 does not write it), and member 0 waits for that; up
     * to COLL_DIRECT_MAX: at 1 MiB the sliced copy on both cores was level
     * with Open MPI (74 us) and one copy took 94 in the one quiet round. */
    r->direct = r->sliced && o->n == 2 && o->a->kind == COLL_EXSCAN && span(o, r->N) <= COLL_DIRECT_MAX;
    r->sliced = r->sliced && !r->direct;
    o->g->sliced += r->sliced;
    o->g->direct += r->direct;
    o->len = r->N * r->es_s;
    coll_lay_local(&r->mine, src);
    return SM_OK;
}

static sm_status_t red_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    struct coll_red_state *r = &o->r;
    sm_status_t st = setup(o);
    if (st) return st;
    struct coll_buf src = my_src(o), dst = o->a->dst;
    const struct dt_type *as = r->user ? NULL : o->a->red.elem;
    if (o->a->kind == COLL_REDUCE_SCATTER && o->a->src.base == COLL_IN_PLACE) {
        /* the result is made aside (dst holds the sources), copied at the end */
        size_t n = r->bstart[o->me + 1] - r->bstart[o->me];
        char *tmp = coll_alloc(o, span(o, n) + 1);
        if (!tmp) return o->st;
        if (r->user) dst = (struct coll_buf){ tmp - r->U->true_lb, n, r->U, NULL, NULL, NULL };
        else if (as) dst = (struct coll_buf){ tmp, n, as, NULL, NULL, NULL };
        else dst = (struct coll_buf){ tmp, n * r->es_c, NULL, NULL, NULL, NULL };
        o->finish = out_copy;
    } else if (o->a->kind == COLL_REDUCE_SCATTER) {
        dst.counts = NULL, dst.displs = NULL;
        if (o->a->dst.counts) dst.count = (size_t)(o->a->dst.counts[o->me] > 0 ? o->a->dst.counts[o->me] : 0);
    }
    if (r->direct) {
        if (o->me == 1) {
            coll_lay_local(&o->dst, &dst);
            return SM_OK;
        }
        o->readers = 1;         /* member 1 reads the source in place */
        return coll_lay_as(o, &o->src, &src, 1, as, false);
    }
    if (!r->sliced) {
        if (gets_result(o, o->me)) coll_lay_local(&o->dst, &dst);
        r->chain = chain_fits(o);
        if (!source_read(o, o->me) || o->n == 1) return SM_OK;
        if (r->chain && o->me > 0) {
            /* its prefix, not its source, goes in the record, once the
             * previous member's is there: the body stamps it */
            struct coll_rec *rec = coll_rec_of(o->g, o->me, o->seq);
            o->src = (struct coll_lay){ (uint64_t)(uintptr_t)coll_global(rec->data), 0, r->N * r->es_c, 0, 0, 0, 1, 1 };
            o->flags |= REC_CARRIED;
            o->late = true;
            return SM_OK;
        }
        /* Member 0 of a small scan reads nobody's record, and member 1
         * checks its own against member 0's: it need not check member 1's
         * too, which would make it wait for member 1 on every call (a
         * barrier's cost; Open MPI's linear scan is as eager). */
        if ((o->a->kind == COLL_SCAN || o->a->kind == COLL_EXSCAN) && o->me == 0) o->read_any = true;
        /* a copy for the readers: C arrays of t, or the packed elements;
         * without a carrier (coll_carrier: 2 members on cores of their own
         * past the record) the source itself, readers waited for */
        size_t bytes = carry_bytes(o);
        char *c = coll_carrier(o, bytes, o->a->src.base != COLL_IN_PLACE);
        if (!c && o->a->src.base != COLL_IN_PLACE) {
            o->readers = COLL_ALL;
            return coll_lay_as(o, &o->src, &src, 1, as, false);
        }
        if (!c) {               /* in place (dst is the source, written before peers read it): a copy */
            if (!(c = coll_alloc(o, bytes))) return o->st;
            o->readers = COLL_ALL;
        }
        carry_copy(o, c, &src, r->user ? NULL : as);
        o->src = (struct coll_lay){ (uint64_t)(uintptr_t)coll_global(c), 0, bytes, 0, 0, 0, 1, 1 };
        o->flags |= REC_CARRIED;
        return SM_OK;
    }
    /* sliced: the source and destination where the claimers reach them
     * (this member reads its own source in place in any case) */
    if ((st = coll_lay_as(o, &o->src, &src, 1, as, false))) return st;
    if (gets_result(o, o->me)) st = coll_lay_as(o, &o->dst, &dst, 1, as, true);
    return st;
}

/* User functions: does member j's datatype have this member's layout (its
 * elements are then read in place)? For the records this member reads. */
static bool same_type(struct coll_op *o, int j)
{
    const struct dt_type *U = o->r.U;
    bool carried;
    struct coll_lay tmp;
    const struct dt_type *T = (const struct dt_type *)(uintptr_t)lay_of(o, j, &carried, &tmp)->type;
    return j == o->me ||
           (!carried && T && T->size == U->size && T->lb == U->lb && T->ub == U->ub && T->true_lb == U->true_lb &&
            T->nruns == U->nruns && T->nblk == U->nblk &&
            !memcmp(T + 1, U + 1, (size_t)T->nruns * sizeof(struct dt_run) + (size_t)T->nblk * sizeof(struct dt_blk)));
}

static bool red_body(struct coll_op *o)
{
    struct coll_red_state *r = &o->r;
    CO_BEGIN(o->bpc);
    if (r->chain && o->me > 0) {
        CO_WAIT(o->bpc, coll_await(o, o->me - 1));
        struct coll_rec *prev = coll_rec_of(o->g, o->me - 1, o->seq);
        if (coll_check(o, o->me - 1, prev, true) && !o->st && r->N) chain_step(o, prev);
        if (o->late) coll_stamp(o, true);
        return true;
    }
    if (r->direct) {
        if (o->me == 0) return true;
        CO_WAIT(o->bpc, coll_await(o, 0));
        struct coll_rec *p = coll_rec_of(o->g, 0, o->seq);
        if (coll_check(o, 0, p, true) && !o->st) {
            struct coll_blk s = coll_block(&p->src, 0, 1), d = coll_block(&o->dst, 0, 1);
            coll_copy(&d, &s, 0, o->len);
        }
        return true;
    }
    if (r->user && !(r->same = coll_alloc(o, (size_t)o->n))) return true;
    if (r->user) r->same[o->me] = 1;
    /* the records this member reads: every one when sliced; else its sources' */
    for (o->i = 1; o->i < o->n; o->i++) {
        int i = coll_next(o, o->i);
        if (!r->sliced && (!gets_result(o, o->me) || !source_read(o, i) ||
                           (o->a->kind == COLL_SCAN && i > o->me) || (o->a->kind == COLL_EXSCAN && i >= o->me)))
            continue;
        CO_WAIT(o->bpc, coll_await(o, coll_next(o, o->i)));
        coll_check(o, coll_next(o, o->i), coll_rec_of(o->g, coll_next(o, o->i), o->seq), true);
        if (r->user) r->same[coll_next(o, o->i)] = same_type(o, coll_next(o, o->i));
    }
    if (!r->sliced) {
        if (!o->st && gets_result(o, o->me) && r->N) serial_result(o);
        return true;
    }
    sliced_claims(o);
    CO_WAIT(o->bpc, atomic_load_explicit(&coll_rec_of(o->g, 0, o->seq)->done, memory_order_acquire) >= r->nchunks);
    CO_END(o->bpc);
}

static sm_status_t reduce_prepare_any(struct coll_op *o, struct coll_rec *mine)
{
    if (!is_red(o->a->kind)) return sm_fail(SM_ERR_INTERN, "not a reduction");
    return red_prepare(o, mine);
}

const struct coll_kind_ops coll_reduce_ops = { "reduction", reduce_prepare_any, red_body };

/* --- The lean path ----------------------------------------------------------------------
 * A blocking reduce, allreduce, scan or exscan of at most COLL_INLINE bytes
 * of plain C arrays with a predefined op (the common small call: every
 * MPI_Allreduce of a few numbers, shmem's reductions) went through
 * coll_op_init, the schedule's coroutine, setup, views, fold and emit with
 * 12 KiB of stack scratch: about 1000 instructions of the engine a call,
 * for a copy into the record, one kernel call per source and a copy out.
 * Here the same protocol runs straight: the same record (carried in its
 * data, or a scan's chain prefix stamped late), the same reads and checks
 * of peers' records, the same deferred check, progress word and late
 * report, so members on either path work together (one may have a
 * nonblocking collective still listed on the group, its peers not). Only
 * the op's fields that the shared helpers read are set. Anything else
 * (types with gaps or padding, user functions, larger vectors, active
 * sets, groups spanning nodes, a listed schedule on the group that must
 * publish first, a late failure pending, arguments the general path
 * refuses) goes the general way. */

/* A reduce-scatter: its record carries its source without its own block
 * (carry_copy), so up to COLL_INLINE bytes of others' blocks and its own
 * block of at most COLL_INLINE (2 members: blocks of 96 B, where the whole
 * 192-byte source went past the record, published in place and its reader
 * waited for). Plain C arrays, the blocks' type (the v form's) contiguous. */
static bool scatter_lean(struct coll_group *g, const struct coll_args *a, sm_status_t *st)
{
    if (a->red.op == COLL_USER || a->red.elem || a->src.type) return false;
    coll_kernel_fn k = coll_kernel(a->red.t, a->red.op);
    size_t es = coll_dtype_size(a->red.t);
    const struct dt_type *T = a->dst.type;
    if (!k || (T && !(a->dst.counts && T->contig && T->size == T->nbasic * es))) return false;
    int n = g->m.size, me = g->m.me;
    size_t total = 0, b0 = 0, blk = 0, bsize = T ? T->size : 1;   /* counts of T, or of bytes (hier.c's slices) */
    for (int i = 0; i < n; i++) {           /* block i's bytes: counts, or dst.count bytes */
        size_t b = a->dst.counts ? (size_t)(a->dst.counts[i] > 0 ? a->dst.counts[i] : 0) * bsize : a->dst.count;
        if (i == me) b0 = total, blk = b;
        total += b;
    }
    if (total - blk > COLL_INLINE || blk > COLL_INLINE || total % es) return false;
    bool inpl = a->src.base == COLL_IN_PLACE;
    char *dst = (char *)a->dst.base + (T ? T->true_lb : 0);
    const char *src = inpl ? dst : a->src.base;

    struct coll_op o;
    struct coll_rec *r = coll_lean_open(&o, g, a, COLL_SIG(COLL_REDUCE_SCATTER, -1, a->red.t, a->red.op));
    o.len = total;
    _Alignas(16) char own[COLL_INLINE], acc[COLL_INLINE];
    const char *mine = src + b0;
    if (inpl) mine = memcpy(own, mine, blk);    /* its block's result goes to dst's start */
    r->flags = n > 1 ? REC_CARRIED : 0, r->len = total;
    if (n > 1) {
        r->aux = (uint64_t)(uintptr_t)coll_global(r->data);
        memcpy(r->data, src, b0);
        memcpy(r->data + b0, src + b0 + blk, total - b0 - blk);
    }
    coll_lean_stamp(&o, r);
    for (int d = 1; d < n; d++) coll_check(&o, coll_next(&o, d), coll_lean_await(&o, coll_next(&o, d)), true);
    size_t N = blk / es;
    if (!o.st && N) {
        /* sources 0..n-1 in member order, the last step straight into dst;
         * member j's copy holds this block at b0, or b0 - j's block (j < me) */
        const char *x = mine;
        for (int j = 0; j < n; j++) {
            const char *y = mine;
            if (j != me) {
                size_t bj = a->dst.counts ? (size_t)(a->dst.counts[j] > 0 ? a->dst.counts[j] : 0) * bsize : a->dst.count;
                y = (const char *)(uintptr_t)coll_rec_of(g, j, o.seq)->aux + b0 - (j < me ? bj : 0);
            }
            if (n == 1) memmove(dst, y, blk);
            else if (j == 0) x = y;
            else k(j == n - 1 ? dst : acc, j == 1 ? x : acc, y, N);
        }
    }
    *st = coll_lean_end(&o);
    return true;
}

bool coll_red_lean(struct coll_group *g, const struct coll_args *a, sm_status_t *st)
{
    enum coll_kind kind = a->kind;
    if (kind == COLL_REDUCE_SCATTER) return scatter_lean(g, a, st);
    if (kind != COLL_ALLREDUCE && kind != COLL_REDUCE && kind != COLL_SCAN && kind != COLL_EXSCAN) return false;
    if (a->red.op == COLL_USER || a->red.elem || a->src.type || a->dst.type || a->src.counts || a->dst.counts)
        return false;
    bool inpl = a->src.base == COLL_IN_PLACE;
    size_t bytes = inpl ? a->dst.count : a->src.count;
    coll_kernel_fn k = coll_kernel(a->red.t, a->red.op);
    int n = g->m.size, me = g->m.me, root = kind == COLL_REDUCE ? a->root : -1;
    if (bytes > COLL_INLINE || !k || (kind == COLL_REDUCE && (unsigned)root >= (unsigned)n)) return false;
    size_t es = coll_dtype_size(a->red.t), N = bytes / es;
    if (N * es != bytes) return false;

    struct coll_op o;
    struct coll_rec *r = coll_lean_open(&o, g, a, COLL_SIG(kind, root, a->red.t, a->red.op));
    o.len = bytes;

    /* publish (sched.c publish and red_prepare for a serial reduction) */
    bool scan = kind == COLL_SCAN || kind == COLL_EXSCAN, chain = scan && n > 2;
    bool gets = kind == COLL_REDUCE ? me == root : kind == COLL_EXSCAN ? me > 0 : true;
    bool read = kind == COLL_REDUCE ? me != root : scan ? me < n - 1 : true;   /* source_read */
    bool carry = n > 1 && read && !(chain && me > 0), late = chain && me > 0;
    const char *src = inpl ? a->dst.base : a->src.base;
    r->flags = carry || late ? REC_CARRIED : 0;
    r->len = bytes;
    if (carry || late) r->aux = (uint64_t)(uintptr_t)coll_global(r->data);
    if (carry) {
        memcpy(r->data, src, bytes);
        src = (const char *)r->data;        /* its own source from here: dst may be it (in place) */
        if (scan && me == 0) o.read_any = true;
    }
    if (!late) coll_lean_stamp(&o, r);
    if (chain) g->rd[o.seq % COLL_RECS] = (int16_t)(me + 1 < n ? me + 2 : -1);   /* note_readers */

    /* body */
    char *dst = a->dst.base;
    if (late) {
        /* the chain (chain_step): the previous member's prefix, this one's result and prefix */
        const struct coll_rec *prev = coll_lean_await(&o, me - 1);
        if (coll_check(&o, me - 1, prev, true) && !o.st && N) {
            _Alignas(16) char acc[COLL_INLINE];
            const char *p = (const char *)(uintptr_t)prev->aux;
            k(acc, p, src, N);
            memcpy(dst, kind == COLL_SCAN ? acc : p, bytes);
            if (me < n - 1) memcpy(r->data, acc, bytes);
        }
        coll_lean_stamp(&o, r);
    } else if (gets && n > 1) {
        /* the records it reads, in the general path's order (the next member first) */
        int to = kind == COLL_SCAN ? me : kind == COLL_EXSCAN ? me - 1 : n - 1;
        for (int d = 1; d < n; d++) {
            int i = me + d < n ? me + d : me + d - n;
            if (i > to) continue;           /* (every source up to `to` is read: carried) */
            coll_check(&o, i, coll_lean_await(&o, i), true);
        }
        if (!o.st && N) {
            /* sources 0..to in member order, the last step straight into dst */
            _Alignas(16) char acc[COLL_INLINE];
            const char *x = me == 0 ? src : (const char *)(uintptr_t)coll_rec_of(g, 0, o.seq)->aux;
            if (to == 0) memmove(dst, x, bytes);
            for (int j = 1; j <= to; j++) {
                const char *y = j == me ? src : (const char *)(uintptr_t)coll_rec_of(g, j, o.seq)->aux;
                k(j == to ? dst : acc, j == 1 ? x : acc, y, N);
            }
        }
    } else if (gets && N && dst != src) {
        memmove(dst, src, bytes);           /* one member: its own source */
    }
    *st = coll_lean_end(&o);
    return true;
}
