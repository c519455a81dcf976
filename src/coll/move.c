/* move.c: the collectives that move data (DESIGN.md §4, seed 000 §3.5,
 * §3.7), as schedule bodies (sched.c runs them): barrier; broadcast
 * (readers copy from the root; a large one in chunks that the root and
 * every reader claim, so all copy at once); gather (members write their
 * blocks straight into the root's buffer; small ones travel in records and
 * the root copies them); scatter (members copy their block out of the
 * root's buffer); allgather, collect and alltoall (each member copies its
 * blocks out of every peer's buffer). Small contributions travel in the
 * record or the bounce buffer, so their owner need not wait for readers
 * (2 members on cores of their own: in the record only, coll_carrier).
 * Copies go typemap to typemap (src/dt). And the OpenSHMEM shorthands. */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "coll_internal.h"

/* A broadcast of at least this many bytes is copied in chunks by the root
 * and every reader together: the crossover is in the table in reduce.c's
 * header, with the command that measured it (bench/mpi/crossover.sh, which
 * builds with -DCOLL_BCAST_COOP...=... to try others). */
#ifndef COLL_BCAST_COOP_2
#define COLL_BCAST_COOP_2 (16 << 10)    /* 2 members */
#endif
#ifndef COLL_BCAST_COOP
#define COLL_BCAST_COOP (64 << 10)      /* more */
#endif
#define BCAST_COOP(n) ((size_t)((n) <= 2 ? COLL_BCAST_COOP_2 : COLL_BCAST_COOP))
#define BCAST_CHUNK (32 << 10)
/* How long a pacing root (root_paces) waits for its readers at most, in
 * looks at their progress and in time, whichever ends first: it must not
 * wait for members that have not begun (a root may run COLL_RECS - 1 small
 * broadcasts ahead of them: coll_ahead_*). 200 looks: with wait.c's
 * oversubscribed strategy, its spins, its yields and a few sleeps. Chosen
 * from 64+4 (the spins and yields only), 200 and 1 ms alone, alternated,
 * 8 B on 4 and 8 ranks (docs/NOTES.md, 2026-11-27 movers). */
#ifndef COLL_PACE_POLLS
#define COLL_PACE_POLLS 200
#endif
#ifndef COLL_PACE_NS
#define COLL_PACE_NS 1000000
#endif

/* --- Helpers --------------------------------------------------------------------- */

/* The stream of blocks [0, nblocks) of b (local), packed one after the other at dst. */
static size_t pack_blocks(char *dst, const struct coll_buf *b, int nblocks)
{
    struct coll_lay l;
    coll_lay_local(&l, b);
    size_t at = 0;
    for (int i = 0; i < nblocks; i++) {
        struct coll_blk k = coll_block(&l, i, nblocks), d = { dst + at, k.bytes, NULL, k.bytes };
        if (k.bytes) coll_copy(&d, &k, 0, k.bytes);
        at += k.bytes;
    }
    return at;
}

/* A carried copy of fixed blocks leaves out its owner's own block (a
 * scatter's root, an alltoall's sender: no peer reads it): blocks own + 1,
 * ..., own - 1 (mod nblocks), so member i's is at carried_at(i, own, n).
 * Less to copy, and more fits in the record: 64 B each on 2 ranks is one
 * block of 64 B, not 128 B in the bounce buffer. */
static inline int carried_at(int i, int own, int n) { return i > own ? i - own - 1 : i - own - 1 + n; }

static size_t pack_others(char *dst, const struct coll_buf *b, int nblocks, int own)
{
    struct coll_lay l;
    coll_lay_local(&l, b);
    size_t at = 0;
    for (int k = 1; k < nblocks; k++) {
        int i = own + k < nblocks ? own + k : own + k - nblocks;
        struct coll_blk s = coll_block(&l, i, nblocks), d = { dst + at, s.bytes, NULL, s.bytes };
        if (s.bytes) coll_copy(&d, &s, 0, s.bytes);
        at += s.bytes;
    }
    return at;
}

/* Block `want` of member i's published source, record p (carried blocks
 * leave out i's own; carried blocks of their own sizes say where each is
 * in front of them, REC_VBLOCKS). */
static struct coll_blk src_block(const struct coll_op *o, const struct coll_rec *p, int i, int want)
{
    struct coll_lay tmp;
    if (p->flags & REC_VBLOCKS) {
        const uint16_t *end = (const uint16_t *)(uintptr_t)p->aux;
        size_t from = want ? end[want - 1] : 0, bytes = end[want] - from;
        return (struct coll_blk){ (char *)(uintptr_t)p->aux + sizeof(uint16_t) * (size_t)o->n + from, bytes, NULL, bytes };
    }
    const struct coll_lay *l = coll_src(p, &tmp);
    return coll_block(l, p->flags & REC_CARRIED && o->n > 1 ? carried_at(want, i, o->n) : want, o->n);
}

/* Stream bytes of blocks [0, nblocks) of b. */
static size_t bytes_of(const struct coll_buf *b, int nblocks)
{
    struct coll_lay l;
    coll_lay_local(&l, b);
    if (!b->counts) return (size_t)nblocks * l.count * l.size;
    size_t t = 0;
    for (int i = 0; i < nblocks; i++) t += coll_block(&l, i, nblocks).bytes;
    return t;
}

/* What publish_src carries of blocks [0, nblocks) of b: with one block per
 * member, this member's own is left out (no peer reads it); blocks of their
 * own sizes (counts) travel after where each ends (*data: the bytes without
 * them; publish_carried). The bytes in all. */
