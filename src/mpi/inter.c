/* Intercommunicators (MPI-3.1 §6.6): creation, merge, remote group, dup,
 * split and create on them, and their blocking collectives (§5.2.2).
 * Every collective here is an intracommunicator collective on each local
 * group (its hidden intracommunicator, through the public PMPI_ entry
 * points) plus messages between the two groups' leaders (local rank 0) on
 * the intercommunicator's second context; alltoall goes pairwise. The
 * entry points of comm.c and collective.c reach these only through an
 * intercommunicator's table (ops, below), and the calls made from here are
 * on intracommunicators (or the peer, which has no table), so the
 * recursion ends at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

#define TAG_COLL 1              /* every internal message on the peer context */

/* The next intercommunicator context id this process would take (two ids
 * each: point-to-point and the internal messages); an idup's until it is
 * agreed: none. */
#define SMPI_CTX_NONE 0xfffffff0u
static uint32_t next_ctx = SMPI_CTX_INTER0;

/* An internal call failed: raise its class on the intercommunicator. */
#define TRY(call) do { if ((rc = (call)) != MPI_SUCCESS) goto out; } while (0)
static int failed(struct smpi_comm *c, int rc, const char *R)
{
    return rc ? smpi_error(c, rc, R, "failed inside one group (error class %d)", rc) : MPI_SUCCESS;
}

/* A buffer for count elements of t, as its typemap lays them out (*base to free). */
static void *tmp_for(int count, MPI_Datatype t, void **base)
{
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    size_t n = count > 0 ? (size_t)text + (size_t)(count - 1) * (size_t)ext : 0;
    *base = malloc(n ? n : 1);
    if (!*base) sm_fatal("MPI: out of memory for %zu bytes of an intercommunicator collective", n);
    return (char *)*base - tlb;
}

/* The leaders swap nmine ints (the caller's group's, from lleader) for the
 * other group's, over (pcomm, rleader, tag); every member of local gets
 * them (*theirs to free). */
static int swap_ints(MPI_Comm local, int lleader, MPI_Comm pcomm, int rleader, int tag, const int *mine, int nmine,
                     int **theirs, int *ntheirs)
{
    int me, rc;
    PMPI_Comm_rank(local, &me);
    *theirs = NULL;
    if (me == lleader &&
        (rc = PMPI_Sendrecv(&nmine, 1, MPI_INT, rleader, tag, ntheirs, 1, MPI_INT, rleader, tag, pcomm,
                            MPI_STATUS_IGNORE)))
        return rc;
    if ((rc = PMPI_Bcast(ntheirs, 1, MPI_INT, lleader, local))) return rc;
    if (!(*theirs = malloc(sizeof(int) * (size_t)(*ntheirs + 1)))) sm_fatal("MPI: out of memory");
    if (me == lleader &&
        (rc = PMPI_Sendrecv(mine, nmine, MPI_INT, rleader, tag, *theirs, *ntheirs, MPI_INT, rleader, tag, pcomm,
                            MPI_STATUS_IGNORE)))
        return rc;
    return PMPI_Bcast(*theirs, *ntheirs, MPI_INT, lleader, local);
}

/* A context id free in every member of both groups: the greatest proposal
 * of either. Collective over local; mine[0] is filled in here and sent
 * with the rest of mine (n ints) to the other group, whose ints come back
 * in *theirs (its proposal first). */
static int agree(MPI_Comm local, int lleader, MPI_Comm pcomm, int rleader, int tag, int *mine, int n,
                 uint32_t *ctx, int **theirs, int *ntheirs)
{
    unsigned prop = next_ctx, best;
    int rc = PMPI_Allreduce(&prop, &best, 1, MPI_UNSIGNED, MPI_MAX, local);
    if (rc) return rc;
    mine[0] = (int)(best - SMPI_CTX_INTER0);
    if ((rc = swap_ints(local, lleader, pcomm, rleader, tag, mine, n, theirs, ntheirs))) return rc;
    uint32_t other = SMPI_CTX_INTER0 + (uint32_t)(*theirs)[0];
    *ctx = best > other ? best : other;
    if (*ctx + 2 > next_ctx) next_ctx = *ctx + 2;
    return MPI_SUCCESS;
}

static const struct smpi_inter_ops ops;
static void drain(struct smpi_comm *c);

/* c's context ids: point-to-point ctx, the leaders' messages ctx + 1. */
static void set_ctx(struct smpi_comm *c, uint32_t ctx)
{
    struct smpi_comm *p = c->inter->peer;
    c->pt.ctx = ctx, c->co.ctx = ctx + 1;
    p->pt.ctx = ctx + 1, p->co.ctx = ctx + 2;
}

/* The intercommunicator over local (taken) and the remote group's job ranks. */
static struct smpi_comm *build(MPI_Comm local, const int *remote, int rsize, uint32_t ctx, MPI_Errhandler errh)
{
    struct smpi_comm *l = smpi_comm(local), *c = calloc(1, sizeof *c), *p = calloc(1, sizeof *p);
    struct smpi_inter *in = calloc(1, sizeof *in);
    struct smpi_group *r = smpi_group_new(rsize);
    if (!c || !p || !in || !r) sm_fatal("MPI: out of memory for an intercommunicator");
    memcpy(r->world, remote, sizeof(int) * (size_t)rsize);
    smpi_group_set_rank(r);
    PMPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    l->group->refs += 2;
    smpi_comm_setup(c, l->group, ctx, "");
    c->pt.size = rsize, c->pt.world = r->world;
    c->co = c->pt;
    c->cg.num = -1;
    smpi_comm_setup(p, l->group, ctx, "");
    p->cg.num = -1;
    p->errh = MPI_ERRORS_RETURN;
    *in = (struct smpi_inter){ r, l, p, &ops, NULL, NULL };
    c->inter = in;
    set_ctx(c, ctx);
    p->pt = c->co;
    c->errh = errh;
    smpi_errh_ref(errh);
    return c;
}

