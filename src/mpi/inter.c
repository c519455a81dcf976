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
 * each: point-to-point and the internal messages). */
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
    next_ctx = *ctx + 2;
    return MPI_SUCCESS;
}

static const struct smpi_inter_ops ops;

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
    c->co.ctx = ctx + 1;
    c->cg.num = -1;
    smpi_comm_setup(p, l->group, ctx + 1, "");
    p->pt = c->co;
    p->cg.num = -1;
    p->errh = MPI_ERRORS_RETURN;
    *in = (struct smpi_inter){ r, l, p, &ops };
    c->inter = in;
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

static int inter_dup(struct smpi_comm *c, MPI_Comm *newcomm, const char *R)
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
 * The leader is local rank 0 of each group. */
#define LEAD(c) ((c)->pt.rank == 0)
#define L(c)    ((MPI_Comm)(c)->inter->local)
#define P(c)    ((MPI_Comm)(c)->inter->peer)

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

static int inter_barrier(struct smpi_comm *c, const char *R)
{
    int rc;
    TRY(PMPI_Barrier(L(c)));
    if (LEAD(c))
        TRY(PMPI_Sendrecv(NULL, 0, MPI_BYTE, 0, TAG_COLL, NULL, 0, MPI_BYTE, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE));
    TRY(PMPI_Barrier(L(c)));
out:
    return failed(c, rc, R);
}

static int inter_bcast(struct smpi_comm *c, void *buf, int count, MPI_Datatype type, int root, const char *R)
{
    int rc = check_root(c, root, R);
    if (rc || root == MPI_PROC_NULL) return rc;
    if (root == MPI_ROOT) TRY(PMPI_Send(buf, count, type, 0, TAG_COLL, P(c)));
    else {
        if (LEAD(c)) TRY(PMPI_Recv(buf, count, type, root, TAG_COLL, P(c), MPI_STATUS_IGNORE));
        TRY(PMPI_Bcast(buf, count, type, 0, L(c)));
    }
out:
    return failed(c, rc, R);
}

static int inter_reduce(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                      int root, const char *R)
{
    int rc = check_root(c, root, R);
    if (rc || root == MPI_PROC_NULL) return rc;
    if (root == MPI_ROOT) return failed(c, PMPI_Recv(rbuf, count, type, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE), R);
    if ((rc = check_send(c, sbuf, R))) return rc;
    void *base = NULL, *t = LEAD(c) ? tmp_for(count, type, &base) : NULL;
    TRY(PMPI_Reduce(sbuf, t, count, type, op, 0, L(c)));
    if (LEAD(c)) TRY(PMPI_Send(t, count, type, root, TAG_COLL, P(c)));
out:
    free(base);
    return failed(c, rc, R);
}

static int inter_allreduce(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                         MPI_Op op, const char *R)
{
    int rc = check_send(c, sbuf, R);
    if (rc) return rc;
    void *base = NULL, *t = LEAD(c) ? tmp_for(count, type, &base) : NULL;
    TRY(PMPI_Reduce(sbuf, t, count, type, op, 0, L(c)));
    if (LEAD(c))
        TRY(PMPI_Sendrecv(t, count, type, 0, TAG_COLL, rbuf, count, type, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE));
    TRY(PMPI_Bcast(rbuf, count, type, 0, L(c)));
out:
    free(base);
    return failed(c, rc, R);
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
                              MPI_Datatype type, MPI_Op op, const char *R)
{
    int rc = check_send(c, sbuf, R), n = c->group->size, count;
    if (rc) return rc;
    int *counts = malloc(sizeof(int) * (size_t)n);
    if (!counts) sm_fatal("MPI: out of memory");
    for (int i = 0; i < n; i++) counts[i] = rcounts ? rcounts[i] : rcount;
    int *displs = prefix(counts, n, &count);
    void *b1 = NULL, *b2 = NULL, *t1 = LEAD(c) ? tmp_for(count, type, &b1) : NULL;
    void *t2 = LEAD(c) ? tmp_for(count, type, &b2) : NULL;
    TRY(PMPI_Reduce(sbuf, t1, count, type, op, 0, L(c)));
    if (LEAD(c))
        TRY(PMPI_Sendrecv(t1, count, type, 0, TAG_COLL, t2, count, type, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE));
    TRY(PMPI_Scatterv(t2, counts, displs, type, rbuf, counts[c->pt.rank], type, 0, L(c)));
out:
    free(b1), free(b2), free(counts), free(displs);
    return failed(c, rc, R);
}

/* The group's contributions (scount of stype each) at its leader, packed
 * one after another in *t (*base to free); *total elements of stype. */
