/* Intercommunicators: creation with leaders that are not rank 0, queries,
 * point-to-point (ranks name the remote group), merge order, dup/split/
 * create on them, every collective, blocking and nonblocking (completed by
 * MPI_Wait, MPI_Waitall beside point-to-point, MPI_Test, several at once in
 * another order, MPI_Comm_idup among them), against a reference computed
 * here, and the errors for what is not defined on them. Groups A (job ranks
 * [0, a)) and B ([a, n)) of unequal sizes when n > 2. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int n, me, a, inA, lsize, rsize, lrank;
static int *onnode, one_node;   /* onnode[w]: job rank w shares my node (mcheck_nodes) */
/* job rank of local / remote rank i */
static int wl(int i) { return inA ? i : a + i; }
static int wr(int i) { return inA ? a + i : i; }
static int val(int w, int k) { return 1000 * w + k; }

/* How the collectives below complete: 0 the blocking call; 1 the I- form
 * and MPI_Wait; 2 MPI_Waitall with a ring message on MPI_COMM_WORLD in
 * flight on either side of it; 3 MPI_Test until done. */
static int mode;
static MPI_Request nbq;
static int nbfin(int rc)
{
    if (rc) return rc;
    if (mode == 1) return MPI_Wait(&nbq, MPI_STATUS_IGNORE);
    if (mode == 2) {
        int in = -1, out = me;
        MPI_Request q[3];
        OK(MPI_Irecv(&in, 1, MPI_INT, (me + n - 1) % n, 77, MPI_COMM_WORLD, &q[0]));
        q[1] = nbq;
        OK(MPI_Isend(&out, 1, MPI_INT, (me + 1) % n, 77, MPI_COMM_WORLD, &q[2]));
        rc = MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
        CHECK(rc || in == (me + n - 1) % n, "the ring message: %d", in);
        return rc;
    }
    int flag = 0;
    while (!flag && !rc) rc = MPI_Test(&nbq, &flag, MPI_STATUS_IGNORE);
    return rc;
}
/* The blocking call, or its I- form completed as mode says. */
#define COLL(blocking, nb) (mode ? nbfin(nb) : (blocking))

static void check_p2p(MPI_Comm ic)
{
    /* every local rank sends to remote rank lrank % rsize; receivers take from any */
    int msg = val(me, 7);
    MPI_Request q;
    OK(MPI_Isend(&msg, 1, MPI_INT, lrank % rsize, 5, ic, &q));
    int expect = 0;
    for (int i = 0; i < rsize; i++) expect += i % lsize == lrank;
    for (int k = 0; k < expect; k++) {
        int got;
        MPI_Status st;
        OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && st.MPI_SOURCE % lsize == lrank, "source %d",
              st.MPI_SOURCE);
        CHECK(got == val(wr(st.MPI_SOURCE), 7), "got %d from remote %d", got, st.MPI_SOURCE);
    }
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    /* a ring of sendrecv with the partner of the same index, where there is one */
    if (lrank < rsize) {
        int got = -1;
        OK(MPI_Sendrecv(&msg, 1, MPI_INT, lrank, 6, &got, 1, MPI_INT, lrank, 6, ic, MPI_STATUS_IGNORE));
        CHECK(got == val(wr(lrank), 7), "sendrecv got %d", got);
    }
    OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    int bad = MPI_Send(&msg, 1, MPI_INT, rsize, 0, ic);
    CHECK(bad == MPI_ERR_RANK, "send to remote rank %d: %d", rsize, bad);
    OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL));
}

