/* MPI windows (MPI 3.1 chapter 11): creation in every flavor, free, group,
 * info hints, names, attributes and keyvals, error handlers, and the
 * synchronisation calls (fence, post/start/complete/wait/test, locks,
 * flush, sync), each checking its arguments and making one call to the
 * one-sided engine (src/rma, "Windows"). The communication calls are rma.c's. */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi_win.h"

/* --- Errors --------------------------------------------------------------------------- */

struct smpi_win smpi_win_none, *smpi_win_known = &smpi_win_none;

int smpi_win_bad(MPI_Win h, const char *R)
{
    SMPI_CHECK_INIT(R);
    return smpi_error(NULL, MPI_ERR_WIN, R, "window %s", smpi_hstr((const void *)h, "MPI_WIN_NULL"));
}

int smpi_win_class(sm_status_t st)
{
    switch (st) {
    case SM_ERR_STATE: return MPI_ERR_RMA_SYNC;
    case SM_ERR_ACCESS: return MPI_ERR_RMA_RANGE;
    default: return smpi_class_of(st);
    }
}

int smpi_win_fail(struct smpi_win *w, sm_status_t st, const char *R)
{
    return SMPI_WIN_ERROR(w, smpi_win_class(st), R, "%s", sm_fail_reason());
}

int smpi_win_type(struct smpi_win *w, MPI_Datatype h, const char *R, struct smpi_type **out)
{
    struct smpi_type *t = smpi_type(h);
    if (!t) return SMPI_WIN_ERROR(w, MPI_ERR_TYPE, R, "datatype %s", smpi_hstr((const void *)h, "MPI_DATATYPE_NULL"));
    if (!t->committed) return SMPI_WIN_ERROR(w, MPI_ERR_TYPE, R, "datatype %p is not committed", (void *)h);
    *out = t;
    return MPI_SUCCESS;
}

/* --- The window's collectives, for the engine ------------------------------------------- */

static sm_status_t win_allgather(void *ctx, void *dst, const void *src, size_t len)
{
    return coll_allgather(ctx, dst, src, len);
}
static sm_status_t win_barrier(void *ctx) { return coll_barrier(ctx); }

/* --- Info hints (MPI 3.1 §11.2.1) ----------------------------------------------------------
 * Read at creation and by MPI_Win_set_info; MPI_Win_get_info reports them.
 * Operations complete as they are issued and accumulates are atomic
 * whatever the op, so the strongest accumulate_ordering and
 * accumulate_ops hold whatever is asked; no_locks makes a lock an error. */
static bool info_value(MPI_Info info, const char *key, char *val, int len)
{
    int flag = 0;
    if (info != MPI_INFO_NULL) PMPI_Info_get(info, key, len - 1, val, &flag);
    return flag;
}

/* The orderings of a valid accumulate_ordering ("none", or a comma list of
 * rar, raw, war, waw), normalised; false if it is not one. */
static bool ordering_valid(const char *v)
{
    if (!strcmp(v, "none")) return true;
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n != 3 || (strncmp(p, "rar", 3) && strncmp(p, "raw", 3) && strncmp(p, "war", 3) && strncmp(p, "waw", 3)))
            return false;
        p += n + (p[n] == ',');
    }
    return *v != 0;
}

static void hints_read(struct smpi_win *w, MPI_Info info)
{
    char v[64];
    if (info_value(info, "no_locks", v, sizeof v)) w->no_locks = !strcmp(v, "true");
    if (info_value(info, "accumulate_ordering", v, sizeof v) && ordering_valid(v) && strlen(v) < sizeof w->ordering)
        strcpy(w->ordering, v);
    if (info_value(info, "accumulate_ops", v, sizeof v) && (!strcmp(v, "same_op") || !strcmp(v, "same_op_no_op")))
        w->same_op = !strcmp(v, "same_op");
}

/* --- Creation --------------------------------------------------------------------------- */

/* Every flavor. A member whose arguments are bad still takes part (as a
 * failed member), so that the others fail too instead of waiting for it. */
