/* test_pshmem.c: the profiling interface. This program is its own profiler:
 * it defines shmem_long_put and shmem_barrier_all, counts the calls, and
 * forwards them to pshmem_long_put and pshmem_barrier_all, which must be the
 * library's routines (not these, or the calls would recurse). */
#include <stdio.h>
#include <stdlib.h>

#include <pshmem.h>

#include "../core/check.h"   /* CHECK: names the PE (= rank), the place and the condition */

static int puts_seen, barriers_seen, depth;

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    puts_seen++, depth++;
    CHECK(depth == 1, "shmem_long_put re-entered: pshmem_long_put is not the library's");
    pshmem_long_put(dest, source, nelems, pe);
    depth--;
}

void shmem_barrier_all(void)
{
    barriers_seen++, depth++;
    CHECK(depth == 1, "shmem_barrier_all re-entered");
    pshmem_barrier_all();
    depth--;
}

#define N 37
static long dst[3][N];

int main(void)
{
    shmem_init();
    shmem_pcontrol(1);
    pshmem_pcontrol(0);
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(pshmem_my_pe() == me && pshmem_n_pes() == npes && p_my_pe() == me, "pshmem queries");
    long src[N];
    for (int i = 0; i < N; i++) src[i] = me * 1000 + i;
    for (int k = 0; k < 3; k++) shmem_long_put(dst[k], src, N, right);
    shmem_barrier_all();
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N; i++) CHECK(dst[k][i] == left * 1000 + i, "dst[%d][%d] = %ld", k, i, dst[k][i]);
    /* typed, generated and context routines have their pshmem_ names too */
    static int s[N], r[N];
    for (int i = 0; i < N; i++) s[i] = me + i;
    pshmem_barrier_all();
    pshmem_int_sum_reduce(SHMEM_TEAM_WORLD, r, s, N);
    for (int i = 0; i < N; i++) CHECK(r[i] == npes * (npes - 1) / 2 + npes * i, "pshmem_int_sum_reduce %d", i);
    static int ctr;
    pshmem_ctx_int_atomic_add(SHMEM_CTX_DEFAULT, &ctr, 2, 0);
    shmem_barrier_all();
    CHECK(me != 0 || ctr == 2 * npes, "pshmem_ctx_int_atomic_add: %d", ctr);
    shmem_barrier_all();
    CHECK(puts_seen == 3 && barriers_seen == 3, "the profiler saw %d puts and %d barriers", puts_seen, barriers_seen);
    shmem_finalize();
    return 0;
}
