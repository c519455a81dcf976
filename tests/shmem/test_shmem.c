/* test_shmem.c: OpenSHMEM routine groups, checked element by element on any
 * number of PEs: test_shmem GROUP, GROUP one of setup heap rma amo p2p lock
 * coll ctx team deprecated generic (or all). Exits non-zero with the PE, line and values on failure. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <smartmap.h>

#include "../core/check.h"   /* CHECK: names the PE (= rank), the place and the condition */

static int me, npes, thread_level = SHMEM_THREAD_MULTIPLE;
#define N 37                    /* odd sizes throughout */
#define ITER 1000

/* Symmetric globals. */
static long gcounter, glock, gvals[N];
static uint64_t gsig;
static int gflags[16];
static double gdbl[N];

/* --- setup ------------------------------------------------------------------------ */
static void t_setup(void)
{
    CHECK(me == sm_rank() && npes == sm_size(), "my_pe %d n_pes %d", me, npes);
    CHECK(shmem_pe_accessible(npes - 1) && !shmem_pe_accessible(npes) && !shmem_pe_accessible(-1), "pe_accessible");
    long *h = shmem_malloc(sizeof(long));
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_ptr(&gcounter, pe) == sm_remote(pe, &gcounter), "shmem_ptr(global, %d)", pe);
        CHECK(shmem_ptr(h, pe) != NULL && shmem_ptr(h, pe) == sm_remote(pe, h), "shmem_ptr(heap, %d)", pe);
        CHECK(shmem_addr_accessible(h, pe) && shmem_addr_accessible(&gcounter, pe), "addr_accessible %d", pe);
    }
    CHECK(shmem_ptr(h, npes) == NULL, "shmem_ptr beyond the last PE");
    int local = 0;   /* a stack variable of the main thread: exposed too (extension) */
    (void)local;
    int maj, min;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&maj, &min);
    shmem_info_get_name(name);
    CHECK(maj == 1 && min == 5 && strlen(name) > 0, "version %d.%d name '%s'", maj, min, name);
    int prov;
    shmem_query_thread(&prov);
    CHECK(prov == thread_level, "thread level %d, not %d", prov, thread_level);
    /* ptr: direct stores reach the peer */
    long *r = shmem_ptr(h, (me + 1) % npes);
    *r = 1000 + me;
    shmem_barrier_all();
    CHECK(*h == 1000 + (me + npes - 1) % npes, "value %ld through shmem_ptr", *h);
    shmem_free(h);
}

