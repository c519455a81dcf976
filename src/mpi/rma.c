/* MPI one-sided communication (MPI 3.1 §11.3): put, get, the accumulates,
 * fetch-and-op, compare-and-swap, and their request-based forms. A put or
 * get of predefined elements to exposed memory is a few compares and a
 * copy, inline (rma_win_direct); everything else (derived datatypes,
 * memory reached through the fallback, errors) goes through the engine's
 * general calls. Every operation is complete when it returns, so the
 * request-based forms return requests that are complete already. */
#include <stdlib.h>

#include "sm_core.h"
#include "smpi_win.h"

/* A predefined datatype handle other than MPI_DATATYPE_NULL? */
static inline bool predef(MPI_Datatype t) { return (uintptr_t)t - 1 < SMPI_TYPE_PREDEF_COUNT - 1; }

/* --- Arguments -------------------------------------------------------------------------- */

struct side { const void *addr; int count; MPI_Datatype h; struct smpi_type *t; const char *what; };

/* A buffer's count and datatype, and its address when it has data. */
static int check_side(struct smpi_win *w, struct side *s, bool local, const char *R)
{
    if (s->count < 0) return SMPI_WIN_ERROR(w, MPI_ERR_COUNT, R, "%s count %d is negative", s->what, s->count);
    int rc = smpi_win_type(w, s->h, R, &s->t);
    if (rc) return rc;
    if (local && !s->addr && s->count && s->t->id)   /* (derived types may hold absolute addresses: MPI_BOTTOM) */
        return SMPI_WIN_ERROR(w, MPI_ERR_BUFFER, R, "%s buffer is NULL with count %d", s->what, s->count);
    return MPI_SUCCESS;
}

static size_t side_bytes(const struct side *s) { return (size_t)s->count * s->t->dt->size; }

/* The sides of an operation: each checked, the same number of bytes as the
 * target's (which is last), and the target rank in the window's group
 * (*skip for MPI_PROC_NULL: nothing to do). */
static int check_op(struct smpi_win *w, struct side *sides, int n, int rank, bool *skip, const char *R)
{
    int rc;
    for (int i = 0; i < n; i++)
        if ((rc = check_side(w, &sides[i], i < n - 1, R))) return rc;
    const struct side *tg = &sides[n - 1];
    for (int i = 0; i < n - 1; i++)
        if (side_bytes(&sides[i]) != side_bytes(tg))
            return SMPI_WIN_ERROR(w, MPI_ERR_TYPE, R, "the %s's %d x %s (%zu bytes) and the target's %d x %s (%zu "
                                  "bytes) differ", sides[i].what, sides[i].count,
                                  sides[i].t->name ? sides[i].t->name : "derived type", side_bytes(&sides[i]),
                                  tg->count, tg->t->name ? tg->t->name : "derived type", side_bytes(tg));
    *skip = rank == MPI_PROC_NULL;
    if (!*skip && (unsigned)rank >= (unsigned)w->rw.n)
        return SMPI_WIN_ERROR(w, MPI_ERR_RANK, R, "target_rank %d not in [0, %d) of the window's group", rank,
                              w->rw.n);
    return MPI_SUCCESS;
}

static struct rma_buf buf_of(const struct side *s) { return (struct rma_buf){ (void *)s->addr, (size_t)s->count, s->t->dt }; }

/* --- Put and get ---------------------------------------------------------------------------- */

static __attribute__((noinline)) int transfer(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                              MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win, bool put,
                                              const char *R)
{
    SMPI_GET_WIN(w, win, R);
    struct side s[2] = { { oaddr, ocount, otype, NULL, "origin" }, { NULL, tcount, ttype, NULL, "target" } };
    bool skip;
    int rc = check_op(w, s, 2, rank, &skip, R);
    if (rc || skip) return rc;
    struct rma_target t = { rank, disp, (size_t)tcount, s[1].t->dt };
    struct rma_buf o = buf_of(&s[0]);
    sm_status_t st = put ? rma_win_put(&w->rw, &t, &o) : rma_win_get(&w->rw, &t, &o);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}

/* The general paths with the calls' own signatures, so that the fast paths
 * below reach them by a plain jump and need no stack frame of their own. */
