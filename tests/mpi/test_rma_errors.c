/* Bad input to the one-sided calls. "return": with MPI_ERRORS_RETURN on the
 * windows every mistake gives its error class and the program goes on:
 * access outside the target's window, a call outside an epoch or in the
 * wrong kind, a wrong assertion, a lock on a rank the caller has locked
 * already, bad ranks, types, operations, lock types, windows, attachments,
 * keyvals, handlers; window creation with a bad argument on one rank fails
 * on all without hanging; a user's window error handler is called with the
 * window and the class; the inline paths' checks, and a window handle used
 * after MPI_Win_free. Any other mode: rank 1 makes that one mistake under
 * MPI_ERRORS_ARE_FATAL and expect.py checks the one-line message. */
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

#define EXPECT(call, cls) do { int rc_ = (call); \
    CHECK(rc_ == (cls), "%s returned %d, expected %s (%d)", #call, rc_, #cls, cls); } while (0)

static int me, n;

static int handler_calls, handler_code;
static MPI_Win handler_win;
static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}
static void comm_handler(MPI_Comm *comm, int *code, ...) { (void)comm, (void)code; }

static void user_op(void *in, void *inout, int *len, MPI_Datatype *t) { (void)in, (void)inout, (void)len, (void)t; }

static void returns(void)
{
    int64_t *mem, v = 1, r;
    int t = (me + 1) % n;
    MPI_Win win;
    OK(MPI_Win_allocate(10 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* outside an epoch */
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Compare_and_swap(&v, &v, &r, MPI_INT64_T, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    int flag;
    EXPECT(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
    /* wrong assertions */
    EXPECT(MPI_Win_fence(MPI_MODE_NOCHECK, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_lock_all(MPI_MODE_NOSUCCEED, win), MPI_ERR_ASSERT);
    MPI_Group g;
    OK(MPI_Win_get_group(win, &g));
    EXPECT(MPI_Win_start(g, MPI_MODE_NOSTORE, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_post(g, 12345 << 16, win), MPI_ERR_ASSERT);
    /* a fence epoch: outside the window, NOPRECEDE after operations, bad rank, type, op */
    OK(MPI_Win_fence(0, win));
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 10, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, -1, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(mem, 2, MPI_INT64_T, t, 9, 2, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 1000, 1, MPI_INT64_T, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, 10, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Compare_and_swap(&v, &v, &r, MPI_INT64_T, t, 1L << 60, win), MPI_ERR_RMA_RANGE);
    MPI_Datatype wide;   /* 3 elements, 5 apart: 13 elements of span, past a 10-element window */
    OK(MPI_Type_vector(3, 1, 6, MPI_INT64_T, &wide));
    OK(MPI_Type_commit(&wide));
    int64_t three[3] = { 0 };
    EXPECT(MPI_Put(three, 3, MPI_INT64_T, t, 0, 1, wide, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, n, 0, 1, MPI_INT64_T, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, -3, 0, 1, MPI_INT64_T, win), MPI_ERR_RANK);
    OK(MPI_Put(&v, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, win));   /* a no-op */
    /* so are accumulates, whatever the types and op (mpi4py gives MPI_BYTE for the result) */
    OK(MPI_Get_accumulate(&v, 0, MPI_INT, NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, 0, MPI_INT, MPI_SUM, win));
    double dd = 1, dr;
    OK(MPI_Get_accumulate(&dd, 1, MPI_DOUBLE, &dr, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, MPI_BAND, win));
    OK(MPI_Accumulate(&dd, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 2, MPI_FLOAT, MPI_SUM, win));
    EXPECT(MPI_Put(&v, -1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(&v, 1, MPI_DATATYPE_NULL, t, 0, 1, MPI_INT64_T, win), MPI_ERR_TYPE);
    EXPECT(MPI_Put(&v, 2, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_TYPE);   /* sizes differ */
    EXPECT(MPI_Put(NULL, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_BUFFER);
    MPI_Datatype loose;
    OK(MPI_Type_contiguous(2, MPI_INT, &loose));   /* not committed */
    EXPECT(MPI_Get(&v, 1, loose, t, 0, 1, loose, win), MPI_ERR_TYPE);
    OK(MPI_Type_free(&loose));
    EXPECT(MPI_Accumulate(&v, 2, MPI_INT, t, 0, 1, MPI_INT64_T, MPI_SUM, win), MPI_ERR_TYPE);   /* not the same basic */
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_MINLOC, win), MPI_ERR_OP);
    double d = 1;
    EXPECT(MPI_Accumulate(&d, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_BAND, win), MPI_ERR_OP);
    MPI_Op uop;
    OK(MPI_Op_create(user_op, 1, &uop));
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, uop, win), MPI_ERR_OP);
    OK(MPI_Op_free(&uop));
    EXPECT(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, t, 0, win), MPI_ERR_TYPE);
    MPI_Request q;
    EXPECT(MPI_Rput(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win, &q), MPI_ERR_RMA_SYNC);   /* passive only */
    CHECK(q == MPI_REQUEST_NULL, "a failed MPI_Rput leaves MPI_REQUEST_NULL");
    OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
    EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_ERR_ASSERT);    /* operations precede it */
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);  /* the fence epoch has operations */
    EXPECT(MPI_Win_start(g, 0, win), MPI_ERR_RMA_SYNC);
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* locks: twice on a rank, bad type, lock_all with a lock, fence with locks */
    EXPECT(MPI_Win_lock(3, t, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, n + 2, 0, win), MPI_ERR_RANK);
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    if (n > 2) EXPECT(MPI_Win_flush((me + 2) % n, win), MPI_ERR_RMA_SYNC);   /* not locked */
    EXPECT(MPI_Win_flush(n, win), MPI_ERR_RANK);
    OK(MPI_Win_unlock(t, win));
    OK(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 11, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Win_flush(n, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_flush_local(-7, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_flush(MPI_ANY_SOURCE, win), MPI_ERR_RANK);   /* -1: not "every rank" */
    EXPECT(MPI_Win_flush_local(MPI_ANY_SOURCE, win), MPI_ERR_RANK);
    OK(MPI_Win_flush_local_all(win));
    OK(MPI_Rput(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock_all(win));
    /* PSCW: post twice, start with a member not in the window's group */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_post(g, 0, win));
    EXPECT(MPI_Win_post(g, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_start(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
    OK(MPI_Win_start(g, 0, win));
    EXPECT(MPI_Win_start(g, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    OK(MPI_Group_free(&g));
    OK(MPI_Type_free(&wide));
    /* handles (a bad window's error goes to MPI_COMM_WORLD's handler) */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_attach(win, mem, 8), MPI_ERR_RMA_FLAVOR);
    EXPECT(MPI_Win_detach(win, mem), MPI_ERR_RMA_FLAVOR);
    int kv, *pv;
    EXPECT(MPI_Win_get_attr(win, 2000, &pv, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Win_shared_query(win, n, (MPI_Aint *)&v, &flag, &pv), MPI_ERR_RANK);
    /* error handlers: a communicator's is not a window's; the user's is called */
    MPI_Errhandler ceh, weh, got;
    OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    OK(MPI_Win_create_errhandler(win_handler, &weh));
    EXPECT(MPI_Win_set_errhandler(win, ceh), MPI_ERR_ARG);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh), MPI_ERR_ARG);
    OK(MPI_Win_set_errhandler(win, weh));
    OK(MPI_Errhandler_free(&weh));   /* the window keeps it */
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_RMA_SYNC);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_RMA_SYNC && handler_win == win,
          "the window's handler: %d calls, code %d", handler_calls, handler_code);
    OK(MPI_Win_call_errhandler(win, MPI_SUCCESS));  /* nothing to raise */
    OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "MPI_Win_call_errhandler: code %d", handler_code);
    OK(MPI_Win_get_errhandler(win, &got));
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Errhandler_free(&ceh));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* a keyval freed keeps working on the attributes set with it */
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL));
    OK(MPI_Win_set_attr(win, kv, &v));
    OK(MPI_Win_free_keyval(&kv));
    EXPECT(MPI_Win_free_keyval(&kv), MPI_ERR_KEYVAL);
    /* freeing with a lock held: an error, but freed on every rank, nobody hangs */
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    CHECK(win == MPI_WIN_NULL, "freed anyway");
}

/* The checks of the inline paths (put, get, flush, fetch-and-op, compare-
 * and-swap), each made after a put that took them (the window's handle
 * known, its type's size in the table): counts, types, the last partial
 * displacement unit (which the general path takes), a handle kept after
 * MPI_Win_free, windows in turn. */
static void fast(void)
{
    int64_t *mem, *mem2, v = 7, r = 0;
    int32_t h = 0, hv = 0x1234;
    int t = (me + 1) % n;
    MPI_Win win, win2, kept;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Win_allocate(12, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));   /* a unit and a half */
    OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem2, &win2));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_set_errhandler(win2, MPI_ERRORS_RETURN));
    memset(mem, 0, 12), *mem2 = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Win_lock_all(0, win2));
    for (int i = 0; i < 3; i++) OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
    EXPECT(MPI_Put(&v, -1, MPI_INT64_T, t, 0, -1, MPI_INT64_T, win), MPI_ERR_COUNT);
    EXPECT(MPI_Get(&v, -2, MPI_INT64_T, t, 0, -2, MPI_INT64_T, win), MPI_ERR_COUNT);
    OK(MPI_Put(&v, 0, MPI_INT64_T, t, 0, 0, MPI_INT64_T, win));
    OK(MPI_Put(NULL, 0, MPI_INT64_T, t, 0, 0, MPI_INT64_T, win));
    EXPECT(MPI_Put(NULL, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_BUFFER);
    EXPECT(MPI_Get(NULL, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), MPI_ERR_BUFFER);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 2, MPI_INT64_T, win), MPI_ERR_TYPE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_DOUBLE_INT, win), MPI_ERR_TYPE);
    OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 2, MPI_INT32_T, win));               /* same bytes, other types */
    OK(MPI_Put(&hv, 1, MPI_INT32_T, t, 1, 1, MPI_INT32_T, win));              /* bytes [8, 12): in */
    OK(MPI_Put(&hv, 1, MPI_INT32_T, t, 1, 1, MPI_INT32_T, win));
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 1, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);   /* [8, 16): out */
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 2, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, -1, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, INT64_MAX / 4, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, n, 0, 1, MPI_INT64_T, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, -5, 0, 1, MPI_INT64_T, win), MPI_ERR_RANK);
    OK(MPI_Put(&v, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, win));
    OK(MPI_Win_flush(t, win));
    OK(MPI_Get(&h, 1, MPI_INT32_T, t, 1, 1, MPI_INT32_T, win));
    CHECK(h == hv, "the int32 in the last half unit: %#x", (unsigned)h);
    EXPECT(MPI_Win_flush(n, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_flush(-3, win), MPI_ERR_RANK);
    /* windows in turn: each call with the other's handle */
    for (int i = 0; i < 4; i++) {
        int64_t a = 100 + i, b = 200 + i;
        OK(MPI_Put(&a, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
        OK(MPI_Put(&b, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win2));
        OK(MPI_Win_flush(t, win));
        OK(MPI_Win_flush(t, win2));
        OK(MPI_Get(&a, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win2));
        OK(MPI_Get(&b, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
        OK(MPI_Win_flush(t, win2));
        OK(MPI_Win_flush(t, win));
        CHECK(a == 200 + i && b == 100 + i, "windows in turn: %lld %lld", (long long)a, (long long)b);
    }
    OK(MPI_Win_unlock_all(win2));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[0] == 103 && *mem2 == 203, "the windows hold %lld and %lld", (long long)mem[0], (long long)*mem2);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* a handle kept past MPI_Win_free, the last one the calls knew, freed in
     * its epoch (an error, freed anyway): refused, its freed memory not read */
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win));
    kept = win;
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, kept), MPI_ERR_WIN);
    EXPECT(MPI_Get(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, kept), MPI_ERR_WIN);
    EXPECT(MPI_Win_flush(t, kept), MPI_ERR_WIN);
    EXPECT(MPI_Win_flush_all(kept), MPI_ERR_WIN);
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, 0, MPI_SUM, kept), MPI_ERR_WIN);
    EXPECT(MPI_Compare_and_swap(&v, &v, &r, MPI_INT64_T, t, 0, kept), MPI_ERR_WIN);
    EXPECT(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_flush(t, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_INT64_T, t, 0, MPI_SUM, MPI_WIN_NULL), MPI_ERR_WIN);
    OK(MPI_Win_free(&win2));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* A bad argument on one rank: every rank fails, none hangs; no_locks. */
