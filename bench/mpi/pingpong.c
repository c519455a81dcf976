/* Ping-pong latency and bandwidth between ranks 0 and 1, 0 B to 4 MiB,
 * bidirectional bandwidth (a window of messages each way at once), and a
 * windowed message rate (n/2 pairs when run on n ranks). Standard MPI only: the same source builds with
 * smcc, Open MPI's mpicc and MPICH's mpicc.
 *   pingpong [max_bytes [seconds_per_size]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long max = argc > 1 ? atol(argv[1]) : 4L << 20;
    double budget = argc > 2 ? atof(argv[2]) : 0.2;
    if (n < 2) {
        if (!me) fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc((size_t)max + 1);
    memset(buf, 1, (size_t)max + 1);
    int peer = me == 0 ? 1 : 0;
    if (me == 0) printf("# %-9s %12s %12s\n", "bytes", "latency_us", "MB/s");
    for (long len = 0; len <= max; len = len ? len * 2 : 1) {
        /* calibrate: enough round trips to fill the time budget */
        long iters = 10;
        for (;;) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (me < 2)
                for (long i = 0; i < iters; i++) {
                    if (me == 0) {
                        MPI_Send(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                        MPI_Recv(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(buf, (int)len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                    }
                }
            double t = MPI_Wtime() - t0;
            MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (t >= budget || iters >= (1L << 24)) {
                double lat = t / (double)iters / 2;
                if (me == 0) printf("  %-9ld %12.3f %12.1f\n", len, lat * 1e6, len ? (double)len / lat / 1e6 : 0.0);
                break;
            }
            iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
        }
    }
    /* bidirectional bandwidth: both ranks send a window and receive one */
    char *rbuf = malloc((size_t)max + 1);
    MPI_Request bw[2 * 16];
    if (me == 0) printf("# %-9s %12s (bidirectional, window 16)\n", "bytes", "MB/s");
    for (long len = 1; len <= max; len *= 4) {
        int win = 16;
        long iters = 2;
        for (;;) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (me < 2)
                for (long i = 0; i < iters; i++) {
                    for (int w = 0; w < win; w++)
                        MPI_Irecv(rbuf + (len * w) % (max + 1 - len), (int)len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &bw[w]);
                    for (int w = 0; w < win; w++)
                        MPI_Isend(buf, (int)len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &bw[win + w]);
                    MPI_Waitall(2 * win, bw, MPI_STATUSES_IGNORE);
                }
            double t = MPI_Wtime() - t0;
            MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (t >= budget || iters >= (1L << 20)) {
                if (me == 0) printf("  %-9ld %12.1f\n", len, 2.0 * (double)len * win * (double)iters / t / 1e6);
                break;
            }
            iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
        }
    }
    free(rbuf);
    /* message rate: ranks [0, n/2) stream windows of 8-byte messages to
     * their partners in [n/2, n) (one pair with 2 ranks) */
    int pairs = n / 2, sender = me < pairs, partner = sender ? me + pairs : me - pairs;
    int active = me < 2 * pairs;
    long msgs = 0;
    double t0 = MPI_Wtime(), t = 0;
    MPI_Request req[WINDOW];
    int go = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    while (go) {
        if (active) {
            for (int i = 0; i < WINDOW; i++) {
                if (sender) MPI_Isend(buf, 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[i]);
                else MPI_Irecv(buf, 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[i]);
            }
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            msgs += WINDOW;
        }
        t = MPI_Wtime() - t0;
        go = t < budget * 5;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (me == 0)
        printf("# message rate, 8 B, window %d, %d pair%s: %.2f M messages/s\n", WINDOW, pairs,
               pairs > 1 ? "s" : "", (double)msgs * pairs / t / 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