static size_t carried_bytes(const struct coll_op *o, const struct coll_buf *b, int nblocks, size_t *data)
{
    if (!b->counts && !b->type) return *data = (size_t)(nblocks > 1 ? nblocks - 1 : 1) * b->count;   /* plain bytes */
    bool others = nblocks > 1;
    size_t t = 0;
    if (!b->counts) t = (size_t)(others ? nblocks - 1 : nblocks) * b->count * coll_elem_size(b->type);
    else if (!b->types) {       /* one type: its size times the counts (coll_block's bytes, without its layout) */
        for (int i = 0; i < nblocks; i++)
            if ((!others || i != o->me) && b->counts[i] > 0) t += (size_t)b->counts[i];
        t *= coll_elem_size(b->type);
    } else {
        struct coll_lay l;
        coll_lay_local(&l, b);
        for (int i = 0; i < nblocks; i++)
            if (!others || i != o->me) t += coll_block(&l, i, nblocks).bytes;
    }
    *data = t;
    return b->counts && others ? sizeof(uint16_t) * (size_t)nblocks + t : t;
}

/* Publish blocks [0, nblocks) of b as this member's source in c (room as
 * carried_bytes says): REC_CARRIED's fixed blocks, or with counts
 * REC_VBLOCKS (this member's own block empty). Either way the record's
 * stamp line says where it all is: a reader of a v source read the layout
 * in the record's third line first, then the arrays, then the bytes, three
 * lines one after the other (2 ranks, 8 B Scatterv 0.43 us against
 * Scatter's 0.31 in the VM's slow state). Its owner does not wait for
 * readers. */
static void publish_carried(struct coll_op *o, char *c, const struct coll_buf *b, int nblocks, size_t data)
{
    o->readers = COLL_NONE;
    o->flags |= REC_CARRIED;
    o->src.base = (uint64_t)(uintptr_t)coll_global(c);      /* what the record's aux says */
    if (!b->counts || nblocks == 1) {
        if (!b->counts && !b->type) {       /* plain bytes: the blocks after this member's, then those before */
            size_t per = b->count, after = nblocks > 1 ? (size_t)(nblocks - 1 - o->me) * per : per;
            if (after) memcpy(c, (char *)b->base + (nblocks > 1 ? (size_t)(o->me + 1) * per : 0), after);
            if (nblocks > 1 && o->me && per) memcpy(c + after, b->base, (size_t)o->me * per);
        } else if (nblocks > 1) pack_others(c, b, nblocks, o->me);
        else pack_blocks(c, b, 1);
        o->src = (struct coll_lay){ o->src.base, 0, nblocks > 1 ? data / (size_t)(nblocks - 1) : data, 0, 0, 0, 1, 1 };
        return;
    }
    /* REC_VBLOCKS: nblocks 2-byte ends (block i is bytes [end[i-1], end[i])
     * after them; a carried source is at most COLL_BOUNCE bytes), not an int
     * count and an int offset a block: at 4 ranks an 8 B scatterv's arrays
     * and blocks (8 + 24 bytes) then fit the record's first line with its
     * stamp (32 + 24 took two: the reader waited for the second line after
     * the first, 4 ranks on 2 cores 0.94x of Open MPI). */
    o->flags |= REC_VBLOCKS;
    uint16_t *ends = (uint16_t *)(void *)c;
    char *bytes = c + sizeof(uint16_t) * (size_t)nblocks;
    const struct dt_type *t = b->type;
    if (!b->types && (!t || t->contig)) {      /* each block one run (every v source of the lean path): memcpy at once */
        size_t es = coll_elem_size(t);
        ptrdiff_t ext = t ? dt_extent(t) : 1;
        const char *base = (const char *)b->base + (t ? t->true_lb : 0);
        size_t at = 0;
        for (int i = 0; i < nblocks; i++) {
            int n = i == o->me ? 0 : b->counts[i];
            size_t len = n > 0 ? (size_t)n * es : 0;
            if (len) memcpy(bytes + at, base + (ptrdiff_t)b->displs[i] * ext, len);
            at += len;
            ends[i] = (uint16_t)at;
        }
        return;
    }
    struct coll_lay l;
    coll_lay_local(&l, b);
    size_t at = 0;
    for (int i = 0; i < nblocks; i++) {
        struct coll_blk k = coll_block(&l, i, nblocks), d = { bytes + at, k.bytes, NULL, k.bytes };
        if (i == o->me) k.bytes = 0;
        if (k.bytes) coll_copy(&d, &k, 0, k.bytes);
        at += k.bytes;
        ends[i] = (uint16_t)at;
    }
}

/* Publish blocks [0, nblocks) of b as this member's source: a copy in the
 * record or bounce buffer when small (publish_carried), else the buffer
 * itself, and its readers are waited for. */
static sm_status_t publish_src(struct coll_op *o, const struct coll_buf *b, int nblocks)
{
    size_t data, room = carried_bytes(o, b, nblocks, &data);
    char *c = coll_carrier(o, room, true);
    if (c) {
        publish_carried(o, c, b, nblocks, data);
        return SM_OK;
    }
    o->readers = COLL_ALL;
    return coll_lay_src(o, &o->src, b, nblocks);
}

/* The root of a broadcast or scatter whose data travels in its record or
 * bounce buffer may leave at once; when ranks outnumber cores it waits a
 * while for its readers all the same (COLL_PACE_*: never for long, its
 * buffer is free anyway). Back to back with roots rotating, each call
 * needs the next root to run after this one published: a root that runs
 * ahead only waits, as a reader of the next call, among ranks that cannot
 * move yet either, and the core goes round them. Measured (8 ranks on the
 * 2 cores, 10000 MPI_Bcasts of 8 B, perf stat, 3 rounds alternated with
 * main): 2.7-3.4 context switches a call running ahead, 2.3-2.6 pacing,
 * 17.7-22.5 us a call against 10.4-10.9. On 4 ranks (2 a core) it was
 * twice as slow in a quiet moment (3.3 -> 6.1 us, with fewer switches):
 * only groups of more than 2 members a core pace. Gather, allgather and
 * alltoall, where every member waited for all, were slower so: they do
 * not. */