/* --- heap -------------------------------------------------------------------------- */
static void t_heap(void)
{
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
    long *hinted = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    *hinted = 0;
    shmem_barrier_all();
    shmem_long_atomic_inc(hinted, 0);
    shmem_barrier_all();
    CHECK(me != 0 || *hinted == npes, "malloc_with_hints counter %ld", *hinted);
    shmem_free(hinted);
    char *a = shmem_malloc(100), *b = shmem_align(4096, 5000), *c = shmem_calloc(77, 3);
    CHECK(a && b && c && (uintptr_t)b % 4096 == 0, "a %p b %p c %p", (void *)a, (void *)b, (void *)c);
    for (int i = 0; i < 231; i++) CHECK(c[i] == 0, "calloc byte %d = %d", i, c[i]);
    /* Same offsets everywhere: PE 0's own addresses, got from PE 0, are
     * where shmem_ptr puts PE 0's instances of mine (each PE's heap is in
     * its own slot, so the local addresses themselves differ). */
    uintptr_t mine[3] = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c};
    static uintptr_t theirs[3];
    if (me == 0) memcpy(theirs, mine, sizeof mine);
    shmem_barrier_all();
    uintptr_t p0[3];
    shmem_getmem(p0, theirs, sizeof p0, 0);
    for (int i = 0; i < 3; i++)
        CHECK(p0[i] == (uintptr_t)shmem_ptr((void *)mine[i], 0), "offset %d differs from PE 0's", i);
    for (int i = 0; i < 100; i++) a[i] = (char)(i + me);
    shmem_barrier_all();
    a = shmem_realloc(a, 100000);   /* must move or grow; content kept */
    for (int i = 0; i < 100; i++) CHECK(a[i] == (char)(i + me), "realloc byte %d", i);
    shmem_putmem(a + 99000, "xyz", 3, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(!memcmp(a + 99000, "xyz", 3), "put into the realloc'd block");
    /* realloc: NULL is malloc, shrinking keeps the block's contents, 0 frees */
    char *r = shmem_realloc(NULL, 300);
    CHECK(r != NULL, "realloc(NULL)");
    for (int i = 0; i < 300; i++) r[i] = (char)(3 * i + me);
    r = shmem_realloc(r, 50);
    for (int i = 0; i < 50; i++) CHECK(r[i] == (char)(3 * i + me), "shrunk byte %d", i);
    r = shmem_realloc(r, 2000);
    for (int i = 0; i < 50; i++) CHECK(r[i] == (char)(3 * i + me), "regrown byte %d", i);
    CHECK(shmem_realloc(r, 0) == NULL, "realloc to 0");
    shmem_free(b);
    char *d = shmem_align(4096, 4000);          /* first fit: reuses b's place */
    CHECK(d == b, "d %p b %p", (void *)d, (void *)b);
    shmem_free(a), shmem_free(c), shmem_free(d);
    /* calloc clears before its exit barrier: a put right after the call
     * (here into the peer's last bytes, which its memset reaches last) must
     * survive. */
    size_t cn = (size_t)24 << 20;
    char *z = shmem_calloc(cn, 1);
    shmem_putmem(z + cn - 8, "survive", 8, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(!memcmp(z + cn - 8, "survive", 8), "put after shmem_calloc wiped by the peer's clearing");
    CHECK(z[0] == 0 && z[cn / 2] == 0, "calloc not zero");
    shmem_free(z);
    /* Many small blocks, freed in a different order, then one big block. */
    void *v[50];
    for (int i = 0; i < 50; i++) v[i] = shmem_malloc((size_t)(i * 13 + 1));
    for (int i = 0; i < 50; i += 2) shmem_free(v[i]);
    for (int i = 1; i < 50; i += 2) shmem_free(v[i]);
    void *big = shmem_malloc(1 << 20);
    CHECK(big != NULL, "1 MiB after frees");
    shmem_free(big);
}

/* --- rma: every standard RMA type ------------------------------------------------------- */
#define RMA_TEST(NAME, T) {                                                                 \
    T *src = shmem_malloc(3 * N * sizeof(T)), *dst = shmem_malloc(3 * N * sizeof(T));       \
    T loc[3 * N];                                                                           \
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;                             \
    for (int i = 0; i < 3 * N; i++) src[i] = (T)(me * 7 + i % 50), dst[i] = (T)0;           \
    shmem_barrier_all();                                                                    \
    shmem_##NAME##_put(dst, src, N, right);                                                 \
    shmem_##NAME##_put_nbi(dst + N, src, N, right);                                         \
    shmem_quiet();                                                                          \
    shmem_##NAME##_p(dst + 2 * N, (T)(me + 1), right);                                      \
    shmem_barrier_all();                                                                    \
    for (int i = 0; i < N; i++)                                                             \
        CHECK(dst[i] == (T)(left * 7 + i % 50) && dst[N + i] == dst[i], #NAME " put %d", i); \
    CHECK(dst[2 * N] == (T)(left + 1), #NAME " p");                                         \
    /* the context form, on a context of the reversed world: right is npes-1-right there */ \
    shmem_ctx_##NAME##_put(rctx, dst + 2 * N + 1, src + 1, 2, npes - 1 - right);             \
    shmem_ctx_quiet(rctx);                                                                  \
    shmem_barrier_all();                                                                    \
    CHECK(dst[2 * N + 1] == (T)(left * 7 + 1) && dst[2 * N + 2] == (T)(left * 7 + 2), #NAME " ctx put"); \
    CHECK(shmem_ctx_##NAME##_g(rctx, src + 3, npes - 1 - left) == (T)(left * 7 + 3), #NAME " ctx g"); \
    CHECK(shmem_##NAME##_g(dst + 2 * N, right) == (T)(me + 1), #NAME " g");                \
    shmem_##NAME##_get(loc, src, N, left);                                                  \
    shmem_##NAME##_get_nbi(loc + N, src + 1, N, left);                                      \
    shmem_quiet();                                                                          \
    for (int i = 0; i < N; i++)                                                             \
        CHECK(loc[i] == (T)(left * 7 + i % 50) && loc[N + i] == (T)(left * 7 + (i + 1) % 50), \
              #NAME " get %d", i);                                                          \
    shmem_barrier_all();                                                                    \
    /* strided: every 3rd of src to every 2nd of dst, and back */                          \
    for (int i = 0; i < 3 * N; i++) dst[i] = (T)0;                                          \
    shmem_barrier_all();                                                                    \
    shmem_##NAME##_iput(dst, src, 2, 3, N / 2, right);                                      \
    shmem_barrier_all();                                                                    \
    for (int i = 0; i < N / 2; i++)                                                         \
        CHECK(dst[2 * i] == (T)(left * 7 + (3 * i) % 50) && dst[2 * i + 1] == (T)0, #NAME " iput %d", i); \
    shmem_##NAME##_iget(loc, src, 3, 2, N / 3, left);                                       \
    for (int i = 0; i < N / 3; i++)                                                         \
        CHECK(loc[3 * i] == (T)(left * 7 + (2 * i) % 50), #NAME " iget %d", i);             \
    shmem_barrier_all();                                                                    \
    shmem_free(src), shmem_free(dst); }

static void t_rma(void)
{
    shmem_team_t rev;
    shmem_ctx_t rctx;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0 &&
          shmem_team_create_ctx(rev, 0, &rctx) == 0, "reversed team and its context");
    SHMEM_RMA_TYPES(RMA_TEST)
    shmem_ctx_destroy(rctx);
    shmem_team_destroy(rev);
    /* sized and mem forms, generic names, large transfers */
    size_t big = 3u << 20;
    char *s = shmem_malloc(big), *d = shmem_malloc(big);
    for (size_t i = 0; i < big; i++) s[i] = (char)(i * 31 + (size_t)me);
    shmem_barrier_all();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_putmem(d, s, big, right);
    shmem_barrier_all();
    for (size_t i = 0; i < big; i++) CHECK(d[i] == (char)(i * 31 + (size_t)left), "putmem byte %zu", i);
    memset(d, 0, big);
    shmem_getmem_nbi(d, s, big - 1, left);
    shmem_quiet();
    for (size_t i = 0; i < big - 1; i++) CHECK(d[i] == (char)(i * 31 + (size_t)left), "getmem byte %zu", i);
    CHECK(d[big - 1] == 0, "getmem wrote beyond");
    shmem_barrier_all();
    shmem_put32(d, s, 5, right), shmem_put64(d + 64, s, 3, right), shmem_put128(d + 128, s, 2, right);
    shmem_put8(d + 256, s, 7, right), shmem_put16(d + 300, s, 9, right);
    shmem_iput64(d + 512, s, 2, 1, 4, right);
    shmem_barrier_all();
    CHECK(!memcmp(d, s - 0, 0) && d[19] == (char)(19 * 31 + left) && d[20] != (char)(20 * 31 + left) + 1, "put32");
    for (int i = 0; i < 20; i++) CHECK(d[i] == (char)(i * 31 + left), "put32 %d", i);
    for (int i = 0; i < 24; i++) CHECK(d[64 + i] == (char)(i * 31 + left), "put64 %d", i);
    for (int i = 0; i < 32; i++) CHECK(d[128 + i] == (char)(i * 31 + left), "put128 %d", i);
    for (int i = 0; i < 7; i++) CHECK(d[256 + i] == (char)(i * 31 + left), "put8 %d", i);
    for (int i = 0; i < 18; i++) CHECK(d[300 + i] == (char)(i * 31 + left), "put16 %d", i);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++) CHECK(d[512 + 16 * i + k] == (char)((8 * i + k) * 31 + left), "iput64 %d.%d", i, k);
    shmem_barrier_all();
    /* generic selection */
    double dv[N];
    for (int i = 0; i < N; i++) dv[i] = me + i * 0.5;
    shmem_put(gdbl, dv, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(gdbl[i] == left + i * 0.5, "generic put %d", i);
    shmem_p(&gvals[0], (long)me, right);
    shmem_barrier_all();
    CHECK(gvals[0] == left && shmem_g(&gvals[0], right) == me, "generic p/g");
    shmem_free(s), shmem_free(d);
    /* empty transfers touch nothing, whatever the addresses */
    shmem_putmem(NULL, NULL, 0, right), shmem_getmem(NULL, NULL, 0, left);
    shmem_long_put(gvals, NULL, 0, right), shmem_long_iget(NULL, gvals, 1, 1, 0, left);
#ifndef SM_SANITIZE   /* (under AddressSanitizer malloc is the sanitizer's: not exposed) */
    /* beyond the spec: a non-symmetric malloc buffer, named by its global address */
    static void *pub;
    char *priv = malloc(64);
    memset(priv, 0, 64);
    pub = sm_global(priv);
    shmem_barrier_all();
    void *target;
    shmem_getmem(&target, &pub, sizeof target, right);
    shmem_putmem(target, "hello", 6, right);
    shmem_barrier_all();
    CHECK(!strcmp(priv, "hello"), "put to a published malloc buffer: '%s'", priv);
    shmem_barrier_all();
    free(priv);
#endif
}

/* --- amo: every op under contention from all PEs ----------------------------------------- */
#define AMO_STD_TEST(NAME, T) {                                                              \
    static T ctr, fetched;                                                                   \
    ctr = 0;                                                                                 \
    shmem_barrier_all();                                                                     \
    for (int i = 0; i < ITER; i++) {                                                         \
        shmem_##NAME##_atomic_inc(&ctr, 0);                                                  \
        shmem_##NAME##_atomic_add(&ctr, (T)2, 0);                                            \
        (void)shmem_##NAME##_atomic_fetch_inc(&ctr, 0);                                     \
        (void)shmem_##NAME##_atomic_fetch_add(&ctr, (T)2, 0);                               \
        shmem_ctx_##NAME##_atomic_inc(actx, &ctr, npes - 1);   /* PE 0 in the reversed world */ \
        shmem_##NAME##_atomic_fetch_add_nbi(&fetched, &ctr, (T)1, 0);                       \
        shmem_##NAME##_atomic_fetch_inc_nbi(&fetched, &ctr, 0);                             \
        T old;                                                                               \
        do old = shmem_##NAME##_atomic_fetch(&ctr, 0);                                      \
        while (shmem_##NAME##_atomic_compare_swap(&ctr, old, (T)(old + 1), 0) != old);      \
    }                                                                                        \
    shmem_barrier_all();                                                                     \
    CHECK(shmem_##NAME##_atomic_fetch(&ctr, 0) == (T)(10 * ITER * npes), #NAME " count %lld", \
          (long long)shmem_##NAME##_atomic_fetch(&ctr, 0));                                  \
    shmem_barrier_all(); }
#define AMO_EXT_TEST(NAME, T) {                                                              \
    static T cell;                                                                           \
    if (me == 0) cell = (T)-1;                                                               \
    shmem_barrier_all();                                                                     \
    /* swaps form a chain: every value appears exactly once as an old value */               \
    T got = shmem_##NAME##_atomic_swap(&cell, (T)me, 0), got2;                              \
    static int seen[64];                                                                     \
    memset(seen, 0, sizeof seen);                                                            \
    shmem_barrier_all();                                                                     \
    shmem_int_atomic_inc(&seen[(int)(got + 1)], 0);                                          \
    shmem_barrier_all();                                                                     \
    if (me == 0) {                                                                           \
        T last = cell; int total = 0;                                                        \
        for (int i = 0; i <= npes; i++) total += seen[i];                                    \
        CHECK(total == npes && seen[(int)last + 1] == 0, #NAME " swap chain");               \
    }                                                                                        \
    shmem_barrier_all();                                                                     \
    shmem_##NAME##_atomic_set(&cell, (T)(me + 1), (me + 1) % npes);                         \
    shmem_barrier_all();                                                                     \
    CHECK(cell == (T)((me + npes - 1) % npes + 1), #NAME " set");                            \
    shmem_##NAME##_atomic_fetch_nbi(&got2, &cell, (me + 1) % npes);                         \
    shmem_quiet();                                                                           \
    CHECK(got2 == (T)(me + 1), #NAME " fetch_nbi");                                          \
    shmem_barrier_all();                                                                     \
    shmem_##NAME##_atomic_swap_nbi(&got2, &cell, (T)0, (me + 1) % npes);                    \
    shmem_quiet();                                                                           \
    CHECK(got2 == (T)(me + 1), #NAME " swap_nbi");                                           \
    shmem_barrier_all(); }
#define AMO_BIT_TEST(NAME, T) {                                                              \
    static T bits, bits2, bits3, f;                                                          \
    bits = 0, bits2 = (T)~(T)0, bits3 = 0;                                                   \
    shmem_barrier_all();                                                                     \
    T bit = (T)((T)1 << (me % 31));                                                          \
    shmem_##NAME##_atomic_or(&bits, bit, 0);                                                 \
    (void)shmem_##NAME##_atomic_fetch_and(&bits2, (T)~bit, 0);                              \
    for (int i = 0; i < 3; i++) shmem_##NAME##_atomic_xor(&bits3, bit, 0);                  \
    shmem_##NAME##_atomic_fetch_or_nbi(&f, &bits, 0, 0);                                     \
    shmem_##NAME##_atomic_fetch_xor_nbi(&f, &bits3, 0, 0);                                   \
    shmem_##NAME##_atomic_fetch_and_nbi(&f, &bits2, (T)~(T)0, 0);                            \
    (void)shmem_##NAME##_atomic_fetch_or(&bits, 0, 0);                                      \
    (void)shmem_##NAME##_atomic_fetch_xor(&bits3, 0, 0);                                    \
    shmem_##NAME##_atomic_and(&bits2, (T)~(T)0, 0);                                          \
    shmem_barrier_all();                                                                     \
    T all = 0;                                                                               \
    for (int p = 0; p < npes; p++) all |= (T)((T)1 << (p % 31));                             \
    if (me == 0) CHECK(bits == all && bits2 == (T)~all && bits3 == all, #NAME " bits");      \
    shmem_barrier_all(); }

static void t_amo(void)
{
    shmem_team_t rev;
    shmem_ctx_t actx;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0 &&
          shmem_team_create_ctx(rev, 0, &actx) == 0, "reversed team and its context");
    SHMEM_AMO_STD_TYPES(AMO_STD_TEST)
    shmem_ctx_destroy(actx);
    shmem_team_destroy(rev);
    SHMEM_AMO_EXT_TYPES(AMO_EXT_TEST)
    SHMEM_AMO_BIT_TYPES(AMO_BIT_TEST)
    /* generic names */
    static long gl;
    static unsigned int gu;
    gl = 0, gu = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) shmem_atomic_fetch_add(&gl, 2L, 0), shmem_atomic_inc(&gl, 0);
    shmem_atomic_or(&gu, 1u << me, 0);
    shmem_barrier_all();
    if (me == 0) CHECK(gl == 3L * ITER * npes && gu == (1u << npes) - 1, "generic amo %ld %u", gl, gu);
    shmem_barrier_all();
}

/* --- p2p: wait/test, signals ------------------------------------------------------------------ */
/* Every point-to-point type: the left neighbour sets entries 1 and 2. */
#define P2P_TYPE_TEST(NAME, T) {                                                               \
    static T iv[3];                                                                          \
    size_t ix[3];                                                                            \
    T cv[3] = {(T)1, (T)5, (T)6};                                                            \
    memset(iv, 0, sizeof iv);                                                                \
    shmem_barrier_all();                                                                     \
    CHECK(!shmem_##NAME##_test(&iv[1], SHMEM_CMP_EQ, (T)5) || npes == 1, #NAME " test before"); \
    shmem_barrier_all();                                                                     \
    shmem_##NAME##_p(&iv[2], (T)6, right);                                                   \
    shmem_fence();                                                                           \
    shmem_##NAME##_p(&iv[1], (T)5, right);                                                   \
    shmem_##NAME##_wait_until(&iv[1], SHMEM_CMP_EQ, (T)5);                                   \
    CHECK(iv[2] == (T)6, #NAME " ordered by fence");                                         \
    shmem_##NAME##_wait_until_all(iv + 1, 2, NULL, SHMEM_CMP_GE, (T)5);                      \
    CHECK(shmem_##NAME##_wait_until_any(iv, 3, NULL, SHMEM_CMP_GT, (T)5) == 2, #NAME " any"); \
    CHECK(shmem_##NAME##_wait_until_some(iv, 3, ix, NULL, SHMEM_CMP_NE, (T)0) == 2, #NAME " some"); \
    shmem_##NAME##_wait_until_all_vector(iv + 1, 2, NULL, SHMEM_CMP_EQ, cv + 1);             \
    CHECK(shmem_##NAME##_wait_until_any_vector(iv, 3, NULL, SHMEM_CMP_EQ, cv) == 1 ||        \
          shmem_##NAME##_wait_until_any_vector(iv, 3, NULL, SHMEM_CMP_EQ, cv) == 2, #NAME " any_vector"); \
    CHECK(shmem_##NAME##_wait_until_some_vector(iv, 3, ix, NULL, SHMEM_CMP_LT, cv) == 1 && ix[0] == 0, #NAME " some_vector"); \
    CHECK(shmem_##NAME##_test(&iv[2], SHMEM_CMP_LE, (T)6) && shmem_##NAME##_test_all(iv, 3, NULL, SHMEM_CMP_LT, (T)7), #NAME " test_all"); \
    CHECK(shmem_##NAME##_test_any(iv, 3, NULL, SHMEM_CMP_EQ, (T)0) == 0, #NAME " test_any");  \
    CHECK(shmem_##NAME##_test_some(iv, 3, ix, NULL, SHMEM_CMP_GE, (T)6) == 1 && ix[0] == 2, #NAME " test_some"); \
    CHECK(shmem_##NAME##_test_all_vector(iv, 3, NULL, SHMEM_CMP_NE, cv) == 0, #NAME " test_all_vector"); \
    CHECK(shmem_##NAME##_test_any_vector(iv, 3, NULL, SHMEM_CMP_GT, cv) == SIZE_MAX, #NAME " test_any_vector"); \
    CHECK(shmem_##NAME##_test_some_vector(iv, 3, ix, NULL, SHMEM_CMP_GE, cv) == 2, #NAME " test_some_vector"); \
    shmem_barrier_all(); }

static void t_p2p(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    SHMEM_P2P_TYPES(P2P_TYPE_TEST)
    /* A token around the ring, many times: ordering of put then flag, and
     * waiters that sleep (8 PEs on 2 cores) are woken by the puts. */
    static long token;
    for (int round = 1; round <= ITER / 5; round++) {
        if (me == 0) {
            shmem_long_p(&gvals[1], 500 + round, right);
            shmem_fence();
            shmem_long_p(&token, round, right);
            shmem_long_wait_until(&token, SHMEM_CMP_EQ, round);
        } else {
            shmem_wait_until(&token, SHMEM_CMP_GE, (long)round);
            CHECK(gvals[1] == 500 + round, "data before flag: %ld", gvals[1]);
            shmem_long_p(&gvals[1], 500 + round, right);
            shmem_fence();
            shmem_long_p(&token, round, right);
        }
    }
    shmem_barrier_all();
    /* put_signal: data then signal; the receiver sees both */
    static long data[N];
    long src[N];
    for (int i = 0; i < N; i++) src[i] = me * 1000 + i;
    shmem_long_put_signal(data, src, N, &gsig, 7, SHMEM_SIGNAL_SET, right);
    uint64_t s = shmem_signal_wait_until(&gsig, SHMEM_CMP_EQ, 7);
    CHECK(s == 7 && shmem_signal_fetch(&gsig) == 7, "signal %llu", (unsigned long long)s);
    for (int i = 0; i < N; i++) CHECK(data[i] == left * 1000 + i, "signalled data %d", i);
    shmem_barrier_all();
    gsig = 0;
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) shmem_putmem_signal_nbi(&data[p % N], &src[0], sizeof(long), &gsig, 1, SHMEM_SIGNAL_ADD, p);
    shmem_signal_wait_until(&gsig, SHMEM_CMP_GE, (uint64_t)npes);
    shmem_barrier_all();
    CHECK(gsig == (uint64_t)npes, "signal adds %llu", (unsigned long long)gsig);
    /* wait_until_any/all/some and tests on an array of flags, set by all PEs */
    memset(gflags, 0, sizeof gflags);
    shmem_barrier_all();
    CHECK(!shmem_int_test(&gflags[0], SHMEM_CMP_NE, 0), "test before");
    CHECK(shmem_int_test_any(gflags, (size_t)npes, NULL, SHMEM_CMP_NE, 0) == SIZE_MAX, "test_any before");
    shmem_barrier_all();
    shmem_int_p(&gflags[me], me + 1, right);
    size_t idx = shmem_int_wait_until_any(gflags, (size_t)npes, NULL, SHMEM_CMP_NE, 0);
    CHECK(idx < (size_t)npes && gflags[idx] == (int)idx + 1, "any %zu", idx);
    /* everyone now puts its flag to every PE */
    for (int p = 0; p < npes; p++) shmem_int_p(&gflags[me], me + 1, p);
    shmem_int_wait_until_all(gflags, (size_t)npes, NULL, SHMEM_CMP_GT, 0);
    size_t ind[16];
    size_t k = shmem_int_wait_until_some(gflags, (size_t)npes, ind, NULL, SHMEM_CMP_GT, 0);
    CHECK(k == (size_t)npes, "some %zu", k);
    for (size_t i = 0; i < k; i++) CHECK(ind[i] == i, "some index %zu", ind[i]);
    int vals[16], status[16] = {0};
    for (int i = 0; i < npes; i++) vals[i] = i + 1;
    shmem_int_wait_until_all_vector(gflags, (size_t)npes, NULL, SHMEM_CMP_EQ, vals);
    status[0] = 1;   /* skip element 0 */
    size_t sk = shmem_int_test_any_vector(gflags, (size_t)npes, status, SHMEM_CMP_EQ, vals);   /* any but 0 */
    CHECK(npes > 1 ? sk >= 1 && sk < (size_t)npes : sk == SIZE_MAX, "any skip %zu", sk);
    CHECK(shmem_int_test_all(gflags, (size_t)npes, status, SHMEM_CMP_GE, 1), "test_all");
    CHECK(shmem_int_test_some_vector(gflags, (size_t)npes, ind, status, SHMEM_CMP_EQ, vals) == (size_t)npes - 1, "some vector");
    CHECK(shmem_test_all(gflags, (size_t)npes, NULL, SHMEM_CMP_LT, 100), "generic test_all");
    shmem_barrier_all();
    /* From here gflags is only written locally (all puts above are done). */
    /* _any is fair: with entries 0, 2 and 5 satisfied, a series of calls
     * returns each of them, not always the first. */
    memset(gflags, 0, sizeof gflags);
    gflags[0] = gflags[2] = gflags[5] = 1;
    int got_t[8] = {0}, got_w[8] = {0};
    for (int i = 0; i < 6; i++) {
        size_t t = shmem_int_test_any(gflags, 8, NULL, SHMEM_CMP_EQ, 1);
        size_t w = shmem_int_wait_until_any(gflags, 8, NULL, SHMEM_CMP_EQ, 1);
        CHECK(t < 8 && gflags[t] == 1 && w < 8 && gflags[w] == 1, "any returned %zu, %zu", t, w);
        got_t[t]++, got_w[w]++;
    }
    CHECK(got_t[0] && got_t[2] && got_t[5], "test_any not fair: %d %d %d", got_t[0], got_t[2], got_t[5]);
    CHECK(got_w[0] && got_w[2] && got_w[5], "wait_until_any not fair: %d %d %d", got_w[0], got_w[2], got_w[5]);
    size_t ti = shmem_int_test_any_vector(gflags, 8, NULL, SHMEM_CMP_EQ, (int[8]){9, 9, 9, 9, 9, 1, 9, 9});
    CHECK(ti == 5, "test_any_vector %zu", ti);
    /* status: set entries are ignored, whatever their value */
    int st[8] = {1, 0, 0, 0, 0, 0, 1, 1};
    gflags[6] = 1;   /* satisfied but excluded */
    size_t ix[8];
    size_t ns = shmem_int_wait_until_some(gflags, 8, ix, st, SHMEM_CMP_EQ, 1);
    CHECK(ns == 2 && ((ix[0] == 2 && ix[1] == 5) || (ix[0] == 5 && ix[1] == 2)), "some with status: %zu", ns);
    ns = shmem_int_test_some_vector(gflags, 8, ix, st, SHMEM_CMP_EQ, (int[8]){1, 1, 1, 1, 1, 7, 1, 1});
    CHECK(ns == 1 && ix[0] == 2, "test_some_vector with status: %zu", ns);
    for (int i = 0; i < 4; i++) {
        size_t a = shmem_int_test_any(gflags, 8, st, SHMEM_CMP_EQ, 1);
        CHECK(a == 2 || a == 5, "test_any returned %zu, excluded or unsatisfied", a);
    }
    CHECK(!shmem_int_test_all(gflags, 8, st, SHMEM_CMP_EQ, 1), "test_all with an unsatisfied entry");
    CHECK(shmem_int_test_some(gflags, 8, ix, st, SHMEM_CMP_EQ, 9) == 0, "test_some with none satisfied");
    CHECK(shmem_int_test_any(gflags, 8, st, SHMEM_CMP_EQ, 9) == SIZE_MAX, "test_any with none satisfied");
    /* empty wait and test sets: nelems 0, or every entry excluded */
    int all_out[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(shmem_int_wait_until_any(gflags, 8, all_out, SHMEM_CMP_EQ, 9) == SIZE_MAX, "wait_until_any, empty set");
    CHECK(shmem_int_wait_until_some(gflags, 0, ix, NULL, SHMEM_CMP_EQ, 9) == 0, "wait_until_some, empty set");
    CHECK(shmem_int_wait_until_any_vector(gflags, 0, NULL, SHMEM_CMP_EQ, NULL) == SIZE_MAX, "wait_until_any_vector, empty");
    shmem_int_wait_until_all(gflags, 8, all_out, SHMEM_CMP_EQ, 9);   /* returns at once */
    CHECK(shmem_int_test_all(gflags, 8, all_out, SHMEM_CMP_EQ, 9) == 1, "test_all, empty set");
    CHECK(shmem_int_test_any(gflags, 0, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any, empty set");
    CHECK(shmem_test_some(gflags, 8, ix, all_out, SHMEM_CMP_EQ, 1) == 0, "generic test_some, empty set");
    shmem_barrier_all();
}

/* --- locks: mutual exclusion with plain get/put in the critical section ------------------------------- */
static void t_lock(void)
{
    if (me == 0) gcounter = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) {
        if (i % 3 == 0) {
            while (shmem_test_lock(&glock)) { }
        } else {
            shmem_set_lock(&glock);
        }
        long v = shmem_long_g(&gcounter, 0);
        shmem_long_p(&gcounter, v + 1, 0);
        shmem_clear_lock(&glock);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(&gcounter, 0) == (long)ITER * npes, "locked count %ld", shmem_long_g(&gcounter, 0));
    shmem_barrier_all();
}

/* --- collectives: every type, odd sizes, world and a sub-team ----------------------------------------- */
#define COLL_TEST(NAME, T) {                                                                  \
    int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team);                             \
    T *src = shmem_calloc((size_t)(npes * N), sizeof(T));                                     \
    T *dst = shmem_calloc((size_t)(npes * N * 2 + 1), sizeof(T));                             \
    if (tm >= 0) {                                                                            \
        for (int i = 0; i < npes * N; i++) src[i] = (T)(tm * 3 + i % 11);                     \
        int root = tn - 1;                                                                    \
        shmem_##NAME##_broadcast(team, dst, src, N, root);                                    \
        for (int i = 0; i < N; i++) CHECK(dst[i] == (T)(root * 3 + i % 11), #NAME " bcast %d", i); \
        shmem_##NAME##_fcollect(team, dst, src, N);                                           \
        for (int p = 0; p < tn; p++) for (int i = 0; i < N; i++)                              \
            CHECK(dst[p * N + i] == (T)(p * 3 + i % 11), #NAME " fcollect %d.%d", p, i);      \
        shmem_##NAME##_collect(team, dst, src, (size_t)tm + 1);                               \
        for (int p = 0, o = 0; p < tn; o += ++p) for (int i = 0; i <= p; i++)                 \
            CHECK(dst[o + i] == (T)(p * 3 + i % 11), #NAME " collect %d.%d", p, i);           \
        shmem_##NAME##_alltoall(team, dst, src, 3);                                           \
        for (int p = 0; p < tn; p++) for (int i = 0; i < 3; i++)                              \
            CHECK(dst[p * 3 + i] == (T)(p * 3 + (tm * 3 + i) % 11), #NAME " alltoall %d.%d", p, i); \
        shmem_##NAME##_alltoalls(team, dst, src, 2, 3, 2);                                    \
        for (int p = 0; p < tn; p++) for (int i = 0; i < 2; i++)                              \
            CHECK(dst[2 * (p * 2 + i)] == (T)(p * 3 + (3 * (tm * 2 + i)) % 11), #NAME " alltoalls %d.%d", p, i); \
    }                                                                                         \
    shmem_barrier_all();                                                                      \
    shmem_free(src), shmem_free(dst); }

#define RED_CHECK(NAME, T, OP, INIT, EXPECT) {                                                \
    if (tm >= 0) {                                                                            \
        for (int i = 0; i < N; i++) src[i] = (T)(INIT);                                       \
        shmem_##NAME##_##OP##_reduce(team, dst, src, N);                                      \
        for (int i = 0; i < N; i++) {                                                         \
            T e = (T)0;                                                                       \
            for (int p = 0; p < tn; p++) { int pe = p; (void)pe; T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME " " #OP " %d", i);                                       \
        }                                                                                     \
        shmem_##NAME##_##OP##_reduce(team, src, src, N);   /* in place */                    \
        for (int i = 0; i < N; i++) CHECK(src[i] == dst[i], #NAME " " #OP " in place %d", i); \
    }                                                                                         \
    shmem_barrier_all(); }
#define OPX_and(a, b) ((a) & (b))
#define OPX_or(a, b) ((a) | (b))
#define OPX_xor(a, b) ((a) ^ (b))
#define OPX_max(a, b) ((a) > (b) ? (a) : (b))
#define OPX_min(a, b) ((a) < (b) ? (a) : (b))
#define OPX_sum(a, b) ((a) + (b))
#define OPX_prod(a, b) ((a) * (b))
#define RED_PRE(T) int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team); \
    T *src = shmem_malloc(N * sizeof(T)), *dst = shmem_malloc(N * sizeof(T));
#define RED_POST shmem_free(src), shmem_free(dst);
#define RED_BIT(NAME, T) { RED_PRE(T)                                                          \
    RED_CHECK(NAME, T, and, ~((T)1 << ((tm + i) % 7)), ~((T)1 << ((pe + i) % 7)))            \
    RED_CHECK(NAME, T, or, (T)1 << ((tm + i) % 7), (T)1 << ((pe + i) % 7))                   \
    RED_CHECK(NAME, T, xor, (T)(tm * 5 + i), (T)(pe * 5 + i)) RED_POST }
#define RED_MM(NAME, T) { RED_PRE(T)                                                           \
    RED_CHECK(NAME, T, max, (tm * 7 + i) % 13, (pe * 7 + i) % 13)                            \
    RED_CHECK(NAME, T, min, (tm * 7 + i) % 13 + 1, (pe * 7 + i) % 13 + 1) RED_POST }
#define RED_AR(NAME, T) { RED_PRE(T)                                                           \
    RED_CHECK(NAME, T, sum, (tm + i) % 4, (pe + i) % 4)                                      \
    RED_CHECK(NAME, T, prod, (tm == i % tn) ? 2 : 1, (pe == i % tn) ? 2 : 1) RED_POST }

static void coll_on(shmem_team_t team)
{
    SHMEM_RMA_TYPES(COLL_TEST)
    SHMEM_REDUCE_BIT_TYPES(RED_BIT)
    SHMEM_REDUCE_MINMAX_TYPES(RED_MM)
    SHMEM_REDUCE_ARITH_TYPES(RED_AR)
}

/* Large vectors (the sliced reduction): odd lengths, in place and not,
 * every element checked. */
#define BIG_RED(NAME, T, OP, NEL, INIT, EXPECT) {                                              \
    int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team);                             \
    size_t nel = (NEL);                                                                        \
    T *src = shmem_malloc(nel * sizeof(T)), *dst = shmem_malloc(nel * sizeof(T));             \
    if (tm >= 0) {                                                                            \
        for (size_t i = 0; i < nel; i++) src[i] = (T)(INIT), dst[i] = (T)-7;                  \
        shmem_##NAME##_##OP##_reduce(team, dst, src, nel);                                    \
        for (size_t i = 0; i < nel; i++) {                                                    \
            T e = (T)0;                                                                       \
            for (int p = 0; p < tn; p++) { T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME " big " #OP " %zu of %zu", i, nel);                      \
        }                                                                                     \
        shmem_##NAME##_##OP##_reduce(team, src, src, nel);                                    \
        for (size_t i = 0; i < nel; i++) CHECK(src[i] == dst[i], #NAME " big " #OP " in place %zu", i); \
    }                                                                                         \
    shmem_barrier_all();                                                                      \
    shmem_free(src), shmem_free(dst); }
static void big_red_on(shmem_team_t team)
{
    BIG_RED(long, long, sum, 100003, (long)tm * 1000003 + (long)i, (long)p * 1000003 + (long)i)
    BIG_RED(double, double, max, 20011, (double)((tm * 7 + i) % 13), (double)((p * 7 + i) % 13))
    BIG_RED(uchar, unsigned char, xor, 77777, (unsigned char)(tm * 5 + i), (unsigned char)(p * 5 + i))
    BIG_RED(int16, int16_t, min, 9001, (int16_t)((tm * 3 + i) % 101), (int16_t)((p * 3 + i) % 101))
    BIG_RED(complexd, double _Complex, sum, 3001, tm + (double)(i % 9) * _Complex_I, p + (double)(i % 9) * _Complex_I)
    BIG_RED(longdouble, long double, prod, 4099, (tm == (int)(i % (size_t)tn)) ? 3 : 1, (p == (int)(i % (size_t)tn)) ? 3 : 1)
}

static void t_coll(void)
{
    coll_on(SHMEM_TEAM_WORLD);
    big_red_on(SHMEM_TEAM_WORLD);
    shmem_team_t odd;   /* PEs 1, 3, 5, ...: a sub-team with a root other than PE 0 */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1, NULL, 0, &odd);
    coll_on(odd);
    big_red_on(odd);
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
    /* mem forms and generic names */
    static char cs[64], cd[64 * 8];
    for (int i = 0; i < 64; i++) cs[i] = (char)(me + i);
    shmem_barrier_all();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, cd, cs, 13, 0);
    for (int i = 0; i < 13; i++) CHECK(cd[i] == (char)i, "broadcastmem %d", i);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, cd, cs, 5);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 5; i++) CHECK(cd[p * 5 + i] == (char)(p + i), "fcollectmem");
    shmem_alltoallmem(SHMEM_TEAM_WORLD, cd, cs, 3);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 3; i++) CHECK(cd[p * 3 + i] == (char)(p + me * 3 + i), "alltoallmem");
    shmem_collectmem(SHMEM_TEAM_WORLD, cd, cs, (size_t)(me % 2) * 2);
    for (int p = 0, o = 0; p < npes; o += (p % 2) * 2, p++)
        for (int i = 0; i < (p % 2) * 2; i++) CHECK(cd[o + i] == (char)(p + i), "collectmem");
    shmem_broadcastmem(SHMEM_TEAM_WORLD, cd, cs, 0, 0);   /* empty: nothing happens */
    static long ls[N], ld[N];
    for (int i = 0; i < N; i++) ls[i] = me + i;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, N);
    for (int i = 0; i < N; i++) CHECK(ld[i] == (long)npes * i + (long)npes * (npes - 1) / 2, "generic sum %d", i);
    /* sum/prod take complex generically */
    static double _Complex zs[3], zd[3];
    for (int i = 0; i < 3; i++) zs[i] = me + i * 1.0 * _Complex_I;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, zd, zs, 3);
    for (int i = 0; i < 3; i++)
        CHECK(creal(zd[i]) == npes * (npes - 1) / 2.0 && cimag(zd[i]) == (double)npes * i, "generic complex sum %d", i);
    static float _Complex fs[1], fd[1];
    fs[0] = 1.0f * _Complex_I;
    shmem_prod_reduce(SHMEM_TEAM_WORLD, fd, fs, 1);   /* i^npes */
    float _Complex e = 1;
    for (int p = 0; p < npes; p++) e *= 1.0f * _Complex_I;
    CHECK(fd[0] == e, "generic complex prod");
    shmem_sync_all();
    shmem_team_sync(SHMEM_TEAM_SHARED);
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "C11 shmem_sync(team)");
}

/* --- teams ------------------------------------------------------------------------------------------------- */
static void t_team(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes, "world/shared");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "invalid");
    /* SHMEM_TEAM_INVALID where the specification defines the outcome */
    shmem_team_t inv = SHMEM_TEAM_WORLD, inv2 = SHMEM_TEAM_WORLD;
    shmem_team_config_t cfg = {7};
    shmem_ctx_t ictx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &inv) != 0 && inv == SHMEM_TEAM_INVALID, "split of invalid");
    inv = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &inv, NULL, 0, &inv2) != 0 &&
          inv == SHMEM_TEAM_INVALID && inv2 == SHMEM_TEAM_INVALID, "split_2d of invalid");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config of invalid");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ictx) != 0 && ictx == SHMEM_CTX_INVALID, "create_ctx on invalid");
    shmem_team_destroy(SHMEM_TEAM_INVALID);   /* no operation */
    /* Invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE, no job end. */
    int bad[][3] = {{npes, 1, 1}, {-1, 1, 1}, {0, 1, 0}, {0, 1, npes + 1}, {0, 0, 2},
                    {npes - 1, 1, 2}, {0, -1, 2}, {npes - 1, -1, npes + 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inv = SHMEM_TEAM_WORLD;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[i][0], bad[i][1], bad[i][2], NULL, 0, &inv) != 0 &&
              inv == SHMEM_TEAM_INVALID, "split (%d, %d, %d) accepted", bad[i][0], bad[i][1], bad[i][2]);
    }
    /* A negative stride lists the parent's PEs downwards from start. */
    shmem_team_t rev, rev2, one;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0 && rev, "reverse split");
    CHECK(shmem_team_my_pe(rev) == npes - 1 - me && shmem_team_n_pes(rev) == npes, "reverse my_pe %d", shmem_team_my_pe(rev));
    CHECK(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD) == npes - 1 &&
          shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, rev) == npes - 1 - me, "reverse translate");
    static int rs[1], rd[64];
    rs[0] = me;
    shmem_int_fcollect(rev, rd, rs, 1);
    for (int p = 0; p < npes; p++) CHECK(rd[p] == npes - 1 - p, "reverse fcollect %d: %d", p, rd[p]);
    rs[0] = 100 + me;
    shmem_int_broadcast(rev, rd, rs, 1, 0);
    CHECK(rd[0] == 100 + npes - 1, "reverse broadcast %d", rd[0]);
    /* reversed again, every other one: world PEs 0, 2, 4, ... upwards */
    CHECK(shmem_team_split_strided(rev, npes - 1, -2, (npes + 1) / 2, NULL, 0, &rev2) == 0, "split of reverse");
    if (me % 2 == 0) CHECK(rev2 && shmem_team_my_pe(rev2) == me / 2, "reverse of reverse %d", shmem_team_my_pe(rev2));
    else CHECK(rev2 == SHMEM_TEAM_INVALID, "odd PE in the reverse of reverse");
    if (rev2) shmem_team_sync(rev2), shmem_team_destroy(rev2);
    shmem_team_destroy(rev);
    /* stride 0 with size 1: the one PE start */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &one) == 0, "stride 0, size 1");
    CHECK(me == npes - 1 ? one && shmem_team_n_pes(one) == 1 && shmem_team_my_pe(one) == 0 : one == SHMEM_TEAM_INVALID, "team of one");
    if (one) shmem_team_destroy(one);
    /* the configuration given at the split is the one read back */
    shmem_team_t cfgd;
    cfg.num_contexts = 3;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &cfgd);
    cfg.num_contexts = -1;
    CHECK(shmem_team_get_config(cfgd, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 3, "num_contexts %d", cfg.num_contexts);
    shmem_team_destroy(cfgd);
    shmem_team_t evens, x, y;
    int ne = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &evens) == 0, "split");
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID && shmem_team_my_pe(evens) == me / 2 && shmem_team_n_pes(evens) == ne, "evens");
        CHECK(shmem_team_translate_pe(evens, ne - 1, SHMEM_TEAM_WORLD) == 2 * (ne - 1), "translate");
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, evens) == -1, "translate non-member");
        for (int i = 0; i < 20; i++) shmem_team_sync(evens);
        CHECK(shmem_team_ptr(evens, &gcounter, ne - 1) == shmem_ptr(&gcounter, 2 * (ne - 1)) &&
              shmem_team_ptr(evens, &gcounter, ne) == NULL, "team_ptr");
        /* a split of a split: every other even PE */
        shmem_team_t q;
        shmem_team_split_strided(evens, 0, 2, (ne + 1) / 2, NULL, 0, &q);
        if (me % 4 == 0) CHECK(q && shmem_team_my_pe(q) == me / 4, "quarter");
        else CHECK(q == SHMEM_TEAM_INVALID, "quarter non-member");
        if (q) shmem_team_destroy(q);
        shmem_team_destroy(evens);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID, "odd PE got a team");
    }
    int xr = npes >= 4 ? 2 : 1;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
    CHECK(shmem_team_my_pe(x) == me % xr && shmem_team_my_pe(y) == me / xr, "2d %d %d", shmem_team_my_pe(x), shmem_team_my_pe(y));
    CHECK(shmem_team_n_pes(y) == (npes - me % xr + xr - 1) / xr, "2d y size");
    static int xs[2], xd[2];
    xs[0] = me;
    shmem_int_sum_reduce(x, xd, xs, 1);
    int row = me / xr, e = 0;
    for (int p = row * xr; p < row * xr + xr && p < npes; p++) e += p;
    CHECK(xd[0] == e, "row sum %d != %d", xd[0], e);
    shmem_int_sum_reduce(y, xd, xs, 1);
    e = 0;
    for (int p = me % xr; p < npes; p += xr) e += p;
    CHECK(xd[0] == e, "column sum %d != %d", xd[0], e);
    shmem_team_destroy(x), shmem_team_destroy(y);
    /* xrange 3: a last, shorter row, and columns that differ in size by one */
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d by 3");
    int xn = npes - me / 3 * 3 < 3 ? npes - me / 3 * 3 : 3;
    CHECK(shmem_team_my_pe(x) == me % 3 && shmem_team_n_pes(x) == xn, "2d/3 x: %d of %d", shmem_team_my_pe(x), shmem_team_n_pes(x));
    CHECK(shmem_team_my_pe(y) == me / 3 && shmem_team_n_pes(y) == (npes - me % 3 + 2) / 3, "2d/3 y: %d of %d", shmem_team_my_pe(y), shmem_team_n_pes(y));
    for (int i = 0; i < shmem_team_n_pes(y); i++)
        CHECK(shmem_team_translate_pe(y, i, SHMEM_TEAM_WORLD) == me % 3 + 3 * i, "2d/3 column PE %d", i);
    shmem_team_destroy(x), shmem_team_destroy(y);
    /* xrange beyond the team: one row of all */
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, npes + 5, NULL, 0, &x, NULL, 0, &y) == 0 &&
          shmem_team_n_pes(x) == npes && shmem_team_my_pe(x) == me && shmem_team_n_pes(y) == 1, "split_2d wide");
    shmem_team_destroy(x), shmem_team_destroy(y);
    x = y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 &&
          x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d xrange 0");
    /* Teams created and destroyed without end: more than the 16384 team
     * numbers in use at once that smartmap allows (in jobs of up to 2 PEs,
     * where a barrier is cheap; 8 PEs on 2 cores would take a minute). */
    for (int i = 0; i < (npes <= 2 ? 16384 + 100 : 300); i++) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        shmem_team_sync(t);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
}

