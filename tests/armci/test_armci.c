/* test_armci.c: ARMCI on smartmap, one routine group per case, checked
 * element by element on any number of processes (no MPI):
 *   malloc   ARMCI_Malloc/Free with a size per process (0 too), direct load/store, values, flags
 *   strided  PutS/GetS of 0 to 8 stride levels against a reference (gaps untouched)
 *   vector   PutV/GetV with several descriptors, against a reference
 *   acc      Acc/AccS/AccV of every type with scale, from every process at once, misaligned too
 *   rmw      FETCH_AND_ADD(_LONG) counters exact under contention, SWAP(_LONG) a permutation
 *   mutex    mutual exclusion: a counter read and written (not atomically) under the lock
 *   nb       the non-blocking forms with handles, Wait, Test, WaitProc, WaitAll
 *   groups   groups, group memory and collectives, the default group
 *   msg      armci_msg_* collectives
 * Usage: test_armci CASE... (or all) */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>

#include "../core/check.h"

static int me, n;
static int ITER = 200;   /* contended rounds: ARMCI_TEST_ITER (fewer across nodes: round trips over TCP) */

/* --- malloc ------------------------------------------------------------------------ */
static void t_malloc(void)
{
    void **p = malloc(sizeof *p * (size_t)n);
    /* A size per process, 0 for process 1. */
    long mine = me == 1 ? 0 : 1000 + 8 * me;
    CHECK(ARMCI_Malloc(p, mine) == 0, "ARMCI_Malloc");
    for (int i = 0; i < n; i++) CHECK((p[i] == NULL) == (i == 1), "p[%d] = %p", i, p[i]);
    if (mine) memset(p[me], 0, (size_t)mine);
    ARMCI_Barrier();
    /* Every other process writes its id at its place, through a put and by a direct store. */
    for (int t = 0; t < n; t++) {
        if (t == 1) continue;
        int v = me;
        ARMCI_Put(&v, (int *)p[t] + me, sizeof v, t);
        if (ARMCI_Same_node(t)) ((int *)p[t])[n + me] = 100 + me;   /* ARMCI_Uses_shm: reachable directly */
        else ARMCI_PutValueInt(100 + me, (int *)p[t] + n + me, t);    /* (a process on another node) */
        ARMCI_PutValueLong(7L * me, (long *)p[t] + n + (n + 1) / 2 + me, t);
    }
    ARMCI_Barrier();
    if (mine)
        for (int i = 0; i < n; i++) {
            CHECK(((int *)p[me])[i] == i, "slot %d: %d", i, ((int *)p[me])[i]);
            CHECK(((int *)p[me])[n + i] == 100 + i, "direct slot %d: %d", i, ((int *)p[me])[n + i]);
            CHECK(((long *)p[me])[n + (n + 1) / 2 + i] == 7L * i, "long slot %d", i);
        }
    for (int t = 0; t < n; t++)
        if (t != 1) {
            CHECK(ARMCI_GetValueInt((int *)p[t] + me, t) == me, "GetValueInt from %d", t);
            CHECK(ARMCI_GetValueLong((long *)p[t] + n + (n + 1) / 2 + me, t) == 7L * me, "GetValueLong from %d", t);
        }
    ARMCI_Barrier();
    CHECK(ARMCI_Free(p[me]) == 0, "ARMCI_Free");

    /* Every size 0: every address NULL. */
    CHECK(ARMCI_Malloc(p, 0) == 0 && ARMCI_Free(NULL) == 0, "ARMCI_Malloc(0)");
    for (int i = 0; i < n; i++) CHECK(p[i] == NULL, "p[%d] = %p for size 0", i, p[i]);

    /* Many at once, freed in another order; the regions stay right. */
    enum { K = 24 };
    void **q[K];
    for (int k = 0; k < K; k++) {
        q[k] = malloc(sizeof *q[k] * (size_t)n);
        CHECK(ARMCI_Malloc(q[k], 64 * (k + 1)) == 0, "ARMCI_Malloc %d", k);
        memset(q[k][me], k, 64 * (size_t)(k + 1));
    }
    for (int k = 0; k < K; k += 2) ARMCI_Free(q[k][me]);
    ARMCI_Barrier();
    for (int k = 1; k < K; k += 2) {
        char buf[64 * K];
        int t = (me + k) % n;
        ARMCI_Get(q[k][t], buf, 64 * (k + 1), t);
        for (int i = 0; i < 64 * (k + 1); i++) CHECK(buf[i] == k, "allocation %d byte %d: %d", k, i, buf[i]);
    }
    ARMCI_Barrier();
    for (int k = 1; k < K; k += 2) ARMCI_Free(q[k][me]);
    for (int k = 0; k < K; k++) free(q[k]);

    /* Put_flag: whoever sees the flag sees the data. */
    CHECK(ARMCI_Malloc(p, 4096 + 64) == 0, "ARMCI_Malloc flag");
    memset(p[me], 0, 4096 + 64);
    ARMCI_Barrier();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    char data[4096];
    for (int round = 1; round <= 20; round++) {
        memset(data, round + me, sizeof data);
        ARMCI_Put_flag(data, p[right], sizeof data, (int *)((char *)p[right] + 4096), round, right);
        volatile int *flag = (int *)((char *)p[me] + 4096);
        while (*flag != round)   /* across nodes UCX needs this process to run its worker: WaitAll does */
            if (!ARMCI_Same_node(left)) ARMCI_WaitAll();
        for (size_t i = 0; i < sizeof data; i++)
            CHECK(((char *)p[me])[i] == (char)(round + left), "round %d byte %zu", round, i);
        ARMCI_Barrier();
    }
    ARMCI_Free(p[me]);

    void *loc = ARMCI_Malloc_local(100);
    CHECK(loc != NULL, "ARMCI_Malloc_local");
    ARMCI_Free_local(loc);
    free(p);
}

