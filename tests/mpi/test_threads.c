/* MPI_THREAD_MULTIPLE: 4 threads per rank, all calling MPI at once:
 * point-to-point on a communicator of their own and on MPI_COMM_WORLD
 * (tags tell the threads apart; MPI_ANY_SOURCE receives), small messages
 * from thread stacks and large ones from the heap, synchronous sends,
 * probe and matched probe, collectives on each thread's communicator,
 * MPI_Waitany/MPI_Testsome/MPI_Waitall completing requests in every thread
 * at once, and cancelled receives. Every value is predictable, so every
 * message is checked. With "die", rank 1 is killed while the threads of
 * the others wait for it: the job must end (smrun reports the death). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

#define T     4
#define ITER  60
#define K     8                  /* requests each thread completes with Waitany/Testsome */
#define BIG   (40 * 1024)        /* above the eager limit */

static int me, n, to, from;
static MPI_Comm tc[T];

static int val(int rank, int t, int i) { return rank * 1000000 + t * 10000 + i; }

/* Point-to-point on the thread's own communicator: a ring, small and large. */
static void ring(int t, MPI_Comm c)
{
    char *out = malloc(BIG), *in = malloc(BIG);
    CHECK(out && in, "no memory");
    for (int i = 0; i < ITER; i++) {
        int a = val(me, t, i), b = -1;
        MPI_Request r[4];
        OK(MPI_Irecv(&b, 1, MPI_INT, from, i, c, &r[0]));
        OK(MPI_Isend(&a, 1, MPI_INT, to, i, c, &r[1]));
        int nr = 2;
        if (i % 8 == 0) {
            memset(out, (me + t + i) & 0x7f, BIG);
            OK(MPI_Irecv(in, BIG, MPI_CHAR, from, ITER + i, c, &r[2]));
            OK(MPI_Isend(out, BIG, MPI_CHAR, to, ITER + i, c, &r[3]));
            nr = 4;
        }
        OK(MPI_Waitall(nr, r, MPI_STATUSES_IGNORE));
        CHECK(b == val(from, t, i), "thread %d ring %d: got %d, not %d", t, i, b, val(from, t, i));
        if (nr == 4)
            CHECK(in[0] == ((from + t + i) & 0x7f) && in[BIG - 1] == in[0], "thread %d: large message %d", t, i);
    }
    free(out), free(in);
}

/* On MPI_COMM_WORLD, shared by all threads: each receives its own tag from
 * any source, and messages from one sender arrive in order. */
static void shared(int t)
{
    int last = -1;
    for (int i = 0; i < ITER; i++) {
        int a = val(me, t, i), b;
        MPI_Status st;
        MPI_Request r;
        OK(MPI_Isend(&a, 1, MPI_INT, to, t, MPI_COMM_WORLD, &r));
        OK(MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &st));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == t, "thread %d: from %d tag %d", t, st.MPI_SOURCE, st.MPI_TAG);
        CHECK(b == val(from, t, i) && b > last, "thread %d shared %d: got %d, not %d", t, i, b, val(from, t, i));
        last = b;
    }
    /* synchronous sends between the threads of two ranks */
    for (int i = 0; i < ITER / 4; i++) {
        int a = val(me, t, i), b = -1;
        MPI_Request r;
        OK(MPI_Irecv(&b, 1, MPI_INT, from, 50 + t, MPI_COMM_WORLD, &r));
        OK(MPI_Ssend(&a, 1, MPI_INT, to, 50 + t, MPI_COMM_WORLD));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(b == val(from, t, i), "thread %d ssend %d: got %d", t, i, b);
    }
}

/* Matched probe on the shared communicator (the reason MPI_Mprobe exists),
 * and probe then receive on the thread's own one. */
static void probes(int t, MPI_Comm c)
{
    for (int i = 0; i < ITER / 2; i++) {
        int a[3] = { val(me, t, i), t, i }, b[3] = { -1, -1, -1 }, cnt;
        MPI_Request r;
        MPI_Message m;
        MPI_Status st;
        OK(MPI_Isend(a, 1 + i % 3, MPI_INT, to, 100 + t, MPI_COMM_WORLD, &r));
        if (i % 2) OK(MPI_Mprobe(MPI_ANY_SOURCE, 100 + t, MPI_COMM_WORLD, &m, &st));
        else {
            int flag = 0;
            while (!flag) OK(MPI_Improbe(from, 100 + t, MPI_COMM_WORLD, &flag, &m, &st));
        }
        OK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 1 + i % 3 && st.MPI_SOURCE == from, "thread %d mprobe: count %d source %d", t, cnt,
              st.MPI_SOURCE);
        OK(MPI_Mrecv(b, cnt, MPI_INT, &m, &st));
        CHECK(b[0] == val(from, t, i) && (cnt < 2 || b[1] == t) && (cnt < 3 || b[2] == i),
              "thread %d mrecv %d: %d %d %d", t, i, b[0], b[1], b[2]);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));

        OK(MPI_Isend(a, 3, MPI_INT, to, 7, c, &r));
        OK(MPI_Probe(MPI_ANY_SOURCE, 7, c, &st));
        CHECK(st.MPI_SOURCE == from, "thread %d probe: source %d", t, st.MPI_SOURCE);
        OK(MPI_Recv(b, 3, MPI_INT, st.MPI_SOURCE, 7, c, MPI_STATUS_IGNORE));
        CHECK(b[0] == val(from, t, i), "thread %d probe %d: %d", t, i, b[0]);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
}

