/* span.c: collectives on a group spanning nodes, where peers' memory is
 * not mapped: over point-to-point (the off-node ranks through src/net),
 * on the group's own context (P2P_CTX_COLL | its number). Correct first:
 * every collective is one round of messages posted at once (each member
 * sends what each other needs, as packed streams where datatypes differ),
 * then a local step (copies, the reduction in member order). So nonblocking
 * ones need no schedule: start posts the round, progress tests it. Linear
 * in the members (n^2 messages for the all-to-all kinds). The blocking
 * ones go by nodes where they can (hier.c: the node's SMARTMAP engine,
 * these rounds between the nodes' leaders), and so do the nonblocking ones
 * once the group has been split by nodes (its first blocking collective). */
#define _GNU_SOURCE             /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

/* The job's ranks, for the groups made over the whole job (start-up). */
static int job_ranks[SM_NMAX];
static struct p2p_comm job_comm;

const struct p2p_comm *coll_span_job(void)
{
    if (!job_comm.size) {
        for (int r = 0; r < sm_core.size; r++) job_ranks[r] = r;
        job_comm = (struct p2p_comm){ P2P_CTX_COLL | P2P_CTX_COLL_JOB, sm_core.rank, sm_core.size, job_ranks, 0 };
    }
    return &job_comm;
}

bool coll_spans(const struct sm_group *m)
{
    if (SM_LIKELY(!sm_spans_nodes()) || !m) return false;
    for (int i = 0; i < m->size; i++)
        if (!sm_rank_local(sm_group_rank(m, i))) return true;
    return false;
}

sm_status_t coll_span_attach(struct coll_group *g)
{
    struct p2p_comm *c = malloc(sizeof *c + sizeof(int) * (size_t)g->m.size);
    if (!c) return sm_fail(SM_ERR_NOMEM, "no memory for a group of %d", g->m.size);
    int *w = (int *)(c + 1);
    for (int i = 0; i < g->m.size; i++) w[i] = sm_group_rank(&g->m, i);
    *c = (struct p2p_comm){ P2P_CTX_COLL | (uint32_t)g->num, g->m.me, g->m.size, w, 0 };
    g->net = c;
    return SM_OK;
}

/* --- Scratch ----------------------------------------------------------------------
 * mimalloc here purges a freed block at once (core/alloc.c: MADV_REMOVE),
 * so a 1 MiB allreduce on 2 nodes of 2 faulted in about 1.6 MiB of fresh
 * pages per rank and call (400 faults: three quarters of its system time,
 * which was three times its user time). SCRATCH_KEEP blocks of up to
 * SCRATCH_MAX bytes in all stay for the next call. Each block starts with
 * a header holding its size. */
#define SCRATCH_KEEP 4
#define SCRATCH_MAX (8u << 20)
#define SCRATCH_HDR 64
static struct { char *p; size_t n; } keep[SCRATCH_KEEP];
static size_t kept;
static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;

void *coll_scratch(size_t n)
{
    size_t want = n + SCRATCH_HDR;
    char *h = NULL;
    pthread_mutex_lock(&keep_lock);
    int best = -1;
    for (int i = 0; i < SCRATCH_KEEP; i++)
        if (keep[i].p && keep[i].n >= want && (best < 0 || keep[i].n < keep[best].n)) best = i;
    if (best >= 0) h = keep[best].p, keep[best].p = NULL, kept -= keep[best].n;
    pthread_mutex_unlock(&keep_lock);
    if (!h) {
        if (!(h = malloc(want))) return NULL;
        memcpy(h, &want, sizeof want);
    }
    return h + SCRATCH_HDR;
}

void coll_scratch_free(void *p)
{
    if (!p) return;
    char *h = (char *)p - SCRATCH_HDR, *out = h;
    size_t n;
    memcpy(&n, h, sizeof n);
    pthread_mutex_lock(&keep_lock);
    int slot = 0;                               /* an empty slot, else the smallest kept */
    for (int i = 1; i < SCRATCH_KEEP && keep[slot].p; i++)
        if (!keep[i].p || keep[i].n < keep[slot].n) slot = i;
    if (!keep[slot].p || keep[slot].n < n) {    /* kept instead (within SCRATCH_MAX) */
        size_t gone = keep[slot].p ? keep[slot].n : 0;
        if (kept - gone + n <= SCRATCH_MAX) {
            out = keep[slot].p;
            keep[slot].p = h, keep[slot].n = n, kept = kept - gone + n;
        }
    }
    pthread_mutex_unlock(&keep_lock);
    free(out);
}

/* --- One collective ------------------------------------------------------------ */

struct span_op {
    struct span_op *next;
    struct coll_group *g;
    coll_done_fn done;
    void *ctx;
    int tag;
    int nreq;
    struct p2p_req **req;
    char *mine;                 /* reductions: this member's source as a stream */
    char **in;                  /* reductions: member j's stream (for this member's part) */
    char *alloc[8];             /* what to free at the end */
    int nalloc;
    size_t bytes;               /* reductions: bytes of a stream (this member's part) */
    size_t es;                  /* ... and of an element in it */
    /* This member failed (before the call: coll_args.failed; or in a step
     * of the ring's): from here on its messages are empty, its receives
     * take nothing, so that every peer still gets what it waits for and
     * sees the failure as a size that differs. st: the first failure. */
    bool failed;
    sm_status_t st;
    /* (from here on not cleared by op_clear: a is op_check's copy, why is
     * written with st) */
    struct coll_args a;
    char why[256];
};

/* A blocking collective's op on the stack: the fields before a cleared, not
 * the 500 bytes of a and why (a third of this file's own instructions in
 * an 8-byte allreduce between nodes). */
static void op_clear(struct span_op *o) { memset(o, 0, offsetof(struct span_op, a)); }

static void *op_alloc(struct span_op *o, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (p) o->alloc[o->nalloc++] = p;
    return p;
}

static size_t type_size(const struct dt_type *t) { return t ? t->size : 1; }

/* Block i of b (a buffer with a block per member): its address, type and
 * stream bytes. Also hier.c's. */
