/* hier.c: hierarchical collectives on groups spanning nodes (as
 * Open MPI's HAN does): each node's members run the SMARTMAP engine among
 * themselves (a group per node), and one rank per node (its leader, the
 * first member in the group's order) exchanges with the other leaders over
 * point-to-point (span.c's rounds, on a group of the leaders), so a
 * collective costs a message or two between nodes instead of one per pair
 * of members. Both groups are made at the first blocking collective on the
 * group and kept on it (coll_group.hier). The nonblocking ones take the
 * same stages once the groups are there (below: every node stage posted at
 * the start). What does not fit stays on span.c: the all-to-all kinds,
 * non-commutative user operations and scans over nodes whose members are
 * not consecutive in the group, every node holding one member, and the
 * nonblocking collectives before the group's first blocking one (splitting
 * it waits for every member: a nonblocking start must not) and of the
 * kinds that have no nonblocking plan below (the scans). */
#define _GNU_SOURCE             /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

/* The tag of the transfers between two members of the group itself (a
 * root and its node's leader, the scans' chain): apart from span.c's
 * (0x400000 | sequence) and creation's (0), below the 2^23 tags UCX carries; blocking collectives on a group
 * are ordered, and messages between a pair do not overtake. */
#define HIER_TAG 0x3ffffe

struct coll_hier {
    struct coll_group *owner;   /* the group that frees it (a copy by value does not) */
    bool flat;                  /* every node holds one member: nothing to gain */
    bool consecutive;           /* every node's members are consecutive in the group's order */
    int nnodes, mynode;
    int *node_of;               /* per member: its node (numbered by first member) */
    int *node_idx;              /* per member: its index in its node's group */
    int *first, *nsize;         /* per node: where its members start in members[], how many */
    int *members;               /* the members, node by node, each node's in the group's order */
    int *node_ranks, *lead_ranks;   /* the job ranks of the two groups (their tables) */
    struct coll_group node, lead;   /* lead.num < 0: this member is not a leader */
    /* The members with this one's index in their node, one per node (every
     * node the same size): a large allreduce's slices (h_allreduce_sliced),
     * made at its first such call. */
    struct coll_group col;
    int *col_ranks;
    bool col_made;
};

static bool is_leader(const struct coll_hier *h) { return h->lead.num >= 0; }
static int leader_of(const struct coll_hier *h, int k) { return h->members[h->first[k]]; }
static int last_of(const struct coll_hier *h, int k) { return h->members[h->first[k] + h->nsize[k] - 1]; }

void coll_hier_free(struct coll_group *g)
{
    struct coll_hier *h = g->hier;
    g->hier = NULL;
    if (!h || h->owner != g) return;
    if (!h->flat) {
        coll_group_destroy(&h->node);
        coll_group_destroy(&h->lead);
    }
    if (h->col_made) coll_group_destroy(&h->col);
    free(h->col_ranks);
    free(h->node_of), free(h->node_idx), free(h->first), free(h->nsize), free(h->members);
    free(h->node_ranks), free(h->lead_ranks);
    free(h);
}

/* Collective over g: who is on which node (one allgather over point-to-point),
 * then the node's group and the leaders' group, each made over g. */
static sm_status_t build(struct coll_group *g)
{
    int n = g->m.size, me = g->m.me;
    struct coll_hier *h = calloc(1, sizeof *h);
    int *ids = malloc(sizeof *ids * (size_t)n);
    if (!h || !ids) {
        free(h), free(ids);
        return sm_fail(SM_ERR_NOMEM, "no memory to split a group of %d by nodes", n);
    }
    h->owner = g;
    int id = sm_node_id();
    struct coll_args a = { .kind = COLL_ALLGATHER, .src = { .base = &id, .count = sizeof id },
                           .dst = { .base = ids, .count = sizeof id } };
    sm_status_t st = coll_span_run(g, &a);
    h->node_of = malloc(sizeof(int) * (size_t)n), h->node_idx = malloc(sizeof(int) * (size_t)n);
    h->first = calloc((size_t)n + 1, sizeof(int)), h->nsize = calloc((size_t)n, sizeof(int));
    h->members = malloc(sizeof(int) * (size_t)n);
    int *seen = malloc(sizeof(int) * (size_t)n);         /* node number -> its id */
    if (!st && (!h->node_of || !h->node_idx || !h->first || !h->nsize || !h->members || !seen))
        st = sm_fail(SM_ERR_NOMEM, "no memory to split a group of %d by nodes", n);
    if (st) {
        free(ids), free(seen);
        g->hier = h;
        coll_hier_free(g);
        return st;
    }
    int K = 0;
    h->consecutive = true;
    for (int j = 0; j < n; j++) {
        int k = 0;
        while (k < K && seen[k] != ids[j]) k++;
        if (k == K) seen[K++] = ids[j];
        if (j > 0 && k != h->node_of[j - 1] && k != K - 1) h->consecutive = false;  /* back to an earlier node */
        h->node_of[j] = k;
        h->node_idx[j] = h->nsize[k]++;
    }
    for (int k = 0; k < K; k++) h->first[k + 1] = h->first[k] + h->nsize[k];
    for (int j = 0; j < n; j++) h->members[h->first[h->node_of[j]] + h->node_idx[j]] = j;
    free(ids), free(seen);
    h->nnodes = K, h->mynode = h->node_of[me];
    h->flat = K == n;
    g->hier = h;
    if (h->flat) return SM_OK;
    int k = h->mynode;
    h->node_ranks = malloc(sizeof(int) * (size_t)h->nsize[k]);
    h->lead_ranks = malloc(sizeof(int) * (size_t)K);
    if (!h->node_ranks || !h->lead_ranks) {
        h->flat = true;                 /* no groups to destroy */
        coll_hier_free(g);
        return sm_fail(SM_ERR_NOMEM, "no memory to split a group of %d by nodes", n);
    }
    for (int i = 0; i < h->nsize[k]; i++) h->node_ranks[i] = sm_group_rank(&g->m, h->members[h->first[k] + i]);
    for (int q = 0; q < K; q++) h->lead_ranks[q] = sm_group_rank(&g->m, leader_of(h, q));
    struct sm_group nm = { .size = h->nsize[k], .me = h->node_idx[me], .stride = 1, .ranks = h->node_ranks };
    struct sm_group lm = { .size = K, .me = leader_of(h, k) == me ? k : -1, .stride = 1, .ranks = h->lead_ranks };
    h->node.num = h->lead.num = -1;
    if ((st = coll_group_create(&h->node, &nm, g)) || (st = coll_group_create(&h->lead, &lm, g))) {
        char why[256];
        snprintf(why, sizeof why, "%s", sm_fail_reason());
        coll_hier_free(g);
        return sm_fail(st, "splitting a group by nodes: %s", why);
    }
    return SM_OK;
}

/* --- Helpers -------------------------------------------------------------------------- */

static size_t tsize(const struct dt_type *t) { return t ? t->size : 1; }

/* Room for count elements of t (NULL: bytes): the address of element 0, *mem to free. */
static void *tmp_like(const struct dt_type *t, size_t count, void **mem)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)count;
    if (t) dt_span(t, count, &lo, &hi);
    *mem = malloc(hi > lo ? (size_t)(hi - lo) : 1);
    return *mem ? (char *)*mem - lo : NULL;
}

/* Every stage below takes `before`, the call's status so far: a member
 * that failed (a count that differs, seen by the node's engine or in a
 * message) still takes every later stage that a peer waits for, as one
 * that failed (coll_args.failed: no data moved, and who reads from it
 * fails too), so that no member waits for it and the members whose result
 * depends on it fail as well. The first failure is the call's. */
/* A stage taken after a failure: before's reason (the one recorded when the
 * stage starts) is the call's, not the stage's own ("failed before"). */
struct kept { sm_status_t st; char why[256]; };
static void keep(struct kept *k, sm_status_t before)
{
    k->st = before;
    if (before) snprintf(k->why, sizeof k->why, "%s", sm_fail_reason());
}
static sm_status_t kept_or(const struct kept *k, sm_status_t st)
{
    return k->st ? sm_fail(k->st, "%s", k->why) : st;
}

/* A blocking transfer to or from member peer of g (on g's own context);
 * a receive fails on a message of another size than bytes. */
static sm_status_t xfer(struct coll_group *g, bool send, void *buf, size_t bytes, const struct dt_type *t, int peer,
                        sm_status_t before)
{
    struct kept k;
    keep(&k, before);
    struct p2p_req *r = p2p_req_alloc();
    if (!r) return kept_or(&k, sm_fail(SM_ERR_NOMEM, "no memory for a request"));
    if (before) coll_fail_msg(send, &buf, &bytes, &t);
    sm_status_t st = send ? p2p_isend(r, buf, bytes, peer, HIER_TAG, g->net, P2P_STANDARD, t)
                          : p2p_irecv(r, buf, bytes, peer, HIER_TAG, g->net, t);
    if (!st) {
        p2p_wait(r);
        if (before) st = SM_OK;
        else if (!send) st = coll_recv_status(g, r);
        else if (r->st.err) st = sm_fail(r->st.err, "%s", r->why ? r->why : "a transfer between nodes failed");
    }
    p2p_req_free(r);
    return kept_or(&k, st);
}

/* A node's part: quiet, as the node's other members may go on where a
 * failed deferred check would stop this one; coll_hier_run reports it at
 * the end of the call. */
