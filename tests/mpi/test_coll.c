/* Collectives on predefined operations and types, on MPI_COMM_WORLD and on
 * split/dup/created communicators; communicator and group calls; context
 * separation between communicators. */
#include <sched.h>
#include <stdbool.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* Not commutative: inout = in * 10 + inout, so the result spells the ranks in order. */
/* Concatenation of decimal strings, each a pair (value, 10^digits): it
 * does not commute but is associative, as MPI assumes of every operation
 * (a hierarchical reduction groups the operands differently). */
static void concat(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i + 1 < *len; i += 2) b[i] = a[i] * b[i + 1] + b[i], b[i + 1] *= a[i + 1];
}

/* The v-variants: rank i contributes i + 1 ints, stored in reverse rank order. */
static void vcollectives(MPI_Comm c, int r, int s)
{
    int *cnt = malloc(sizeof(int) * (size_t)s), *dsp = malloc(sizeof(int) * (size_t)s), tot = 0;
    for (int i = s - 1; i >= 0; i--) cnt[i] = i + 1, dsp[i] = tot, tot += i + 1;
    int *mine = malloc(sizeof(int) * (size_t)(r + 1)), *all = malloc(sizeof(int) * (size_t)tot);
    for (int k = 0; k <= r; k++) mine[k] = r * 100 + k;
#define CHECK_ALL(what) for (int i = 0; i < s; i++) for (int k = 0; k <= i; k++) \
        CHECK(all[dsp[i] + k] == i * 100 + k, "%s: rank %d item %d = %d", what, i, k, all[dsp[i] + k])
    for (int i = 0; i < tot; i++) all[i] = -1;
    OK(MPI_Gatherv(mine, r + 1, MPI_INT, all, cnt, dsp, MPI_INT, s - 1, c));
    if (r == s - 1) CHECK_ALL("gatherv");
    for (int k = 0; k <= r; k++) mine[k] = -1;
    OK(MPI_Scatterv(all, cnt, dsp, MPI_INT, mine, r + 1, MPI_INT, s - 1, c));
    for (int k = 0; k <= r; k++) CHECK(mine[k] == r * 100 + k, "scatterv item %d = %d", k, mine[k]);
    for (int i = 0; i < tot; i++) all[i] = -1;
    OK(MPI_Allgatherv(mine, r + 1, MPI_INT, all, cnt, dsp, MPI_INT, c));
    CHECK_ALL("allgatherv");
    for (int i = 0; i < tot; i++) all[i] = -1;
    for (int k = 0; k <= r; k++) all[dsp[r] + k] = r * 100 + k;
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, dsp, MPI_INT, c));
    CHECK_ALL("allgatherv in place");
    /* the same through a non-contiguous type: each int padded to two */
    MPI_Datatype pad;
    OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &pad));
    OK(MPI_Type_commit(&pad));
    int *wide = malloc(2 * sizeof(int) * (size_t)tot);
    for (int i = 0; i < 2 * tot; i++) wide[i] = -7;
    OK(MPI_Allgatherv(mine, r + 1, MPI_INT, wide, cnt, dsp, pad, c));
    for (int i = 0; i < s; i++)
        for (int k = 0; k <= i; k++)
            CHECK(wide[2 * (dsp[i] + k)] == i * 100 + k && wide[2 * (dsp[i] + k) + 1] == -7, "allgatherv padded");
    OK(MPI_Type_free(&pad));
    /* alltoallv: rank r sends j + 1 ints to rank j, valued r * 100 + j */
    int *sc = malloc(sizeof(int) * (size_t)s), *sd = malloc(sizeof(int) * (size_t)s);
    int *rc = malloc(sizeof(int) * (size_t)s), *rd = malloc(sizeof(int) * (size_t)s), st = 0, rt = 0;
    for (int j = 0; j < s; j++) sc[j] = j + 1, sd[j] = st, st += j + 1, rc[j] = r + 1, rd[j] = rt, rt += r + 1;
    int *sb = malloc(sizeof(int) * (size_t)st), *rb = malloc(sizeof(int) * (size_t)rt);
    for (int j = 0; j < s; j++) for (int k = 0; k <= j; k++) sb[sd[j] + k] = r * 100 + j;
    OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c));
    for (int j = 0; j < s; j++) for (int k = 0; k <= r; k++) CHECK(rb[rd[j] + k] == j * 100 + r, "alltoallv from %d", j);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
    free(cnt), free(dsp), free(mine), free(all), free(wide);