static int win_new(enum rma_win_kind kind, void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   void *baseptr, MPI_Win *win, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    SMPI_CHECK_INFO(c, info, R);
    if (c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is an intercommunicator", smpi_comm_name(c));
    if (!win) return smpi_error(c, MPI_ERR_ARG, R, "win is NULL");
    *win = MPI_WIN_NULL;
    int cls = MPI_SUCCESS;
    char why[160] = "";
    if (size < 0) cls = MPI_ERR_SIZE, snprintf(why, sizeof why, "size %ld is negative", (long)size);
    else if (disp_unit <= 0) cls = MPI_ERR_DISP, snprintf(why, sizeof why, "disp_unit %d is not positive", disp_unit);
    else if (kind == RMA_WIN_CREATE && size && !base)
        cls = MPI_ERR_BASE, snprintf(why, sizeof why, "base is NULL with size %ld", (long)size);
    else if (kind != RMA_WIN_CREATE && kind != RMA_WIN_DYNAMIC && !baseptr)
        cls = MPI_ERR_ARG, snprintf(why, sizeof why, "baseptr is NULL");
    if (c->cg.net && kind == RMA_WIN_SHARED)     /* every member sees it: all return */
        return smpi_error(c, MPI_ERR_COMM, R, "%s spans nodes: its processes cannot share memory",
                          smpi_comm_name(c));
    struct smpi_win *w = calloc(1, sizeof *w);
    if (!w) sm_fatal("MPI: out of memory for a window");
    struct sm_group m = smpi_group_members(c->group);
    sm_status_t st = coll_group_create(&w->cg, &m, &c->cg);
    if (st) {
        free(w);
        return smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason());
    }
    w->errh = c->errh;                   /* the communicator's, as MPI says */
    smpi_errh_ref(w->errh);
    char v[8];
    w->noncontig = kind == RMA_WIN_SHARED && info_value(info, "alloc_shared_noncontig", v, sizeof v) &&
                   !strcmp(v, "true");
    strcpy(w->ordering, "rar,raw,war,waw");
    hints_read(w, info);
    struct rma_win_coll coll = { win_allgather, win_barrier, &w->cg };
    struct rma_win_args a = { &m, &coll, kind, base, (uint64_t)size, (uint32_t)disp_unit, !w->noncontig,
                              cls != MPI_SUCCESS };
    st = rma_win_create(&w->rw, &a);   /* (with bad arguments too: the others must not wait for us) */
    if (cls || st) {
        coll_group_destroy(&w->cg);
        smpi_errh_unref(w->errh);
        free(w);
        if (cls) return smpi_error(c, cls, R, "%s", why);
        return smpi_error(c, st == SM_ERR_PEER ? MPI_ERR_OTHER : smpi_class_of(st), R, "%s", sm_fail_reason());
    }
    w->magic = SMPI_MAGIC_WIN;
    w->group = c->group;
    w->group->refs++;
    w->flavor = (int)kind, w->model = MPI_WIN_UNIFIED;
    w->base = kind == RMA_WIN_DYNAMIC ? MPI_BOTTOM : w->rw.base;
    w->size = kind == RMA_WIN_DYNAMIC ? 0 : size;
    w->disp_unit = kind == RMA_WIN_DYNAMIC ? 1 : disp_unit;
    if (baseptr) *(void **)baseptr = w->rw.base;
    *win = w;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_new(RMA_WIN_CREATE, base, size, disp_unit, info, comm, NULL, win, "MPI_Win_create");
}
#pragma weak MPI_Win_create = PMPI_Win_create

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return win_new(RMA_WIN_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win, "MPI_Win_allocate");
}
#pragma weak MPI_Win_allocate = PMPI_Win_allocate

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return win_new(RMA_WIN_SHARED, NULL, size, disp_unit, info, comm, baseptr, win, "MPI_Win_allocate_shared");
}
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_new(RMA_WIN_DYNAMIC, NULL, 0, 1, info, comm, NULL, win, "MPI_Win_create_dynamic");
}
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic

