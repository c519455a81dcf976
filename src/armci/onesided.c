/* onesided.c: ARMCI's one-sided operations: contiguous, strided (up to 8
 * levels) and vector put, get and accumulate, their non-blocking forms,
 * single values, read-modify-write, flags, fences and barrier. Each is a
 * check of the remote range against the target's ARMCI memory, then a copy
 * (or atomics) by the caller on the target's memory: complete when it
 * returns, with nothing asked of the target. A process on another node is
 * reached through UCX at the same address (armci_put, armci_get; remote.c):
 * complete here when the call returns, at the target at the next fence. */
#include <stdlib.h>
#include <string.h>

#include "armci_internal.h"

/* --- Across nodes ------------------------------------------------------------------ */

void armci_put_remote(int proc, void *dst, const void *src, size_t len, const char *routine)
{
    if (len && rma_remote_put(proc, dst, src, len)) armci_fail("%s: %s", routine, sm_fail_reason());
}
void armci_get_remote(int proc, void *dst, const void *src, size_t len, const char *routine)
{
    if (len && rma_remote_get(proc, dst, src, len)) armci_fail("%s: %s", routine, sm_fail_reason());
}
void armci_quiet(const char *routine)
{
    rma_quiet();
    if (SM_UNLIKELY(rma_remote_up)) {
        if (rma_remote_quiet()) armci_fail("%s: %s", routine, sm_fail_reason());
        rma_remote_idle();
    }
}

/* --- Contiguous ------------------------------------------------------------------ */

int PARMCI_Put(void *src, void *dst, int size, int target)
{
    armci_put(target, armci_remote(target, dst, (size_t)size, "ARMCI_Put"), src, (size_t)size, "ARMCI_Put");
    return 0;
}
int PARMCI_Get(void *src, void *dst, int size, int target)
{
    armci_get(target, dst, armci_remote(target, src, (size_t)size, "ARMCI_Get"), (size_t)size, "ARMCI_Get");
    return 0;
}
int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    const char *r = "ARMCI_Acc";
    void *d = armci_remote(proc, dst, armci_bytes(bytes, r), r);
    armci_acc(datatype, scale, src, d, (size_t)bytes, proc, r);
    return 0;
}
#pragma weak ARMCI_Put = PARMCI_Put
#pragma weak ARMCI_Get = PARMCI_Get
#pragma weak ARMCI_Acc = PARMCI_Acc

void ARMCI_Copy(void *src, void *dst, int size) { memmove(dst, src, armci_bytes(size, "ARMCI_Copy")); }

/* --- Strided ------------------------------------------------------------------------
 * count[0] bytes, count[1..levels] blocks at the strides of each side. */
struct strided {
    int levels;
    size_t count[RMA_STRIDE_LEVELS + 1];
    ptrdiff_t ss[RMA_STRIDE_LEVELS], ds[RMA_STRIDE_LEVELS];
    size_t sspan, dspan;          /* bytes from the first to the end of the last block */
};

static void strided_args(struct strided *s, const int *src_stride, const int *dst_stride, const int *count,
                         int levels, const char *r)
{
    if (levels < 0 || levels > RMA_STRIDE_LEVELS)
        armci_fail("%s: %d stride levels (0..%d)", r, levels, RMA_STRIDE_LEVELS);
    if (!count) armci_fail("%s: count is NULL", r);
    if (levels && (!src_stride || !dst_stride)) armci_fail("%s: a stride array is NULL", r);
    s->levels = levels;
    for (int i = 0; i <= levels; i++) {
        if (count[i] < 0) armci_fail("%s: count[%d] = %d is negative", r, i, count[i]);
        s->count[i] = (size_t)count[i];
    }
    for (int i = 0; i < levels; i++) s->ss[i] = src_stride[i], s->ds[i] = dst_stride[i];
    if (rma_strided_span(s->count, s->ss, levels, &s->sspan))
        armci_fail("%s: src_stride_ar: %s", r, sm_fail_reason());
    if (rma_strided_span(s->count, s->ds, levels, &s->dspan))
        armci_fail("%s: dst_stride_ar: %s", r, sm_fail_reason());
}