/* --- Creation ------------------------------------------------------------- */

/* The routine's intercommunicator argument, or return its error. */
#define GET_INTER(c, h, R) SMPI_CHECK_INIT(R); SMPI_GET_COMM(c, h, R); \
    if (!c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is not an intercommunicator", smpi_comm_name(c))

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    static const char R[] = "MPI_Intercomm_create";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(l, local_comm, R);
    if (l->inter) return smpi_error(l, MPI_ERR_COMM, R, "local_comm is an intercommunicator");
    if (!newintercomm) return smpi_error(l, MPI_ERR_ARG, R, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= l->pt.size)
        return smpi_error(l, MPI_ERR_RANK, R, "local_leader %d not in [0, %d)", local_leader, l->pt.size);
    if (tag < 0) return smpi_error(l, MPI_ERR_TAG, R, "tag %d is negative", tag);
    /* the leader's arguments: checked there, the verdict broadcast (the
     * others would wait for it) */
    char why[160] = "";
    int bad = 0, rc;
    if (l->pt.rank == local_leader) {
        struct smpi_comm *p = smpi_comm(peer_comm);
        if (!p) bad = MPI_ERR_COMM, snprintf(why, sizeof why, "peer_comm %p is not a communicator", (void *)peer_comm);
        else if (remote_leader < 0 || remote_leader >= p->pt.size)
            bad = MPI_ERR_RANK, snprintf(why, sizeof why, "remote_leader %d not in [0, %d) of peer_comm",
                                         remote_leader, p->pt.size);
        else if (!p->inter && p->pt.world[remote_leader] == sm_core.rank)
            bad = MPI_ERR_RANK, snprintf(why, sizeof why, "remote_leader %d is the local leader itself", remote_leader);
    }
    if ((rc = PMPI_Bcast(&bad, 1, MPI_INT, local_leader, local_comm))) return failed(l, rc, R);
    if (bad)
        return smpi_error(l, bad, R, "%s", *why ? why : "the local leader's peer_comm or remote_leader is invalid");
    int n = l->group->size, *mine = malloc(sizeof(int) * (size_t)(n + 1)), *theirs = NULL, nt;
    if (!mine) sm_fatal("MPI: out of memory");
    memcpy(mine + 1, l->group->world, sizeof(int) * (size_t)n);
    uint32_t ctx;
    MPI_Comm local = MPI_COMM_NULL;
    TRY(agree(local_comm, local_leader, peer_comm, remote_leader, tag, mine, n + 1, &ctx, &theirs, &nt));
    for (int i = 1; i < nt; i++)
        for (int j = 0; j < n; j++)
            if (theirs[i] == mine[j + 1]) {
                rc = MPI_ERR_GROUP;
                free(mine), free(theirs);
                return smpi_error(l, rc, R, "job rank %d is in both groups", theirs[i]);
            }
    TRY(PMPI_Comm_split(local_comm, 0, l->pt.rank, &local));
    *newintercomm = build(local, theirs + 1, nt - 1, ctx, l->errh);
out:
    free(mine), free(theirs);
    return failed(l, rc, R);
}
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char R[] = "MPI_Intercomm_merge";
    GET_INTER(c, intercomm, R);
    if (!newintracomm) return smpi_error(c, MPI_ERR_ARG, R, "newintracomm is NULL");
    struct smpi_inter *in = c->inter;
    drain(c);
    int mine = high ? 1 : 0, *theirs = NULL, nt, rc;
    TRY(swap_ints(in->local, 0, in->peer, 0, TAG_COLL, &mine, 1, &theirs, &nt));
    /* the low group first; with equal flags, the group whose leader has the lower job rank */
    bool first = mine != theirs[0] ? !mine : c->group->world[0] < in->remote->world[0];
    struct smpi_group *lo = first ? c->group : in->remote, *hi = first ? in->remote : c->group;
    struct smpi_group *g = smpi_group_new(lo->size + hi->size);
    if (!g) sm_fatal("MPI: out of memory");
    memcpy(g->world, lo->world, sizeof(int) * (size_t)lo->size);
    memcpy(g->world + lo->size, hi->world, sizeof(int) * (size_t)hi->size);
    smpi_group_set_rank(g);
    /* a group creation over the whole job's hidden communicator, tagged by
     * this intercommunicator's context (unique among its members' live ones) */
    rc = PMPI_Comm_create_group(smpi_comm_universe, g, (int)((c->pt.ctx - SMPI_CTX_INTER0) / 2), newintracomm);
    smpi_group_unref(g);
    if (!rc) PMPI_Comm_set_errhandler(*newintracomm, c->errh);
out:
    free(theirs);
    return failed(c, rc, R);
}
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char R[] = "MPI_Comm_remote_size";
    GET_INTER(c, comm, R);
    if (!size) return smpi_error(c, MPI_ERR_ARG, R, "size is NULL");
    *size = c->inter->remote->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char R[] = "MPI_Comm_remote_group";
    GET_INTER(c, comm, R);
    if (!group) return smpi_error(c, MPI_ERR_ARG, R, "group is NULL");
    c->inter->remote->refs++;
    *group = c->inter->remote;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group