/* --- strided ----------------------------------------------------------------------------
 * Level L: count[0] = 24 bytes, count[1..L] = 2 (3 at level 1); the
 * destination's dimensions are padded by one block, the source's by two. */
struct section { int levels, count[9], stride[8]; size_t span; };
static void section(struct section *s, int levels, int pad)
{
    s->levels = levels;
    s->count[0] = 24;
    size_t dim = 24 + 8 * pad;   /* bytes of one row, padded */
    for (int i = 1; i <= levels; i++) {
        s->count[i] = levels == 1 ? 3 : 2;
        s->stride[i - 1] = (int)dim;
        dim *= (size_t)(s->count[i] + pad);
    }
    s->span = dim;
}
/* The offset of block k (in order) of s. */
static size_t block_off(const struct section *s, size_t k)
{
    size_t off = 0;
    for (int i = 1; i <= s->levels; i++) {
        off += (k % (size_t)s->count[i]) * (size_t)s->stride[i - 1];
        k /= (size_t)s->count[i];
    }
    return off;
}
static size_t nblocks(const struct section *s)
{
    size_t b = 1;
    for (int i = 1; i <= s->levels; i++) b *= (size_t)s->count[i];
    return b;
}
static unsigned char pattern(int who, size_t i) { return (unsigned char)(who * 31 + i * 7 + 1); }

static void t_strided(void)
{
    void **p = malloc(sizeof *p * (size_t)n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int L = 0; L <= 8; L++) {
        struct section d, s;
        section(&d, L, 1), section(&s, L, 2);
        CHECK(ARMCI_Malloc(p, (long)d.span) == 0, "ARMCI_Malloc level %d", L);
        unsigned char *src = malloc(s.span), *mine = p[me];
        for (size_t i = 0; i < s.span; i++) src[i] = pattern(me, i);
        memset(mine, 0xee, d.span);
        ARMCI_Barrier();
        CHECK(ARMCI_PutS(src, s.stride, p[right], d.stride, d.count, L, right) == 0, "PutS level %d", L);
        ARMCI_Barrier();
        /* Reference: block k of the left neighbour's source lands at block k here; the rest is untouched. */
        unsigned char *ref = malloc(d.span);
        memset(ref, 0xee, d.span);
        for (size_t k = 0; k < nblocks(&d); k++)
            for (int b = 0; b < d.count[0]; b++) ref[block_off(&d, k) + b] = pattern(left, block_off(&s, k) + b);
        for (size_t i = 0; i < d.span; i++) CHECK(mine[i] == ref[i], "PutS level %d byte %zu: %#x, expected %#x", L, i, mine[i], ref[i]);
        /* GetS: the right neighbour's memory (its reference) into a strided buffer of the source's shape. */
        ARMCI_Barrier();
        for (size_t i = 0; i < d.span; i++) mine[i] = pattern(me + 50, i);
        ARMCI_Barrier();
        unsigned char *got = malloc(s.span);
        memset(got, 0xdd, s.span);
        CHECK(ARMCI_GetS(p[right], d.stride, got, s.stride, d.count, L, right) == 0, "GetS level %d", L);
        for (size_t k = 0; k < nblocks(&d); k++)
            for (int b = 0; b < d.count[0]; b++)
                CHECK(got[block_off(&s, k) + b] == pattern(right + 50, block_off(&d, k) + b), "GetS level %d block %zu", L, k);
        char *in = calloc(s.span, 1);   /* the bytes of the blocks: the others are untouched */
        for (size_t k = 0; k < nblocks(&d); k++) memset(in + block_off(&s, k), 1, 24);
        for (size_t i = 0; i < s.span; i++) CHECK(in[i] || got[i] == 0xdd, "GetS level %d wrote byte %zu outside the section", L, i);
        free(in);
        /* Pack and unpack a local section. */
        unsigned char *packed = malloc(nblocks(&d) * 24);
        armci_read_strided(got, L, s.stride, d.count, (char *)packed);
        for (size_t k = 0; k < nblocks(&d); k++)
            CHECK(!memcmp(packed + k * 24, got + block_off(&s, k), 24), "armci_read_strided level %d block %zu", L, k);
        memset(got, 0, s.span);
        armci_write_strided(got, L, s.stride, d.count, (char *)packed);
        for (size_t k = 0; k < nblocks(&d); k++)
            CHECK(!memcmp(packed + k * 24, got + block_off(&s, k), 24), "armci_write_strided level %d block %zu", L, k);
        ARMCI_Barrier();
        ARMCI_Free(p[me]);
        free(src), free(ref), free(got), free(packed);
    }
    free(p);
}

