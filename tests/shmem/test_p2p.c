/* test_p2p.c: point-to-point synchronisation: wait/test families, signals,
 * fairness of _any, polls that see another node's puts. */
#include <time.h>

#include "shmem_test.h"

static long gvals[N];
static uint64_t gsig;
static int gflags[16];

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

/* --- polls across nodes: a loop on a test, a signal fetch or shmem_test_lock
 * sees what a PE on another node did. Over TCP a put into this PE is done
 * by this PE's UCX worker, and the lock holder's quiet before its release
 * waits for its put here: these calls run UCX, or the loops hang (bounded
 * here, so the test fails instead). */
static long plock, pdata;
static int pflag;
static uint64_t psig;
static double poll_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#define POLL_UNTIL(cond, what)                                                                         \
    do {                                                                                               \
        double t0_ = poll_now();                                                                       \
        while (!(cond)) CHECK(poll_now() - t0_ < 20, "%s: not seen in 20 s of polling", what);        \
    } while (0)

static void t_poll(void)
{
    int h = npes - 1, p = npes > 2 ? 1 : 0;   /* on 2 nodes of 2: PE 3 acts, PE 0 and PE 1 (node 0) poll */
    shmem_barrier_all();
    if (me == h) shmem_int_p(&pflag, 1, 0);
    if (me == 0) POLL_UNTIL(shmem_int_test(&pflag, SHMEM_CMP_EQ, 1), "shmem_int_test of a put");
    shmem_barrier_all();
    long v = 1000 + h;
    if (me == h) shmem_putmem_signal(&pdata, &v, sizeof v, &psig, 1, SHMEM_SIGNAL_SET, 0);
    if (me == 0) {
        POLL_UNTIL(shmem_signal_fetch(&psig) == 1, "shmem_signal_fetch of a put_signal");
        CHECK(pdata == v, "signalled data %ld", pdata);
    }
    shmem_barrier_all();
    if (npes > 1) {
        if (me == h) shmem_set_lock(&plock);
        shmem_barrier_all();
        if (me == h) {
            shmem_long_p(&pdata, 42, p);
            shmem_clear_lock(&plock);   /* its quiet waits for the put into p */
        }
        if (me == p) {
            POLL_UNTIL(!shmem_test_lock(&plock), "shmem_test_lock of a lock held on another PE");
            CHECK(pdata == 42, "the holder's put before its release: %ld", pdata);
            shmem_clear_lock(&plock);
        }
        shmem_barrier_all();
    }
}

int main(void)
{
    test_start();
    t_p2p();
    t_poll();
    shmem_finalize();
    return 0;
}
