/* test_win.c: the engine's windows (rma.h, "Windows") against its own API,
 * with every rank of the job as a member and collectives made of the core's
 * barrier: creation of each kind, put and get with datatypes on both sides,
 * accumulate (an instruction, a compare-and-swap loop, the lock) and
 * compare-and-swap, on exposed memory and on a private mmap (the fallback
 * paths); fence, post/start/complete/wait, locks; dynamic windows; the
 * errors (no epoch, outside the window, conflicting epochs, assertions);
 * a member that fails creation makes all fail, none hangs; and windows run
 * out (RMA_WIN_MAX) for every member at once. */
#include <sys/mman.h>

#include "rma_test.h"

#define MAXN 8
#define EL 32                         /* int64 elements per member's part */
static char gather_buf[MAXN * 64];

/* The collectives over the whole job: publish, meet, read every rank's, meet. */
static sm_status_t gather(void *ctx, void *dst, const void *src, size_t len)
{
    (void)ctx;
    CHECK(len <= 64, "allgather of %zu bytes", len);
    memcpy(gather_buf, src, len);
    sm_barrier();
    for (int r = 0; r < n; r++) memcpy((char *)dst + r * len, sm_remote(r, gather_buf), len);
    sm_barrier();
    return SM_OK;
}
static sm_status_t barrier(void *ctx)
{
    (void)ctx;
    sm_barrier();
    return SM_OK;
}
static const struct rma_win_coll coll = { gather, barrier, NULL };

static void add_i64(void *out, const void *a, const void *b, size_t k)
{
    for (size_t i = 0; i < k; i++) ((int64_t *)out)[i] = ((const int64_t *)a)[i] + ((const int64_t *)b)[i];
}
static void mul_i64(void *out, const void *a, const void *b, size_t k)
{
    for (size_t i = 0; i < k; i++) ((int64_t *)out)[i] = ((const int64_t *)a)[i] * ((const int64_t *)b)[i];
}
/* 24-byte elements: three int64 added (no instruction, no CAS: the lock) */
static void add_3(void *out, const void *a, const void *b, size_t k) { add_i64(out, a, b, 3 * k); }

static struct dt_predef i64, tri;

static sm_status_t create(struct rma_win *w, enum rma_win_kind kind, void *base, uint64_t size, bool failed)
{
    struct sm_group all = { n, me, 0, 1, NULL };
    struct rma_win_args a = { &all, &coll, kind, base, size, sizeof(int64_t), true, failed };
    return rma_win_create(w, &a);
}

static int64_t val(int r, int i) { return r * 1000 + i; }
/* Element j of r's part after its put: block b = j / 4 holds r's elements
 * 2 * (2b) and 2 * (2b + 1); the rest of the block is a gap. */
static int64_t put_result(int r, int j) { return j % 4 < 2 ? val(r, 2 * (j / 4 * 2 + j % 4)) : -1; }

/* Put a strided half of ours into our part of the next rank's window, get
 * it back with another layout, accumulate, compare-and-swap. */