#undef CHECK_ALL
}

/* Small scatterv, every root: counts with zeros, displacements out of
 * order with gaps between the blocks, MPI_IN_PLACE at the root, on bytes,
 * ints and a contiguous type whose data starts 8 bytes into its element;
 * scaled so that the root's blocks fit its record (the lean path) or not.
 * The receiver's bytes outside its block, and the root's send buffer, stay
 * as they were. */
static unsigned char sv_val(int root, int i, int k, int b) { return (unsigned char)(root * 50 + i * 7 + k * 3 + b + 1); }
static void small_scatterv(MPI_Comm c)
{
    int r, s;
    OK(MPI_Comm_rank(c, &r));
    OK(MPI_Comm_size(c, &s));
    MPI_Datatype shifted;   /* one int 8 bytes into an element of extent 4 (lb 8): contiguous, true_lb 8 */
    int one = 1;
    MPI_Aint at = 8;
    OK(MPI_Type_create_hindexed(1, &one, &at, MPI_INT, &shifted));
    OK(MPI_Type_commit(&shifted));
    struct { MPI_Datatype t; int es, lb; } T[] = { { MPI_BYTE, 1, 0 }, { MPI_INT, 4, 0 }, { shifted, 4, 8 } };
    int *cnt = malloc(sizeof(int) * (size_t)s), *dsp = malloc(sizeof(int) * (size_t)s);
    for (int ti = 0; ti < 3; ti++)
        for (int scale = 1; scale <= 5; scale += 4)
            for (int root = 0; root < s; root++)
                for (int inpl = 0; inpl < 2; inpl++) {
                    int es = T[ti].es, lb = T[ti].lb, tot = 0;
                    for (int i = 0; i < s; i++) cnt[i] = (i + root) % 3 == 2 ? 0 : scale * (1 + i % 2);
                    for (int i = s - 1; i >= 0; i--) dsp[i] = tot, tot += cnt[i] + 1;   /* reversed, a gap after each */
                    size_t sbytes = (size_t)lb + (size_t)tot * (size_t)es + 16, rbytes = (size_t)lb + 16 * (size_t)es + 16;
                    unsigned char *sb = malloc(sbytes), *keep = malloc(sbytes), *rb = malloc(rbytes);
                    memset(sb, 0x5a, sbytes);
                    for (int i = 0; i < s; i++)
                        for (int k = 0; k < cnt[i]; k++)
                            for (int b = 0; b < es; b++) sb[lb + (size_t)(dsp[i] + k) * (size_t)es + (size_t)b] = sv_val(root, i, k, b);
                    memcpy(keep, sb, sbytes);
                    memset(rb, 0xee, rbytes);
                    bool ip = inpl && r == root;
                    OK(MPI_Scatterv(r == root ? sb : NULL, cnt, dsp, T[ti].t, ip ? MPI_IN_PLACE : rb, cnt[r], T[ti].t, root, c));
                    if (r == root) CHECK(!memcmp(sb, keep, sbytes), "scatterv type %d root %d: the send buffer changed", ti, root);
                    for (size_t j = 0; j < rbytes; j++) {
                        size_t off = j - (size_t)lb;
                        bool in = !ip && j >= (size_t)lb && off < (size_t)cnt[r] * (size_t)es;
                        unsigned char want = in ? sv_val(root, r, (int)(off / (size_t)es), (int)(off % (size_t)es)) : 0xee;
                        CHECK(rb[j] == want, "scatterv type %d x%d root %d%s: rank %d byte %zu = %#x, want %#x", ti, scale,
                              root, inpl ? " in place" : "", r, j, rb[j], want);
                    }
                    free(sb), free(keep), free(rb);
                }
    free(cnt), free(dsp);
    OK(MPI_Type_free(&shifted));
}