static __attribute__((noinline)) int put_slow(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                              MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    return transfer(oaddr, ocount, otype, rank, disp, tcount, ttype, win, true, "MPI_Put");
}
static __attribute__((noinline)) int get_slow(void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                              MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    return transfer(oaddr, ocount, otype, rank, disp, tcount, ttype, win, false, "MPI_Get");
}
/* The same once the first tests passed (one count and type both sides, the
 * window known): six arguments, all in registers, so that the fast path
 * keeps neither the target's count and type nor the handle (it is the
 * known window) and saves three callee-saved registers (62 -> 51
 * instructions a put, callgrind). */
static __attribute__((noinline)) int put_late(const void *addr, int count, MPI_Datatype type, int rank,
                                              MPI_Aint disp, struct smpi_win *w)
{
    return transfer(addr, count, type, rank, disp, count, type, w, true, "MPI_Put");
}
static __attribute__((noinline)) int get_late(void *addr, int count, MPI_Datatype type, int rank, MPI_Aint disp,
                                              struct smpi_win *w)
{
    return transfer(addr, count, type, rank, disp, count, type, w, false, "MPI_Get");
}

/* The fast path's first tests: the window known, count elements of one
 * predefined type each side, a buffer. */
static inline __attribute__((always_inline)) bool direct_args(const void *oaddr, int ocount, MPI_Datatype otype,
                                                              int tcount, MPI_Datatype ttype, MPI_Win win)
{
    return smpi_win_known_is(win) && otype == ttype && ocount == tcount &&
           (uintptr_t)otype < SMPI_TYPE_PREDEF_COUNT && oaddr;
}
/* Then: a type that is contiguous bytes (smpi_type_run), and the rank,
 * epoch and bounds (rma_win_direct). A count of 0 moves nothing, as the
 * general path would; a negative one wraps len beyond any window's bytes,
 * which the bounds refuse (the general path reports the count). */
static inline __attribute__((always_inline)) bool direct(struct smpi_win *w, int count, MPI_Datatype type, int rank,
                                                         MPI_Aint disp, size_t *len, void **at)
{
    size_t c = smpi_type_run[(uintptr_t)type];
    *len = (size_t)(int64_t)count * c;
    return c && rma_win_direct(&w->rw, rank, disp, *len, at);
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (SM_UNLIKELY(!direct_args(origin_addr, origin_count, origin_datatype, target_count, target_datatype, win)))
        return put_slow(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype, win);
    size_t len;
    void *dst;
    if (SM_UNLIKELY(!direct(win, origin_count, origin_datatype, target_rank, target_disp, &len, &dst)))
        return put_late(origin_addr, origin_count, origin_datatype, target_rank, target_disp, win);
    rma_copy(dst, origin_addr, len);
    return MPI_SUCCESS;
}
#pragma weak MPI_Put = PMPI_Put

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (SM_UNLIKELY(!direct_args(origin_addr, origin_count, origin_datatype, target_count, target_datatype, win)))
        return get_slow(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype, win);
    size_t len;
    void *src;
    if (SM_UNLIKELY(!direct(win, origin_count, origin_datatype, target_rank, target_disp, &len, &src)))
        return get_late(origin_addr, origin_count, origin_datatype, target_rank, target_disp, win);
    rma_copy(origin_addr, src, len);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get = PMPI_Get

/* --- Accumulates ------------------------------------------------------------------------------
 * (predefined type, op) -> what the engine needs, kept once found valid. */
struct acc_kind { bool ready; struct rma_acc_op op; };
#define ACC_OPS 15   /* MPI_OP_NULL .. MPI_NO_OP */
_Static_assert((uintptr_t)MPI_NO_OP + 1 == ACC_OPS, "the predefined operations");
static struct acc_kind acc_kinds[SMPI_TYPE_PREDEF_COUNT][ACC_OPS];

/* The engine's operation for op on elements of predefined type id, or NULL
 * with the error raised on w (*rc). */