/* A new intercommunicator on c's groups: new local (taken; MPI_COMM_NULL if
 * the caller is not in it) and the remote members listed in theirs (job
 * ranks; none: the result is MPI_COMM_NULL too). */
static void finish(struct smpi_comm *c, MPI_Comm local, const int *remote, int rsize, uint32_t ctx, MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    if (local == MPI_COMM_NULL) return;
    if (!rsize) {
        PMPI_Comm_free(&local);
        return;
    }
    *out = build(local, remote, rsize, ctx, c->errh);
}

static int inter_dup_blocking(struct smpi_comm *c, MPI_Comm *newcomm, const char *R)
{
    struct smpi_inter *in = c->inter;
    int mine = 0, *theirs = NULL, nt, rc;
    uint32_t ctx;
    MPI_Comm local = MPI_COMM_NULL;
    TRY(agree(in->local, 0, in->peer, 0, TAG_COLL, &mine, 1, &ctx, &theirs, &nt));
    TRY(PMPI_Comm_split(in->local, 0, c->pt.rank, &local));
    finish(c, local, in->remote->world, in->remote->size, ctx, newcomm);
out:
    free(theirs);
    return failed(c, rc, R);
}

struct split_ent { int color, key, rank; };
static int split_cmp(const void *a, const void *b)
{
    const struct split_ent *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* Each group splits; the remote members of a new intercommunicator are
 * those of the other group with the same color, in (key, rank) order. */
static int inter_split(struct smpi_comm *c, int color, int key, MPI_Comm *newcomm, const char *R)
{
    if (color < 0 && color != MPI_UNDEFINED) return smpi_error(c, MPI_ERR_ARG, R, "invalid color %d", color);
    struct smpi_inter *in = c->inter;
    drain(c);
    int n = c->group->size, *mine = malloc(sizeof(int) * (size_t)(2 * n + 1)), *theirs = NULL, nt, rc;
    if (!mine) sm_fatal("MPI: out of memory");
    int ck[2] = { color, key };
    uint32_t ctx;
    MPI_Comm local = MPI_COMM_NULL;
    TRY(PMPI_Allgather(ck, 2, MPI_INT, mine + 1, 2, MPI_INT, in->local));
    TRY(agree(in->local, 0, in->peer, 0, TAG_COLL, mine, 2 * n + 1, &ctx, &theirs, &nt));
    TRY(PMPI_Comm_split(in->local, color, key, &local));
    int rn = (nt - 1) / 2, m = 0;
    struct split_ent *e = malloc(sizeof *e * (size_t)(rn + 1));
    if (!e) sm_fatal("MPI: out of memory");
    for (int i = 0; i < rn; i++)
        if (color != MPI_UNDEFINED && theirs[1 + 2 * i] == color)
            e[m++] = (struct split_ent){ color, theirs[2 + 2 * i], i };
    qsort(e, (size_t)m, sizeof *e, split_cmp);
    for (int i = 0; i < m; i++) theirs[i] = in->remote->world[e[i].rank];
    free(e);
    finish(c, local, theirs, m, ctx, newcomm);
out:
    free(mine), free(theirs);
    return failed(c, rc, R);
}

/* group: a subgroup of the local group (the same in every local member);
 * the other group gives its own. */
static int inter_create(struct smpi_comm *c, MPI_Group group, MPI_Comm *newcomm, const char *R)
{
    struct smpi_inter *in = c->inter;
    struct smpi_group *g = (uintptr_t)group == 1 ? &smpi_group_empty
                         : (uintptr_t)group >= 4096 && group->magic == SMPI_MAGIC_GRP ? group : NULL;
    if (!g) return smpi_error(c, MPI_ERR_GROUP, R, "invalid group %p", (void *)group);
    drain(c);
    for (int i = 0; i < g->size; i++) {
        bool found = false;
        for (int j = 0; j < c->group->size && !found; j++) found = c->group->world[j] == g->world[i];
        if (!found) return smpi_error(c, MPI_ERR_GROUP, R, "group member %d is not in the local group", i);
    }
    int *mine = malloc(sizeof(int) * (size_t)(g->size + 1)), *theirs = NULL, nt, rc;
    if (!mine) sm_fatal("MPI: out of memory");
    memcpy(mine + 1, g->world, sizeof(int) * (size_t)g->size);
    uint32_t ctx;
    MPI_Comm local = MPI_COMM_NULL;
    TRY(agree(in->local, 0, in->peer, 0, TAG_COLL, mine, g->size + 1, &ctx, &theirs, &nt));
    TRY(PMPI_Comm_create(in->local, group, &local));
    finish(c, local, theirs + 1, nt - 1, ctx, newcomm);
out:
    free(mine), free(theirs);
    return failed(c, rc, R);
}

/* MPI_Comm_compare with an intercommunicator: both groups compared. */
static int inter_compare(struct smpi_comm *a, struct smpi_comm *b)
{
    if (a == b) return MPI_IDENT;
    if (!a->inter || !b->inter) return MPI_UNEQUAL;
    int r[2];
    for (int k = 0; k < 2; k++) {
        MPI_Group x = k ? a->inter->remote : a->group, y = k ? b->inter->remote : b->group;
        PMPI_Group_compare(x, y, &r[k]);
    }
    int g = r[0] > r[1] ? r[0] : r[1];
    return g == MPI_IDENT ? MPI_CONGRUENT : g;
}

/* --- Collectives (MPI-3.1 §5.2.2) -----------------------------------------
 * The leader is local rank 0 of each group. Each collective is a schedule
 * (struct smpi_ico): steps of nonblocking calls on the hidden parts (the
 * local group's intracommunicator and the leaders' context), each step
 * begun when the one before has completed. The blocking form runs its
 * schedule to the end; the I- form's request runs it whenever it is tested
 * or waited for (with others too: MPI_Waitall, MPI_Testany...), and so
 * does any later collective on the intercommunicator. Its schedules run
 * one after another in the order they began, so every member begins the
 * hidden collectives in the same order whatever order it completes the
 * requests in. They move only then: a rank blocked in another call (a
 * receive, say) does not move them (docs/NOTES.md). */
#define LEAD(c) ((c)->pt.rank == 0)
#define L(c)    ((MPI_Comm)(c)->inter->local)
#define P(c)    ((MPI_Comm)(c)->inter->peer)

struct smpi_ico {
    struct smpi_ico *next;
    struct smpi_comm *c;
    struct smpi_request *q;             /* the I- form's request (NULL: blocking) */
    bool (*run)(struct smpi_ico *o);    /* resumes at pc; true once complete */
    const char *R;
    int pc, rc;                         /* rc: the first failure's class */
    bool done;                          /* out of the queue */
    int how;                            /* the variant (RED_*, GATHER, ALLGATHER) */
    int nr;
    MPI_Request r[2], *many;            /* the step's requests (many: nr of them) */
    /* arguments */
    const void *sbuf;
    void *rbuf;
    int count, scount, rcount, root;
    MPI_Datatype type, stype, rtype;    /* nonblocking: handles of its own ... */
    MPI_Datatype utype[3];              /* ... of these */
    MPI_Op op;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
    bool bytes;
    MPI_Comm *newcomm;                  /* idup */
    struct smpi_comm *made;
    /* state */
    void *b1, *b2, *t1, *t2;            /* scratch (b: to free) */
    int *counts, *dsp, total, ival[2];
    MPI_Datatype bt;                    /* made here (MPI_DATATYPE_NULL: none) */
    MPI_Comm local;
};

/* Both calls, in this order; the first failure. */
#define BOTH(a, b) __extension__({ int a_ = (a), b_ = (b); a_ ? a_ : b_; })

static MPI_Request *rq(struct smpi_ico *o)
{
    o->r[o->nr] = MPI_REQUEST_NULL;
    return &o->r[o->nr++];
}

/* Have the step's requests completed? Then they go, their first failure kept. */
static bool step_done(struct smpi_ico *o)
{
    MPI_Request *r = o->many ? o->many : o->r;
    for (int i = 0; i < o->nr; i++)
        if (r[i] != MPI_REQUEST_NULL && !smpi_req_done(r[i])) return false;
    for (int i = 0; i < o->nr; i++) {
        int e = r[i] != MPI_REQUEST_NULL ? PMPI_Wait(&r[i], MPI_STATUS_IGNORE) : MPI_SUCCESS;
        if (e && !o->rc) o->rc = e;
    }
    o->nr = 0;
    free(o->many);
    o->many = NULL;
    return true;
}

/* A step: begin it (post: its calls, their first error), then resume here
 * until it has completed; a failure ends the schedule. */
#define ICO_BEGIN(o) switch ((o)->pc) { case 0:
#define ICO_STEP(o, post) do { int e_ = (post); if (e_ && !(o)->rc) (o)->rc = e_;                        \
        (o)->pc = __LINE__; __attribute__((fallthrough)); case __LINE__:                                      \
        if (!step_done(o)) return false;                                                                     \
        if ((o)->rc) { (o)->pc = -1; return true; } } while (0)