static void traffic(struct rma_win *w, int64_t *mem, const char *what)
{
    int t = (me + 1) % n, s = (me + n - 1) % n;
    int64_t out[EL], in[EL];
    for (int i = 0; i < EL; i++) out[i] = val(me, i);
    for (int i = 0; i < n * EL; i++) mem[i] = -1;
    struct dt_type *vec, *blk;   /* every other element; blocks of 2 every 4 */
    CHECK_ST(dt_hvector(EL / 2, 1, 16, &i64.t, &vec), SM_OK);
    CHECK_ST(dt_hvector(EL / 4, 2, 32, &i64.t, &blk), SM_OK);
    sm_barrier();
    CHECK_ST(rma_win_lock_all(w, 0), SM_OK);
    struct rma_target tg = { t, me * EL, 1, blk };            /* blocks of the target ... */
    struct rma_buf ob = { out, 1, vec };                      /* ... from our even elements */
    CHECK_ST(rma_win_put(w, &tg, &ob), SM_OK);
    CHECK_ST(rma_win_flush(w, t, false), SM_OK);
    memset(in, 0, sizeof in);
    struct rma_target tg2 = { t, me * EL, EL * sizeof(int64_t), NULL };   /* plain bytes */
    struct rma_buf ib = { in, EL, &i64.t };
    CHECK_ST(rma_win_get(w, &tg2, &ib), SM_OK);
    for (int j = 0; j < EL; j++)
        CHECK(in[j] == put_result(me, j), "%s: put/get element %d: %lld, not %lld", what, j, (long long)in[j],
              (long long)put_result(me, j));
    /* accumulate: add (instruction), mul (CAS loop) on the first elements */
    struct rma_acc_op add = { 8, RMA_NATIVE_ADD, add_i64 }, mul = { 8, RMA_NATIVE_NONE, mul_i64 };
    int64_t two[2] = { 2, 2 }, old[2];
    struct rma_target tg3 = { t, me * EL + 2, 2, &i64.t };
    struct rma_buf twob = { two, 2, &i64.t }, oldb = { old, 2, &i64.t };
    CHECK_ST(rma_win_accumulate(w, &tg3, &twob, &oldb, &add, &i64.t), SM_OK);
    CHECK(old[0] == -1 && old[1] == -1, "%s: fetched %lld %lld", what, (long long)old[0], (long long)old[1]);
    CHECK_ST(rma_win_accumulate(w, &tg3, &twob, NULL, &mul, &i64.t), SM_OK);
    int64_t cmp = 2, nv = 77, res = 0;
    CHECK_ST(rma_win_compare_swap(w, t, me * EL + 2, &nv, &cmp, &res, &i64.t), SM_OK);   /* (-1+2)*2 = 2 */
    CHECK(res == 2, "%s: compare_swap read %lld", what, (long long)res);
    /* three-element records: under the lock */
    struct rma_acc_op add3 = { 24, RMA_NATIVE_NONE, add_3 };
    int64_t rec[3] = { 1, 2, 3 };
    struct rma_target tg4 = { t, me * EL + 20, 1, &tri.t };
    struct rma_buf recb = { rec, 1, &tri.t };
    CHECK_ST(rma_win_accumulate(w, &tg4, &recb, NULL, &add3, &tri.t), SM_OK);
    CHECK_ST(rma_win_unlock_all(w), SM_OK);
    sm_barrier();
    int64_t *m = mem + s * EL;
    CHECK(m[2] == 77 && m[3] == 2, "%s: after add, mul, compare_swap: %lld %lld", what, (long long)m[2],
          (long long)m[3]);
    for (int j = 20; j < 23; j++)
        CHECK(m[j] == put_result(s, j) + j - 19, "%s: record element %d: %lld, not %lld", what, j, (long long)m[j],
              (long long)(put_result(s, j) + j - 19));
    dt_unref(vec);
    dt_unref(blk);
}

static void kinds(void)
{
    struct rma_win w;
    /* allocated */
    CHECK_ST(create(&w, RMA_WIN_ALLOCATE, NULL, (uint64_t)n * EL * 8, false), SM_OK);
    CHECK(w.peer[me].flags & RMA_PEER_DIRECT, "allocated memory is exposed");
    traffic(&w, w.base, "allocate");
    CHECK_ST(rma_win_free(&w), SM_OK);
    /* private memory: the fallback */
    int64_t *pm = mmap(NULL, (size_t)n * EL * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pm != MAP_FAILED, "mmap");
    CHECK_ST(create(&w, RMA_WIN_CREATE, pm, (uint64_t)n * EL * 8, false), SM_OK);
    CHECK(!(w.peer[me].flags & RMA_PEER_DIRECT), "a private mmap is not exposed");
    uint64_t sz;
    uint32_t du;
    CHECK(!rma_win_shared(&w, me, &sz, &du) && sz == 0, "no load/store access to private memory");
    traffic(&w, pm, "private mmap");
    CHECK_ST(rma_win_free(&w), SM_OK);
    munmap(pm, (size_t)n * EL * 8);
    /* shared, contiguous: member i's part follows member i-1's */
    CHECK_ST(create(&w, RMA_WIN_SHARED, NULL, 64 + 8 * (uint64_t)me, false), SM_OK);
    for (int r = 1; r < n; r++) {
        void *p = rma_win_shared(&w, r, &sz, &du), *q = rma_win_shared(&w, r - 1, &sz, &du);
        CHECK((char *)p == (char *)q + 64 + 8 * (r - 1), "shared part %d at %p, previous at %p", r, p, q);
    }
    CHECK_ST(rma_win_free(&w), SM_OK);
}