/* Every window is reachable by loads and stores where its memory is exposed
 * (MPI 4's reading of shared_query on any window): size 0 and NULL where it
 * is not (private memory, reached through the fallback) and for dynamic
 * windows. MPI_PROC_NULL: the first member with memory. */
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char R[] = "MPI_Win_shared_query";
    SMPI_GET_WIN(w, win, R);
    if (!size || !disp_unit || !baseptr) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "NULL argument");
    if (rank != MPI_PROC_NULL && (unsigned)rank >= (unsigned)w->rw.n)
        return SMPI_WIN_ERROR(w, MPI_ERR_RANK, R, "rank %d not in [0, %d) of the window's group", rank, w->rw.n);
    uint64_t sz = 0;
    uint32_t du = 1;
    void *p = NULL;
    for (int t = rank == MPI_PROC_NULL ? 0 : rank; t < w->rw.n; t++) {
        p = rma_win_shared(&w->rw, t, &sz, &du);
        if (sz || rank != MPI_PROC_NULL) break;
    }
    *size = (MPI_Aint)sz, *disp_unit = (int)du;
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char R[] = "MPI_Win_attach";
    SMPI_GET_WIN(w, win, R);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return SMPI_WIN_ERROR(w, MPI_ERR_RMA_FLAVOR, R, "the window is not dynamic (MPI_Win_create_dynamic)");
    if (size < 0) return SMPI_WIN_ERROR(w, MPI_ERR_SIZE, R, "size %ld is negative", (long)size);
    if (size && !base) return SMPI_WIN_ERROR(w, MPI_ERR_RMA_ATTACH, R, "base is NULL with size %ld", (long)size);
    sm_status_t st = rma_win_attach(&w->rw, base, (uint64_t)size);
    return st ? SMPI_WIN_ERROR(w, MPI_ERR_RMA_ATTACH, R, "%s", sm_fail_reason()) : MPI_SUCCESS;
}
#pragma weak MPI_Win_attach = PMPI_Win_attach

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char R[] = "MPI_Win_detach";
    SMPI_GET_WIN(w, win, R);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return SMPI_WIN_ERROR(w, MPI_ERR_RMA_FLAVOR, R, "the window is not dynamic (MPI_Win_create_dynamic)");
    sm_status_t st = rma_win_detach(&w->rw, base);
    return st ? SMPI_WIN_ERROR(w, MPI_ERR_RMA_ATTACH, R, "%s", sm_fail_reason()) : MPI_SUCCESS;
}
#pragma weak MPI_Win_detach = PMPI_Win_detach

/* --- Attributes and keyvals ------------------------------------------------------------------
 * Window keyvals are numbered apart from communicators' (from WIN_KEY0), so
 * a communicator's keyval given to a window is caught; the predefined
 * ones are MPI_WIN_BASE ... MPI_WIN_MODEL. */
#define WIN_KEY0 0x40000000
struct win_key { bool used; MPI_Win_copy_attr_function *copy; MPI_Win_delete_attr_function *del; void *extra; };
static struct smpi_keytab keys = { .esize = sizeof(struct win_key) };

static struct win_key *key_of(int k)
{
    struct win_key *kv = k >= WIN_KEY0 ? smpi_keytab_get(&keys, k - WIN_KEY0) : NULL;
    return kv && kv->used ? kv : NULL;
}

static struct smpi_attr **attr_find(struct smpi_win *w, int k)
{
    struct smpi_attr **a = &w->attrs;
    while (*a && (*a)->key != k) a = &(*a)->next;
    return a;
}

