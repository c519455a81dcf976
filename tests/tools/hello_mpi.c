/* An ordinary MPI program: built with mpicc, run with mpirun from the prefix. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpi hello from %d of %d, sum %d\n", rank, size, sum);
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