static void collectives(MPI_Comm c)
{
    int r, s;
    OK(MPI_Comm_rank(c, &r));
    OK(MPI_Comm_size(c, &s));
    OK(MPI_Barrier(c));
    /* Bcast from every root, small and large */
    int big = 300000;
    int *b = malloc(sizeof(int) * (size_t)big);
    for (int root = 0; root < s; root++) {
        for (int i = 0; i < big; i++) b[i] = r == root ? i ^ root : -1;
        OK(MPI_Bcast(b, root % 2 ? 3 : big, MPI_INT, root, c));
        for (int i = 0; i < (root % 2 ? 3 : big); i++) CHECK(b[i] == (i ^ root), "bcast root %d [%d] = %d", root, i, b[i]);
    }
    /* Reductions */
    long long v[3] = { r + 1, r * 2, -r }, out[3];
    OK(MPI_Allreduce(v, out, 3, MPI_LONG_LONG, MPI_SUM, c));
    CHECK(out[0] == (long long)s * (s + 1) / 2 && out[1] == (long long)s * (s - 1) && out[2] == -(long long)s * (s - 1) / 2,
          "allreduce sum %lld %lld %lld", out[0], out[1], out[2]);
    double d = r * 1.5, dm;
    OK(MPI_Reduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, s - 1, c));
    if (r == s - 1) CHECK(dm == (s - 1) * 1.5, "reduce max %g", dm);
    struct { double v; int i; } loc = { (double)((r * (s - 1)) % s), r }, lres;   /* a permutation of 0..s-1 */
    OK(MPI_Allreduce(&loc, &lres, 1, MPI_DOUBLE_INT, MPI_MINLOC, c));
    CHECK(lres.v == 0 && lres.i == 0, "minloc %g %d", lres.v, lres.i);
    OK(MPI_Allreduce(&loc, &lres, 1, MPI_DOUBLE_INT, MPI_MAXLOC, c));
    CHECK(lres.v == (double)(s - 1) && lres.i == (s > 1), "maxloc %g %d", lres.v, lres.i);
    unsigned u = 1u << r, ur = 0;
    OK(MPI_Allreduce(&u, &ur, 1, MPI_UNSIGNED, MPI_BOR, c));
    CHECK(ur == (s >= 32 ? ~0u : (1u << s) - 1), "bor %x", ur);
    bool t = r == 0, tr;
    OK(MPI_Allreduce(&t, &tr, 1, MPI_C_BOOL, MPI_LXOR, c));
    CHECK(tr, "lxor");
    int p = r % 2 ? -1 : 1, pr = p;
    OK(MPI_Allreduce(MPI_IN_PLACE, &pr, 1, MPI_INT, MPI_PROD, c));
    CHECK(pr == (s / 2 % 2 ? -1 : 1), "prod in place %d", pr);
    /* prefix reductions and reduce-scatter */
    int sc = r, scr = -5;
    OK(MPI_Scan(&sc, &scr, 1, MPI_INT, MPI_SUM, c));
    CHECK(scr == r * (r + 1) / 2, "scan %d", scr);
    scr = -5;
    OK(MPI_Exscan(&sc, &scr, 1, MPI_INT, MPI_SUM, c));
    CHECK(r == 0 ? scr == -5 : scr == r * (r - 1) / 2, "exscan %d", scr);
    int *vec = malloc(sizeof(int) * 2 * (size_t)s), blk[2];
    for (int i = 0; i < 2 * s; i++) vec[i] = r + i;
    OK(MPI_Reduce_scatter_block(vec, blk, 2, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < 2; k++)
        CHECK(blk[k] == s * (s - 1) / 2 + s * (2 * r + k), "reduce_scatter_block %d", blk[k]);
    free(vec);
    MPI_Op dop;
    OK(MPI_Op_create(concat, 0, &dop));
    int dig[2] = { r, 10 }, dres[2], want = 0;
    for (int i = 0; i < s && i < 9; i++) want = want * 10 + i;
    if (s <= 9) {
        OK(MPI_Allreduce(dig, dres, 2, MPI_INT, dop, c));
        CHECK(dres[0] == want, "user op gave %d, expected %d", dres[0], want);
    }
    OK(MPI_Op_free(&dop));
    CHECK(dop == MPI_OP_NULL, "op_free");
    /* Gather, scatter, allgather, alltoall */
    int *all = malloc(sizeof(int) * 2 * (size_t)s), *all2 = malloc(sizeof(int) * 2 * (size_t)s);
    int mine[2] = { r, 100 + r }, got[2];
    OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, c));
    if (r == 0) for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 100 + i, "gather %d", i);
    OK(MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, 0, c));
    CHECK(got[0] == r && got[1] == 100 + r, "scatter %d %d", got[0], got[1]);
    /* in place: the root's block stays in its send buffer; gather back in place */
    if (r == 0) OK(MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, 0, c));
    else OK(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, got, 2, MPI_INT, 0, c));
    CHECK(r == 0 || (got[0] == r && got[1] == 100 + r), "scatter in place");
    if (r == 0) {
        for (int i = 2; i < 2 * s; i++) all[i] = -1;
        OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, 0, c));
        for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 100 + i, "gather in place %d", i);
    } else OK(MPI_Gather(got, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, c));
    for (int i = 0; i < 2 * s; i++) all[i] = -1;
    OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 100 + i, "allgather %d", i);
    for (int i = 0; i < 2 * s; i++) all[i] = -1;
    all[2 * r] = r, all[2 * r + 1] = 100 + r;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == 100 + i, "allgather in place %d", i);
    for (int i = 0; i < s; i++) all[2 * i] = r * 1000 + i, all[2 * i + 1] = -i;
    OK(MPI_Alltoall(all, 2, MPI_INT, all2, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(all2[2 * i] == i * 1000 + r && all2[2 * i + 1] == -r, "alltoall from %d", i);
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, c));
    for (int i = 0; i < s; i++) CHECK(all[2 * i] == i * 1000 + r, "alltoall in place from %d", i);
    free(all), free(all2), free(b);
    vcollectives(c, r, s);
}

