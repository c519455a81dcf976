/* test_amo.c: atomics: every op and type under contention from all PEs. */
#include "shmem_test.h"

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

int main(void)
{
    test_start();
    t_amo();
    shmem_finalize();
    return 0;
}