static void sync_modes(void)
{
    struct rma_win w;
    CHECK_ST(create(&w, RMA_WIN_ALLOCATE, NULL, 64, false), SM_OK);
    int64_t *mem = w.base, v = val(me, 0);
    int t = (me + 1) % n, s = (me + n - 1) % n;
    struct rma_target tg = { t, 0, 1, &i64.t };
    struct rma_buf b = { &v, 1, &i64.t };
    /* no epoch yet */
    CHECK_ST(rma_win_put(&w, &tg, &b), SM_ERR_STATE);
    CHECK_REASON("no access epoch to rank");
    /* fence */
    mem[0] = -1;
    CHECK_ST(rma_win_fence(&w, RMA_FENCE_NOPRECEDE), SM_OK);
    CHECK_ST(rma_win_put(&w, &tg, &b), SM_OK);
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_SHARED, 0), SM_ERR_STATE);   /* a fence epoch with operations */
    CHECK_ST(rma_win_fence(&w, RMA_FENCE_NOPRECEDE), SM_ERR_ARG);
    CHECK_REASON("MPI_MODE_NOPRECEDE");
    CHECK_ST(rma_win_fence(&w, RMA_FENCE_NOSUCCEED), SM_OK);
    CHECK(mem[0] == val(s, 0), "fence: %lld", (long long)mem[0]);
    CHECK_ST(rma_win_put(&w, &tg, &b), SM_ERR_STATE);
    /* post/start/complete/wait with the neighbours */
    v = val(me, 1);
    CHECK_ST(rma_win_post(&w, &s, 1, 0), SM_OK);
    CHECK_ST(rma_win_post(&w, &s, 1, 0), SM_ERR_STATE);
    CHECK_ST(rma_win_start(&w, &t, 1, 0), SM_OK);
    CHECK_ST(rma_win_put(&w, &tg, &b), SM_OK);
    if (n > 2) {
        struct rma_target other = { (me + 2) % n, 0, 1, &i64.t };
        CHECK_ST(rma_win_put(&w, &other, &b), SM_ERR_STATE);   /* not in the access group */
    }
    CHECK_ST(rma_win_fence(&w, 0), SM_ERR_STATE);
    CHECK_ST(rma_win_complete(&w), SM_OK);
    CHECK_ST(rma_win_complete(&w), SM_ERR_STATE);
    bool done = false;
    while (!done) CHECK_ST(rma_win_test(&w, &done), SM_OK);
    CHECK(mem[0] == val(s, 1), "pscw: %lld", (long long)mem[0]);
    CHECK_ST(rma_win_wait(&w), SM_ERR_STATE);
    sm_barrier();
    /* locks: exclusive, then shared; errors */
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_EXCLUSIVE, 0), SM_OK);
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_SHARED, 0), SM_ERR_STATE);
    CHECK_REASON("locked by this process already");
    CHECK_ST(rma_win_lock_all(&w, 0), SM_ERR_STATE);
    CHECK_ST(rma_win_flush(&w, s == t ? RMA_ALL : s, false), s == t ? SM_OK : SM_ERR_STATE);
    v = val(me, 2);
    CHECK_ST(rma_win_put(&w, &tg, &b), SM_OK);
    CHECK_ST(rma_win_flush(&w, t, false), SM_OK);
    CHECK_ST(rma_win_unlock(&w, t), SM_OK);
    CHECK_ST(rma_win_unlock(&w, t), SM_ERR_STATE);
    CHECK_ST(rma_win_flush(&w, RMA_ALL, true), SM_ERR_STATE);
    sm_barrier();
    CHECK(mem[0] == val(s, 2), "lock: %lld", (long long)mem[0]);
    /* outside the window, and a bad member */
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_SHARED, RMA_NOCHECK), SM_OK);
    struct rma_target far = { t, 8, 1, &i64.t }, neg = { t, -1, 1, &i64.t }, bad = { n, 0, 1, &i64.t };
    CHECK_ST(rma_win_put(&w, &far, &b), SM_ERR_ACCESS);
    CHECK_REASON("outside rank");
    CHECK_ST(rma_win_get(&w, &neg, &b), SM_ERR_ACCESS);
    CHECK_ST(rma_win_get(&w, &bad, &b), SM_ERR_ARG);
    CHECK_ST(rma_win_unlock(&w, t), SM_OK);
    /* freeing with a lock held: an error, but freed, and nobody hangs */
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_EXCLUSIVE, 0), SM_OK);
    CHECK_ST(rma_win_free(&w), SM_ERR_STATE);
    CHECK_REASON("freed anyway");
}