static int deleted;
static int count_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

/* User attributes: copied by MPI_Comm_dup when the copy callback says so,
 * deleted (with the callback) by set, delete and free. */
static void attributes(void)
{
    static int one = 1, ten = 10;
    int kcopy, knone, flag;
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kcopy, NULL));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knone, NULL));
    MPI_Comm a, b;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    OK(MPI_Comm_set_attr(a, kcopy, &one));
    OK(MPI_Comm_set_attr(a, knone, &ten));
    OK(MPI_Comm_dup(a, &b));
    int *v;
    OK(MPI_Comm_get_attr(b, kcopy, &v, &flag));
    CHECK(flag && v == &one, "copied attribute");
    OK(MPI_Comm_get_attr(b, knone, &v, &flag));
    CHECK(!flag, "attribute with MPI_COMM_NULL_COPY_FN was copied");
    OK(MPI_Comm_delete_attr(a, knone));
    CHECK(deleted == 10, "delete callback %d", deleted);
    OK(MPI_Comm_free(&a));
    OK(MPI_Comm_free(&b));
    CHECK(deleted == 12, "free calls the delete callbacks: %d", deleted);
    OK(MPI_Comm_free_keyval(&kcopy));
    OK(MPI_Comm_free_keyval(&knone));
    CHECK(kcopy == MPI_KEYVAL_INVALID, "free_keyval");
}

/* Collectives on a communicator, its dup and a split, back to back with no
 * barrier between, roots and sizes changing, some ranks slower: each
 * communicator's collectives keep to themselves. The two halves of the
 * split run theirs at the same time, large (sliced) ones included. */