/* Put: the remote side is the destination; get: the source. */
static int copy_strided(bool put, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                        int count[], int stride_levels, int proc, const char *r)
{
    struct strided s;
    strided_args(&s, src_stride_ar, dst_stride_ar, count, stride_levels, r);
    if (put) dst_ptr = armci_remote(proc, dst_ptr, s.dspan, r);
    else src_ptr = armci_remote(proc, src_ptr, s.sspan, r);
    if (!s.dspan) return 0;
    if (SM_UNLIKELY(rma_remote(proc))) {
        sm_status_t st = put ? rma_remote_strided(true, proc, dst_ptr, s.ds, src_ptr, s.ss, s.count, s.levels)
                             : rma_remote_strided(false, proc, src_ptr, s.ss, dst_ptr, s.ds, s.count, s.levels);
        if (st) armci_fail("%s: %s", r, sm_fail_reason());
        return 0;
    }
    rma_strided_copy(dst_ptr, s.ds, src_ptr, s.ss, s.count, s.levels);
    return 0;
}

static int acc_strided(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                       int dst_stride_ar[], int count[], int stride_levels, int proc, const char *r)
{
    struct strided s;
    strided_args(&s, src_stride_ar, dst_stride_ar, count, stride_levels, r);
    char *d = armci_remote(proc, dst_ptr, s.dspan, r);
    if (!s.dspan) return 0;
    /* Block by block, the odometer idx over levels 1..L. */
    size_t idx[RMA_STRIDE_LEVELS + 1] = { 0 };
    const char *sp = src_ptr;
    for (;;) {
        armci_acc(datatype, scale, sp, d, s.count[0], proc, r);
        int l = 1;
        for (; l <= s.levels; l++) {
            if (++idx[l] < s.count[l]) {
                sp += s.ss[l - 1], d += s.ds[l - 1];
                break;
            }
            sp -= s.ss[l - 1] * (ptrdiff_t)(s.count[l] - 1), d -= s.ds[l - 1] * (ptrdiff_t)(s.count[l] - 1);
            idx[l] = 0;
        }
        if (l > s.levels) return 0;
    }
}

int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return copy_strided(true, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc, "ARMCI_PutS");
}
int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return copy_strided(false, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc, "ARMCI_GetS");
}
int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                int count[], int stride_levels, int proc)
{
    return acc_strided(datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc,
                       "ARMCI_AccS");
}
#pragma weak ARMCI_PutS = PARMCI_PutS
#pragma weak ARMCI_GetS = PARMCI_GetS
#pragma weak ARMCI_AccS = PARMCI_AccS

/* Local packing: buf holds the section's blocks one after another. */
static void pack_args(struct strided *s, int stride_levels, int stride_arr[], int count[], const char *r)
{
    int contig[RMA_STRIDE_LEVELS];
    if (stride_levels < 0 || stride_levels > RMA_STRIDE_LEVELS)
        armci_fail("%s: %d stride levels (0..%d)", r, stride_levels, RMA_STRIDE_LEVELS);
    if (!count) armci_fail("%s: count is NULL", r);
    long long n = count[0];
    for (int i = 0; i < stride_levels; i++) {
        if (n > INT32_MAX) armci_fail("%s: the section is larger than 2 GiB", r);
        contig[i] = (int)n;
        n *= count[i + 1];
    }
    strided_args(s, contig, stride_arr, count, stride_levels, r);   /* src: buf, dst: the section */
}
void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    struct strided s;
    pack_args(&s, stride_levels, stride_arr, count, "armci_write_strided");
    if (s.dspan) rma_strided_copy(ptr, s.ds, buf, s.ss, s.count, s.levels);
}
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    struct strided s;
    pack_args(&s, stride_levels, stride_arr, count, "armci_read_strided");
    if (s.dspan) rma_strided_copy(buf, s.ss, ptr, s.ds, s.count, s.levels);
}

