/* test_lock.c: the engine's locks (rma.h) taken by every rank on every
 * rank's memory: mutual exclusion checked with a plain (non-atomic)
 * counter under contention from all ranks, FIFO order of the ticket lock
 * (no rank starves), try-lock, and for the reader-writer lock: readers
 * together, writers alone, and phase fairness (a writer waiting keeps
 * later readers out). Usage: rma_lock [die]: with die, rank 1 dies holding
 * the lock while the others wait for it, and the job must end. */
#include <sched.h>
#include <signal.h>
#include <time.h>

#include "rma_test.h"

#define ITER 300

static struct rma_lock xlock, flock;     /* zero: free */
static struct rma_rwlock rwlock, plock;
static long counter;                      /* guarded: plain loads and stores */
static volatile struct { long a, b; } pair;
static _Atomic int inside, writing;
static int order[64], norder;             /* rank 0's: who got the lock, in order */

static void log_order(int who)             /* under the lock */
{
    int *o = sm_remote(0, order), *c = sm_remote(0, &norder);
    o[(*c)++] = who;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
/* Wait until cond, or fail after a while (a lock that wrongly excludes must
 * not hang the test). */
#define AWAIT(cond, ...)                                                      \
    do {                                                                      \
        double t0_ = now();                                                   \
        while (!(cond)) {                                                     \
            CHECK(now() - t0_ < 30, __VA_ARGS__);                             \
            sched_yield();                                                    \
        }                                                                     \
    } while (0)
#define R0(x) ((__typeof__(&(x)))sm_remote(0, (const void *)&(x)))   /* rank 0's instance */

/* A read-modify-write that loses updates unless excluded: the yield now and
 * then lets another rank in between the load and the store. */
static void unsafe_inc(long *c, int i)
{
    long v = *(volatile long *)c;
    if (i % 16 == 0) sched_yield();
    *(volatile long *)c = v + 1;
}

static void exclusive_on_every_rank(void)
{
    for (int k = 0; k < n; k++) {
        int owner = (me + k) % n;   /* every rank's lock, contended from every rank */
        struct rma_lock *l = sm_remote(owner, &xlock);
        for (int i = 0; i < ITER / n + 1; i++) {
            if (i % 3 == 0) {
                while (!rma_lock_try(l)) sched_yield();
            } else {
                rma_lock_acquire(l);
            }
            unsafe_inc(sm_remote(owner, &counter), i);
            rma_lock_release(l);
        }
    }
    sm_barrier();
    CHECK(counter == (long)n * (ITER / n + 1), "ticket lock: counter %ld, not %ld", counter, (long)n * (ITER / n + 1));
    sm_barrier();
}

/* Rank 0 holds the lock while ranks 1..n-1 queue one after another (each
 * sees the previous one's ticket taken); they must get it in that order. */
static void fifo(void)
{
    struct rma_lock *l = R0(flock);
    if (me == 0) {
        rma_lock_acquire(l);
        CHECK(!rma_lock_try(l), "try-lock took a held lock");
    }
    sm_barrier();
    if (me > 0) {
        AWAIT(atomic_load(&l->next) == (uint32_t)me, "rank %d: ticket %u, waiting for %d", me, l->next, me);
        CHECK(!rma_lock_try(l), "try-lock took a held lock");
        rma_lock_acquire(l);
        log_order(me);
        rma_lock_release(l);
    } else {
        AWAIT(atomic_load(&l->next) == (uint32_t)n, "all %d ranks queued: %u", n, l->next);
        rma_lock_release(l);
    }
    sm_barrier();
    if (me == 0) {
        CHECK(norder == n - 1, "%d ranks got the lock", norder);
        for (int i = 0; i < n - 1; i++) CHECK(order[i] == i + 1, "position %d: rank %d, not %d (not FIFO)", i, order[i], i + 1);
        CHECK(rma_lock_try(l), "try-lock on a free lock");
        rma_lock_release(l);
    }
    sm_barrier();
}

static void rw_exclusive(void)
{
    counter = 0;
    sm_barrier();
    struct rma_rwlock *l = R0(rwlock);
    for (int i = 0; i < ITER; i++) {
        rma_rwlock_acquire(l, RMA_LOCK_EXCLUSIVE);
        unsafe_inc(R0(counter), i);
        rma_rwlock_release(l, RMA_LOCK_EXCLUSIVE);
    }
    sm_barrier();
    CHECK(me != 0 || counter == (long)ITER * n, "rwlock exclusive: counter %ld, not %ld", counter, (long)ITER * n);
    sm_barrier();
}

/* All ranks hold the lock shared at once: each waits inside for the others. */
static void rw_shared_together(void)
{
    struct rma_rwlock *l = R0(rwlock);
    rma_rwlock_acquire(l, RMA_LOCK_SHARED);
    atomic_fetch_add(R0(inside), 1);
    AWAIT(atomic_load(R0(inside)) == n, "rank %d: %d of %d readers inside a shared lock", me, atomic_load(R0(inside)), n);
    sm_barrier();
    rma_rwlock_release(l, RMA_LOCK_SHARED);
    sm_barrier();
    *R0(inside) = 0;
    sm_barrier();
}

/* Readers and writers mixed: a reader never sees a writer inside nor a
 * half-written pair; a writer never sees a reader or another writer. */
static void rw_mixed(void)
{
    struct rma_rwlock *l = R0(rwlock);
    for (int i = 0; i < ITER; i++) {
        if ((i + me) % 4 == 0) {
            rma_rwlock_acquire(l, RMA_LOCK_EXCLUSIVE);
            CHECK(atomic_fetch_add(R0(writing), 1) == 0 && atomic_load(R0(inside)) == 0, "a writer is not alone");
            R0(pair)->a = i * 1000 + me;
            if (i % 8 == 0) sched_yield();
            R0(pair)->b = i * 1000 + me;
            atomic_fetch_sub(R0(writing), 1);
            rma_rwlock_release(l, RMA_LOCK_EXCLUSIVE);
        } else {
            rma_rwlock_acquire(l, RMA_LOCK_SHARED);
            atomic_fetch_add(R0(inside), 1);
            long a = R0(pair)->a;
            if (i % 8 == 1) sched_yield();
            CHECK(atomic_load(R0(writing)) == 0 && R0(pair)->b == a, "a reader saw a writer at work");
            atomic_fetch_sub(R0(inside), 1);
            rma_rwlock_release(l, RMA_LOCK_SHARED);
        }
    }
    sm_barrier();
}

/* Phase fairness (3 ranks or more): rank 0 reads; rank 1 asks to write and
 * waits for it; rank 2 asks to read after that and must wait for the
 * writer, not slip in beside rank 0. */
static void rw_phases(void)
{
    if (n < 3) return;
    struct rma_rwlock *l = R0(plock);
    norder = 0;
    sm_barrier();
    if (me == 0) rma_rwlock_acquire(l, RMA_LOCK_SHARED);
    sm_barrier();
    if (me == 1) {
        rma_rwlock_acquire(l, RMA_LOCK_EXCLUSIVE);
        log_order(1);
        rma_rwlock_release(l, RMA_LOCK_EXCLUSIVE);
    } else if (me == 2) {
        AWAIT(atomic_load(&l->rin) % RMA_RW_READER != 0, "the writer's mark");
        rma_rwlock_acquire(l, RMA_LOCK_SHARED);
        log_order(2);
        rma_rwlock_release(l, RMA_LOCK_SHARED);
    } else if (me == 0) {
        AWAIT(atomic_load(&l->rin) / RMA_RW_READER == 2, "the second reader's arrival");
        log_order(0);
        rma_rwlock_release(l, RMA_LOCK_SHARED);
    }
    sm_barrier();
    if (me == 0)
        CHECK(norder == 3 && order[0] == 0 && order[1] == 1 && order[2] == 2,
              "phases: %d entries, order %d %d %d (want 0 1 2)", norder, order[0], order[1], order[2]);
    sm_barrier();
}

int main(int argc, char **argv)
{
    test_start();
    if (argc > 1 && !strcmp(argv[1], "die")) {
        struct rma_lock *l = R0(xlock);
        if (me == 1) rma_lock_acquire(l);
        sm_barrier();
        if (me == 1) raise(SIGABRT);
        rma_lock_acquire(l);   /* never: the job ends first */
        return 1;
    }
    exclusive_on_every_rank();
    fifo();
    rw_exclusive();
    rw_shared_together();
    rw_mixed();
    rw_phases();
    return 0;
}
