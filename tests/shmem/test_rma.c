/* test_rma.c: RMA: every standard type, typed, sized and mem forms, _nbi,
 * strided, context forms, generic names, large transfers; the exposed-memory
 * extension (shmem.h). */
#include "shmem_test.h"

static long gvals[N];
static double gdbl[N];

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
    char *priv = malloc(64);
    memset(priv, 0, 64);
    void *target;
#ifndef SM_SANITIZE   /* (under AddressSanitizer malloc is the sanitizer's: not exposed) */
    /* beyond the spec: a non-symmetric malloc buffer, named by its global address */
    static void *pub;
    pub = sm_global(priv);
    shmem_barrier_all();
    shmem_getmem(&target, &pub, sizeof target, right);
    shmem_putmem(target, "hello", 6, right);
    shmem_barrier_all();
    CHECK(!strcmp(priv, "hello"), "put to a published malloc buffer: '%s'", priv);
    CHECK(shmem_addr_accessible(priv, me) && shmem_ptr(priv, me) == priv, "own malloc buffer on this PE");
    CHECK(!shmem_addr_accessible(target, npes == 1 ? 1 : (right + 1) % npes) || npes <= 2, "a peer's malloc buffer on a third PE");
#endif
    /* ... but named by this PE for another, it is not symmetric (issue 11 item 4) */
    CHECK(npes == 1 || (!shmem_addr_accessible(priv, right) && shmem_ptr(priv, right) == NULL),
          "a private malloc buffer is accessible on PE %d", right);
    /* a main-thread stack buffer, by its global address (extension) */
    static void *spub;
    long sbuf[2] = {0, 0};
    spub = sm_global(sbuf);
    shmem_barrier_all();
    shmem_getmem(&target, &spub, sizeof target, right);
    shmem_long_p((long *)target + 1, 77 + me, right);
    shmem_barrier_all();
    CHECK(sbuf[0] == 0 && sbuf[1] == 77 + left, "put to a published stack buffer: %ld %ld", sbuf[0], sbuf[1]);
    shmem_barrier_all();
    free(priv);
}

int main(void)
{
    test_start();
    t_rma();
    shmem_finalize();
    return 0;
}