static void interleaved(void)
{
    MPI_Comm dup, half;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, 0, &half));
    int hs, hr;
    OK(MPI_Comm_size(half, &hs));
    OK(MPI_Comm_rank(half, &hr));
    enum { BIG = 5000 };
    static long big[BIG], bigout[BIG];
    for (int k = 0; k < 200; k++) {
        if ((me + k) % 3 == 0) sched_yield();
        int root = k % n, v = root == me ? k : -1;
        OK(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
        CHECK(v == k, "world bcast %d: %d", k, v);
        long x = me + k, sum;
        OK(MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, dup));
        CHECK(sum == (long)n * (n - 1) / 2 + (long)n * k, "dup allreduce %d: %ld", k, sum);
        int cnt = k % 10 == 0 ? BIG : 1 + k % 7;
        for (int i = 0; i < cnt; i++) big[i] = (long)(hr + 1) * (i + k);
        OK(MPI_Allreduce(big, bigout, cnt, MPI_LONG, MPI_SUM, half));
        for (int i = 0; i < cnt; i++)
            CHECK(bigout[i] == (long)hs * (hs + 1) / 2 * (i + k), "half %d allreduce %d [%d]: %ld", me % 2, k, i, bigout[i]);
        int g[2] = { me, k }, all[2 * 64];
        if (n <= 64) {
            OK(MPI_Allgather(g, 2, MPI_INT, all, 2, MPI_INT, dup));
            for (int i = 0; i < n; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == k, "dup allgather %d", k);
        }
        if (k % 16 == 0) OK(MPI_Barrier(dup));
    }
    OK(MPI_Comm_free(&half));
    OK(MPI_Comm_free(&dup));
}