/* --- vector ------------------------------------------------------------------------------- */
static void t_vector(void)
{
    enum { SEG = 40, NSEG = 13, SPAN = 2 * NSEG * SEG * 2 };
    void **p = malloc(sizeof *p * (size_t)n);
    CHECK(ARMCI_Malloc(p, SPAN) == 0, "ARMCI_Malloc");
    unsigned char *mine = p[me], src[SPAN], got[SPAN];
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < SPAN; i++) src[i] = pattern(me, (size_t)i);
    memset(mine, 0, SPAN);
    ARMCI_Barrier();
    /* Two descriptors: segments at every other place (backwards in the second). */
    void *s0[NSEG], *d0[NSEG], *s1[NSEG], *d1[NSEG];
    for (int i = 0; i < NSEG; i++) {
        s0[i] = src + i * SEG, d0[i] = (char *)p[right] + 2 * i * SEG;
        s1[i] = src + (NSEG + i) * SEG, d1[i] = (char *)p[right] + (2 * NSEG + 2 * (NSEG - 1 - i)) * SEG;
    }
    armci_giov_t iov[2] = { { s0, d0, SEG, NSEG }, { s1, d1, SEG, NSEG } };
    CHECK(ARMCI_PutV(iov, 2, right) == 0, "PutV");
    ARMCI_Barrier();
    for (int i = 0; i < NSEG; i++)
        for (int b = 0; b < SEG; b++) {
            CHECK(mine[2 * i * SEG + b] == pattern(left, (size_t)(i * SEG + b)), "PutV descriptor 0 segment %d", i);
            CHECK(mine[(2 * i + 1) * SEG + b] == 0, "PutV gap %d", i);
            CHECK(mine[(2 * NSEG + 2 * (NSEG - 1 - i)) * SEG + b] == pattern(left, (size_t)((NSEG + i) * SEG + b)),
                  "PutV descriptor 1 segment %d", i);
        }
    ARMCI_Barrier();
    /* GetV the same segments back from the right neighbour into a packed buffer. */
    memset(got, 0, SPAN);
    void *g0[NSEG], *r0[NSEG];
    for (int i = 0; i < NSEG; i++) r0[i] = (char *)p[right] + 2 * i * SEG, g0[i] = got + i * SEG;
    armci_giov_t giov = { r0, g0, SEG, NSEG };
    CHECK(ARMCI_GetV(&giov, 1, right) == 0, "GetV");
    for (int i = 0; i < NSEG * SEG; i++) CHECK(got[i] == pattern(me, (size_t)i), "GetV byte %d", i);
    ARMCI_Barrier();
    ARMCI_Free(p[me]);
    free(p);
}

/* --- acc ------------------------------------------------------------------------------------
 * Every process adds scale_p * src (small integers: exact in every type)
 * ITER/10 times into every process's array, contiguous at a misaligned
 * place too, strided and by vector; the sum is known. */
