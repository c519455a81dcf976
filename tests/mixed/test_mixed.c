/* MPI and OpenSHMEM in one program (both standards allow it): either may be
 * initialised first and finalised first, and both carry data in between and
 * after the other is finalised. Each is a lifecycle client of its own, so
 * finalising one must not excuse the other: with `only` given, the program
 * exits after finalising only that one, and smrun must report the missing
 * finalize and fail.
 *
 * Usage: test_mixed mpi|shmem (initialised first) mpi|shmem (finalised
 * first) [only] */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (256 << 10)   /* above the eager limit: the single-copy path */

static int me, n;

#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", me, __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)

/* A ring through MPI: a small message, and a large one from and into the
 * symmetric heap (memory SHMEM manages, sent by MPI). */
static void mpi_ring(char *sym_big, int round)
{
    int right = (me + 1) % n, left = (me + n - 1) % n, got = -1, want = left * 100 + round;
    int mine = me * 100 + round;
    OK(MPI_Send(&mine, 1, MPI_INT, right, round, MPI_COMM_WORLD));   /* small: completes at once */
    OK(MPI_Recv(&got, 1, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == want, "MPI ring round %d: got %d from rank %d, expected %d", round, got, left, want);
    if (!sym_big) return;
    char *out = malloc(BIG);
    CHECK(out != NULL, "malloc");
    memset(out, 'a' + me % 26, BIG);
    OK(MPI_Sendrecv(out, BIG, MPI_CHAR, right, 100 + round, sym_big, BIG, MPI_CHAR, left, 100 + round,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i += 4093)
        CHECK(sym_big[i] == 'a' + left % 26, "MPI large message byte %d: %d", i, sym_big[i]);
    free(out);
}

/* A ring through SHMEM: put into the right neighbour's symmetric slot,
 * barrier, read what the left one put. */
static void shmem_ring(long *box, int round)
{
    long v = me * 1000L + round;
    shmem_putmem(&box[round], &v, sizeof v, (me + 1) % n);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    CHECK(box[round] == left * 1000L + round, "SHMEM ring round %d: %ld", round, box[round]);
}

static void init(const char *which)
{
    if (!strcmp(which, "mpi")) {
        OK(MPI_Init(NULL, NULL));
    } else {
        shmem_init();
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: test_mixed mpi|shmem mpi|shmem [only]\n"); return 2; }
    const char *first = argv[1], *fin_first = argv[2];
    int only = argc > 3 && !strcmp(argv[3], "only");
    init(first);
    init(!strcmp(first, "mpi") ? "shmem" : "mpi");

    int size;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    n = shmem_n_pes();
    CHECK(size == n && me == shmem_my_pe(), "MPI rank %d of %d, SHMEM PE %d of %d", me, size, shmem_my_pe(), n);

    long *box = shmem_calloc(8, sizeof(long));
    char *big = shmem_malloc(BIG);
    CHECK(box && big, "shmem_malloc");
    mpi_ring(big, 0);
    shmem_ring(box, 1);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    mpi_ring(big, 2);
    shmem_ring(box, 3);

    /* The first finalised, the other carries on. */
    if (!strcmp(fin_first, "mpi")) {
        OK(MPI_Finalize());
        int flag = 0;
        OK(MPI_Finalized(&flag));
        CHECK(flag, "MPI_Finalized after MPI_Finalize");
        shmem_ring(box, 4);
        if (only) return 0;               /* smrun: "exited without calling shmem_finalize" */
        shmem_free(big);
        shmem_free(box);
        shmem_finalize();
    } else {
        shmem_free(big);                  /* collective: before shmem_finalize */
        big = NULL;
        shmem_ring(box, 4);
        shmem_free(box);
        shmem_finalize();
        mpi_ring(NULL, 5);
        if (only) return 0;               /* smrun: "exited without calling MPI_Finalize" */
        OK(MPI_Finalize());
    }
    if (me == 0) printf("mixed: %d ranks, %s initialised first, %s finalised first: ok\n", n, first, fin_first);
    return 0;
}