/* --- Flags: the data, then the flag (a release store: who sees it sees the data) ------------ */
static void set_flag(int *flag, int value, int proc, const char *r)
{
    int *f = armci_remote(proc, flag, sizeof *f, r);
    if ((uintptr_t)f % sizeof *f) armci_fail("%s: flag %p is not aligned to %zu bytes", r, (void *)flag, sizeof *f);
    if (SM_UNLIKELY(rma_remote(proc))) {   /* the data complete there first */
        armci_quiet(r);
        armci_put_remote(proc, f, &value, sizeof value, r);
        return;
    }
    __atomic_store_n(f, value, __ATOMIC_RELEASE);
    rma_wake(proc);
}
int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc)
{
    const char *r = "ARMCI_Put_flag";
    armci_put(proc, armci_remote(proc, dst, armci_bytes(size, r), r), src, (size_t)size, r);
    set_flag(flag, value, proc, r);
    return 0;
}
int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                     int stride_levels, int *flag, int value, int proc)
{
    const char *r = "ARMCI_PutS_flag";
    copy_strided(true, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc, r);
    set_flag(flag, value, proc, r);
    return 0;
}
#pragma weak ARMCI_Put_flag = PARMCI_Put_flag
#pragma weak ARMCI_PutS_flag = PARMCI_PutS_flag

/* --- Vector ---------------------------------------------------------------------------- */
enum vop { V_PUT, V_GET, V_ACC };
static int vector(enum vop op, int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, const char *r)
{
    if (iov_len < 0) armci_fail("%s: iov_len %d is negative", r, iov_len);
    if (iov_len && !iov) armci_fail("%s: iov is NULL", r);
    armci_check_proc(proc, r);
    for (int v = 0; v < iov_len; v++) {
        const armci_giov_t *d = &iov[v];
        if (d->bytes < 0) armci_fail("%s: iov[%d].bytes = %d is negative", r, v, d->bytes);
        if (d->ptr_array_len < 0) armci_fail("%s: iov[%d].ptr_array_len = %d is negative", r, v, d->ptr_array_len);
        if (d->ptr_array_len && (!d->src_ptr_array || !d->dst_ptr_array))
            armci_fail("%s: iov[%d] has a NULL pointer array", r, v);
        size_t len = (size_t)d->bytes;
        if (!len) continue;
        for (int i = 0; i < d->ptr_array_len; i++) {
            void *s = d->src_ptr_array[i], *t = d->dst_ptr_array[i];
            switch (op) {
            case V_PUT: armci_put(proc, armci_remote(proc, t, len, r), s, len, r); break;
            case V_GET: armci_get(proc, t, armci_remote(proc, s, len, r), len, r); break;
            default: armci_acc(datatype, scale, s, armci_remote(proc, t, len, r), len, proc, r); break;
            }
        }
    }
    return 0;
}
int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc) { return vector(V_PUT, 0, NULL, iov, iov_len, proc, "ARMCI_PutV"); }
int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc) { return vector(V_GET, 0, NULL, iov, iov_len, proc, "ARMCI_GetV"); }
int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc)
{
    return vector(V_ACC, datatype, scale, iov, iov_len, proc, "ARMCI_AccV");
}
#pragma weak ARMCI_PutV = PARMCI_PutV
#pragma weak ARMCI_GetV = PARMCI_GetV
#pragma weak ARMCI_AccV = PARMCI_AccV

/* --- Non-blocking: complete when they return ---------------------------------------------- */
static inline void handle_set(armci_hdl_t *hdl, int proc)
{
    if (hdl) hdl->target = proc;
}
void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    if (hdl) *hdl = (armci_hdl_t){ .target = -1, .aggregate = 0 };
}
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle) { if (handle) handle->aggregate = 1; }
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle) { if (handle) handle->aggregate = 0; }

