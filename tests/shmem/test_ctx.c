/* test_ctx.c: contexts: PEs numbered in the context's team, every context form. */
#include "shmem_test.h"

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

int main(void)
{
    test_start();
    t_ctx();
    shmem_finalize();
    return 0;
}
