/* Communicators and groups: dup/split/create/free, context ids, names,
 * attributes; group construction and queries (the objects' lifetimes and
 * the predefined ones are objects.c's). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

/* A group of size members to fill in (out of memory ends the job, as for
 * the communicators made from it). */
static struct smpi_group *group_new(int size)
{
    struct smpi_group *g = smpi_group_new(size);
    if (!g) sm_fatal("MPI: out of memory for a group of %d", size);
    return g;
}

static struct smpi_group *group_of(MPI_Group h)
{
    uintptr_t v = (uintptr_t)h;
    if (v == 1) return &smpi_group_empty;
    if (!smpi_object(h, sizeof *h) || h->magic != SMPI_MAGIC_GRP) return NULL;
    return h;
}

/* A new communicator over group g (owned by it; NULL: the caller is not a
 * member, *out is MPI_COMM_NULL). Collective over the parent, members or
 * not, or, with over, over that point-to-point context: the collective
 * engine's group is made here, and its number gives the context ids. */
static int comm_new(struct smpi_group *g, struct smpi_comm *parent, const struct p2p_comm *over, MPI_Comm *out,
                    const char *R)
{
    struct coll_group cg;
    struct sm_group m = smpi_group_members(g);
    sm_status_t st = over ? coll_group_create_p2p(&cg, &m, over) : coll_group_create(&cg, &m, &parent->cg);
    *out = MPI_COMM_NULL;
    if (st) {
        if (g) smpi_group_unref(g);
        return smpi_error(parent, smpi_class_of(st), R, "%s", sm_fail_reason());
    }
    if (!g) return MPI_SUCCESS;
    struct smpi_comm *c = calloc(1, sizeof *c);
    if (!c) sm_fatal("MPI: out of memory for a communicator");
    smpi_comm_setup(c, g, smpi_ctx_of(&cg), "");
    c->cg = cg;
    c->errh = parent->errh;              /* inherited, as MPI says */
    smpi_errh_ref(c->errh);
    *out = c;
    return MPI_SUCCESS;
}

/* --- Attributes ---------------------------------------------------------------
 * User keyvals from KEY0 up; the predefined ones (MPI_TAG_UB...) are below. */
#define KEY0 2000
struct keyval { bool used; MPI_Comm_copy_attr_function *copy; MPI_Comm_delete_attr_function *del; void *extra; };
static struct smpi_keytab keys = { .esize = sizeof(struct keyval) };


int smpi_comm_dup_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static struct keyval *key_of(int k)
{
    struct keyval *kv = smpi_keytab_get(&keys, k - KEY0);
    return kv && kv->used ? kv : NULL;
}

static struct smpi_attr **attr_find(struct smpi_comm *c, int k)
{
    struct smpi_attr **a = &c->attrs;
    while (*a && (*a)->key != k) a = &(*a)->next;
    return a;
}

/* Remove attribute k of c, calling its delete callback. */
static int attr_delete(struct smpi_comm *c, int k, const char *R)
{
    struct smpi_attr **pa = attr_find(c, k), *a = *pa;
    if (!a) return smpi_error(c, MPI_ERR_KEYVAL, R, "keyval %d is not set on this communicator", k);
    struct keyval *kv = key_of(k);
    if (kv && kv->del) {
        int rc = kv->del(smpi_comm_handle(c), k, a->val, kv->extra);
        if (rc) return smpi_error(c, rc, R, "the delete callback of keyval %d failed", k);
    }
    *pa = a->next;
    free(a);
    return MPI_SUCCESS;
}

static void attr_set(struct smpi_comm *c, int k, void *val)
{
    struct smpi_attr **pa = attr_find(c, k);
    if (!*pa) {
        if (!(*pa = calloc(1, sizeof **pa))) sm_fatal("MPI: out of memory for an attribute");
        (*pa)->key = k;
    }
    (*pa)->val = val;
}

