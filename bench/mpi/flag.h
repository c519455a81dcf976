/* flag.h: the raw flag ping-pong the MPI benchmarks measure beside their
 * figures (pingpong.c, coll.c): ranks 0 and 1 bounce a counter through
 * memory they share (MPI_Win_allocate_shared; no MPI call in the loop). It
 * is the latency's limit, and on a VM whose host places the two vCPUs near
 * or far apart (and moves them between runs) it says which placement the
 * figures beside it were taken in. Standard MPI only; include after mpi.h
 * and bench.h. Skipped where ranks 0 and 1 share no memory. */
#ifndef BENCH_FLAG_H
#define BENCH_FLAG_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The flags, each rank's on a line of its own */
static _Atomic unsigned long *flag_mine, *flag_theirs;
static MPI_Comm flag_node;
static MPI_Win flag_win;

/* Spin, then give the core away: a loaded machine (ranks outnumbering
 * cores) would otherwise make every turn wait for a time slice. */
static inline void flag_relax(int *spins)
{
    if (++*spins > 4096) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else __builtin_ia32_pause();
#endif
}

/* iters round trips; rank 0's time (ranks beyond 0 and 1 wait in the broadcast) */
static double flag_run(long iters, void *ctx)
{
    int me;
    (void)ctx;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; me < 2 && i < iters; i++) {
        unsigned long v = (unsigned long)i + 1;
        int spins = 0;
        if (me == 0) {
            atomic_store_explicit(flag_theirs, v, memory_order_release);
            while (atomic_load_explicit(flag_mine, memory_order_acquire) != v) flag_relax(&spins);
        } else {
            while (atomic_load_explicit(flag_mine, memory_order_acquire) != v) flag_relax(&spins);
            atomic_store_explicit(flag_theirs, v, memory_order_release);
        }
    }
    double t = MPI_Wtime() - t0;
    if (me < 2) atomic_store(flag_mine, 0);     /* for the next batch, counting from 1 again */
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

/* The flags' half round trip (s). */
static double flag_time(const struct bench_opts *o)
{
    return bench_time(flag_run, NULL, o) / 2;
}

/* Shared memory for the flags, or false where ranks 0 and 1 share none
 * (collective over MPI_COMM_WORLD). */
static bool flag_setup(void)
{
    int me, nr = -1, ok = 1, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &flag_node);
    MPI_Comm_set_errhandler(flag_node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(flag_node, &nr);
    if (me < 2) ok = nr == me;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    void *base = NULL;
    ok = all && MPI_Win_allocate_shared(me < 2 ? 4096 : 0, 1, MPI_INFO_NULL, flag_node, &base, &flag_win) == MPI_SUCCESS;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (ok) MPI_Win_free(&flag_win);
        MPI_Comm_free(&flag_node);
        return false;
    }
    if (me < 2) {
        MPI_Aint sz;
        int du;
        void *mine, *theirs;
        MPI_Win_shared_query(flag_win, me, &sz, &du, &mine);
        MPI_Win_shared_query(flag_win, 1 - me, &sz, &du, &theirs);
        flag_mine = mine, flag_theirs = theirs;
        atomic_store(flag_mine, 0);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, flag_win);
    MPI_Barrier(MPI_COMM_WORLD);
    return true;
}

static void flag_free(void)
{
    MPI_Win_unlock_all(flag_win);
    MPI_Win_free(&flag_win);
    MPI_Comm_free(&flag_node);
}

#endif