int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    armci_put(proc, armci_remote(proc, dst, (size_t)bytes, "ARMCI_NbPut"), src, (size_t)bytes, "ARMCI_NbPut");
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    armci_get(proc, dst, armci_remote(proc, src, (size_t)bytes, "ARMCI_NbGet"), (size_t)bytes, "ARMCI_NbGet");
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    const char *r = "ARMCI_NbAcc";
    armci_acc(datatype, scale, src, armci_remote(proc, dst, armci_bytes(bytes, r), r), (size_t)bytes, proc, r);
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                  int stride_levels, int proc, armci_hdl_t *hdl)
{
    copy_strided(true, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc, "ARMCI_NbPutS");
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                  int stride_levels, int proc, armci_hdl_t *hdl)
{
    copy_strided(false, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc, "ARMCI_NbGetS");
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    acc_strided(datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc,
                "ARMCI_NbAccS");
    handle_set(hdl, proc);
    return 0;
}
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    vector(V_PUT, 0, NULL, iov, iov_len, proc, "ARMCI_NbPutV");
    handle_set(handle, proc);
    return 0;
}
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    vector(V_GET, 0, NULL, iov, iov_len, proc, "ARMCI_NbGetV");
    handle_set(handle, proc);
    return 0;
}
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    vector(V_ACC, datatype, scale, iov, iov_len, proc, "ARMCI_NbAccV");
    handle_set(handle, proc);
    return 0;
}
#pragma weak ARMCI_NbPut = PARMCI_NbPut
#pragma weak ARMCI_NbGet = PARMCI_NbGet
#pragma weak ARMCI_NbAcc = PARMCI_NbAcc
#pragma weak ARMCI_NbPutS = PARMCI_NbPutS
#pragma weak ARMCI_NbGetS = PARMCI_NbGetS
#pragma weak ARMCI_NbAccS = PARMCI_NbAccS
#pragma weak ARMCI_NbPutV = PARMCI_NbPutV
#pragma weak ARMCI_NbGetV = PARMCI_NbGetV
#pragma weak ARMCI_NbAccV = PARMCI_NbAccV

/* Everything is complete already: Wait and Test have nothing to wait for,
 * WaitProc and WaitAll order as fences do. */
int PARMCI_Wait(armci_hdl_t *hdl) { (void)hdl; return 0; }
int PARMCI_Test(armci_hdl_t *hdl) { (void)hdl; return 0; }
int PARMCI_WaitProc(int proc)
{
    armci_check_proc(proc, "ARMCI_WaitProc");
    armci_quiet("ARMCI_WaitProc");
    return 0;
}
int PARMCI_WaitAll(void)
{
    armci_require_init("ARMCI_WaitAll");
    armci_quiet("ARMCI_WaitAll");
    return 0;
}
#pragma weak ARMCI_Wait = PARMCI_Wait
#pragma weak ARMCI_Test = PARMCI_Test
#pragma weak ARMCI_WaitProc = PARMCI_WaitProc
#pragma weak ARMCI_WaitAll = PARMCI_WaitAll