void *coll_buf_block(const struct coll_buf *b, int i, const struct dt_type **t, size_t *bytes)
{
    const struct dt_type *ty = b->types ? b->types[i] : b->type;
    size_t cnt = b->counts ? (size_t)(b->counts[i] > 0 ? b->counts[i] : 0) : b->count;
    ptrdiff_t ext = ty ? dt_extent(ty) : 1;
    char *base = b->base;
    *t = ty, *bytes = cnt * type_size(ty);
    if (b->types) return base + b->displs[i];
    if (b->counts) return base + (ptrdiff_t)b->displs[i] * ext;
    return base + (ptrdiff_t)i * (ptrdiff_t)cnt * ext;
}
/* The whole of b (one block). */
static void *whole(const struct coll_buf *b, const struct dt_type **t, size_t *bytes)
{
    *t = b->type, *bytes = b->count * type_size(b->type);
    return b->base;
}

void coll_fail_msg(bool send, void **buf, size_t *bytes, const struct dt_type **t)
{
    static const char one;
    *buf = send && !*bytes ? (void *)&one : NULL, *bytes = send && !*bytes ? 1 : 0, *t = NULL;
}

sm_status_t coll_recv_status(const struct coll_group *g, const struct p2p_req *r)
{
    if (SM_LIKELY(!r->st.err && r->st.len == r->len)) return SM_OK;
    int j = r->src, me = g->m.me, rank = sm_group_rank(&g->m, j);
    if (r->st.err == SM_ERR_TRUNCATE)
        return sm_fail(SM_ERR_TRUNCATE, "member %d of the group (rank %d) sent more than the %zu bytes this "
                       "member (%d) expects", j, rank, r->len, me);
    if (r->st.err) return sm_fail(r->st.err, "%s", r->why ? r->why : "a transfer failed");
    if (!r->st.len)
        return sm_fail(SM_ERR_TRUNCATE, "member %d of the group (rank %d) sent nothing where this member (%d) "
                       "expects %zu bytes: it passed a count of 0, or failed before", j, rank, me, r->len);
    return sm_fail(SM_ERR_TRUNCATE, "member %d of the group (rank %d) sent %zu bytes, this member (%d) expects %zu",
                   j, rank, r->st.len, me, r->len);
}

static sm_status_t post(struct span_op *o, bool send, void *buf, size_t bytes, const struct dt_type *t, int peer)
{
    if (SM_UNLIKELY(o->failed)) coll_fail_msg(send, &buf, &bytes, &t);
    struct p2p_req *r = p2p_req_alloc();
    if (!r) return SM_ERR_NOMEM;
    const struct p2p_comm *c = o->g->net;
    sm_status_t st = send ? p2p_isend(r, buf, bytes, peer, o->tag, c, P2P_STANDARD, t)
                          : p2p_irecv(r, buf, bytes, peer, o->tag, c, t);
    if (st) {
        p2p_req_free(r);
        return st;
    }
    o->req[o->nreq++] = r;
    return SM_OK;
}

/* A local copy of bytes stream bytes, typemap to typemap. */
static void local_copy(void *dst, const struct dt_type *dt, const void *src, const struct dt_type *stype, size_t bytes)
{
    if (bytes && dst != src) dt_copy(dst, dt, src, stype, 0, bytes);
}
static __attribute__((noinline, cold)) void op_fail(struct span_op *o, sm_status_t st)
{
    if (o->st) return;
    o->st = st;
    snprintf(o->why, sizeof o->why, "%s", sm_fail_reason());
}
/* This member's own block, sent to itself (a root's in a gather or
 * scatter, every member's in an allgather or alltoall): none once it failed
 * (its buffers may be what failed); sizes that differ fail it, as a
 * message would. */
static void self_copy(struct span_op *o, void *dst, const struct dt_type *dt, const void *src,
                      const struct dt_type *stype, size_t sbytes, size_t dbytes)
{
    if (o->failed) return;
    if (SM_UNLIKELY(sbytes != dbytes))
        op_fail(o, sm_fail(SM_ERR_TRUNCATE, "this member (%d) sends itself %zu bytes, its block takes %zu",
                           o->g->m.me, sbytes, dbytes));
    else local_copy(dst, dt, src, stype, sbytes);
}

/* --- Reductions --------------------------------------------------------------------
 * Every member's source travels as a stream (packed elements); the member
 * that needs a result converts each into the layout the operation works on
 * (C arrays of t for the predefined ones, the datatype's own for user
 * functions) and combines them in member order. */

static struct coll_buf red_src(const struct span_op *o)
{
    if (o->a.src.base != COLL_IN_PLACE) return o->a.src;
    struct coll_buf b = o->a.dst;
    if (o->a.kind == COLL_REDUCE_SCATTER) {
        size_t total = 0;
        for (int i = 0; i < o->g->m.size; i++) total += b.counts ? (size_t)(b.counts[i] > 0 ? b.counts[i] : 0) : b.count;
        b.count = total, b.counts = NULL, b.displs = NULL;
    }
    return b;
}

/* The work layout's type (NULL: C arrays) and the bytes a stream element takes. */
static const struct dt_type *work_type(const struct span_op *o, const struct dt_type *t)
{
    if (o->a.red.op == COLL_USER) return t;
    return t ? o->a.red.elem : NULL;
}
static size_t stream_elem(const struct span_op *o, const struct dt_type *t)
{
    if (o->a.red.op == COLL_USER) return t ? t->size : 1;
    return t && t->nbasic ? t->size / t->nbasic : coll_dtype_size(o->a.red.t);
}

/* Streams from..to combined, in order, written into dst (typemap dt). */
static sm_status_t fold(struct span_op *o, int from, int to, void *dst, const struct dt_type *dt)
{
    const struct dt_type *t = red_src(o).type, *wt = work_type(o, t);
    bool user = o->a.red.op == COLL_USER;
    size_t n = o->es ? o->bytes / o->es : 0;     /* elements: basic ones of t, or the datatype's (user) */
    if (!n) return SM_OK;
    ptrdiff_t lo = 0, hi = (ptrdiff_t)(n * coll_dtype_size(o->a.red.t));
    if (user) dt_span(wt, n, &lo, &hi);
    char *m1 = malloc((size_t)(hi - lo)), *m2 = malloc((size_t)(hi - lo));
    if (!m1 || !m2) {
        free(m1), free(m2);
        return sm_fail(SM_ERR_NOMEM, "no memory to combine %zu bytes", o->bytes);
    }
    char *acc = m1 - lo, *x = m2 - lo;
    dt_copy(acc, wt, o->in[from], NULL, 0, o->bytes);
    for (int j = from + 1; j <= to; j++) {
        dt_copy(x, wt, o->in[j], NULL, 0, o->bytes);
        if (user) {             /* inout = in op inout: the result lands in x */
            o->a.red.fn.fn(acc, x, n, o->a.red.fn.ctx);
            char *s = acc; acc = x, x = s;
        } else {
            coll_kernel(o->a.red.t, o->a.red.op)(acc, acc, x, n);
        }
    }
    dt_copy(dst, dt, acc, wt, 0, o->bytes);
    free(m1), free(m2);
    return SM_OK;
}

