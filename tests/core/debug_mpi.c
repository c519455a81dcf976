/* An ordinary MPI program for the debugging tools' tests (valgrind, a
 * program built with -fsanitize=address, gdb running a rank): a ring of
 * messages from heap and stack buffers, small and large (single copy), an
 * Allreduce and a Barrier. Mode (argv[1]): ok; overflow: rank 0 writes one
 * int past a heap block (AddressSanitizer must say so); segv: rank 1 faults
 * in a function gdb names. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 20)

__attribute__((noinline)) static void fault_in_rank_one(volatile int *where) { *where = 1; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int me, n, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;

    int small[16], got[16];
    for (int i = 0; i < 16; i++) small[i] = me * 100 + i;
    MPI_Sendrecv(small, 16, MPI_INT, right, 1, got, 16, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 16; i++) bad |= got[i] != left * 100 + i;

    int *big = malloc(BIG * sizeof *big), *in = malloc(BIG * sizeof *in);
    for (int i = 0; i < BIG; i++) big[i] = me ^ i;
    MPI_Sendrecv(big, BIG, MPI_INT, right, 2, in, BIG, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < BIG; i++) bad |= in[i] != (left ^ i);

    if (!strcmp(mode, "overflow") && me == 0) {
        volatile int *block = malloc(10 * sizeof *block), past = 10;
        block[past] = 1;                   /* one past the end */
        free((void *)block);
    }
    if (!strcmp(mode, "segv") && me == 1) fault_in_rank_one((volatile int *)(uintptr_t)(argc > 5));

    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad |= sum != n * (n - 1) / 2;
    MPI_Barrier(MPI_COMM_WORLD);
    free(big);
    free(in);
    if (bad) fprintf(stderr, "debug_mpi: rank %d: wrong data\n", me);
    else if (me == 0) printf("debug_mpi: %d ranks ok\n", n);
    MPI_Finalize();
    return bad;
}