#define ICO_END(o) (o)->pc = -1; __attribute__((fallthrough)); case -1: ; } return true

/* The I- form's own handle of a derived datatype: the program may free
 * its handle once the call returns, and later steps name the type. */
static MPI_Datatype hold(MPI_Datatype t)
{
    struct smpi_type *x = smpi_type(t);
    MPI_Datatype d = t;
    if (x && !x->id && PMPI_Type_dup(t, &d) == MPI_SUCCESS) PMPI_Type_commit(&d);
    return d;
}
static void unhold(MPI_Datatype *t, MPI_Datatype h)
{
    if (*t != h) PMPI_Type_free(t);
}

static void ico_free(struct smpi_ico *o)
{
    unhold(&o->type, o->utype[0]), unhold(&o->stype, o->utype[1]), unhold(&o->rtype, o->utype[2]);
    if (o->bt != MPI_DATATYPE_NULL) PMPI_Type_free(&o->bt);
    free(o->b1), free(o->b2), free(o->counts), free(o->dsp), free(o->many);
    if (o->made) {                  /* an idup that failed: no communicator */
        *o->newcomm = MPI_COMM_NULL;
        smpi_comm_unref(o->made);
        if (o->local != MPI_COMM_NULL) PMPI_Comm_free(&o->local);
    }
    free(o);
}

/* Run c's schedules in order as far as they go; those that complete leave
 * the queue and complete their requests (their errors as the engine's
 * statuses, the class in the reason). */