static sm_status_t node_run(struct coll_hier *h, const struct coll_args *a, sm_status_t before)
{
    struct coll_args b = *a;
    b.quiet = true;
    b.failed = before != SM_OK;
    struct kept k;
    keep(&k, before);
    return kept_or(&k, coll_run(&h->node, &b));
}
/* The leader's exchange is marked, for its members' waits (sm_wait_lean:
 * coll_hier_run's) to yield rather than sleep while it lasts. */
static sm_status_t lead_run(struct coll_hier *h, const struct coll_args *a, sm_status_t before)
{
    if (!is_leader(h)) return before;
    struct coll_args b = *a;
    b.failed = before != SM_OK;
    struct kept k;
    keep(&k, before);
    sm_wait_net_busy(true);
    sm_status_t st = coll_span_run(&h->lead, &b);
    sm_wait_net_busy(false);
    return kept_or(&k, st);
}

/* dst (count elements of t) = left op dst, left laid out as dst. */
static sm_status_t combine_left(const struct coll_red *red, const void *left, void *dst, const struct dt_type *t,
                                size_t count)
{
    if (red->op == COLL_USER) {         /* fn(in, inout): inout = in op inout */
        red->fn.fn(left, dst, count, red->fn.ctx);
        return SM_OK;
    }
    size_t bytes = count * tsize(t), es = t && t->nbasic ? t->size / t->nbasic : coll_dtype_size(red->t);
    size_t n = es ? bytes / es : 0;
    if (!n) return SM_OK;
    const struct dt_type *wt = t ? red->elem : NULL;
    char *x = malloc(n * coll_dtype_size(red->t)), *y = malloc(n * coll_dtype_size(red->t));
    if (!x || !y) {
        free(x), free(y);
        return sm_fail(SM_ERR_NOMEM, "no memory to combine %zu bytes", bytes);
    }
    dt_copy(x, wt, left, t, 0, bytes);
    dt_copy(y, wt, dst, t, 0, bytes);
    coll_kernel(red->t, red->op)(y, x, y, n);
    dt_copy(dst, t, y, wt, 0, bytes);
    free(x), free(y);
    return SM_OK;
}

/* tmp_like's, from the scratch blocks kept between calls (coll_scratch_free *mem). */
static void *tmp_scratch(const struct dt_type *t, size_t count, void **mem)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)count;
    if (t) dt_span(t, count, &lo, &hi);
    *mem = coll_scratch(hi > lo ? (size_t)(hi - lo) : 1);
    return *mem ? (char *)*mem - lo : NULL;
}

/* --- The collectives --------------------------------------------------------------- */

static sm_status_t h_barrier(struct coll_hier *h)
{
    struct coll_args b = { .kind = COLL_BARRIER };
    sm_status_t st = node_run(h, &b, SM_OK);
    st = lead_run(h, &b, st);
    return node_run(h, &b, st);
}

/* The root's node first, from the root, when the root is not its leader;
 * then the leaders; then every other node from its leader. */
static sm_status_t h_bcast(struct coll_hier *h, const struct coll_args *a)
{
    int R = h->node_of[a->root];
    bool rootnode = h->mynode == R, lead_root = h->node_idx[a->root] == 0;
    /* Only the root may pass a separate source (OpenSHMEM's broadcast, the
     * engine's shorthand): it sends from there, and copies it to its own
     * destination if it has one; every member takes the same stages. */
    bool sep = a->src.base && a->src.base != COLL_IN_PLACE;
    struct coll_buf buf = sep ? a->src : a->dst;
    sm_status_t st = SM_OK;
    if (rootnode && !lead_root) {
        struct coll_args b = { .kind = COLL_BCAST, .root = h->node_idx[a->root], .dst = buf };
        st = node_run(h, &b, st);
    }
    struct coll_args l = { .kind = COLL_BCAST, .root = R, .dst = buf };
    st = lead_run(h, &l, st);
    if (!rootnode || lead_root) {
        struct coll_args b = { .kind = COLL_BCAST, .root = 0, .dst = buf };
        st = node_run(h, &b, st);
    }
    if (!st && sep && a->dst.base && a->dst.base != a->src.base)
        dt_copy(a->dst.base, a->dst.type, a->src.base, a->src.type, 0, a->src.count * tsize(a->src.type));
    return st;
}

/* The node's reduction at its leader: *part is where it is (the source
 * itself when the node holds one member). */
static sm_status_t node_reduce(struct coll_hier *h, const struct coll_args *a, const struct coll_buf *sb,
                               struct coll_buf *part, void **mem, sm_status_t st)
{
    *mem = NULL;
    *part = *sb;
    if (h->nsize[h->mynode] == 1) return st;
    struct coll_args r = { .kind = COLL_REDUCE, .root = 0, .red = a->red, .src = *sb };
    if (is_leader(h)) {
        void *p = st ? NULL : tmp_scratch(sb->type, sb->count, mem);
        if (!p && !st) st = sm_fail(SM_ERR_NOMEM, "no memory for a node's partial result");
        r.dst = (struct coll_buf){ .base = p, .count = sb->count, .type = sb->type };
        *part = r.dst;
    }
    return node_run(h, &r, st);
}

static sm_status_t h_reduce(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int me = g->m.me, root = a->root, R = h->node_of[root];
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? a->dst : a->src, part;
    void *mem, *mem2 = NULL;
    sm_status_t st = node_reduce(h, a, &sb, &part, &mem, SM_OK);
    bool root_leads = h->node_idx[root] == 0;
    if (is_leader(h)) {
        struct coll_args l = { .kind = COLL_REDUCE, .root = R, .red = a->red, .src = part };
        if (me == root) {
            l.dst = a->dst;
            if (inpl && h->nsize[R] == 1) l.src = (struct coll_buf){ .base = COLL_IN_PLACE };
        } else if (h->mynode == R) {
            void *p = tmp_like(sb.type, sb.count, &mem2);
            if (!p && !st) st = sm_fail(SM_ERR_NOMEM, "no memory for a reduction's result");
            l.dst = (struct coll_buf){ .base = p, .count = sb.count, .type = sb.type };
        }
        st = lead_run(h, &l, st);
        if (h->mynode == R && !root_leads) st = xfer(g, true, l.dst.base, sb.count * tsize(sb.type), sb.type, root, st);
    } else if (me == root) {
        st = xfer(g, false, a->dst.base, a->dst.count * tsize(a->dst.type), a->dst.type, leader_of(h, R), st);
    }
    coll_scratch_free(mem), free(mem2);
    return st;
}

/* --- A large allreduce in slices ---------------------------------------------------
 * The leaders alone carrying the whole vector between nodes (node reduce,
 * the leaders' exchange, node broadcast) leave every other member idle and
 * copy the vector at the leader five times or so: 8.3 ms for 1 MiB on 2x2,
 * 3.5 times Open MPI's ring over every rank. Instead (HAN's and MPICH's
 * way for large vectors): the node's reduce-scatter gives member i of each
 * node the node's slice i, the members with index i (one per node: h->col)
 * allreduce their slices over UCX, all slices at once, and the node's
 * allgather puts the slices together in every member. Each member sends
 * 1/m of the vector between nodes instead of the leader all of it. Only
 * for predefined operations (commutative: the slices' order is free) and
 * nodes of the same size, from HIER_SLICE_MIN bytes: what the standard
 * makes the same in every member (count, datatype and operation), so all
 * take the same decision. */
#define HIER_SLICE_MIN (512u << 10)

static bool sliced_wanted(const struct coll_hier *h, const struct coll_args *a)
{
    if (a->red.op == COLL_USER || h->nsize[0] < 2 || h->nnodes < 2) return false;
    for (int q = 1; q < h->nnodes; q++)
        if (h->nsize[q] != h->nsize[0]) return false;
    const struct coll_buf *b = a->src.base == COLL_IN_PLACE ? &a->dst : &a->src;
    return b->count * tsize(b->type) >= HIER_SLICE_MIN;
}

/* Collective over g (every member at its first sliced allreduce). */
static sm_status_t col_make(struct coll_group *g, struct coll_hier *h)
{
    int K = h->nnodes, i = h->node_idx[g->m.me];
    if (!h->col_ranks && !(h->col_ranks = malloc(sizeof(int) * (size_t)K)))
        return sm_fail(SM_ERR_NOMEM, "no memory for a group of %d", K);
    for (int q = 0; q < K; q++) h->col_ranks[q] = sm_group_rank(&g->m, h->members[h->first[q] + i]);
    struct sm_group cm = { .size = K, .me = h->mynode, .stride = 1, .ranks = h->col_ranks };
    h->col.num = -1;
    sm_status_t st = coll_group_create(&h->col, &cm, g);
    if (st) return sm_fail(st, "the group of each node's member %d: %s", i, sm_fail_reason());
    h->col_made = true;
    return SM_OK;
}