/* Remove attribute k of w (set), calling its delete callback. */
static int attr_delete(struct smpi_win *w, int k, const char *R)
{
    struct smpi_attr **pa = attr_find(w, k), *a = *pa;
    struct win_key *kv = key_of(k);
    if (kv && kv->del) {
        int rc = kv->del(w, k, a->val, kv->extra);
        if (rc) return SMPI_WIN_ERROR(w, rc, R, "the delete callback of keyval %d failed", k);
    }
    *pa = a->next;
    free(a);
    return MPI_SUCCESS;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn,
                           int *keyval, void *extra_state)
{
    static const char R[] = "MPI_Win_create_keyval";
    SMPI_CHECK_INIT(R);
    if (!keyval) return smpi_error(NULL, MPI_ERR_ARG, R, "keyval is NULL");
    struct win_key kv = { true, copy_fn, delete_fn, extra_state };
    int i = smpi_keytab_add(&keys, &kv);
    if (i < 0) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no room for another window keyval (%d at most)", keys.n);
    *keyval = WIN_KEY0 + i;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Win_free_keyval(int *keyval)
{
    static const char R[] = "MPI_Win_free_keyval";
    SMPI_CHECK_INIT(R);
    if (!keyval || !key_of(*keyval))
        return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid window keyval %d", keyval ? *keyval : 0);
    /* attributes set with it keep their callbacks until deleted: the number is not reused */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    static const char R[] = "MPI_Win_set_attr";
    SMPI_GET_WIN(w, win, R);
    if (!key_of(keyval)) return SMPI_WIN_ERROR(w, MPI_ERR_KEYVAL, R, "invalid window keyval %d", keyval);
    smpi_attrs_lock();
    struct smpi_attr **pa = attr_find(w, keyval);
    if (*pa) {
        int rc = attr_delete(w, keyval, R);
        if (rc) return smpi_attrs_unlock(rc);
        pa = attr_find(w, keyval);
    }
    if (!(*pa = calloc(1, sizeof **pa)))
        return smpi_attrs_unlock(SMPI_WIN_ERROR(w, MPI_ERR_NO_MEM, R, "no memory for an attribute"));
    (*pa)->key = keyval, (*pa)->val = attribute_val;
    return smpi_attrs_unlock(MPI_SUCCESS);
}
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    static const char R[] = "MPI_Win_get_attr";
    SMPI_GET_WIN(w, win, R);
    if (!attribute_val || !flag) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "NULL argument");
    void *v;
    switch (keyval) {
    case MPI_WIN_BASE: v = w->base; break;   /* the base itself; the others by address */
    case MPI_WIN_SIZE: v = &w->size; break;
    case MPI_WIN_DISP_UNIT: v = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->flavor; break;
    case MPI_WIN_MODEL: v = &w->model; break;
    default: {
        if (!key_of(keyval)) return SMPI_WIN_ERROR(w, MPI_ERR_KEYVAL, R, "invalid window keyval %d", keyval);
        smpi_attrs_lock();
        struct smpi_attr *a = *attr_find(w, keyval);
        *flag = a != NULL;
        if (a) *(void **)attribute_val = a->val;
        return smpi_attrs_unlock(MPI_SUCCESS);
    }
    }
    *flag = 1;
    *(void **)attribute_val = v;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    static const char R[] = "MPI_Win_delete_attr";
    SMPI_GET_WIN(w, win, R);
    if (!key_of(keyval)) return SMPI_WIN_ERROR(w, MPI_ERR_KEYVAL, R, "invalid window keyval %d", keyval);
    smpi_attrs_lock();
    if (!*attr_find(w, keyval))
        return smpi_attrs_unlock(SMPI_WIN_ERROR(w, MPI_ERR_KEYVAL, R, "keyval %d is not set on this window", keyval));
    return smpi_attrs_unlock(attr_delete(w, keyval, R));
}
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

/* --- Free, group, names, info ------------------------------------------------------------- */