/* MPI_Comm_dup copies the attributes whose copy callback says so. */
static int attrs_copy(struct smpi_comm *from, struct smpi_comm *to, const char *R)
{
    smpi_attrs_lock();
    for (struct smpi_attr *a = from->attrs; a; a = a->next) {
        struct keyval *kv = key_of(a->key);
        if (!kv || !kv->copy) continue;
        void *val = NULL;
        int flag = 0, rc = kv->copy(smpi_comm_handle(from), a->key, kv->extra, a->val, &val, &flag);
        if (rc) return smpi_attrs_unlock(smpi_error(from, rc, R, "the copy callback of keyval %d failed", a->key));
        if (flag) attr_set(to, a->key, val);
    }
    return smpi_attrs_unlock(MPI_SUCCESS);
}

static int create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                         int *keyval, void *extra_state, const char *R)
{
    SMPI_CHECK_INIT(R);
    if (!keyval) return smpi_error(NULL, MPI_ERR_ARG, R, "keyval is NULL");
    struct keyval kv = { true, copy_fn, delete_fn, extra_state };
    int i = smpi_keytab_add(&keys, &kv);
    if (i < 0) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no room for another keyval (%d at most)", keys.n);
    *keyval = KEY0 + i;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                            int *keyval, void *extra_state)
{
    return create_keyval(copy_fn, delete_fn, keyval, extra_state, "MPI_Comm_create_keyval");
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

static int free_keyval(int *keyval, const char *R)
{
    SMPI_CHECK_INIT(R);
    if (!keyval || !key_of(*keyval))
        return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval ? *keyval : 0);
    /* attributes already set keep their callbacks until deleted: the slot is not reused */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *keyval)
{
    return free_keyval(keyval, "MPI_Comm_free_keyval");
}
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

/* MPI_Finalize's first step (MPI-3.1 §8.7.1): free MPI_COMM_SELF's
 * attributes, the last set first, so that libraries' delete callbacks run
 * while MPI still works. */
int smpi_comm_self_attrs_free(void)
{
    smpi_attrs_lock();
    while (smpi_comm_self.attrs) {
        struct smpi_attr *last = smpi_comm_self.attrs;
        while (last->next) last = last->next;
        int rc = attr_delete(&smpi_comm_self, last->key, "MPI_Finalize");
        if (rc) return smpi_attrs_unlock(rc);
    }
    return smpi_attrs_unlock(MPI_SUCCESS);
}

/* Delete every attribute of c (MPI_Comm_free). */
static int attrs_free(struct smpi_comm *c, const char *R)
{
    smpi_attrs_lock();
    while (c->attrs) {
        int rc = attr_delete(c, c->attrs->key, R);
        if (rc) return smpi_attrs_unlock(rc);
    }
    return smpi_attrs_unlock(MPI_SUCCESS);
}

static int set_attr(MPI_Comm comm, int keyval, void *attribute_val, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!key_of(keyval)) return smpi_error(c, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval);
    smpi_attrs_lock();
    if (*attr_find(c, keyval)) {
        int rc = attr_delete(c, keyval, R);
        if (rc) return smpi_attrs_unlock(rc);
    }
    attr_set(c, keyval, attribute_val);
    return smpi_attrs_unlock(MPI_SUCCESS);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr(comm, keyval, attribute_val, "MPI_Comm_set_attr");
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

static int delete_attr(MPI_Comm comm, int keyval, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!key_of(keyval)) return smpi_error(c, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval);
    smpi_attrs_lock();
    return smpi_attrs_unlock(attr_delete(c, keyval, R));
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    return delete_attr(comm, keyval, "MPI_Comm_delete_attr");
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    SMPI_CHECK_INIT("MPI_Comm_size");
    SMPI_GET_COMM(c, comm, "MPI_Comm_size");
    if (!size) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->group->size;             /* an intercommunicator's local group */
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_size = PMPI_Comm_size

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    SMPI_CHECK_INIT("MPI_Comm_rank");
    SMPI_GET_COMM(c, comm, "MPI_Comm_rank");
    if (!rank) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->pt.rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

/* A duplicate gets the hints: c's (MPI_Comm_dup, idup: MPI 3.1 §6.4.2), or
 * info's (MPI_Comm_dup_with_info). */