static sm_status_t h_allreduce_sliced(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int m = h->nsize[h->mynode], i = h->node_idx[g->m.me];
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? a->dst : a->src;
    const struct dt_type *t = sb.type;
    /* slices in elements of the datatype, or of the operation's type where
     * the buffers are bytes (t NULL) */
    size_t unit = t ? 1 : coll_dtype_size(a->red.t), C = t ? sb.count : sb.count / unit;
    if (C * unit > INT_MAX) return sm_fail(SM_ERR_ARG, "an allreduce of %zu elements across nodes", C);
    sm_status_t st = h->col_made ? SM_OK : col_make(g, h);
    if (st) return st;
    int *cnt = malloc(sizeof(int) * 2 * (size_t)m);
    if (!cnt) return sm_fail(SM_ERR_NOMEM, "no memory for %d slices", m);
    for (int j = 0; j < m; j++) {
        size_t lo = (size_t)j * C / (size_t)m, hi = (size_t)(j + 1) * C / (size_t)m;
        cnt[j] = (int)((hi - lo) * unit), cnt[m + j] = (int)(lo * unit);
    }
    void *mem;
    void *slice = tmp_scratch(t, (size_t)cnt[i], &mem);
    if (!slice) {
        st = sm_fail(SM_ERR_NOMEM, "no memory for a slice of %d", cnt[i]);
        free(cnt);
        return st;
    }
    struct coll_buf sl = { .base = slice, .count = (size_t)cnt[i], .type = t };
    struct coll_args rs = { .kind = COLL_REDUCE_SCATTER, .red = a->red, .src = sb,
                            .dst = { .base = slice, .type = t, .counts = cnt } };
    st = node_run(h, &rs, SM_OK);
    /* every member goes on (a failure in one slice must not leave the
     * others' nodes waiting); the first failure is the call's */
    struct coll_args cr = { .kind = COLL_ALLREDUCE, .red = a->red, .src = { .base = COLL_IN_PLACE }, .dst = sl,
                            .failed = st != SM_OK };
    struct kept k;
    keep(&k, st);
    st = kept_or(&k, coll_span_run(&h->col, &cr));
    struct coll_args ag = { .kind = COLL_ALLGATHER, .src = sl,
                            .dst = { .base = a->dst.base, .type = t, .counts = cnt, .displs = cnt + m } };
    st = node_run(h, &ag, st);
    coll_scratch_free(mem), free(cnt);
    return st;
}

static sm_status_t h_allreduce(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    if (sliced_wanted(h, a)) return h_allreduce_sliced(g, h, a);
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? a->dst : a->src, part;
    void *mem;
    sm_status_t st = node_reduce(h, a, &sb, &part, &mem, SM_OK);
    struct coll_args l = { .kind = COLL_ALLREDUCE, .red = a->red, .src = part, .dst = a->dst };
    if (inpl && h->nsize[h->mynode] == 1) l.src = (struct coll_buf){ .base = COLL_IN_PLACE };
    st = lead_run(h, &l, st);
    coll_scratch_free(mem);
    struct coll_args b = { .kind = COLL_BCAST, .root = 0, .dst = a->dst };
    return node_run(h, &b, st);
}

/* The whole vector reduced (as an allreduce's), then each node's leader
 * scatters its members' blocks to them. */
static sm_status_t h_reduce_scatter(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int n = g->m.size, me = g->m.me, k = h->mynode, nk = h->nsize[k];
    const struct dt_type *dt = a->dst.type;
    size_t total = 0;
    for (int j = 0; j < n; j++) total += a->dst.counts ? (size_t)(a->dst.counts[j] > 0 ? a->dst.counts[j] : 0) : a->dst.count;
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? (struct coll_buf){ .base = a->dst.base, .count = total, .type = dt } : a->src, part;
    size_t bytes = sb.count * tsize(sb.type);
    sm_status_t st = SM_OK;
    if (bytes != total * tsize(dt))
        st = sm_fail(SM_ERR_ARG, "the blocks add up to %zu bytes, the source has %zu", total * tsize(dt), bytes);
    void *mem, *mem2 = NULL;
    char *packed = NULL;
    int *cnt = malloc(sizeof(int) * 2 * (size_t)nk);
    size_t *off = malloc(sizeof *off * ((size_t)n + 1));
    if ((!cnt || !off) && !st) st = sm_fail(SM_ERR_NOMEM, "no memory");
    st = node_reduce(h, a, &sb, &part, &mem, st);
    if (is_leader(h)) {
        void *p = st ? NULL : tmp_like(sb.type, sb.count, &mem2);
        packed = st ? NULL : malloc(bytes ? bytes : 1);
        if ((!p || !packed) && !st) st = sm_fail(SM_ERR_NOMEM, "no memory for a %zu-byte reduction", bytes);
        struct coll_args l = { .kind = COLL_ALLREDUCE, .red = a->red, .src = part,
                               .dst = { .base = p, .count = sb.count, .type = sb.type } };
        st = lead_run(h, &l, st);
        if (!st) dt_copy(packed, NULL, p, sb.type, 0, bytes);
    }
    /* each member's block: its bytes and where it starts in the stream */
    size_t mine = 0;
    if (cnt && off) {
        off[0] = 0;
        for (int j = 0; j < n; j++)
            off[j + 1] = off[j] + (a->dst.counts ? (size_t)(a->dst.counts[j] > 0 ? a->dst.counts[j] : 0) : a->dst.count) * tsize(dt);
        for (int i = 0; i < nk; i++) {
            int j = h->members[h->first[k] + i];
            if (off[j + 1] > INT_MAX && !st) st = sm_fail(SM_ERR_ARG, "a reduce-scatter of more than %d bytes across nodes", INT_MAX);
            cnt[i] = (int)(off[j + 1] - off[j]), cnt[nk + i] = (int)off[j];
        }
        mine = off[me + 1] - off[me];
    }
    struct coll_args sc = { .kind = COLL_SCATTER, .root = 0,
                            .src = { .base = packed, .counts = cnt, .displs = cnt ? cnt + nk : NULL },
                            .dst = { .base = a->dst.base, .count = dt ? mine / dt->size : mine, .type = dt } };
    st = node_run(h, &sc, st);
    free(off), free(cnt), free(packed), coll_scratch_free(mem), free(mem2);
    return st;
}

/* Every member's block (stream bytes) gathered at its leader, the nodes'
 * packs exchanged between leaders, the whole broadcast in each node and
 * unpacked into each member's blocks. */
static sm_status_t h_allgather(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int n = g->m.size, me = g->m.me, K = h->nnodes, k = h->mynode, nk = h->nsize[k];
    size_t *bytes = malloc(sizeof *bytes * (size_t)n), *noff = malloc(sizeof *noff * ((size_t)K + 1));
    int *nc = malloc(sizeof(int) * 2 * (size_t)nk), *lc = malloc(sizeof(int) * 2 * (size_t)K);
    char *big = NULL;
    sm_status_t st = SM_OK;
    if (!bytes || !noff || !nc || !lc) st = sm_fail(SM_ERR_NOMEM, "no memory for an allgather of %d", n);
    if (!st) {
        const struct dt_type *t;
        for (int j = 0; j < n; j++) coll_buf_block(&a->dst, j, &t, &bytes[j]);
        noff[0] = 0;
        for (int q = 0; q < K; q++) {
            size_t s = 0;
            for (int i = 0; i < h->nsize[q]; i++) s += bytes[h->members[h->first[q] + i]];
            noff[q + 1] = noff[q] + s;
        }
        if (noff[K] > INT_MAX) st = sm_fail(SM_ERR_ARG, "an allgather of more than %d bytes across nodes", INT_MAX);
    }
    if (!st && !(big = malloc(noff[K] ? noff[K] : 1))) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", noff[K]);
    /* (once failed, the stages take their part with no buffers) */
    struct coll_args ga = { .kind = COLL_GATHER, .root = 0, .src = a->src };
    struct coll_args la = { .kind = COLL_ALLGATHER, .src = { .base = COLL_IN_PLACE } };
    struct coll_args b = { .kind = COLL_BCAST, .root = 0 };
    if (!st) {
        size_t o = 0;
        for (int i = 0; i < nk; i++) {
            nc[i] = (int)bytes[h->members[h->first[k] + i]], nc[nk + i] = (int)o;
            o += (size_t)nc[i];
        }
        for (int q = 0; q < K; q++) lc[q] = (int)(noff[q + 1] - noff[q]), lc[K + q] = (int)noff[q];
        if (a->src.base == COLL_IN_PLACE) {
            const struct dt_type *t;
            size_t bb;
            void *p = coll_buf_block(&a->dst, me, &t, &bb);
            ga.src = (struct coll_buf){ .base = p, .count = t ? bb / t->size : bb, .type = t };
        }
        if (is_leader(h)) ga.dst = (struct coll_buf){ .base = big + noff[k], .counts = nc, .displs = nc + nk };
        la.dst = (struct coll_buf){ .base = big, .counts = lc, .displs = lc + K };
        b.dst = (struct coll_buf){ .base = big, .count = noff[K] };
    }
    st = node_run(h, &ga, st);
    st = lead_run(h, &la, st);
    st = node_run(h, &b, st);
    if (!st) {
        for (int q = 0; q < K; q++) {
            size_t o = noff[q];
            for (int i = 0; i < h->nsize[q]; i++) {
                int j = h->members[h->first[q] + i];
                const struct dt_type *t;
                size_t bb;
                void *p = coll_buf_block(&a->dst, j, &t, &bb);
                if (bb && !(j == me && a->src.base == COLL_IN_PLACE)) dt_copy(p, t, big + o, NULL, 0, bb);
                o += bytes[j];
            }
        }
    }
    free(bytes), free(noff), free(nc), free(lc), free(big);
    return st;
}