static void dynamic(void)
{
    struct rma_win w;
    CHECK_ST(create(&w, RMA_WIN_DYNAMIC, NULL, 0, false), SM_OK);
    static int64_t a[4];                  /* globals: exposed */
    int64_t *h = malloc(64);              /* heap */
    int64_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);   /* private */
    CHECK_ST(rma_win_attach(&w, a, sizeof a), SM_OK);
    CHECK_ST(rma_win_attach(&w, h, 64), SM_OK);
    CHECK_ST(rma_win_attach(&w, p, 4096), SM_OK);
    CHECK_ST(rma_win_attach(&w, a + 1, 8), SM_ERR_ARG);
    CHECK_REASON("overlaps");
    struct { uint64_t a, h, p; } mine = { (uintptr_t)a, (uintptr_t)h, (uintptr_t)p }, all[MAXN];
    gather(NULL, all, &mine, sizeof mine);
    int t = (me + 1) % n, s = (me + n - 1) % n;
    CHECK_ST(rma_win_lock_all(&w, 0), SM_OK);
    int64_t v[3] = { val(me, 1), val(me, 2), val(me, 3) };
    uint64_t at[3] = { all[t].a + 8, all[t].h + 16, all[t].p + 4000 };
    for (int i = 0; i < 3; i++) {
        struct rma_target tg = { t, (int64_t)at[i], 1, &i64.t };
        struct rma_buf b = { &v[i], 1, &i64.t };
        CHECK_ST(rma_win_put(&w, &tg, &b), SM_OK);
    }
    struct rma_target over = { t, (int64_t)(all[t].h + 60), 1, &i64.t };   /* runs past the region */
    struct rma_buf b = { v, 1, &i64.t };
    CHECK_ST(rma_win_put(&w, &over, &b), SM_ERR_ACCESS);
    CHECK_REASON("not in a region rank");
    CHECK_ST(rma_win_unlock_all(&w), SM_OK);
    sm_barrier();
    CHECK(a[1] == val(s, 1) && h[2] == val(s, 2) && p[500] == val(s, 3), "dynamic: %lld %lld %lld",
          (long long)a[1], (long long)h[2], (long long)p[500]);
    CHECK_ST(rma_win_detach(&w, h), SM_OK);
    CHECK_ST(rma_win_detach(&w, h), SM_ERR_ARG);
    sm_barrier();
    CHECK_ST(rma_win_lock(&w, t, RMA_LOCK_SHARED, 0), SM_OK);
    struct rma_target gone = { t, (int64_t)at[1], 1, &i64.t };
    CHECK_ST(rma_win_get(&w, &gone, &b), SM_ERR_ACCESS);
    CHECK_ST(rma_win_unlock(&w, t), SM_OK);
    CHECK_ST(rma_win_free(&w), SM_OK);
    free(h);
    munmap(p, 4096);
}

/* A member that fails makes every member fail; windows run out together. */
static void failures(void)
{
    struct rma_win w;
    CHECK_ST(create(&w, RMA_WIN_ALLOCATE, NULL, 8, me == n - 1), me == n - 1 ? SM_ERR_ARG : SM_ERR_PEER);
    if (me != n - 1) CHECK_REASON("could not create its part");
    static struct rma_win many[RMA_WIN_MAX + 1];   /* (the last one fails) */
    int k = 0;
    sm_status_t st;
    while ((st = create(&many[k], RMA_WIN_CREATE, NULL, 0, false)) == SM_OK) k++;
    CHECK(st == SM_ERR_NOMEM || st == SM_ERR_PEER, "out of windows: %s", sm_status_name(st));
    CHECK(k == RMA_WIN_MAX, "%d windows made, not %d", k, RMA_WIN_MAX);
    while (k--) CHECK_ST(rma_win_free(&many[k]), SM_OK);
}

int main(void)
{
    test_start();
    CHECK(n <= MAXN, "at most %d ranks", MAXN);
    dt_predef_init(&i64, 1, 8, 8, 8, 0, 0);
    dt_predef_init(&tri, 2, 24, 8, 24, 0, 0);
    kinds();
    sync_modes();
    dynamic();
    failures();
    sm_barrier();
    if (me == 0) printf("rma_win: ok on %d ranks\n", n);
    return 0;
}
