/* MPI_Win_lock_all against MPI_Win_lock (MPI 3.1 §11.5.3): lock_all is a
 * shared lock at every target, which takes no lock line while no rank
 * asks for an exclusive one (src/rma/win.c, "lock_all"). On a window from
 * MPI_Win_allocate and on one over malloc'd memory:
 *  - held: rank 0 holds lock_all for 50 ms; every other rank's exclusive
 *    lock, at every target in turn, is granted only after rank 0 has left
 *    (a flag it puts at each target just before MPI_Win_unlock_all); and
 *    the other way round, rank n-1 holds an exclusive lock on rank 0 for
 *    50 ms and every lock_all waits for it;
 *  - shared: every rank in lock_all at once (or half of them by
 *    MPI_Win_lock shared at each target), each waiting inside its epoch
 *    for all the others to arrive: a lock_all that excluded would hang,
 *    reported after 20 s;
 *  - mixed: rounds of lock_all readers and exclusive writers at random
 *    targets, counting themselves in and out at the targets with
 *    fetch-and-op: a writer must find no reader and no other writer at its
 *    target, a reader no writer at any target, and the two words a writer
 *    puts far apart must agree. */
#include <stdint.h>
#include <time.h>

#include "mcheck.h"

enum { READERS, WRITERS, A, B, FLAG, COUNT, WORDS };
static int me, n;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void pause_us(double us)
{
    for (double t0 = now(); now() - t0 < us * 1e-6;) {}
}

static int64_t fetch(MPI_Win win, int t, int word, int64_t add, MPI_Op op)
{
    int64_t old = 0;
    OK(MPI_Fetch_and_op(&add, &old, MPI_INT64_T, t, word, op, win));
    OK(MPI_Win_flush(t, win));
    return old;
}

static void put(MPI_Win win, int t, int word, int64_t v)
{
    OK(MPI_Put(&v, 1, MPI_INT64_T, t, word, 1, MPI_INT64_T, win));
    OK(MPI_Win_flush(t, win));
}

static void reset(MPI_Win win, int64_t *mem)
{
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < WORDS; i++) mem[i] = 0;
    OK(MPI_Win_fence(0, win));
}

static void held(MPI_Win win, int64_t *mem, const char *what)
{
    if (n < 2) return;
    /* exclusive locks wait for a lock_all */
    reset(win, mem);
    if (me == 0) {
        OK(MPI_Win_lock_all(0, win));
        OK(MPI_Barrier(MPI_COMM_WORLD));   /* (a collective inside the epoch: no writer holds a lock yet) */
        pause_us(50000);
        for (int t = 0; t < n; t++) put(win, t, FLAG, 1);
        OK(MPI_Win_unlock_all(win));
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < n; k++) {
            int t = (me + k) % n;
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            int64_t f = fetch(win, t, FLAG, 0, MPI_NO_OP);
            CHECK(f == 1, "%s: an exclusive lock on rank %d granted while rank 0 held lock_all", what, t);
            OK(MPI_Win_unlock(t, win));
        }
    }
    /* lock_alls wait for an exclusive lock */
    reset(win, mem);
    if (me == n - 1) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        pause_us(50000);
        put(win, 0, FLAG, 1);
        OK(MPI_Win_unlock(0, win));
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Win_lock_all(0, win));
        int64_t f = fetch(win, 0, FLAG, 0, MPI_NO_OP);
        CHECK(f == 1, "%s: lock_all granted while rank %d held an exclusive lock on rank 0", what, n - 1);
        OK(MPI_Win_unlock_all(win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void shared(MPI_Win win, int64_t *mem, const char *what)
{
    reset(win, mem);
    for (int round = 1; round <= 3; round++) {
        /* round 2: the odd ranks take MPI_Win_lock shared at every target instead */
        int by_lock = round == 2 && (me & 1);
        if (by_lock)
            for (int t = 0; t < n; t++) OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        else
            OK(MPI_Win_lock_all(0, win));
        (void)fetch(win, 0, COUNT, 1, MPI_SUM);
        double t0 = now();
        int64_t c;
        while ((c = fetch(win, 0, COUNT, 0, MPI_NO_OP)) < (int64_t)n * round) {
            CHECK(now() - t0 < 20, "%s: round %d: %lld of %d ranks in their shared epochs after 20 s", what, round,
                  (long long)(c - (int64_t)n * (round - 1)), n);
            pause_us(20);
        }
        if (by_lock)
            for (int t = 0; t < n; t++) OK(MPI_Win_unlock(t, win));
        else
            OK(MPI_Win_unlock_all(win));
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

static void mixed(MPI_Win win, int64_t *mem, const char *what, int rounds)
{
    reset(win, mem);
    unsigned seed = 12345u + 7919u * (unsigned)me;
    for (int i = 0; i < rounds; i++) {
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 3 == 0) {   /* a writer at t */
            int t = (int)((seed >> 8) % (unsigned)n);
            int64_t v = (int64_t)me << 32 | i;
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            int64_t w = fetch(win, t, WRITERS, 1, MPI_SUM), r = fetch(win, t, READERS, 0, MPI_NO_OP);
            CHECK(w == 0 && r == 0, "%s: round %d: exclusive at rank %d with %lld writers, %lld readers", what, i, t,
                  (long long)w, (long long)r);
            put(win, t, A, v);
            pause_us(3);
            put(win, t, B, v);
            r = fetch(win, t, READERS, 0, MPI_NO_OP);
            CHECK(r == 0, "%s: round %d: a reader came into rank %d's exclusive epoch", what, i, t);
            (void)fetch(win, t, WRITERS, -1, MPI_SUM);
            OK(MPI_Win_unlock(t, win));
        } else {   /* a reader of every target */
            OK(MPI_Win_lock_all(0, win));
            for (int t = 0; t < n; t++) (void)fetch(win, t, READERS, 1, MPI_SUM);
            for (int pass = 0; pass < 2; pass++) {
                for (int t = 0; t < n; t++) {
                    int64_t w = fetch(win, t, WRITERS, 0, MPI_NO_OP), ab[2];
                    OK(MPI_Get(ab, 2, MPI_INT64_T, t, A, 2, MPI_INT64_T, win));
                    OK(MPI_Win_flush(t, win));
                    CHECK(w == 0 && ab[0] == ab[1], "%s: round %d: in lock_all, rank %d has %lld writers, words "
                          "%#llx %#llx", what, i, t, (long long)w, (unsigned long long)ab[0],
                          (unsigned long long)ab[1]);
                }
                if (!pass) pause_us(3);
            }
            for (int t = 0; t < n; t++) (void)fetch(win, t, READERS, -1, MPI_SUM);
            OK(MPI_Win_unlock_all(win));
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[READERS] == 0 && mem[WRITERS] == 0, "%s: %lld readers, %lld writers left", what,
          (long long)mem[READERS], (long long)mem[WRITERS]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int rounds = n > 4 ? 150 : 400;
    for (int kind = 0; kind < 2; kind++) {
        const char *what = kind ? "MPI_Win_create" : "MPI_Win_allocate";
        int64_t *mem;
        MPI_Win win;
        if (kind) {
            mem = calloc(WORDS, sizeof *mem);
            OK(MPI_Win_create(mem, WORDS * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        } else {
            OK(MPI_Win_allocate(WORDS * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        }
        held(win, mem, what);
        shared(win, mem, what);
        mixed(win, mem, what, rounds);
        OK(MPI_Win_free(&win));
        if (kind) free(mem);
    }
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_lockall: ok on %d ranks\n", n);
    return 0;
}
