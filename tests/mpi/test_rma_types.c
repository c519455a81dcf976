/* One-sided calls with derived datatypes on both sides: put, get,
 * accumulate and get_accumulate between different non-contiguous layouts
 * (vector, indexed, struct, subarray, resized, negative strides), checked
 * element by element against a reference made with MPI_Pack/MPI_Unpack;
 * pairs with padding (MPI_DOUBLE_INT) under MAXLOC in a vector, and put and
 * get of the predefined pairs whose elements have gaps. On exposed
 * memory (MPI_Win_allocate) and on a private mmap (the fallback path). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mcheck.h"

#define EL 512                        /* int64 elements in each window */
static int me, n, dst, src;

struct layout { const char *name; MPI_Datatype t; int count; MPI_Aint at; };   /* at: elements from the base */

static MPI_Datatype commit(MPI_Datatype t)
{
    OK(MPI_Type_commit(&t));
    return t;
}

/* The layouts, each 24 int64 elements of data. */
static int layouts(struct layout *l)
{
    MPI_Datatype v, ix, st, sub, res, neg, tmp;
    int bl[4] = { 2, 5, 1, 4 }, dp[4] = { 0, 3, 10, 12 };       /* 12 elements */
    int bls[2] = { 1, 2 };
    MPI_Aint dps[2] = { 0, 24 };
    MPI_Datatype tys[2] = { MPI_INT64_T, MPI_INT64_T };
    int sizes[2] = { 8, 8 }, subs[2] = { 4, 6 }, starts[2] = { 2, 1 };   /* 24 elements */
    OK(MPI_Type_vector(8, 3, 5, MPI_INT64_T, &v));                           /* 24 */
    OK(MPI_Type_indexed(4, bl, dp, MPI_INT64_T, &ix));                       /* 12, x2 */
    OK(MPI_Type_create_struct(2, bls, dps, tys, &tmp));                     /* 3, extent 32 */
    OK(MPI_Type_create_resized(tmp, 0, 40, &st));                           /* 3, x8 spaced 40 bytes */
    OK(MPI_Type_free(&tmp));
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT64_T, &sub));
    OK(MPI_Type_vector(6, 2, 3, MPI_INT64_T, &tmp));                        /* 12 */
    OK(MPI_Type_create_resized(tmp, 0, 8 * 20, &res));                     /* x2, 20 apart */
    OK(MPI_Type_free(&tmp));
    OK(MPI_Type_create_hvector(12, 2, -48, MPI_INT64_T, &neg));            /* 24, downwards */
    int k = 0;
    l[k++] = (struct layout){ "contiguous", MPI_INT64_T, 24, 0 };
    l[k++] = (struct layout){ "vector", commit(v), 1, 3 };
    l[k++] = (struct layout){ "indexed x2", commit(ix), 2, 1 };
    l[k++] = (struct layout){ "struct resized x8", commit(st), 8, 0 };
    l[k++] = (struct layout){ "subarray", commit(sub), 1, 64 };
    l[k++] = (struct layout){ "resized vector x2", commit(res), 2, 7 };
    l[k++] = (struct layout){ "negative hvector", commit(neg), 1, 11 * 6 + 2 };
    return k;
}

static int64_t init_of(int r, int i) { return r * 100000 + i; }
static int64_t val_of(int r, int i) { return r * 1000 + 3 * i + 1; }

/* Where each data element of (t, count) at base lands: idx[e] = its
 * position in the stream, -1 elsewhere (EL elements from base). */
static void positions(const struct layout *l, int64_t *idx)
{
    int64_t stream[24];
    for (int i = 0; i < 24; i++) stream[i] = i;
    for (int i = 0; i < EL; i++) idx[i] = -1;
    int pos = 0;
    OK(MPI_Unpack(stream, sizeof stream, &pos, idx + l->at, l->count, l->t, MPI_COMM_SELF));
}

