/* hello_shmem.c: an ordinary OpenSHMEM program, built with smcc by
 * smcc_shmem.sh: generic (C11) names with and without a context, the
 * symmetric heap, a reduction. */
#include <shmem.h>
#include <stdio.h>

static long counter;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *sum = shmem_malloc(sizeof *sum), *mine = shmem_malloc(sizeof *mine);
    *mine = me + 1;
    shmem_atomic_add(&counter, 1L, 0);
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, &counter, 0);   /* the context form of a generic name */
    shmem_sum_reduce(SHMEM_TEAM_WORLD, sum, mine, 1);
    shmem_barrier_all();
    long c = shmem_g(&counter, 0);
    if (*sum == (long)n * (n + 1) / 2 && c == 2L * n) printf("hello from PE %d of %d\n", me, n);
    shmem_free(sum), shmem_free(mine);
    shmem_finalize();
    return 0;
}
