/* test_coll.c: collectives and teams: test_coll GROUP, GROUP one of coll (every
 * type, world and a sub-team, the sliced reduction), team, generic (the C11
 * names), deprecated (active sets, *_to_all), or all. */
#include <sched.h>

#include "shmem_test.h"

static long gcounter;

/* --- collectives: every type, odd sizes, world and a sub-team ----------------------------------------- */
#define COLL_TEST(NAME, T) {                                                                  \
    int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team);                             \
    T *src = shmem_calloc((size_t)(npes * N), sizeof(T));                                     \
    T *dst = shmem_calloc((size_t)(npes * N * 2 + 1), sizeof(T));                             \
    if (tm >= 0) {                                                                            \
        for (int i = 0; i < npes * N; i++) src[i] = (T)(tm * 3 + i % 11);                     \
        int root = tn - 1;                                                                    \
        shmem_##NAME##_broadcast(team, dst, src, N, root);                                    \
        for (int i = 0; i < N; i++) CHECK(dst[i] == (T)(root * 3 + i % 11), #NAME " bcast %d", i); \
        shmem_##NAME##_fcollect(team, dst, src, N);                                           \
        for (int p = 0; p < tn; p++) for (int i = 0; i < N; i++)                              \
            CHECK(dst[p * N + i] == (T)(p * 3 + i % 11), #NAME " fcollect %d.%d", p, i);      \
        shmem_##NAME##_collect(team, dst, src, (size_t)tm + 1);                               \
        for (int p = 0, o = 0; p < tn; o += ++p) for (int i = 0; i <= p; i++)                 \
            CHECK(dst[o + i] == (T)(p * 3 + i % 11), #NAME " collect %d.%d", p, i);           \
        shmem_##NAME##_alltoall(team, dst, src, 3);                                           \
        for (int p = 0; p < tn; p++) for (int i = 0; i < 3; i++)                              \
            CHECK(dst[p * 3 + i] == (T)(p * 3 + (tm * 3 + i) % 11), #NAME " alltoall %d.%d", p, i); \
        shmem_##NAME##_alltoalls(team, dst, src, 2, 3, 2);                                    \
        for (int p = 0; p < tn; p++) for (int i = 0; i < 2; i++)                              \
            CHECK(dst[2 * (p * 2 + i)] == (T)(p * 3 + (3 * (tm * 2 + i)) % 11), #NAME " alltoalls %d.%d", p, i); \
    }                                                                                         \
    shmem_barrier_all();                                                                      \
    shmem_free(src), shmem_free(dst); }

#define RED_CHECK(NAME, T, OP, INIT, EXPECT) {                                                \
    if (tm >= 0) {                                                                            \
        for (int i = 0; i < N; i++) src[i] = (T)(INIT);                                       \
        shmem_##NAME##_##OP##_reduce(team, dst, src, N);                                      \
        for (int i = 0; i < N; i++) {                                                         \
            T e = (T)0;                                                                       \
            for (int p = 0; p < tn; p++) { int pe = p; (void)pe; T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME " " #OP " %d", i);                                       \
        }                                                                                     \
        shmem_##NAME##_##OP##_reduce(team, src, src, N);   /* in place */                    \
        for (int i = 0; i < N; i++) CHECK(src[i] == dst[i], #NAME " " #OP " in place %d", i); \
    }                                                                                         \
    shmem_barrier_all(); }
#define OPX_and(a, b) ((a) & (b))
#define OPX_or(a, b) ((a) | (b))
#define OPX_xor(a, b) ((a) ^ (b))
#define OPX_max(a, b) ((a) > (b) ? (a) : (b))
#define OPX_min(a, b) ((a) < (b) ? (a) : (b))
#define OPX_sum(a, b) ((a) + (b))
#define OPX_prod(a, b) ((a) * (b))
#define RED_PRE(T) int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team); \
    T *src = shmem_malloc(N * sizeof(T)), *dst = shmem_malloc(N * sizeof(T));
#define RED_POST shmem_free(src), shmem_free(dst);
#define RED_BIT(NAME, T) { RED_PRE(T)                                                          \
    RED_CHECK(NAME, T, and, ~((T)1 << ((tm + i) % 7)), ~((T)1 << ((pe + i) % 7)))            \
    RED_CHECK(NAME, T, or, (T)1 << ((tm + i) % 7), (T)1 << ((pe + i) % 7))                   \
    RED_CHECK(NAME, T, xor, (T)(tm * 5 + i), (T)(pe * 5 + i)) RED_POST }
#define RED_MM(NAME, T) { RED_PRE(T)                                                           \
    RED_CHECK(NAME, T, max, (tm * 7 + i) % 13, (pe * 7 + i) % 13)                            \
    RED_CHECK(NAME, T, min, (tm * 7 + i) % 13 + 1, (pe * 7 + i) % 13 + 1) RED_POST }
#define RED_AR(NAME, T) { RED_PRE(T)                                                           \
    RED_CHECK(NAME, T, sum, (tm + i) % 4, (pe + i) % 4)                                      \
    RED_CHECK(NAME, T, prod, (tm == i % tn) ? 2 : 1, (pe == i % tn) ? 2 : 1) RED_POST }

static void coll_on(shmem_team_t team)
{
    SHMEM_RMA_TYPES(COLL_TEST)
    SHMEM_REDUCE_BIT_TYPES(RED_BIT)
    SHMEM_REDUCE_MINMAX_TYPES(RED_MM)
    SHMEM_REDUCE_ARITH_TYPES(RED_AR)
}

/* Large vectors (the sliced reduction): odd lengths, in place and not,
 * every element checked. */
#define BIG_RED(NAME, T, OP, NEL, INIT, EXPECT) {                                              \
    int tn = shmem_team_n_pes(team), tm = shmem_team_my_pe(team);                             \
    size_t nel = (NEL);                                                                        \
    T *src = shmem_malloc(nel * sizeof(T)), *dst = shmem_malloc(nel * sizeof(T));             \
    if (tm >= 0) {                                                                            \
        for (size_t i = 0; i < nel; i++) src[i] = (T)(INIT), dst[i] = (T)-7;                  \
        shmem_##NAME##_##OP##_reduce(team, dst, src, nel);                                    \
        for (size_t i = 0; i < nel; i++) {                                                    \
            T e = (T)0;                                                                       \
            for (int p = 0; p < tn; p++) { T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME " big " #OP " %zu of %zu", i, nel);                      \
        }                                                                                     \
        shmem_##NAME##_##OP##_reduce(team, src, src, nel);                                    \
        for (size_t i = 0; i < nel; i++) CHECK(src[i] == dst[i], #NAME " big " #OP " in place %zu", i); \
    }                                                                                         \
    shmem_barrier_all();                                                                      \
    shmem_free(src), shmem_free(dst); }
static void big_red_on(shmem_team_t team)
{
    BIG_RED(long, long, sum, 100003, (long)tm * 1000003 + (long)i, (long)p * 1000003 + (long)i)
    BIG_RED(double, double, max, 20011, (double)((tm * 7 + i) % 13), (double)((p * 7 + i) % 13))
    BIG_RED(uchar, unsigned char, xor, 77777, (unsigned char)(tm * 5 + i), (unsigned char)(p * 5 + i))
    BIG_RED(int16, int16_t, min, 9001, (int16_t)((tm * 3 + i) % 101), (int16_t)((p * 3 + i) % 101))
    BIG_RED(complexd, double _Complex, sum, 3001, tm + (double)(i % 9) * _Complex_I, p + (double)(i % 9) * _Complex_I)
    BIG_RED(longdouble, long double, prod, 4099, (tm == (int)(i % (size_t)tn)) ? 3 : 1, (p == (int)(i % (size_t)tn)) ? 3 : 1)
}

static void t_coll(void)
{
    coll_on(SHMEM_TEAM_WORLD);
    big_red_on(SHMEM_TEAM_WORLD);
    shmem_team_t odd;   /* PEs 1, 3, 5, ...: a sub-team with a root other than PE 0 */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1, NULL, 0, &odd);
    coll_on(odd);
    big_red_on(odd);
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
    /* A team and its duplicate, back to back with no barrier between, roots
     * changing, some PEs slower: each team's collectives keep to themselves. */
    shmem_team_t dup;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup) == 0, "dup");
    static long iv, isum;
    static int ib[1];
    for (int k = 0; k < 100; k++) {
        if ((me + k) % 3 == 0) sched_yield();
        iv = me + k;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &isum, &iv, 1);
        CHECK(isum == (long)npes * (npes - 1) / 2 + (long)npes * k, "world sum %d: %ld", k, isum);
        ib[0] = me == k % npes ? k : -1;
        shmem_int_broadcast(dup, ib, ib, 1, k % npes);
        CHECK(ib[0] == k, "dup broadcast %d: %d", k, ib[0]);
        shmem_long_max_reduce(dup, &isum, &iv, 1);
        CHECK(isum == npes - 1 + k, "dup max %d: %ld", k, isum);
    }
    shmem_team_destroy(dup);
    /* mem forms and generic names */
    static char cs[64], cd[64 * 8];
    for (int i = 0; i < 64; i++) cs[i] = (char)(me + i);
    shmem_barrier_all();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, cd, cs, 13, 0);
    for (int i = 0; i < 13; i++) CHECK(cd[i] == (char)i, "broadcastmem %d", i);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, cd, cs, 5);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 5; i++) CHECK(cd[p * 5 + i] == (char)(p + i), "fcollectmem");
    shmem_alltoallmem(SHMEM_TEAM_WORLD, cd, cs, 3);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 3; i++) CHECK(cd[p * 3 + i] == (char)(p + me * 3 + i), "alltoallmem");
    shmem_collectmem(SHMEM_TEAM_WORLD, cd, cs, (size_t)(me % 2) * 2);
    for (int p = 0, o = 0; p < npes; o += (p % 2) * 2, p++)
        for (int i = 0; i < (p % 2) * 2; i++) CHECK(cd[o + i] == (char)(p + i), "collectmem");
    shmem_broadcastmem(SHMEM_TEAM_WORLD, cd, cs, 0, 0);   /* empty: nothing happens */
    static long ls[N], ld[N];
    for (int i = 0; i < N; i++) ls[i] = me + i;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, N);
    for (int i = 0; i < N; i++) CHECK(ld[i] == (long)npes * i + (long)npes * (npes - 1) / 2, "generic sum %d", i);
    /* sum/prod take complex generically */
    static double _Complex zs[3], zd[3];
    for (int i = 0; i < 3; i++) zs[i] = me + i * 1.0 * _Complex_I;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, zd, zs, 3);
    for (int i = 0; i < 3; i++)
        CHECK(creal(zd[i]) == npes * (npes - 1) / 2.0 && cimag(zd[i]) == (double)npes * i, "generic complex sum %d", i);
    static float _Complex fs[1], fd[1];
    fs[0] = 1.0f * _Complex_I;
    shmem_prod_reduce(SHMEM_TEAM_WORLD, fd, fs, 1);   /* i^npes */
    float _Complex e = 1;
    for (int p = 0; p < npes; p++) e *= 1.0f * _Complex_I;
    CHECK(fd[0] == e, "generic complex prod");
    shmem_sync_all();
    shmem_team_sync(SHMEM_TEAM_SHARED);
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "C11 shmem_sync(team)");
}

