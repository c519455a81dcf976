/* Passive target is truly passive (seed 002's overlap test): rank 0
 * computes for a second without calling MPI while every other rank locks
 * its window (exclusive, shared, lock_all), puts, gets, accumulates and
 * fetches-and-adds there, on a window over malloc'd memory and on one from
 * MPI_Win_allocate. Rank 0 then finds all their work done the moment its
 * computation ends (a done counter in its window, read with plain loads):
 * an MPI that needed the target to enter MPI would leave the origins
 * waiting, and rank 0 would time out. The elapsed times are printed; the
 * test itself takes about a second. Across nodes (a PMIx launch with fake
 * nodes) UCX over TCP needs the target to run its worker, as every UCX
 * program without a progress thread does: there rank 0 computes calling
 * MPI_Iprobe between rounds (computing in MPI calls). */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "mcheck.h"

static int ITER = 100;   /* rounds per origin: argv[1] (fewer across nodes: round trips over TCP) */
#define SLOTS 16
static int me, n, one_node;

/* The clock MPI_Wtime reads, without calling MPI. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The window: [0] done counter, [1] sum, [2 + 16 r ...] rank r's slots. */
static void run(MPI_Win win, volatile int64_t *mem, const char *what)
{
    OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = now();
    if (me == 0) {
        /* compute (no MPI) for a second, or until the origins are done if later */
        volatile double x = 1.0;
        while (now() - t0 < 1.0 || mem[0] < n - 1) {
            for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
            if (!one_node) {
                int flag;
                OK(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            }
            CHECK(now() - t0 < 60, "%s: after 60 s of computing, %lld of %d origins are done: the origins "
                  "need the target to call MPI", what, (long long)mem[0], n - 1);
        }
        double busy = now() - t0;
        double origins_end = 0;
        for (int r = 1; r < n; r++) {
            double e;
            memcpy(&e, (const void *)&mem[2 + SLOTS * r + SLOTS - 1], sizeof e);
            if (e - t0 > origins_end) origins_end = e - t0;
        }
        printf("test_rma_passive: %s: the target computed %.3f s %s; the %d origins were done after %.3f s\n", what,
               busy, one_node ? "without calling MPI" : "calling MPI_Iprobe", n - 1, origins_end);
        int64_t want = 0;
        for (int r = 1; r < n; r++) {
            want += (int64_t)r * ITER;
            for (int i = 0; i < SLOTS - 1; i++)
                CHECK(mem[2 + SLOTS * r + i] == r * 100 + i, "%s: rank %d's slot %d holds %lld", what, r, i,
                      (long long)mem[2 + SLOTS * r + i]);
        }
        CHECK(mem[1] == want, "%s: sum %lld, not %lld", what, (long long)mem[1], (long long)want);
    } else {
        int64_t slot[SLOTS], back[SLOTS], v = me, old, one = 1;
        for (int i = 0; i < SLOTS; i++) slot[i] = me * 100 + i;
        for (int k = 0; k < ITER; k++) {
            int mode = k % 3;
            if (mode == 0) OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            else if (mode == 1) OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            else OK(MPI_Win_lock_all(0, win));
            OK(MPI_Put(slot, SLOTS - 1, MPI_INT64_T, 0, 2 + SLOTS * me, SLOTS - 1, MPI_INT64_T, win));
            OK(MPI_Accumulate(&v, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
            OK(MPI_Win_flush(0, win));
            OK(MPI_Get(back, SLOTS - 1, MPI_INT64_T, 0, 2 + SLOTS * me, SLOTS - 1, MPI_INT64_T, win));
            if (mode == 2) OK(MPI_Win_unlock_all(win));
            else OK(MPI_Win_unlock(0, win));
            CHECK(!memcmp(back, slot, sizeof(int64_t) * (SLOTS - 1)), "%s: read back differs", what);
        }
        double end = now();
        OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        OK(MPI_Put(&end, 1, MPI_DOUBLE, 0, 2 + SLOTS * me + SLOTS - 1, 1, MPI_DOUBLE, win));
        OK(MPI_Win_flush(0, win));
        OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
        OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    one_node = mcheck_nodes(NULL);
    if (argc > 1 && atoi(argv[1]) > 0) ITER = atoi(argv[1]);
    MPI_Aint bytes = (MPI_Aint)sizeof(int64_t) * (2 + SLOTS * n);
    int64_t *mem = calloc(1, (size_t)bytes);
    MPI_Win win;
    OK(MPI_Win_create(mem, bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, "MPI_Win_create(malloc)");
    OK(MPI_Win_free(&win));
    free(mem);
    OK(MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, (size_t)bytes);
    run(win, mem, "MPI_Win_allocate");
    OK(MPI_Win_free(&win));
    OK(MPI_Finalize());
    return 0;
}