static const struct rma_acc_op *acc_op(struct smpi_win *w, MPI_Op op, int id, const char *R, int *rc)
{
    uintptr_t o = (uintptr_t)op;
    if (o <= (uintptr_t)MPI_NO_OP && acc_kinds[id][o].ready) return &acc_kinds[id][o].op;
    enum coll_dtype ct = COLL_UINT8;
    enum coll_redop rop = COLL_SUM;
    int cls;
    const char *why = smpi_op_accumulate(op, id, &ct, &rop, &cls);
    if (why) {
        *rc = SMPI_WIN_ERROR(w, cls, R, "%s", why);
        return NULL;
    }
    struct rma_acc_op a = { (size_t)dt_extent(smpi_types[id].dt), RMA_NATIVE_NONE, NULL };
    bool integer = ct <= COLL_UINT64 && (int)rop < COLL_REDOP_COUNT;
    if ((int)rop == COLL_REDOP_COUNT) a.native = RMA_NATIVE_REPLACE;
    else if ((int)rop == COLL_REDOP_COUNT + 1) a.native = RMA_NATIVE_NOOP;
    else {
        a.kernel = coll_kernel(ct, rop);
        if (integer && rop == COLL_SUM) a.native = RMA_NATIVE_ADD;
        else if (integer && rop == COLL_BAND) a.native = RMA_NATIVE_AND;
        else if (integer && rop == COLL_BOR) a.native = RMA_NATIVE_OR;
        else if (integer && rop == COLL_BXOR) a.native = RMA_NATIVE_XOR;
    }
    acc_kinds[id][o] = (struct acc_kind){ true, a };
    return &acc_kinds[id][o].op;
}

/* The one predefined type every side is made of, or an error. */
static int acc_elem(struct smpi_win *w, const struct side *s, int n, const char *R, int *id)
{
    *id = s[n - 1].t->dt->basic;
    for (int i = 0; i < n; i++)
        if (s[i].t->dt->basic < 1 || s[i].t->dt->basic != *id)
            return SMPI_WIN_ERROR(w, MPI_ERR_TYPE, R, "the %s datatype is not made of %s", s[i].what,
                                  s[i].t->dt->basic < 1 ? "a single predefined type"
                                                        : "the predefined type of the target's");
    return MPI_SUCCESS;
}

/* Accumulate (result NULL) and get-accumulate; with MPI_NO_OP the origin is ignored. */
static __attribute__((noinline)) int accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                                                int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                                                int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                                                bool fetch, const char *R)
{
    SMPI_GET_WIN(w, win, R);
    bool noop = op == MPI_NO_OP, skip;
    if (noop && !fetch) return SMPI_WIN_ERROR(w, MPI_ERR_OP, R, "MPI_NO_OP is for MPI_Get_accumulate only");
    struct side s[3], *p = s;
    if (!noop) *p++ = (struct side){ oaddr, ocount, otype, NULL, "origin" };
    if (fetch) *p++ = (struct side){ raddr, rcount, rtype, NULL, "result" };
    *p++ = (struct side){ NULL, tcount, ttype, NULL, "target" };
    int n = (int)(p - s), rc = check_op(w, s, n, rank, &skip, R), id;
    if (rc || skip) return rc;    /* MPI_PROC_NULL: nothing to do, whatever the types and op (MPI 3.1 §11.3) */
    if ((rc = acc_elem(w, s, n, R, &id))) return rc;
    const struct rma_acc_op *a = acc_op(w, op, id, R, &rc);
    if (!a) return rc;
    struct rma_target t = { rank, disp, (size_t)tcount, s[n - 1].t->dt };
    struct rma_buf o = noop ? (struct rma_buf){ 0 } : buf_of(&s[0]), r = fetch ? buf_of(&s[n - 2]) : (struct rma_buf){ 0 };
    sm_status_t st = rma_win_accumulate(&w->rw, &t, noop ? NULL : &o, fetch ? &r : NULL, a, smpi_types[id].dt);
    return st ? smpi_win_fail(w, st, R) : MPI_SUCCESS;
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
                      target_disp, target_count, target_datatype, op, win, false, "MPI_Accumulate");
}
#pragma weak MPI_Accumulate = PMPI_Accumulate

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                      target_rank, target_disp, target_count, target_datatype, op, win, true,
                      "MPI_Get_accumulate");
}
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate

/* One element: the fast path when the operation is known valid for the type
 * and an instruction updates the target directly. */
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    uintptr_t id = (uintptr_t)datatype, o = (uintptr_t)op;
    if (SM_LIKELY(smpi_win_known_is(win) && predef(datatype) && o - 1 < (uintptr_t)MPI_NO_OP && acc_kinds[id][o].ready && result_addr &&
                  (origin_addr || op == MPI_NO_OP))) {
        const struct rma_acc_op *a = &acc_kinds[id][o].op;
        void *dst;
        if (SM_LIKELY(rma_win_direct(&win->rw, target_rank, target_disp, a->width, &dst) &&
                      rma_acc_lockfree(dst, a->width)))
            return rma_accumulate(dst, origin_addr, result_addr, 1, a, NULL), MPI_SUCCESS;
    }
    return accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1, datatype, op,
                      win, true, "MPI_Fetch_and_op");
}
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op