/* Every collective with group A as the root side, then B. */
static void check_rooted(MPI_Comm ic)
{
    for (int side = 0; side < 2; side++) {
        int rooting = inA == !side;                  /* my group holds the root */
        int root = (rooting ? lsize : rsize) > 1 ? 1 : 0; /* its local rank */
        int rootarg = rooting ? (lrank == root ? MPI_ROOT : MPI_PROC_NULL) : root;
        int isroot = rooting && lrank == root;
        int rw = rooting ? wl(root) : wr(root);      /* job rank of the root */
        int other = rooting ? rsize : lsize;         /* size of the non-root group */
        int *buf = calloc(64 * 64, sizeof(int));
        /* Bcast of a strided type */
        MPI_Datatype vec;
        OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
        OK(MPI_Type_commit(&vec));
        for (int k = 0; k < 8; k++) buf[k] = isroot ? val(rw, k) : -1;
        OK(COLL(MPI_Bcast(buf, 1, vec, rootarg, ic), MPI_Ibcast(buf, 1, vec, rootarg, ic, &nbq)));
        for (int k = 0; k < 8; k++) {
            int want = isroot ? val(rw, k) : rooting ? -1 : k % 2 ? -1 : val(rw, k);
            CHECK(buf[k] == want, "bcast side %d [%d] = %d, want %d", side, k, buf[k], want);
        }
        OK(MPI_Type_free(&vec));
        /* Reduce: the other group's sum at the root */
        int in[3] = { me, 1, -me }, out[3] = { -1, -1, -1 };
        OK(COLL(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, rootarg, ic),
                MPI_Ireduce(in, out, 3, MPI_INT, MPI_SUM, rootarg, ic, &nbq)));
        if (isroot) {
            int s = 0;
            for (int i = 0; i < other; i++) s += wr(i);
            CHECK(out[0] == s && out[1] == other && out[2] == -s, "reduce %d %d %d want %d", out[0], out[1], out[2], s);
        } else CHECK(out[0] == -1, "reduce wrote at a non-root");
        /* Gather: 2 ints from every member of the other group */
        int mine[2] = { val(me, 1), val(me, 2) };
        memset(buf, 0xff, 64 * 64 * sizeof(int));
        OK(COLL(MPI_Gather(mine, 2, MPI_INT, buf, 2, MPI_INT, rootarg, ic),
                MPI_Igather(mine, 2, MPI_INT, buf, 2, MPI_INT, rootarg, ic, &nbq)));
        if (isroot)
            for (int i = 0; i < other; i++)
                CHECK(buf[2 * i] == val(wr(i), 1) && buf[2 * i + 1] == val(wr(i), 2), "gather [%d]", i);
        /* Gatherv: remote rank i gives i + 1 ints, placed with a gap */
        int cnt[64], dsp[64], v[64];
        for (int i = 0; i < 64; i++) cnt[i] = i + 1, dsp[i] = i * (i + 3) / 2 + i, v[i] = val(me, i);
        memset(buf, 0xff, 64 * 64 * sizeof(int));
        OK(COLL(MPI_Gatherv(v, lrank + 1, MPI_INT, buf, cnt, dsp, MPI_INT, rootarg, ic),
                MPI_Igatherv(v, lrank + 1, MPI_INT, buf, cnt, dsp, MPI_INT, rootarg, ic, &nbq)));
        if (isroot)
            for (int i = 0; i < other; i++)
                for (int k = 0; k < i + 1; k++)
                    CHECK(buf[dsp[i] + k] == val(wr(i), k), "gatherv [%d][%d] = %d", i, k, buf[dsp[i] + k]);
        /* Scatter / Scatterv: remote rank i gets 2 / i + 1 ints */
        for (int i = 0; i < 64 * 64; i++) buf[i] = val(rw, i);
        int got[64];
        memset(got, 0xff, sizeof got);
        OK(COLL(MPI_Scatter(buf, 2, MPI_INT, got, 2, MPI_INT, rootarg, ic),
                MPI_Iscatter(buf, 2, MPI_INT, got, 2, MPI_INT, rootarg, ic, &nbq)));
        if (!rooting) CHECK(got[0] == val(rw, 2 * lrank) && got[1] == val(rw, 2 * lrank + 1), "scatter %d", got[0]);
        memset(got, 0xff, sizeof got);
        OK(COLL(MPI_Scatterv(buf, cnt, dsp, MPI_INT, got, lrank + 1, MPI_INT, rootarg, ic),
                MPI_Iscatterv(buf, cnt, dsp, MPI_INT, got, lrank + 1, MPI_INT, rootarg, ic, &nbq)));
        if (!rooting)
            for (int k = 0; k < lrank + 1; k++) CHECK(got[k] == val(rw, dsp[lrank] + k), "scatterv [%d]", k);
        free(buf);
    }
}