static int dup(struct smpi_comm *c, const char *hints, MPI_Info info, MPI_Comm *newcomm, const char *R)
{
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    int rc;
    if (c->inter) {
        rc = c->inter->ops->dup(c, newcomm, NULL, R);
    } else {
        smpi_refs_add(&c->group->refs, 1);
        rc = comm_new(c->group, c, NULL, newcomm, R);
        if (!rc) (*newcomm)->topo = smpi_topo_ref(c->topo);       /* a duplicate keeps the topology */
    }
    if (!rc) rc = hints ? smpi_hints_copy(&(*newcomm)->hints, hints, R) : smpi_hints_merge(&(*newcomm)->hints, info, R);
    return rc ? rc : attrs_copy(c, *newcomm, R);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    SMPI_CHECK_INIT("MPI_Comm_dup");
    SMPI_GET_COMM(c, comm, "MPI_Comm_dup");
    return dup(c, c->hints, MPI_INFO_NULL, newcomm, "MPI_Comm_dup");
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char R[] = "MPI_Comm_dup_with_info";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    SMPI_CHECK_INFO(c, info, R);         /* kept as the new communicator's hints, none read */
    return dup(c, NULL, info, newcomm, R);
}
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info

/* Hints (MPI 3.1 §6.4.4): smartmap reads none, so the hints in use are the
 * ones set, merged over the earlier calls' and passed on by MPI_Comm_dup. */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char R[] = "MPI_Comm_set_info";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    SMPI_CHECK_INFO(c, info, R);         /* MPI_INFO_NULL sets nothing, as MPI_Win_set_info */
    smpi_attrs_lock();                   /* two threads setting hints on one communicator */
    return smpi_attrs_unlock(smpi_hints_merge(&c->hints, info, R));
}
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char R[] = "MPI_Comm_get_info";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!info_used) return smpi_error(c, MPI_ERR_ARG, R, "info_used is NULL");
    smpi_attrs_lock();
    int rc = smpi_hints_info(c->hints, info_used, R);
    return smpi_attrs_unlock(rc);        /* a new object: the caller frees it */
}
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info

/* Nonblocking: the new communicator exists at once (its attributes copied
 * now), its group in the engine and so its context come with the request. */
static void idup_done(void *ctx, sm_status_t st, const char *why)
{
    struct smpi_request *q = ctx;
    struct smpi_comm *n = q->coll;
    q->coll = NULL;
    if (!st) {
        n->pt.ctx = smpi_ctx_of(&n->cg);
        n->co.ctx = n->pt.ctx + 1;
    }
    smpi_request_coll_done(q, st, "MPI_Comm_idup", why);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char R[] = "MPI_Comm_idup";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!request) return smpi_error(c, MPI_ERR_REQUEST, R, "request pointer is NULL");
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    if (c->inter) {
        int rc = c->inter->ops->dup(c, newcomm, request, R);
        if (!rc) rc = smpi_hints_copy(&(*newcomm)->hints, c->hints, R);
        return rc ? rc : attrs_copy(c, *newcomm, R);
    }
    struct smpi_comm *n = calloc(1, sizeof *n);
    struct smpi_request *q = n ? smpi_request_coll(c) : NULL;
    if (!q) {
        free(n);
        return smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for a communicator");
    }
    smpi_refs_add(&c->group->refs, 1);
    smpi_comm_setup(n, c->group, 0, "");
    n->errh = c->errh;
    smpi_errh_ref(n->errh);
    struct sm_group m = smpi_group_members(c->group);
    q->coll = n;
    sm_status_t st = coll_group_icreate(&n->cg, &m, &c->cg, idup_done, q);
    if (st) {
        q->coll = NULL;
        smpi_request_release(q);
        smpi_comm_unref(n);
        return smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason());
    }
    n->topo = smpi_topo_ref(c->topo);                /* a duplicate keeps the topology */
    *newcomm = n;
    *request = q;
    int rc = smpi_hints_copy(&n->hints, c->hints, R);
    return rc ? rc : attrs_copy(c, n, R);
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup

struct split_ent { int color, key, rank; };
static int split_cmp(const void *a, const void *b)
{
    const struct split_ent *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

static int split(struct smpi_comm *c, int color, int key, MPI_Comm *newcomm, const char *R)
{
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    if (c->inter) return c->inter->ops->split(c, color, key, newcomm, R);
    if (color < 0 && color != MPI_UNDEFINED) return smpi_error(c, MPI_ERR_ARG, R, "invalid color %d", color);
    int n = c->pt.size;
    struct split_ent me = { color, key, c->pt.rank }, *all = malloc(sizeof me * (size_t)n);
    if (!all) return smpi_error(c, MPI_ERR_NO_MEM, R, "%d entries", n);
    /* quiet: a deferred check's failure (src/coll/sched.c) is the next user
     * collective's error, not a split that only some ranks leave early */
    struct coll_args ga = { .kind = COLL_ALLGATHER, .src = { &me, sizeof me }, .dst = { all, sizeof me }, .quiet = true };
    if (coll_run(&c->cg, &ga)) {
        free(all);
        return smpi_error(c, MPI_ERR_OTHER, R, "%s", sm_fail_reason());
    }
    struct smpi_group *g = NULL;
    if (color != MPI_UNDEFINED) {
        int m = 0;
        for (int i = 0; i < n; i++) if (all[i].color == color) all[m++] = all[i];
        qsort(all, (size_t)m, sizeof *all, split_cmp);
        g = group_new(m);
        for (int i = 0; i < m; i++) g->world[i] = c->group->world[all[i].rank];
        smpi_group_set_rank(g);
    }
    free(all);
    return comm_new(g, c, NULL, newcomm, R);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    SMPI_CHECK_INIT("MPI_Comm_split");
    SMPI_GET_COMM(c, comm, "MPI_Comm_split");
    return split(c, color, key, newcomm, "MPI_Comm_split");
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char R[] = "MPI_Comm_split_type";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    SMPI_CHECK_INFO(c, info, R);         /* no hints are read */
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return smpi_error(c, MPI_ERR_ARG, R, "invalid split_type %d", split_type);
    /* By shared-memory domain: the node (real, or SMARTMAP_NODE_SIZE's),
     * named by its lowest job rank. A job on one node (smrun's, always)
     * keeps one colour, so nothing is computed there. On an
     * intercommunicator each group splits by node and the local part on a
     * node is joined to the remote members on that node (split() hands it
     * to inter.c, which matches colours): a node without remote members
     * gives MPI_COMM_NULL, as a colour on one side only does. */
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : sm_spans_nodes() ? sm_node_id() : 0;
    return split(c, color, key, newcomm, R);
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char R[] = "MPI_Comm_create";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_group *g = group_of(group);
    if (!g) return smpi_error(c, MPI_ERR_GROUP, R, "invalid group %p", (void *)group);
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    if (c->inter) return c->inter->ops->create(c, group, newcomm, R);
    for (int i = 0; i < g->size; i++) {
        bool in = false;
        for (int j = 0; j < c->pt.size && !in; j++) in = c->group->world[j] == g->world[i];
        if (!in) return smpi_error(c, MPI_ERR_GROUP, R, "group member %d is not in the communicator", i);
    }
    struct smpi_group *ng = NULL;
    if (g->rank != MPI_UNDEFINED) {
        ng = group_new(g->size);
        memcpy(ng->world, g->world, sizeof(int) * (size_t)g->size);
        smpi_group_set_rank(ng);
    }
    return comm_new(ng, c, NULL, newcomm, R);
}
#pragma weak MPI_Comm_create = PMPI_Comm_create

/* Only the group's members call it: they make the engine's group over the
 * parent's point-to-point context, with an internal tag made from the
 * user's (so concurrent calls on other groups or tags do not mix). */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char R[] = "MPI_Comm_create_group";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_group *g = group_of(group);
    if (!g) return smpi_error(c, MPI_ERR_GROUP, R, "invalid group %p", (void *)group);
    if (c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is an intercommunicator", c->name);
    if (tag < 0) return smpi_error(c, MPI_ERR_TAG, R, "tag %d is negative", tag);
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    if (g->rank == MPI_UNDEFINED) return smpi_error(c, MPI_ERR_GROUP, R, "the caller is not in the group");
    for (int i = 0; i < g->size; i++) {
        bool in = false;
        for (int j = 0; j < c->pt.size && !in; j++) in = c->group->world[j] == g->world[i];
        if (!in) return smpi_error(c, MPI_ERR_GROUP, R, "group member %d is not in the communicator", i);
    }
    struct p2p_comm tmp = { c->pt.ctx, g->rank, g->size, g->world, -2 - tag };
    struct smpi_group *ng = group_new(g->size);
    memcpy(ng->world, g->world, sizeof(int) * (size_t)g->size);
    smpi_group_set_rank(ng);
    return comm_new(ng, c, &tmp, newcomm, R);
}
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char R[] = "MPI_Comm_free";
    SMPI_CHECK_INIT(R);
    if (!comm) return smpi_error(NULL, MPI_ERR_ARG, R, "comm is NULL");
    SMPI_GET_COMM(c, *comm, R);
    if (c == &smpi_comm_world || c == &smpi_comm_self)
        return smpi_error(c, MPI_ERR_COMM, R, "cannot free %s", c->name);
    int rc = attrs_free(c, R);
    if (rc) return rc;
    if (*comm == smpi_comm_parent) smpi_comm_parent = MPI_COMM_NULL;   /* MPI_Comm_get_parent's, no longer */
    c->magic = 0;                        /* the handle is gone; pending requests keep the object */
    *comm = MPI_COMM_NULL;
    smpi_comm_unref(c);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

static int group_cmp(const struct smpi_group *a, const struct smpi_group *b)
{
    if (a == b) return MPI_IDENT;
    if (a->size != b->size) return MPI_UNEQUAL;
    if (!memcmp(a->world, b->world, sizeof(int) * (size_t)a->size)) return MPI_IDENT;
    for (int i = 0; i < a->size; i++) {
        bool in = false;
        for (int j = 0; j < b->size && !in; j++) in = a->world[i] == b->world[j];
        if (!in) return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char R[] = "MPI_Comm_compare";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(a, comm1, R);
    SMPI_GET_COMM(b, comm2, R);
    if (!result) return smpi_error(a, MPI_ERR_ARG, R, "result is NULL");
    if (a->inter || b->inter) {
        *result = (a->inter ? a : b)->inter->ops->compare(a, b);
        return MPI_SUCCESS;
    }
    int g = group_cmp(a->group, b->group);
    *result = a == b ? MPI_IDENT : g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_compare = PMPI_Comm_compare

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    SMPI_CHECK_INIT("MPI_Comm_group");
    SMPI_GET_COMM(c, comm, "MPI_Comm_group");
    if (!group) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_group", "group is NULL");
    smpi_refs_add(&c->group->refs, 1);
    *group = c->group;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_group = PMPI_Comm_group

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    SMPI_CHECK_INIT("MPI_Comm_test_inter");
    SMPI_GET_COMM(c, comm, "MPI_Comm_test_inter");
    if (!flag) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    *flag = c->inter != NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    SMPI_CHECK_INIT("MPI_Comm_set_name");
    SMPI_GET_COMM(c, comm, "MPI_Comm_set_name");
    if (!comm_name) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_set_name", "comm_name is NULL");
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    SMPI_CHECK_INIT("MPI_Comm_get_name");
    SMPI_GET_COMM(c, comm, "MPI_Comm_get_name");
    if (!comm_name || !resultlen) return smpi_error(c, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name

int smpi_tag_ub = INT_MAX;

static int get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag, const char *R)
{
    static int host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1, appnum = 0;
    static int universe;
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!attribute_val || !flag) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    if (keyval >= KEY0) {
        if (!key_of(keyval)) return smpi_error(c, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval);
        smpi_attrs_lock();
        struct smpi_attr *a = *attr_find(c, keyval);
        *flag = a != NULL;
        if (a) *(void **)attribute_val = a->val;
        return smpi_attrs_unlock(MPI_SUCCESS);
    }
    int *v = NULL;
    universe = sm_core.size;                    /* every slot of the job (smrun --universe-size) */
    appnum = (int)sm_setting(SM_SET_APPNUM);
    if (c == &smpi_comm_world) {
        switch (keyval) {
        case MPI_TAG_UB: v = &smpi_tag_ub; break;
        case MPI_HOST: v = &host; break;
        case MPI_IO: v = &io; break;
        case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;   /* one node, one monotonic clock */
        case MPI_APPNUM: v = &appnum; break;
        case MPI_UNIVERSE_SIZE: v = &universe; break;
        case MPI_LASTUSEDCODE: v = &smpi_last_code; break;
        default: return smpi_error(c, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval);
        }
    } else if (keyval == MPI_TAG_UB) v = &smpi_tag_ub;
    else if (keyval < MPI_TAG_UB || keyval > MPI_LASTUSEDCODE)
        return smpi_error(c, MPI_ERR_KEYVAL, R, "invalid keyval %d", keyval);
    *flag = v != NULL;
    if (v) *(int **)attribute_val = v;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr(comm, keyval, attribute_val, flag, "MPI_Comm_get_attr");
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

/* --- Groups --------------------------------------------------------------- */

#define GET_GROUP(var, h, R) \
    struct smpi_group *var = group_of(h); \
    if (!var) return smpi_error(NULL, MPI_ERR_GROUP, R, "invalid group %p", (void *)(h))

int PMPI_Group_size(MPI_Group group, int *size)
{
    GET_GROUP(g, group, "MPI_Group_size");
    if (!size) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_size = PMPI_Group_size

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    GET_GROUP(g, group, "MPI_Group_rank");
    if (!rank) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_rank = PMPI_Group_rank

static int check_ranks(struct smpi_group *g, int n, const int ranks[], const char *R)
{
    if (n < 0 || n > g->size) return smpi_error(NULL, MPI_ERR_ARG, R, "n %d not in [0, %d]", n, g->size);
    if (n && !ranks) return smpi_error(NULL, MPI_ERR_ARG, R, "ranks is NULL");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return smpi_error(NULL, MPI_ERR_RANK, R, "ranks[%d] = %d not in [0, %d)", i, ranks[i], g->size);
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i]) return smpi_error(NULL, MPI_ERR_RANK, R, "rank %d given twice", ranks[i]);
    }
    return MPI_SUCCESS;
}

static int group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, const char *R)
{
    GET_GROUP(g, group, R);
    int rc = check_ranks(g, n, ranks, R);
    if (rc) return rc;
    if (!newgroup) return smpi_error(NULL, MPI_ERR_ARG, R, "newgroup is NULL");
    if (!n) { *newgroup = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
    struct smpi_group *ng = group_new(n);
    for (int i = 0; i < n; i++) ng->world[i] = g->world[ranks[i]];
    smpi_group_set_rank(ng);
    *newgroup = ng;
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_incl(group, n, ranks, newgroup, "MPI_Group_incl");
}
#pragma weak MPI_Group_incl = PMPI_Group_incl

static int group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, const char *R)
{
    GET_GROUP(g, group, R);
    int rc = check_ranks(g, n, ranks, R);
    if (rc) return rc;
    if (!newgroup) return smpi_error(NULL, MPI_ERR_ARG, R, "newgroup is NULL");
    if (n == g->size) { *newgroup = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
    struct smpi_group *ng = group_new(g->size - n);
    int m = 0;
    for (int i = 0; i < g->size; i++) {
        bool out = false;
        for (int j = 0; j < n && !out; j++) out = ranks[j] == i;
        if (!out) ng->world[m++] = g->world[i];
    }
    smpi_group_set_rank(ng);
    *newgroup = ng;
    return MPI_SUCCESS;
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_excl(group, n, ranks, newgroup, "MPI_Group_excl");
}
#pragma weak MPI_Group_excl = PMPI_Group_excl

/* The ranks that n (first, last, stride) triplets name, in order (*ranks to free). */
static int range_ranks(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, int **ranks, int *total,
                       const char *R)
{
    GET_GROUP(g, group, R);
    if (n < 0 || (n && !ranges) || !newgroup) return smpi_error(NULL, MPI_ERR_ARG, R, "n %d or NULL argument", n);
    *total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (!stride || first < 0 || first >= g->size || last < 0 || last >= g->size)
            return smpi_error(NULL, MPI_ERR_RANK, R, "range %d (%d, %d, %d) outside [0, %d)", i, first, last,
                              stride, g->size);
        /* floor((last - first) / stride) + 1 ranks: none when the stride
         * points away from last (C's division truncates towards zero) */
        if ((stride > 0) == (last >= first) || last == first) *total += (last - first) / stride + 1;
    }
    int k = 0;
    if (!(*ranks = malloc(sizeof(int) * (size_t)(*total ? *total : 1))))
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "%d ranks", *total);
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) (*ranks)[k++] = r;
    }
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char R[] = "MPI_Group_range_incl";
    int *ranks, total, rc = range_ranks(group, n, ranges, newgroup, &ranks, &total, R);
    if (rc) return rc;
    rc = group_incl(group, total, ranks, newgroup, R);   /* checks duplicates */
    free(ranks);
    return rc;
}
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char R[] = "MPI_Group_range_excl";
    int *ranks, total, rc = range_ranks(group, n, ranges, newgroup, &ranks, &total, R);
    if (rc) return rc;
    rc = group_excl(group, total, ranks, newgroup, R);
    free(ranks);
    return rc;
}
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl

