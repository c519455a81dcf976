/* mpi_rma_put.c: the MPI users' alternative to SHMEM put/get, in standard
 * MPI-3 for any MPI library: passive target (MPI_Win_lock_all), rank 0 puts
 * or gets 8 B - 4 MiB to/from rank 1 and completes each with
 * MPI_Win_flush(1), as osu_put_latency/osu_get_latency do; plus an 8-byte
 * put ping-pong (put + flush, waiting on the local window with MPI_Win_sync). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXSZ (4 << 20)

/* Wait for a flag in the local window; MPI_Iprobe drives progress in
 * libraries without an asynchronous progress thread (MPICH ch3). */
static void wait_flag(volatile long *flag, long v, MPI_Win win)
{
    int f;
    while (*flag != v) {
        MPI_Win_sync(win);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char *base, *buf;
    MPI_Win win;
    MPI_Win_allocate(2 * MAXSZ, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Alloc_mem(MAXSZ, MPI_INFO_NULL, &buf);
    memset(buf, 1, MAXSZ);
    memset(base, 0, 2 * MAXSZ);
    MPI_Win_lock_all(0, win);
    for (int get = 0; get < 2; get++) {
        if (me == 0) printf("# MPI_%s + MPI_Win_flush latency (passive target, lock_all)\n# %-10s %12s\n",
                            get ? "Get" : "Put", "Size", "Latency (us)");
        for (int sz = 8; sz <= MAXSZ; sz *= 2) {
            int it = sz <= 8192 ? 20000 : sz <= (1 << 20) ? 1000 : 100, warm = it / 10;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                double t0 = 0;
                for (int i = 0; i < it + warm; i++) {
                    if (i == warm) t0 = MPI_Wtime();
                    if (get) MPI_Get(buf, sz, MPI_BYTE, 1, 0, sz, MPI_BYTE, win);
                    else MPI_Put(buf, sz, MPI_BYTE, 1, 0, sz, MPI_BYTE, win);
                    MPI_Win_flush(1, win);
                }
                printf("%-12d %12.3f\n", sz, (MPI_Wtime() - t0) * 1e6 / it);
            }
        }
    }
    /* ping-pong: 8-byte flags at offset MAXSZ of each window; median of 7 runs */
    enum { REPS = 7, IT = 20000 };
    volatile long *flag = (volatile long *)(base + MAXSZ);
    double t[REPS];
    long v = 0;
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < IT && me < 2; i++) {
            v++;
            if (me == 0) {
                MPI_Put(&v, 1, MPI_LONG, 1, MAXSZ, 1, MPI_LONG, win);
                MPI_Win_flush(1, win);
                wait_flag(flag, v, win);
            } else {
                wait_flag(flag, v, win);
                MPI_Put(&v, 1, MPI_LONG, 0, MAXSZ, 1, MPI_LONG, win);
                MPI_Win_flush(0, win);
            }
        }
        t[r] = (MPI_Wtime() - t0) * 1e6 / IT / 2;
    }
    for (int i = 1; i < REPS; i++)   /* insertion sort: the median */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) { double x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
    if (me == 0) printf("# MPI 8-byte put ping-pong (put + flush, polling with MPI_Win_sync + MPI_Iprobe), median of %d runs\n"
                        "%-12s %12.3f us half round trip (min %.3f, max %.3f)\n", REPS, "8", t[REPS / 2], t[0], t[REPS - 1]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Free_mem(buf);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
