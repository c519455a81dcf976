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

/* A simple deterministic generator, so every rank can predict every message. */
static inline unsigned rnd(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*s >> 33);
}
#endif