/* Which members' streams this member needs, and for which range (reduce-scatter: its block). */
static sm_status_t red_start(struct span_op *o)
{
    int n = o->g->m.size, me = o->g->m.me, root = o->a.root;
    enum coll_kind k = o->a.kind;
    if (o->a.red.op == COLL_USER && !red_src(o).type) return sm_fail(SM_ERR_ARG, "a user operation needs the buffers' datatype");
    struct coll_buf sb = red_src(o);
    const struct dt_type *st;
    size_t total;
    void *sbase = whole(&sb, &st, &total);
    o->es = stream_elem(o, st);
    if (!(o->mine = op_alloc(o, total)) || !(o->in = op_alloc(o, sizeof *o->in * (size_t)n)))
        return sm_fail(SM_ERR_NOMEM, "no memory for a %zu-byte reduction", total);
    if (!o->failed) local_copy(o->mine, NULL, sbase, st, total);
    /* block starts (reduce-scatter), in stream bytes */
    size_t *bs = NULL;
    if (k == COLL_REDUCE_SCATTER) {
        if (!(bs = op_alloc(o, sizeof *bs * (size_t)(n + 1)))) return sm_fail(SM_ERR_NOMEM, "no memory");
        bs[0] = 0;
        for (int i = 0; i < n; i++) {
            const struct dt_type *bt = o->a.dst.type;
            size_t c = o->a.dst.counts ? (size_t)(o->a.dst.counts[i] > 0 ? o->a.dst.counts[i] : 0) : o->a.dst.count;
            bs[i + 1] = bs[i] + c * type_size(bt);
        }
        if (bs[n] != total && !o->failed) {     /* (its part still taken: the others wait for it) */
            op_fail(o, sm_fail(SM_ERR_ARG, "the blocks add up to %zu bytes, the source has %zu", bs[n], total));
            o->failed = true;
        }
        o->bytes = bs[me + 1] - bs[me];
    } else {
        o->bytes = total;
    }
    bool need = k == COLL_REDUCE ? me == root : k == COLL_EXSCAN ? me > 0 : true;
    int last = k == COLL_SCAN ? me : k == COLL_EXSCAN ? me - 1 : n - 1;
    if (need) {
        size_t off = bs ? bs[me] : 0;
        char *space = op_alloc(o, o->bytes * (size_t)(last + 1));
        if (!space) return sm_fail(SM_ERR_NOMEM, "no memory for %d streams of %zu bytes", last + 1, o->bytes);
        for (int j = 0; j <= last; j++) {
            o->in[j] = j == me ? o->mine + off : space + (size_t)j * o->bytes;
            sm_status_t s = j == me ? SM_OK : post(o, false, o->in[j], o->bytes, NULL, j);
            if (s) return s;
        }
    }
    for (int j = 0; j < n; j++) {
        if (j == me) continue;
        bool wants = k == COLL_REDUCE ? j == root : k == COLL_SCAN ? j > me : k == COLL_EXSCAN ? j > me : true;
        if (!wants) continue;
        size_t off = bs ? bs[j] : 0, len = bs ? bs[j + 1] - bs[j] : total;
        sm_status_t s = post(o, true, o->mine + off, len, NULL, j);
        if (s) return s;
    }
    return SM_OK;
}

static sm_status_t red_finish(struct span_op *o)
{
    int me = o->g->m.me;
    enum coll_kind k = o->a.kind;
    const struct dt_type *dt;
    size_t bytes;
    void *dst = whole(&o->a.dst, &dt, &bytes);
    switch (k) {
    case COLL_REDUCE: return me == o->a.root ? fold(o, 0, o->g->m.size - 1, dst, dt) : SM_OK;
    case COLL_EXSCAN: return me > 0 ? fold(o, 0, me - 1, dst, dt) : SM_OK;
    case COLL_SCAN: return fold(o, 0, me, dst, dt);
    default: return fold(o, 0, o->g->m.size - 1, dst, dt);
    }
}

/* --- The round of each kind --------------------------------------------------------- */