static int gather_local(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void **t,
                        void **base, int *total)
{
    int n = c->group->size, *counts = LEAD(c) ? malloc(sizeof(int) * (size_t)n) : NULL, *displs = NULL, rc;
    if (LEAD(c) && !counts) sm_fatal("MPI: out of memory");
    *t = *base = NULL;
    *total = 0;
    if ((rc = PMPI_Gather(&scount, 1, MPI_INT, counts, 1, MPI_INT, 0, L(c)))) goto out;
    if (LEAD(c)) {
        displs = prefix(counts, n, total);
        *t = tmp_for(*total, stype, base);
    }
    rc = PMPI_Gatherv(sbuf, scount, stype, *t, counts, displs, stype, 0, L(c));
out:
    free(counts), free(displs);
    return rc;
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

static int inter_gather(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, int root,
                      const char *R)
{
    int rc = check_root(c, root, R), total;
    if (rc || root == MPI_PROC_NULL) return rc;
    if (root == MPI_ROOT) {
        MPI_Datatype t = blocks(c, rcounts, displs, rcount, rtype);
        rc = PMPI_Recv(rbuf, 1, t, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE);
        PMPI_Type_free(&t);
        return failed(c, rc, R);
    }
    if ((rc = check_send(c, sbuf, R))) return rc;
    void *t, *base;
    TRY(gather_local(c, sbuf, scount, stype, &t, &base, &total));
    if (LEAD(c)) TRY(PMPI_Send(t, total, stype, root, TAG_COLL, P(c)));
out:
    free(base);
    return failed(c, rc, R);
}

static int inter_scatter(struct smpi_comm *c, const void *sbuf, const int scounts[], const int displs[], int scount,
                       MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, const char *R)
{
    int rc = check_root(c, root, R), n = c->group->size, total = 0;
    if (rc || root == MPI_PROC_NULL) return rc;
    if (root == MPI_ROOT) {
        MPI_Datatype t = blocks(c, scounts, displs, scount, stype);
        rc = PMPI_Send(sbuf, 1, t, 0, TAG_COLL, P(c));
        PMPI_Type_free(&t);
        return failed(c, rc, R);
    }
    int *counts = LEAD(c) ? malloc(sizeof(int) * (size_t)n) : NULL, *dsp = NULL;
    void *base = NULL, *t = NULL;
    if (LEAD(c) && !counts) sm_fatal("MPI: out of memory");
    TRY(PMPI_Gather(&rcount, 1, MPI_INT, counts, 1, MPI_INT, 0, L(c)));
    if (LEAD(c)) {
        dsp = prefix(counts, n, &total);
        t = tmp_for(total, rtype, &base);
        TRY(PMPI_Recv(t, total, rtype, root, TAG_COLL, P(c), MPI_STATUS_IGNORE));
    }
    TRY(PMPI_Scatterv(t, counts, dsp, rtype, rbuf, rcount, rtype, 0, L(c)));
out:
    free(base), free(counts), free(dsp);
    return failed(c, rc, R);
}

static int inter_allgather(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, const char *R)
{
    int rc = check_send(c, sbuf, R), total;
    if (rc) return rc;
    void *t, *base = NULL;
    MPI_Datatype bt = blocks(c, rcounts, displs, rcount, rtype);
    TRY(gather_local(c, sbuf, scount, stype, &t, &base, &total));
    if (LEAD(c))
        TRY(PMPI_Sendrecv(t, total, stype, 0, TAG_COLL, rbuf, 1, bt, 0, TAG_COLL, P(c), MPI_STATUS_IGNORE));
    TRY(PMPI_Bcast(rbuf, 1, bt, 0, L(c)));
out:
    PMPI_Type_free(&bt);
    free(base);
    return failed(c, rc, R);
}

/* Pairwise with every member of the remote group: block i of the send
 * buffer goes to remote rank i, block i of the receive buffer comes from
 * it. Displacements in bytes (bytes) or in extents of each block's type. */
static int inter_alltoallw(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[],
                         const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
                         const MPI_Datatype rtypes[], bool bytes, const char *R)
{
    int rc = check_send(c, sbuf, R), n = c->pt.size;
    if (rc) return rc;
    MPI_Request *q = malloc(sizeof *q * (size_t)(2 * n + 1));
    if (!q) sm_fatal("MPI: out of memory");
    for (int i = 0; i < 2 * n; i++) q[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) {
        MPI_Aint lb, se = 1, re = 1;
        if (!bytes) PMPI_Type_get_extent(stypes[i], &lb, &se), PMPI_Type_get_extent(rtypes[i], &lb, &re);
        TRY(PMPI_Irecv((char *)rbuf + rdispls[i] * re, rcounts[i], rtypes[i], i, TAG_COLL, P(c), &q[2 * i]));
        TRY(PMPI_Isend((const char *)sbuf + sdispls[i] * se, scounts[i], stypes[i], i, TAG_COLL, P(c),
                       &q[2 * i + 1]));
    }
out:;
    int wrc = PMPI_Waitall(2 * n, q, MPI_STATUSES_IGNORE);
    free(q);
    return failed(c, rc ? rc : wrc, R);
}

/* MPI_Alltoall (counts NULL: scount/rcount each, blocks one after another)
 * and MPI_Alltoallv as the general form. */
static int inter_alltoall(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[], int scount,
                        MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], int rcount,
                        MPI_Datatype rtype, const char *R)
{
    int n = c->pt.size, *a = malloc(sizeof(int) * 4 * (size_t)(n ? n : 1));
    MPI_Datatype *t = malloc(sizeof *t * 2 * (size_t)(n ? n : 1));
    if (!a || !t) sm_fatal("MPI: out of memory");
    for (int i = 0; i < n; i++) {
        a[i] = scounts ? scounts[i] : scount, a[n + i] = sdispls ? sdispls[i] : i * scount;
        a[2 * n + i] = rcounts ? rcounts[i] : rcount, a[3 * n + i] = rdispls ? rdispls[i] : i * rcount;
        t[i] = stype, t[n + i] = rtype;
    }
    int rc = inter_alltoallw(c, sbuf, a, a + n, t, rbuf, a + 2 * n, a + 3 * n, t + n, false, R);
    free(a), free(t);
    return rc;
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