static void one_pair(MPI_Win win, int64_t *mem, const struct layout *o, const struct layout *t, const char *what)
{
    int64_t obuf[EL], rbuf[EL], oidx[EL], tidx[EL], ridx[EL];
    positions(o, oidx);
    positions(t, tidx);
    for (int i = 0; i < EL; i++) obuf[i] = val_of(me, i);
    /* put */
    for (int i = 0; i < EL; i++) mem[i] = init_of(me, i);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(obuf + o->at, o->count, o->t, dst, t->at, t->count, t->t, win));
    OK(MPI_Win_fence(0, win));
    int64_t sstream[24];   /* src's data in stream order */
    for (int i = 0; i < EL; i++)
        if (oidx[i] >= 0) sstream[oidx[i]] = val_of(src, i);
    for (int i = 0; i < EL; i++) {
        int64_t want = tidx[i] >= 0 ? sstream[tidx[i]] : init_of(me, i);
        CHECK(mem[i] == want, "%s: put %s -> %s: element %d is %lld, not %lld", what, o->name, t->name, i,
              (long long)mem[i], (long long)want);
    }
    /* get: the target's data in our layout */
    for (int i = 0; i < EL; i++) mem[i] = init_of(me, i), rbuf[i] = -7;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Get(rbuf + o->at, o->count, o->t, dst, t->at, t->count, t->t, win));
    OK(MPI_Win_fence(0, win));
    int64_t tstream[24];
    for (int i = 0; i < EL; i++)
        if (tidx[i] >= 0) tstream[tidx[i]] = init_of(dst, i);
    for (int i = 0; i < EL; i++) {
        int64_t want = oidx[i] >= 0 ? tstream[oidx[i]] : -7;
        CHECK(rbuf[i] == want, "%s: get %s <- %s: element %d is %lld, not %lld", what, o->name, t->name, i,
              (long long)rbuf[i], (long long)want);
    }
    /* get_accumulate (SUM): the old data into a third layout, the sum at the target */
    const struct layout *r = o;   /* the result's layout: the origin's, shifted */
    positions(r, ridx);
    for (int i = 0; i < EL; i++) mem[i] = init_of(me, i), rbuf[i] = -7;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Get_accumulate(obuf + o->at, o->count, o->t, rbuf + r->at, r->count, r->t, dst, t->at, t->count, t->t,
                          MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < EL; i++) {
        int64_t want = tidx[i] >= 0 ? init_of(me, i) + sstream[tidx[i]] : init_of(me, i);
        CHECK(mem[i] == want, "%s: get_accumulate %s -> %s: element %d is %lld, not %lld", what, o->name, t->name,
              i, (long long)mem[i], (long long)want);
        want = ridx[i] >= 0 ? tstream[ridx[i]] : -7;
        CHECK(rbuf[i] == want, "%s: get_accumulate %s's result: element %d is %lld, not %lld", what, r->name, i,
              (long long)rbuf[i], (long long)want);
    }
}

/* MAXLOC on MPI_DOUBLE_INT (12 data bytes in 16): contiguous origin, a
 * vector of pairs at the target. */
static void pairs(MPI_Win win, char *mem, const char *what)
{
    struct di { double v; int i; } o[6], *t = (struct di *)mem;
    MPI_Datatype vec;
    OK(MPI_Type_vector(3, 2, 3, MPI_DOUBLE_INT, &vec));
    OK(MPI_Type_commit(&vec));
    for (int k = 0; k < 9; k++) t[k].v = 10 + k % 3, t[k].i = 100;
    for (int k = 0; k < 6; k++) o[k].v = 10 + k % 4, o[k].i = me;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Accumulate(o, 6, MPI_DOUBLE_INT, dst, 0, 1, vec, MPI_MAXLOC, win));
    OK(MPI_Win_fence(0, win));
    for (int k = 0, j = 0; k < 9; k++) {
        double v0 = 10 + k % 3;
        if (k % 3 == 2) {   /* the gap */
            CHECK(t[k].v == v0 && t[k].i == 100, "%s: pair %d in a gap changed", what, k);
            continue;
        }
        double ov = 10 + j % 4;
        j++;
        double v = ov > v0 ? ov : v0;
        int i = ov > v0 ? src : ov == v0 ? (src < 100 ? src : 100) : 100;
        CHECK(t[k].v == v && t[k].i == i, "%s: pair %d is (%g, %d), not (%g, %d)", what, k, t[k].v, t[k].i, v, i);
    }
    OK(MPI_Type_free(&vec));
}