#define NE 33
static void acc_one(int type, size_t w)
{
    void **p = malloc(sizeof *p * (size_t)n);
    size_t span = 4 * NE * w + 64;
    CHECK(ARMCI_Malloc(p, (long)span) == 0, "ARMCI_Malloc");
    memset(p[me], 0, span);
    /* The source: element i is i+1, in the type. */
    char *src = malloc(NE * w);
    for (int i = 0; i < NE; i++) {
        switch (type) {
        case ARMCI_ACC_INT: ((int *)src)[i] = i + 1; break;
        case ARMCI_ACC_LNG: ((long *)src)[i] = i + 1; break;
        case ARMCI_ACC_FLT: ((float *)src)[i] = (float)(i + 1); break;
        case ARMCI_ACC_DBL: ((double *)src)[i] = i + 1; break;
        case ARMCI_ACC_CPL: ((float complex *)src)[i] = (float)(i + 1) + (float)i * I; break;
        default: ((double complex *)src)[i] = (i + 1) + i * I; break;
        }
    }
    /* scale_p: p + 1 (times 1 + i for the complex types). */
    union { int i; long l; float f; double d; float complex c; double complex z; } sc;
    switch (type) {
    case ARMCI_ACC_INT: sc.i = me + 1; break;
    case ARMCI_ACC_LNG: sc.l = me + 1; break;
    case ARMCI_ACC_FLT: sc.f = (float)(me + 1); break;
    case ARMCI_ACC_DBL: sc.d = me + 1; break;
    case ARMCI_ACC_CPL: sc.c = (float)(me + 1) * (1 + I); break;
    default: sc.z = (me + 1) * (1 + I); break;
    }
    ARMCI_Barrier();
    int reps = ITER / 10;
    int count[2] = { (int)(NE * w / 3 / w * w), 3 }, sstride[1] = { count[0] }, dstride[1] = { count[0] };
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < n; k++) {
            int t = (me + k) % n;
            char *base = p[t];
            ARMCI_Acc(type, &sc, src, base, (int)(NE * w), t);                      /* part 0: contiguous */
            ARMCI_Acc(type, &sc, src, base, 0, t);                                   /* 0 bytes: nothing */
            ARMCI_Acc(type, &sc, src, base + 3 * NE * w + 1, (int)(NE * w), t);     /* part 3, misaligned by a byte */
            ARMCI_AccS(type, &sc, src, sstride, base + NE * w, dstride, count, 1, t);   /* part 1: strided */
            void *sv[NE], *dv[NE];
            for (int i = 0; i < NE; i++) sv[i] = src + i * w, dv[i] = base + 2 * NE * w + i * w;
            armci_giov_t iov = { sv, dv, (int)w, NE };
            ARMCI_AccV(type, &sc, &iov, 1, t);                                       /* part 2: vector */
        }
    ARMCI_Barrier();
    /* Each element: (sum over p of scale_p) * reps * src[i]. */
    long s = (long)n * (n + 1) / 2 * reps;
    char *mine = p[me];
    int per1 = count[0] / (int)w * 3;
    for (int part = 0; part < 4; part++)
        for (int i = 0; i < NE; i++) {
            if (part == 1 && i >= per1) break;
            char *at = mine + (size_t)part * NE * w + (part == 3) + (size_t)i * w;
            switch (type) {
            case ARMCI_ACC_INT: { int v; memcpy(&v, at, w); CHECK(v == s * (i + 1), "INT part %d [%d] = %d, expected %ld", part, i, v, s * (i + 1)); break; }
            case ARMCI_ACC_LNG: { long v; memcpy(&v, at, w); CHECK(v == s * (i + 1), "LNG part %d [%d] = %ld", part, i, v); break; }
            case ARMCI_ACC_FLT: { float v; memcpy(&v, at, w); CHECK(v == (float)(s * (i + 1)), "FLT part %d [%d] = %g", part, i, v); break; }
            case ARMCI_ACC_DBL: { double v; memcpy(&v, at, w); CHECK(v == (double)(s * (i + 1)), "DBL part %d [%d] = %g", part, i, v); break; }
            case ARMCI_ACC_CPL: {
                float complex v, e = (float)s * (1 + I) * ((float)(i + 1) + (float)i * I);
                memcpy(&v, at, w);
                CHECK(v == e, "CPL part %d [%d] = %g%+gi, expected %g%+gi", part, i, crealf(v), cimagf(v), crealf(e), cimagf(e));
                break;
            }
            default: {
                double complex v, e = (double)s * (1 + I) * ((i + 1) + i * I);
                memcpy(&v, at, w);
                CHECK(v == e, "DCP part %d [%d] = %g%+gi, expected %g%+gi", part, i, creal(v), cimag(v), creal(e), cimag(e));
            }
            }
        }
    ARMCI_Barrier();
    ARMCI_Free(p[me]);
    free(src), free(p);
}
static void t_acc(void)
{
    acc_one(ARMCI_ACC_INT, sizeof(int));
    acc_one(ARMCI_ACC_LNG, sizeof(long));
    acc_one(ARMCI_ACC_FLT, sizeof(float));
    acc_one(ARMCI_ACC_DBL, sizeof(double));
    acc_one(ARMCI_ACC_CPL, sizeof(float complex));
    acc_one(ARMCI_ACC_DCP, sizeof(double complex));
}