static sm_status_t start(struct span_op *o)
{
    int n = o->g->m.size, me = o->g->m.me, root = o->a.root;
    struct coll_args *a = &o->a;
    const struct dt_type *st, *dt;
    size_t sb, db;
    void *s, *d;
    sm_status_t e = SM_OK;
    int cap = 2 * n + 2;
    if (!(o->req = op_alloc(o, sizeof *o->req * (size_t)cap))) return sm_fail(SM_ERR_NOMEM, "no memory for a collective");
    switch (a->kind) {
    case COLL_BARRIER:
        for (int j = 0; j < n && !e; j++)
            if (j != me) e = post(o, false, NULL, 0, NULL, j);
        for (int j = 0; j < n && !e; j++)
            if (j != me) e = post(o, true, NULL, 0, NULL, j);
        return e;
    case COLL_BCAST:
        d = whole(&a->dst, &dt, &db);
        if (me != root) return post(o, false, d, db, dt, root);
        if (a->src.base && a->src.base != COLL_IN_PLACE) {      /* the shorthand's separate source */
            s = whole(&a->src, &st, &sb);
            if (d) self_copy(o, d, dt, s, st, sb, db);
        } else {
            s = d, st = dt, sb = db;
        }
        for (int j = 0; j < n && !e; j++)
            if (j != me) e = post(o, true, s, sb, st, j);
        return e;
    case COLL_GATHER:
        if (me != root) {
            s = whole(&a->src, &st, &sb);
            return post(o, true, s, sb, st, root);
        }
        for (int j = 0; j < n && !e; j++) {
            d = coll_buf_block(&a->dst, j, &dt, &db);
            if (j != me) e = post(o, false, d, db, dt, j);
            else if (a->src.base != COLL_IN_PLACE) {
                s = whole(&a->src, &st, &sb);
                self_copy(o, d, dt, s, st, sb, db);
            }
        }
        return e;
    case COLL_SCATTER:
        if (me != root) {
            d = whole(&a->dst, &dt, &db);
            return post(o, false, d, db, dt, root);
        }
        for (int j = 0; j < n && !e; j++) {
            s = coll_buf_block(&a->src, j, &st, &sb);
            if (j != me) e = post(o, true, s, sb, st, j);
            else if (a->dst.base != COLL_IN_PLACE) {
                d = whole(&a->dst, &dt, &db);
                self_copy(o, d, dt, s, st, sb, db);
            }
        }
        return e;
    case COLL_ALLGATHER:
    case COLL_COLLECT:
        if (a->kind == COLL_COLLECT) return sm_fail(SM_ERR_UNSUPPORTED, "collect: not supported across nodes yet");
        if (a->src.base == COLL_IN_PLACE) s = coll_buf_block(&a->dst, me, &st, &sb);
        else s = whole(&a->src, &st, &sb);
        for (int j = 0; j < n && !e; j++) {
            d = coll_buf_block(&a->dst, j, &dt, &db);
            if (j != me) e = post(o, false, d, db, dt, j);
            else if (a->src.base != COLL_IN_PLACE) self_copy(o, d, dt, s, st, sb, db);
        }
        for (int j = 0; j < n && !e; j++)
            if (j != me) e = post(o, true, s, sb, st, j);
        return e;
    case COLL_ALLTOALL: {
        /* in place, the blocks to send are packed first: the receives overwrite them */
        bool inpl = a->src.base == COLL_IN_PLACE;
        char *packed = NULL;
        size_t *off = NULL;
        if (inpl) {
            size_t total = 0;
            if (!(off = op_alloc(o, sizeof *off * (size_t)(n + 1)))) return sm_fail(SM_ERR_NOMEM, "no memory");
            for (int j = 0; j < n; j++) {
                off[j] = total;
                coll_buf_block(&a->dst, j, &dt, &db);
                total += db;
            }
            if (!(packed = op_alloc(o, total))) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", total);
            for (int j = 0; j < n; j++) {
                d = coll_buf_block(&a->dst, j, &dt, &db);
                if (j != me && !o->failed) local_copy(packed + off[j], NULL, d, dt, db);
            }
        }
        for (int j = 0; j < n && !e; j++) {
            d = coll_buf_block(&a->dst, j, &dt, &db);
            if (j == me) {
                if (!inpl) {
                    s = coll_buf_block(&a->src, j, &st, &sb);
                    self_copy(o, d, dt, s, st, sb, db);
                }
                continue;
            }
            e = post(o, false, d, db, dt, j);
        }
        for (int j = 0; j < n && !e; j++) {
            if (j == me) continue;
            if (inpl) {
                coll_buf_block(&a->dst, j, &dt, &db);
                e = post(o, true, packed + off[j], db, NULL, j);
            } else {
                s = coll_buf_block(&a->src, j, &st, &sb);
                e = post(o, true, s, sb, st, j);
            }
        }
        return e;
    }
    case COLL_REDUCE: case COLL_ALLREDUCE: case COLL_REDUCE_SCATTER: case COLL_SCAN: case COLL_EXSCAN:
        return red_start(o);
    default:
        return sm_fail(SM_ERR_UNSUPPORTED, "collective kind %d: not supported across nodes yet", (int)a->kind);
    }
}

static bool is_red(enum coll_kind k) { return k >= COLL_REDUCE && k <= COLL_EXSCAN; }

/* Every request done: freed; a failure (the first) in o->st (a receive
 * of another size than expected too: coll_recv_status). The status: o's. */
static sm_status_t reqs_end(struct span_op *o)
{
    for (int i = 0; i < o->nreq; i++) {
        struct p2p_req *r = o->req[i];
        sm_status_t st = o->failed ? SM_OK : r->kind == P2P_RECV ? coll_recv_status(o->g, r) : r->st.err;
        if (SM_UNLIKELY(st)) op_fail(o, r->kind == P2P_RECV ? st : sm_fail(st, "%s", r->why ? r->why : "a transfer failed"));
        p2p_req_free(r);
    }
    o->nreq = 0;
    return o->st;
}

/* o's status, its reason recorded again for the caller. */
static sm_status_t op_status(const struct span_op *o)
{
    return o->st ? sm_fail(o->st, "%s", o->why) : SM_OK;
}

/* Every request done: the status of the round, then the local step. */
static sm_status_t finish(struct span_op *o)
{
    reqs_end(o);
    if (!o->st && is_red(o->a.kind)) {
        sm_status_t st = red_finish(o);
        if (st) op_fail(o, st);
    }
    for (int i = 0; i < o->nalloc; i++) free(o->alloc[i]);
    o->nalloc = 0;
    return op_status(o);
}

/* What every collective checks first; its sequence number and tag. */
static sm_status_t op_check(struct span_op *o, struct coll_group *g, const struct coll_args *a)
{
    if (g->num < 0 || g->m.me < 0) return sm_fail(SM_ERR_ARG, "this rank is not a member of the group");
    if ((a->kind == COLL_BCAST || a->kind == COLL_GATHER || a->kind == COLL_SCATTER || a->kind == COLL_REDUCE) &&
        (unsigned)a->root >= (unsigned)g->m.size)
        return sm_fail(SM_ERR_ARG, "root %d is not a member of the group of %d", a->root, g->m.size);
    if (is_red(a->kind) && a->red.op != COLL_USER && !coll_kernel(a->red.t, a->red.op))
        return sm_fail(SM_ERR_ARG, "reduction %s is not defined on %s", coll_redop_name(a->red.op),
                       coll_dtype_name(a->red.t));
    o->g = g, o->a = *a;
    o->tag = o->tag ? o->tag : coll_span_reserve(g);
    if (SM_UNLIKELY(a->failed)) {
        o->failed = true;
        op_fail(o, sm_fail(SM_ERR_PEER, "this member failed before its part between nodes"));
    }
    return SM_OK;
}

/* Collectives on a group are started in the same order everywhere: the
 * sequence number keeps overlapping nonblocking ones apart. */
int coll_span_reserve(struct coll_group *g)
{
    g->seq = g->seq + 1;
    return (int)(g->seq & 0x3fffff) | 0x400000;
}

static sm_status_t op_begin(struct span_op *o, struct coll_group *g, const struct coll_args *a)
{
    sm_status_t st = op_check(o, g, a);
    if (!st) st = start(o);
    if (st) {
        char why[256];
        snprintf(why, sizeof why, "%s", sm_fail_reason());
        for (int i = 0; i < o->nreq; i++) {             /* what was posted: cancelled or finished */
            if (p2p_cancel(o->req[i]) != SM_OK) p2p_wait(o->req[i]);
            p2p_req_free(o->req[i]);
        }
        o->nreq = 0;
        for (int i = 0; i < o->nalloc; i++) free(o->alloc[i]);
        o->nalloc = 0;
        return sm_fail(st, "%s", why);
    }
    return SM_OK;
}