/* Put and get of 3 predefined pairs with gaps (MPI_SHORT_INT's inside,
 * the others' at the end): only their data bytes move, the gaps at both
 * ends stay as they were. main before 2026-12-01 moved 3 x size bytes in
 * one piece on the fast path. The reference: MPI_Pack then MPI_Unpack onto
 * zeros. */
static void gaps(MPI_Win win, char *mem, const char *what)
{
    MPI_Datatype ts[] = { MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_LONG_INT, MPI_LONG_DOUBLE_INT };
    const char *names[] = { "MPI_DOUBLE_INT", "MPI_SHORT_INT", "MPI_LONG_INT", "MPI_LONG_DOUBLE_INT" };
    enum { K = 3, MAX = K * 32 };
    for (int k = 0; k < 4; k++) {
        unsigned char o[MAX], g[MAX], put_ref[MAX], get_ref[MAX], packed[MAX], other[MAX];
        MPI_Aint lb, ext;
        OK(MPI_Type_get_extent(ts[k], &lb, &ext));
        CHECK(ext * K <= MAX, "%s: extent %ld", names[k], (long)ext);
        for (int b = 0; b < MAX; b++) o[b] = (unsigned char)(1 + b + 7 * me), other[b] = (unsigned char)(1 + b + 7 * src);
        for (int side = 0; side < 2; side++) {   /* what src's put leaves here, what a get of ours from dst gives */
            int pos = 0;
            OK(MPI_Pack(side ? o : other, K, ts[k], packed, MAX, &pos, MPI_COMM_SELF));
            unsigned char *ref = side ? get_ref : put_ref;
            memset(ref, 0, MAX);
            pos = 0;
            OK(MPI_Unpack(packed, MAX, &pos, ref, K, ts[k], MPI_COMM_SELF));
        }
        memset(mem, 0, MAX), memset(g, 0, MAX);
        OK(MPI_Win_fence(0, win));
        OK(MPI_Put(o, K, ts[k], dst, 0, K, ts[k], win));
        OK(MPI_Win_fence(0, win));
        for (int b = 0; b < MAX; b++)
            CHECK((unsigned char)mem[b] == put_ref[b], "%s: put of %d %s: byte %d is %d, not %d", what, K, names[k],
                  b, (unsigned char)mem[b], put_ref[b]);
        OK(MPI_Get(g, K, ts[k], dst, 0, K, ts[k], win));
        OK(MPI_Win_fence(0, win));
        for (int b = 0; b < MAX; b++)
            CHECK(g[b] == get_ref[b], "%s: get of %d %s: byte %d is %d, not %d", what, K, names[k], b, g[b],
                  get_ref[b]);
    }
}

static void run(MPI_Win win, int64_t *mem, const char *what)
{
    struct layout l[8];
    int k = layouts(l);
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) one_pair(win, mem, &l[a], &l[b], what);
    pairs(win, (char *)mem, what);
    gaps(win, (char *)mem, what);
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int a = 1; a < k; a++) OK(MPI_Type_free(&l[a].t));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    dst = (me + 1) % n, src = (me + n - 1) % n;
    MPI_Win win;
    int64_t *mem;
    OK(MPI_Win_allocate(EL * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem, "MPI_Win_allocate");
    OK(MPI_Win_free(&win));
    if (mcheck_nodes(NULL)) {
        mem = mmap(NULL, EL * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(mem != MAP_FAILED, "mmap");
        OK(MPI_Win_create(mem, EL * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        run(win, mem, "private mmap");
        OK(MPI_Win_free(&win));
        munmap(mem, EL * 8);
    } else {   /* across nodes a private mmap is refused (test_rma checks it): malloc'd memory */
        mem = malloc(EL * 8);
        OK(MPI_Win_create(mem, EL * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        run(win, mem, "MPI_Win_create(malloc)");
        OK(MPI_Win_free(&win));
        free(mem);
    }
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_types: ok on %d ranks\n", n);
    return 0;
}
