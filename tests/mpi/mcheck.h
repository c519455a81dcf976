/* mcheck.h: a check macro for the MPI tests: print where and why, then end
 * the job with MPI_Abort (so smrun reports the failing rank). */
#ifndef MCHECK_H
#define MCHECK_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
    int r_; MPI_Comm_rank(MPI_COMM_WORLD, &r_); \
    fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)

/* Which ranks of MPI_COMM_WORLD share this rank's node (MPI_COMM_TYPE_SHARED):
 * local[r] (local may be NULL); the result: whether every rank shares one
 * node (always under smrun; not across the fake nodes of a PMIx launch,
 * where shared windows and windows over private memory are refused).
 * Collective over MPI_COMM_WORLD. */
static inline int mcheck_nodes(int *local)
{
    MPI_Comm node;
    MPI_Group wg, ng;
    int n, k, all;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &k);
    if (local) {
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(node, &ng);
        for (int r = 0; r < n; r++) {
            int t;
            MPI_Group_translate_ranks(wg, 1, &r, ng, &t);
            local[r] = t != MPI_UNDEFINED;
        }
        MPI_Group_free(&wg);
        MPI_Group_free(&ng);
    }
    MPI_Comm_free(&node);
    all = k == n;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* A simple deterministic generator, so every rank can predict every message. */
static inline unsigned rnd(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*s >> 33);
}
#endif