/* --- teams ------------------------------------------------------------------------------------------------- */
static void t_team(void)
{
    /* SHMEM_TEAM_SHARED: the PEs whose memory shmem_ptr reaches (every PE
     * on one node; the node's across nodes) */
    static int here;
    int nshared = 0;
    for (int p = 0; p < npes; p++) nshared += shmem_ptr(&here, p) != NULL;
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_SHARED) == nshared, "world/shared");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "invalid");
    /* SHMEM_TEAM_INVALID where the specification defines the outcome */
    shmem_team_t inv = SHMEM_TEAM_WORLD, inv2 = SHMEM_TEAM_WORLD;
    shmem_team_config_t cfg = {7};
    shmem_ctx_t ictx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &inv) != 0 && inv == SHMEM_TEAM_INVALID, "split of invalid");
    inv = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &inv, NULL, 0, &inv2) != 0 &&
          inv == SHMEM_TEAM_INVALID && inv2 == SHMEM_TEAM_INVALID, "split_2d of invalid");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config of invalid");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ictx) != 0 && ictx == SHMEM_CTX_INVALID, "create_ctx on invalid");
    shmem_team_destroy(SHMEM_TEAM_INVALID);   /* no operation */
    /* Invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE, no job end. */
    int bad[][3] = {{npes, 1, 1}, {-1, 1, 1}, {0, 1, 0}, {0, 1, npes + 1}, {0, 0, 2},
                    {npes - 1, 1, 2}, {0, -1, 2}, {npes - 1, -1, npes + 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inv = SHMEM_TEAM_WORLD;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[i][0], bad[i][1], bad[i][2], NULL, 0, &inv) != 0 &&
              inv == SHMEM_TEAM_INVALID, "split (%d, %d, %d) accepted", bad[i][0], bad[i][1], bad[i][2]);
    }
    /* A negative stride lists the parent's PEs downwards from start. */
    shmem_team_t rev, rev2, one;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0 && rev, "reverse split");
    CHECK(shmem_team_my_pe(rev) == npes - 1 - me && shmem_team_n_pes(rev) == npes, "reverse my_pe %d", shmem_team_my_pe(rev));
    CHECK(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD) == npes - 1 &&
          shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, rev) == npes - 1 - me, "reverse translate");
    static int rs[1], rd[64];
    rs[0] = me;
    shmem_int_fcollect(rev, rd, rs, 1);
    for (int p = 0; p < npes; p++) CHECK(rd[p] == npes - 1 - p, "reverse fcollect %d: %d", p, rd[p]);
    rs[0] = 100 + me;
    shmem_int_broadcast(rev, rd, rs, 1, 0);
    CHECK(rd[0] == 100 + npes - 1, "reverse broadcast %d", rd[0]);
    /* reversed again, every other one: world PEs 0, 2, 4, ... upwards */
    CHECK(shmem_team_split_strided(rev, npes - 1, -2, (npes + 1) / 2, NULL, 0, &rev2) == 0, "split of reverse");
    if (me % 2 == 0) CHECK(rev2 && shmem_team_my_pe(rev2) == me / 2, "reverse of reverse %d", shmem_team_my_pe(rev2));
    else CHECK(rev2 == SHMEM_TEAM_INVALID, "odd PE in the reverse of reverse");
    if (rev2) shmem_team_sync(rev2), shmem_team_destroy(rev2);
    shmem_team_destroy(rev);
    /* stride 0 with size 1: the one PE start */
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &one) == 0, "stride 0, size 1");
    CHECK(me == npes - 1 ? one && shmem_team_n_pes(one) == 1 && shmem_team_my_pe(one) == 0 : one == SHMEM_TEAM_INVALID, "team of one");
    if (one) shmem_team_destroy(one);
    /* the configuration given at the split is the one read back */
    shmem_team_t cfgd;
    cfg.num_contexts = 3;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &cfgd);
    cfg.num_contexts = -1;
    CHECK(shmem_team_get_config(cfgd, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 3, "num_contexts %d", cfg.num_contexts);
    shmem_team_destroy(cfgd);
    shmem_team_t evens, x, y;
    int ne = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &evens) == 0, "split");
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID && shmem_team_my_pe(evens) == me / 2 && shmem_team_n_pes(evens) == ne, "evens");
        CHECK(shmem_team_translate_pe(evens, ne - 1, SHMEM_TEAM_WORLD) == 2 * (ne - 1), "translate");
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, evens) == -1, "translate non-member");
        for (int i = 0; i < 20; i++) shmem_team_sync(evens);
        CHECK(shmem_team_ptr(evens, &gcounter, ne - 1) == shmem_ptr(&gcounter, 2 * (ne - 1)) &&
              shmem_team_ptr(evens, &gcounter, ne) == NULL, "team_ptr");
        /* a split of a split: every other even PE */
        shmem_team_t q;
        shmem_team_split_strided(evens, 0, 2, (ne + 1) / 2, NULL, 0, &q);
        if (me % 4 == 0) CHECK(q && shmem_team_my_pe(q) == me / 4, "quarter");
        else CHECK(q == SHMEM_TEAM_INVALID, "quarter non-member");
        if (q) shmem_team_destroy(q);
        shmem_team_destroy(evens);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID, "odd PE got a team");
    }
    int xr = npes >= 4 ? 2 : 1;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
    CHECK(shmem_team_my_pe(x) == me % xr && shmem_team_my_pe(y) == me / xr, "2d %d %d", shmem_team_my_pe(x), shmem_team_my_pe(y));
    CHECK(shmem_team_n_pes(y) == (npes - me % xr + xr - 1) / xr, "2d y size");
    static int xs[2], xd[2];
    xs[0] = me;
    shmem_int_sum_reduce(x, xd, xs, 1);
    int row = me / xr, e = 0;
    for (int p = row * xr; p < row * xr + xr && p < npes; p++) e += p;
    CHECK(xd[0] == e, "row sum %d != %d", xd[0], e);
    shmem_int_sum_reduce(y, xd, xs, 1);
    e = 0;
    for (int p = me % xr; p < npes; p += xr) e += p;
    CHECK(xd[0] == e, "column sum %d != %d", xd[0], e);
    shmem_team_destroy(x), shmem_team_destroy(y);
    /* xrange 3: a last, shorter row, and columns that differ in size by one */
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d by 3");
    int xn = npes - me / 3 * 3 < 3 ? npes - me / 3 * 3 : 3;
    CHECK(shmem_team_my_pe(x) == me % 3 && shmem_team_n_pes(x) == xn, "2d/3 x: %d of %d", shmem_team_my_pe(x), shmem_team_n_pes(x));
    CHECK(shmem_team_my_pe(y) == me / 3 && shmem_team_n_pes(y) == (npes - me % 3 + 2) / 3, "2d/3 y: %d of %d", shmem_team_my_pe(y), shmem_team_n_pes(y));
    for (int i = 0; i < shmem_team_n_pes(y); i++)
        CHECK(shmem_team_translate_pe(y, i, SHMEM_TEAM_WORLD) == me % 3 + 3 * i, "2d/3 column PE %d", i);
    shmem_team_destroy(x), shmem_team_destroy(y);
    /* xrange beyond the team: one row of all */
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, npes + 5, NULL, 0, &x, NULL, 0, &y) == 0 &&
          shmem_team_n_pes(x) == npes && shmem_team_my_pe(x) == me && shmem_team_n_pes(y) == 1, "split_2d wide");
    shmem_team_destroy(x), shmem_team_destroy(y);
    x = y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 &&
          x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d xrange 0");
    /* Teams created and destroyed without end: more than the 4096 groups
     * a PE may be in at once (COLL_GROUPS_MAX; in jobs of up to 2 PEs,
     * where a barrier is cheap; 8 PEs on 2 cores would take a minute). */
    for (int i = 0; i < (npes <= 2 ? 16384 + 100 : 300); i++) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        shmem_team_sync(t);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
}

