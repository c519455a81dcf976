/* The blocking collectives on communicators spanning (fake) nodes against a
 * serial reference: MPI_COMM_WORLD, a split with reversed keys (nodes in
 * reverse order), one whose nodes' ranks interleave (not consecutive: user
 * operations must not be grouped by node), and one with half the ranks; in
 * place, datatypes with holes, and an associative operation that does not
 * commute (affine maps composed, so any regrouping that changes the order
 * shows). With "loop KIND N": N calls of one collective on MPI_COMM_WORLD
 * (barrier, allreduce, allreduce_small (3 doubles, checked), allgather,
 * scan or all; nonblocking: inb, three at
 * once; ibcast_64k, ibcast_8, iallreduce_64k, iallreduce_8; bcast_8 to
 * compare; bcast_small: 8 bytes from the ranks in turn, checked; bcast_late: from
 * rank 0, 20 ms late each call; bcast_1m, bcast_1m_late: 1 MiB from rank 0,
 * checked, on time or 20 ms late; bcast_chain: past 1 MiB from every rank
 * in turn, odd lengths and a vector type, checked), for SMARTMAP_STATS'
 * counts. "nb": the nonblocking ones (check_nb); "nbmismatch": an Ibcast
 * whose second node expects less; "chainmismatch": 1 MiB whose rank 2
 * expects less (nodes of 1 rank); "treemismatch": 8 floats whose rank 1
 * expects less (nodes of 1 rank); "late": a broadcast whose root comes a
 * second late, the others' CPU time for it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../mpi/mcheck.h"

#define P 10007

/* Pairs (a, b): x -> a x + b mod P; l op r = "l, then r". */
static void compose(const int *l, int *r)
{
    int a = r[0] * l[0] % P, b = (r[0] * l[1] + r[1]) % P;
    r[0] = a, r[1] = b;
}
static void affine(void *in, void *inout, int *len, MPI_Datatype *t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*t, &lb, &ext);
    int stride = (int)(ext / (MPI_Aint)sizeof(int));
    for (int i = 0; i < *len; i++) compose((int *)in + i * stride, (int *)inout + i * stride);
}
/* Rank i's element e. */
static void fval(int i, int e, int *v)
{
    v[0] = 2 + (i * 3 + e) % 11, v[1] = (i * 17 + e * 5 + 1) % P;
}
/* The fold of ranks lo..hi (inclusive) for element e. */
static void fold(int lo, int hi, int e, int *v)
{
    v[0] = 1, v[1] = 0;
    for (int i = lo; i <= hi; i++) {
        int x[2], y[2] = { v[0], v[1] };
        fval(i, e, x);
        compose(y, x);
        v[0] = x[0], v[1] = x[1];
    }
}

/* A user sum that says it commutes: it may go by nodes on any layout. */
static void usum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static MPI_Op aff, csum;
static MPI_Datatype pair, holey, vec3;    /* 2 ints; 2 ints in 3 (a hole); 3 ints every other one */
#define HOLE (-7)

/* count elements of affine pairs of rank r in buf laid out with stride (2: pair, 3: holey). */
static void put_aff(int *buf, int r, int count, int stride)
{
    for (int e = 0; e < count; e++) {
        fval(r, e, buf + e * stride);
        if (stride == 3) buf[e * stride + 2] = HOLE;
    }
}
static void check_aff(const int *buf, int lo, int hi, int count, int stride, const char *what)
{
    for (int e = 0; e < count; e++) {
        int v[2];
        fold(lo, hi, e, v);
        CHECK(buf[e * stride] == v[0] && buf[e * stride + 1] == v[1], "%s: element %d of ranks %d..%d: (%d, %d), expected (%d, %d)",
              what, e, lo, hi, buf[e * stride], buf[e * stride + 1], v[0], v[1]);
        CHECK(stride != 3 || buf[e * stride + 2] == HOLE, "%s: a hole written (%d)", what, buf[e * stride + 2]);
    }
}

static void rooted(MPI_Comm c, int r, int s)
{
    for (int root = 0; root < s; root++) {
        /* broadcast: contiguous, and a vector whose holes stay */
        int b[6];
        for (int k = 0; k < 6; k++) b[k] = r == root ? root * 100 + k : -1;
        OK(MPI_Bcast(b, 5, MPI_INT, root, c));
        for (int k = 0; k < 5; k++) CHECK(b[k] == root * 100 + k, "bcast from %d: [%d] %d", root, k, b[k]);
        for (int k = 0; k < 6; k++) b[k] = r == root ? root * 10 + k : -1;
        OK(MPI_Bcast(b, 1, vec3, root, c));
        for (int k = 0; k < 6; k++)
            CHECK(b[k] == (k % 2 == 0 || r == root ? root * 10 + k : -1), "bcast vector from %d: [%d] %d", root, k, b[k]);
        /* reduce: a sum (in place at odd roots), the affine maps (pairs, and with holes) */
        int v[4], w[4];
        for (int k = 0; k < 4; k++) v[k] = (r + 1) * (k + 1), w[k] = -1;
        if (r == root && root % 2) OK(MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, root, c));
        else OK(MPI_Reduce(v, w, 4, MPI_INT, MPI_SUM, root, c));
        if (r == root) {
            int *got = root % 2 ? v : w;
            for (int k = 0; k < 4; k++) CHECK(got[k] == s * (s + 1) / 2 * (k + 1), "reduce to %d: [%d] %d", root, k, got[k]);
        }
        int a[9], q[9];
        put_aff(a, r, 3, 2);
        OK(MPI_Reduce(a, q, 3, pair, aff, root, c));
        if (r == root) check_aff(q, 0, s - 1, 3, 2, "reduce (pairs)");
        put_aff(a, r, 3, 3);
        for (int k = 0; k < 9; k++) q[k] = HOLE;
        if (r == root && root % 2 == 0) {
            OK(MPI_Reduce(MPI_IN_PLACE, a, 3, holey, aff, root, c));
            check_aff(a, 0, s - 1, 3, 3, "reduce in place (holes)");
        } else {
            OK(MPI_Reduce(a, q, 3, holey, aff, root, c));
            if (r == root) check_aff(q, 0, s - 1, 3, 3, "reduce (holes)");
        }
        /* gather and scatter (direct across nodes) */
        int mine[2] = { r, 1000 + r }, *all = malloc(sizeof(int) * 2 * (size_t)s), got2[2];
        OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, c));
        if (r == root)
            for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 1000 + i, "gather to %d: %d", root, i);
        OK(MPI_Scatter(all, 2, MPI_INT, got2, 2, MPI_INT, root, c));
        CHECK(got2[0] == r && got2[1] == 1000 + r, "scatter from %d", root);
        /* in place at the root, both ways */
        if (r == root) {
            OK(MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, c));
            for (int i = 0; i < 2 * s; i++) all[i] = i / 2 == r ? all[i] : -1;
            OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, c));
            for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 1000 + i, "gather in place to %d: %d", root, i);
        } else {
            OK(MPI_Scatter(NULL, 0, MPI_INT, got2, 2, MPI_INT, root, c));
            CHECK(got2[0] == r && got2[1] == 1000 + r, "scatter in place from %d", root);
            OK(MPI_Gather(got2, 2, MPI_INT, NULL, 0, MPI_INT, root, c));
        }
        free(all);
        /* the v forms: rank i's i % 3 + 1 ints, with gaps, into a vector type at the root */
        int *cnt = malloc(sizeof(int) * 2 * (size_t)s), *dis = cnt + s, tot = 0, sv[3], rv[3];
        for (int i = 0; i < s; i++) cnt[i] = i % 3 + 1, dis[i] = tot + 1, tot += cnt[i] + 1;
        int *gv = malloc(sizeof(int) * (size_t)tot);
        for (int k = 0; k < 3; k++) sv[k] = r * 10 + k + root;
        for (int i = 0; i < tot; i++) gv[i] = HOLE;
        OK(MPI_Gatherv(sv, cnt[r], MPI_INT, gv, cnt, dis, MPI_INT, root, c));
        if (r == root)
            for (int i = 0; i < s; i++) {
                CHECK(gv[dis[i] - 1] == HOLE, "gatherv: a gap written");
                for (int k = 0; k < cnt[i]; k++) CHECK(gv[dis[i] + k] == i * 10 + k + root, "gatherv to %d: %d.%d", root, i, k);
            }
        for (int k = 0; k < 3; k++) rv[k] = -1;
        OK(MPI_Scatterv(gv, cnt, dis, MPI_INT, rv, cnt[r], MPI_INT, root, c));
        for (int k = 0; k < cnt[r]; k++) CHECK(rv[k] == r * 10 + k + root, "scatterv from %d: [%d] %d", root, k, rv[k]);
        CHECK(cnt[r] == 3 || rv[cnt[r]] == -1, "scatterv wrote past its block");
        free(gv), free(cnt);
    }
}