static void root_paces(struct coll_op *o)
{
    o->k = sm_core.oversubscribed && o->n > 2 * sm_core.cpus && o->readers == COLL_NONE && !o->st;
}

/* A pacing root: its readers are done, or it has waited long enough
 * (o->i looks so far, o->y the time of the first; both 0 to begin). */
static bool paced(struct coll_op *o)
{
    int i = 0;
    while (i < o->n && (i == o->me || coll_finished(o->g, i, o->seq))) i++;
    if (i == o->n || ++o->i >= COLL_PACE_POLLS) return true;
    uint64_t t = sm_now_ns();
    if (!o->y) o->y = t;
    return t - o->y >= COLL_PACE_NS;
}

/* A single block of b: block i of it as a buffer of its own. */
static struct coll_buf block_buf(const struct coll_buf *b, int i, int nblocks)
{
    struct coll_lay l;
    coll_lay_local(&l, b);
    struct coll_blk k = coll_block(&l, i, nblocks);
    return (struct coll_buf){ k.base, k.count, k.type, NULL, NULL, NULL };
}

static inline struct coll_blk local_block(const struct coll_buf *b, int i, int nblocks)
{
    struct coll_lay l;
    coll_lay_local(&l, b);
    return coll_block(&l, i, nblocks);
}

static __attribute__((noinline, cold)) void size_mismatch(struct coll_op *o, int i, const char *what, size_t theirs,
                                                          size_t mine)
{
    coll_fail(o, sm_fail(SM_ERR_TRUNCATE, "member %d of the group (rank %d) %s %zu bytes, this member (%d) %zu", i,
                         coll_rank(o, i), what, theirs, o->me, mine));
}

/* Every peer's record, from the next member on, checked against this
 * member's (with same_len, their lengths too). Resumes at o->i. */
#define AWAIT_PEERS(o, same_len)                                                                        \
    for ((o)->i = 1; (o)->i < (o)->n; (o)->i++) {                                                      \
        CO_WAIT((o)->bpc, coll_await(o, coll_next(o, (o)->i)));                                        \
        coll_check(o, coll_next(o, (o)->i), coll_rec_of((o)->g, coll_next(o, (o)->i), (o)->seq), same_len); \
    }

/* --- Barrier ------------------------------------------------------------------------ */
static sm_status_t barrier_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)o, (void)mine;
    return SM_OK;
}
static bool barrier_body(struct coll_op *o)
{
    CO_BEGIN(o->bpc);
    AWAIT_PEERS(o, false);
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_barrier_ops = { "barrier", barrier_prepare, barrier_body };

/* --- Broadcast ----------------------------------------------------------------------
 * src (root's source; NULL: dst) at root, dst everywhere (at the root too
 * unless NULL or src). A reader of a large broadcast publishes its dst and
 * a chunk counter: whoever claims a chunk (the reader, the root, which has
 * nothing else to do) copies it, and the reader waits until all are done. */
static const struct coll_buf *bcast_src(const struct coll_op *o) { return o->a->src.base ? &o->a->src : &o->a->dst; }
static size_t bcast_len(const struct coll_op *o)
{
    const struct coll_buf *b = o->me == o->a->root ? bcast_src(o) : &o->a->dst;
    return b->count * coll_elem_size(b->type);
}
static inline uint32_t chunks_of(size_t len) { return (uint32_t)((len + BCAST_CHUNK - 1) / BCAST_CHUNK); }

static sm_status_t bcast_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    o->len = bcast_len(o);
    if (o->me == o->a->root) {
        sm_status_t st = publish_src(o, bcast_src(o), 1);
        root_paces(o);
        return st;
    }
    if (o->len < BCAST_COOP(o->n) || o->n == 1) return SM_OK;
    o->flags |= REC_SHARE;
    return coll_lay_dst(o, &o->dst, &o->a->dst, 1);
}

/* Claim chunks of reader i's dst (its record r) and copy them from src. */
static void bcast_chunks(struct coll_op *o, struct coll_rec *r, const struct coll_blk *src, const struct coll_blk *dst,
                         int i)
{
    uint32_t n = chunks_of(o->len), c;
    while ((c = atomic_fetch_add_explicit(&r->claim, 1, memory_order_relaxed)) < n) {
        size_t off = (size_t)c * BCAST_CHUNK, len = o->len - off < BCAST_CHUNK ? o->len - off : BCAST_CHUNK;
        if (!o->st) coll_copy(dst, src, off, len);
        if (atomic_fetch_add_explicit(&r->done, 1, memory_order_acq_rel) + 1 == n && i != o->me)
            sm_wake_inline(coll_rank(o, i), SM_WAKE_COLL);
    }
}

/* The root's own copy, src into dst. */
static void bcast_own(struct coll_op *o)
{
    const struct coll_buf *s = bcast_src(o);
    if (o->a->dst.base && o->a->dst.base != s->base && o->len) {
        struct coll_blk d = local_block(&o->a->dst, 0, 1), k = local_block(s, 0, 1);
        coll_copy(&d, &k, 0, o->len);
    }
}

/* A reader that does not share its copy: the root's data (record p) into dst. */
static void bcast_take(struct coll_op *o, const struct coll_rec *p)
{
    struct coll_lay tmp;
    struct coll_blk s = coll_block(coll_src(p, &tmp), 0, 1), d = local_block(&o->a->dst, 0, 1);
    coll_copy(&d, &s, 0, o->len);
}

