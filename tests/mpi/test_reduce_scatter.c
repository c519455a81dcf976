/* MPI_Reduce_scatter with unequal blocks, in place, and
 * MPI_Reduce_scatter_block in place. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_Reduce_scatter with unequal blocks: rank i gets i + 1 sums. */
static void reduce_scatter(void)
{
    int *counts = malloc(sizeof(int) * (size_t)n), total = 0;
    for (int i = 0; i < n; i++) counts[i] = i + 1, total += i + 1;
    int *in = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++) in[k] = me + k;
    for (int k = 0; k < total; k++) out[k] = -1;
    OK(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int first = me * (me + 1) / 2;                        /* where my block starts */
    for (int k = 0; k <= me; k++)
        CHECK(out[k] == n * (n - 1) / 2 + n * (first + k), "reduce_scatter [%d] = %d", k, out[k]);
    CHECK(me + 1 == total || out[me + 1] == -1, "reduce_scatter wrote past its block");
    memcpy(out, in, sizeof(int) * (size_t)total);
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k <= me; k++)
        CHECK(out[k] == n * (n - 1) / 2 + n * (first + k), "reduce_scatter in place [%d] = %d", k, out[k]);
    /* the block form in place: 2 sums each */
    int *whole = malloc(sizeof(int) * 2 * (size_t)n);
    for (int k = 0; k < 2 * n; k++) whole[k] = me + k;
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, whole, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < 2; k++)
        CHECK(whole[k] == n * (n - 1) / 2 + n * (2 * me + k), "reduce_scatter_block in place [%d] = %d", k, whole[k]);
    free(whole);
    free(counts), free(in), free(out);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    reduce_scatter();
    OK(MPI_Finalize());
    if (me == 0) printf("test_reduce_scatter: %d ranks ok\n", n);
    return 0;
}
