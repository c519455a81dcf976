/* Ranks asleep in collectives, in waits for puts and in point-to-point
 * waits, and the events that must end each sleep (src/core/wait.c: a sleep
 * ends only for a waker of a kind it waits for). Every round each PE puts
 * and signals into its peers and adds to their counts while some PEs arrive
 * late, some wait for those atomics or signals (shmem_wait_until,
 * shmem_signal_wait_until), the rest sleep in a collective (barrier_all,
 * broadcast, sync_all, and with `mpi` MPI_Barrier and MPI_Allreduce); with
 * `mpi`, messages too, a large send left to complete while its sender
 * sleeps in a SHMEM barrier. Nothing may hang with 8 ranks on 2 cores.
 *
 * Usage: test_sleepers [mpi] */
#include <mpi.h>
#include <sched.h>
#include <stdbool.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n;

#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", me, __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)

#define BIG (256 << 10)       /* above the eager limit: the receiver copies */

static uint64_t slot[64];     /* slot[r]: PE r's put of the round */
static uint64_t hits;         /* atomics from the peers */
static uint64_t sig;          /* signals from the left neighbour */
static uint64_t data;         /* its data */
static uint64_t bc;           /* broadcast */

static void late(int k)
{
    if ((k + me) % 4 == 0)
        for (int y = 0; y < 20; y++) sched_yield();
}

static void collective(int k, bool mpi)
{
    switch (k % (mpi ? 5 : 3)) {
    case 0: shmem_barrier_all(); break;
    case 1: {
        static uint64_t src;
        src = (uint64_t)k;
        shmem_broadcastmem(SHMEM_TEAM_WORLD, &bc, &src, sizeof src, k % n);
        CHECK(bc == (uint64_t)k, "round %d: broadcast %llu", k, (unsigned long long)bc);
        break;
    }
    case 2: shmem_sync_all(); break;
    case 3: OK(MPI_Barrier(MPI_COMM_WORLD)); break;
    default: {
        int one = 1, sum = 0;
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == n, "round %d: allreduce %d", k, sum);
    }
    }
}

int main(int argc, char **argv)
{
    bool mpi = argc > 1 && !strcmp(argv[1], "mpi");
    if (mpi) OK(MPI_Init(&argc, &argv));
    shmem_init();
    me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n <= 64, "at most 64 PEs");
    int right = (me + 1) % n, left = (me + n - 1) % n, rounds = n > 4 ? 120 : 300;
    char *out = mpi ? malloc(BIG) : NULL, *in = mpi ? malloc(BIG) : NULL;
    CHECK(!mpi || (out && in), "malloc");
    shmem_barrier_all();
    for (int k = 1; k <= rounds; k++) {
        late(k);
        MPI_Request rq[2];
        if (mpi && k % 7 == 0) {          /* a large message, completed after the collective */
            memset(out, k, BIG);
            OK(MPI_Irecv(in, BIG, MPI_CHAR, left, k, MPI_COMM_WORLD, &rq[0]));
            OK(MPI_Isend(out, BIG, MPI_CHAR, right, k, MPI_COMM_WORLD, &rq[1]));
        }
        for (int d = 1; d < n; d++) {
            int pe = (me + d) % n;
            shmem_uint64_p(&slot[me], (uint64_t)k, pe);
            shmem_uint64_atomic_inc(&hits, pe);
        }
        uint64_t v = (uint64_t)k * 1000 + (uint64_t)me;
        shmem_putmem_signal(&data, &v, sizeof v, &sig, 1, SHMEM_SIGNAL_ADD, right);
        if ((k + me) % 3 == 0) shmem_uint64_wait_until(&hits, SHMEM_CMP_GE, (uint64_t)(n - 1) * (uint64_t)k);
        if ((k + me) % 3 == 1) {
            shmem_signal_wait_until(&sig, SHMEM_CMP_GE, (uint64_t)k);
            CHECK(data == (uint64_t)k * 1000 + (uint64_t)left, "round %d: signalled data %llu", k,
                  (unsigned long long)data);
        }
        if (mpi && k % 2) {               /* a message to a neighbour that may be asleep in a collective */
            int got = -1;
            OK(MPI_Sendrecv(&k, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == k, "round %d: message %d", k, got);
        }
        collective(k, mpi);
        if (mpi && k % 7 == 0) {
            OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            CHECK(in[0] == (char)k && in[BIG - 1] == (char)k, "round %d: large message", k);
        }
        shmem_barrier_all();              /* every PE's puts of the round are done */
        for (int r = 0; r < n; r++)
            CHECK(r == me || slot[r] == (uint64_t)k, "round %d: PE %d's put is %llu", k, r,
                  (unsigned long long)slot[r]);
        CHECK(hits == (uint64_t)(n - 1) * (uint64_t)k && sig == (uint64_t)k, "round %d: %llu atomics, signal %llu",
              k, (unsigned long long)hits, (unsigned long long)sig);
        shmem_barrier_all();
    }
    free(out), free(in);
    shmem_finalize();
    if (mpi) OK(MPI_Finalize());
    if (me == 0) printf("sleepers: %d rounds on %d PEs%s\n", rounds, n, mpi ? " with MPI" : "");
    return 0;
}
