/* mcheck.h: a check macro for the MPI tests: print where and why, then end
 * the job with MPI_Abort (so smrun reports the failing rank). */
#ifndef MCHECK_H
#define MCHECK_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
    int r_; MPI_Comm_rank(MPI_COMM_WORLD, &r_); \
    fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)

/* Which ranks of MPI_COMM_WORLD share this rank's node: local[r] (local
 * may be NULL), those whose part of a window MPI_Win_shared_query gives;
 * the result: whether every rank shares one node (always under smrun; not
 * across the fake nodes of a PMIx launch, where shared windows and windows
 * over private memory are refused). Collective over MPI_COMM_WORLD. */
static inline int mcheck_nodes(int *local)
{
    MPI_Win w;
    void *base;
    int n, all = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    for (int r = 0; r < n; r++) {
        MPI_Aint size;
        int du;
        void *p;
        MPI_Win_shared_query(w, r, &size, &du, &p);
        if (local) local[r] = p != NULL;
        all &= p != NULL;
    }
    MPI_Win_free(&w);
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* MPI_Init, or with "mt" as the first argument MPI_Init_thread asking for
 * (and checking it got) MPI_THREAD_MULTIPLE: whether it did. */
static inline int mcheck_init(int *argc, char ***argv)
{
    int provided, mt = *argc > 1 && !strcmp((*argv)[1], "mt");
    if (!mt) {
        MPI_Init(argc, argv);
        return 0;
    }
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    return 1;
}

/* Cancel *r, complete it, and check MPI_Test_cancelled says want. */
static inline void mcheck_cancelled(MPI_Request *r, int want, const char *what)
{
    MPI_Status st;
    int flag = -1;
    OK(MPI_Cancel(r));
    OK(MPI_Wait(r, &st));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == want, "%s: MPI_Test_cancelled says %d, not %d", what, flag, want);
}

/* A simple deterministic generator, so every rank can predict every message. */
static inline unsigned rnd(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*s >> 33);
}
#endif
