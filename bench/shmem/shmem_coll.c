/* shmem_coll.c: OpenSHMEM 1.5 collectives on SHMEM_TEAM_WORLD, timed as
 * bench/mpi/coll.c times their MPI equivalents (the baseline smbench runs
 * beside them): barrier_all (MPI_Barrier), broadcastmem (MPI_Bcast, root
 * rotating), fcollectmem (MPI_Allgather), collectmem with equal blocks
 * (MPI_Allgatherv), alltoallmem (MPI_Alltoall), float_sum_reduce
 * (MPI_Allreduce of MPI_FLOAT, MPI_SUM). Time per call, the slowest PE's;
 * sizes in bytes (per PE's block for collect and alltoall).
 *   smrun -n N shmem_coll [-s SIZES] [-t SECONDS] [-b BATCHES] [-o broadcast,...]  (bench.h) */
#include <shmem.h>
#include <time.h>

#include "../bench.h"

enum op { BARRIER, BROADCAST, FCOLLECT, COLLECT, ALLTOALL, REDUCE, NOPS };
static const char *const names[NOPS] = {"barrier", "broadcast", "fcollect", "collect", "alltoall", "reduce"};
static int me, npes;
static char *src, *dst;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct call { enum op op; size_t len; };

static double run(long iters, void *ctx)
{
    const struct call *c = ctx;
    static double tin, tout;
    shmem_barrier_all();
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        switch (c->op) {
        case BARRIER: shmem_barrier_all(); break;
        case BROADCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, c->len, (int)(i % npes)); break;
        case FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, c->len); break;
        case COLLECT: shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, c->len); break;
        case ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, c->len); break;
        case REDUCE: shmem_float_sum_reduce(SHMEM_TEAM_WORLD, (float *)dst, (const float *)src, c->len / sizeof(float)); break;
        default: break;
        }
    }
    tin = now() - t0;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &tout, &tin, 1);
    return tout;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
    if (bench_args(&o, argc, argv, "shmem_coll", 4, 4, 4 << 20, me == 0)) shmem_global_exit(2);
    size_t big = (size_t)bench_max_size(&o) * (size_t)npes + 8;
    src = shmem_malloc(big);
    dst = shmem_malloc(big);
    if (!src || !dst) {
        fprintf(stderr, "shmem_coll: PE %d: cannot allocate 2 x %zu symmetric bytes\n", me, big);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < big / sizeof(float); i++) ((float *)src)[i] = 1.0f;
    for (int op = 0; op < NOPS; op++) {
        if (!bench_want(&o, names[op])) continue;
        if (me == 0)
            printf("#@ shcoll_%s\n# shmem %s, %d PEs: bytes, time per call (us), median of %d batches\n", names[op],
                   names[op], npes, o.batches);
        for (int s = 0; s < (op == BARRIER ? 1 : o.nsizes); s++) {
            struct call c = {(enum op)op, op == BARRIER ? 0 : (size_t)o.sizes[s]};
            if (op == REDUCE && c.len < sizeof(float)) continue;
            double t = bench_time(run, &c, &o);
            if (me == 0) printf("%-10zu %12.4f\n", c.len, t * 1e6);
            fflush(stdout);
        }
    }
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