/* --- contexts: PEs numbered in the context's team ------------------------------------------------------ */
static void t_ctx(void)
{
    shmem_ctx_t c, odd_ctx = SHMEM_CTX_INVALID;
    shmem_team_t t, odd;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0 && shmem_ctx_get_team(c, &t) == 0 && t == SHMEM_TEAM_WORLD, "ctx_create");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD, "default ctx team");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID, "invalid ctx team");
    shmem_ctx_destroy(SHMEM_CTX_INVALID);   /* no operation */
    CHECK(c != SHMEM_CTX_DEFAULT && c != SHMEM_CTX_INVALID, "a created context is a new one");
    static long v[N];
    long src[N];
    for (int i = 0; i < N; i++) src[i] = me * 10 + i;
    int right = (me + 1) % npes;
    shmem_ctx_long_put(c, v, src, N, right);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(v[i] == (me + npes - 1) % npes * 10 + i, "ctx put %d", i);
    static long ctr;
    shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, &ctr, 2, 0);
    shmem_ctx_long_atomic_inc(c, &ctr, 0);
    shmem_barrier_all();
    CHECK(shmem_ctx_long_atomic_fetch(c, &ctr, 0) == 3L * npes, "ctx atomics %ld", ctr);
    /* every context form: sized, mem signal, _nbi atomics, generic names */
    static uint64_t s64[N], d64[N], sig;
    static uint32_t d32[N];
    static unsigned long ubits;
    static long lfetch[3];
    static unsigned long ufetch;
    for (int i = 0; i < N; i++) s64[i] = (uint64_t)(me * 100 + i);
    shmem_barrier_all();   /* all have read ctr above */
    memset(d64, 0, sizeof d64), memset(d32, 0, sizeof d32), sig = 0, ubits = 0, ctr = 0;
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    shmem_ctx_put64(c, d64, s64, 5, right);
    shmem_ctx_put32_nbi(c, d32, s64, 2, right);           /* 8 bytes as two 32-bit words */
    shmem_ctx_iput64(c, d64 + 10, s64, 2, 1, 3, right);    /* d64[10], [12], [14] */
    shmem_ctx_putmem_signal_nbi(c, d64 + 20, s64 + 1, 8, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_put64_signal(c, d64 + 21, s64 + 2, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_quiet(c);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2);
    shmem_barrier_all();
    for (int i = 0; i < 5; i++) CHECK(d64[i] == (uint64_t)(left * 100 + i), "ctx_put64 %d", i);
    uint64_t want0 = (uint64_t)(left * 100);
    CHECK(!memcmp(d32, &want0, 8), "ctx_put32_nbi bytes");
    for (int i = 0; i < 3; i++) CHECK(d64[10 + 2 * i] == (uint64_t)(left * 100 + i) && d64[11 + 2 * i] == 0, "ctx_iput64 %d", i);
    CHECK(d64[20] == (uint64_t)(left * 100 + 1) && d64[21] == (uint64_t)(left * 100 + 2), "ctx signal puts");
    uint64_t back[3];
    shmem_ctx_iget64(c, back, d64 + 10, 1, 2, 3, right);
    shmem_ctx_get64_nbi(c, back, d64, 1, right);
    shmem_ctx_quiet(c);
    CHECK(back[0] == (uint64_t)(me * 100) && back[1] == (uint64_t)(me * 100 + 1) && back[2] == (uint64_t)(me * 100 + 2), "ctx_iget64/get64_nbi");
    for (int i = 0; i < ITER; i++) {
        shmem_ctx_long_atomic_fetch_add_nbi(c, &lfetch[0], &ctr, 2, 0);
        shmem_atomic_fetch_inc_nbi(c, &lfetch[1], &ctr, 0);                  /* generic, with a context */
        long o;
        do { shmem_ctx_long_atomic_fetch_nbi(c, &o, &ctr, 0); shmem_ctx_quiet(c);
             shmem_atomic_compare_swap_nbi(c, &lfetch[2], &ctr, o, o + 1, 0); shmem_ctx_quiet(c); }
        while (lfetch[2] != o);
    }
    shmem_ctx_ulong_atomic_fetch_or_nbi(c, &ufetch, &ubits, 1UL << me, 0);
    shmem_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &ufetch, &ubits, 0UL, 0);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    CHECK(shmem_ctx_long_atomic_fetch(c, &ctr, 0) == 4L * ITER * npes, "ctx nbi atomics %ld", shmem_long_g(&ctr, 0));
    CHECK(me != 0 || ubits == (npes >= 64 ? ~0UL : (1UL << npes) - 1), "ctx fetch_or_nbi %lx", ubits);
    double dswap = 0, dnew = me + 0.5;
    static double dcell;
    shmem_barrier_all();
    shmem_atomic_swap_nbi(c, &dswap, &dcell, dnew, right);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    CHECK(dcell == left + 0.5, "ctx double swap_nbi %g", dcell);
    shmem_ctx_destroy(c);
    /* a context on the odd PEs' team: its PE 0 is world PE 1 */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1, NULL, 0, &odd);
    if (odd) {
        CHECK(shmem_team_create_ctx(odd, 0, &odd_ctx) == 0, "team_create_ctx");
        shmem_ctx_long_p(odd_ctx, &v[0], 4242, 0);
        shmem_ctx_quiet(odd_ctx);
    }
    shmem_barrier_all();
    if (me == (npes > 1 ? 1 : 0)) CHECK(v[0] == 4242, "ctx on a team: %ld", v[0]);
    if (odd) shmem_ctx_destroy(odd_ctx), shmem_team_destroy(odd);
    shmem_barrier_all();
}