/* --- Large reductions in a ring ----------------------------------------------------
 * The round above sends every member's whole vector to every other: (n-1)
 * vectors out of each member, and n of them combined by each. For a large
 * allreduce or reduce with a predefined operation (commutative) on three
 * members or more, a ring does with 2(n-1)/n vectors (Open MPI's and
 * MPICH's choice for large vectors): a reduce-scatter, in which block
 * b travels the ring gathering every member's contribution, then an
 * allgather of the reduced blocks (or their gather to the root). Every
 * member takes the same decision: it depends on the kind, the operation,
 * the number of members and the vector's size, which the standard makes
 * the same everywhere. Blocking only (a nonblocking one would need a
 * schedule); the packed stream must be the kernel's C array (no pair
 * types with padding). */
#define SPAN_RING_MIN 32768     /* bytes of the vector */
/* An allreduce of 3 members or more from SPAN_RDBL_MIN up to SPAN_RING_MIN_AR
 * goes by recursive doubling instead (below; at 1 MiB on 4x1 the ring's
 * fewer bytes were as fast or faster, loaded): log2(n) steps of the whole
 * vector where the ring takes 2(n-1) steps of a block. Each step between
 * nodes costs a wait for UCX, which oversubscribed is a sleep and two
 * wakes: on 4 nodes of 1 rank the ring's 6 steps made a 64 KiB allreduce
 * 2 ms, 6.5 times Open MPI's (whose coll/tuned takes recursive doubling
 * there). Below SPAN_RDBL_MIN, on a power of two of members, recursive
 * doubling too: log2(n) messages out of each member where the flat round
 * (one step) sends n - 1 and receives as many, each a system call or two
 * over TCP, and packs, unpacks and combines through heap blocks (4 nodes of
 * 1 rank, 8 bytes: 3 messages out of each rank a call against Open MPI's 2,
 * which was 1.45 times faster); on other counts the flat round, where
 * recursive doubling's odd members add two steps. */
#define SPAN_RDBL_MIN 8192
#define SPAN_RING_MIN_AR (512u << 10)
/* On a power of two of members, 4 or more, an allreduce from SPAN_RSAG_MIN
 * up to SPAN_RSAG_MAX goes by Rabenseifner's (rsag_run, below) rather than
 * recursive doubling: on 4 nodes of 1 rank 64 KiB sent 128 KiB out of each
 * rank a call (two whole vectors), Open MPI's ring 96 KiB (strace),
 * Rabenseifner 96 KiB in 4 messages, and it combines 48 KiB where recursive
 * doubling combines 128. 4x1, smbench's coll with the ranks under
 * SCHED_FIFO (the quiet machine's view), 5 alternated rounds, medians us
 * (recursive doubling / Rabenseifner, the latter faster in): 16 KiB 53.4
 * / 55.7 (2 of 5), 32 KiB 82.4 / 79.8 (5), 64 KiB 151.5 / 117.8 (5),
 * 128 KiB 297 / 213 (5), 192 KiB 432 / 329 (5), 256 KiB 478 / 525 (0):
 * there recursive doubling's messages reach UCX's rendezvous for a
 * standard send (256 KiB, net.c), zero-copy, where Rabenseifner's halves
 * are still eager copies. From SPAN_RING_MIN_AR Rabenseifner's again. */
#define SPAN_RSAG_MIN (32u << 10)
#define SPAN_RSAG_MAX (256u << 10)

/* Both: a predefined operation whose packed stream is the kernel's C array. */
static bool kernel_stream(const struct coll_args *a, size_t *bytes)
{
    if (a->red.op == COLL_USER) return false;
    struct coll_buf b = a->src.base != COLL_IN_PLACE ? a->src : a->dst;
    const struct dt_type *t = b.type;
    size_t es = t && t->nbasic ? t->size / t->nbasic : coll_dtype_size(a->red.t);
    *bytes = b.count * (t ? t->size : 1);
    return es == coll_dtype_size(a->red.t);
}

/* bytes: the vector's, for a kernel_stream reduction */
static bool ring_wanted(const struct coll_group *g, const struct coll_args *a, size_t bytes)
{
    if ((a->kind != COLL_ALLREDUCE && a->kind != COLL_REDUCE) || g->m.size < 3) return false;
    return bytes >= (a->kind == COLL_ALLREDUCE ? SPAN_RING_MIN_AR : SPAN_RING_MIN);
}

/* On two members recursive doubling is the flat round's one exchange, at
 * every size, without its copies (the round packs the source, receives
 * into a stream, then fold copies both streams into work buffers and the
 * result back: five passes over the vector where this makes two). */
static bool rdbl_wanted(const struct coll_group *g, const struct coll_args *a, size_t bytes)
{
    int n = g->m.size;
    if (a->kind != COLL_ALLREDUCE || n < 2 || !bytes) return false;
    return (bytes >= SPAN_RDBL_MIN || !(n & (n - 1))) && (bytes < SPAN_RING_MIN_AR || n == 2);
}

/* One step: send sbytes at s (typemap st_) to member to, receive rbytes
 * at r (typemap rt) from member from (NULL: none); both done. A failure (o's first) makes this
 * member's later messages empty, and every step is still taken, so that
 * no peer waits for one. True while this member has not failed. */
static bool typed_step(struct span_op *o, void *s, size_t sbytes, const struct dt_type *st_, int to, void *r,
                       size_t rbytes, const struct dt_type *rt, int from)
{
    sm_status_t st = r ? post(o, false, r, rbytes, rt, from) : SM_OK;
    if (st) op_fail(o, st);
    if (s && (st = post(o, true, s, sbytes, st_, to))) op_fail(o, st);
    for (int i = 0; i < o->nreq; i++) p2p_wait(o->req[i]);
    reqs_end(o);
    if (o->st) o->failed = true;
    return !o->failed;
}
/* (bytes of packed streams) */
static bool ring_step(struct span_op *o, void *s, size_t sbytes, int to, void *r, size_t rbytes, int from)
{
    return typed_step(o, s, sbytes, NULL, to, r, rbytes, NULL, from);
}

#define SPAN_SMALL 256