static void check_all(MPI_Comm ic)
{
    OK(COLL(MPI_Barrier(ic), MPI_Ibarrier(ic, &nbq)));
    /* Allreduce: the other group's sum and max */
    int in[2] = { me, me }, out[2];
    OK(COLL(MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, ic), MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, ic, &nbq)));
    int s = 0;
    for (int i = 0; i < rsize; i++) s += wr(i);
    CHECK(out[0] == s, "allreduce sum %d want %d", out[0], s);
    OK(COLL(MPI_Allreduce(in + 1, out + 1, 1, MPI_INT, MPI_MAX, ic),
            MPI_Iallreduce(in + 1, out + 1, 1, MPI_INT, MPI_MAX, ic, &nbq)));
    CHECK(out[1] == wr(rsize - 1), "allreduce max %d", out[1]);
    /* Allgather: A sends 2 each, B 3 each */
    int ls = inA ? 2 : 3, rs = inA ? 3 : 2, mine[3], *buf = malloc(sizeof(int) * 3 * 64 * 64);
    for (int k = 0; k < 3; k++) mine[k] = val(me, k);
    OK(COLL(MPI_Allgather(mine, ls, MPI_INT, buf, rs, MPI_INT, ic),
            MPI_Iallgather(mine, ls, MPI_INT, buf, rs, MPI_INT, ic, &nbq)));
    for (int i = 0; i < rsize; i++)
        for (int k = 0; k < rs; k++) CHECK(buf[i * rs + k] == val(wr(i), k), "allgather [%d][%d]", i, k);
    /* Allgatherv: remote rank i gives i % 3 + 1 ints, in reverse order */
    int cnt[64], dsp[64], v[4];
    for (int i = 0; i < rsize; i++) cnt[i] = i % 3 + 1;
    for (int i = rsize - 1, at = 0; i >= 0; i--) dsp[i] = at, at += cnt[i] + 1;
    for (int k = 0; k < 4; k++) v[k] = val(me, k);
    OK(COLL(MPI_Allgatherv(v, lrank % 3 + 1, MPI_INT, buf, cnt, dsp, MPI_INT, ic),
            MPI_Iallgatherv(v, lrank % 3 + 1, MPI_INT, buf, cnt, dsp, MPI_INT, ic, &nbq)));
    for (int i = 0; i < rsize; i++)
        for (int k = 0; k < cnt[i]; k++) CHECK(buf[dsp[i] + k] == val(wr(i), k), "allgatherv [%d][%d]", i, k);
    /* Alltoall: to remote rank j, val(me, wr(j)) */
    int sb[64], rb[64], sc[64], sd[64], rc[64], rd[64];
    for (int j = 0; j < rsize; j++) sb[j] = val(me, wr(j));
    OK(COLL(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic), MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic, &nbq)));
    for (int j = 0; j < rsize; j++) CHECK(rb[j] == val(wr(j), me), "alltoall [%d] = %d", j, rb[j]);
    /* Alltoallv: to remote rank j, (job ranks' sum) % 2 + 1 copies, blocks reversed */
    for (int j = 0; j < rsize; j++) sc[j] = (me + wr(j)) % 2 + 1, rc[j] = sc[j];
    for (int j = rsize - 1, at = 0; j >= 0; j--) sd[j] = at, at += sc[j];
    for (int j = 0, at = 0; j < rsize; j++) rd[j] = at, at += rc[j] + 1;
    int sv[128], rv[256];
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < sc[j]; k++) sv[sd[j] + k] = val(me, wr(j)) + k;
    OK(COLL(MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, ic),
            MPI_Ialltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, ic, &nbq)));
    for (int j = 0; j < rsize; j++)
        for (int k = 0; k < rc[j]; k++) CHECK(rv[rd[j] + k] == val(wr(j), me) + k, "alltoallv [%d][%d]", j, k);
    /* Reduce_scatter_block: the vector has lsize*rsize elements on both sides */
    int count = lsize * rsize, *vec = malloc(sizeof(int) * (size_t)count), res[64];
    for (int x = 0; x < count; x++) vec[x] = me * x;
    int sumw = 0;
    for (int i = 0; i < rsize; i++) sumw += wr(i);
    OK(COLL(MPI_Reduce_scatter_block(vec, res, rsize, MPI_INT, MPI_SUM, ic),
            MPI_Ireduce_scatter_block(vec, res, rsize, MPI_INT, MPI_SUM, ic, &nbq)));
    for (int k = 0; k < rsize; k++) {
        int x = lrank * rsize + k;
        CHECK(res[k] == sumw * x, "reduce_scatter_block [%d] = %d want %d", k, res[k], sumw * x);
    }
    /* Reduce_scatter: my group's blocks uneven (rank 0 takes the remainder) */
    int rcounts[64], at = 0;
    for (int i = 0; i < lsize; i++) rcounts[i] = i ? rsize - 1 : 0;
    for (int i = 0; i < lsize; i++) at += rcounts[i];
    rcounts[0] = count - at;
    int first = 0;
    for (int i = 0; i < lrank; i++) first += rcounts[i];
    OK(COLL(MPI_Reduce_scatter(vec, res, rcounts, MPI_INT, MPI_SUM, ic),
            MPI_Ireduce_scatter(vec, res, rcounts, MPI_INT, MPI_SUM, ic, &nbq)));
    for (int k = 0; k < rcounts[lrank]; k++)
        CHECK(res[k] == sumw * (first + k), "reduce_scatter [%d] = %d", k, res[k]);
    free(vec);
    free(buf);
}

