/* test_amo.c: the engine's atomics typed at run time (rma.h) on every
 * width, under contention from all ranks on rank 0's memory: accumulate
 * by instruction, by compare-and-swap loop around a kernel, and under a
 * lock (wide or misaligned elements); fetched values, replace (swap) and
 * no-op (fetch); compare-and-swap; vectors of elements; the errors. */
#include <stdalign.h>

#include "rma_test.h"

#define ITER 500
typedef unsigned __int128 u128;
struct wide { uint64_t w[3]; };   /* 24 bytes: no CPU atomic */

static uint8_t c8;
static uint16_t c16;
static uint32_t c32;
static uint64_t c64;
static alignas(16) u128 c128;
static struct wide cw;
static alignas(8) char skew[16];         /* an 8-byte element at offset 4: misaligned */
static uint32_t vec[5];
static struct rma_lock acc_lock;
static u128 sums[64];                    /* rank 0's: each rank's sum of fetched values */

#define R0(x) ((__typeof__(&(x)))sm_remote(0, &(x)))

/* Kernels of the shape of src/coll's: out = a op b. */
#define ADD_KERNEL(T)                                                          \
static void add_##T(void *out, const void *a, const void *b, size_t k)         \
{                                                                              \
    for (size_t i = 0; i < k; i++) ((T *)out)[i] = ((const T *)a)[i] + ((const T *)b)[i]; \
}
ADD_KERNEL(uint8_t)
ADD_KERNEL(uint16_t)
ADD_KERNEL(uint32_t)
ADD_KERNEL(uint64_t)
ADD_KERNEL(u128)
static void add_wide(void *out, const void *a, const void *b, size_t k)
{
    for (size_t i = 0; i < k; i++)
        for (int j = 0; j < 3; j++)
            ((struct wide *)out)[i].w[j] = ((const struct wide *)a)[i].w[j] + ((const struct wide *)b)[i].w[j];
}

/* The sum over every rank of what each fetched: rank 0 adds them up. */
static u128 total(u128 mine)
{
    u128 *s = sm_remote(0, sums);
    s[me] = mine;
    sm_barrier();
    u128 t = 0;
    for (int r = 0; r < n; r++) t += s[r];
    sm_barrier();
    return t;
}
/* Of the values k mod 2^bits for k = start .. start+count-1. */
static u128 expected_sum(u128 start, uint64_t count, int bits)
{
    u128 t = 0, mask = bits >= 128 ? ~(u128)0 : ((u128)1 << bits) - 1;
    for (uint64_t k = 0; k < count; k++) t += (start + k) & mask;
    return t;
}

/* ITER increments of 1 by every rank on rank 0's cell of width w (the cell
 * starts at start), fetching each old value: the counter is exact, and the
 * fetched values are each value it went through once. */
static void increments(void *cell, size_t w, enum rma_native native, rma_kernel_fn k, struct rma_lock *lock,
                       u128 start, const char *what)
{
    void *c = sm_remote(0, cell);
    if (me == 0) memset(cell, 0, w), memcpy(cell, &start, w < 16 ? w : 16);
    sm_barrier();
    u128 one[2] = {1, 0}, mine = 0;   /* room for the 24-byte elements */
    struct rma_acc_op op = {w, native, k};
    for (int i = 0; i < ITER; i++) {
        u128 old[2] = {0, 0};
        CHECK_ST(rma_accumulate(c, one, old, 1, &op, lock), SM_OK);
        mine += old[0];   /* (of a 24-byte element: its first word; the others stay 0) */
    }
    sm_barrier();
    int bits = (int)(8 * (w > 16 ? 8 : w));
    u128 mask = bits >= 128 ? ~(u128)0 : ((u128)1 << bits) - 1, got = 0;
    memcpy(&got, c, w > 16 ? 8 : w);
    CHECK(got == ((start + (u128)ITER * n) & mask), "%s: the counter is %llu", what, (unsigned long long)got);
    CHECK(total(mine) == expected_sum(start, (uint64_t)ITER * n, bits), "%s: fetched values", what);
}

static void every_width(void)
{
    struct { void *cell; size_t w; rma_kernel_fn k; } cells[] = {
        {&c8, 1, add_uint8_t}, {&c16, 2, add_uint16_t}, {&c32, 4, add_uint32_t}, {&c64, 8, add_uint64_t},
    };
    char what[64];
    for (size_t i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "%zu-byte add instruction", cells[i].w);
        increments(cells[i].cell, cells[i].w, RMA_NATIVE_ADD, NULL, NULL, 250, what);
        snprintf(what, sizeof what, "%zu-byte compare-and-swap loop", cells[i].w);
        increments(cells[i].cell, cells[i].w, RMA_NATIVE_NONE, cells[i].k, NULL, 7, what);
    }
    /* 16 bytes: cmpxchg16b, across the carry into the high word */
    u128 near = ((u128)1 << 64) - (u128)(ITER * n / 2);
    increments(&c128, 16, RMA_NATIVE_NONE, add_u128, NULL, near, "16-byte compare-and-swap loop");
    increments(&c128, 16, RMA_NATIVE_ADD, add_u128, NULL, near, "16-byte add (no instruction: the kernel)");
    /* under the lock: 24-byte elements, and a misaligned 8-byte one */
    increments(&cw, sizeof cw, RMA_NATIVE_NONE, add_wide, R0(acc_lock), 3, "24-byte add under the lock");
    if (me == 0) CHECK(cw.w[1] == 0 && cw.w[2] == 0, "the wide element's other words");
    increments(skew + 4, 8, RMA_NATIVE_ADD, add_uint64_t, R0(acc_lock), 11, "misaligned 8-byte add under the lock");
}