static void advance(struct smpi_comm *c)
{
    struct smpi_inter *in = c->inter;
    struct smpi_ico *o;
    while ((o = in->head) && o->run(o)) {
        in->head = o->next;
        if (!in->head) in->tail = NULL;
        o->done = true;
        if (!o->q) continue;                 /* blocking: its caller ends it */
        struct smpi_request *q = o->q;
        q->coll = NULL, q->poll = NULL;
        sm_status_t st = !o->rc ? SM_OK : o->rc == MPI_ERR_TRUNCATE ? SM_ERR_TRUNCATE
                       : o->rc == MPI_ERR_NO_MEM ? SM_ERR_NOMEM : o->rc == MPI_ERR_ARG ? SM_ERR_ARG : SM_ERR_PEER;
        char why[96];
        snprintf(why, sizeof why, "failed inside one group (error class %d)", o->rc);
        const char *R = o->R;
        ico_free(o);
        smpi_request_coll_done(q, st, R, why);
    }
}

static bool ico_poll(struct smpi_request *q)
{
    if (p2p_done(&q->p)) return true;
    advance(q->comm);
    return p2p_done(&q->p);
}

static bool blocking_done(void *arg)
{
    struct smpi_ico *o = arg;
    advance(o->c);
    return o->done;
}

/* A schedule for c (its arguments to be filled in), or NULL: no memory. */
static struct smpi_ico *ico_new(struct smpi_comm *c, bool (*run)(struct smpi_ico *), const char *R)
{
    struct smpi_ico *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->c = c, o->run = run, o->R = R;
    o->type = o->stype = o->rtype = o->bt = MPI_DATATYPE_NULL;
    return o;
}

/* Queue o behind c's schedules and run them; blocking (req NULL): until o
 * has completed, its result; else o's request in *req. */
static int ico_go(struct smpi_comm *c, struct smpi_ico *o, MPI_Request *req, const char *R)
{
    struct smpi_inter *in = c->inter;
    if (!o) return smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for a collective");
    o->utype[0] = o->type, o->utype[1] = o->stype, o->utype[2] = o->rtype;
    if (req) o->type = hold(o->type), o->stype = hold(o->stype), o->rtype = hold(o->rtype);
    if (req && !(o->q = smpi_request_coll(c))) {
        ico_free(o);
        return smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for a request");
    }
    if (in->tail) in->tail->next = o; else in->head = o;
    in->tail = o;
    if (req) {
        o->q->coll = o, o->q->poll = ico_poll;
        *req = o->q;
        advance(c);
        return MPI_SUCCESS;
    }
    advance(c);
    if (!o->done) p2p_wait_until(blocking_done, o);
    int rc = o->rc;
    ico_free(o);
    return failed(c, rc, R);
}

/* Complete every schedule of c (before a blocking call that uses its hidden parts otherwise). */
static bool drained(void *arg)
{
    struct smpi_comm *c = arg;
    advance(c);
    return !c->inter->head;
}
static void drain(struct smpi_comm *c)
{
    if (c->inter->head) p2p_wait_until(drained, c);
}

static int check_root(struct smpi_comm *c, int root, const char *R)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->pt.size)) return MPI_SUCCESS;
    return smpi_error(c, MPI_ERR_ROOT, R, "root %d is not MPI_ROOT, MPI_PROC_NULL or in [0, %d) of the remote group",
                      root, c->pt.size);
}
static int check_send(struct smpi_comm *c, const void *sbuf, const char *R)
{
    return sbuf == MPI_IN_PLACE
        ? smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is not allowed on an intercommunicator") : MPI_SUCCESS;
}

static bool run_barrier(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    ICO_STEP(o, PMPI_Ibarrier(L(c), rq(o)));
    if (LEAD(c))
        ICO_STEP(o, BOTH(PMPI_Irecv(NULL, 0, MPI_BYTE, 0, TAG_COLL, P(c), rq(o)),
                         PMPI_Isend(NULL, 0, MPI_BYTE, 0, TAG_COLL, P(c), rq(o))));
    ICO_STEP(o, PMPI_Ibarrier(L(c), rq(o)));
    ICO_END(o);
}
static int inter_barrier(struct smpi_comm *c, MPI_Request *req, const char *R)
{
    return ico_go(c, ico_new(c, run_barrier, R), req, R);
}

static bool run_bcast(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    if (o->root == MPI_PROC_NULL) return true;
    if (o->root == MPI_ROOT) {
        ICO_STEP(o, PMPI_Isend(o->rbuf, o->count, o->type, 0, TAG_COLL, P(c), rq(o)));
        return true;
    }
    if (LEAD(c)) ICO_STEP(o, PMPI_Irecv(o->rbuf, o->count, o->type, o->root, TAG_COLL, P(c), rq(o)));
    ICO_STEP(o, PMPI_Ibcast(o->rbuf, o->count, o->type, 0, L(c), rq(o)));
    ICO_END(o);
}
static int inter_bcast(struct smpi_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Request *req,
                       const char *R)
{
    int rc = check_root(c, root, R);
    if (rc) return rc;
    struct smpi_ico *o = ico_new(c, run_bcast, R);
    if (o) o->rbuf = buf, o->count = count, o->type = type, o->root = root;
    return ico_go(c, o, req, R);
}

/* The local group's reduction at its leader (o->t1); reduce: sent to the
 * root; allreduce: swapped and broadcast; reduce_scatter: swapped and
 * scattered (counts, dsp). */