/* --- rmw ----------------------------------------------------------------------------------- */
static void t_rmw(void)
{
    void **p = malloc(sizeof *p * (size_t)n);
    CHECK(ARMCI_Malloc(p, (long)(64 + sizeof(long) * (size_t)(n * ITER * 2 + 8))) == 0, "ARMCI_Malloc");
    memset(p[me], 0, 64 + sizeof(long) * (size_t)(n * ITER * 2 + 8));
    ARMCI_Barrier();
    /* Every process takes ITER tickets from process 0's int counter and ITER
     * from its long counter, and marks each ticket it got there: every
     * ticket exactly once. */
    int *ci = p[0];
    long *cl = (long *)p[0] + 1, *seen = (long *)p[0] + 8;
    for (int k = 0; k < ITER; k++) {
        int ti = -1;
        long tl = -1, one = 1;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &ti, ci, 1, 0);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &tl, cl, 1, 0);
        CHECK(ti >= 0 && ti < n * ITER && tl >= 0 && tl < n * ITER, "tickets %d %ld", ti, tl);
        ARMCI_Acc(ARMCI_ACC_LNG, &one, &one, seen + ti, sizeof one, 0);
        ARMCI_Acc(ARMCI_ACC_LNG, &one, &one, seen + n * ITER + tl, sizeof one, 0);
    }
    ARMCI_Barrier();
    if (me == 0) {
        CHECK(*ci == n * ITER && *cl == n * ITER, "counters %d %ld, expected %d", *ci, *cl, n * ITER);
        for (int i = 0; i < 2 * n * ITER; i++) CHECK(seen[i] == 1, "ticket %d taken %ld times", i, seen[i]);
    }
    ARMCI_Barrier();
    /* SWAP: each process swaps its id in and keeps what it got: the values
     * got and the one left are each id once, and the initial -1. */
    memset(p[me], 0, 64);
    ((int *)p[me])[0] = -1, ((long *)p[me])[1] = -1;
    ARMCI_Barrier();
    int vi = me;
    long vl = me;
    ARMCI_Rmw(ARMCI_SWAP, &vi, p[1 % n], 0, 1 % n);
    ARMCI_Rmw(ARMCI_SWAP_LONG, &vl, (long *)p[1 % n] + 1, 0, 1 % n);
    int *gi = malloc(sizeof *gi * (size_t)n);
    long *gl = malloc(sizeof *gl * (size_t)n);
    for (int i = 0; i < n; i++) gi[i] = i == me ? vi : 0, gl[i] = i == me ? vl : 0;
    armci_msg_igop(gi, n, "+");
    armci_msg_lgop(gl, n, "+");
    if (me == 1 % n) {
        int cnt[65] = { 0 }, cntl[65] = { 0 };
        cnt[((int *)p[me])[0] + 1]++, cntl[((long *)p[me])[1] + 1]++;
        for (int i = 0; i < n; i++) cnt[gi[i] + 1]++, cntl[gl[i] + 1]++;
        for (int i = 0; i <= n; i++) CHECK(cnt[i] == 1 && cntl[i] == 1, "SWAP value %d seen %d/%d times", i - 1, cnt[i], cntl[i]);
    }
    ARMCI_Barrier();
    ARMCI_Free(p[me]);
    free(p), free(gi), free(gl);
}