/* Nodes consecutive, in order: each node's scan; then a chain carries the
 * prefix of the nodes before (P) from node k - 1's last member to node k's
 * first, which sends it on to the others in its node, where every member
 * puts it on the left of its own result. A member waits only for members before it
 * (a small scan completes before the next rank calls it, as on one node). */
static sm_status_t h_scan(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int me = g->m.me, k = h->mynode, K = h->nnodes, nk = h->nsize[k], li = h->node_idx[me];
    bool ex = a->kind == COLL_EXSCAN, inpl = a->src.base == COLL_IN_PLACE, last = li == nk - 1;
    const struct coll_buf sb = inpl ? a->dst : a->src;
    const struct dt_type *t = sb.type;
    size_t count = sb.count, bytes = count * tsize(t);
    void *m1 = NULL, *m2 = NULL, *m3 = NULL;
    char *P = NULL, *x = NULL, *T = NULL;
    sm_status_t st = SM_OK;
    if (k > 0 && !(P = tmp_like(t, count, &m1))) st = sm_fail(SM_ERR_NOMEM, "no memory for a scan's prefix");
    /* the exscan's chain needs the last member's own value after its node's exscan overwrote it */
    if (!st && ex && last && k < K - 1) {
        if (!(x = tmp_like(t, count, &m2))) st = sm_fail(SM_ERR_NOMEM, "no memory for a scan");
        else dt_copy(x, t, sb.base, t, 0, bytes);
    }
    struct coll_args ns = { .kind = a->kind, .red = a->red, .src = a->src, .dst = a->dst };
    st = node_run(h, &ns, st);
    if (k > 0) {
        /* from the first member to the others by messages in the node: a
         * broadcast's root would wait for the next member's record */
        if (li == 0) {
            st = xfer(g, false, P, bytes, t, last_of(h, k - 1), st);
            for (int i = 1; i < nk; i++) st = xfer(g, true, P, bytes, t, h->members[h->first[k] + i], st);
        } else {
            st = xfer(g, false, P, bytes, t, leader_of(h, k), st);
        }
        if (!st) {
            if (ex && li == 0) dt_copy(a->dst.base, t, P, t, 0, bytes);
            else st = combine_left(&a->red, P, a->dst.base, t, count);
        }
    }
    if (last && k < K - 1) {
        /* P(k + 1): the scan's result here, or the exscan's op this member's own value */
        if (!st && !(T = tmp_like(t, count, &m3))) st = sm_fail(SM_ERR_NOMEM, "no memory for a scan");
        else if (!st && !ex) dt_copy(T, t, a->dst.base, t, 0, bytes);
        else if (!st) {
            dt_copy(T, t, x, t, 0, bytes);
            if (k > 0 || nk > 1) st = combine_left(&a->red, a->dst.base, T, t, count);
        }
        st = xfer(g, true, T, bytes, t, leader_of(h, k + 1), st);
    }
    free(m1), free(m2), free(m3);
    return st;
}

/* Rooted gathers and scatters, v or not (a member that is not the root
 * cannot tell): the members' sizes are gathered at each leader on the
 * node, and the root tells its leader every node's total; the data then
 * travels as packed streams, node by node in one block per node between
 * leaders, and the root's leader hands the whole to the root (or takes it
 * from it) within their node. */
struct rooted {
    uint64_t *nsz;              /* leader: its node's members' bytes, in node order */
    uint64_t *tot;              /* the root's node's leader and the root: bytes per node */
    size_t *noff;               /* ... where each node's block starts (K + 1) */
    int *nc, *lc;               /* the same as int counts and displacements (node, leaders) */
};

static void rooted_free(struct rooted *x) { free(x->nsz), free(x->tot), free(x->noff), free(x->nc), free(x->lc); }

/* At the root's node's leader: the node's block goes in place in the
 * whole, so its members' sizes (o bytes in all) must add up to the root's
 * view (tot); the other nodes' blocks are checked as messages of the size
 * the root's leader expects. */
static sm_status_t root_node_sizes(int root, size_t o, uint64_t tot)
{
    if (SM_LIKELY(o == tot)) return SM_OK;
    return sm_fail(SM_ERR_TRUNCATE, "the members on the root's node pass %zu bytes in all, the root (member %d) %llu "
                   "for them", o, root, (unsigned long long)tot);
}

/* Everything above, from this member's bytes (mine) and, at the root, each member's (blocks of b). */
static sm_status_t rooted_sizes(struct coll_group *g, struct coll_hier *h, int root, uint64_t mine,
                                const struct coll_buf *b, struct rooted *x)
{
    int me = g->m.me, K = h->nnodes, k = h->mynode, nk = h->nsize[k], R = h->node_of[root];
    memset(x, 0, sizeof *x);
    x->nsz = malloc(sizeof *x->nsz * (size_t)nk), x->tot = malloc(sizeof *x->tot * (size_t)K);
    x->noff = malloc(sizeof *x->noff * ((size_t)K + 1));
    x->nc = malloc(sizeof(int) * 2 * (size_t)nk), x->lc = malloc(sizeof(int) * 2 * (size_t)K);
    sm_status_t st = SM_OK;
    if (!x->nsz || !x->tot || !x->noff || !x->nc || !x->lc) st = sm_fail(SM_ERR_NOMEM, "no memory for a collective of %d", g->m.size);
    struct coll_args sa = { .kind = COLL_GATHER, .root = 0, .src = { .base = &mine, .count = sizeof mine },
                            .dst = { .base = x->nsz, .count = sizeof mine } };
    st = node_run(h, &sa, st);
    if (me == root && x->tot) {
        for (int q = 0; q < K; q++) {
            x->tot[q] = 0;
            for (int i = 0; i < h->nsize[q]; i++) {
                const struct dt_type *t;
                size_t n;
                coll_buf_block(b, h->members[h->first[q] + i], &t, &n);
                x->tot[q] += n;
            }
        }
    }
    if (h->mynode == R && h->node_idx[root] != 0) {
        struct coll_args ta = { .kind = COLL_BCAST, .root = h->node_idx[root], .dst = { .base = x->tot, .count = sizeof *x->tot * (size_t)K } };
        st = node_run(h, &ta, st);
    }
    if (st) return st;
    if (me == root || (h->mynode == R && is_leader(h))) {
        x->noff[0] = 0;
        for (int q = 0; q < K; q++) x->noff[q + 1] = x->noff[q] + x->tot[q];
        if (x->noff[K] > INT_MAX) return sm_fail(SM_ERR_ARG, "a gather or scatter of more than %d bytes across nodes", INT_MAX);
        for (int q = 0; q < K; q++) x->lc[q] = (int)x->tot[q], x->lc[K + q] = (int)x->noff[q];
    }
    if (is_leader(h)) {
        size_t o = 0;
        for (int i = 0; i < nk; i++) x->nc[i] = (int)x->nsz[i], x->nc[nk + i] = (int)o, o += x->nsz[i];
        if (o > INT_MAX) return sm_fail(SM_ERR_ARG, "a gather or scatter of more than %d bytes across nodes", INT_MAX);
        if (h->mynode == R && (st = root_node_sizes(root, o, x->tot[R]))) return st;
        x->noff[K] = h->mynode == R ? x->noff[K] : o;      /* elsewhere: this node's block */
    }
    return SM_OK;
}

static sm_status_t h_gather(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int me = g->m.me, root = a->root, R = h->node_of[root], k = h->mynode, K = h->nnodes;
    bool inpl = me == root && a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = a->src;
    const struct dt_type *t;
    size_t mine;
    if (inpl) {
        void *p = coll_buf_block(&a->dst, me, &t, &mine);
        sb = (struct coll_buf){ .base = p, .count = t ? mine / t->size : mine, .type = t };
    } else {
        mine = sb.count * tsize(sb.type);
    }
    struct rooted x;
    char *buf = NULL;
    sm_status_t st = rooted_sizes(g, h, root, mine, &a->dst, &x);
    /* the node's block at its leader: in place in the whole at the root's node's leader */
    size_t whole = !st && (is_leader(h) || me == root) ? x.noff[K] : 0;
    if (!st && whole && !(buf = malloc(whole))) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", whole);
    if (st) whole = 0;                  /* (the later stages take their part without data) */
    struct coll_args ga = { .kind = COLL_GATHER, .root = 0, .src = sb };
    if (is_leader(h) && !st) ga.dst = (struct coll_buf){ .base = buf + (k == R ? x.noff[k] : 0), .counts = x.nc, .displs = x.nc + h->nsize[k] };
    st = node_run(h, &ga, st);
    if (is_leader(h)) {
        struct coll_args la = { .kind = COLL_GATHER, .root = R };
        if (k == R) la.src.base = COLL_IN_PLACE;
        if (k == R && !st) la.dst = (struct coll_buf){ .base = buf, .counts = x.lc, .displs = x.lc + K };
        else if (k != R) la.src = (struct coll_buf){ .base = buf, .count = whole };
        st = lead_run(h, &la, st);
        if (k == R && me != root) st = xfer(g, true, buf, whole, NULL, root, st);
    } else if (me == root) {
        st = xfer(g, false, buf, whole, NULL, leader_of(h, R), st);
    }
    if (!st && me == root) {
        for (int q = 0; q < K; q++) {
            size_t o = x.noff[q];
            for (int i = 0; i < h->nsize[q]; i++) {
                int j = h->members[h->first[q] + i];
                size_t n;
                void *p = coll_buf_block(&a->dst, j, &t, &n);
                if (n && !(j == me && inpl)) dt_copy(p, t, buf + o, NULL, 0, n);
                o += n;
            }
        }
    }
    free(buf);
    rooted_free(&x);
    return st;
}