/* --- C11 generic names: each one at least once, on several types, with and
 * without a context; the selected routine shows in the result. ------------------------------------------------ */
static void t_generic(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static float fd[N];
    static unsigned short us[N], ud[2 * N];
    static long double ld[4];
    static signed char sc[N];
    static uint64_t sig;
    float fs[N];
    unsigned short uloc[N];
    for (int i = 0; i < N; i++) fs[i] = me + i * 0.25f, us[i] = (unsigned short)(me * 100 + i);
    shmem_barrier_all();
    shmem_put(fd, fs, N, right);
    shmem_put_nbi(SHMEM_CTX_DEFAULT, ud, us, N, right);
    shmem_iput(ud + N, us, 1, 2, N / 2, right);
    shmem_p(SHMEM_CTX_DEFAULT, &ld[1], (long double)me / 3, right);
    shmem_put_signal(sc, (signed char[]){(signed char)-me}, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, sc + 1, (signed char[]){(signed char)me}, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(fd[i] == left + i * 0.25f && ud[i] == left * 100 + i, "generic put %d", i);
    for (int i = 0; i < N / 2; i++) CHECK(ud[N + i] == left * 100 + 2 * i, "generic iput %d", i);
    CHECK(ld[1] == (long double)left / 3 && sc[0] == -left && sc[1] == left, "generic p / put_signal");
    shmem_get(uloc, us, N, left);
    for (int i = 0; i < N; i++) CHECK(uloc[i] == left * 100 + i, "generic get %d", i);
    shmem_get_nbi(SHMEM_CTX_DEFAULT, uloc, us + 1, 3, right);
    shmem_iget(uloc + 3, us, 1, 3, 4, left);
    shmem_quiet();
    for (int i = 0; i < 3; i++) CHECK(uloc[i] == right * 100 + 1 + i, "generic get_nbi %d", i);
    for (int i = 0; i < 4; i++) CHECK(uloc[3 + i] == left * 100 + 3 * i, "generic iget %d", i);
    CHECK(shmem_g(&ld[1], left) == ld[1] - ld[1] + (long double)((left + npes - 1) % npes) / 3 &&
          shmem_g(SHMEM_CTX_DEFAULT, &us[2], left) == left * 100 + 2, "generic g");
    shmem_barrier_all();
    /* atomics: every generic name, contended on PE 0 */
    static int ai;
    static unsigned long long au;
    static double ad;
    static long al;
    ai = 0, au = 0, ad = 0, al = 0;
    shmem_barrier_all();
    int fi;
    unsigned long long fu;
    double dd;
    shmem_atomic_inc(&ai, 0);
    (void)shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &ai, 0);
    shmem_atomic_add(&ai, 3, 0);
    (void)shmem_atomic_fetch_add(&ai, 4, 0);
    shmem_atomic_fetch_inc_nbi(&fi, &ai, 0);
    shmem_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &fi, &ai, 5, 0);
    int o;
    do o = shmem_atomic_fetch(&ai, 0); while (shmem_atomic_compare_swap(&ai, o, o + 6, 0) != o);
    do { shmem_atomic_fetch_nbi(&o, &ai, 0); shmem_quiet(); shmem_atomic_compare_swap_nbi(&fi, &ai, o, o + 7, 0); shmem_quiet(); }
    while (fi != o);
    shmem_atomic_or(&au, 1ULL << me, 0);
    (void)shmem_atomic_fetch_or(SHMEM_CTX_DEFAULT, &au, 1ULL << (me + 32), 0);
    shmem_atomic_xor(&au, 1ULL << 20, 0), shmem_atomic_fetch_xor_nbi(&fu, &au, 1ULL << 20, 0);
    (void)shmem_atomic_fetch_xor(&au, 0, 0), shmem_atomic_and(&au, ~0ULL, 0);
    (void)shmem_atomic_fetch_and(&au, ~0ULL, 0), shmem_atomic_fetch_and_nbi(&fu, &au, ~0ULL, 0);
    shmem_atomic_fetch_or_nbi(&fu, &au, 0, 0);
    if (me == 0) shmem_atomic_set(&ad, 1.5, right), shmem_atomic_set(SHMEM_CTX_DEFAULT, &al, 9L, right);
    shmem_quiet();
    shmem_barrier_all();
    unsigned long long bits = 0;
    for (int p = 0; p < npes; p++) bits |= 1ULL << p | 1ULL << (p + 32);
    CHECK(me != 0 || (ai == 28 * npes && au == bits), "generic atomics: %d %llx", ai, au);
    if (me == right && npes > 1) CHECK(ad == 1.5 && al == 9, "generic set");
    shmem_barrier_all();
    CHECK(shmem_atomic_swap(&ad, 2.5, 0) >= 0 && shmem_atomic_fetch(SHMEM_CTX_DEFAULT, &ad, 0) == 2.5, "generic swap");
    shmem_atomic_swap_nbi(&dd, &ad, 2.5, 0);
    shmem_quiet();
    CHECK(dd == 2.5, "generic swap_nbi");
    shmem_barrier_all();
    /* point-to-point: every generic wait and test on an unsigned long array */
    static unsigned long w[3];
    size_t ix[3];
    unsigned long cv[3] = {0, 4, 4};
    memset(w, 0, sizeof w);
    shmem_barrier_all();
    shmem_p(&w[2], 4UL, right);
    shmem_p(&w[1], 4UL, right);
    shmem_wait_until(&w[1], SHMEM_CMP_EQ, 4UL);
    shmem_wait_until_all(w + 1, 2, NULL, SHMEM_CMP_EQ, 4UL);
    CHECK(shmem_wait_until_any(w, 3, (int[]){0, 1, 0}, SHMEM_CMP_EQ, 4UL) == 2, "generic wait_until_any");
    CHECK(shmem_wait_until_some(w, 3, ix, NULL, SHMEM_CMP_EQ, 0UL) == 1 && ix[0] == 0, "generic wait_until_some");
    shmem_wait_until_all_vector(w, 3, NULL, SHMEM_CMP_EQ, cv);
    CHECK(shmem_wait_until_any_vector(w, 3, (int[]){0, 0, 1}, SHMEM_CMP_GT, (unsigned long[]){0, 3, 9}) == 1, "generic wait_until_any_vector");
    CHECK(shmem_wait_until_some_vector(w, 3, ix, NULL, SHMEM_CMP_EQ, cv) == 3, "generic wait_until_some_vector");
    CHECK(shmem_test(&w[0], SHMEM_CMP_EQ, 0UL) && shmem_test_all(w + 1, 2, NULL, SHMEM_CMP_GE, 4UL), "generic test");
    CHECK(shmem_test_any(w, 3, NULL, SHMEM_CMP_LT, 1UL) == 0 && shmem_test_some(w, 3, ix, NULL, SHMEM_CMP_GT, 9UL) == 0, "generic test_any/some");
    CHECK(shmem_test_all_vector(w, 3, NULL, SHMEM_CMP_EQ, cv) && shmem_test_any_vector(w, 3, NULL, SHMEM_CMP_NE, cv) == SIZE_MAX &&
          shmem_test_some_vector(w, 3, ix, NULL, SHMEM_CMP_LE, cv) == 3, "generic vector tests");
    shmem_barrier_all();
    /* collectives and reductions by generic name */
    static short ss[N], sd[N * 64];
    static unsigned int uo[3], ur[3];
    static long double lr[2], lx[2];
    for (int i = 0; i < N; i++) ss[i] = (short)(me * 10 + i);
    uo[0] = 1u << me, uo[1] = ~(1u << me), uo[2] = (unsigned)me + 1;
    lx[0] = me + 1, lx[1] = -me;
    shmem_barrier_all();
    shmem_broadcast(SHMEM_TEAM_WORLD, sd, ss, N, npes - 1);
    for (int i = 0; i < N; i++) CHECK(sd[i] == (npes - 1) * 10 + i, "generic broadcast %d", i);
    shmem_fcollect(SHMEM_TEAM_WORLD, sd, ss, 2);
    for (int p = 0; p < npes; p++) CHECK(sd[2 * p] == p * 10 && sd[2 * p + 1] == p * 10 + 1, "generic fcollect %d", p);
    shmem_collect(SHMEM_TEAM_WORLD, sd, ss, (size_t)(me % 2));
    for (int p = 1, o2 = 0; p < npes; p += 2, o2++) CHECK(sd[o2] == p * 10, "generic collect %d", p);
    shmem_alltoall(SHMEM_TEAM_WORLD, sd, ss, 1);
    for (int p = 0; p < npes; p++) CHECK(sd[p] == p * 10 + me, "generic alltoall %d", p);
    shmem_alltoalls(SHMEM_TEAM_WORLD, sd, ss, 2, 1, 1);
    for (int p = 0; p < npes; p++) CHECK(sd[2 * p] == p * 10 + me, "generic alltoalls %d", p);
    unsigned all = 0, xr = 0;
    for (int p = 0; p < npes; p++) all |= 1u << p, xr ^= (unsigned)p + 1;
    shmem_or_reduce(SHMEM_TEAM_WORLD, ur, uo, 1);
    CHECK(ur[0] == all, "generic or_reduce %x", ur[0]);
    shmem_and_reduce(SHMEM_TEAM_WORLD, ur + 1, uo + 1, 1);
    CHECK(ur[1] == ~all, "generic and_reduce %x", ur[1]);
    shmem_xor_reduce(SHMEM_TEAM_WORLD, ur + 2, uo + 2, 1);
    CHECK(ur[2] == xr, "generic xor_reduce %x", ur[2]);
    shmem_max_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == npes && lr[1] == 0, "generic max_reduce");
    shmem_min_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == 1 && lr[1] == -(npes - 1), "generic min_reduce");
    shmem_prod_reduce(SHMEM_TEAM_WORLD, lr, lx, 1);
    long double f = 1;
    for (int p = 1; p <= npes; p++) f *= p;
    CHECK(lr[0] == f, "generic prod_reduce");
    shmem_sum_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == npes * (npes + 1) / 2 && lr[1] == -(npes * (npes - 1) / 2), "generic sum_reduce");
    shmem_barrier_all();
}