/* --- mutex ----------------------------------------------------------------------------------- */
static void t_mutex(void)
{
    void **p = malloc(sizeof *p * (size_t)n);
    CHECK(ARMCI_Malloc(p, 64) == 0, "ARMCI_Malloc");
    memset(p[me], 0, 64);
    CHECK(ARMCI_Create_mutexes(me + 1) == 0, "ARMCI_Create_mutexes");   /* a count per process */
    ARMCI_Barrier();
    /* A counter on every process, read and written under mutex (t % (t+1)) of t: no update is lost. */
    for (int k = 0; k < ITER; k++) {
        int t = (me + k) % n, m = k % (t + 1);
        long v;
        ARMCI_Lock(m, t);
        ARMCI_Get((long *)p[t] + m, &v, sizeof v, t);
        v++;
        ARMCI_Put(&v, (long *)p[t] + m, sizeof v, t);
        ARMCI_Unlock(m, t);
    }
    ARMCI_Barrier();
    long sum = 0, *c = p[me];
    for (int m = 0; m <= me; m++) sum += c[m];
    long total = sum;
    armci_msg_lgop(&total, 1, "+");
    CHECK(total == (long)n * ITER, "counters sum to %ld, expected %ld", total, (long)n * ITER);
    CHECK(ARMCI_Destroy_mutexes() == 0, "ARMCI_Destroy_mutexes");
    /* Again, after destroy. */
    CHECK(ARMCI_Create_mutexes(1) == 0, "ARMCI_Create_mutexes again");
    ARMCI_Lock(0, 0);
    ARMCI_Unlock(0, 0);
    ARMCI_Destroy_mutexes();
    ARMCI_Barrier();
    ARMCI_Free(p[me]);
    free(p);
}

/* --- nb --------------------------------------------------------------------------------------- */
static void t_nb(void)
{
    void **p = malloc(sizeof *p * (size_t)n);
    CHECK(ARMCI_Malloc(p, 4096) == 0, "ARMCI_Malloc");
    memset(p[me], 0, 4096);
    ARMCI_Barrier();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    armci_hdl_t h[6];
    for (int i = 0; i < 6; i++) ARMCI_INIT_HANDLE(&h[i]);
    char a[256], b[256];
    memset(a, 'a' + me % 20, sizeof a);
    ARMCI_NbPut(a, p[right], 256, right, &h[0]);
    int one = 1, cnt[2] = { 8, 4 }, st[1] = { 8 }, dt[1] = { 16 };
    ARMCI_NbAcc(ARMCI_ACC_INT, &one, &one, (char *)p[right] + 1024, sizeof one, right, &h[1]);
    ARMCI_NbPutS(a, st, (char *)p[right] + 2048, dt, cnt, 1, right, &h[2]);
    void *sv[2] = { a, a + 8 }, *dv[2] = { (char *)p[right] + 3072, (char *)p[right] + 3096 };
    armci_giov_t iov = { sv, dv, 8, 2 };
    ARMCI_NbPutV(&iov, 1, right, &h[3]);
    ARMCI_NbPutValueInt(me, (char *)p[right] + 4000, right, &h[4]);
    ARMCI_NbPutV(&iov, 1, right, NULL);   /* an implicit handle */
    for (int i = 0; i < 5; i++) {
        CHECK(ARMCI_Test(&h[i]) == 0, "ARMCI_Test on handle %d: not complete", i);
        CHECK(ARMCI_Wait(&h[i]) == 0, "ARMCI_Wait on handle %d", i);
    }
    CHECK(ARMCI_WaitProc(right) == 0 && ARMCI_WaitAll() == 0, "WaitProc, WaitAll");
    ARMCI_Barrier();
    char *m = p[me];
    for (int i = 0; i < 256; i++) CHECK(m[i] == 'a' + left % 20, "NbPut byte %d", i);
    CHECK(*(int *)(m + 1024) == 1, "NbAcc");
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) CHECK(m[2048 + 16 * k + i] == 'a' + left % 20 && m[2048 + 16 * k + 8 + i] == 0, "NbPutS");
    CHECK(m[3072] == 'a' + left % 20 && m[3096 + 7] == 'a' + left % 20, "NbPutV");
    CHECK(*(int *)(m + 4000) == left, "NbPutValueInt");
    ARMCI_NbGet(p[right], b, 256, right, &h[5]);
    ARMCI_Wait(&h[5]);
    for (int i = 0; i < 256; i++) CHECK(b[i] == 'a' + me % 20, "NbGet byte %d", i);
    memset(b, 0, sizeof b);
    ARMCI_NbGetS((char *)p[right] + 2048, dt, b, st, cnt, 1, right, &h[5]);
    ARMCI_Wait(&h[5]);
    for (int i = 0; i < 32; i++) CHECK(b[i] == 'a' + me % 20, "NbGetS byte %d", i);
    ARMCI_Barrier();
    ARMCI_Free(p[me]);
    free(p);
}