int PMPI_Win_free(MPI_Win *win)
{
    static const char R[] = "MPI_Win_free";
    SMPI_CHECK_INIT(R);
    if (!win) return smpi_error(NULL, MPI_ERR_ARG, R, "win is NULL");
    SMPI_GET_WIN(w, *win, R);
    smpi_attrs_lock();
    while (w->attrs) {
        int rc = attr_delete(w, w->attrs->key, R);
        if (rc) return smpi_attrs_unlock(rc);
    }
    smpi_attrs_unlock(0);
    sm_status_t st = rma_win_free(&w->rw);
    for (int k = 0; k < 2; k++) {
        if (w->pscw_group[k]) smpi_group_unref(w->pscw_group[k]);
        free(w->pscw_members[k]);
    }
    char why[256];
    snprintf(why, sizeof why, "%s", st ? sm_fail_reason() : "");
    coll_group_destroy(&w->cg);
    smpi_group_unref(w->group);
    MPI_Errhandler eh = w->errh;
    w->magic = 0;
    /* (after the attributes' callbacks, which may check it in full: a copy
     * of the handle, used after this, must take the general paths) */
    __atomic_compare_exchange_n(&smpi_win_known, &(struct smpi_win *){ w }, &smpi_win_none, false,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    *win = MPI_WIN_NULL;
    int rc = st ? smpi_win_error(eh, w, smpi_win_class(st), R, "%s", why) : MPI_SUCCESS;
    smpi_errh_unref(eh);
    free(w);
    return rc;
}
#pragma weak MPI_Win_free = PMPI_Win_free

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char R[] = "MPI_Win_get_group";
    SMPI_GET_WIN(w, win, R);
    if (!group) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "group is NULL");
    w->group->refs++;
    *group = w->group;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_group = PMPI_Win_get_group

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char R[] = "MPI_Win_set_name";
    SMPI_GET_WIN(w, win, R);
    if (!win_name) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "win_name is NULL");
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_name = PMPI_Win_set_name

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char R[] = "MPI_Win_get_name";
    SMPI_GET_WIN(w, win, R);
    if (!win_name || !resultlen) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "NULL argument");
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_name = PMPI_Win_get_name

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char R[] = "MPI_Win_set_info";
    SMPI_GET_WIN(w, win, R);
    if (info != MPI_INFO_NULL && !smpi_info(info))
        return SMPI_WIN_ERROR(w, MPI_ERR_INFO, R, "info %p is not an info object", (void *)info);
    hints_read(w, info);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_info = PMPI_Win_set_info

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char R[] = "MPI_Win_get_info";
    SMPI_GET_WIN(w, win, R);
    if (!info_used) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "info_used is NULL");
    MPI_Info in;
    int rc = PMPI_Info_create(&in);
    if (!rc) rc = PMPI_Info_set(in, "no_locks", w->no_locks ? "true" : "false");
    if (!rc) rc = PMPI_Info_set(in, "accumulate_ordering", w->ordering);
    if (!rc) rc = PMPI_Info_set(in, "accumulate_ops", w->same_op ? "same_op" : "same_op_no_op");
    if (!rc && w->flavor == MPI_WIN_FLAVOR_SHARED)
        rc = PMPI_Info_set(in, "alloc_shared_noncontig", w->noncontig ? "true" : "false");
    if (rc) return SMPI_WIN_ERROR(w, rc, R, "could not build the info object");
    *info_used = in;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_info = PMPI_Win_get_info

/* --- Error handlers ---------------------------------------------------------------------- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    static const char R[] = "MPI_Win_create_errhandler";
    SMPI_CHECK_INIT(R);
    if (!fn || !errhandler) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    struct smpi_errh *e = malloc(sizeof *e);
    if (!e) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "out of memory for an error handler");
    *e = (struct smpi_errh){ SMPI_MAGIC_ERRH, 1, NULL, fn };
    *errhandler = e;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char R[] = "MPI_Win_set_errhandler";
    SMPI_GET_WIN(w, win, R);
    struct smpi_errh *u = smpi_user_errh(errhandler);
    if (!(errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_RETURN || (u && u->win_fn)))
        return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "%s is not a window's error handler",
                              smpi_hstr((const void *)errhandler, "MPI_ERRHANDLER_NULL"));
    smpi_errh_ref(errhandler);
    smpi_errh_unref(w->errh);
    w->errh = errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char R[] = "MPI_Win_get_errhandler";
    SMPI_GET_WIN(w, win, R);
    if (!errhandler) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "errhandler is NULL");
    smpi_errh_ref(w->errh);              /* a new reference: the caller frees it */
    *errhandler = w->errh;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char R[] = "MPI_Win_call_errhandler";
    SMPI_GET_WIN(w, win, R);
    if (errorcode == MPI_SUCCESS) return MPI_SUCCESS;   /* no error to raise */
    if (errorcode < MPI_SUCCESS || errorcode >= MPI_ERR_LASTCODE)
        return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "invalid error code %d", errorcode);
    SMPI_WIN_ERROR(w, errorcode, R, "raised by the program");
    return MPI_SUCCESS;                  /* MPI: success, unless the handler ends the program */
}
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler

/* --- Synchronisation -------------------------------------------------------------------------- */