static bool group_has(const struct smpi_group *g, int world)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == world) return true;
    return false;
}

/* Set operations, in MPI's order: members of a (in a's order) kept when
 * in_b says so, then (union) the members of b not in a. */
static int group_set(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, bool in_b, bool add_b,
                     const char *R)
{
    GET_GROUP(a, group1, R);
    GET_GROUP(b, group2, R);
    if (!newgroup) return smpi_error(NULL, MPI_ERR_ARG, R, "newgroup is NULL");
    struct smpi_group *ng = group_new(a->size + b->size);
    int m = 0;
    for (int i = 0; i < a->size; i++)
        if (add_b || group_has(b, a->world[i]) == in_b) ng->world[m++] = a->world[i];
    if (add_b)
        for (int i = 0; i < b->size; i++)
            if (!group_has(a, b->world[i])) ng->world[m++] = b->world[i];
    if (!m) { smpi_group_unref(ng); *newgroup = MPI_GROUP_EMPTY; return MPI_SUCCESS; }
    ng->size = m;
    smpi_group_set_rank(ng);
    *newgroup = ng;
    return MPI_SUCCESS;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set(group1, group2, newgroup, true, true, "MPI_Group_union");
}
#pragma weak MPI_Group_union = PMPI_Group_union

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set(group1, group2, newgroup, true, false, "MPI_Group_intersection");
}
#pragma weak MPI_Group_intersection = PMPI_Group_intersection

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set(group1, group2, newgroup, false, false, "MPI_Group_difference");
}
#pragma weak MPI_Group_difference = PMPI_Group_difference

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    static const char R[] = "MPI_Group_translate_ranks";
    GET_GROUP(a, group1, R);
    GET_GROUP(b, group2, R);
    if (n < 0 || (n && (!ranks1 || !ranks2))) return smpi_error(NULL, MPI_ERR_ARG, R, "n %d or NULL ranks", n);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) { ranks2[i] = MPI_PROC_NULL; continue; }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            return smpi_error(NULL, MPI_ERR_RANK, R, "ranks1[%d] = %d not in [0, %d)", i, ranks1[i], a->size);
        ranks2[i] = MPI_UNDEFINED;
        for (int j = 0; j < b->size; j++)
            if (b->world[j] == a->world[ranks1[i]]) { ranks2[i] = j; break; }
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    GET_GROUP(a, group1, "MPI_Group_compare");
    GET_GROUP(b, group2, "MPI_Group_compare");
    if (!result) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Group_compare", "result is NULL");
    *result = group_cmp(a, b);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_compare = PMPI_Group_compare

int PMPI_Group_free(MPI_Group *group)
{
    if (!group) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Group_free", "group is NULL");
    GET_GROUP(g, *group, "MPI_Group_free");
    smpi_group_unref(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_free = PMPI_Group_free

/* The MPI-1 names of the attribute calls (deprecated in MPI 2, still in 3.1). */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return create_keyval(copy_fn, delete_fn, keyval, extra_state, "MPI_Keyval_create");
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

int PMPI_Keyval_free(int *keyval) { return free_keyval(keyval, "MPI_Keyval_free"); }
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr(comm, keyval, attribute_val, "MPI_Attr_put");
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return delete_attr(comm, keyval, "MPI_Attr_delete"); }
#pragma weak MPI_Attr_delete = PMPI_Attr_delete
