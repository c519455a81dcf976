/* MPI one-sided costs (seed 002's questions, issue 13's targets), standard
 * MPI-3 only: the same source builds with smcc, Open MPI's and MPICH's mpicc.
 *  - put_flush_<mem>: MPI_Put of 8 B + MPI_Win_flush, rank 0 to rank 1 under
 *    MPI_Win_lock_all, on MPI_Win_allocate memory and on MPI_Win_create over
 *    malloc'd memory (rank 1 waits in MPI_Barrier meanwhile);
 *  - barrier: MPI_Barrier over all ranks, the yardstick for the epochs;
 *  - fence_epoch: MPI_Win_fence + one 8-byte put to the next rank, per epoch;
 *  - pscw_epoch: post/start + one 8-byte put + complete/wait between neighbours;
 *  - fence/pscw_per_barrier: each epoch over the barrier measured next to it;
 *  - overlap: rank 0 puts BYTES to rank 1 under lock/unlock while rank 1
 *    computes for as long as the transfers take alone (no MPI call):
 *    (both together) / (the longer of the two alone): 1.0 is full overlap,
 *    2.0 none.
 * Each figure is the median of REPS timed runs, in microseconds per
 * operation; lines are "name value". Usage: rma [reps] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, cmp);
    return t[k / 2];
}
/* Rank 0's figure, seen by all. */
static double shared(double v)
{
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return v;
}

static double put_flush(MPI_Win win, int reps)
{
    enum { IT = 20000 };
    double t[64], v = 1;
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 0)
            for (int i = 0; i < IT; i++) {
                MPI_Put(&v, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
                MPI_Win_flush(1, win);
            }
        t[r] = (MPI_Wtime() - t0) * 1e6 / IT;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    return shared(median(t, reps));
}

/* One timed block of IT iterations of each kind, in microseconds per iteration. */
enum { IT_SYNC = 2000 };
static double barrier_block(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < IT_SYNC; i++) MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t0) * 1e6 / IT_SYNC;
}

static double fence_block(MPI_Win win)
{
    double v = me;
    MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < IT_SYNC; i++) {
        MPI_Put(&v, 1, MPI_DOUBLE, (me + 1) % n, 0, 1, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
    }
    double t = (MPI_Wtime() - t0) * 1e6 / IT_SYNC;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    return t;
}

static double pscw_block(MPI_Win win, MPI_Group left, MPI_Group right)
{
    double v = me;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < IT_SYNC; i++) {
        MPI_Win_post(left, 0, win);
        MPI_Win_start(right, 0, win);
        MPI_Put(&v, 1, MPI_DOUBLE, (me + 1) % n, 0, 1, MPI_DOUBLE, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
    return (MPI_Wtime() - t0) * 1e6 / IT_SYNC;
}

/* Barrier, fence epochs and PSCW epochs measured in turn, reps times: the
 * medians of each, and of each epoch's ratio to the barrier of its own
 * turn (so that a busy moment slows both sides of a ratio alike). */
static void epochs(MPI_Win win, int reps, double out[5])
{
    double bar[64], fen[64], pscw[64], rf[64], rp[64];
    MPI_Group g, left, right;
    MPI_Win_get_group(win, &g);
    int l = (me + n - 1) % n, r = (me + 1) % n;
    MPI_Group_incl(g, 1, &l, &left);
    MPI_Group_incl(g, 1, &r, &right);
    for (int k = 0; k < reps; k++) {
        bar[k] = barrier_block();
        fen[k] = fence_block(win);
        pscw[k] = pscw_block(win, left, right);
        rf[k] = fen[k] / bar[k], rp[k] = pscw[k] / bar[k];
    }
    MPI_Group_free(&left);
    MPI_Group_free(&right);
    MPI_Group_free(&g);
    out[0] = shared(median(bar, reps)), out[1] = shared(median(fen, reps)), out[2] = shared(median(pscw, reps));
    out[3] = shared(median(rf, reps)), out[4] = shared(median(rp, reps));
}

/* Work that takes about iters * (a constant) and that the compiler keeps. */
static volatile double sink;
static void compute(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* The transfers: rank 0 puts bytes to rank 1 IT times, each under lock/unlock. */
static void transfers(MPI_Win win, char *buf, int bytes)
{
    enum { IT = 200 };
    for (int i = 0; i < IT; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
    }
}

/* Seed 002's overlap test: the transfers alone (rank 1 waits in MPI), the
 * computation alone (rank 1, sized to take as long), both at once (rank 1
 * computes without calling MPI): both / the longer alone. */
static double overlap(MPI_Win win, char *buf, int bytes, int reps)
{
    double alone[64], comp[64], both[64];
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 0) transfers(win, buf, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        alone[r] = MPI_Wtime() - t0;
    }
    double comm = shared(median(alone, reps));
    long iters = 1000;   /* calibrate the computation on rank 1 */
    for (;;) {
        double t0 = MPI_Wtime();
        compute(iters);
        double t = MPI_Wtime() - t0;
        if (t > comm / 4) {
            iters = (long)((double)iters * comm / t);
            break;
        }
        iters *= 2;
    }
    MPI_Bcast(&iters, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 1) compute(iters);
        MPI_Barrier(MPI_COMM_WORLD);
        comp[r] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (me == 0) transfers(win, buf, bytes);
        else if (me == 1) compute(iters);
        MPI_Barrier(MPI_COMM_WORLD);
        both[r] = MPI_Wtime() - t0;
    }
    double longer = median(comp, reps) > comm ? median(comp, reps) : comm;
    return shared(median(both, reps) / longer);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1 || reps > 64) reps = 7;
    if (n < 2) {
        if (!me) fprintf(stderr, "rma: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    enum { BYTES = 64 << 10 };
    char *mem, *heap = malloc(BYTES), *buf = malloc(BYTES);
    memset(heap, 0, BYTES);
    memset(buf, 1, BYTES);
    MPI_Win wa, wc;
    MPI_Win_allocate(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wa);
    MPI_Win_create(heap, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
    double pf[2], ep[5], ov;
    pf[0] = put_flush(wa, reps);
    pf[1] = put_flush(wc, reps);
    epochs(wa, reps, ep);
    ov = overlap(wc, buf, BYTES, reps);
    if (me == 0)
        printf("put_flush_allocate %.4f\nput_flush_create_malloc %.4f\nbarrier %.4f\nfence_epoch %.4f\n"
               "pscw_epoch %.4f\nfence_per_barrier %.3f\npscw_per_barrier %.3f\noverlap_ratio_64KiB %.3f\n",
               pf[0], pf[1], ep[0], ep[1], ep[2], ep[3], ep[4], ov);
    MPI_Win_free(&wa);
    MPI_Win_free(&wc);
    free(heap);
    free(buf);
    MPI_Finalize();
    return 0;
}