/* Collectives, each thread on its own communicator, all at once. */
static void collectives(int t, MPI_Comm c)
{
    int *all = malloc(sizeof(int) * (size_t)n);
    CHECK(all, "no memory");
    for (int i = 0; i < ITER / 4; i++) {
        int root = (i + t) % n, x = root == me ? val(me, t, i) : -1, sum = 0, want = 0;
        OK(MPI_Barrier(c));
        OK(MPI_Bcast(&x, 1, MPI_INT, root, c));
        CHECK(x == val(root, t, i), "thread %d bcast %d: %d", t, i, x);
        int mine = me + t + i;
        OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
        for (int k = 0; k < n; k++) want += k + t + i;
        CHECK(sum == want, "thread %d allreduce %d: %d, not %d", t, i, sum, want);
        OK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c));
        for (int k = 0; k < n; k++) CHECK(all[k] == k + t + i, "thread %d allgather %d: [%d] %d", t, i, k, all[k]);
    }
    free(all);
}

/* K receives and K sends completed with MPI_Waitany (even threads) or
 * MPI_Testsome (odd ones), in every thread at once; a cancelled receive. */
static void completion(int t, MPI_Comm c)
{
    for (int round = 0; round < ITER / 10; round++) {
        int in[K], out[K], idx[2 * K], seen[K] = { 0 }, left = 2 * K;
        MPI_Request r[2 * K];
        MPI_Status st[2 * K];
        for (int k = 0; k < K; k++) OK(MPI_Irecv(&in[k], 1, MPI_INT, from, k, c, &r[k]));
        for (int k = K - 1; k >= 0; k--) {
            out[k] = val(me, t, k + round);
            OK(MPI_Isend(&out[k], 1, MPI_INT, to, k, c, &r[K + k]));
        }
        while (left) {
            int got = 0;
            if (t % 2 == 0) {
                OK(MPI_Waitany(2 * K, r, &idx[0], &st[0]));
                CHECK(idx[0] != MPI_UNDEFINED, "thread %d: waitany found nothing active", t);
                got = 1;
            } else
                OK(MPI_Testsome(2 * K, r, &got, idx, st));
            CHECK(got != MPI_UNDEFINED, "thread %d: testsome found nothing active", t);
            for (int j = 0; j < got; j++) {
                int k = idx[j];
                CHECK(r[k] == MPI_REQUEST_NULL, "completed request %d not freed", k);
                if (k >= K) continue;
                CHECK(!seen[k] && in[k] == val(from, t, k + round) && st[j].MPI_TAG == k,
                      "thread %d: receive %d got %d tag %d", t, k, in[k], st[j].MPI_TAG);
                seen[k] = 1;
            }
            left -= got;
        }
        int x = -1, flag = 0;
        MPI_Request cr;
        MPI_Status cs;
        OK(MPI_Irecv(&x, 1, MPI_INT, from, 999, c, &cr));
        OK(MPI_Cancel(&cr));
        OK(MPI_Wait(&cr, &cs));
        OK(MPI_Test_cancelled(&cs, &flag));
        CHECK(flag && x == -1, "thread %d: cancelled receive", t);
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, flag = 1;
    OK(MPI_Is_thread_main(&flag));
    CHECK(!flag, "thread %d is not the main thread", t);
    ring(t, tc[t]);
    shared(t);
    probes(t, tc[t]);
    collectives(t, tc[t]);
    completion(t, tc[t]);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, q;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    OK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread: %d", q);
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    to = (me + 1) % n, from = (me + n - 1) % n;
    for (int t = 0; t < T; t++) OK(MPI_Comm_dup(MPI_COMM_WORLD, &tc[t]));
    pthread_t th[T];
    bool die = argc > 1 && !strcmp(argv[1], "die");
    if (die && n > 1 && me == 1) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        raise(SIGKILL);
    }
    for (int t = 0; t < T; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    if (die) OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++) OK(MPI_Comm_free(&tc[t]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("test_threads: %d ranks, %d threads each ok\n", n, T);
    OK(MPI_Finalize());
    return 0;
}