/* assert holds only bits of allowed. */
static int check_assert(struct smpi_win *w, int assert, int allowed, const char *names, const char *R)
{
    if (assert & ~allowed)
        return SMPI_WIN_ERROR(w, MPI_ERR_ASSERT, R, "assert %#x has bits other than %s", (unsigned)assert, names);
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char R[] = "MPI_Win_fence";
    SMPI_GET_WIN(w, win, R);
    int rc = check_assert(w, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED,
                          "MPI_MODE_NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED", R);
    if (rc) return rc;
    sm_status_t st = rma_win_fence(&w->rw, (assert & MPI_MODE_NOPRECEDE ? RMA_FENCE_NOPRECEDE : 0) |
                                               (assert & MPI_MODE_NOSUCCEED ? RMA_FENCE_NOSUCCEED : 0));
    if (st == SM_ERR_ARG) return SMPI_WIN_ERROR(w, MPI_ERR_ASSERT, R, "%s", sm_fail_reason());
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Win_fence = PMPI_Win_fence

/* The window members of group h for post (k 0) or start (k 1): translated
 * once and kept while the program passes the same group. */
static int group_members(struct smpi_win *w, MPI_Group h, int k, const char *R)
{
    struct smpi_group *g = h == MPI_GROUP_EMPTY ? &smpi_group_empty
                           : (uintptr_t)h >= 4096 && h->magic == SMPI_MAGIC_GRP ? h : NULL;
    if (SM_LIKELY(g && g == w->pscw_group[k])) return MPI_SUCCESS;
    if (!g) return SMPI_WIN_ERROR(w, MPI_ERR_GROUP, R, "group %s", smpi_hstr((const void *)h, "MPI_GROUP_NULL"));
    int *m = realloc(w->pscw_members[k], sizeof *m * (size_t)(g->size ? g->size : 1));
    if (!m) return SMPI_WIN_ERROR(w, MPI_ERR_NO_MEM, R, "no memory for a group of %d", g->size);
    w->pscw_members[k] = m;
    for (int i = 0; i < g->size; i++)
        if ((m[i] = rma_win_member(&w->rw, g->world[i])) < 0) {
            if (w->pscw_group[k]) smpi_group_unref(w->pscw_group[k]);
            w->pscw_group[k] = NULL;
            return SMPI_WIN_ERROR(w, MPI_ERR_GROUP, R, "member %d of the group (job rank %d) is not in the "
                                  "window's group", i, g->world[i]);
        }
    if (w->pscw_group[k]) smpi_group_unref(w->pscw_group[k]);
    if (g != &smpi_group_empty) g->refs++;
    w->pscw_group[k] = g, w->pscw_n[k] = g->size;
    return MPI_SUCCESS;
}

static int pscw(MPI_Group group, int assert, MPI_Win win, bool post, const char *R)
{
    SMPI_GET_WIN(w, win, R);
    int rc = post ? check_assert(w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                                 "MPI_MODE_NOCHECK, NOSTORE, NOPUT", R)
                  : check_assert(w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK", R);
    int k = !post;
    if (rc || (rc = group_members(w, group, k, R))) return rc;
    unsigned f = assert & MPI_MODE_NOCHECK ? RMA_NOCHECK : 0;
    sm_status_t st = post ? rma_win_post(&w->rw, w->pscw_members[k], w->pscw_n[k], f)
                          : rma_win_start(&w->rw, w->pscw_members[k], w->pscw_n[k], f);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) { return pscw(group, assert, win, true, "MPI_Win_post"); }
#pragma weak MPI_Win_post = PMPI_Win_post

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return pscw(group, assert, win, false, "MPI_Win_start");
}
#pragma weak MPI_Win_start = PMPI_Win_start

/* The calls that are the engine's call on the window and nothing else. */
static int epoch_call(MPI_Win win, sm_status_t (*fn)(struct rma_win *), const char *R)
{
    SMPI_GET_WIN(w, win, R);
    sm_status_t st = fn(&w->rw);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win) { return epoch_call(win, rma_win_complete, "MPI_Win_complete"); }
#pragma weak MPI_Win_complete = PMPI_Win_complete

int PMPI_Win_wait(MPI_Win win) { return epoch_call(win, rma_win_wait, "MPI_Win_wait"); }
#pragma weak MPI_Win_wait = PMPI_Win_wait

int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char R[] = "MPI_Win_test";
    SMPI_GET_WIN(w, win, R);
    if (!flag) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "flag is NULL");
    bool done = false;
    sm_status_t st = rma_win_test(&w->rw, &done);
    *flag = done;
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Win_test = PMPI_Win_test