/* --- Single values ------------------------------------------------------------------------ */
#define VALUE_OPS(N, T)                                                                              \
int PARMCI_PutValue##N(T src, void *dst, int proc)                                                   \
{                                                                                                    \
    armci_put(proc, armci_remote(proc, dst, sizeof(T), "ARMCI_PutValue" #N), &src, sizeof(T),        \
              "ARMCI_PutValue" #N);                                                                  \
    return 0;                                                                                        \
}                                                                                                    \
int PARMCI_NbPutValue##N(T src, void *dst, int proc, armci_hdl_t *hdl)                               \
{                                                                                                    \
    armci_put(proc, armci_remote(proc, dst, sizeof(T), "ARMCI_NbPutValue" #N), &src, sizeof(T),      \
              "ARMCI_NbPutValue" #N);                                                                \
    handle_set(hdl, proc);                                                                           \
    return 0;                                                                                        \
}                                                                                                    \
T PARMCI_GetValue##N(void *src, int proc)                                                            \
{                                                                                                    \
    T v;                                                                                             \
    armci_get(proc, &v, armci_remote(proc, src, sizeof(T), "ARMCI_GetValue" #N), sizeof(T),          \
              "ARMCI_GetValue" #N);                                                                  \
    return v;                                                                                        \
}
VALUE_OPS(Int, int)
VALUE_OPS(Long, long)
VALUE_OPS(Float, float)
VALUE_OPS(Double, double)
#undef VALUE_OPS
#pragma weak ARMCI_PutValueInt = PARMCI_PutValueInt
#pragma weak ARMCI_PutValueLong = PARMCI_PutValueLong
#pragma weak ARMCI_PutValueFloat = PARMCI_PutValueFloat
#pragma weak ARMCI_PutValueDouble = PARMCI_PutValueDouble
#pragma weak ARMCI_NbPutValueInt = PARMCI_NbPutValueInt
#pragma weak ARMCI_NbPutValueLong = PARMCI_NbPutValueLong
#pragma weak ARMCI_NbPutValueFloat = PARMCI_NbPutValueFloat
#pragma weak ARMCI_NbPutValueDouble = PARMCI_NbPutValueDouble
#pragma weak ARMCI_GetValueInt = PARMCI_GetValueInt
#pragma weak ARMCI_GetValueLong = PARMCI_GetValueLong
#pragma weak ARMCI_GetValueFloat = PARMCI_GetValueFloat
#pragma weak ARMCI_GetValueDouble = PARMCI_GetValueDouble

/* --- Read-modify-write: CPU atomics on the target's int or long -------------------------- */
int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    const char *r = "ARMCI_Rmw";
    bool is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
    if (!is_long && op != ARMCI_FETCH_AND_ADD && op != ARMCI_SWAP)
        armci_fail("%s: op %d is not one of ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG",
                   r, op);
    if (!ploc) armci_fail("%s: ploc is NULL", r);
    size_t w = is_long ? sizeof(long) : sizeof(int);
    void *p = armci_remote(proc, prem, w, r);
    if ((uintptr_t)p % w) armci_fail("%s: remote address %p is not aligned to %zu bytes", r, prem, w);
    if (SM_UNLIKELY(rma_remote(proc))) {   /* a UCX atomic, a CPU one at the target: the two mix */
        bool swap = op == ARMCI_SWAP || op == ARMCI_SWAP_LONG;
        uint64_t v = (uint64_t)(int64_t)value, old = 0;
        if (swap && is_long) { long x; memcpy(&x, ploc, sizeof x); v = (uint64_t)x; }
        else if (swap) { int x; memcpy(&x, ploc, sizeof x); v = (uint64_t)(uint32_t)x; }
        if (rma_remote_amo(proc, p, swap ? RMA_AMO_SWAP : RMA_AMO_ADD, w, v, 0, &old))
            armci_fail("%s: %s", r, sm_fail_reason());
        if (is_long) { long x = (long)old; memcpy(ploc, &x, sizeof x); }
        else { int x = (int)(uint32_t)old; memcpy(ploc, &x, sizeof x); }
        return 0;
    }
    if (is_long) {
        long v = value, old;
        if (op == ARMCI_SWAP_LONG) memcpy(&v, ploc, sizeof v), old = __atomic_exchange_n((long *)p, v, __ATOMIC_SEQ_CST);
        else old = __atomic_fetch_add((long *)p, v, __ATOMIC_SEQ_CST);
        memcpy(ploc, &old, sizeof old);
    } else {
        int v = value, old;
        if (op == ARMCI_SWAP) memcpy(&v, ploc, sizeof v), old = __atomic_exchange_n((int *)p, v, __ATOMIC_SEQ_CST);
        else old = __atomic_fetch_add((int *)p, v, __ATOMIC_SEQ_CST);
        memcpy(ploc, &old, sizeof old);
    }
    return 0;
}
#pragma weak ARMCI_Rmw = PARMCI_Rmw

/* --- Ordering ------------------------------------------------------------------------------ */
void PARMCI_Fence(int proc)
{
    armci_check_proc(proc, "ARMCI_Fence");
    armci_quiet("ARMCI_Fence");
}
void PARMCI_AllFence(void)
{
    armci_require_init("ARMCI_AllFence");
    armci_quiet("ARMCI_AllFence");
}
void PARMCI_Barrier(void)
{
    armci_require_init("ARMCI_Barrier");
    armci_quiet("ARMCI_Barrier");
    sm_status_t st = coll_barrier(&armci_world.impl->cg);
    if (st) armci_fail_status("ARMCI_Barrier", st);
}
/* Direct access to the caller's own ARMCI memory: a full barrier on each side. */
void PARMCI_Access_begin(void *ptr)
{
    armci_remote(armci_me, ptr, 1, "ARMCI_Access_begin");
    rma_quiet();
}
void PARMCI_Access_end(void *ptr)
{
    armci_remote(armci_me, ptr, 1, "ARMCI_Access_end");
    rma_quiet();
}
#pragma weak ARMCI_Fence = PARMCI_Fence
#pragma weak ARMCI_AllFence = PARMCI_AllFence
#pragma weak ARMCI_Barrier = PARMCI_Barrier
#pragma weak ARMCI_Access_begin = PARMCI_Access_begin
#pragma weak ARMCI_Access_end = PARMCI_Access_end