/* --- collectives by generic name ------------------------------------------------------------------------- */
static void t_generic_coll(void)
{
    /* collectives and reductions by generic name */
    static short ss[N], sd[N * 64];
    static unsigned int uo[3], ur[3];
    static long double lr[2], lx[2];
    for (int i = 0; i < N; i++) ss[i] = (short)(me * 10 + i);
    uo[0] = 1u << me, uo[1] = ~(1u << me), uo[2] = (unsigned)me + 1;
    lx[0] = me + 1, lx[1] = -me;
    shmem_barrier_all();
    shmem_broadcast(SHMEM_TEAM_WORLD, sd, ss, N, npes - 1);
    for (int i = 0; i < N; i++) CHECK(sd[i] == (npes - 1) * 10 + i, "generic broadcast %d", i);
    shmem_fcollect(SHMEM_TEAM_WORLD, sd, ss, 2);
    for (int p = 0; p < npes; p++) CHECK(sd[2 * p] == p * 10 && sd[2 * p + 1] == p * 10 + 1, "generic fcollect %d", p);
    shmem_collect(SHMEM_TEAM_WORLD, sd, ss, (size_t)(me % 2));
    for (int p = 1, o2 = 0; p < npes; p += 2, o2++) CHECK(sd[o2] == p * 10, "generic collect %d", p);
    shmem_alltoall(SHMEM_TEAM_WORLD, sd, ss, 1);
    for (int p = 0; p < npes; p++) CHECK(sd[p] == p * 10 + me, "generic alltoall %d", p);
    shmem_alltoalls(SHMEM_TEAM_WORLD, sd, ss, 2, 1, 1);
    for (int p = 0; p < npes; p++) CHECK(sd[2 * p] == p * 10 + me, "generic alltoalls %d", p);
    unsigned all = 0, xr = 0;
    for (int p = 0; p < npes; p++) all |= 1u << p, xr ^= (unsigned)p + 1;
    shmem_or_reduce(SHMEM_TEAM_WORLD, ur, uo, 1);
    CHECK(ur[0] == all, "generic or_reduce %x", ur[0]);
    shmem_and_reduce(SHMEM_TEAM_WORLD, ur + 1, uo + 1, 1);
    CHECK(ur[1] == ~all, "generic and_reduce %x", ur[1]);
    shmem_xor_reduce(SHMEM_TEAM_WORLD, ur + 2, uo + 2, 1);
    CHECK(ur[2] == xr, "generic xor_reduce %x", ur[2]);
    shmem_max_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == npes && lr[1] == 0, "generic max_reduce");
    shmem_min_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == 1 && lr[1] == -(npes - 1), "generic min_reduce");
    shmem_prod_reduce(SHMEM_TEAM_WORLD, lr, lx, 1);
    long double f = 1;
    for (int p = 1; p <= npes; p++) f *= p;
    CHECK(lr[0] == f, "generic prod_reduce");
    shmem_sum_reduce(SHMEM_TEAM_WORLD, lr, lx, 2);
    CHECK(lr[0] == npes * (npes + 1) / 2 && lr[1] == -(npes * (npes - 1) / 2), "generic sum_reduce");
    shmem_barrier_all();
}