/* --- groups --------------------------------------------------------------------------------- */
static void t_groups(void)
{
    ARMCI_Group world, dflt, even;
    ARMCI_Group_get_world(&world);
    ARMCI_Group_get_default(&dflt);
    int r, sz;
    CHECK(ARMCI_Group_rank(&world, &r) == 0 && r == me, "world rank %d", r);
    ARMCI_Group_size(&world, &sz);
    CHECK(sz == n, "world size %d", sz);
    /* The even processes, highest first (group order is pid_list's). */
    int ne = (n + 1) / 2, *pids = malloc(sizeof *pids * (size_t)ne);
    for (int i = 0; i < ne; i++) pids[i] = 2 * (ne - 1 - i);
    ARMCI_Group_create(ne, pids, &even);
    bool member = me % 2 == 0;
    int er = -2;
    CHECK(ARMCI_Group_rank(&even, &er) == (member ? 0 : 1), "Group_rank's return for %d", me);
    ARMCI_Group_size(&even, &sz);
    CHECK(sz == (member ? ne : 0), "even size %d", sz);
    if (member) {
        CHECK(er == ne - 1 - me / 2, "even rank %d", er);
        for (int i = 0; i < ne; i++) CHECK(ARMCI_Absolute_id(&even, i) == pids[i], "Absolute_id(%d)", i);
        /* Group memory: indexed by group rank; one-sided calls take absolute ids. */
        void **p = malloc(sizeof *p * (size_t)ne);
        CHECK(ARMCI_Malloc_group(p, 64 * (er + 1), &even) == 0, "ARMCI_Malloc_group");
        memset(p[er], 0, 64 * (size_t)(er + 1));
        armci_msg_group_barrier(&even);
        for (int g = 0; g < ne; g++) ARMCI_PutValueInt(me, (int *)p[g] + er, ARMCI_Absolute_id(&even, g));
        armci_msg_group_barrier(&even);
        for (int g = 0; g < ne; g++) CHECK(((int *)p[er])[g] == pids[g], "group put from %d", g);
        int x[2] = { me, 1 };
        armci_msg_group_igop(x, 2, "+", &even);
        CHECK(x[0] == (ne - 1) * ne && x[1] == ne, "group igop %d %d", x[0], x[1]);
        double d = me;
        armci_msg_group_dgop(&d, 1, "max", &even);
        CHECK(d == 2 * (ne - 1), "group dgop max %g", d);
        long v = me == 0 ? 42 : -1;
        armci_msg_group_bcast_scope(SCOPE_ALL, &v, sizeof v, 0, &even);
        CHECK(v == 42, "group bcast %ld", v);
        /* A child of the even group: its first two members (or one), as the default group's child. */
        ARMCI_Group_set_default(&even);
        ARMCI_Group sub;
        int two[2] = { 0, 1 }, ns = ne > 1 ? 2 : 1;
        ARMCI_Group_create(ns, two, &sub);
        if (er < ns) {
            CHECK(ARMCI_Group_rank(&sub, &r) == 0 && r == er, "sub rank %d", r);
            CHECK(ARMCI_Absolute_id(&sub, 0) == pids[0], "sub Absolute_id");
            armci_msg_group_barrier(&sub);
            ARMCI_Group_free(&sub);
        } else {
            CHECK(ARMCI_Group_rank(&sub, &r) == 1 && r == -1, "not in sub");
        }
        ARMCI_Group_set_default(&world);
        armci_msg_group_barrier(&even);
        CHECK(ARMCI_Free_group(p[er], &even) == 0, "ARMCI_Free_group");
        free(p);
        CHECK(armci_group_comm(&even) == MPI_COMM_NULL, "no MPI: no communicator");
        ARMCI_Group_free(&even);
        CHECK(even.size == 0 && even.rank == -1, "freed");
    }
    ARMCI_Barrier();
    /* Groups come and go without end. */
    for (int k = 0; k < 50; k++) {
        ARMCI_Group g;
        int all[64];
        for (int i = 0; i < n; i++) all[i] = (i + k) % n;
        ARMCI_Group_create(n, all, &g);
        CHECK(g.rank == (me - k % n + n) % n, "rotated rank");
        ARMCI_Group_free(&g);
    }
    free(pids);
}

