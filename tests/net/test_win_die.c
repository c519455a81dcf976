/* A rank killed while another holds the exclusive lock on its window and
 * puts, gets and accumulates there from another node (MPI RMA over UCX),
 * and the rest wait for that lock: the launcher ends the job with a
 * non-zero exit (or first a rank whose operation to the dead one failed,
 * naming the UCX call and the rank), and nobody hangs or reports success. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int victim = n - 1;
    long *mem, buf[64] = { 0 }, one = 1;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    if (me == 0) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == victim) raise(SIGKILL);
    if (me != 0) MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win);   /* granted only after rank 0's unlock */
    for (long i = 0; i < 1000000; i++) {   /* (until the launcher ends the job) */
        MPI_Put(buf, 64, MPI_LONG, victim, 0, 64, MPI_LONG, win);
        MPI_Get(buf, 64, MPI_LONG, victim, 0, 64, MPI_LONG, win);
        MPI_Accumulate(&one, 1, MPI_LONG, victim, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(victim, win);
    }
    MPI_Win_unlock(victim, win);
    printf("rank %d: survived its peer's death\n", me);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