/* --- deprecated forms -------------------------------------------------------------------------------------------- */
static long psync[SHMEM_REDUCE_SYNC_SIZE];

/* Every deprecated *_to_all over an active set of every other PE (stride 2,
 * odd element counts), element by element; non-members skip it. */
#define TOALL_CHECK(NAME, T, OP, INIT, EXPECT) {                                              \
    static T src[N], dst[N], wrk[N];                                                         \
    if (me % 2 == 0) {                                                                       \
        int tm = me / 2;                                                                     \
        for (int i = 0; i < N; i++) src[i] = (T)(INIT);                                      \
        shmem_##NAME##_##OP##_to_all(dst, src, N, 0, 1, ne, wrk, psync);                    \
        for (int i = 0; i < N; i++) {                                                        \
            T e = (T)0;                                                                      \
            for (int p = 0; p < ne; p++) { T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME "_" #OP "_to_all %d", i);                               \
        }                                                                                    \
    }                                                                                        \
    shmem_barrier_all(); }
#define TOALL_BIT(NAME, T) TOALL_CHECK(NAME, T, and, ~((T)1 << ((tm + i) % 7)), ~((T)1 << ((p + i) % 7))) \
    TOALL_CHECK(NAME, T, or, (T)1 << ((tm + i) % 7), (T)1 << ((p + i) % 7))                    \
    TOALL_CHECK(NAME, T, xor, tm * 5 + i, p * 5 + i)