static sm_status_t h_scatter(struct coll_group *g, struct coll_hier *h, const struct coll_args *a)
{
    int me = g->m.me, root = a->root, R = h->node_of[root], k = h->mynode, K = h->nnodes;
    bool inpl = me == root && a->dst.base == COLL_IN_PLACE;
    struct coll_buf db = a->dst;
    const struct dt_type *t;
    size_t mine;
    void *scratch = NULL;
    if (inpl) coll_buf_block(&a->src, me, &t, &mine);
    else mine = db.count * tsize(db.type);
    struct rooted x;
    char *buf = NULL;
    sm_status_t st = rooted_sizes(g, h, root, mine, &a->src, &x);
    size_t whole = !st && (is_leader(h) || me == root) ? x.noff[K] : 0;
    if (!st && whole && !(buf = malloc(whole))) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", whole);
    if (st) whole = 0;                  /* (the later stages take their part without data) */
    if (me == root) {
        for (int q = 0; q < K && !st; q++) {
            size_t o = x.noff[q];
            for (int i = 0; i < h->nsize[q]; i++) {
                size_t n;
                void *p = coll_buf_block(&a->src, h->members[h->first[q] + i], &t, &n);
                if (n) dt_copy(buf + o, NULL, p, t, 0, n);
                o += n;
            }
        }
        if (!is_leader(h)) st = xfer(g, true, buf, whole, NULL, leader_of(h, R), st);
    } else if (k == R && is_leader(h)) {
        st = xfer(g, false, buf, whole, NULL, root, st);
    }
    if (is_leader(h)) {
        struct coll_args la = { .kind = COLL_SCATTER, .root = R };
        if (k == R) la.dst.base = COLL_IN_PLACE;
        if (k == R && !st) la.src = (struct coll_buf){ .base = buf, .counts = x.lc, .displs = x.lc + K };
        else if (k != R) la.dst = (struct coll_buf){ .base = buf, .count = whole };
        st = lead_run(h, &la, st);
    }
    struct coll_args sa = { .kind = COLL_SCATTER, .root = 0, .dst = db };
    if (is_leader(h) && !st) sa.src = (struct coll_buf){ .base = buf + (k == R ? x.noff[k] : 0), .counts = x.nc, .displs = x.nc + h->nsize[k] };
    if (inpl && !is_leader(h)) {        /* the root's block stays in its source: it takes its copy aside */
        if (!st && !(scratch = malloc(mine ? mine : 1))) st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", mine);
        sa.dst = (struct coll_buf){ .base = scratch, .count = mine };
    }
    st = node_run(h, &sa, st);
    free(scratch), free(buf);
    rooted_free(&x);
    return st;
}

/* --- Dispatch ------------------------------------------------------------------------ */

sm_status_t coll_hier_run(struct coll_group *g, const struct coll_args *a)
{
    if (g->num < 0 || g->m.me < 0) return coll_span_run(g, a);
    switch (a->kind) {      /* what stays direct, decided alike in every member */
    case COLL_BARRIER: case COLL_BCAST: case COLL_REDUCE: case COLL_ALLREDUCE: case COLL_ALLGATHER:
    case COLL_REDUCE_SCATTER: case COLL_SCAN: case COLL_EXSCAN: case COLL_GATHER: case COLL_SCATTER:
        break;
    default:
        return coll_span_run(g, a);
    }
    if ((a->kind == COLL_BCAST || a->kind == COLL_REDUCE || a->kind == COLL_GATHER || a->kind == COLL_SCATTER) &&
        (unsigned)a->root >= (unsigned)g->m.size)
        return coll_span_run(g, a);     /* it says why */
    if (!g->hier) {
        sm_status_t st = build(g);
        if (st) return st;
    }
    struct coll_hier *h = g->hier;
    if (h->flat) return coll_span_run(g, a);
    bool ordered = a->kind == COLL_SCAN || a->kind == COLL_EXSCAN || (a->red.op == COLL_USER && !a->red.commute);
    bool red = a->kind >= COLL_REDUCE && a->kind <= COLL_EXSCAN;
    if (red && ordered && !h->consecutive) return coll_span_run(g, a);
    if (red && a->red.op != COLL_USER && !coll_kernel(a->red.t, a->red.op)) return coll_span_run(g, a);
    sm_status_t st;
    if (!is_leader(h)) sm_wait_lean(h->node_ranks[0]);
    switch (a->kind) {
    case COLL_BARRIER: st = h_barrier(h); break;
    case COLL_BCAST: st = h_bcast(h, a); break;
    case COLL_REDUCE: st = h_reduce(g, h, a); break;
    case COLL_ALLREDUCE: st = h_allreduce(g, h, a); break;
    case COLL_REDUCE_SCATTER: st = h_reduce_scatter(g, h, a); break;
    case COLL_ALLGATHER: st = h_allgather(g, h, a); break;
    case COLL_GATHER: st = h_gather(g, h, a); break;
    case COLL_SCATTER: st = h_scatter(g, h, a); break;
    default: st = h_scan(g, h, a); break;
    }
    sm_wait_lean(-1);
    /* a check the node's group deferred failed: an earlier call's error,
     * once this one has done its part everywhere */
    if (!st && !a->quiet) st = coll_late(&h->node);
    return st;
}


/* --- Nonblocking ------------------------------------------------------------------------
 * The stages of the blocking ones above, but a member's node stages all
 * start (take their sequence numbers on the node's group) when the
 * collective starts, each held before its publication until the stages
 * before it have ended (coll_start_gated). A collective started later on
 * the group, blocking or not, so reaches the node's group behind them on
 * every member, leader or not, as MPI's order of collectives requires; a
 * chain that started a node stage only when the stage before ended would
 * have a leader, still waiting for the other nodes, start the later
 * collective's node stage first while its members were in this one's. The
 * leaders' stage takes its number on the leaders' group at the start too
 * (coll_span_reserve) and is posted when the stage before it ends; a
 * transfer between two members (a root and its leader) goes on a tag taken
 * on the group itself at the start. coll_progress runs the list. */

enum hs_kind { HS_NODE, HS_LEAD, HS_SEND, HS_RECV, HS_LOCAL };
struct hnb;

struct hstage {
    enum hs_kind kind;
    struct hnb *x;
    int idx;
    bool started;
    _Atomic bool done;          /* set by the engine's or span.c's callback (another thread's list, maybe) */
    sm_status_t st;
    struct coll_args a;         /* node, leaders: the engine reads it until the stage ends */
    struct coll_op *op;         /* node: allocated before any stage starts */
    void *buf;                  /* send, receive: with a member of the group itself */
    size_t bytes;
    const struct dt_type *t;
    int peer;
    struct p2p_req *req;
    sm_status_t (*local)(struct hnb *);
    bool always;                /* local: runs after a failure too (what later stages read) */
    char why[256];
};

#define HNB_STAGES 8
#define HNB_MEM 10

struct hnb {
    struct hnb *next;
    struct coll_group *g;
    struct coll_hier *h;
    struct coll_args a;
    coll_done_fn done;
    void *ctx;
    int n, tag, lead_tag;
    _Atomic int cur;            /* the stage running; the node stages' gates read it */
    struct hstage s[HNB_STAGES];
    void *mem[HNB_MEM];
    int nmem;
    size_t *bytes, *noff;       /* allgather: each member's block, each node's start in big */
    char *big;
    uint64_t mine;              /* gather, scatter: this member's bytes (reduce-scatter: the whole's), */
    struct rooted rt;           /* ... everyone's sizes (rooted_sizes'), */
    int i_data, i_lead, i_xfer; /* ... the stages that use buf, told where it is once it is there */
    void *scratch;
    sm_status_t st;
    char why[256];
};

static void *hnb_alloc(struct hnb *x, size_t n)
{
    void *p = x->nmem < HNB_MEM ? malloc(n ? n : 1) : NULL;
    if (p) x->mem[x->nmem++] = p;
    return p;
}
static void *hnb_tmp_like(struct hnb *x, const struct dt_type *t, size_t count)
{
    void *mem = NULL, *p = tmp_like(t, count, &mem);
    if (!mem) return NULL;
    if (x->nmem == HNB_MEM) {
        free(mem);
        return NULL;
    }
    x->mem[x->nmem++] = mem;
    return p;
}

static struct hstage *add(struct hnb *x, enum hs_kind k)
{
    struct hstage *s = &x->s[x->n];
    s->kind = k, s->x = x, s->idx = x->n++;
    return s;
}
static void add_node(struct hnb *x, const struct coll_args *a) { add(x, HS_NODE)->a = *a; }
static void add_lead(struct hnb *x, const struct coll_args *a)
{
    if (is_leader(x->h)) add(x, HS_LEAD)->a = *a;
}
static void add_xfer(struct hnb *x, bool send, void *buf, size_t bytes, const struct dt_type *t, int peer)
{
    struct hstage *s = add(x, send ? HS_SEND : HS_RECV);
    s->buf = buf, s->bytes = bytes, s->t = t, s->peer = peer;
}
static void add_local(struct hnb *x, sm_status_t (*fn)(struct hnb *)) { add(x, HS_LOCAL)->local = fn; }
static void add_local_always(struct hnb *x, sm_status_t (*fn)(struct hnb *))
{
    struct hstage *s = add(x, HS_LOCAL);
    s->local = fn, s->always = true;
}

