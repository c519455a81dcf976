/* Collectives from MPI_BOTTOM (address 0) with struct datatypes of absolute
 * addresses (MPI_Get_address): MPI_Alltoallw, MPI_Allgather, MPI_Bcast,
 * MPI_Reduce and MPI_Allreduce (MPI_Ialltoallw too), small (the data
 * travels in the engine's records) and large (peers read and write the
 * buffers in place, or stages of them: data in private mappings),
 * checked against the values every rank can compute. */
#include <stdlib.h>
#include <sys/mman.h>

#include "mcheck.h"

static int me, n;
static int mapped;      /* data in private mappings (peers cannot reach: staged) or the heap */

static int *dalloc(size_t ints)
{
    if (!mapped) return malloc(sizeof(int) * ints);
    size_t *p = mmap(NULL, sizeof(int) * ints + 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap");
    *p = sizeof(int) * ints + 16;
    return (int *)(p + 2);
}
static void dfree(int *p)
{
    if (!mapped) free(p);
    else munmap((size_t *)p - 2, *((size_t *)p - 2));
}

/* count ints at p (count even), as a type whose displacements are absolute
 * addresses: the second half first, so that the type is not contiguous (a
 * contiguous one reaches the engine as plain bytes at its address) */
static MPI_Datatype at(const int *p, int count)
{
    MPI_Aint a[2];
    MPI_Datatype t, ints[2] = { MPI_INT, MPI_INT };
    int len[2] = { count / 2, count / 2 };
    OK(MPI_Get_address(p + count / 2, &a[0]));
    OK(MPI_Get_address(p, &a[1]));
    OK(MPI_Type_create_struct(2, len, a, ints, &t));
    OK(MPI_Type_commit(&t));
    return t;
}

static int val(int from, int to, int k) { return from * 1000003 + to * 7919 + k; }

static void alltoallw(int N, int nb)
{
    int *s = dalloc((size_t)N * (size_t)n), *r = dalloc((size_t)N * (size_t)n);
    int *ones = malloc(sizeof(int) * (size_t)n), *zero = calloc((size_t)n, sizeof(int));
    MPI_Datatype *st = malloc(sizeof *st * (size_t)n), *rt = malloc(sizeof *rt * (size_t)n);
    CHECK(s && r && ones && zero && st && rt, "no memory");
    for (int i = 0; i < n; i++) {
        ones[i] = 1;
        for (int k = 0; k < N; k++) s[i * N + k] = val(me, i, k), r[i * N + k] = -1;
        st[i] = at(s + (size_t)i * N, N);
        rt[i] = at(r + (size_t)i * N, N);
    }
    if (nb) {
        MPI_Request q;
        OK(MPI_Ialltoallw(MPI_BOTTOM, ones, zero, st, MPI_BOTTOM, ones, zero, rt, MPI_COMM_WORLD, &q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Alltoallw(MPI_BOTTOM, ones, zero, st, MPI_BOTTOM, ones, zero, rt, MPI_COMM_WORLD));
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < N; k++)
            CHECK(r[i * N + k] == val(i, me, k), "alltoallw of %d ints (nb %d): block %d [%d] = %d", N, nb, i, k,
                  r[i * N + k]);
    for (int i = 0; i < n; i++) MPI_Type_free(&st[i]), MPI_Type_free(&rt[i]);
    dfree(s), dfree(r), free(ones), free(zero), free(st), free(rt);
}

static void allgather(int N)
{
    int *s = dalloc((size_t)N), *r = dalloc((size_t)N * (size_t)n);
    CHECK(s && r, "no memory");
    for (int k = 0; k < N; k++) s[k] = val(me, 0, k);
    for (int k = 0; k < N * n; k++) r[k] = -1;
    /* the receive blocks: the first at r's address, the others an extent on */
    MPI_Datatype t0 = at(r, N), rt, ts = at(s, N);
    MPI_Aint a;
    OK(MPI_Get_address(r, &a));
    OK(MPI_Type_create_resized(t0, a, (MPI_Aint)sizeof(int) * N, &rt));
    OK(MPI_Type_commit(&rt));
    OK(MPI_Allgather(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, rt, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < N; k++)
            CHECK(r[i * N + k] == val(i, 0, k), "allgather of %d ints: block %d [%d] = %d", N, i, k, r[i * N + k]);
    MPI_Type_free(&t0), MPI_Type_free(&rt), MPI_Type_free(&ts);
    dfree(s), dfree(r);
}

static void bcast_reduce(int N)
{
    int *b = dalloc((size_t)N), *s = dalloc((size_t)N), *r = dalloc((size_t)N);
    CHECK(b && s && r, "no memory");
    MPI_Datatype tb = at(b, N), ts = at(s, N), tr = at(r, N);
    for (int root = 0; root < n; root++) {
        for (int k = 0; k < N; k++) b[k] = me == root ? val(root, 1, k) : -1;
        OK(MPI_Bcast(MPI_BOTTOM, 1, tb, root, MPI_COMM_WORLD));
        for (int k = 0; k < N; k++)
            CHECK(b[k] == val(root, 1, k), "bcast of %d ints from %d: [%d] = %d", N, root, k, b[k]);
        /* the root in place (its result at MPI_BOTTOM too), the others from s */
        for (int k = 0; k < N; k++) s[k] = me + k, r[k] = me == root ? me + k : -1;
        if (me == root) OK(MPI_Reduce(MPI_IN_PLACE, MPI_BOTTOM, 1, tr, MPI_SUM, root, MPI_COMM_WORLD));
        else OK(MPI_Reduce(MPI_BOTTOM, NULL, 1, ts, MPI_SUM, root, MPI_COMM_WORLD));
        for (int k = 0; k < N && me == root; k++)
            CHECK(r[k] == n * (n - 1) / 2 + n * k, "reduce of %d ints to %d: [%d] = %d", N, root, k, r[k]);
    }
    for (int k = 0; k < N; k++) r[k] = me + k;
    OK(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, tr, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < N; k++) CHECK(r[k] == n * (n - 1) / 2 + n * k, "allreduce of %d ints: [%d] = %d", N, k, r[k]);
    MPI_Type_free(&tb), MPI_Type_free(&ts), MPI_Type_free(&tr);
    dfree(b), dfree(s), dfree(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    /* 2 ints travel in records; 16 Ki ints (64 KiB) are read in place */
    int sizes[] = { 2, 16 << 10 };
    for (int i = 0; i < 4; i++) {
        mapped = i >= 2;
        alltoallw(sizes[i % 2], 0);
        alltoallw(sizes[i % 2], 1);
        allgather(sizes[i % 2]);
        bcast_reduce(sizes[i % 2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("bottom: ok on %d ranks\n", n);
    MPI_Finalize();
    return 0;
}