enum { RED_ROOTED, RED_ALL, RED_SCATTER, GATHER, ALLGATHER };
static bool run_reduce(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    if (o->root == MPI_PROC_NULL) return true;
    if (o->root == MPI_ROOT) {
        ICO_STEP(o, PMPI_Irecv(o->rbuf, o->count, o->type, 0, TAG_COLL, P(c), rq(o)));
        return true;
    }
    ICO_STEP(o, PMPI_Ireduce(o->sbuf, o->t1, o->count, o->type, o->op, 0, L(c), rq(o)));
    if (o->how == RED_ROOTED) {
        if (LEAD(c)) ICO_STEP(o, PMPI_Isend(o->t1, o->count, o->type, o->root, TAG_COLL, P(c), rq(o)));
        return true;
    }
    if (LEAD(c))
        ICO_STEP(o, BOTH(PMPI_Irecv(o->how == RED_ALL ? o->rbuf : o->t2, o->count, o->type, 0, TAG_COLL, P(c), rq(o)),
                         PMPI_Isend(o->t1, o->count, o->type, 0, TAG_COLL, P(c), rq(o))));
    if (o->how == RED_ALL) ICO_STEP(o, PMPI_Ibcast(o->rbuf, o->count, o->type, 0, L(c), rq(o)));
    else ICO_STEP(o, PMPI_Iscatterv(o->t2, o->counts, o->dsp, o->type, o->rbuf, o->counts[c->pt.rank], o->type, 0,
                                    L(c), rq(o)));
    ICO_END(o);
}

static struct smpi_ico *red_new(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                                MPI_Op op, int root, int how, const char *R)
{
    struct smpi_ico *o = ico_new(c, run_reduce, R);
    if (!o) return NULL;
    o->sbuf = sbuf, o->rbuf = rbuf, o->count = count, o->type = type, o->op = op, o->root = root, o->how = how;
    if (LEAD(c) && root != MPI_ROOT && root != MPI_PROC_NULL) {
        o->t1 = tmp_for(count, type, &o->b1);
        if (how == RED_SCATTER) o->t2 = tmp_for(count, type, &o->b2);
    }
    return o;
}

static int inter_reduce(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        int root, MPI_Request *req, const char *R)
{
    int rc = check_root(c, root, R);
    if (!rc && root != MPI_ROOT && root != MPI_PROC_NULL) rc = check_send(c, sbuf, R);
    return rc ? rc : ico_go(c, red_new(c, sbuf, rbuf, count, type, op, root, RED_ROOTED, R), req, R);
}

static int inter_allreduce(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Request *req, const char *R)
{
    int rc = check_send(c, sbuf, R);
    return rc ? rc : ico_go(c, red_new(c, sbuf, rbuf, count, type, op, 0, RED_ALL, R), req, R);
}

/* Block displacements of counts, in elements; the total in *sum. */
static int *prefix(const int *counts, int n, int *sum)
{
    int *d = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!d) sm_fatal("MPI: out of memory");
    *sum = 0;
    for (int i = 0; i < n; i++) d[i] = *sum, *sum += counts[i];
    return d;
}

/* rcounts NULL: MPI_Reduce_scatter_block with rcount each. The other
 * group's reduced vector is scattered over this one. */
static int inter_reduce_scatter(struct smpi_comm *c, const void *sbuf, void *rbuf, const int rcounts[], int rcount,
                                MPI_Datatype type, MPI_Op op, MPI_Request *req, const char *R)
{
    int rc = check_send(c, sbuf, R), n = c->group->size, count;
    if (rc) return rc;
    int *counts = malloc(sizeof(int) * (size_t)n);
    if (!counts) sm_fatal("MPI: out of memory");
    for (int i = 0; i < n; i++) counts[i] = rcounts ? rcounts[i] : rcount;
    int *displs = prefix(counts, n, &count);
    struct smpi_ico *o = red_new(c, sbuf, rbuf, count, type, op, 0, RED_SCATTER, R);
    if (o) o->counts = counts, o->dsp = displs;
    else free(counts), free(displs);
    return ico_go(c, o, req, R);
}

/* The remote group's blocks at (rbuf, rcounts/displs or rcount each, rtype)
 * as one datatype (to free). */
static MPI_Datatype blocks(struct smpi_comm *c, const int rcounts[], const int displs[], int rcount,
                           MPI_Datatype rtype)
{
    int n = c->pt.size, *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    if (!cnt || !dsp) sm_fatal("MPI: out of memory");
    for (int i = 0; i < n; i++) cnt[i] = rcounts ? rcounts[i] : rcount, dsp[i] = displs ? displs[i] : i * rcount;
    MPI_Datatype t;
    PMPI_Type_indexed(n, cnt, dsp, rtype, &t);
    PMPI_Type_commit(&t);
    free(cnt), free(dsp);
    return t;
}

/* Gather, allgather: the group's contributions (scount of stype each) at
 * its leader, packed one after another in t1 (total elements of stype):
 * the counts first, then the data; then gather sends them to the root,
 * allgather swaps them for the other group's blocks (bt) and broadcasts
 * those. The root's side of a gather receives them as bt. */