/* Nonblocking collectives outstanding together, completed in another
 * order than they began (and MPI_Comm_idup among them), mixed with
 * point-to-point on the intercommunicator. */
static void check_outstanding(MPI_Comm ic)
{
    int one = 1, sum = -1, x = inA ? val(me, 3) : -1, rs = 0, got = -1;
    for (int i = 0; i < rsize; i++) rs += wr(i);
    MPI_Request q[6];
    MPI_Comm dup = MPI_COMM_NULL;
    OK(MPI_Iallreduce(&me, &sum, 1, MPI_INT, MPI_SUM, ic, &q[0]));
    /* A's local rank 0 broadcasts to B */
    OK(MPI_Ibcast(&x, 1, MPI_INT, inA ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &q[1]));
    OK(MPI_Comm_idup(ic, &dup, &q[2]));
    int inter = 0;                                   /* what it is, bindings ask at once (mpi4py) */
    OK(MPI_Comm_test_inter(dup, &inter));
    CHECK(inter, "the idup of an intercommunicator is one before it completes");
    OK(MPI_Ibarrier(ic, &q[3]));
    q[4] = MPI_REQUEST_NULL;                         /* remote rank lrank sends to me, if there is one */
    if (lrank < rsize) OK(MPI_Irecv(&got, 1, MPI_INT, lrank, 11, ic, &q[4]));
    OK(MPI_Isend(&one, 1, MPI_INT, lrank % rsize, 11, ic, &q[5]));
    /* the receives of those that send to me: as many as remote ranks i with i % lsize == lrank */
    for (int i = lrank + lsize; i < rsize; i += lsize) {
        int dummy;
        OK(MPI_Recv(&dummy, 1, MPI_INT, i, 11, ic, MPI_STATUS_IGNORE));
    }
    int order[6] = { 3, 5, 2, 1, 4, 0 };
    for (int k = 0; k < 6; k++) OK(MPI_Wait(&q[order[k]], MPI_STATUS_IGNORE));
    CHECK(sum == rs, "iallreduce %d want %d", sum, rs);
    if (!inA) CHECK(x == val(0, 3), "ibcast got %d", x);
    CHECK(got == (lrank < rsize ? 1 : -1), "p2p got %d", got);
    /* the duplicate: congruent, and works */
    int cmp, r;
    OK(MPI_Comm_compare(ic, dup, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "idup compares %d", cmp);
    OK(MPI_Comm_remote_size(dup, &r));
    CHECK(r == rsize, "idup remote size %d", r);
    sum = -1;
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == rs, "allreduce on the idup: %d want %d", sum, rs);
    /* Testany over several, then an idup of the idup completed by MPI_Test */
    OK(MPI_Iallreduce(&me, &sum, 1, MPI_INT, MPI_MAX, dup, &q[0]));
    OK(MPI_Ibarrier(dup, &q[1]));
    for (int left = 2; left;) {
        int idx, flag;
        OK(MPI_Testany(2, q, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx != MPI_UNDEFINED) left--;
    }
    CHECK(sum == wr(rsize - 1), "iallreduce max on the idup: %d", sum);
    /* a derived type freed as soon as the call returns, the call queued
     * behind another (so the type is used after the free) */
    int v[4] = { -1, -1, -1, -1 };
    MPI_Datatype two;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &two));
    OK(MPI_Type_commit(&two));
    if (inA) v[0] = val(me, 0), v[2] = val(me, 2);
    OK(MPI_Ibarrier(dup, &q[0]));
    OK(MPI_Ibcast(v, 1, two, inA ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, dup, &q[1]));
    OK(MPI_Type_free(&two));
    OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    if (!inA)
        CHECK(v[0] == val(0, 0) && v[1] == -1 && v[2] == val(0, 2), "ibcast of a freed type: %d %d %d", v[0], v[1], v[2]);
    MPI_Comm dup2;
    OK(MPI_Comm_idup(dup, &dup2, &q[0]));
    for (int flag = 0; !flag;) OK(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE));
    OK(MPI_Barrier(dup2));
    OK(MPI_Comm_free(&dup2));
    OK(MPI_Comm_free(&dup));
}


