/* Ping-pong latency and bandwidth between ranks 0 and 1 (0 B to 4 MiB by
 * default), bidirectional bandwidth (a window of 16 messages each way at
 * once), and a windowed message rate of 8-byte messages (n/2 pairs when run
 * on n ranks), also exactly as osu_mbw_mr (OMB 5.x-7.x) runs it: each
 * window of 64 completed into a status array, every receive into the same
 * buffer, and answered by a 4-byte reply from the receiver. Standard MPI
 * only: the same source builds with smcc, Open MPI's mpicc and MPICH's
 * mpicc. BENCH_THREAD_LEVEL=multiple asks for
 * MPI_THREAD_MULTIPLE (and still calls from one thread): what a program
 * that may use threads pays on the single-threaded path. The latency's
 * limit, measured in the same run: a raw flag ping-pong through memory
 * ranks 0 and 1 share (MPI_Win_allocate_shared; no MPI call in the loop),
 * on 2 ranks, skipped where they share no memory (on different nodes),
 * once before the latencies and once before the message rates: on a VM
 * whose vCPUs the host places near or far apart, and moves between the
 * two, each says which placement the figures after it were taken in.
 *   pingpong [-s SIZES] [-t SECONDS] [-b BATCHES]   (bench.h) */
#include <mpi.h>

#include "../bench.h"
#include "flag.h"

#define WINDOW 64
#define BIDIR 16

static int me, n;
static char *buf, *rbuf;
static long maxsz;

struct pp { int len, what; };   /* what: 0 ping-pong, 1 bidirectional, 2 message rate, 3 with replies */

/* rank 0's time (ranks beyond the pairs wait in the broadcast) */
static double run(long iters, void *ctx)
{
    const struct pp *p = ctx;
    int peer = me == 0 ? 1 : 0, pairs = n / 2, sender = me < pairs, partner = sender ? me + pairs : me - pairs;
    MPI_Request r[2 * (WINDOW > BIDIR ? WINDOW : BIDIR)];
    MPI_Status reqstat[WINDOW];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (p->what == 0 && me < 2) {
            if (me == 0) {
                MPI_Send(buf, p->len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, p->len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, p->len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, p->len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
        } else if (p->what == 1 && me < 2) {
            for (int w = 0; w < BIDIR; w++)
                MPI_Irecv(rbuf + ((long)p->len * w) % (maxsz + 1 - p->len), p->len, MPI_BYTE, peer, 2,
                          MPI_COMM_WORLD, &r[w]);
            for (int w = 0; w < BIDIR; w++) MPI_Isend(buf, p->len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &r[BIDIR + w]);
            MPI_Waitall(2 * BIDIR, r, MPI_STATUSES_IGNORE);
        } else if (p->what == 2 && me < 2 * pairs) {
            for (int w = 0; w < WINDOW; w++) {
                if (sender) MPI_Isend(buf, 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &r[w]);
                else MPI_Irecv(rbuf + 8 * w, 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &r[w]);
            }
            MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
        } else if (p->what == 3 && me < 2 * pairs) {
            /* osu_mbw_mr's loop as OMB 5.x-7.x writes it: MPI_CHAR, tags 100
             * and 101, a status array for the Waitall and the reply, every
             * receive of a window into the same buffer */
            if (sender) {
                for (int w = 0; w < WINDOW; w++) MPI_Isend(buf, 8, MPI_CHAR, partner, 100, MPI_COMM_WORLD, &r[w]);
                MPI_Waitall(WINDOW, r, reqstat);
                MPI_Recv(rbuf, 4, MPI_CHAR, partner, 101, MPI_COMM_WORLD, &reqstat[0]);
            } else {
                for (int w = 0; w < WINDOW; w++) MPI_Irecv(rbuf, 8, MPI_CHAR, partner, 100, MPI_COMM_WORLD, &r[w]);
                MPI_Waitall(WINDOW, r, reqstat);
                MPI_Send(buf, 4, MPI_CHAR, partner, 101, MPI_COMM_WORLD);
            }
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    const char *level = getenv("BENCH_THREAD_LEVEL");
    if (level && !strcmp(level, "multiple")) {
        int got;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &got);
        if (got != MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "pingpong: MPI_THREAD_MULTIPLE asked for, %d granted\n", got);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "pingpong", 0, 2, 4L << 20, me == 0)) MPI_Abort(MPI_COMM_WORLD, 2);
    if (n < 2) {
        if (!me) fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    maxsz = bench_max_size(&o);
    buf = malloc((size_t)maxsz + 1), rbuf = malloc((size_t)maxsz + 8 * WINDOW + 1);
    if (!buf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, (size_t)maxsz + 1);
    /* 2 ranks only: with more ranks than cores, the ranks waiting meanwhile
     * (spinning, under MPICH) took the cores the flags needed, and the
     * batches ran for minutes */
    bool flags = n == 2 && flag_setup();
    double flag_lat = flags ? flag_time(&o) : 0;
    double lat[BENCH_MAX_SIZES];
    for (int i = 0; i < o.nsizes; i++) {
        struct pp p = {(int)o.sizes[i], 0};
        lat[i] = bench_time(run, &p, &o) / 2;
    }
    if (me == 0) {
        printf("#@ pp_lat\n# ping-pong, ranks 0 and 1: bytes, half round trip (us)\n");
        for (int i = 0; i < o.nsizes; i++) printf("%-10ld %12.4f\n", o.sizes[i], lat[i] * 1e6);
        printf("#@ pp_bw\n# ping-pong bandwidth: bytes, MB/s\n");
        for (int i = 0; i < o.nsizes; i++)
            if (o.sizes[i]) printf("%-10ld %12.2f\n", o.sizes[i], (double)o.sizes[i] / lat[i] / 1e6);
        printf("#@ pp_bibw\n# bidirectional bandwidth, %d messages each way at once: bytes, MB/s\n", BIDIR);
    }
    for (int i = 0; i < o.nsizes; i++) {
        struct pp p = {(int)o.sizes[i], 1};
        if (!p.len) continue;
        double t = bench_time(run, &p, &o);
        if (me == 0) printf("%-10d %12.2f\n", p.len, 2.0 * p.len * BIDIR / t / 1e6);
    }
    if (flags) {
        double t = flag_time(&o);
        if (me == 0)
            printf("#@ pp_flag\n# raw flag ping-pong through MPI_Win_allocate_shared memory, before the latencies: "
                   "half round trip (us)\n0 %12.4f\n#@ pp_flag_rate\n# the same, before the message rates\n"
                   "0 %12.4f\n", flag_lat * 1e6, t * 1e6);
        flag_free();
    }
    struct pp p = {8, 2};
    double t = bench_time(run, &p, &o);
    if (me == 0)
        printf("#@ msgrate\n# message rate, 8 B, window %d, %d pair%s: M messages/s\n8 %12.3f\n", WINDOW, n / 2,
               n / 2 > 1 ? "s" : "", (double)WINDOW * (n / 2) / t / 1e6);
    p.what = 3;
    t = bench_time(run, &p, &o);
    if (me == 0)
        printf("#@ msgrate_reply\n# message rate as osu_mbw_mr: 8 B, window %d into statuses and one buffer, answered by 4 B, "
               "%d pair%s: M messages/s\n"
               "8 %12.3f\n", WINDOW, n / 2, n / 2 > 1 ? "s" : "", (double)WINDOW * (n / 2) / t / 1e6);
    free(buf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