/* What the ring and recursive doubling share: the packed vector (total
 * bytes, N elements of es), the kernel, the accumulator acc (this member's
 * source copied in) and a receive buffer tmp for the largest of `parts`
 * blocks (ring_b0); the result goes to dst (type dt) at the end
 * (red_vec_end). */
struct red_vec {
    void *dst;
    const struct dt_type *dt;
    size_t total, es, N;
    coll_kernel_fn k;
    char *acc, *tmp;
    bool direct;                /* acc is dst itself */
    /* acc and tmp of a vector below SPAN_SMALL bytes (a small allreduce
     * by recursive doubling): no scratch blocks, and no lock for them */
    union { max_align_t align; char b[2 * SPAN_SMALL]; } small;
};
/* block b of parts: elements [b N / parts, (b + 1) N / parts) */
static inline size_t ring_b0(const struct red_vec *v, int parts, int b) { return (size_t)b * v->N / (size_t)parts * v->es; }

/* (A failure fails o: the steps go on with empty messages.) */
static void red_vec_begin(struct span_op *o, struct red_vec *v, int parts)
{
    struct coll_args *a = &o->a;
    struct coll_buf sb = red_src(o);
    const struct dt_type *st;
    size_t dbytes;
    void *sbase = whole(&sb, &st, &v->total);
    v->dst = whole(&a->dst, &v->dt, &dbytes);
    v->es = coll_dtype_size(a->red.t), v->N = v->total / v->es;
    v->k = coll_kernel(a->red.t, a->red.op);
    /* An allreduce whose destination is the packed array (a contiguous
     * datatype from its first byte: MPI_FLOAT's) accumulates in it: one
     * pass over the vector less at each end (the source copied in, the
     * result copied out). Every member's destination is its own (peers
     * see it only through messages), so in place is fine too. */
    const struct dt_type *dt = v->dt;
    v->direct = a->kind == COLL_ALLREDUCE && dbytes == v->total && v->dst &&
                (!dt || (dt->true_lb == 0 && dt_is_contig(dt, a->dst.count)));
    size_t tb = ring_b0(v, parts, parts) - ring_b0(v, parts, parts - 1) + v->es;
    bool small = v->total + 1 <= SPAN_SMALL && tb <= SPAN_SMALL;
    v->acc = v->direct ? v->dst : small ? v->small.b : coll_scratch(v->total + 1);
    v->tmp = small ? v->small.b + SPAN_SMALL : coll_scratch(tb);
    if (SM_UNLIKELY(!v->acc || !v->tmp)) {
        if (!small) {
            if (!v->direct) coll_scratch_free(v->acc);
            coll_scratch_free(v->tmp);
        }
        /* (the steps' buffers: none is touched once o failed) */
        v->direct = false, v->acc = v->small.b, v->tmp = v->small.b + SPAN_SMALL;
        op_fail(o, sm_fail(SM_ERR_NOMEM, "no memory for a %zu-byte reduction", v->total));
        o->failed = true;
    }
    if (!o->failed) local_copy(v->acc, NULL, sbase, st, v->total);
}
/* The result to dst (if o did not fail and this member gets it); o's status. */
static sm_status_t red_vec_end(struct span_op *o, struct red_vec *v, bool result)
{
    if (!o->st && result && !v->direct) local_copy(v->dst, v->dt, v->acc, NULL, v->total);
    if (v->tmp != v->small.b + SPAN_SMALL) {
        if (!v->direct) coll_scratch_free(v->acc);
        coll_scratch_free(v->tmp);
    }
    return op_status(o);
}

static sm_status_t ring_run(struct span_op *o)
{
    struct coll_args *a = &o->a;
    int n = o->g->m.size, me = o->g->m.me, right = (me + 1) % n, left = (me + n - 1) % n;
    struct p2p_req *reqs[2];
    o->req = reqs;
    struct red_vec v;
    red_vec_begin(o, &v, n);
    char *acc = v.acc, *tmp = v.tmp;
    coll_kernel_fn k = v.k;
    size_t es = v.es;
#define B0(b) ring_b0(&v, n, (b))
#define BLEN(b) (B0((b) + 1) - B0(b))
    for (int s = 0; s < n - 1; s++) {         /* reduce-scatter: block me+1 ends here */
        int out = (me - s + n) % n, in = (me - s - 1 + 2 * n) % n;
        if (ring_step(o, acc + B0(out), BLEN(out), right, tmp, BLEN(in), left))
            k(acc + B0(in), acc + B0(in), tmp, BLEN(in) / es);
    }
    if (a->kind == COLL_ALLREDUCE) {
        for (int s = 0; s < n - 1; s++) {     /* allgather of the reduced blocks */
            int out = (me + 1 - s + n) % n, in = (me - s + n) % n;
            ring_step(o, acc + B0(out), BLEN(out), right, acc + B0(in), BLEN(in), left);
        }
    } else if (me != a->root) {
        int mine = (me + 1) % n;
        ring_step(o, acc + B0(mine), BLEN(mine), a->root, NULL, 0, 0);
    } else {
        for (int j = 0; j < n; j++)           /* member j holds block j + 1 */
            if (j != me) ring_step(o, NULL, 0, 0, acc + B0((j + 1) % n), BLEN((j + 1) % n), j);
    }
#undef B0
#undef BLEN
    return red_vec_end(o, &v, a->kind == COLL_ALLREDUCE || me == a->root);
}

/* Recursive doubling (MPICH's allreduce for mid sizes; Open MPI's coll/tuned
 * too): with p the largest power of two <= n and rem = n - p, the first
 * 2 rem members pair up (the even one hands its vector to the odd one and
 * sits out), the p left exchange whole vectors with the member at distance
 * 1, 2, 4 ... of their new numbering, combining each time, and the odd ones
 * hand the result back. A predefined operation is commutative, and the
 * kernel's x op y equals y op x bit for bit (IEEE sums too), so every member
 * ends with the same result. */