static bool bcast_body(struct coll_op *o)
{
    int root = o->a->root;
    struct coll_rec *p;
    CO_BEGIN(o->bpc);
    if (o->me == root) {
        if (o->n > 1 && !(o->flags & REC_CARRIED) && o->len >= BCAST_COOP(o->n)) {
            /* help every reader that shares its copy, as they come */
            for (o->i = 1; o->i < o->n; o->i++) {
                CO_WAIT(o->bpc, coll_await(o, coll_next(o, o->i)));
                int i = coll_next(o, o->i);
                p = coll_rec_of(o->g, i, o->seq);
                if (!coll_check(o, i, p, true) || !(p->flags & REC_SHARE)) continue;
                struct coll_blk s = local_block(bcast_src(o), 0, 1), d = coll_block(&p->dst, 0, 1);
                bcast_chunks(o, p, &s, &d, i);
            }
        }
        bcast_own(o);
        if (o->k) {
            o->i = 0, o->y = 0;
            CO_WAIT(o->bpc, paced(o));
        }
        return true;
    }
    CO_WAIT(o->bpc, coll_await(o, root));
    p = coll_rec_of(o->g, root, o->seq);
    if (coll_check(o, root, p, true) && !o->st && o->len) {
        if (!(o->flags & REC_SHARE)) {
            bcast_take(o, p);
            return true;
        }
        /* a sharing reader's dst is the one it published (perhaps a stage) */
        struct coll_lay tmp;
        struct coll_blk s = coll_block(coll_src(p, &tmp), 0, 1), d = coll_block(&o->dst, 0, 1);
        if (p->flags & REC_CARRIED) {
            coll_copy(&d, &s, 0, o->len);
            return true;
        }
        bcast_chunks(o, coll_rec_of(o->g, o->me, o->seq), &s, &d, o->me);
    }
    if (o->flags & REC_SHARE) {          /* whatever happened, the chunks others claimed end */
        if (o->st) bcast_chunks(o, coll_rec_of(o->g, o->me, o->seq), NULL, NULL, o->me);
        CO_WAIT(o->bpc, atomic_load_explicit(&coll_rec_of(o->g, o->me, o->seq)->done, memory_order_acquire) >=
                            chunks_of(o->len));
    }
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_bcast_ops = { "broadcast", bcast_prepare, bcast_body };

/* --- Gather ---------------------------------------------------------------------------
 * The root publishes its dst; a member whose block is small sends it in its
 * record (the root copies it), else writes it into the root's dst itself. */
static size_t gather_mine(const struct coll_op *o)
{
    if (o->a->src.base == COLL_IN_PLACE) return local_block(&o->a->dst, o->me, o->n).bytes;
    return o->a->src.count * coll_elem_size(o->a->src.type);
}

static sm_status_t gather_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    o->len = gather_mine(o);
    if (o->me == o->a->root) {
        o->flags |= REC_PUSH;
        o->readers = COLL_NONE;          /* COLL_ALL once a peer writes into dst (body) */
        return coll_lay_dst(o, &o->dst, &o->a->dst, o->n);
    }
    void *c = coll_carrier(o, o->len, true);
    if (c) return publish_src(o, &o->a->src, 1);
    return coll_lay_src(o, &o->src, &o->a->src, 1);   /* written into the root's dst by this member */
}

/* The root: member i's block (record p) into dst as published. */
static void gather_take(struct coll_op *o, int i, const struct coll_rec *p)
{
    /* (a root that failed before publishing laid out no dst: nobody writes into it) */
    if (!coll_check(o, i, p, false) || (o->flags & REC_FAILED)) return;
    struct coll_blk d = coll_block(&o->dst, i, o->n);       /* as published: perhaps a stage */
    if (p->len != d.bytes) size_mismatch(o, i, "sends", p->len, d.bytes);
    else if (p->flags & REC_CARRIED) {
        struct coll_lay tmp;
        struct coll_blk s = coll_block(coll_src(p, &tmp), 0, 1);
        if (!o->st && d.bytes) coll_copy(&d, &s, 0, d.bytes);
    } else o->readers = COLL_ALL;      /* it writes into dst: wait for it */
}

/* The root's own block. */
static void gather_own(struct coll_op *o)
{
    int root = o->a->root;
    if (o->a->src.base != COLL_IN_PLACE && o->len && !o->st) {
        struct coll_blk d = coll_block(&o->dst, root, o->n), s = local_block(&o->a->src, 0, 1);
        if (d.bytes != o->len) size_mismatch(o, root, "(the root itself) sends", o->len, d.bytes);
        else coll_copy(&d, &s, 0, o->len);
    }
}

static bool gather_body(struct coll_op *o)
{
    int root = o->a->root;
    struct coll_rec *p;
    CO_BEGIN(o->bpc);
    if (o->me != root) {
        if (o->flags & REC_CARRIED) return true;
        CO_WAIT(o->bpc, coll_await(o, root));
        p = coll_rec_of(o->g, root, o->seq);
        if (!coll_check(o, root, p, false) || o->st) return true;
        struct coll_blk d = coll_block(&p->dst, o->me, o->n), s = local_block(&o->a->src, 0, 1);
        if (d.bytes != o->len) size_mismatch(o, root, "as the root expects", d.bytes, o->len);
        else if (o->len) coll_copy(&d, &s, 0, o->len);
        return true;
    }
    for (o->i = 1; o->i < o->n; o->i++) {
        CO_WAIT(o->bpc, coll_await(o, coll_next(o, o->i)));
        gather_take(o, coll_next(o, o->i), coll_rec_of(o->g, coll_next(o, o->i), o->seq));
    }
    gather_own(o);
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_gather_ops = { "gather", gather_prepare, gather_body };

/* --- Scatter --------------------------------------------------------------------------
 * The root publishes its src (a copy in its record when small); every
 * member copies its block out of it. */
static sm_status_t scatter_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    /* a member: the bytes it expects; the root: those of a block it sends */
    o->len = o->a->dst.base == COLL_IN_PLACE ? 0 : o->a->dst.count * coll_elem_size(o->a->dst.type);
    if (o->me != o->a->root) return SM_OK;
    size_t own = o->len;
    o->len = o->a->src.counts ? 0 : o->a->src.count * coll_elem_size(o->a->src.type);
    sm_status_t st = publish_src(o, &o->a->src, o->n);
    root_paces(o);
    o->x = own;
    return st;
}