/* The plans: what h_barrier ... h_allgather do, as stages. */
static sm_status_t plan_barrier(struct hnb *x)
{
    struct coll_args b = { .kind = COLL_BARRIER };
    add_node(x, &b);
    add_lead(x, &b);
    add_node(x, &b);
    return SM_OK;
}

static sm_status_t bcast_copy(struct hnb *x)
{
    const struct coll_args *a = &x->a;
    dt_copy(a->dst.base, a->dst.type, a->src.base, a->src.type, 0, a->src.count * tsize(a->src.type));
    return SM_OK;
}

static sm_status_t plan_bcast(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int R = h->node_of[a->root];
    bool rootnode = h->mynode == R, lead_root = h->node_idx[a->root] == 0;
    bool sep = a->src.base && a->src.base != COLL_IN_PLACE;
    struct coll_buf buf = sep ? a->src : a->dst;
    if (rootnode && !lead_root) {
        struct coll_args b = { .kind = COLL_BCAST, .root = h->node_idx[a->root], .dst = buf };
        add_node(x, &b);
    }
    struct coll_args l = { .kind = COLL_BCAST, .root = R, .dst = buf };
    add_lead(x, &l);
    if (!rootnode || lead_root) {
        struct coll_args b = { .kind = COLL_BCAST, .root = 0, .dst = buf };
        add_node(x, &b);
    }
    if (sep && a->dst.base && a->dst.base != a->src.base) add_local(x, bcast_copy);
    return SM_OK;
}

/* node_reduce's stage: the node's reduction at its leader, *part where it is. */
static sm_status_t plan_node_reduce(struct hnb *x, const struct coll_buf *sb, struct coll_buf *part)
{
    struct coll_hier *h = x->h;
    *part = *sb;
    if (h->nsize[h->mynode] == 1) return SM_OK;
    struct coll_args r = { .kind = COLL_REDUCE, .root = 0, .red = x->a.red, .src = *sb };
    if (is_leader(h)) {
        void *p = hnb_tmp_like(x, sb->type, sb->count);
        if (!p) return sm_fail(SM_ERR_NOMEM, "no memory for a node's partial result");
        r.dst = (struct coll_buf){ .base = p, .count = sb->count, .type = sb->type };
        *part = r.dst;
    }
    add_node(x, &r);
    return SM_OK;
}

static sm_status_t plan_allreduce(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? a->dst : a->src, part;
    sm_status_t st = plan_node_reduce(x, &sb, &part);
    if (st) return st;
    struct coll_args l = { .kind = COLL_ALLREDUCE, .red = a->red, .src = part, .dst = a->dst };
    if (inpl && h->nsize[h->mynode] == 1) l.src = (struct coll_buf){ .base = COLL_IN_PLACE };
    add_lead(x, &l);
    struct coll_args b = { .kind = COLL_BCAST, .root = 0, .dst = a->dst };
    add_node(x, &b);
    return SM_OK;
}

static sm_status_t plan_reduce(struct hnb *x)
{
    struct coll_group *g = x->g;
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int me = g->m.me, root = a->root, R = h->node_of[root];
    bool inpl = a->src.base == COLL_IN_PLACE, root_leads = h->node_idx[root] == 0;
    struct coll_buf sb = inpl ? a->dst : a->src, part;
    sm_status_t st = plan_node_reduce(x, &sb, &part);
    if (st) return st;
    if (is_leader(h)) {
        struct coll_args l = { .kind = COLL_REDUCE, .root = R, .red = a->red, .src = part };
        if (me == root) {
            l.dst = a->dst;
            if (inpl && h->nsize[R] == 1) l.src = (struct coll_buf){ .base = COLL_IN_PLACE };
        } else if (h->mynode == R) {
            void *p = hnb_tmp_like(x, sb.type, sb.count);
            if (!p) return sm_fail(SM_ERR_NOMEM, "no memory for a reduction's result");
            l.dst = (struct coll_buf){ .base = p, .count = sb.count, .type = sb.type };
        }
        add_lead(x, &l);
        if (h->mynode == R && !root_leads) add_xfer(x, true, l.dst.base, sb.count * tsize(sb.type), sb.type, root);
    } else if (me == root) {
        add_xfer(x, false, a->dst.base, a->dst.count * tsize(a->dst.type), a->dst.type, leader_of(h, R));
    }
    return SM_OK;
}

/* The whole (every node's pack, in node order) into each member's blocks. */
static sm_status_t allgather_unpack(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int me = x->g->m.me;
    for (int q = 0; q < h->nnodes; q++) {
        size_t o = x->noff[q];
        for (int i = 0; i < h->nsize[q]; i++) {
            int j = h->members[h->first[q] + i];
            const struct dt_type *t;
            size_t b;
            void *p = coll_buf_block(&a->dst, j, &t, &b);
            if (b && !(j == me && a->src.base == COLL_IN_PLACE)) dt_copy(p, t, x->big + o, NULL, 0, b);
            o += x->bytes[j];
        }
    }
    return SM_OK;
}

static sm_status_t plan_allgather(struct hnb *x)
{
    struct coll_group *g = x->g;
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int n = g->m.size, me = g->m.me, K = h->nnodes, k = h->mynode, nk = h->nsize[k];
    x->bytes = hnb_alloc(x, sizeof *x->bytes * (size_t)n), x->noff = hnb_alloc(x, sizeof *x->noff * ((size_t)K + 1));
    int *nc = hnb_alloc(x, sizeof(int) * 2 * (size_t)nk), *lc = hnb_alloc(x, sizeof(int) * 2 * (size_t)K);
    if (!x->bytes || !x->noff || !nc || !lc) return sm_fail(SM_ERR_NOMEM, "no memory for an allgather of %d", n);
    const struct dt_type *t;
    for (int j = 0; j < n; j++) coll_buf_block(&a->dst, j, &t, &x->bytes[j]);
    x->noff[0] = 0;
    for (int q = 0; q < K; q++) {
        size_t s = 0;
        for (int i = 0; i < h->nsize[q]; i++) s += x->bytes[h->members[h->first[q] + i]];
        x->noff[q + 1] = x->noff[q] + s;
    }
    if (x->noff[K] > INT_MAX) return sm_fail(SM_ERR_ARG, "an allgather of more than %d bytes across nodes", INT_MAX);
    if (!(x->big = hnb_alloc(x, x->noff[K]))) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", x->noff[K]);
    size_t o = 0;
    for (int i = 0; i < nk; i++) {
        nc[i] = (int)x->bytes[h->members[h->first[k] + i]], nc[nk + i] = (int)o;
        o += (size_t)nc[i];
    }
    for (int q = 0; q < K; q++) lc[q] = (int)(x->noff[q + 1] - x->noff[q]), lc[K + q] = (int)x->noff[q];
    struct coll_args ga = { .kind = COLL_GATHER, .root = 0, .src = a->src };
    if (a->src.base == COLL_IN_PLACE) {
        size_t b;
        void *p = coll_buf_block(&a->dst, me, &t, &b);
        ga.src = (struct coll_buf){ .base = p, .count = t ? b / t->size : b, .type = t };
    }
    if (is_leader(h)) ga.dst = (struct coll_buf){ .base = x->big + x->noff[k], .counts = nc, .displs = nc + nk };
    add_node(x, &ga);
    struct coll_args la = { .kind = COLL_ALLGATHER, .src = { .base = COLL_IN_PLACE },
                            .dst = { .base = x->big, .counts = lc, .displs = lc + K } };
    add_lead(x, &la);
    struct coll_args b = { .kind = COLL_BCAST, .root = 0, .dst = { .base = x->big, .count = x->noff[K] } };
    add_node(x, &b);
    add_local(x, allgather_unpack);
    return SM_OK;
}

/* h_reduce_scatter's: the whole reduced as an allreduce's at the leaders,
 * packed, and scattered in each node. */
static sm_status_t rs_pack(struct hnb *x)
{
    dt_copy(x->big, NULL, x->scratch, x->s[x->i_lead].a.dst.type, 0, x->mine);
    return SM_OK;
}