/* --- deprecated forms -------------------------------------------------------------------------------------------- */
static long psync[SHMEM_REDUCE_SYNC_SIZE];

/* Every deprecated *_to_all over an active set of every other PE (stride 2,
 * odd element counts), element by element; non-members skip it. */
#define TOALL_CHECK(NAME, T, OP, INIT, EXPECT) {                                              \
    static T src[N], dst[N], wrk[N];                                                         \
    if (me % 2 == 0) {                                                                       \
        int tm = me / 2;                                                                     \
        for (int i = 0; i < N; i++) src[i] = (T)(INIT);                                      \
        shmem_##NAME##_##OP##_to_all(dst, src, N, 0, 1, ne, wrk, psync);                    \
        for (int i = 0; i < N; i++) {                                                        \
            T e = (T)0;                                                                      \
            for (int p = 0; p < ne; p++) { T v = (T)(EXPECT); e = p ? (OPX_##OP(e, v)) : v; } \
            CHECK(dst[i] == e, #NAME "_" #OP "_to_all %d", i);                               \
        }                                                                                    \
    }                                                                                        \
    shmem_barrier_all(); }
#define TOALL_BIT(NAME, T) TOALL_CHECK(NAME, T, and, ~((T)1 << ((tm + i) % 7)), ~((T)1 << ((p + i) % 7))) \
    TOALL_CHECK(NAME, T, or, (T)1 << ((tm + i) % 7), (T)1 << ((p + i) % 7))                    \
    TOALL_CHECK(NAME, T, xor, tm * 5 + i, p * 5 + i)
#define TOALL_MM(NAME, T) TOALL_CHECK(NAME, T, max, (tm * 7 + i) % 13, (p * 7 + i) % 13)       \
    TOALL_CHECK(NAME, T, min, (tm * 7 + i) % 13 + 1, (p * 7 + i) % 13 + 1)
#define TOALL_AR(NAME, T) TOALL_CHECK(NAME, T, sum, (tm + i) % 4, (p + i) % 4)                 \
    TOALL_CHECK(NAME, T, prod, (tm == i % ne) ? 2 : 1, (p == i % ne) ? 2 : 1)
/* The deprecated collectives: active sets, *_to_all, psync forms. */
static void t_deprecated_coll(void)
{
    for (int i = 0; i < 10; i++) shmem_barrier(0, 0, npes, psync);
    int ne = (npes + 1) / 2;
    static int32_t s32[N], d32[N * 8];
    static int64_t s64[N], d64[N * 8];
    for (int i = 0; i < N; i++) s32[i] = me * 100 + i, s64[i] = -(me * 100 + i);
    memset(d32, 0, sizeof d32);
    shmem_barrier_all();
    if (me % 2 == 0) {
        shmem_barrier(0, 1, ne, psync);
        shmem_broadcast32(d32, s32, N, ne - 1, 0, 1, ne, psync);
        for (int i = 0; i < N; i++) CHECK(me == 2 * (ne - 1) ? d32[i] == 0 : d32[i] == (ne - 1) * 200 + i, "broadcast32 %d", i);
        shmem_fcollect64(d64, s64, 3, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 3; i++) CHECK(d64[p * 3 + i] == -(2 * p * 100 + i), "fcollect64");
        shmem_collect32(d32, s32, (size_t)(me / 2 + 1), 0, 1, ne, psync);
        for (int p = 0, o = 0; p < ne; o += ++p) for (int i = 0; i <= p; i++) CHECK(d32[o + i] == 2 * p * 100 + i, "collect32");
        static short ss[N], sd[N], pw[N];
        for (int i = 0; i < N; i++) ss[i] = (short)(me + i);
        shmem_short_max_to_all(sd, ss, N, 0, 1, ne, pw, psync);
        for (int i = 0; i < N; i++) CHECK(sd[i] == 2 * (ne - 1) + i, "short max_to_all %d", i);
    }
    shmem_barrier_all();
    static double ds[N], dd[N], dw[N];
    for (int i = 0; i < N; i++) ds[i] = me + 0.25 * i;
    shmem_double_sum_to_all(dd, ds, N, 0, 0, npes, dw, psync);
    for (int i = 0; i < N; i++) CHECK(dd[i] == npes * (npes - 1) / 2.0 + npes * 0.25 * i, "double sum_to_all %d", i);
    static long bs[5003], bd[5003], bw[5003];
    for (int i = 0; i < 5003; i++) bs[i] = me * 3 + i;
    shmem_long_sum_to_all(bd, bs, 5003, 0, 0, npes, bw, psync);
    for (int i = 0; i < 5003; i++) CHECK(bd[i] == 3L * npes * (npes - 1) / 2 + (long)npes * i, "long sum_to_all big %d", i);
    static long la[N], lb[N], lw[N];
    for (int i = 0; i < N; i++) la[i] = 1L << (me % 60);
    shmem_long_or_to_all(lb, la, N, 0, 0, npes, lw, psync);
    long all = 0;
    for (int p = 0; p < npes; p++) all |= 1L << (p % 60);
    for (int i = 0; i < N; i++) CHECK(lb[i] == all, "long or_to_all");
    shmem_alltoall64(d64, s64, 2, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++) for (int i = 0; i < 2; i++) CHECK(d64[p * 2 + i] == -(p * 100 + me * 2 + i), "alltoall64");
    /* shmem_sync with four arguments is the deprecated active-set form;
     * alltoalls64 over an active set; typed and untyped deprecated waits. */
    static long ps2[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < 5; i++) shmem_sync(0, 0, npes, ps2);
    memset(d64, 0, sizeof d64);
    shmem_barrier_all();
    shmem_alltoalls64(d64, s64, 3, 2, 1, 0, 0, npes, psync);
    for (int p = 0; p < npes; p++)
        CHECK(d64[3 * p] == -(p * 100 + 2 * me) && d64[3 * p + 1] == 0, "alltoalls64 %d", p);
    /* the other width of each active-set collective, over the even PEs */
    memset(d32, 0, sizeof d32), memset(d64, 0, sizeof d64);
    shmem_barrier_all();
    if (me % 2 == 0) {
        int tm = me / 2;
        shmem_broadcast64(d64, s64, N, 0, 0, 1, ne, psync);
        for (int i = 0; i < N; i++) CHECK(me == 0 ? d64[i] == 0 : d64[i] == -i, "broadcast64 %d", i);
        shmem_fcollect32(d32, s32, 3, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 3; i++) CHECK(d32[p * 3 + i] == 2 * p * 100 + i, "fcollect32");
        shmem_collect64(d64, s64, (size_t)(ne - tm), 0, 1, ne, psync);
        for (int p = 0, o = 0; p < ne; o += ne - p, p++)
            for (int i = 0; i < ne - p; i++) CHECK(d64[o + i] == -(2 * p * 100 + i), "collect64 %d.%d", p, i);
        shmem_alltoall32(d32, s32, 2, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) for (int i = 0; i < 2; i++) CHECK(d32[p * 2 + i] == 2 * p * 100 + tm * 2 + i, "alltoall32");
        memset(d32, 0, sizeof d32);
        shmem_alltoalls32(d32, s32, 2, 3, 1, 0, 1, ne, psync);
        for (int p = 0; p < ne; p++) CHECK(d32[2 * p] == 2 * p * 100 + 3 * tm && d32[2 * p + 1] == 0, "alltoalls32 %d", p);
        shmem_sync(0, 1, ne, psync);
    }
    shmem_barrier_all();
    SHMEM_TOALL_BIT_TYPES(TOALL_BIT)
    SHMEM_TOALL_MINMAX_TYPES(TOALL_MM)
    SHMEM_TOALL_ARITH_TYPES(TOALL_AR)
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : "";
    if (!strcmp(g, "deprecated")) start_pes(0);
    else shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"coll", t_coll}, {"team", t_team}, {"generic", t_generic_coll}, {"deprecated", t_deprecated_coll},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(g, groups[i].name) || !strcmp(g, "all")) groups[i].fn(), ran = 1;
    CHECK(ran, "unknown group '%s'", g);
    shmem_finalize();
    return 0;
}