static int check_rank(struct smpi_win *w, int rank, const char *R)
{
    if ((unsigned)rank >= (unsigned)w->rw.n)
        return SMPI_WIN_ERROR(w, MPI_ERR_RANK, R, "rank %d not in [0, %d) of the window's group", rank, w->rw.n);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char R[] = "MPI_Win_lock";
    SMPI_GET_WIN(w, win, R);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return SMPI_WIN_ERROR(w, MPI_ERR_LOCKTYPE, R, "lock_type %d is neither MPI_LOCK_SHARED nor "
                              "MPI_LOCK_EXCLUSIVE", lock_type);
    int rc = check_assert(w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK", R);
    if (rc) return rc;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if ((rc = check_rank(w, rank, R))) return rc;
    if (w->no_locks) return SMPI_WIN_ERROR(w, MPI_ERR_RMA_SYNC, R, "the window's info says no_locks=true");
    sm_status_t st = rma_win_lock(&w->rw, rank, lock_type == MPI_LOCK_SHARED ? RMA_LOCK_SHARED : RMA_LOCK_EXCLUSIVE,
                                  assert & MPI_MODE_NOCHECK ? RMA_NOCHECK : 0);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Win_lock = PMPI_Win_lock

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char R[] = "MPI_Win_unlock";
    SMPI_GET_WIN(w, win, R);
    int rc;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if ((rc = check_rank(w, rank, R))) return rc;
    sm_status_t st = rma_win_unlock(&w->rw, rank);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Win_unlock = PMPI_Win_unlock

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char R[] = "MPI_Win_lock_all";
    SMPI_GET_WIN(w, win, R);
    int rc = check_assert(w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK", R);
    if (rc) return rc;
    if (w->no_locks) return SMPI_WIN_ERROR(w, MPI_ERR_RMA_SYNC, R, "the window's info says no_locks=true");
    sm_status_t st = rma_win_lock_all(&w->rw, assert & MPI_MODE_NOCHECK ? RMA_NOCHECK : 0);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all

int PMPI_Win_unlock_all(MPI_Win win) { return epoch_call(win, rma_win_unlock_all, "MPI_Win_unlock_all"); }
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all

/* flush and flush_local, to one rank or all: the engine's inline check,
 * the rest (errors, every rank) out of line. A rank is never RMA_ALL's -1
 * (MPI_ANY_SOURCE): that is a bad rank, not a flush of every rank. */
static __attribute__((noinline)) int flush_slow(int rank, MPI_Win win, bool local, bool all, const char *R)
{
    SMPI_GET_WIN(w, win, R);
    if (!all && rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!all && rank < 0)
        return SMPI_WIN_ERROR(w, MPI_ERR_RANK, R, "rank %d not in [0, %d) of the window's group", rank, w->rw.n);
    sm_status_t st = rma_win_flush_slow(&w->rw, all ? RMA_ALL : rank, local);
    if (!st) return MPI_SUCCESS;
    return st == SM_ERR_ARG ? SMPI_WIN_ERROR(w, MPI_ERR_RANK, R, "%s", sm_fail_reason()) : smpi_win_fail(w, st, R);
}
static inline int flush(int rank, MPI_Win win, bool local, bool all, const char *R)
{
    if (SM_LIKELY(smpi_win_known_is(win) &&
                  (all ? rma_win_flush_ready(&win->rw, RMA_ALL) : rma_win_locked(&win->rw, rank)) &&
                  !win->rw.spans)) {
        rma_win_flush_order(local);
        return MPI_SUCCESS;
    }
    return flush_slow(rank, win, local, all, R);
}

int PMPI_Win_flush(int rank, MPI_Win win) { return flush(rank, win, false, false, "MPI_Win_flush"); }
#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush_all(MPI_Win win) { return flush(0, win, false, true, "MPI_Win_flush_all"); }
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_local(int rank, MPI_Win win) { return flush(rank, win, true, false, "MPI_Win_flush_local"); }
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local_all(MPI_Win win) { return flush(0, win, true, true, "MPI_Win_flush_local_all"); }
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all

int PMPI_Win_sync(MPI_Win win)
{
    static const char R[] = "MPI_Win_sync";
    SMPI_GET_WIN(w, win, R);
    (void)w;
    rma_win_sync();
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_sync = PMPI_Win_sync