static void creation(void)
{
    MPI_Win win;
    int64_t buf[4];
    int rc = MPI_Win_create(buf, me == n - 1 ? -8 : 32, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(rc == (me == n - 1 ? MPI_ERR_SIZE : n > 1 ? MPI_ERR_OTHER : MPI_ERR_SIZE) && win == MPI_WIN_NULL,
          "MPI_Win_create with a bad size on rank %d: %d", n - 1, rc);
    EXPECT(MPI_Win_create(buf, 32, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
    EXPECT(MPI_Win_allocate(32, 8, MPI_INFO_NULL, MPI_COMM_WORLD, NULL, &win), MPI_ERR_ARG);
    EXPECT(MPI_Win_create(buf, 32, 8, MPI_INFO_NULL, MPI_COMM_NULL, &win), MPI_ERR_COMM);
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "no_locks", "true"));
    OK(MPI_Info_set(info, "accumulate_ordering", "none"));
    OK(MPI_Info_set(info, "accumulate_ops", "same_op"));
    OK(MPI_Win_create(buf, 32, 8, info, MPI_COMM_WORLD, &win));
    OK(MPI_Info_free(&info));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    MPI_Info used;
    char val[64];
    int flag;
    OK(MPI_Win_get_info(win, &used));
    OK(MPI_Info_get(used, "accumulate_ordering", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "none"), "accumulate_ordering '%s'", val);
    OK(MPI_Info_get(used, "accumulate_ops", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "same_op"), "accumulate_ops '%s'", val);
    OK(MPI_Info_free(&used));
    OK(MPI_Win_free(&win));
    /* dynamic: attach overlapping, detach what was not attached */
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_attach(win, buf, 16));
    EXPECT(MPI_Win_attach(win, buf + 1, 16), MPI_ERR_RMA_ATTACH);
    EXPECT(MPI_Win_detach(win, buf + 2), MPI_ERR_RMA_ATTACH);
    EXPECT(MPI_Win_attach(win, buf, -1), MPI_ERR_SIZE);
    OK(MPI_Win_detach(win, buf));
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (!strcmp(mode, "return")) {
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        creation();
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        returns();
        fast();
        OK(MPI_Finalize());
        if (me == 0) printf("test_rma_errors: ok on %d ranks\n", n);
        return 0;
    }
    int64_t *mem, v = 5;
    MPI_Win win;
    OK(MPI_Win_allocate(100 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    if (me == 1) {
        if (!strcmp(mode, "range")) {
            MPI_Win_lock_all(0, win);
            MPI_Put(&v, 1, MPI_INT64_T, 0, 100, 1, MPI_INT64_T, win);
        } else if (!strcmp(mode, "epoch")) {
            MPI_Get(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
        } else if (!strcmp(mode, "assert")) {
            MPI_Win_fence(MPI_MODE_NOCHECK, win);
        } else if (!strcmp(mode, "lock")) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        } else if (!strcmp(mode, "die")) {   /* holding rank 0's lock, which the others wait for */
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Barrier(MPI_COMM_WORLD);
            abort();
        }
        fprintf(stderr, "test_rma_errors: mode %s did not end the job\n", mode);
        return 1;
    }
    if (!strcmp(mode, "die")) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);   /* never granted: the job ends */
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));   /* rank 1 never comes */
    return 0;
}