/* Replace with fetch (swap) on every width: the values fetched and the
 * last one left are the initial value and every rank's, each once. */
static void swaps(void)
{
    void *cells[] = {&c8, &c16, &c32, &c64, &c128, &cw};
    size_t ws[] = {1, 2, 4, 8, 16, sizeof cw};
    for (size_t i = 0; i < 6; i++) {
        void *c = sm_remote(0, cells[i]);
        u128 init = 100, mine = (u128)me + 1, old = 0;
        if (me == 0) memset(cells[i], 0, ws[i]), memcpy(cells[i], &init, ws[i] < 16 ? ws[i] : 16);
        sm_barrier();
        struct rma_acc_op op = {ws[i], RMA_NATIVE_REPLACE, NULL};
        struct wide src = {{(uint64_t)mine, 0, 0}}, got = {{0}};
        CHECK_ST(rma_accumulate(c, ws[i] > 16 ? (void *)&src : &mine, ws[i] > 16 ? (void *)&got : &old, 1, &op,
                                R0(acc_lock)), SM_OK);
        if (ws[i] > 16) old = got.w[0];
        sm_barrier();
        u128 last = 0;
        struct rma_acc_op fetch = {ws[i], RMA_NATIVE_NOOP, NULL};
        struct wide lastw = {{0}};
        CHECK_ST(rma_accumulate(c, NULL, ws[i] > 16 ? (void *)&lastw : &last, 1, &fetch, R0(acc_lock)), SM_OK);
        if (ws[i] > 16) last = lastw.w[0];
        u128 sum = total(old) + last, want = 100;
        for (int r = 1; r <= n; r++) want += (u128)r;
        CHECK(sum == want, "%zu-byte swaps: the values seen add up to %llu, not %llu", ws[i],
              (unsigned long long)sum, (unsigned long long)want);
        sm_barrier();
    }
}

/* Compare-and-swap on every width: a counter incremented by CAS loops. */
static void compare_swaps(void)
{
    void *cells[] = {&c8, &c16, &c32, &c64, &c128};
    size_t ws[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < 5; i++) {
        void *c = sm_remote(0, cells[i]);
        if (me == 0) memset(cells[i], 0, ws[i]);
        sm_barrier();
        for (int k = 0; k < ITER / 5; k++) {
            u128 old = 0, nv, res;
            memcpy(&old, c, ws[i]);   /* a guess; a torn one only costs a retry */
            for (;;) {
                nv = old + 1, res = 0;
                CHECK_ST(rma_compare_swap(c, &old, &nv, &res, ws[i]), SM_OK);
                if (!memcmp(&res, &old, ws[i])) break;
                old = res;
            }
        }
        sm_barrier();
        u128 got = 0, mask = ws[i] == 16 ? ~(u128)0 : ((u128)1 << (8 * ws[i])) - 1;
        memcpy(&got, c, ws[i]);
        CHECK(got == (((u128)(ITER / 5) * n) & mask), "%zu-byte compare-and-swap counter %llu", ws[i], (unsigned long long)got);
        sm_barrier();
    }
}

/* A vector: every element its own atomic counter. */
static void vectors(void)
{
    uint32_t *v = sm_remote(0, vec), add[5], fetched[5];
    if (me == 0) memset(vec, 0, sizeof vec);
    sm_barrier();
    for (int i = 0; i < 5; i++) add[i] = (uint32_t)i + 1;
    struct rma_acc_op op = {4, RMA_NATIVE_ADD, NULL};
    for (int i = 0; i < ITER / 5; i++) CHECK_ST(rma_accumulate(v, add, fetched, 5, &op, NULL), SM_OK);
    sm_barrier();
    for (int i = 0; i < 5; i++) CHECK(v[i] == (uint32_t)((i + 1) * (ITER / 5) * n), "element %d: %u", i, v[i]);
    sm_barrier();
}

static void errors(void)
{
    uint64_t x = 5, y = 0, r;
    struct rma_acc_op zero = {0, RMA_NATIVE_ADD, NULL}, nokernel = {8, RMA_NATIVE_NONE, NULL},
                      wide = {sizeof cw, RMA_NATIVE_NONE, add_wide};
    CHECK_ST(rma_accumulate(&y, &x, NULL, 1, &zero, NULL), SM_ERR_ARG);
    CHECK_ST(rma_accumulate(&y, &x, NULL, 1, &nokernel, NULL), SM_ERR_ARG);
    CHECK_REASON("no kernel");
    struct wide w = {{1, 2, 3}}, src = {{1, 1, 1}};
    CHECK_ST(rma_accumulate(&w, &src, NULL, 1, &wide, NULL), SM_ERR_UNSUPPORTED);
    CHECK_REASON("need a lock");
    CHECK(w.w[0] == 1 && w.w[1] == 2 && w.w[2] == 3, "an unsupported accumulate changed its target");
    CHECK_ST(rma_compare_swap(skew, &x, &y, &r, 3), SM_ERR_UNSUPPORTED);
    CHECK_ST(rma_compare_swap(skew + 4, &x, &y, &r, 8), SM_ERR_ARG);
    CHECK_REASON("is not aligned");
    CHECK_ST(rma_accumulate(&y, &x, NULL, 0, &nokernel, NULL), SM_ERR_ARG);   /* checked even for 0 elements */
    struct rma_acc_op add = {8, RMA_NATIVE_ADD, NULL};
    CHECK_ST(rma_accumulate(&y, &x, NULL, 0, &add, NULL), SM_OK);
    CHECK(y == 0, "0 elements changed the target");
}

int main(void)
{
    test_start();
    CHECK(n <= 64, "at most 64 ranks");
    every_width();
    swaps();
    compare_swaps();
    vectors();
    errors();
    sm_barrier();
    return 0;
}