static sm_status_t rdbl_run(struct span_op *o)
{
    int n = o->g->m.size, me = o->g->m.me, p = 1;
    while (p * 2 <= n) p *= 2;
    int rem = n - p;
    struct p2p_req *reqs[2];
    o->req = reqs;
    struct red_vec v;
    red_vec_begin(o, &v, 1);
    char *acc = v.acc, *tmp = v.tmp;
    size_t total = v.total, N = v.N;
    coll_kernel_fn k = v.k;
    int nr;                                     /* the number among the p, or -1: sits out */
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            ring_step(o, acc, total, me + 1, NULL, 0, 0);
            nr = -1;
        } else {
            if (ring_step(o, NULL, 0, 0, tmp, total, me - 1)) k(acc, acc, tmp, N);
            nr = me / 2;
        }
    } else {
        nr = me - rem;
    }
    for (int mask = 1; nr >= 0 && mask < p; mask <<= 1) {
        int pn = nr ^ mask, peer = pn < rem ? pn * 2 + 1 : pn + rem;
        if (ring_step(o, acc, total, peer, tmp, total, peer)) k(acc, acc, tmp, N);
    }
    if (me < 2 * rem) {
        if (me % 2 == 0) ring_step(o, NULL, 0, 0, acc, total, me + 1);
        else ring_step(o, acc, total, me - 1, NULL, 0, 0);
    }
    return red_vec_end(o, &v, true);
}

/* Rabenseifner's allreduce (MPICH's for large vectors) on a power of two
 * of members: a reduce-scatter by recursive halving (at distance n/2, n/4
 * ... 1 each keeps half of its window of blocks, sends the other half and
 * combines the peer's copy of the half it keeps), which leaves block me at
 * member me, then an allgather by recursive doubling. The ring's bytes
 * (2(n-1)/n vectors out of each member) in 2 log2(n) steps instead of
 * 2(n-1): each step between nodes is a wait for UCX on every member, and
 * on 4 nodes of 1 rank oversubscribed a 1 MiB allreduce took 3.7-3.9 ms
 * by the ring's 6. A block is reduced at one member and handed on, so
 * every member gets the same bits. */
static sm_status_t rsag_run(struct span_op *o)
{
    int n = o->g->m.size, me = o->g->m.me;
    struct p2p_req *reqs[2];
    o->req = reqs;
    struct red_vec v;
    red_vec_begin(o, &v, 2);           /* tmp: the larger half */
    char *acc = v.acc, *tmp = v.tmp;
#define B0(b) ring_b0(&v, n, (b))
    int lo = 0;                                         /* this member's window: [lo, lo + 2 mask) */
    for (int mask = n / 2; mask >= 1; mask /= 2) {
        int peer = me ^ mask, keep = me & mask ? lo + mask : lo, give = me & mask ? lo : lo + mask;
        size_t kb = B0(keep + mask) - B0(keep);
        if (ring_step(o, acc + B0(give), B0(give + mask) - B0(give), peer, tmp, kb, peer))
            v.k(acc + B0(keep), acc + B0(keep), tmp, kb / v.es);
        lo = keep;
    }
    for (int mask = 1; mask < n; mask *= 2) {    /* window [lo, lo + mask), the peer's lo ^ mask */
        int peer = me ^ mask, plo = lo ^ mask;
        ring_step(o, acc + B0(lo), B0(lo + mask) - B0(lo), peer, acc + B0(plo), B0(plo + mask) - B0(plo), peer);
        lo = lo < plo ? lo : plo;
    }
#undef B0
    return red_vec_end(o, &v, true);
}

/* --- Broadcasts down a chain (large) or a binary tree (small) --------------------
 * The round above has the root send the whole message to every other
 * member at once: n - 1 copies out of one rank, through its one link (and
 * here its one core). From SPAN_CHAIN_MIN on SPAN_CHAIN_NMIN to
 * SPAN_CHAIN_NMAX members a chain instead, as Open MPI 4.1's coll/tuned
 * does for 4 to 7 processes from 1 MiB (unsegmented; offbig counted its
 * bytes): the root sends to the member after it in the group's order,
 * which passes the message on once it has it, and so on; one copy out of
 * each member but the last. On 4 nodes of 1 rank over UCX TCP (ranks 0
 * and 2 on one core, 1 and 3 on the other) the flat round puts its 3 MiB
 * of sends and rank 2's receive on one core, where the chain's hops
 * alternate cores. Chosen by (docs/NOTES.md, tree: /tmp/tree/rr2.sh, 4x1,
 * smbench's coll program, -t 0.03 -b 5, this flat / chain, per-round
 * ratio, 12 rounds each): `rr2.sh 3 4 4x1 262144,...,4194304 Bcast`
 * 256 KiB 191 / 232 us (0.81x), 512 KiB 273 / 298 (0.91x), 768 KiB 343 /
 * 374 (0.95x), 1 MiB 426 / 440 (0.98x), 2 MiB 1075 / 1111 (0.99x), 4 MiB
 * 2861 / 2242 (1.23x, 11 of 12); 1 MiB alone in a run (`rr2.sh 3 4 4x1
 * 1048576 Bcast`) 557 / 461 (1.15x, 11 of 12), in smbench's size list
 * 451 / 431 (1.05x, 8 of 12), and in 40 more rounds against main 501 /
 * 496 (1.04x, 23 of 40: no more than the 1.00-1.05x that the sizes
 * whose code is main's read in the same rounds; Open MPI 459, whose
 * chain hops as ours do: what is left is the 1 MiB transfer, NOTES big).
 * Cut into 2, 4 or 8 segments, each passed
 * on as it arrives, the chain was slower at 1 MiB (0.90x, 0.73x, 0.29x
 * the whole message's): each segment is its own rendezvous, or below 256
 * KiB an eager copy, that ranks sharing a core must be scheduled for. A
 * binomial tree (0 -> 2, then 0 -> 1 and 2 -> 3; or 0 -> 1, then 0 -> 2
 * and 1 -> 3) 0.83x the flat round. On 3 members (3x1) the chain was
 * 0.95x the flat round at 1 MiB (Open MPI: a binary tree there); on 4
 * nodes of 2 (the 4 leaders on one core) 0.89x, the price of a shape
 * whose nodes share a core: kept, as a real node's leader has a link of
 * its own. From 8 members, Open MPI's table leaves the chain (its
 * latency grows with the members): the flat round. */
#define SPAN_CHAIN_MIN (1u << 20)
#define SPAN_CHAIN_NMIN 4
#define SPAN_CHAIN_NMAX 7