#define TOALL_MM(NAME, T) TOALL_CHECK(NAME, T, max, (tm * 7 + i) % 13, (p * 7 + i) % 13)       \
    TOALL_CHECK(NAME, T, min, (tm * 7 + i) % 13 + 1, (p * 7 + i) % 13 + 1)
#define TOALL_AR(NAME, T) TOALL_CHECK(NAME, T, sum, (tm + i) % 4, (p + i) % 4)                 \
    TOALL_CHECK(NAME, T, prod, (tm == i % ne) ? 2 : 1, (p == i % ne) ? 2 : 1)

static void t_deprecated(void)
{
    CHECK(_my_pe() == me && _num_pes() == npes, "_my_pe/_num_pes");
    for (int i = 0; i < 10; i++) shmem_barrier(0, 0, npes, psync);
    int ne = (npes + 1) / 2;
    static int32_t s32[N], d32[N * 8];
    static int64_t s64[N], d64[N * 8];
    for (int i = 0; i < N; i++) s32[i] = me * 100 + i, s64[i] = -(me * 100 + i);
    memset(d32, 0, sizeof d32);
    shmem_barrier_all();
    if (me % 2 == 0) {
        shmem_barrier(0, 1, ne, psync);
        shmem_broadcast32(d32, s32, N, ne - 1, 0, 1, ne, psync);
        for (int i = 0; i < N; i++) CHECK(me == 2 * (ne - 1) ? d32[i] == 0 : d32[i] == (ne - 1) * 200 + i, "broadcast32 %d", i);
        shmem_fcollect64(d64, s64, 3, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 3; i++) CHECK(d64[p * 3 + i] == -(2 * p * 100 + i), "fcollect64");
        shmem_collect32(d32, s32, (size_t)(me / 2 + 1), 0, 1, ne, psync);
        for (int p = 0, o = 0; p < ne; o += ++p) for (int i = 0; i <= p; i++) CHECK(d32[o + i] == 2 * p * 100 + i, "collect32");
        static short ss[N], sd[N], pw[N];
        for (int i = 0; i < N; i++) ss[i] = (short)(me + i);
        shmem_short_max_to_all(sd, ss, N, 0, 1, ne, pw, psync);
        for (int i = 0; i < N; i++) CHECK(sd[i] == 2 * (ne - 1) + i, "short max_to_all %d", i);
    }
    shmem_barrier_all();
    static double ds[N], dd[N], dw[N];
    for (int i = 0; i < N; i++) ds[i] = me + 0.25 * i;
    shmem_double_sum_to_all(dd, ds, N, 0, 0, npes, dw, psync);
    for (int i = 0; i < N; i++) CHECK(dd[i] == npes * (npes - 1) / 2.0 + npes * 0.25 * i, "double sum_to_all %d", i);
    static long bs[5003], bd[5003], bw[5003];
    for (int i = 0; i < 5003; i++) bs[i] = me * 3 + i;
    shmem_long_sum_to_all(bd, bs, 5003, 0, 0, npes, bw, psync);
    for (int i = 0; i < 5003; i++) CHECK(bd[i] == 3L * npes * (npes - 1) / 2 + (long)npes * i, "long sum_to_all big %d", i);
    static long la[N], lb[N], lw[N];
    for (int i = 0; i < N; i++) la[i] = 1L << (me % 60);
    shmem_long_or_to_all(lb, la, N, 0, 0, npes, lw, psync);
    long all = 0;
    for (int p = 0; p < npes; p++) all |= 1L << (p % 60);
    for (int i = 0; i < N; i++) CHECK(lb[i] == all, "long or_to_all");
    shmem_alltoall64(d64, s64, 2, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 2; i++) CHECK(d64[p * 2 + i] == -(p * 100 + me * 2 + i), "alltoall64");
    /* deprecated atomics and waits, under contention */
    static long dl;
    static int di;
    static long long dll;
    dl = 0, di = 0, dll = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) {
        shmem_long_finc(&dl, 0), shmem_long_fadd(&dl, 2, 0), shmem_long_inc(&dl, 0), shmem_long_add(&dl, 3, 0);
        shmem_int_inc(&di, 0);
        long long o;
        do o = shmem_longlong_fetch(&dll, 0); while (shmem_longlong_cswap(&dll, o, o + 1, 0) != o);
    }
    shmem_barrier_all();
    CHECK(shmem_long_fetch(&dl, 0) == 7L * ITER * npes && shmem_int_fetch(&di, 0) == ITER * npes &&
          shmem_longlong_fetch(&dll, 0) == (long long)ITER * npes, "deprecated atomics");
    shmem_barrier_all();
    if (me == 0) shmem_long_set(&dl, 0, 0);
    shmem_barrier_all();
    shmem_int_p(&di, 0, 0);   /* PE 0's di: every PE writes 0 ... */
    shmem_barrier_all();
    if (me == 1 % npes) shmem_int_swap(&di, 5, 0);   /* ... then one PE wakes PE 0 */
    if (me == 0) shmem_int_wait(&di, 0);
    CHECK(me != 0 || di == 5, "shmem_int_wait %d", di);
    /* shmem_sync with four arguments is the deprecated active-set form;
     * alltoalls64 over an active set; typed and untyped deprecated waits. */
    static long ps2[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < 5; i++) shmem_sync(0, 0, npes, ps2);
    memset(d64, 0, sizeof d64);
    shmem_barrier_all();
    shmem_alltoalls64(d64, s64, 3, 2, 1, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d64[3 * p] == -(p * 100 + 2 * me) && d64[3 * p + 1] == 0, "alltoalls64 %d", p);
    /* the other width of each active-set collective, over the even PEs */
    memset(d32, 0, sizeof d32), memset(d64, 0, sizeof d64);
    shmem_barrier_all();
    if (me % 2 == 0) {
        int tm = me / 2;
        shmem_broadcast64(d64, s64, N, 0, 0, 1, ne, psync);
        for (int i = 0; i < N; i++) CHECK(me == 0 ? d64[i] == 0 : d64[i] == -i, "broadcast64 %d", i);
        shmem_fcollect32(d32, s32, 3, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 3; i++) CHECK(d32[p * 3 + i] == 2 * p * 100 + i, "fcollect32");
        shmem_collect64(d64, s64, (size_t)(ne - tm), 0, 1, ne, psync);
        for (int p = 0, o = 0; p < ne; o += ne - p, p++)
            for (int i = 0; i < ne - p; i++) CHECK(d64[o + i] == -(2 * p * 100 + i), "collect64 %d.%d", p, i);
        shmem_alltoall32(d32, s32, 2, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 2; i++) CHECK(d32[p * 2 + i] == 2 * p * 100 + tm * 2 + i, "alltoall32");
        memset(d32, 0, sizeof d32);
        shmem_alltoalls32(d32, s32, 2, 3, 1, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) CHECK(d32[2 * p] == 2 * p * 100 + 3 * tm && d32[2 * p + 1] == 0, "alltoalls32 %d", p);
        shmem_sync(0, 1, ne, psync);
    }
    shmem_barrier_all();
    SHMEM_TOALL_BIT_TYPES(TOALL_BIT)
    SHMEM_TOALL_MINMAX_TYPES(TOALL_MM)
    SHMEM_TOALL_ARITH_TYPES(TOALL_AR)
    static unsigned int uw;
    static long lw2;
    uw = 0, lw2 = 0;
    shmem_barrier_all();
    shmem_uint_p(&uw, 9, (me + 1) % npes);
    shmem_long_p(&lw2, 4, (me + 1) % npes);
    shmem_uint_wait(&uw, 0);
    (shmem_wait_until)(&lw2, SHMEM_CMP_EQ, 4);
    CHECK(uw == 9 && lw2 == 4, "deprecated waits");
    shmem_clear_cache_inv(), shmem_udcflush();
    void *h = shmalloc(100);
    CHECK(h != NULL, "shmalloc");
    shfree(h);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : "";
    if (!strcmp(g, "deprecated")) start_pes(0);
    else if (!strcmp(g, "setup")) {   /* the level asked for is the level reported */
        int prov = -1;
        CHECK(shmem_init_thread(SHMEM_THREAD_FUNNELED, &prov) == 0 && prov == SHMEM_THREAD_FUNNELED, "provided %d", prov);
        thread_level = SHMEM_THREAD_FUNNELED;
    } else shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"setup", t_setup}, {"heap", t_heap}, {"rma", t_rma}, {"amo", t_amo}, {"p2p", t_p2p},
        {"lock", t_lock}, {"coll", t_coll}, {"ctx", t_ctx}, {"team", t_team}, {"deprecated", t_deprecated},
        {"generic", t_generic},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(g, groups[i].name) || !strcmp(g, "all")) groups[i].fn(), ran = 1;
    CHECK(ran, "unknown group '%s'", g);
    shmem_finalize();
    return 0;
}