static bool run_gather(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    if (o->root == MPI_PROC_NULL) return true;
    if (o->root == MPI_ROOT) {
        ICO_STEP(o, PMPI_Irecv(o->rbuf, 1, o->bt, 0, TAG_COLL, P(c), rq(o)));
        return true;
    }
    ICO_STEP(o, PMPI_Igather(&o->scount, 1, MPI_INT, o->counts, 1, MPI_INT, 0, L(c), rq(o)));
    if (LEAD(c)) {
        o->dsp = prefix(o->counts, c->group->size, &o->total);
        o->t1 = tmp_for(o->total, o->stype, &o->b1);
    }
    ICO_STEP(o, PMPI_Igatherv(o->sbuf, o->scount, o->stype, o->t1, o->counts, o->dsp, o->stype, 0, L(c), rq(o)));
    if (o->how == GATHER) {
        if (LEAD(c)) ICO_STEP(o, PMPI_Isend(o->t1, o->total, o->stype, o->root, TAG_COLL, P(c), rq(o)));
        return true;
    }
    if (LEAD(c))
        ICO_STEP(o, BOTH(PMPI_Irecv(o->rbuf, 1, o->bt, 0, TAG_COLL, P(c), rq(o)),
                         PMPI_Isend(o->t1, o->total, o->stype, 0, TAG_COLL, P(c), rq(o))));
    ICO_STEP(o, PMPI_Ibcast(o->rbuf, 1, o->bt, 0, L(c), rq(o)));
    ICO_END(o);
}

static struct smpi_ico *gather_new(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                   const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, int root,
                                   int how, const char *R)
{
    struct smpi_ico *o = ico_new(c, run_gather, R);
    if (!o) return NULL;
    o->sbuf = sbuf, o->scount = scount, o->stype = stype, o->rbuf = rbuf, o->root = root, o->how = how;
    if (root == MPI_ROOT || how == ALLGATHER) o->bt = blocks(c, rcounts, displs, rcount, rtype);
    if (LEAD(c) && !(o->counts = malloc(sizeof(int) * (size_t)c->group->size))) sm_fatal("MPI: out of memory");
    return o;
}

static int inter_gather(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, int root,
                        MPI_Request *req, const char *R)
{
    int rc = check_root(c, root, R);
    if (!rc && root != MPI_ROOT && root != MPI_PROC_NULL) rc = check_send(c, sbuf, R);
    if (rc) return rc;
    return ico_go(c, gather_new(c, sbuf, scount, stype, rbuf, rcounts, displs, rcount, rtype, root, GATHER, R), req, R);
}

static int inter_allgather(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, MPI_Request *req,
                           const char *R)
{
    int rc = check_send(c, sbuf, R);
    if (rc) return rc;
    return ico_go(c, gather_new(c, sbuf, scount, stype, rbuf, rcounts, displs, rcount, rtype, 0, ALLGATHER, R), req, R);
}

/* The root sends its blocks as one (bt); the leader gathers its group's
 * counts, receives the blocks packed and scatters them. */
static bool run_scatter(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    if (o->root == MPI_PROC_NULL) return true;
    if (o->root == MPI_ROOT) {
        ICO_STEP(o, PMPI_Isend(o->sbuf, 1, o->bt, 0, TAG_COLL, P(c), rq(o)));
        return true;
    }
    ICO_STEP(o, PMPI_Igather(&o->rcount, 1, MPI_INT, o->counts, 1, MPI_INT, 0, L(c), rq(o)));
    if (LEAD(c)) {
        o->dsp = prefix(o->counts, c->group->size, &o->total);
        o->t1 = tmp_for(o->total, o->rtype, &o->b1);
        ICO_STEP(o, PMPI_Irecv(o->t1, o->total, o->rtype, o->root, TAG_COLL, P(c), rq(o)));
    }
    ICO_STEP(o, PMPI_Iscatterv(o->t1, o->counts, o->dsp, o->rtype, o->rbuf, o->rcount, o->rtype, 0, L(c), rq(o)));
    ICO_END(o);
}

static int inter_scatter(struct smpi_comm *c, const void *sbuf, const int scounts[], const int displs[], int scount,
                         MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Request *req,
                         const char *R)
{
    int rc = check_root(c, root, R);
    if (rc) return rc;
    struct smpi_ico *o = ico_new(c, run_scatter, R);
    if (o) {
        o->sbuf = sbuf, o->rbuf = rbuf, o->rcount = rcount, o->rtype = rtype, o->root = root;
        if (root == MPI_ROOT) o->bt = blocks(c, scounts, displs, scount, stype);
        if (LEAD(c) && !(o->counts = malloc(sizeof(int) * (size_t)c->group->size))) sm_fatal("MPI: out of memory");
    }
    return ico_go(c, o, req, R);
}

/* Pairwise with every member of the remote group: block i of the send
 * buffer goes to remote rank i, block i of the receive buffer comes from
 * it. Displacements in bytes (bytes) or in extents of each block's type.
 * Every message is posted in the first step (the types are needed no longer). */
static bool run_alltoallw(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    int n = c->pt.size, e = MPI_SUCCESS;
    ICO_BEGIN(o);
    if (!(o->many = malloc(sizeof *o->many * (size_t)(2 * n + 1)))) sm_fatal("MPI: out of memory");
    for (int i = 0; i < 2 * n; i++) o->many[i] = MPI_REQUEST_NULL;
    o->nr = 2 * n;
    for (int i = 0; i < n && !e; i++) {
        MPI_Aint lb, se = 1, re = 1;
        if (!o->bytes) PMPI_Type_get_extent(o->stypes[i], &lb, &se), PMPI_Type_get_extent(o->rtypes[i], &lb, &re);
        e = BOTH(PMPI_Irecv((char *)o->rbuf + o->rdispls[i] * re, o->rcounts[i], o->rtypes[i], i, TAG_COLL, P(c),
                            &o->many[2 * i]),
                 PMPI_Isend((const char *)o->sbuf + o->sdispls[i] * se, o->scounts[i], o->stypes[i], i, TAG_COLL, P(c),
                            &o->many[2 * i + 1]));
    }
    ICO_STEP(o, e);
    ICO_END(o);
}