static sm_status_t plan_reduce_scatter(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int n = x->g->m.size, me = x->g->m.me, k = h->mynode, nk = h->nsize[k];
    const struct dt_type *dt = a->dst.type;
    size_t total = 0;
    for (int j = 0; j < n; j++) total += a->dst.counts ? (size_t)(a->dst.counts[j] > 0 ? a->dst.counts[j] : 0) : a->dst.count;
    bool inpl = a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = inpl ? (struct coll_buf){ .base = a->dst.base, .count = total, .type = dt } : a->src, part;
    size_t bytes = sb.count * tsize(sb.type);
    if (bytes != total * tsize(dt))
        return sm_fail(SM_ERR_ARG, "the blocks add up to %zu bytes, the source has %zu", total * tsize(dt), bytes);
    int *cnt = hnb_alloc(x, sizeof(int) * 2 * (size_t)nk);
    size_t *off = hnb_alloc(x, sizeof *off * ((size_t)n + 1));
    if (!cnt || !off) return sm_fail(SM_ERR_NOMEM, "no memory for a reduce-scatter of %d", n);
    off[0] = 0;
    for (int j = 0; j < n; j++)
        off[j + 1] = off[j] + (a->dst.counts ? (size_t)(a->dst.counts[j] > 0 ? a->dst.counts[j] : 0) : a->dst.count) * tsize(dt);
    for (int i = 0; i < nk; i++) {
        int j = h->members[h->first[k] + i];
        if (off[j + 1] > INT_MAX) return sm_fail(SM_ERR_ARG, "a reduce-scatter of more than %d bytes across nodes", INT_MAX);
        cnt[i] = (int)(off[j + 1] - off[j]), cnt[nk + i] = (int)off[j];
    }
    sm_status_t st = plan_node_reduce(x, &sb, &part);
    if (st) return st;
    if (is_leader(h)) {
        x->scratch = hnb_tmp_like(x, sb.type, sb.count);
        x->big = hnb_alloc(x, bytes);
        if (!x->scratch || !x->big) return sm_fail(SM_ERR_NOMEM, "no memory for a %zu-byte reduction", bytes);
        x->mine = bytes;
        struct coll_args l = { .kind = COLL_ALLREDUCE, .red = a->red, .src = part,
                               .dst = { .base = x->scratch, .count = sb.count, .type = sb.type } };
        x->i_lead = x->n;
        add_lead(x, &l);
        add_local(x, rs_pack);
    }
    size_t mine = off[me + 1] - off[me];
    struct coll_args sc = { .kind = COLL_SCATTER, .root = 0,
                            .src = { .base = x->big, .counts = cnt, .displs = cnt + nk },
                            .dst = { .base = a->dst.base, .count = dt ? mine / dt->size : mine, .type = dt } };
    add_node(x, &sc);
    return SM_OK;
}

/* Gathers and scatters: rooted_sizes as stages (the sizes gathered at
 * each leader, the root's totals to its node), then rooted_local where it
 * computed; h_gather's and h_scatter's stages after them. */
static sm_status_t plan_sizes(struct hnb *x, uint64_t mine, const struct coll_buf *b)
{
    struct coll_hier *h = x->h;
    struct rooted *r = &x->rt;
    int root = x->a.root, K = h->nnodes, nk = h->nsize[h->mynode], R = h->node_of[root];
    r->nsz = hnb_alloc(x, sizeof *r->nsz * (size_t)nk), r->tot = hnb_alloc(x, sizeof *r->tot * (size_t)K);
    r->noff = hnb_alloc(x, sizeof *r->noff * ((size_t)K + 1));
    r->nc = hnb_alloc(x, sizeof(int) * 2 * (size_t)nk), r->lc = hnb_alloc(x, sizeof(int) * 2 * (size_t)K);
    if (!r->nsz || !r->tot || !r->noff || !r->nc || !r->lc)
        return sm_fail(SM_ERR_NOMEM, "no memory for a collective of %d", x->g->m.size);
    x->mine = mine;
    struct coll_args sa = { .kind = COLL_GATHER, .root = 0, .src = { .base = &x->mine, .count = sizeof x->mine },
                            .dst = { .base = r->nsz, .count = sizeof x->mine } };
    add_node(x, &sa);
    if (x->g->m.me == root) {
        for (int q = 0; q < K; q++) {
            r->tot[q] = 0;
            for (int i = 0; i < h->nsize[q]; i++) {
                const struct dt_type *t;
                size_t n;
                coll_buf_block(b, h->members[h->first[q] + i], &t, &n);
                r->tot[q] += n;
            }
        }
    }
    if (h->mynode == R && h->node_idx[root] != 0) {
        struct coll_args ta = { .kind = COLL_BCAST, .root = h->node_idx[root],
                                .dst = { .base = r->tot, .count = sizeof *r->tot * (size_t)K } };
        add_node(x, &ta);
    }
    return SM_OK;
}

/* rooted_sizes' end, and the whole's buffer (x->big) where it is needed. */
static sm_status_t sizes_local(struct hnb *x)
{
    struct coll_hier *h = x->h;
    struct rooted *r = &x->rt;
    int me = x->g->m.me, root = x->a.root, K = h->nnodes, k = h->mynode, nk = h->nsize[k], R = h->node_of[root];
    if (me == root || (k == R && is_leader(h))) {
        r->noff[0] = 0;
        for (int q = 0; q < K; q++) r->noff[q + 1] = r->noff[q] + r->tot[q];
        if (r->noff[K] > INT_MAX) return sm_fail(SM_ERR_ARG, "a gather or scatter of more than %d bytes across nodes", INT_MAX);
        for (int q = 0; q < K; q++) r->lc[q] = (int)r->tot[q], r->lc[K + q] = (int)r->noff[q];
    }
    if (is_leader(h)) {
        size_t o = 0;
        for (int i = 0; i < nk; i++) r->nc[i] = (int)r->nsz[i], r->nc[nk + i] = (int)o, o += r->nsz[i];
        if (o > INT_MAX) return sm_fail(SM_ERR_ARG, "a gather or scatter of more than %d bytes across nodes", INT_MAX);
        sm_status_t st = k == R ? root_node_sizes(root, o, r->tot[R]) : SM_OK;
        if (st) return st;
        if (k != R) r->noff[K] = o;     /* elsewhere: this node's block */
    }
    size_t whole = is_leader(h) || me == root ? r->noff[K] : 0;
    if (whole && !(x->big = hnb_alloc(x, whole))) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", whole);
    /* where the later stages find it */
    char *node_part = x->big + (k == R && x->big ? r->noff[k] : 0);
    if (is_leader(h)) {
        struct coll_args *d = &x->s[x->i_data].a, *l = &x->s[x->i_lead].a;
        if (d->kind == COLL_GATHER) d->dst = (struct coll_buf){ .base = node_part, .counts = r->nc, .displs = r->nc + nk };
        else d->src = (struct coll_buf){ .base = node_part, .counts = r->nc, .displs = r->nc + nk };
        struct coll_buf all = { .base = x->big, .counts = r->lc, .displs = r->lc + K };
        struct coll_buf mine = { .base = x->big, .count = r->noff[K] };
        if (l->kind == COLL_GATHER) {
            if (k == R) l->src.base = COLL_IN_PLACE, l->dst = all;
            else l->src = mine;
        } else {
            if (k == R) l->dst.base = COLL_IN_PLACE, l->src = all;
            else l->dst = mine;
        }
    }
    if (x->i_xfer >= 0) x->s[x->i_xfer].buf = x->big, x->s[x->i_xfer].bytes = r->noff[K];
    return SM_OK;
}

static sm_status_t gather_unpack(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int me = x->g->m.me;
    bool inpl = a->src.base == COLL_IN_PLACE;
    for (int q = 0; q < h->nnodes; q++) {
        size_t o = x->rt.noff[q];
        for (int i = 0; i < h->nsize[q]; i++) {
            int j = h->members[h->first[q] + i];
            const struct dt_type *t;
            size_t n;
            void *p = coll_buf_block(&a->dst, j, &t, &n);
            if (n && !(j == me && inpl)) dt_copy(p, t, x->big + o, NULL, 0, n);
            o += n;
        }
    }
    return SM_OK;
}

static sm_status_t plan_gather(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int me = x->g->m.me, root = a->root, R = h->node_of[root], k = h->mynode;
    bool inpl = me == root && a->src.base == COLL_IN_PLACE;
    struct coll_buf sb = a->src;
    const struct dt_type *t;
    size_t mine;
    if (inpl) {
        void *p = coll_buf_block(&a->dst, me, &t, &mine);
        sb = (struct coll_buf){ .base = p, .count = t ? mine / t->size : mine, .type = t };
    } else {
        mine = sb.count * tsize(sb.type);
    }
    x->i_xfer = -1;
    sm_status_t st = plan_sizes(x, mine, &a->dst);
    if (st) return st;
    add_local_always(x, sizes_local);
    struct coll_args ga = { .kind = COLL_GATHER, .root = 0, .src = sb };
    x->i_data = x->n;
    add_node(x, &ga);
    if (is_leader(h)) {
        struct coll_args la = { .kind = COLL_GATHER, .root = R };
        x->i_lead = x->n;
        add_lead(x, &la);
        if (k == R && me != root) x->i_xfer = x->n, add_xfer(x, true, NULL, 0, NULL, root);
    } else if (me == root) {
        x->i_xfer = x->n, add_xfer(x, false, NULL, 0, NULL, leader_of(h, R));
    }
    if (me == root) add_local(x, gather_unpack);
    return SM_OK;
}

static sm_status_t scatter_pack(struct hnb *x)
{
    struct coll_hier *h = x->h;
    for (int q = 0; q < h->nnodes; q++) {
        size_t o = x->rt.noff[q];
        for (int i = 0; i < h->nsize[q]; i++) {
            const struct dt_type *t;
            size_t n;
            void *p = coll_buf_block(&x->a.src, h->members[h->first[q] + i], &t, &n);
            if (n) dt_copy(x->big + o, NULL, p, t, 0, n);
            o += n;
        }
    }
    return SM_OK;
}