static void communicators(void)
{
    MPI_Comm half, dup, sh;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));      /* keys reverse the order */
    int hr, hs;
    OK(MPI_Comm_rank(half, &hr));
    OK(MPI_Comm_size(half, &hs));
    CHECK(hs == (n + 1 - me % 2) / 2, "split size %d", hs);
    CHECK(hr == hs - 1 - me / 2, "split rank %d", hr);
    collectives(half);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int cmp;
    OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "compare dup %d", cmp);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_IDENT, "compare self");
    /* the same tag on two communicators: each receive gets its own */
    int to = (me + 1) % n, from = (me + n - 1) % n, x = 1, y = 2, a, bb;
    OK(MPI_Send(&x, 1, MPI_INT, to, 5, dup));
    OK(MPI_Send(&y, 1, MPI_INT, to, 5, MPI_COMM_WORLD));
    OK(MPI_Recv(&a, 1, MPI_INT, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(&bb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE));
    CHECK(a == 2 && bb == 1, "contexts mixed: %d %d", a, bb);
    /* groups */
    MPI_Group wg, eg, og;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *ev = malloc(sizeof(int) * (size_t)n), ne = 0;
    for (int i = 0; i < n; i += 2) ev[ne++] = i;
    OK(MPI_Group_incl(wg, ne, ev, &eg));
    OK(MPI_Group_excl(wg, ne, ev, &og));
    int gs, gr;
    OK(MPI_Group_size(eg, &gs));
    OK(MPI_Group_rank(eg, &gr));
    CHECK(gs == ne && gr == (me % 2 ? MPI_UNDEFINED : me / 2), "group incl %d %d", gs, gr);
    OK(MPI_Group_size(og, &gs));
    CHECK(gs == n - ne, "group excl %d", gs);
    int tr[1] = { me }, out[1];
    OK(MPI_Group_translate_ranks(wg, 1, tr, eg, out));
    CHECK(out[0] == (me % 2 ? MPI_UNDEFINED : me / 2), "translate %d", out[0]);
    /* set operations: evens + odds = world (evens first), and back */
    MPI_Group ug, ig, dg, rg;
    OK(MPI_Group_union(eg, og, &ug));
    OK(MPI_Group_size(ug, &gs));
    OK(MPI_Group_rank(ug, &gr));
    CHECK(gs == n && gr == (me % 2 ? ne + me / 2 : me / 2), "union size %d rank %d", gs, gr);
    OK(MPI_Group_intersection(ug, eg, &ig));
    OK(MPI_Group_compare(ig, eg, &cmp));
    CHECK(cmp == MPI_IDENT, "intersection %d", cmp);
    OK(MPI_Group_difference(ug, eg, &dg));
    OK(MPI_Group_compare(dg, og, &cmp));
    CHECK(cmp == MPI_IDENT, "difference %d", cmp);
    OK(MPI_Group_compare(ug, wg, &cmp));
    CHECK(cmp == (n > 2 ? MPI_SIMILAR : MPI_IDENT), "union vs world %d", cmp);
    int range[1][3] = { { 0, n - 1, 2 } };
    OK(MPI_Group_range_incl(wg, 1, range, &rg));
    OK(MPI_Group_compare(rg, eg, &cmp));
    CHECK(cmp == MPI_IDENT, "range_incl %d", cmp);
    OK(MPI_Group_free(&ug));
    OK(MPI_Group_free(&ig));
    OK(MPI_Group_free(&dg));
    OK(MPI_Group_free(&rg));
    MPI_Comm ec;
    OK(MPI_Comm_create(MPI_COMM_WORLD, eg, &ec));
    CHECK((ec == MPI_COMM_NULL) == (me % 2 == 1), "create membership");
    if (ec != MPI_COMM_NULL) {
        collectives(ec);
        MPI_Group g2;
        OK(MPI_Comm_group(ec, &g2));
        OK(MPI_Group_compare(g2, eg, &cmp));
        CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
        OK(MPI_Group_free(&g2));
        OK(MPI_Comm_free(&ec));
    }
    /* create_group: only the members call it, over the parent's context; a
     * user receive with MPI_ANY_TAG posted before must not take its messages */
    if (me % 2 == 0) {
        MPI_Comm gc;
        MPI_Request rq = MPI_REQUEST_NULL;
        int z = 1234, zz = 0;
        if (me == 0 && n > 2) OK(MPI_Irecv(&zz, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
        OK(MPI_Comm_create_group(MPI_COMM_WORLD, eg, 7, &gc));
        collectives(gc);
        OK(MPI_Comm_free(&gc));
        if (me == 2) OK(MPI_Send(&z, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
        if (me == 0 && n > 2) {
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK(zz == 1234, "a user receive got %d", zz);
        }
    }
    /* by node: the world's ranks on one node, a group per node across nodes */
    int one_node = mcheck_nodes(NULL);
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sh));
    OK(MPI_Comm_compare(sh, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == (one_node ? MPI_CONGRUENT : MPI_UNEQUAL), "split_type shared %d (one node: %d)", cmp, one_node);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Comm_set_name(sh, "node"));
    OK(MPI_Comm_get_name(sh, name, &len));
    CHECK(!strcmp(name, "node") && len == 4, "name %s", name);
    OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_WORLD"), "world name %s", name);
    int *ub, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "tag_ub");
    OK(MPI_Group_free(&wg));
    OK(MPI_Group_free(&eg));
    OK(MPI_Group_free(&og));
    OK(MPI_Comm_free(&sh));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&half));
    CHECK(half == MPI_COMM_NULL, "free resets the handle");
    free(ev);
}

int main(int argc, char **argv)
{
    int provided, flag;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    OK(MPI_Query_thread(&flag));
    CHECK(flag == provided, "query_thread");
    OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "is_thread_main");
    OK(MPI_Initialized(&flag));
    CHECK(flag, "initialized");
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    collectives(MPI_COMM_WORLD);
    collectives(MPI_COMM_SELF);
    small_scatterv(MPI_COMM_WORLD);
    small_scatterv(MPI_COMM_SELF);
    communicators();
    interleaved();
    attributes();
    int v, sv;
    OK(MPI_Get_version(&v, &sv));
    CHECK(v == 3 && sv == 1, "version");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    OK(MPI_Get_library_version(lib, &v));
    CHECK(strstr(lib, "smartmap") != NULL, "library version %s", lib);
    OK(MPI_Get_processor_name(lib, &v));
    CHECK(v > 0, "processor name");
    CHECK(MPI_Wtick() > 0 && MPI_Wtime() > 0, "timers");
    OK(MPI_Finalize());
    OK(MPI_Finalized(&flag));
    CHECK(flag, "finalized");
    if (me == 0) printf("test_coll: %d ranks ok\n", n);
    return 0;
}
