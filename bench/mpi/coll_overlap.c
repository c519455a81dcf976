/* Nonblocking allreduce with overlap, as OSU's osu_iallreduce measures it:
 * on every rank, the collective alone (MPI_Iallreduce + MPI_Wait), a
 * computation alone (calibrated to last as long), and both (Iallreduce,
 * compute without calling MPI, Wait). The ratio both / max(alone) is 1.0
 * when the library progresses the collective while the ranks compute and
 * about 2 when it does not. MPI_FLOAT, MPI_SUM; sizes are the vector's bytes.
 * Standard MPI only.   coll_overlap [-s SIZES] [-t SECONDS] [-b BATCHES] */
#include <mpi.h>

#include "../bench.h"

static float *sb, *rb;

struct step { int cnt; long units; int what; };   /* what: 1 collective, 2 compute, 3 both */

static double run(long iters, void *ctx)
{
    const struct step *s = ctx;
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (s->what & 1) MPI_Iallreduce(sb, rb, s->cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        if (s->what & 2) bench_compute(s->units);
        if (s->what & 1) MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "coll_overlap", 64 << 10, 16, 1 << 20, me == 0))
        MPI_Abort(MPI_COMM_WORLD, 2);
    long max = bench_max_size(&o);
    sb = malloc((size_t)max + 4), rb = malloc((size_t)max + 4);
    if (!sb || !rb) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < max / 4 + 1; i++) sb[i] = 1.0f;
    /* the computation's speed: units per second, the slowest rank's */
    struct step cal = {0, 1000, 2};
    double per_unit = bench_time(run, &cal, &o) / (double)cal.units;
    if (me == 0)
        printf("#@ coll_overlap\n# MPI_Iallreduce overlap, %d ranks: time per call (us) of the collective alone, "
               "the computation alone, both; median of %d batches\n", n, o.batches);
    double ratio[BENCH_MAX_SIZES];
    for (int i = 0; i < o.nsizes; i++) {
        struct step s = {(int)(o.sizes[i] / 4), 0, 1};
        struct bench_overlap r;
        if (s.cnt < 1) { ratio[i] = 0; continue; }
        ratio[i] = bench_overlap(run, &s, &s.what, &s.units, per_unit, &o, &r);
        if (me == 0)
            printf("%ld_collective %12.4f\n%ld_compute %12.4f\n%ld_both %12.4f\n", o.sizes[i], r.alone * 1e6,
                   o.sizes[i], r.compute * 1e6, o.sizes[i], r.both * 1e6);
    }
    if (me == 0) {
        printf("#@ coll_overlap_ratio\n# MPI_Iallreduce overlap ratio, %d ranks: both / max(collective, compute)\n", n);
        for (int i = 0; i < o.nsizes; i++)
            if (ratio[i] > 0) printf("%-10ld %12.4f\n", o.sizes[i], ratio[i]);
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