/* The root's own block (o->x bytes expected). */
static void scatter_own(struct coll_op *o)
{
    int root = o->a->root;
    if (o->a->dst.base != COLL_IN_PLACE) {
        struct coll_blk s = local_block(&o->a->src, root, o->n), d = local_block(&o->a->dst, 0, 1);
        if (s.bytes != o->x) size_mismatch(o, root, "(the root itself) sends", s.bytes, o->x);
        else if (o->x) coll_copy(&d, &s, 0, o->x);
    }
}

/* A member: its block out of the root's source (record p). */
static void scatter_take(struct coll_op *o, const struct coll_rec *p)
{
    int root = o->a->root;
    if (!coll_check(o, root, p, false) || o->st) return;
    struct coll_blk s = src_block(o, p, root, o->me), d = local_block(&o->a->dst, 0, 1);
    if (s.bytes != o->len) size_mismatch(o, root, "(the root) sends", s.bytes, o->len);
    else if (o->len) coll_copy(&d, &s, 0, o->len);
}

static bool scatter_body(struct coll_op *o)
{
    int root = o->a->root;
    CO_BEGIN(o->bpc);
    if (o->me == root) {
        scatter_own(o);
        if (o->k) {
            o->i = 0, o->y = 0;
            CO_WAIT(o->bpc, paced(o));
        }
        return true;
    }
    CO_WAIT(o->bpc, coll_await(o, root));
    scatter_take(o, coll_rec_of(o->g, root, o->seq));
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_scatter_ops = { "scatter", scatter_prepare, scatter_body };

/* --- Allgather, collect -------------------------------------------------------------
 * Every member publishes its block; each copies every peer's into its dst.
 * Every record is checked before any data moves: a mismatch is everyone's. */
static struct coll_buf allgather_mine(const struct coll_op *o)
{
    return o->a->src.base == COLL_IN_PLACE ? block_buf(&o->a->dst, o->me, o->n) : o->a->src;
}

static sm_status_t allgather_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    struct coll_buf b = allgather_mine(o);
    o->len = b.count * coll_elem_size(b.type);
    return publish_src(o, &b, 1);
}

/* Every peer's block (their records checked) into dst, and this member's own. */
static void allgather_copy(struct coll_op *o)
{
    for (int k = 1; k < o->n; k++) {     /* sizes first: a mismatch moves nothing */
        int i = coll_next(o, k);
        struct coll_rec *p = coll_rec_of(o->g, i, o->seq);
        size_t want = local_block(&o->a->dst, i, o->n).bytes;
        if (p->len != want) {
            size_mismatch(o, i, "sends", p->len, want);
            return;
        }
    }
    for (int k = 1; k < o->n; k++) {
        int i = coll_next(o, k);
        struct coll_rec *p = coll_rec_of(o->g, i, o->seq);
        struct coll_lay tmp;
        struct coll_blk d = local_block(&o->a->dst, i, o->n), s = coll_block(coll_src(p, &tmp), 0, 1);
        if (d.bytes) coll_copy(&d, &s, 0, d.bytes);
    }
    if (o->a->src.base != COLL_IN_PLACE) {
        struct coll_blk d = local_block(&o->a->dst, o->me, o->n), s = local_block(&o->a->src, 0, 1);
        if (d.bytes != o->len) size_mismatch(o, o->me, "(this member) sends", o->len, d.bytes);
        else if (o->len) coll_copy(&d, &s, 0, o->len);
    }
}

/* Collect: every member's bytes (their records checked) concatenated in order into dst. */
static void collect_copy(struct coll_op *o)
{
    size_t at = 0;
    for (int i = 0; i < o->n; i++) {
        struct coll_rec *p = coll_rec_of(o->g, i, o->seq);
        struct coll_blk d = { (char *)o->a->dst.base + at, p->len, NULL, p->len };
        struct coll_lay tmp;
        struct coll_blk s = i == o->me ? local_block(&o->a->src, 0, 1) : coll_block(coll_src(p, &tmp), 0, 1);
        if (p->len && !(i == o->me && s.base == d.base && !s.type)) coll_copy(&d, &s, 0, p->len);
        at += p->len;
    }
}

