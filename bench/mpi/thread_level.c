/* What the thread level costs a program that calls MPI from one thread:
 * the processor time of an 8-byte message to itself (MPI_Isend, MPI_Recv,
 * MPI_Wait: the library's own cost, which a busy machine disturbs least),
 * 0- and 8-byte ping-pong latency and an 8-byte windowed message rate
 * between ranks 0 and 1, after MPI_Init_thread at the level named. One
 * level per run; thread_level.sh alternates runs of each level and prints
 * medians and ratios. Standard MPI only (builds with any mpicc).
 *   thread_level single|funneled|serialized|multiple [seconds] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 64

static double budget;

/* Half a round trip of len bytes, in microseconds. */
static double latency(int me, int len, char *buf)
{
    int peer = !me;
    long iters = 100;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++) {
            if (me == 0) {
                MPI_Send(buf, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= budget || iters >= (1L << 26)) return t / (double)iters / 2 * 1e6;
        iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
    }
}

/* Processor nanoseconds of an 8-byte message to oneself (the median of 15 tries). */
static double self_ns(char *buf)
{
    double best[15];
    for (int k = 0; k < 15; k++) {
        struct timespec a, b;
        long iters = 20000;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        for (long i = 0; i < iters; i++) {
            MPI_Request r;
            MPI_Isend(buf, 8, MPI_BYTE, 0, 3, MPI_COMM_SELF, &r);
            MPI_Recv(buf + 8, 8, MPI_BYTE, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        double t = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        int j = k;
        for (; j > 0 && best[j - 1] > t / (double)iters; j--) best[j] = best[j - 1];
        best[j] = t / (double)iters;
    }
    return best[7];
}

/* Millions of 8-byte messages a second, rank 0 to rank 1, a window at a time. */
static double rate(int me, char *buf)
{
    MPI_Request req[WINDOW];
    long msgs = 0;
    int go = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t = 0;
    while (go) {
        for (int i = 0; i < WINDOW; i++) {
            if (me == 0) MPI_Isend(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
            else MPI_Irecv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[i]);
        }
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        if (me == 0) MPI_Recv(buf, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else MPI_Send(buf, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        msgs += WINDOW;
        t = MPI_Wtime() - t0;
        go = t < budget;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    return (double)msgs / t / 1e6;
}

int main(int argc, char **argv)
{
    static const char *names[] = { "single", "funneled", "serialized", "multiple" };
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
    int want = -1;
    for (int i = 0; argc > 1 && i < 4; i++)
        if (!strcmp(argv[1], names[i])) want = i;
    if (want < 0) {
        fprintf(stderr, "usage: thread_level single|funneled|serialized|multiple [seconds per figure]\n");
        return 2;
    }
    budget = argc > 2 ? atof(argv[2]) : 0.5;
    int provided, me, n;
    MPI_Init_thread(&argc, &argv, levels[want], &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 2) {
        if (!me) fprintf(stderr, "thread_level: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    char buf[64] = { 0 };
    double self = me == 0 ? self_ns(buf) : 0;
    double l0 = latency(me, 0, buf), l8 = latency(me, 8, buf), mr = rate(me, buf);
    if (me == 0)
        printf("%s provided=%d self8_ns=%.1f lat0_us=%.4f lat8_us=%.4f rate8_M/s=%.3f\n", names[want], provided,
               self, l0, l8, mr);
    MPI_Finalize();
    return 0;
}
