/* test_generic.c: the C11 generic names of RMA, atomics and point-to-point
 * synchronisation (collective ones: test_coll.c). */
#include "shmem_test.h"

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
}

int main(void)
{
    test_start();
    t_generic();
    shmem_finalize();
    return 0;
}