static int inter_alltoallw(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[],
                           const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
                           const MPI_Datatype rtypes[], bool bytes, MPI_Request *req, const char *R)
{
    int rc = check_send(c, sbuf, R);
    if (rc) return rc;
    struct smpi_ico *o = ico_new(c, run_alltoallw, R);
    if (o) {
        o->sbuf = sbuf, o->scounts = scounts, o->sdispls = sdispls, o->stypes = stypes;
        o->rbuf = rbuf, o->rcounts = rcounts, o->rdispls = rdispls, o->rtypes = rtypes, o->bytes = bytes;
    }
    /* Its messages are posted as it begins, while the caller's arrays and
     * types are its own: the schedules before it complete first. */
    drain(c);
    return ico_go(c, o, req, R);
}

/* MPI_Alltoall (counts NULL: scount/rcount each, blocks one after another)
 * and MPI_Alltoallv as the general form. */
static int inter_alltoall(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[], int scount,
                          MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], int rcount,
                          MPI_Datatype rtype, MPI_Request *req, const char *R)
{
    int n = c->pt.size, *a = malloc(sizeof(int) * 4 * (size_t)(n ? n : 1));
    MPI_Datatype *t = malloc(sizeof *t * 2 * (size_t)(n ? n : 1));
    if (!a || !t) sm_fatal("MPI: out of memory");
    for (int i = 0; i < n; i++) {
        a[i] = scounts ? scounts[i] : scount, a[n + i] = sdispls ? sdispls[i] : i * scount;
        a[2 * n + i] = rcounts ? rcounts[i] : rcount, a[3 * n + i] = rdispls ? rdispls[i] : i * rcount;
        t[i] = stype, t[n + i] = rtype;
    }
    int rc = inter_alltoallw(c, sbuf, a, a + n, t, rbuf, a + 2 * n, a + 3 * n, t + n, false, req, R);
    free(a), free(t);
    return rc;
}

/* MPI_Comm_dup and MPI_Comm_idup: a context agreed as agree() does (each
 * group's greatest proposal, swapped by the leaders; a proposal is taken
 * at once, so that creations begun meanwhile propose past it) and the
 * local group's intracommunicator duplicated, both nonblocking. The new
 * intercommunicator exists from the call (bindings ask what it is at once),
 * over the old one's local part and with no context until then. */
static bool run_idup(struct smpi_ico *o)
{
    struct smpi_comm *c = o->c;
    ICO_BEGIN(o);
    o->ival[0] = (int)next_ctx;
    next_ctx += 2;
    ICO_STEP(o, BOTH(PMPI_Iallreduce(&o->ival[0], &o->ival[1], 1, MPI_UNSIGNED, MPI_MAX, L(c), rq(o)),
                     PMPI_Comm_idup(L(c), &o->local, rq(o))));
    if (LEAD(c))
        ICO_STEP(o, BOTH(PMPI_Irecv(&o->total, 1, MPI_UNSIGNED, 0, TAG_COLL, P(c), rq(o)),
                         PMPI_Isend(&o->ival[1], 1, MPI_UNSIGNED, 0, TAG_COLL, P(c), rq(o))));
    ICO_STEP(o, PMPI_Ibcast(&o->total, 1, MPI_UNSIGNED, 0, L(c), rq(o)));
    uint32_t ctx = (uint32_t)o->ival[1] > (uint32_t)o->total ? (uint32_t)o->ival[1] : (uint32_t)o->total;
    if (ctx + 2 > next_ctx) next_ctx = ctx + 2;
    struct smpi_comm *n = o->made, *was = n->inter->local;
    PMPI_Comm_set_errhandler(o->local, MPI_ERRORS_RETURN);
    n->inter->local = smpi_comm(o->local);
    set_ctx(n, ctx);
    smpi_comm_unref(was);
    o->made = NULL;
    ICO_END(o);
}

static int inter_dup(struct smpi_comm *c, MPI_Comm *newcomm, MPI_Request *req, const char *R)
{
    if (!req) {
        drain(c);
        return inter_dup_blocking(c, newcomm, R);
    }
    struct smpi_ico *o = ico_new(c, run_idup, R);
    if (o) {
        smpi_comm_ref(c->inter->local);
        o->made = build(c->inter->local, c->inter->remote->world, c->inter->remote->size, SMPI_CTX_NONE, c->errh);
        *newcomm = o->made, o->newcomm = newcomm, o->local = MPI_COMM_NULL;
    }
    return ico_go(c, o, req, R);
}

static const struct smpi_inter_ops ops = {
    .dup = inter_dup,
    .split = inter_split,
    .create = inter_create,
    .compare = inter_compare,
    .barrier = inter_barrier,
    .bcast = inter_bcast,
    .reduce = inter_reduce,
    .allreduce = inter_allreduce,
    .reduce_scatter = inter_reduce_scatter,
    .gather = inter_gather,
    .scatter = inter_scatter,
    .allgather = inter_allgather,
    .alltoallw = inter_alltoallw,
    .alltoall = inter_alltoall,
};