static void check_merge(MPI_Comm ic)
{
    for (int hi = 0; hi < 2; hi++) {
        MPI_Comm m;
        OK(MPI_Intercomm_merge(ic, inA ? hi : !hi, &m));
        int r, sz, flag;
        OK(MPI_Comm_rank(m, &r));
        OK(MPI_Comm_size(m, &sz));
        OK(MPI_Comm_test_inter(m, &flag));
        CHECK(sz == n && !flag, "merged size %d flag %d", sz, flag);
        int want = !hi ? me : inA ? (n - a) + me : me - a;   /* the low group first */
        CHECK(r == want, "merge (A high %d): rank %d want %d", hi, r, want);
        int s, one = 1;
        OK(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, m));
        CHECK(s == n, "allreduce on merged: %d", s);
        OK(MPI_Comm_free(&m));
    }
}

static void check_derived(MPI_Comm ic)
{
    MPI_Comm d;
    OK(MPI_Comm_dup(ic, &d));
    int res;
    OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare dup: %d", res);
    int flag, sz;
    OK(MPI_Comm_test_inter(d, &flag));
    OK(MPI_Comm_remote_size(d, &sz));
    CHECK(flag && sz == rsize, "dup: flag %d remote size %d", flag, sz);
    /* messages on the dup and the original do not mix */
    if (lrank == 0) {
        int x = 1, y = 2, gx, gy;
        MPI_Request q[2];
        OK(MPI_Isend(&x, 1, MPI_INT, 0, 3, ic, &q[0]));
        OK(MPI_Isend(&y, 1, MPI_INT, 0, 3, d, &q[1]));
        OK(MPI_Recv(&gy, 1, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE));
        OK(MPI_Recv(&gx, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(gx == 1 && gy == 2, "dup mixed messages: %d %d", gx, gy);
    }
    check_all(d);
    OK(MPI_Comm_free(&d));
    /* split by local rank parity: the remote side is the remote ranks of my parity */
    MPI_Comm s;
    OK(MPI_Comm_split(ic, lrank % 2, -lrank, &s));
    int rpar = (rsize + 1 - lrank % 2) / 2;                /* remote ranks with my parity */
    if (!rpar) CHECK(s == MPI_COMM_NULL, "split with no remote partner is not MPI_COMM_NULL");
    else {
        int ls2, rs2, r2;
        OK(MPI_Comm_size(s, &ls2));
        OK(MPI_Comm_remote_size(s, &rs2));
        OK(MPI_Comm_rank(s, &r2));
        CHECK(rs2 == rpar && ls2 == (lsize + 1 - lrank % 2) / 2, "split sizes %d %d", ls2, rs2);
        CHECK(r2 == (ls2 - 1) - lrank / 2, "split rank %d (keys reverse the order)", r2);
        int sum, w = me;
        OK(MPI_Allreduce(&w, &sum, 1, MPI_INT, MPI_SUM, s));
        int want = 0;
        for (int i = lrank % 2; i < rsize; i += 2) want += wr(i);
        CHECK(sum == want, "allreduce on split: %d want %d", sum, want);
        MPI_Group g;
        OK(MPI_Comm_remote_group(s, &g));
        int zero = 0, wz;
        MPI_Group wg;
        OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        OK(MPI_Group_translate_ranks(g, 1, &zero, wg, &wz));
        CHECK(wz == wr(rsize - 1 - ((rsize - 1 - lrank % 2) % 2)), "split remote rank 0 is job rank %d", wz);
        OK(MPI_Group_free(&g));
        OK(MPI_Group_free(&wg));
        OK(MPI_Comm_free(&s));
    }
    OK(MPI_Comm_split(ic, MPI_UNDEFINED, 0, &s));
    CHECK(s == MPI_COMM_NULL, "split with MPI_UNDEFINED");
    /* split_type: each group by node, the local members on a node joined to
     * the remote ones on it (MPI_COMM_NULL where it has none); on one node
     * both whole groups again (as MPICH does), in the same order */
    OK(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s));
    int wls = 0, wrs = 0, wrk = 0, wsum = 0;
    for (int i = 0; i < lsize; i++) wls += onnode[wl(i)], wrk += onnode[wl(i)] && i < lrank;
    for (int i = 0; i < rsize; i++) wrs += onnode[wr(i)], wsum += onnode[wr(i)] ? wr(i) : 0;
    CHECK((s == MPI_COMM_NULL) == (wrs == 0), "split_type: %d remote members on my node, got %p", wrs, (void *)s);
    if (s != MPI_COMM_NULL) {
        int ls4, rs4, r4;
        OK(MPI_Comm_test_inter(s, &flag));
        OK(MPI_Comm_size(s, &ls4));
        OK(MPI_Comm_remote_size(s, &rs4));
        OK(MPI_Comm_rank(s, &r4));
        CHECK(flag && ls4 == wls && rs4 == wrs && r4 == wrk, "split_type: %d %d %d %d, want %d %d %d", flag, ls4,
              rs4, r4, wls, wrs, wrk);
        if (one_node) check_all(s);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, s));
        CHECK(sum == wsum, "allreduce on the split_type: %d want %d", sum, wsum);
        OK(MPI_Comm_free(&s));
    }
    OK(MPI_Comm_split_type(ic, MPI_UNDEFINED, 0, MPI_INFO_NULL, &s));
    CHECK(s == MPI_COMM_NULL, "split_type with MPI_UNDEFINED");
    /* create over the local group without its last member (where it has more than one) */
    MPI_Group lg, sub;
    OK(MPI_Comm_group(ic, &lg));
    int last = lsize - 1;
    OK(lsize > 1 ? MPI_Group_excl(lg, 1, &last, &sub) : MPI_Group_incl(lg, 1, &last, &sub));
    MPI_Comm c;
    OK(MPI_Comm_create(ic, sub, &c));
    int in_sub = lsize == 1 || lrank != last;
    CHECK((c != MPI_COMM_NULL) == in_sub, "create: member %d, got %p", in_sub, (void *)c);
    if (c != MPI_COMM_NULL) {
        int rs3;
        OK(MPI_Comm_remote_size(c, &rs3));
        CHECK(rs3 == (rsize > 1 ? rsize - 1 : 1), "create: remote size %d", rs3);
        OK(MPI_Barrier(c));
        OK(MPI_Comm_free(&c));
    }
    OK(MPI_Group_free(&sub));
    OK(MPI_Group_free(&lg));
}