static bool allgather_body(struct coll_op *o)
{
    bool collect = o->a->kind == COLL_COLLECT;
    CO_BEGIN(o->bpc);
    AWAIT_PEERS(o, collect ? false : !o->a->dst.counts);
    if (o->st) return true;
    if (collect) collect_copy(o);
    else allgather_copy(o);
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_allgather_ops = { "allgather", allgather_prepare, allgather_body };

/* --- Alltoall ---------------------------------------------------------------------------
 * Every member publishes its src blocks; each copies block `me` of every
 * peer's into its own dst. In place, src is a copy of dst made first (the
 * blocks peers copy must not be overwritten before they have). */
static sm_status_t alltoall_prepare(struct coll_op *o, struct coll_rec *mine)
{
    (void)mine;
    const struct coll_buf *b = &o->a->src;
    /* a block's bytes as published (a carried copy is read as len per block):
     * the source's, so a sender whose blocks differ from its receiver's is seen */
    if (o->a->src.base != COLL_IN_PLACE) {
        o->len = o->a->src.counts ? 0 : o->a->src.count * coll_elem_size(o->a->src.type);
        return publish_src(o, b, o->n);
    }
    o->len = o->a->dst.counts ? 0 : o->a->dst.count * coll_elem_size(o->a->dst.type);
    /* in place: the data to send is dst, which this member writes while
     * peers read it; a packed copy of it is published, carried when it fits
     * (this member's own block left out), else in scratch that peers read */
    size_t total = bytes_of(&o->a->dst, o->n), data;
    char *carry;
    if (!o->a->dst.counts && (carry = coll_carrier(o, carried_bytes(o, &o->a->dst, o->n, &data), false))) {
        publish_carried(o, carry, &o->a->dst, o->n, data);
        return SM_OK;
    }
    int *displs = NULL, *counts = NULL;
    size_t room = (total + sizeof(int) - 1) / sizeof(int) * sizeof(int);      /* the arrays aligned */
    void *c = coll_alloc(o, room + (o->a->dst.counts ? 2 * sizeof(int) * (size_t)o->n : 0));
    if (!c) return o->st;
    pack_blocks(c, &o->a->dst, o->n);
    o->src = (struct coll_lay){ (uint64_t)(uintptr_t)coll_global(c), 0, o->len, 0, 0, 0, 1, 1 };
    if (o->a->dst.counts) {
        counts = (int *)((char *)c + room), displs = counts + o->n;
        size_t at = 0;
        for (int i = 0; i < o->n; i++) {
            counts[i] = (int)local_block(&o->a->dst, i, o->n).bytes, displs[i] = (int)at;
            at += (size_t)counts[i];
        }
        o->src.counts = (uint64_t)(uintptr_t)coll_global(counts), o->src.displs = (uint64_t)(uintptr_t)coll_global(displs);
    }
    o->readers = COLL_ALL;
    return o->st;
}

/* Block `me` of every peer's source (their records checked) into dst, and this member's own. */
static void alltoall_copy(struct coll_op *o)
{
    for (int k = 1; k < o->n; k++) {     /* sizes first: a mismatch moves nothing */
        int i = coll_next(o, k);
        size_t theirs = src_block(o, coll_rec_of(o->g, i, o->seq), i, o->me).bytes;
        size_t want = local_block(&o->a->dst, i, o->n).bytes;
        if (theirs != want) {
            size_mismatch(o, i, "sends", theirs, want);
            return;
        }
    }
    for (int k = 1; k < o->n; k++) {
        int i = coll_next(o, k);
        struct coll_blk s = src_block(o, coll_rec_of(o->g, i, o->seq), i, o->me);
        struct coll_blk d = local_block(&o->a->dst, i, o->n);
        if (d.bytes) coll_copy(&d, &s, 0, d.bytes);
    }
    if (o->a->src.base != COLL_IN_PLACE) {
        struct coll_blk s = local_block(&o->a->src, o->me, o->n), d = local_block(&o->a->dst, o->me, o->n);
        if (s.bytes != d.bytes) size_mismatch(o, o->me, "(this member) sends", s.bytes, d.bytes);
        else if (d.bytes) coll_copy(&d, &s, 0, d.bytes);
    }
}

static bool alltoall_body(struct coll_op *o)
{
    CO_BEGIN(o->bpc);
    AWAIT_PEERS(o, !o->a->dst.counts);
    if (o->st) return true;
    alltoall_copy(o);
    CO_END(o->bpc);
}
const struct coll_kind_ops coll_alltoall_ops = { "alltoall", alltoall_prepare, alltoall_body };

/* --- The lean path ----------------------------------------------------------------------
 * A blocking broadcast, scatter(v), gather(v), allgather(v), collect or
 * alltoall(v) of contiguous buffers whose own contribution fits its record
 * (COLL_INLINE bytes, a v form's arrays included) ran through coll_op_init,
 * the schedule's coroutine, publish()'s clears and the kind's prepare with
 * its layouts: about 1300 instructions of the engine on 1 rank for a copy
 * into the record and one out. Here it runs inline on sched.c's
 * coll_lean_* with the general path's record (publish_carried, as
 * prepare makes it) and the kinds' own steps on peers' records
 * (bcast_take, scatter_take, gather_take, allgather_copy, collect_copy,
 * alltoall_copy),
 * which read any record a peer on the general path may publish (a peer
 * with a nonblocking collective still listed on the group). What a lean
 * member publishes is carried, so nobody waits for it. Anything else goes
 * the general way: types with gaps, alltoallw's types, an in-place
 * alltoallv, a root that paces (root_paces), a gather root whose blocks
 * do not all fit a record (a peer would write into its buffer, which it
 * then waits for) or whose arrays do not fit its record, a bad root.
 * (Collect, OpenSHMEM's, went the general way until 2026-12-01: 2 ranks,
 * shmem_collectmem of 8 B 0.44 us against fcollectmem's 0.31.) */
static bool lean_buf(const struct coll_buf *b) { return !b->types && (!b->type || b->type->contig); }

/* A gather root: every block fits a record, so a peer whose block matches
 * carries it (coll_carrier) and never writes into dst; and its own record
 * holds its blocks' sizes for peers to check theirs against. */
static bool gather_lean_root(const struct coll_op *o)
{
    const struct coll_buf *d = &o->a->dst;
    if (!d->counts) return d->count * coll_elem_size(d->type) <= COLL_INLINE;
    if (2 * sizeof(int) * (size_t)o->n > COLL_INLINE) return false;
    struct coll_lay l;
    coll_lay_local(&l, d);
    for (int i = 0; i < o->n; i++)
        if (coll_block(&l, i, o->n).bytes > COLL_INLINE) return false;
    return true;
}

/* The gather root's record: its blocks' sizes (a layout of bytes whose
 * arrays are in the record; the base is never written, as above); its own
 * view of dst for gather_take. */
static void gather_lean_dst(struct coll_op *o, struct coll_rec *r)
{
    const struct coll_buf *d = &o->a->dst;
    coll_lay_local(&o->dst, d);
    o->flags = REC_PUSH;
    if (!d->counts) {
        r->dst = (struct coll_lay){ 0, 0, d->count * coll_elem_size(d->type), 0, 0, 0, 1, 1 };
        return;
    }
    int *counts = (int *)(void *)r->data, *displs = counts + o->n;
    for (int i = 0; i < o->n; i++) counts[i] = (int)coll_block(&o->dst, i, o->n).bytes, displs[i] = 0;
    r->dst = (struct coll_lay){ 0, 0, 0, (uint64_t)(uintptr_t)coll_global(counts),
                                (uint64_t)(uintptr_t)coll_global(displs), 0, 1, 1 };
}

bool coll_move_lean(struct coll_group *g, const struct coll_args *a, sm_status_t *st)
{
    enum coll_kind kind = a->kind;
    if (((kind < COLL_BCAST || kind > COLL_ALLTOALL) && kind != COLL_COLLECT) || !lean_buf(&a->src) ||
        !lean_buf(&a->dst))
        return false;
    struct coll_op o;
    o.a = a, o.n = g->m.size, o.me = g->m.me;       /* what the sizes below read */
    int n = o.n, me = o.me, root = kind <= COLL_SCATTER ? a->root : -1;
    if (kind <= COLL_SCATTER && (unsigned)root >= (unsigned)n) return false;   /* coll_op_init's error */
    bool is_root = me == root;
    if (is_root && kind != COLL_GATHER && sm_core.oversubscribed && n > 2 * sm_core.cpus) return false;
    const struct coll_buf *pub = NULL;      /* what this member publishes (carried), if anything */
    struct coll_buf mine;
    int nb = 1;
    size_t len, own = 0, data = 0;
    switch (kind) {
    case COLL_BCAST:
        len = bcast_len(&o);
        if (is_root) pub = bcast_src(&o);
        break;
    case COLL_SCATTER:
        len = own = a->dst.base == COLL_IN_PLACE ? 0 : a->dst.count * coll_elem_size(a->dst.type);
        if (is_root) len = a->src.counts ? 0 : a->src.count * coll_elem_size(a->src.type), pub = &a->src, nb = n;
        break;
    case COLL_GATHER:
        len = gather_mine(&o);
        if (!is_root) pub = &a->src;
        else if (!gather_lean_root(&o)) return false;
        break;
    case COLL_ALLGATHER:
        mine = allgather_mine(&o);
        len = mine.count * coll_elem_size(mine.type), pub = &mine;
        break;
    case COLL_COLLECT:      /* (bytes: coll_collect's) */
        len = a->src.count, pub = &a->src;
        break;
    default:                /* COLL_ALLTOALL: in place, dst is the source */
        pub = a->src.base != COLL_IN_PLACE ? &a->src : &a->dst;
        if (pub->counts && pub == &a->dst) return false;
        len = pub->counts ? 0 : pub->count * coll_elem_size(pub->type), nb = n;
        break;
    }
    if (len > COLL_INLINE || (pub && carried_bytes(&o, pub, nb, &data) > COLL_INLINE)) return false;

    struct coll_rec *r = coll_lean_open(&o, g, a, COLL_SIG(kind, root, 0, 0)), *p;
    o.len = len, o.x = own, o.flags = 0;
    if (pub) publish_carried(&o, (char *)r->data, pub, nb, data);
    else if (kind == COLL_GATHER) gather_lean_dst(&o, r);
    r->flags = o.flags, r->len = len;
    if (o.flags & REC_CARRIED) r->aux = o.src.base;
    coll_lean_stamp(&o, r);

    switch (kind) {
    case COLL_BCAST:
        if (is_root) bcast_own(&o);
        else if (coll_check(&o, root, p = coll_lean_await(&o, root), true) && !o.st && len) bcast_take(&o, p);
        break;
    case COLL_SCATTER:
        if (is_root) scatter_own(&o);
        else scatter_take(&o, coll_lean_await(&o, root));
        break;
    case COLL_GATHER:
        if (!is_root) break;
        for (int d = 1; d < n; d++) gather_take(&o, coll_next(&o, d), coll_lean_await(&o, coll_next(&o, d)));
        gather_own(&o);
        break;
    default:                /* every record checked before any data moves, as AWAIT_PEERS */
        for (int d = 1; d < n; d++)
            coll_check(&o, coll_next(&o, d), coll_lean_await(&o, coll_next(&o, d)), kind != COLL_COLLECT && !a->dst.counts);
        if (o.st) break;
        if (kind == COLL_ALLGATHER) allgather_copy(&o);
        else if (kind == COLL_COLLECT) collect_copy(&o);
        else alltoall_copy(&o);
    }
    *st = coll_lean_end(&o);
    return true;
}

/* --- OpenSHMEM's shorthands ---------------------------------------------------------- */
static inline struct coll_buf bytes(const void *p, size_t len) { return (struct coll_buf){ (void *)p, len, NULL, NULL, NULL, NULL }; }

sm_status_t coll_barrier(struct coll_group *g)
{
    struct coll_args a = { .kind = COLL_BARRIER };
    return coll_run(g, &a);
}

sm_status_t coll_bcast(struct coll_group *g, void *dst, const void *src, size_t len, int root)
{
    struct coll_args a = { .kind = COLL_BCAST, .root = root, .src = bytes(g->m.me == root ? src : NULL, len),
                           .dst = bytes(dst, len) };
    if (g->m.me == root && (!dst || dst == src)) a.dst.base = NULL;
    return coll_run(g, &a);
}

sm_status_t coll_allgather(struct coll_group *g, void *dst, const void *src, size_t len)
{
    struct coll_args a = { .kind = COLL_ALLGATHER, .src = bytes(src, len), .dst = bytes(dst, len) };
    if (src == (char *)dst + (size_t)g->m.me * len) a.src.base = COLL_IN_PLACE;
    return coll_run(g, &a);
}

/* A group spanning nodes: the lengths first (an allgather), then the blocks
 * as an allgatherv, which the by-nodes and point-to-point paths know. */
static sm_status_t collect_spanning(struct coll_group *g, void *dst, const void *src, size_t len)
{
    int n = g->m.size;
    uint64_t mine = len, *lens = malloc(sizeof *lens * (size_t)n);
    int *counts = malloc(sizeof *counts * (size_t)n), *displs = malloc(sizeof *displs * (size_t)n);
    sm_status_t st = lens && counts && displs ? SM_OK : sm_fail(SM_ERR_NOMEM, "collect: no memory for %d lengths", n);
    if (!st) st = coll_allgather(g, lens, &mine, sizeof mine);
    uint64_t total = 0;
    for (int i = 0; !st && i < n; i++) {
        if (lens[i] > INT_MAX || total + lens[i] > INT_MAX)
            st = sm_fail(SM_ERR_UNSUPPORTED, "collect across nodes: %llu bytes in all, more than %d",
                         (unsigned long long)(total + lens[i]), INT_MAX);
        counts[i] = (int)lens[i], displs[i] = (int)total, total += lens[i];
    }
    if (!st) {
        struct coll_args a = { .kind = COLL_ALLGATHER, .src = bytes(src, len), .dst = bytes(dst, 0) };
        a.dst.counts = counts, a.dst.displs = displs;
        st = coll_run(g, &a);
    }
    free(lens), free(counts), free(displs);
    return st;
}

sm_status_t coll_collect(struct coll_group *g, void *dst, const void *src, size_t len)
{
    if (SM_UNLIKELY(g->net != NULL)) return collect_spanning(g, dst, src, len);
    struct coll_args a = { .kind = COLL_COLLECT, .src = bytes(src, len), .dst = bytes(dst, 0) };
    return coll_run(g, &a);
}

/* A block of nelems elements of elem bytes, stride elements apart, whose
 * extent is the whole block's place (nelems * stride elements): a type. */
static sm_status_t strided_type(size_t elem, size_t nelems, ptrdiff_t stride, struct dt_type **out)
{
    static struct dt_predef byte;
    static _Atomic int ready;
    if (!atomic_load_explicit(&ready, memory_order_acquire)) {   /* the same bytes if two threads race */
        dt_predef_init(&byte, 0, 1, 1, 1, 0, 0);
        atomic_store_explicit(&ready, 1, memory_order_release);
    }
    struct dt_type *e = NULL, *v = NULL;
    sm_status_t st = dt_contiguous(elem, &byte.t, &e);
    if (!st) st = dt_hvector(nelems, 1, stride * (ptrdiff_t)elem, e, &v);
    if (!st) st = dt_resized(v, 0, (ptrdiff_t)(nelems * (size_t)stride * elem), out);
    dt_unref(e);
    dt_unref(v);
    return st;
}

sm_status_t coll_alltoalls(struct coll_group *g, void *dst, const void *src, ptrdiff_t dst_stride,
                           ptrdiff_t src_stride, size_t elem, size_t nelems)
{
    size_t len, span;
    if (nelems && (src_stride < 1 || dst_stride < 1))
        return sm_fail(SM_ERR_ARG, "strides %td and %td must be positive", dst_stride, src_stride);
    if (__builtin_mul_overflow(elem, nelems, &len) ||
        __builtin_mul_overflow(len, (size_t)(src_stride > dst_stride ? src_stride : dst_stride), &span) ||
        __builtin_mul_overflow(span, (size_t)g->m.size, &span))
        return sm_fail(SM_ERR_ARG, "%zu elements of %zu bytes at strides %td and %td overflow the address space",
                       nelems, elem, dst_stride, src_stride);
    struct coll_args a = { .kind = COLL_ALLTOALL, .src = bytes(src, len), .dst = bytes(dst, len) };
    struct dt_type *st_ = NULL, *dt_ = NULL;
    sm_status_t st = SM_OK;
    if (nelems && src_stride != 1 && !(st = strided_type(elem, nelems, src_stride, &st_))) a.src = (struct coll_buf){ (void *)src, 1, st_, NULL, NULL, NULL };
    if (!st && nelems && dst_stride != 1 && !(st = strided_type(elem, nelems, dst_stride, &dt_))) a.dst = (struct coll_buf){ dst, 1, dt_, NULL, NULL, NULL };
    if (!st) st = coll_run(g, &a);
    dt_unref(st_);
    dt_unref(dt_);
    return st;
}

sm_status_t coll_reduce(struct coll_group *g, void *dst, const void *src, size_t count, enum coll_dtype t,
                        enum coll_redop op, int root)
{
    size_t len;
    if (__builtin_mul_overflow(count, coll_dtype_size(t), &len))
        return sm_fail(SM_ERR_ARG, "%zu elements of %zu bytes overflow the address space", count, coll_dtype_size(t));
    struct coll_args a = { .kind = root == COLL_ALL ? COLL_ALLREDUCE : COLL_REDUCE, .root = root,
                           .src = bytes(src == dst ? COLL_IN_PLACE : src, len), .dst = bytes(dst, len),
                           .red = { .t = t, .op = op } };
    return coll_run(g, &a);
}