static void everyone(MPI_Comm c, int r, int s)
{
    for (int k = 0; k < 3; k++) OK(MPI_Barrier(c));
    /* allreduce: sum (and in place), max on doubles, minloc, the affine maps */
    int v[4], w[4];
    for (int k = 0; k < 4; k++) v[k] = (r + 1) * (k + 1);
    OK(MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 4; k++) CHECK(w[k] == s * (s + 1) / 2 * (k + 1), "allreduce [%d] %d", k, w[k]);
    OK(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 4; k++) CHECK(v[k] == w[k], "allreduce in place [%d] %d", k, v[k]);
    double d = (double)((r * 7) % s), dm;
    OK(MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, c));
    CHECK(dm == (double)(s - 1) || s % 7 == 0, "allreduce max %g", dm);
    struct { int v, i; } in = { (r * 5) % s == 0 ? -1 : r, r }, out;
    OK(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, c));
    CHECK(out.v == -1 && out.i == 0, "minloc (%d, %d)", out.v, out.i);
    OK(MPI_Allreduce(MPI_IN_PLACE, w, 4, MPI_INT, csum, c));
    for (int k = 0; k < 4; k++) CHECK(w[k] == s * s * (s + 1) / 2 * (k + 1), "allreduce (user sum) [%d] %d", k, w[k]);
    int a[9], q[9];
    put_aff(a, r, 3, 2);
    OK(MPI_Allreduce(a, q, 3, pair, aff, c));
    check_aff(q, 0, s - 1, 3, 2, "allreduce (pairs)");
    put_aff(a, r, 3, 3);
    OK(MPI_Allreduce(MPI_IN_PLACE, a, 3, holey, aff, c));
    check_aff(a, 0, s - 1, 3, 3, "allreduce in place (holes)");

    /* allgather: contiguous, in place, into a vector type with holes; allgatherv */
    int *g = malloc(sizeof(int) * 3 * (size_t)s), mine[2] = { r, 500 + r };
    OK(MPI_Allgather(mine, 2, MPI_INT, g, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(g[2 * i] == i && g[2 * i + 1] == 500 + i, "allgather %d", i);
    for (int i = 0; i < 2 * s; i++) g[i] = i / 2 == r ? (i % 2 ? 700 + r : r) : -1;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(g[2 * i] == i && g[2 * i + 1] == 700 + i, "allgather in place %d", i);
    MPI_Datatype v2;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v2));
    OK(MPI_Type_commit(&v2));
    for (int i = 0; i < 3 * s; i++) g[i] = HOLE;
    OK(MPI_Allgather(mine, 2, MPI_INT, g, 1, v2, c));      /* extent 3 ints: block i at 3 i */
    for (int i = 0; i < s; i++)
        CHECK(g[3 * i] == i && g[3 * i + 1] == HOLE && g[3 * i + 2] == 500 + i, "allgather vector %d: %d %d %d", i,
              g[3 * i], g[3 * i + 1], g[3 * i + 2]);
    OK(MPI_Type_free(&v2));
    int *cnt = malloc(sizeof(int) * 2 * (size_t)(unsigned)s), *dis = cnt + s, tot = 0, sv[3];
    for (int i = 0; i < s; i++) cnt[i] = i % 3 + 1, dis[i] = tot + 1, tot += cnt[i] + 1;
    int *gv = malloc(sizeof(int) * (size_t)(unsigned)tot);
    for (int k = 0; k < 3; k++) sv[k] = r * 10 + k;
    for (int i = 0; i < tot; i++) gv[i] = HOLE;
    OK(MPI_Allgatherv(sv, cnt[r], MPI_INT, gv, cnt, dis, MPI_INT, c));
    for (int i = 0; i < s; i++) {
        CHECK(gv[dis[i] - 1] == HOLE, "allgatherv: a gap written");
        for (int k = 0; k < cnt[i]; k++) CHECK(gv[dis[i] + k] == i * 10 + k, "allgatherv %d.%d: %d", i, k, gv[dis[i] + k]);
    }
    free(gv), free(g);

    /* reduce-scatter: blocks (and in place), counts, the affine maps by blocks */
    int *src = malloc(sizeof(int) * 6 * (size_t)s), blk[3];
    for (int i = 0; i < 2 * s; i++) src[i] = (r + 1) * (i + 1);
    OK(MPI_Reduce_scatter_block(src, blk, 2, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 2; k++) CHECK(blk[k] == s * (s + 1) / 2 * (2 * r + k + 1), "reduce_scatter_block [%d] %d", k, blk[k]);
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, src, 2, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 2; k++) CHECK(src[k] == blk[k], "reduce_scatter_block in place [%d] %d", k, src[k]);
    int off = 0;
    for (int i = 0; i < s; i++) off += cnt[i];
    for (int i = 0; i < off; i++) src[i] = (r + 1) * (i + 1);
    OK(MPI_Reduce_scatter(src, blk, cnt, MPI_INT, MPI_SUM, c));
    off = 0;
    for (int i = 0; i < r; i++) off += cnt[i];
    for (int k = 0; k < cnt[r]; k++) CHECK(blk[k] == s * (s + 1) / 2 * (off + k + 1), "reduce_scatter [%d] %d", k, blk[k]);
    /* element e of the whole vector: rank i's fval(i, e) */
    for (int e = 0; e < 2 * s; e++) fval(r, e, src + 2 * e);
    int pr[4];
    OK(MPI_Reduce_scatter_block(src, pr, 2, pair, aff, c));
    for (int k = 0; k < 2; k++) {
        int want[2];
        fold(0, s - 1, 2 * r + k, want);
        CHECK(pr[2 * k] == want[0] && pr[2 * k + 1] == want[1], "reduce_scatter_block (pairs) %d", k);
    }
    free(src), free(cnt);

    /* scans: sum (in place too), the affine maps (pairs; holes in place) */
    int x[3], y[3];
    for (int k = 0; k < 3; k++) x[k] = (r + 1) * (k + 1), y[k] = -5;
    OK(MPI_Scan(x, y, 3, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 3; k++) CHECK(y[k] == (r + 1) * (r + 2) / 2 * (k + 1), "scan [%d] %d", k, y[k]);
    OK(MPI_Exscan(x, y, 3, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 3 && r > 0; k++) CHECK(y[k] == r * (r + 1) / 2 * (k + 1), "exscan [%d] %d", k, y[k]);
    OK(MPI_Scan(MPI_IN_PLACE, x, 3, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 3; k++) CHECK(x[k] == (r + 1) * (r + 2) / 2 * (k + 1), "scan in place [%d] %d", k, x[k]);
    put_aff(a, r, 3, 2);
    OK(MPI_Scan(a, q, 3, pair, aff, c));
    check_aff(q, 0, r, 3, 2, "scan (pairs)");
    for (int k = 0; k < 9; k++) q[k] = -9;
    OK(MPI_Exscan(a, q, 3, pair, aff, c));
    if (r > 0) check_aff(q, 0, r - 1, 3, 2, "exscan (pairs)");
    else CHECK(q[0] == -9, "exscan touched rank 0's buffer");
    put_aff(a, r, 3, 3);
    OK(MPI_Scan(MPI_IN_PLACE, a, 3, holey, aff, c));
    check_aff(a, 0, r, 3, 3, "scan in place (holes)");
    put_aff(a, r, 3, 3);
    OK(MPI_Exscan(MPI_IN_PLACE, a, 3, holey, aff, c));
    if (r > 0) check_aff(a, 0, r - 1, 3, 3, "exscan in place (holes)");
}

static void ring(MPI_Comm c, int r, int s);
static void sliced(MPI_Comm c, int r, int s);

/* Large ones: rendezvous between nodes, the engine's sliced paths in them. */
static void large(MPI_Comm c, int r, int s)
{
    enum { N = 150000 };
    int *v = malloc(sizeof(int) * N), *w = malloc(sizeof(int) * N), *g = malloc(sizeof(int) * (size_t)s * N / 8);
    for (int i = 0; i < N; i++) v[i] = r + i % 1000;
    OK(MPI_Allreduce(v, w, N, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < N; i++) CHECK(w[i] == s * (s - 1) / 2 + s * (i % 1000), "large allreduce [%d] %d", i, w[i]);
    OK(MPI_Scan(v, w, N, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < N; i++) CHECK(w[i] == r * (r + 1) / 2 + (r + 1) * (i % 1000), "large scan [%d] %d", i, w[i]);
    for (int i = 0; i < N; i++) w[i] = r == s - 1 ? i * 3 : -1;
    OK(MPI_Bcast(w, N, MPI_INT, s - 1, c));
    for (int i = 0; i < N; i++) CHECK(w[i] == i * 3, "large bcast [%d] %d", i, w[i]);
    OK(MPI_Allgather(v, N / 8, MPI_INT, g, N / 8, MPI_INT, c));
    for (int j = 0; j < s; j++)
        for (int i = 0; i < N / 8; i++) CHECK(g[j * (N / 8) + i] == j + i % 1000, "large allgather %d.%d", j, i);
    int *p = malloc(sizeof(int) * 2 * 20000), *q = malloc(sizeof(int) * 2 * 20000);
    put_aff(p, r, 20000, 2);
    OK(MPI_Allreduce(p, q, 20000, pair, aff, c));
    check_aff(q, 0, s - 1, 20000, 2, "large allreduce (pairs)");
    OK(MPI_Reduce(p, q, 20000, pair, aff, 0, c));
    if (r == 0) check_aff(q, 0, s - 1, 20000, 2, "large reduce (pairs)");
    free(v), free(w), free(g), free(p), free(q);
    ring(c, r, s);
}

/* Large reductions with a predefined operation (span.c's ring on three
 * members or more): blocks that do not divide evenly, in place, at every
 * root, on doubles and on the pair type without padding (MPI_2INT). */
static void ring(MPI_Comm c, int r, int s)
{
    enum { N = 40000 + 7 };
    double *v = malloc(sizeof(double) * N), *w = malloc(sizeof(double) * N);
    int *p = malloc(sizeof(int) * 2 * N), *q = malloc(sizeof(int) * 2 * N);
    for (int i = 0; i < N; i++) v[i] = (double)((r * 7 + i) % 1000);
    OK(MPI_Allreduce(v, w, N, MPI_DOUBLE, MPI_MAX, c));
    for (int i = 0; i < N; i++) {
        double m = 0;
        for (int j = 0; j < s; j++) m = (double)((j * 7 + i) % 1000) > m ? (double)((j * 7 + i) % 1000) : m;
        CHECK(w[i] == m, "ring allreduce max [%d] %g, not %g", i, w[i], m);
    }
    for (int i = 0; i < N; i++) w[i] = r + i;
    OK(MPI_Allreduce(MPI_IN_PLACE, w, N, MPI_DOUBLE, MPI_SUM, c));
    for (int i = 0; i < N; i++) CHECK(w[i] == s * (s - 1) / 2 + (double)s * i, "ring allreduce in place [%d] %g", i, w[i]);
    for (int root = 0; root < s; root++) {
        for (int i = 0; i < N; i++) p[2 * i] = (r * 13 + i) % 977, p[2 * i + 1] = r, q[2 * i] = q[2 * i + 1] = -1;
        if (r == root) memcpy(q, p, sizeof(int) * 2 * N);
        OK(MPI_Reduce(r == root ? MPI_IN_PLACE : p, q, N, MPI_2INT, MPI_MINLOC, root, c));
        if (r != root) continue;
        for (int i = 0; i < N; i++) {
            int best = -1, at = -1;
            for (int j = 0; j < s; j++)
                if (best < 0 || (j * 13 + i) % 977 < best) best = (j * 13 + i) % 977, at = j;
            CHECK(q[2 * i] == best && q[2 * i + 1] == at, "ring reduce minloc root %d [%d] (%d, %d), not (%d, %d)", root, i,
                  q[2 * i], q[2 * i + 1], best, at);
        }
    }
    /* Rabenseifner's mid sizes on a power of two of leaders (span.c: 32 KiB
     * up to 256 KiB), blocks that do not divide by 4 or 8, in place and not,
     * MINLOC's pairs; the 320 KB ones above are recursive doubling's */
    for (int k = 0; k < 3; k++) {
        int n = k == 0 ? 4096 + 3 : k == 1 ? 16384 - 5 : 30000 + 1;
        for (int i = 0; i < n; i++) w[i] = r + i;
        OK(MPI_Allreduce(k == 1 ? MPI_IN_PLACE : w, k == 1 ? w : v, n, MPI_DOUBLE, MPI_SUM, c));
        const double *z = k == 1 ? w : v;
        for (int i = 0; i < n; i++)
            if (z[i] != s * (s - 1) / 2 + (double)s * i) { CHECK(0, "mid allreduce %d [%d] %g", n, i, z[i]); break; }
    }
    for (int i = 0; i < 5000; i++) p[2 * i] = (r * 13 + i) % 977, p[2 * i + 1] = r;
    OK(MPI_Allreduce(p, q, 5000, MPI_2INT, MPI_MINLOC, c));
    for (int i = 0; i < 5000; i++) {
        int best = -1, at = -1;
        for (int j = 0; j < s; j++)
            if (best < 0 || (j * 13 + i) % 977 < best) best = (j * 13 + i) % 977, at = j;
        if (q[2 * i] != best || q[2 * i + 1] != at) { CHECK(0, "mid allreduce minloc [%d] (%d, %d)", i, q[2 * i], q[2 * i + 1]); break; }
    }
    /* the ring proper (span.c: allreduce from 512 KiB; below, recursive doubling) */
    enum { H = (1 << 18) + 3 };
    int *hv = malloc(sizeof(int) * H), *hw = malloc(sizeof(int) * H);
    for (int i = 0; i < H; i++) hv[i] = r * 3 + i % 100;
    OK(MPI_Allreduce(hv, hw, H, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < H; i++) CHECK(hw[i] == 3 * s * (s - 1) / 2 + s * (i % 100), "1 MiB allreduce [%d] %d", i, hw[i]);
    free(hv), free(hw);
    free(v), free(w), free(p), free(q);
    sliced(c, r, s);
}

/* Large allreduces with a predefined operation on nodes of one size
 * (hier.c's sliced path: the node's reduce-scatter, each member's slice
 * between nodes, the node's allgather): counts that do not divide by the
 * node's members, in place, a datatype of three floats, MPI_2INT's pairs
 * (MINLOC), the holey pair type; and a non-commutative user operation of
 * that size, which stays on the leaders' path in member order. */
static void sliced(MPI_Comm c, int r, int s)
{
    enum { N = (1 << 17) + 5, T = 43691 + 2 };         /* doubles: 1 MiB + 40 B; triples: 512 KiB + 24 B */
    double *d = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) d[i] = (double)((r * 5 + i) % 997);
    OK(MPI_Allreduce(MPI_IN_PLACE, d, N, MPI_DOUBLE, MPI_MAX, c));
    for (int i = 0; i < N; i++) {
        double m = 0;
        for (int j = 0; j < s; j++) m = (double)((j * 5 + i) % 997) > m ? (double)((j * 5 + i) % 997) : m;
        CHECK(d[i] == m, "sliced allreduce in place [%d] %g, not %g", i, d[i], m);
    }
    MPI_Datatype tri;
    OK(MPI_Type_contiguous(3, MPI_FLOAT, &tri));
    OK(MPI_Type_commit(&tri));
    float *f = malloc(sizeof(float) * 3 * T), *g = malloc(sizeof(float) * 3 * T);
    for (int i = 0; i < 3 * T; i++) f[i] = (float)(r + i % 64), g[i] = -1;
    OK(MPI_Allreduce(f, g, T, tri, MPI_SUM, c));
    for (int i = 0; i < 3 * T; i++) CHECK(g[i] == (float)(s * (s - 1) / 2 + s * (i % 64)), "sliced allreduce (3 floats) [%d] %g", i, g[i]);
    OK(MPI_Type_free(&tri));
    enum { L = 65536 + 3 };
    int *p = malloc(sizeof(int) * 2 * L), *q = malloc(sizeof(int) * 2 * L);
    for (int i = 0; i < L; i++) p[2 * i] = (r * 13 + i) % 977, p[2 * i + 1] = r;
    OK(MPI_Allreduce(p, q, L, MPI_2INT, MPI_MINLOC, c));
    for (int i = 0; i < L; i++) {
        int best = -1, at = -1;
        for (int j = 0; j < s; j++)
            if (best < 0 || (j * 13 + i) % 977 < best) best = (j * 13 + i) % 977, at = j;
        CHECK(q[2 * i] == best && q[2 * i + 1] == at, "sliced allreduce minloc [%d] (%d, %d), not (%d, %d)", i,
              q[2 * i], q[2 * i + 1], best, at);
    }
    free(p), free(q);
    /* a predefined operation on a datatype with gaps (3 ints every other
     * one): the gaps untouched */
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(vec3, &lb, &ext));
    enum { V = 43691 + 4 };
    int ve = (int)(ext / (MPI_Aint)sizeof(int));
    int *x = malloc((size_t)ext * V), *y = malloc((size_t)ext * V);
    for (int i = 0; i < ve * V; i++) x[i] = r + i % 50, y[i] = -7;
    OK(MPI_Allreduce(x, y, V, vec3, MPI_SUM, c));
    for (int e = 0; e < V; e++)
        for (int k = 0; k < ve; k++) {
            int i = e * ve + k;
            CHECK(k % 2 || k > 4 ? y[i] == -7 : y[i] == s * (s - 1) / 2 + s * (i % 50), "sliced allreduce (gaps) [%d] %d", i, y[i]);
        }
    free(x), free(y);
    enum { A = 45000 + 1 };             /* (affine pairs, not commutative) */
    p = malloc(sizeof(int) * 3 * A), q = malloc(sizeof(int) * 3 * A);
    put_aff(p, r, A, 2);
    OK(MPI_Allreduce(p, q, A, pair, aff, c));
    check_aff(q, 0, s - 1, A, 2, "large allreduce, non-commutative");
    put_aff(p, r, A, 3);
    OK(MPI_Allreduce(MPI_IN_PLACE, p, A, holey, aff, c));
    check_aff(p, 0, s - 1, A, 3, "large allreduce in place, non-commutative (holes)");
    free(p), free(q), free(d), free(f), free(g);
}

static void check_comm(MPI_Comm c)
{
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    large(c, r, s);
    everyone(c, r, s);
    rooted(c, r, s);
    everyone(c, r, s);          /* again: the groups made at the first call serve */
}

/* --- Nonblocking (hier.c's node stages posted at the start) ------------------------
 * Several nonblocking collectives outstanding on one communicator with
 * blocking ones between them, completed in orders that differ by rank and
 * round: a leader still waiting for the other nodes must reach its node's
 * group in the same order as its members. Root and sizes change by round
 * (small, and 64 KiB); an Iallreduce with a non-commutative operation (over
 * span.c's round) among them; on a new communicator the first ones start
 * before any blocking one has split it by nodes. */
static void complete(MPI_Request *q, int nq, int how)
{
    if (how == 0) {
        OK(MPI_Waitall(nq, q, MPI_STATUSES_IGNORE));
    } else if (how == 1) {
        for (int i = nq - 1; i >= 0; i--) OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
    } else if (how == 2) {
        for (int left = nq; left > 0; left--) {
            int idx;
            OK(MPI_Waitany(nq, q, &idx, MPI_STATUS_IGNORE));
            CHECK(idx != MPI_UNDEFINED, "waitany: nothing left with %d to go", left);
        }
    } else {                    /* polled, every other one first */
        int flag = 0;
        while (!flag) {
            for (int i = 1; i < nq; i += 2) {
                int f;
                OK(MPI_Test(&q[i], &f, MPI_STATUS_IGNORE));
            }
            OK(MPI_Testall(nq, q, &flag, MPI_STATUSES_IGNORE));
        }
    }
}

static void nb_round(MPI_Comm c, int r, int s, int round, int N)
{
    int root = round % s, root2 = (round * 7 + 1) % s;
    size_t n = (size_t)N;
    int *a = malloc(sizeof(int) * n), *bi = malloc(sizeof(int) * n), *bo = malloc(sizeof(int) * n);
    int *di = malloc(sizeof(int) * n), *dout = malloc(sizeof(int) * n), *e = malloc(sizeof(int) * n * (size_t)s);
    int *g = malloc(sizeof(int) * n), *u = malloc(sizeof(int) * n);
    int ei[2] = { r * 3 + round, -r }, fa[9], fq[9], h[3];
    MPI_Request q[14];
    int nq = 0;
    for (int k = 0; k < N; k++) {
        a[k] = r == root ? round * 1000 + k : -1;
        bi[k] = (r + 1) * (k % 7 + 1), bo[k] = -1;
        di[k] = (r * 31 + k * 7 + round) % 1009, dout[k] = -1;
        g[k] = (r * 13 + k) % 101;
        u[k] = r + k;
    }
    OK(MPI_Ibcast(a, N, MPI_INT, root, c, &q[nq++]));
    OK(MPI_Iallreduce(bi, bo, N, MPI_INT, MPI_SUM, c, &q[nq++]));
    int f = r + 1, fo = -1;
    OK(MPI_Allreduce(&f, &fo, 1, MPI_INT, MPI_SUM, c));     /* blocking, the two above outstanding */
    CHECK(fo == s * (s + 1) / 2, "round %d: blocking allreduce between nonblocking ones: %d", round, fo);
    OK(MPI_Ireduce(di, dout, N, MPI_INT, MPI_MAX, root2, c, &q[nq++]));
    OK(MPI_Iallgather(ei, 2, MPI_INT, e, 2, MPI_INT, c, &q[nq++]));
    for (int k = 0; k < 3; k++) h[k] = r == root2 ? round + k : -1;
    OK(MPI_Bcast(h, 3, MPI_INT, root2, c));
    for (int k = 0; k < 3; k++) CHECK(h[k] == round + k, "round %d: blocking bcast [%d] %d", round, k, h[k]);
    OK(MPI_Ibarrier(c, &q[nq++]));
    OK(MPI_Iallreduce(MPI_IN_PLACE, g, N, MPI_INT, MPI_MIN, c, &q[nq++]));
    put_aff(fa, r, 3, 2);
    OK(MPI_Iallreduce(fa, fq, 3, pair, aff, c, &q[nq++]));
    OK(MPI_Iallreduce(MPI_IN_PLACE, u, N, MPI_INT, csum, c, &q[nq++]));
    /* gather to root, scatter from root2 (in place at the roots on odd rounds) */
    int gm[2] = { r, 900 + round }, *ga = malloc(sizeof(int) * 2 * (size_t)s), *sa = malloc(sizeof(int) * 2 * (size_t)s), sg[2] = { -1, -1 };
    for (int j = 0; j < 2 * s; j++) ga[j] = j / 2 == r ? gm[j % 2] : -1, sa[j] = j * 5 + round;
    bool ip = round % 2 == 1;
    OK(MPI_Igather(ip && r == root ? MPI_IN_PLACE : gm, 2, MPI_INT, ga, 2, MPI_INT, root, c, &q[nq++]));
    OK(MPI_Iscatter(sa, 2, MPI_INT, ip && r == root2 ? MPI_IN_PLACE : sg, 2, MPI_INT, root2, c, &q[nq++]));
    int *rs = malloc(sizeof(int) * 2 * (size_t)s), rso[2] = { -1, -1 };
    for (int j = 0; j < 2 * s; j++) rs[j] = r + j;
    OK(MPI_Ireduce_scatter_block(ip ? MPI_IN_PLACE : rs, ip ? rs : rso, 2, MPI_INT, MPI_SUM, c, &q[nq++]));
    if (round % 2) OK(MPI_Barrier(c));
    complete(q, nq, (r + round) % 4);
    for (int e = 0; e < 2; e++) {
        int got = ip ? rs[e] : rso[e], want = s * (s - 1) / 2 + s * (2 * r + e);
        CHECK(got == want, "round %d: ireduce_scatter_block [%d] %d, not %d", round, e, got, want);
    }
    free(rs);
    for (int j = 0; r == root && j < s; j++)
        CHECK(ga[2 * j] == j && ga[2 * j + 1] == 900 + round, "round %d: igather to %d: %d: (%d, %d)", round, root, j, ga[2 * j], ga[2 * j + 1]);
    if (!(ip && r == root2))
        CHECK(sg[0] == 2 * r * 5 + round && sg[1] == (2 * r + 1) * 5 + round, "round %d: iscatter from %d: (%d, %d)", round, root2, sg[0], sg[1]);
    free(ga), free(sa);
    for (int k = 0; k < N; k++) {
        CHECK(a[k] == round * 1000 + k, "round %d: ibcast from %d [%d] %d", round, root, k, a[k]);
        CHECK(bo[k] == s * (s + 1) / 2 * (k % 7 + 1), "round %d: iallreduce [%d] %d", round, k, bo[k]);
        int mx = -1, mn = 1 << 30;
        for (int j = 0; j < s; j++) {
            int v = (j * 31 + k * 7 + round) % 1009, w = (j * 13 + k) % 101;
            mx = v > mx ? v : mx, mn = w < mn ? w : mn;
        }
        CHECK(r != root2 || dout[k] == mx, "round %d: ireduce to %d [%d] %d, not %d", round, root2, k, dout[k], mx);
        CHECK(g[k] == mn, "round %d: iallreduce min in place [%d] %d, not %d", round, k, g[k], mn);
        CHECK(u[k] == s * (s - 1) / 2 + s * k, "round %d: iallreduce (user sum) [%d] %d", round, k, u[k]);
    }
    for (int j = 0; j < s; j++)
        CHECK(e[2 * j] == j * 3 + round && e[2 * j + 1] == -j, "round %d: iallgather %d: (%d, %d)", round, j, e[2 * j], e[2 * j + 1]);
    check_aff(fq, 0, s - 1, 3, 2, "iallreduce (pairs)");
    free(a), free(bi), free(bo), free(di), free(dout), free(e), free(g), free(u);
}

static void check_nb(MPI_Comm parent)
{
    MPI_Comm c;
    int r, s;
    OK(MPI_Comm_dup(parent, &c));
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    /* before the communicator's first blocking collective: over span.c, and
     * still outstanding while that one splits it */
    int v = r + 1, w = -1, b = r == 0 ? 77 : -1;
    MPI_Request q[2];
    OK(MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_SUM, c, &q[0]));
    OK(MPI_Ibcast(&b, 1, MPI_INT, 0, c, &q[1]));
    OK(MPI_Barrier(c));
    OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(w == s * (s + 1) / 2 && b == 77, "before the split: %d %d", w, b);
    for (int round = 0; round < 8; round++) nb_round(c, r, s, round, round % 4 == 3 ? 16384 : 3);
    /* more outstanding than the node's group has records (two node stages each) */
    enum { M = 24 };
    int x[M], y[M];
    MPI_Request m[M];
    for (int i = 0; i < M; i++) {
        x[i] = r * M + i;
        if (i % 3 == 2) OK(MPI_Ibcast(&x[i], 1, MPI_INT, i % s, c, &m[i]));
        else OK(MPI_Iallreduce(&x[i], &y[i], 1, MPI_INT, MPI_MAX, c, &m[i]));
    }
    for (int i = M - 1; i >= 0; i--) OK(MPI_Wait(&m[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < M; i++)
        CHECK(i % 3 == 2 ? x[i] == (i % s) * M + i : y[i] == (s - 1) * M + i, "outstanding %d: %d", i, i % 3 == 2 ? x[i] : y[i]);
    OK(MPI_Comm_free(&c));
}

/* Call i of "bcast_chain", from root: an odd number of floats past 1 MiB
 * (every element checked), or on odd calls as many floats every other one
 * (MPI_Type_vector: the holes must stay as they were). */
static void bcast_chain(int i, int root, int me)
{
    enum { N = (1 << 18) + 3 };
    bool vec = i % 2;
    float *b = malloc(sizeof(float) * (vec ? 2 * N : N));
    CHECK(b != NULL, "no memory");
    MPI_Datatype t = MPI_FLOAT;
    if (vec) {
        OK(MPI_Type_vector(N, 1, 2, MPI_FLOAT, &t));
        OK(MPI_Type_commit(&t));
    }
    for (int k = 0; k < (vec ? 2 * N : N); k++) {
        bool hole = vec && k % 2;
        b[k] = me == root && !hole ? (float)((k * 7 + i) % 1000) : -1.0f;
    }
    OK(MPI_Bcast(b, vec ? 1 : N, t, root, MPI_COMM_WORLD));
    for (int k = 0; k < (vec ? 2 * N : N); k++) {
        bool hole = vec && k % 2;
        float want = hole ? -1.0f : (float)((k * 7 + i) % 1000);
        CHECK(b[k] == want, "bcast_chain %d from %d (%s): element %d is %g, not %g", i, root,
              vec ? "vector" : "floats", k, b[k], want);
    }
    if (vec) OK(MPI_Type_free(&t));
    free(b);
}

static void loop(const char *kind, int n)
{
    int v = 1, w, *g = malloc(sizeof(int) * 1024);
    float *big = calloc(1 << 18, sizeof(float));       /* 1 MiB */
    double t0 = 0;
    for (int i = 0; i < n; i++) {
        if (i == 1) t0 = MPI_Wtime();       /* after the first call (the split by nodes) */
        if (!strcmp(kind, "barrier") || !strcmp(kind, "all")) OK(MPI_Barrier(MPI_COMM_WORLD));
        if (!strcmp(kind, "allreduce") || !strcmp(kind, "all")) OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (!strcmp(kind, "allgather") || !strcmp(kind, "all")) OK(MPI_Allgather(&v, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD));
        if (!strcmp(kind, "scan") || !strcmp(kind, "all")) OK(MPI_Scan(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (!strcmp(kind, "allreduce_small")) {    /* results checked: recursive doubling from 8 bytes */
            int me, np;
            MPI_Comm_rank(MPI_COMM_WORLD, &me), MPI_Comm_size(MPI_COMM_WORLD, &np);
            double x[3] = { me + i, 1, -me }, y[3];
            OK(MPI_Allreduce(i % 2 ? MPI_IN_PLACE : x, i % 2 ? x : y, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
            const double *z = i % 2 ? x : y;
            CHECK(z[0] == np * (np - 1) / 2.0 + (double)np * i && z[1] == np && z[2] == -np * (np - 1) / 2.0,
                  "allreduce_small %d: %g %g %g", i, z[0], z[1], z[2]);
        }
        if (!strcmp(kind, "allreduce_1m")) OK(MPI_Allreduce(MPI_IN_PLACE, big, 1 << 18, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        if (!strcmp(kind, "allreduce_64k")) OK(MPI_Allreduce(MPI_IN_PLACE, big, 1 << 14, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        if (!strcmp(kind, "inb")) {         /* three outstanding at once */
            MPI_Request q[3];
            if (i == 0) OK(MPI_Barrier(MPI_COMM_WORLD));     /* the split by nodes */
            OK(MPI_Ibarrier(MPI_COMM_WORLD, &q[0]));
            OK(MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
            OK(MPI_Iallgather(&v, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD, &q[2]));
            OK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        }
        if (!strcmp(kind, "bcast_8")) OK(MPI_Bcast(big, 2, MPI_FLOAT, 0, MPI_COMM_WORLD));
        bool late = !strcmp(kind, "bcast_late");
        if (!strcmp(kind, "bcast_small") || late) {        /* roots in turn, results checked */
            int me, np;
            MPI_Comm_rank(MPI_COMM_WORLD, &me), MPI_Comm_size(MPI_COMM_WORLD, &np);
            int root = late ? 0 : i % np;
            int b[2] = { me == root ? i : -1, me == root ? -i : -1 };
            if (late && me == root) usleep(20000);       /* the others wait, then sleep */
            OK(MPI_Bcast(b, 2, MPI_INT, root, MPI_COMM_WORLD));
            CHECK(b[0] == i && b[1] == -i, "%s %d from %d: %d %d", kind, i, root, b[0], b[1]);
        }
        bool late1m = !strcmp(kind, "bcast_1m_late");
        if (!strcmp(kind, "bcast_1m") || late1m) {      /* from rank 0, a rendezvous each; checked */
            int me;
            MPI_Comm_rank(MPI_COMM_WORLD, &me);
            if (me == 0) {
                big[0] = (float)i, big[(1 << 18) - 1] = (float)-i;
                if (late1m) usleep(20000);              /* the others poll a while, then sleep */
            }
            OK(MPI_Bcast(big, 1 << 18, MPI_FLOAT, 0, MPI_COMM_WORLD));
            CHECK(big[0] == (float)i && big[(1 << 18) - 1] == (float)-i, "%s %d: %g %g", kind, i, big[0],
                  big[(1 << 18) - 1]);
        }
        if (!strcmp(kind, "bcast_chain")) {     /* from 1 MiB: span.c's chain between 4 to 7 leaders */
            int me, np;
            MPI_Comm_rank(MPI_COMM_WORLD, &me), MPI_Comm_size(MPI_COMM_WORLD, &np);
            bcast_chain(i, i % np, me);
        }
        bool ib = !strcmp(kind, "ibcast_64k"), ib8 = !strcmp(kind, "ibcast_8");
        bool ia = !strcmp(kind, "iallreduce_64k"), ia8 = !strcmp(kind, "iallreduce_8");
        if (ib || ib8 || ia || ia8) {
            MPI_Request q;
            if (i == 0) OK(MPI_Barrier(MPI_COMM_WORLD));
            if (ib || ib8) OK(MPI_Ibcast(big, ib8 ? 2 : 16384, MPI_FLOAT, 0, MPI_COMM_WORLD, &q));
            else OK(MPI_Iallreduce(MPI_IN_PLACE, big, ia8 ? 2 : 16384, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q));
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
    }
    /* for a rough measure only (HIER_TIME=1): nothing checks it; up to the
     * last rank's end (a root's eager sends end long before its receivers) */
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (getenv("HIER_TIME")) OK(MPI_Barrier(MPI_COMM_WORLD));
    if (getenv("HIER_TIME") && r == 0 && n > 1)
        printf("loop %s: %.1f us a call\n", kind, (MPI_Wtime() - t0) * 1e6 / (n - 1));
    free(g), free(big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wr, ws;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    if (argc > 1 && !strcmp(argv[1], "mismatch")) {
        /* the second node's ranks expect less than the root sends: its
         * leader's receive between nodes is truncated, and says so (it
         * alone ends the job); the others on its node, whose data would
         * come from it, fail too */
        int b[2] = { 1, 2 };
        const char *ns = getenv("SMARTMAP_NODE_SIZE");
        int k = ns && atoi(ns) > 0 ? atoi(ns) : ws;
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, wr == k ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN));
        int rc = MPI_Bcast(b, wr < k ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(wr < k ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "MPI_Bcast returned %d", rc);
        MPI_Recv(b, 1, MPI_INT, k, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);     /* ended with the job */
        return 1;
    }
    if (argc > 1 && (!strcmp(argv[1], "chainmismatch") || !strcmp(argv[1], "treemismatch"))) {
        /* chain: past 1 MiB down span.c's chain (4 to 7 nodes of 1 rank),
         * rank 2 expecting a float less: its receive is truncated and
         * fails; the ranks after it get an empty message and fail, not
         * wait. tree: 8 floats down span.c's binary tree (the same shapes),
         * rank 1 expecting a float less: it fails, and rank 3, which it
         * passes the message on to, gets an empty one and fails; ranks 0
         * and 2 succeed. Either way the communicator still works after. */
        bool tree = argv[1][0] == 't';
        int N = tree ? 8 : (1 << 18) + 1000;    /* the chain's counts both past its 1 MiB (across it, members take different rounds) */
        int bad = tree ? 1 : 2;
        float *b = calloc((size_t)N, sizeof(float));
        CHECK(b != NULL, "no memory");
        if (wr == 0) b[0] = 5, b[N - 1] = 6;
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        float f[2] = { 0, 0 };
        OK(MPI_Bcast(f, 2, MPI_FLOAT, 0, MPI_COMM_WORLD));     /* the split by nodes */
        int rc = MPI_Bcast(b, wr == bad ? N - 1 : N, MPI_FLOAT, 0, MPI_COMM_WORLD);
        bool fails = tree ? wr == 1 || wr == 3 : wr >= 2;
        bool ok = !fails ? rc == MPI_SUCCESS && b[0] == 5 && b[N - 1] == 6 : rc != MPI_SUCCESS;
        CHECK(ok, "rank %d: MPI_Bcast with rank %d's count short returned %d (%g %g)", wr, bad, rc, b[0], b[N - 1]);
        int v = 1, w = 0;
        OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(w == ws, "allreduce after: %d", w);
        printf("%s mismatch: rank %d as expected (%d)\n", tree ? "tree" : "chain", wr, rc);
        free(b);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "nbmismatch")) {
        /* the same across nodes, nonblocking: the leader's receive between
         * nodes is truncated, and its node's stage after it still runs */
        int b[2] = { 1, 2 };
        MPI_Request q;
        const char *ns = getenv("SMARTMAP_NODE_SIZE");
        int k = ns && atoi(ns) > 0 ? atoi(ns) : ws;
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, wr == k ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN));
        OK(MPI_Ibcast(b, wr < k ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
        int rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(wr < k ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "MPI_Wait of MPI_Ibcast returned %d", rc);
        MPI_Recv(b, 1, MPI_INT, k, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);     /* ended with the job */
        return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "late")) {
        /* The root (rank 0, node 0's leader) comes a second late to a
         * broadcast: the other node's leader waits for it over UCX, its
         * members for their leader. Their wait must sleep (core/wait.c's
         * leaning yields only while the leader is awake, and ends within
         * LEAN_MAX_NS): each rank's CPU time for the call stays far below
         * the second (a poll through it would take most of it). With
         * SMARTMAP_NET_SPIN_FIRST_US long, the waiting leader polls awake
         * and its members lean on it (SMARTMAP_STATS), then sleep. */
        int b[2] = { 0, 0 };
        OK(MPI_Bcast(b, 2, MPI_INT, 0, MPI_COMM_WORLD));      /* the split by nodes */
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (wr == 0) sleep(1), b[0] = 7, b[1] = 9;
        struct rusage u0, u1;
        getrusage(RUSAGE_SELF, &u0);
        OK(MPI_Bcast(b, 2, MPI_INT, 0, MPI_COMM_WORLD));
        getrusage(RUSAGE_SELF, &u1);
        double cpu = (double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec + u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) +
                     (double)(u1.ru_utime.tv_usec - u0.ru_utime.tv_usec + u1.ru_stime.tv_usec - u0.ru_stime.tv_usec) * 1e-6;
        CHECK(b[0] == 7 && b[1] == 9, "late broadcast: %d %d", b[0], b[1]);
        /* (with SMARTMAP_NET_SPIN_FIRST_US the leaders poll UCX: only the members are held to it) */
        const char *ns = getenv("SMARTMAP_NODE_SIZE"), *poll = getenv("SMARTMAP_NET_SPIN_FIRST_US");
        int k = ns && atoi(ns) > 0 ? atoi(ns) : ws;
        if (wr != 0 && (wr % k || !poll)) {
            CHECK(cpu < 0.25, "rank %d: %.3f s of CPU waiting a second for a late root", wr, cpu);
            printf("late: rank %d waited with %.3f s of CPU\n", wr, cpu);
        }
        MPI_Finalize();
        return 0;
    }
    if (argc > 3 && !strcmp(argv[1], "loop")) {
        loop(argv[2], atoi(argv[3]));
        MPI_Finalize();
        return 0;
    }
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    OK(MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &holey));
    OK(MPI_Type_commit(&holey));
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec3));
    OK(MPI_Type_commit(&vec3));
    OK(MPI_Op_create(affine, 0, &aff));
    OK(MPI_Op_create(usum, 1, &csum));
    const char *ns = getenv("SMARTMAP_NODE_SIZE");
    int k = ns && atoi(ns) > 0 ? atoi(ns) : ws, nn = (ws + k - 1) / k;

    if (argc > 1 && !strcmp(argv[1], "nb")) {
        MPI_Comm rev, mix, half;
        check_nb(MPI_COMM_WORLD);
        OK(MPI_Comm_split(MPI_COMM_WORLD, 0, ws - 1 - wr, &rev));
        check_nb(rev);
        OK(MPI_Comm_split(MPI_COMM_WORLD, 0, (wr % k) * nn + wr / k, &mix));
        check_nb(mix);
        OK(MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &half));
        check_nb(half);
        OK(MPI_Comm_free(&rev));
        OK(MPI_Comm_free(&mix));
        OK(MPI_Comm_free(&half));
        OK(MPI_Op_free(&aff));
        OK(MPI_Op_free(&csum));
        MPI_Type_free(&pair), MPI_Type_free(&holey), MPI_Type_free(&vec3);
        MPI_Finalize();
        if (wr == 0) printf("hier nb: %d ranks, nodes of %d: every nonblocking collective as the serial reference\n", ws, k);
        return 0;
    }
    check_comm(MPI_COMM_WORLD);
    MPI_Comm rev, mix, half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, ws - 1 - wr, &rev));
    check_comm(rev);
    /* the nodes' ranks interleaved: rank j of node q at q + j * nodes */
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, (wr % k) * nn + wr / k, &mix));
    check_comm(mix);
    OK(MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &half));
    check_comm(half);
    OK(MPI_Comm_free(&rev));
    OK(MPI_Comm_free(&mix));
    OK(MPI_Comm_free(&half));
    OK(MPI_Op_free(&aff));
    OK(MPI_Op_free(&csum));
    MPI_Type_free(&pair), MPI_Type_free(&holey), MPI_Type_free(&vec3);
    MPI_Finalize();
    if (wr == 0) printf("hier: %d ranks, nodes of %d: every collective as the serial reference\n", ws, k);
    return 0;
}