static void check_errors(MPI_Comm ic)
{
    int x = 0, y, sz;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &sz) == MPI_ERR_COMM, "remote size of an intracommunicator");
    MPI_Comm m;
    CHECK(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m) == MPI_ERR_COMM, "merge of an intracommunicator");
    /* a bad remote leader known only at the local leader: every member gets the error */
    int bad = MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 3, &m);
    CHECK(bad == MPI_ERR_RANK, "intercomm_create with the leader as its own remote: %d", bad);
    bad = MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, n, 3, &m);
    CHECK(bad == MPI_ERR_RANK, "intercomm_create with remote_leader %d: %d", n, bad);
    if (ic == MPI_COMM_NULL) return;
    OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "scan on an intercommunicator");
    CHECK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "exscan on an intercommunicator");
    CHECK(MPI_Bcast(&x, 1, MPI_INT, rsize, ic) == MPI_ERR_ROOT, "bcast root %d", rsize);
    CHECK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_BUFFER, "in place");
    CHECK(MPI_Comm_split_type(ic, 12345, 0, MPI_INFO_NULL, &m) == MPI_ERR_ARG, "split_type 12345");
    int dims = lsize, periods = 0;
    CHECK(MPI_Cart_create(ic, 1, &dims, &periods, 0, &m) == MPI_ERR_COMM, "cart_create");
    MPI_Win w;
    CHECK(MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, ic, &w) == MPI_ERR_COMM, "win_create");
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (n < 2) {
        check_errors(MPI_COMM_NULL);
        return MPI_Finalize();
    }
    onnode = calloc((size_t)n, sizeof *onnode);
    CHECK(onnode != NULL, "no memory");
    one_node = mcheck_nodes(onnode);
    a = n / 3 > 1 ? n / 3 : 1;
    inA = me < a;
    MPI_Comm local;
    OK(MPI_Comm_split(MPI_COMM_WORLD, inA, me, &local));
    OK(MPI_Comm_size(local, &lsize));
    OK(MPI_Comm_rank(local, &lrank));
    /* leaders: the last of each group; their job ranks as MPI_COMM_WORLD names them */
    MPI_Comm ic;
    OK(MPI_Intercomm_create(local, lsize - 1, MPI_COMM_WORLD, inA ? n - 1 : a - 1, 9, &ic));
    int flag, sz, r;
    OK(MPI_Comm_test_inter(ic, &flag));
    OK(MPI_Comm_size(ic, &sz));
    OK(MPI_Comm_rank(ic, &r));
    OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(flag && sz == lsize && r == lrank && rsize == n - lsize, "test_inter %d size %d rank %d remote %d", flag,
          sz, r, rsize);
    MPI_Group rg, wg;
    OK(MPI_Comm_remote_group(ic, &rg));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < rsize; i++) {
        int w;
        OK(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
        CHECK(w == wr(i), "remote group [%d] is job rank %d", i, w);
    }
    OK(MPI_Group_free(&rg));
    OK(MPI_Group_free(&wg));
    if (argc > 1 && !strcmp(argv[1], "kill")) {       /* the last rank dies; the others wait in a collective */
        if (me == n - 1) raise(SIGKILL);
        int x = 0, y;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check_p2p(ic);
    for (mode = 0; mode < 4; mode++) {
        check_rooted(ic);
        check_all(ic);
    }
    mode = 0;
    check_outstanding(ic);
    check_merge(ic);
    check_derived(ic);
    check_errors(ic);
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
    return MPI_Finalize();
}