/* Small broadcasts on as many members go down a binary tree in the
 * group's order from the root (Open MPI 4.1's coll/tuned for 4 to 7
 * processes below 8 KiB: a binary tree, binomial at some sizes): the root
 * sends to 2 members, the first of them passes it on to a third, where
 * the flat round sends n - 1 from the root. On 4 nodes of 1 rank over UCX
 * TCP, 2 cores, every message a sendto and a receive's epoll_wait and
 * recvfrom, the flat round put 3 sends and a receive on the root's core
 * (ranks 0 and 2 on one, 1 and 3 on the other) and 2 receives on the
 * other, the tree 3 operations on each. Chosen by (docs/NOTES.md, net4;
 * smbench's coll program, -t 0.03 -b 5, /tmp/net4/rr2.sh 3 3 4x1
 * 8,64,512,4096,16384 Bcast, tree / flat, per-round ratio, 9 rounds):
 * 8 B 1.05x, 64 B 1.11x, 512 B 1.17x, 4 KiB 1.18x (9 of 9), 16 KiB 1.06x
 * (6 of 9); against main, 12 rounds (rr2.sh 3 4 4x1 8,...,1048576
 * Allreduce,Bcast): 8 B 1.01x, 512 B 1.08x, 4 KiB 1.08x (12 of 12), i.e.
 * 0.98x, 1.01x, 0.97x Open MPI's (main 0.97x, 0.92x, 0.90x). From 8 KiB
 * Open MPI's table takes the flat round (linear), as here. */
#define SPAN_TREE_MAX 8192

/* How a blocking broadcast goes (every member decides alike: the kind, the
 * members, the message's size): 0 the flat round, else the fanout of the
 * tree it goes down (1: the chain). */
static int bcast_fanout(const struct coll_group *g, const struct coll_args *a)
{
    int n = g->m.size;
    if (a->kind != COLL_BCAST || n < SPAN_CHAIN_NMIN || n > SPAN_CHAIN_NMAX) return 0;
    bool sep = g->m.me == a->root && a->src.base && a->src.base != COLL_IN_PLACE;
    const struct coll_buf *b = sep ? &a->src : &a->dst;
    size_t bytes = b->count * type_size(b->type);
    return bytes >= SPAN_CHAIN_MIN ? 1 : bytes < SPAN_TREE_MAX ? 2 : 0;
}

/* Down a tree of fanout k in the group's order from the root: member v
 * places after it (v = 0: the root) receives from (v - 1) / k and sends to
 * k v + 1 ... k v + k, each with its own typemap. A failure (a receive of
 * another size, or this member's own) makes what it passes on empty, so
 * the members below fail too rather than waiting. */
static sm_status_t tree_run(struct span_op *o, int k)
{
    struct coll_args *a = &o->a;
    int n = o->g->m.size, me = o->g->m.me, root = a->root, v = (me - root + n) % n;
    struct p2p_req *reqs[2];
    o->req = reqs;
    const struct dt_type *dt, *st;
    size_t db, sb;
    void *d = whole(&a->dst, &dt, &db), *s = d;
    st = dt, sb = db;
    if (v) {
        typed_step(o, NULL, 0, NULL, 0, d, db, dt, (root + (v - 1) / k) % n);
    } else if (a->src.base && a->src.base != COLL_IN_PLACE) {      /* the shorthand's separate source */
        s = whole(&a->src, &st, &sb);
        if (d) self_copy(o, d, dt, s, st, sb, db);
    }
    for (int c = k * v + 1; c <= k * v + k && c < n; c++) {
        sm_status_t e = post(o, true, s, sb, st, (root + c) % n);
        if (e) op_fail(o, e), o->failed = true;
    }
    for (int i = 0; i < o->nreq; i++) p2p_wait(o->req[i]);
    reqs_end(o);
    return op_status(o);
}

sm_status_t coll_span_run(struct coll_group *g, const struct coll_args *a)
{
    struct span_op o;
    op_clear(&o);
    size_t bytes;
    bool red = (a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE) && kernel_stream(a, &bytes);
    bool ring = red && ring_wanted(g, a, bytes);
    if (ring || (red && rdbl_wanted(g, a, bytes))) {
        sm_status_t st = op_check(&o, g, a);
        int n = g->m.size;
        bool rsag = a->kind == COLL_ALLREDUCE && n >= 4 && !(n & (n - 1)) &&
                    (ring || (bytes >= SPAN_RSAG_MIN && bytes < SPAN_RSAG_MAX));
        return st ? st : rsag ? rsag_run(&o) : ring ? ring_run(&o) : rdbl_run(&o);
    }
    int k = bcast_fanout(g, a);
    if (k) {
        sm_status_t st = op_check(&o, g, a);
        return st ? st : tree_run(&o, k);
    }
    sm_status_t st = op_begin(&o, g, a);
    if (st) return st;
    for (int i = 0; i < o.nreq; i++) p2p_wait(o.req[i]);       /* the status is the request's: finish reads it */
    return finish(&o);
}

/* --- Nonblocking ------------------------------------------------------------------- */

static struct span_op *active;          /* started, not finished (any order) */
/* With threads (coll_threads) the list is under this lock; one thread runs
 * it for all, as sched.c's list. Recursive: a done callback may start another. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

bool coll_span_busy(void) { return active != NULL; }

static bool round_done(const struct span_op *o)
{
    for (int i = 0; i < o->nreq; i++)
        if (!p2p_done(o->req[i])) return false;
    return true;
}

void coll_span_progress(void)
{
    static bool busy;
    bool mt = coll_threaded();
    if (mt && pthread_mutex_trylock(&lock)) return;     /* another thread runs the list */
    if (busy) {
        if (mt) pthread_mutex_unlock(&lock);
        return;
    }
    busy = true;
    for (struct span_op **p = &active, *o; (o = *p);) {
        if (!round_done(o)) {
            p = &o->next;
            continue;
        }
        *p = o->next;
        sm_status_t st = finish(o);
        char reason[256] = "";
        if (st) snprintf(reason, sizeof reason, "%s", sm_fail_reason());
        o->done(o->ctx, st, reason);
        free(o);
    }
    busy = false;
    if (mt) pthread_mutex_unlock(&lock);
}

sm_status_t coll_span_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx)
{
    return coll_span_start_tag(g, a, 0, done, ctx);
}

sm_status_t coll_span_start_tag(struct coll_group *g, const struct coll_args *a, int tag, coll_done_fn done, void *ctx)
{
    struct span_op *o = calloc(1, sizeof *o);
    if (!o) return sm_fail(SM_ERR_NOMEM, "no memory for a nonblocking collective");
    o->tag = tag;
    sm_status_t st = op_begin(o, g, a);
    if (st) {
        free(o);
        return st;
    }
    o->done = done, o->ctx = ctx;
    bool mt = coll_threaded();
    if (mt) pthread_mutex_lock(&lock);
    o->next = active, active = o;
    if (mt) pthread_mutex_unlock(&lock);
    p2p_progress_hook = coll_progress;
    coll_span_progress();
    return SM_OK;
}