/* MPI 3.1 §11.3.4: C integer, Fortran integer, logical, byte and
 * multi-language types only. */
static bool cas_type(int id)
{
    return (id >= 1 && id <= 13) || (id >= 17 && id <= 25) || (id >= 29 && id <= 31);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char R[] = "MPI_Compare_and_swap";
    if (SM_LIKELY(smpi_win_known_is(win) && predef(datatype) && cas_type((int)(uintptr_t)datatype) && origin_addr &&
                  compare_addr && result_addr)) {
        size_t width = smpi_types[(uintptr_t)datatype].dt->size;
        void *dst;
        if (SM_LIKELY(rma_win_direct(&win->rw, target_rank, target_disp, width, &dst) && rma_acc_lockfree(dst, width)))
            return rma_compare_swap(dst, compare_addr, origin_addr, result_addr, width), MPI_SUCCESS;
    }
    SMPI_GET_WIN(v, win, R);
    struct side s = { result_addr, 1, datatype, NULL, "result" };
    bool skip;
    int rc = check_op(v, &s, 1, target_rank, &skip, R);
    if (rc) return rc;
    if (!predef(datatype) || !cas_type((int)(uintptr_t)datatype))
        return SMPI_WIN_ERROR(v, MPI_ERR_TYPE, R, "%s is not an integer, logical or byte type",
                              s.t->name ? s.t->name : "a derived type");
    if (!origin_addr || !compare_addr || !result_addr)
        return SMPI_WIN_ERROR(v, MPI_ERR_BUFFER, R, "a buffer is NULL");
    if (skip) return MPI_SUCCESS;
    sm_status_t st = rma_win_compare_swap(&v->rw, target_rank, target_disp, origin_addr, compare_addr, result_addr,
                                          s.t->dt);
    return st ? smpi_win_fail(v, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap

/* --- Request-based operations: passive target only (MPI 3.1 §11.3.5) ------------------------- */

static int request_begin(MPI_Win win, int rank, MPI_Request *request, const char *R)
{
    SMPI_GET_WIN(w, win, R);
    if (!request) return SMPI_WIN_ERROR(w, MPI_ERR_ARG, R, "request is NULL");
    *request = MPI_REQUEST_NULL;
    if (rank != MPI_PROC_NULL && (unsigned)rank < (unsigned)w->rw.n && !(w->rw.open & RMA_OPEN_ALL) &&
        !RMA_ACC_LOCKED(w->rw.access[rank]))
        return SMPI_WIN_ERROR(w, MPI_ERR_RMA_SYNC, R, "no passive-target epoch to rank %d is open (lock, "
                              "lock_all): request-based operations need one", rank);
    return MPI_SUCCESS;
}

/* The operation has completed (rc): a complete request for it. */
static int request_end(MPI_Win win, int rc, MPI_Request *request, const char *R)
{
    if (rc) return rc;
    if (!(*request = smpi_request_done(&smpi_comm_self)))
        return SMPI_WIN_ERROR(smpi_win(win), MPI_ERR_NO_MEM, R, "no memory for a request");
    return MPI_SUCCESS;
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    static const char R[] = "MPI_Rput";
    int rc = request_begin(win, target_rank, request, R);
    if (!rc) rc = transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, win, true, R);
    return request_end(win, rc, request, R);
}
#pragma weak MPI_Rput = PMPI_Rput

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    static const char R[] = "MPI_Rget";
    int rc = request_begin(win, target_rank, request, R);
    if (!rc) rc = transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, win, false, R);
    return request_end(win, rc, request, R);
}
#pragma weak MPI_Rget = PMPI_Rget

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    static const char R[] = "MPI_Raccumulate";
    int rc = request_begin(win, target_rank, request, R);
    if (!rc) rc = accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
                             target_disp, target_count, target_datatype, op, win, false, R);
    return request_end(win, rc, request, R);
}
#pragma weak MPI_Raccumulate = PMPI_Raccumulate

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    static const char R[] = "MPI_Rget_accumulate";
    int rc = request_begin(win, target_rank, request, R);
    if (!rc) rc = accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                             target_rank, target_disp, target_count, target_datatype, op, win, true, R);
    return request_end(win, rc, request, R);
}
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