/* --- msg ----------------------------------------------------------------------------------------- */
static void t_msg(void)
{
    CHECK(armci_msg_me() == me && armci_msg_nproc() == n, "me/nproc");
    int i2[2] = { me, -me };
    armci_msg_igop(i2, 2, "+");
    CHECK(i2[0] == n * (n - 1) / 2 && i2[1] == -n * (n - 1) / 2, "igop +");
    long l = -me;
    armci_msg_lgop(&l, 1, "absmax");
    CHECK(l == n - 1, "lgop absmax %ld", l);
    long long ll = me + 1;
    armci_msg_llgop(&ll, 1, "*");
    long long f = 1;
    for (int i = 1; i <= n; i++) f *= i;
    CHECK(ll == f, "llgop *");
    float fl = (float)me;
    armci_msg_fgop(&fl, 1, "min");
    CHECK(fl == 0, "fgop min");
    double d[3] = { me - 0.5, me, -(double)me };
    armci_msg_dgop(d, 3, "absmin");
    CHECK(d[0] == 0.5 && d[1] == 0 && d[2] == 0, "dgop absmin %g %g %g", d[0], d[1], d[2]);
    int o = 1 << me % 31;
    armci_msg_igop(&o, 1, "or");
    CHECK(o == (int)((n >= 31 ? 0x7fffffffu : (1u << n) - 1)), "igop or");
    double red = 1;
    armci_msg_reduce(&red, 1, "+", ARMCI_DOUBLE);
    CHECK(me != 0 || red == n, "reduce at 0: %g", red);
    char msg[32] = "";
    if (me == n - 1) snprintf(msg, sizeof msg, "from %d", me);
    armci_msg_bcast(msg, sizeof msg, n - 1);
    char want[32];
    snprintf(want, sizeof want, "from %d", n - 1);
    CHECK(!strcmp(msg, want), "bcast: %s", msg);
    /* sel: the smallest key among the odd processes, with its index. */
    struct { double key; int idx; } s = { 100.0 - me, me };
    armci_msg_sel(&s, sizeof s, "min", ARMCI_DOUBLE, me % 2);
    int lastodd = n % 2 ? n - 2 : n - 1;
    if (n > 1) CHECK(s.idx == lastodd && s.key == 100.0 - lastodd, "sel min: %d %g", s.idx, s.key);
    void **ptrs = calloc((size_t)n, sizeof *ptrs);
    ptrs[me] = &s;
    armci_exchange_address(ptrs, n);
    for (int i = 0; i < n; i++) CHECK(ptrs[i] != NULL, "exchange_address %d", i);
    int root, up, left, right;
    armci_msg_bintree(SCOPE_ALL, &root, &up, &left, &right);
    CHECK(root == 0 && up == (me ? (me - 1) / 2 : -1), "bintree");
    armci_msg_barrier();
    free(ptrs);
    int same = 0, dom = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    for (int i = 0; i < n; i++) same += ARMCI_Same_node(i);
    CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, dom) == same && ARMCI_Same_node(me) && ARMCI_Uses_shm() &&
          ARMCI_Same_node(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, dom, same - 1)), "topology");
    if (same == n)   /* one node (smrun) */
        CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) == 1 && dom == 0 && ARMCI_Same_node((me + 1) % n), "one node");
    else   /* nodes of the same size (the fake nodes of a PMIx launch) */
        CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) == n / same && !ARMCI_Same_node((me + same) % n), "nodes");
}

int main(int argc, char **argv)
{
    const char *it = getenv("ARMCI_TEST_ITER");
    if (it && atoi(it) >= 10) ITER = atoi(it);
    CHECK(!ARMCI_Initialized(), "initialised before ARMCI_Init");
    CHECK(ARMCI_Init_args(&argc, &argv) == 0, "ARMCI_Init");
    CHECK(ARMCI_Init() == 0, "ARMCI_Init again (counted)");
    CHECK(ARMCI_Initialized(), "not initialised");
    me = armci_msg_me(), n = armci_msg_nproc();
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        { "malloc", t_malloc }, { "strided", t_strided }, { "vector", t_vector }, { "acc", t_acc },
        { "rmw", t_rmw }, { "mutex", t_mutex }, { "nb", t_nb }, { "groups", t_groups }, { "msg", t_msg },
    };
    for (int a = 1; a < argc; a++) {
        int found = 0;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            if (!strcmp(argv[a], "all") || !strcmp(argv[a], cases[c].name)) cases[c].fn(), found = 1;
        CHECK(found, "no case %s", argv[a]);
    }
    ARMCI_Finalize();                    /* the count: still on */
    CHECK(ARMCI_Initialized(), "finalised by the first of two ARMCI_Finalize");
    ARMCI_Finalize();
    CHECK(!ARMCI_Initialized(), "still initialised");
    return 0;
}