static sm_status_t plan_scatter(struct hnb *x)
{
    struct coll_hier *h = x->h;
    const struct coll_args *a = &x->a;
    int me = x->g->m.me, root = a->root, R = h->node_of[root], k = h->mynode;
    bool inpl = me == root && a->dst.base == COLL_IN_PLACE;
    struct coll_buf db = a->dst;
    const struct dt_type *t;
    size_t mine;
    if (inpl) coll_buf_block(&a->src, me, &t, &mine);
    else mine = db.count * tsize(db.type);
    x->i_xfer = -1;
    sm_status_t st = plan_sizes(x, mine, &a->src);
    if (st) return st;
    add_local_always(x, sizes_local);
    if (me == root) add_local(x, scatter_pack);
    if (me == root && !is_leader(h)) x->i_xfer = x->n, add_xfer(x, true, NULL, 0, NULL, leader_of(h, R));
    else if (k == R && is_leader(h) && me != root) x->i_xfer = x->n, add_xfer(x, false, NULL, 0, NULL, root);
    if (is_leader(h)) {
        struct coll_args la = { .kind = COLL_SCATTER, .root = R };
        x->i_lead = x->n;
        add_lead(x, &la);
    }
    struct coll_args sa = { .kind = COLL_SCATTER, .root = 0, .dst = db };
    if (inpl && !is_leader(h)) {        /* the root's block stays in its source: it takes its copy aside */
        if (!(x->scratch = hnb_alloc(x, mine))) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", mine);
        sa.dst = (struct coll_buf){ .base = x->scratch, .count = mine };
    }
    x->i_data = x->n;
    add_node(x, &sa);
    return SM_OK;
}

/* The list of started ones; with threads under the lock (one thread runs it for all). */
static struct hnb *hactive;
static pthread_mutex_t hlock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

bool coll_hier_busy(void) { return hactive != NULL; }

static void stage_done(void *ctx, sm_status_t st, const char *why)
{
    struct hstage *s = ctx;
    if (st) {
        s->st = st;
        snprintf(s->why, sizeof s->why, "%s", why && *why ? why : "a stage of the collective failed");
    }
    atomic_store_explicit(&s->done, true, memory_order_release);
}

static bool stage_gate(void *ctx)
{
    struct hstage *s = ctx;
    return atomic_load_explicit(&s->x->cur, memory_order_acquire) == s->idx;
}

static void stage_fail(struct hstage *s, sm_status_t st)
{
    s->st = st;
    snprintf(s->why, sizeof s->why, "%s", sm_fail_reason());
    atomic_store_explicit(&s->done, true, memory_order_release);
}

/* The stage's turn: start what starts now (a node stage started with the
 * collective: its gate opens). A failed stage ends at once, and the later
 * ones still run (a leader that failed between nodes must not leave its
 * node waiting for it), but for the local copies. */
static void stage_begin(struct hnb *x, struct hstage *s)
{
    sm_status_t st = SM_OK;
    switch (s->kind) {
    case HS_NODE:
        return;
    case HS_LEAD:
        s->a.failed = x->st != SM_OK;
        st = coll_span_start_tag(&x->h->lead, &s->a, x->lead_tag, stage_done, s);
        break;
    case HS_SEND: case HS_RECV:
        if (!(s->req = p2p_req_alloc())) {
            st = sm_fail(SM_ERR_NOMEM, "no memory for a request");
            break;
        }
        if (x->st) coll_fail_msg(s->kind == HS_SEND, &s->buf, &s->bytes, &s->t);
        st = s->kind == HS_SEND ? p2p_isend(s->req, s->buf, s->bytes, s->peer, x->tag, x->g->net, P2P_STANDARD, s->t)
                                : p2p_irecv(s->req, s->buf, s->bytes, s->peer, x->tag, x->g->net, s->t);
        if (st) p2p_req_free(s->req), s->req = NULL;
        break;
    case HS_LOCAL:
        if (!x->st || s->always) st = s->local(x);
        if (!st) atomic_store_explicit(&s->done, true, memory_order_release);
        break;
    }
    if (st) stage_fail(s, st);
}

/* As far as it goes; true once every stage has ended. */
static bool hnb_run(struct hnb *x)
{
    for (;;) {
        int c = atomic_load_explicit(&x->cur, memory_order_relaxed);
        if (c == x->n) return true;
        struct hstage *s = &x->s[c];
        if (!s->started) {
            s->started = true;
            stage_begin(x, s);
        }
        if (s->req && p2p_done(s->req)) {
            struct p2p_req *r = s->req;
            s->req = NULL;
            sm_status_t e = x->st ? SM_OK : s->kind == HS_RECV ? coll_recv_status(x->g, r) : r->st.err;
            if (e && s->kind == HS_SEND) sm_fail(e, "%s", r->why ? r->why : "a transfer between nodes failed");
            if (e) stage_fail(s, e);
            else atomic_store_explicit(&s->done, true, memory_order_release);
            p2p_req_free(r);
        }
        if (!atomic_load_explicit(&s->done, memory_order_acquire)) return false;
        if (s->st && !x->st) {
            x->st = s->st;
            snprintf(x->why, sizeof x->why, "%s", s->why);
        }
        /* a node stage after a failure takes its part as one that failed
         * (read once its gate, opened below, lets it publish) */
        if (x->st && c + 1 < x->n) x->s[c + 1].a.failed = true;
        atomic_store_explicit(&x->cur, c + 1, memory_order_release);
    }
}

static void hnb_free(struct hnb *x)
{
    for (int i = 0; i < x->n; i++)
        if (x->s[i].kind == HS_NODE && !x->s[i].started) free(x->s[i].op);    /* never launched */
    for (int i = 0; i < x->nmem; i++) free(x->mem[i]);
    free(x);
}

void coll_hier_progress(void)
{
    static bool busy;
    bool mt = coll_threaded();
    if (mt && pthread_mutex_trylock(&hlock)) return;     /* another thread runs the list */
    if (busy) {
        if (mt) pthread_mutex_unlock(&hlock);
        return;
    }
    busy = true;
    for (struct hnb **p = &hactive, *x; (x = *p);) {
        if (!hnb_run(x)) {
            p = &x->next;
            continue;
        }
        *p = x->next;
        x->done(x->ctx, x->st, x->st ? x->why : "");
        hnb_free(x);
    }
    busy = false;
    if (mt) pthread_mutex_unlock(&hlock);
}

sm_status_t coll_hier_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx)
{
    struct coll_hier *h = g->hier;
    /* Not split yet (splitting waits for every member), or nothing to gain. */
    if (g->num < 0 || g->m.me < 0 || !h || h->flat) return coll_span_start(g, a, done, ctx);
    switch (a->kind) {
    case COLL_BARRIER: case COLL_BCAST: case COLL_REDUCE: case COLL_ALLREDUCE: case COLL_ALLGATHER:
    case COLL_GATHER: case COLL_SCATTER: case COLL_REDUCE_SCATTER:
        break;
    default:
        return coll_span_start(g, a, done, ctx);
    }
    if ((a->kind == COLL_BCAST || a->kind == COLL_REDUCE || a->kind == COLL_GATHER || a->kind == COLL_SCATTER) &&
        (unsigned)a->root >= (unsigned)g->m.size)
        return coll_span_start(g, a, done, ctx);     /* it says why */
    bool red = a->kind == COLL_REDUCE || a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER;
    if (red && a->red.op == COLL_USER && (!a->red.commute || !a->red.fn.fn)) return coll_span_start(g, a, done, ctx);
    if (red && a->red.op != COLL_USER && !coll_kernel(a->red.t, a->red.op)) return coll_span_start(g, a, done, ctx);
    struct hnb *x = calloc(1, sizeof *x);
    if (!x) return sm_fail(SM_ERR_NOMEM, "no memory for a nonblocking collective");
    x->g = g, x->h = h, x->a = *a, x->done = done, x->ctx = ctx;
    sm_status_t st;
    switch (a->kind) {
    case COLL_BARRIER: st = plan_barrier(x); break;
    case COLL_BCAST: st = plan_bcast(x); break;
    case COLL_REDUCE: st = plan_reduce(x); break;
    case COLL_ALLREDUCE: st = plan_allreduce(x); break;
    case COLL_GATHER: st = plan_gather(x); break;
    case COLL_SCATTER: st = plan_scatter(x); break;
    case COLL_REDUCE_SCATTER: st = plan_reduce_scatter(x); break;
    default: st = plan_allgather(x); break;
    }
    /* Every node stage's op before any starts: a member that started some
     * and not the others would leave its node waiting. */
    for (int i = 0; i < x->n && !st; i++)
        if (x->s[i].kind == HS_NODE && !(x->s[i].op = malloc(sizeof *x->s[i].op)))
            st = sm_fail(SM_ERR_NOMEM, "no memory for a nonblocking collective");
    if (st) {
        hnb_free(x);
        return st;
    }
    x->tag = coll_span_reserve(g);
    if (is_leader(h)) x->lead_tag = coll_span_reserve(&h->lead);
    for (int i = 0; i < x->n; i++) {
        struct hstage *s = &x->s[i];
        if (s->kind != HS_NODE) continue;
        s->started = true;         /* the engine owns the op from here */
        if ((st = coll_start_gated(s->op, &h->node, &s->a, stage_gate, s, stage_done, s))) {
            free(s->op);           /* its arguments were checked above: not expected */
            stage_fail(s, st);
        }
    }
    bool mt = coll_threaded();
    if (mt) pthread_mutex_lock(&hlock);
    x->next = hactive, hactive = x;
    if (mt) pthread_mutex_unlock(&hlock);
    p2p_progress_hook = coll_progress;
    coll_progress();
    return SM_OK;
}
