/* The collective engine's own API on groups given by start/stride (the job,
 * its reverse, every other rank) and by table (a shuffled subset), and on
 * active sets: barrier (no member leaves early), broadcast, allgather,
 * collect, alltoall(s), and reduce/allreduce for every (type, op) against
 * the serial reference, in place and not, small (serial) and large (sliced);
 * buffers peers cannot reach directly; back-to-back collectives with varying
 * roots and sizes while ranks run at different speeds; collectives on two
 * groups at once from two threads; mismatched calls; members that read no
 * record running ahead. Usage: test_coll
 * [basic|reduce|private|stress|threads|mismatch|ahead|ahead_scatter|scanahead|scandeep|scanmix|lean|rslean|movelean|recfree|crowded|carry|direct|mate|all] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "coll_internal.h"   /* COLL_INLINE */
#include "ref.h"

static int me, n;
static _Atomic uint32_t bar_count[16];   /* barrier checks: the copy in a group's first member counts */

#define OK(call) do { sm_status_t st_ = (call); CHECK(st_ == SM_OK, "%s: %s", #call, sm_fail_reason()); } while (0)

static unsigned char pattern(int member, size_t j) { return (unsigned char)(member * 31 + j * 7 + 1); }

/* Groups: every rank of the job is in the creation; gi names the counter. */
#define NGROUPS 5
static struct coll_group world, groups[NGROUPS];
static const char *gname[NGROUPS] = { "job", "reverse", "evens", "odds", "shuffled" };
static int shuffled[SM_NMAX];

static void make_groups(void)
{
    struct sm_group all = { n, me, 0, 1, NULL };
    OK(coll_group_create(&world, &all, NULL));
    struct sm_group m[NGROUPS] = {
        all,
        { n, n - 1 - me, n - 1, -1, NULL },
        { (n + 1) / 2, me % 2 ? -1 : me / 2, 0, 2, NULL },
        { n / 2, me % 2 ? me / 2 : -1, 1, 2, NULL },
        { 0, -1, 0, 0, shuffled },
    };
    /* shuffled: the odd ranks downwards, then the even ones upwards, without rank 1 when n > 2 */
    int k = 0;
    for (int r = n - 1; r >= 0; r--) if (r % 2 && !(r == 1 && n > 2)) shuffled[k++] = r;
    for (int r = 0; r < n; r += 2) shuffled[k++] = r;
    m[4].size = k;
    for (int i = 0; i < k; i++) if (shuffled[i] == me) m[4].me = i;
    for (int g = 0; g < NGROUPS; g++) {
        OK(coll_group_create(&groups[g], &m[g], &world));
        CHECK((groups[g].num >= 0) == (m[g].me >= 0), "%s: membership", gname[g]);
        for (int i = 0; i < m[g].size; i++) CHECK(coll_group_index(&groups[g], sm_group_rank(&m[g], i)) == i, "index");
    }
    /* every group a member is in has its own number */
    for (int a = 0; a < NGROUPS; a++)
        for (int b = a + 1; b < NGROUPS; b++)
            if (groups[a].num >= 0 && groups[b].num >= 0) CHECK(groups[a].num != groups[b].num, "numbers %d %d", a, b);
}

/* No member leaves before all have entered: the count in the first member
 * grows by the group's size each round, and a member that left early would
 * see fewer (or a peer would see it two rounds ahead). */
static void barrier_check(struct coll_group *g, int gi, int rounds)
{
    int sz = g->m.size;
    _Atomic uint32_t *c = sm_remote(sm_group_rank(&g->m, 0), (void *)&bar_count[gi]);
    uint32_t base = atomic_load(c);
    OK(coll_barrier(g));            /* everyone has read base */
    base = base - base % (uint32_t)sz;
    for (int k = 0; k < rounds; k++) {
        atomic_fetch_add(c, 1);
        if ((k + me) % 7 == 0) sched_yield();          /* some arrive late */
        OK(coll_barrier(g));
        uint32_t v = atomic_load(c) - base;
        CHECK(v >= (uint32_t)(k + 1) * sz && v < (uint32_t)(k + 2) * sz, "barrier round %d: count %u of %d members", k, v, sz);
    }
    OK(coll_barrier(g));
}

static const size_t sizes[] = { 0, 1, 13, 4099, (1 << 20) + 5 };
#define NSIZES (sizeof sizes / sizeof *sizes)

static void bcast_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    size_t big = sizes[NSIZES - 1];
    unsigned char *buf = malloc(big + 1), *src = malloc(big + 1);
    for (int root = 0; root < sz; root++)
        for (size_t s = 0; s < NSIZES; s++) {
            size_t len = sizes[s];
            if (len > 5000 && root != sz - 1 && root != 0) continue;   /* large from two roots */
            for (size_t j = 0; j < len; j++) buf[j] = i == root ? pattern(root, j) : 0xee;
            buf[len] = 0x77;
            OK(coll_bcast(g, buf, buf, len, root));
            for (size_t j = 0; j < len; j++) CHECK(buf[j] == pattern(root, j), "bcast root %d len %zu [%zu] = %d", root, len, j, buf[j]);
            CHECK(buf[len] == 0x77, "bcast wrote past %zu bytes", len);
            /* dst apart from src at the root, and a root that keeps its dst (dst NULL) */
            memset(buf, 0xee, len);
            for (size_t j = 0; j < len; j++) src[j] = pattern(root + 1, j);
            OK(coll_bcast(g, buf, src, len, root));
            for (size_t j = 0; j < len; j++) CHECK(buf[j] == pattern(root + 1, j), "bcast apart [%zu]", j);
            memset(buf, 0xee, len);
            OK(coll_bcast(g, i == root ? NULL : buf, src, len, root));
            for (size_t j = 0; j < len; j++) CHECK(buf[j] == (i == root ? 0xee : pattern(root + 1, j)), "bcast NULL dst [%zu]", j);
        }
    free(buf), free(src);
}

static void gather_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    for (size_t s = 0; s < NSIZES - 1; s++) {
        size_t len = sizes[s];
        unsigned char *dst = malloc(len * (size_t)sz + 1), *src = malloc(len + 1);
        for (size_t j = 0; j < len; j++) src[j] = pattern(i, j);
        memset(dst, 0xee, len * (size_t)sz);
        OK(coll_allgather(g, dst, src, len));
        for (int p = 0; p < sz; p++)
            for (size_t j = 0; j < len; j++) CHECK(dst[p * len + j] == pattern(p, j), "allgather %zu from %d [%zu]", len, p, j);
        /* in place: this member's block is already in dst */
        memset(dst, 0xee, len * (size_t)sz);
        memcpy(dst + (size_t)i * len, src, len);
        OK(coll_allgather(g, dst, dst + (size_t)i * len, len));
        for (int p = 0; p < sz; p++)
            for (size_t j = 0; j < len; j++) CHECK(dst[p * len + j] == pattern(p, j), "allgather in place");
        free(dst), free(src);
    }
    /* collect: member p gives (p % 3) * 5 bytes (some none), concatenated in member order */
    size_t total = 0, mylen = (size_t)(i % 3) * 5;
    for (int p = 0; p < sz; p++) total += (size_t)(p % 3) * 5;
    unsigned char src[16], *dst = malloc(total + 1);
    for (size_t j = 0; j < mylen; j++) src[j] = pattern(i, j);
    dst[total] = 0x77;
    OK(coll_collect(g, dst, src, mylen));
    for (int p = 0, o = 0; p < sz; o += (p % 3) * 5, p++)
        for (int j = 0; j < (p % 3) * 5; j++) CHECK(dst[o + j] == pattern(p, (size_t)j), "collect from %d [%d]", p, j);
    CHECK(dst[total] == 0x77, "collect wrote past the end");
    free(dst);
}

static void alltoall_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    size_t lens[] = { 0, 3, 1000 };
    for (size_t s = 0; s < 3; s++) {
        size_t len = lens[s];
        unsigned char *src = malloc(len * (size_t)sz + 1), *dst = malloc(len * (size_t)sz + 1);
        for (int p = 0; p < sz; p++) for (size_t j = 0; j < len; j++) src[p * len + j] = pattern(i * 16 + p, j);
        memset(dst, 0xee, len * (size_t)sz);
        OK(coll_alltoalls(g, dst, src, 1, 1, len ? len : 1, len ? 1 : 0));
        for (int p = 0; p < sz; p++)
            for (size_t j = 0; j < len; j++) CHECK(dst[p * len + j] == pattern(p * 16 + i, j), "alltoall %zu from %d", len, p);
        free(src), free(dst);
    }
    /* strided: 5 ints per block, source stride 3, destination stride 2 */
    int *src = malloc(sizeof(int) * 15 * (size_t)sz), *dst = malloc(sizeof(int) * 10 * (size_t)sz);
    for (int k = 0; k < 15 * sz; k++) src[k] = i * 100000 + k;
    for (int k = 0; k < 10 * sz; k++) dst[k] = -1;
    OK(coll_alltoalls(g, dst, src, 2, 3, sizeof(int), 5));
    for (int p = 0; p < sz; p++)
        for (int e = 0; e < 5; e++) {
            CHECK(dst[p * 10 + e * 2] == p * 100000 + i * 15 + e * 3, "alltoalls from %d elem %d: %d", p, e, dst[p * 10 + e * 2]);
            CHECK(dst[p * 10 + e * 2 + 1] == -1, "alltoalls wrote a gap");
        }
    CHECK(coll_alltoalls(g, dst, src, 0, 3, sizeof(int), 5) == SM_ERR_ARG, "stride 0 refused");
    free(src), free(dst);
}

/* One reduction of count elements against the reference; root COLL_ALL or a member. */
static void reduce_one(struct coll_group *g, enum coll_dtype t, enum coll_redop op, size_t count, int root,
                       bool in_place, void *(*alloc)(size_t), void (*release)(void *, size_t))
{
    int sz = g->m.size, i = g->m.me;
    size_t es = coll_dtype_size(t), len = count * es;
    char *src = alloc(len + es), *dst = in_place ? src : alloc(len + es), *want = malloc(es), *x = malloc(es);
    char s1[80], s2[80];
    for (size_t e = 0; e < count; e++) ref_value(t, src + e * es, i, e);
    if (!in_place) memset(dst, 0xee, len + es);
    bool at_root = root == COLL_ALL || root == i;
    OK(coll_reduce(g, at_root ? dst : NULL, src, count, t, op, root));
    if (at_root)
        for (size_t e = 0; e < count; e++) {
            ref_value(t, want, 0, e);
            for (int p = 1; p < sz; p++) {
                ref_value(t, x, p, e);
                ref_apply(t, op, want, want, x);
            }
            CHECK(ref_equal(t, dst + e * es, want), "%s %s count %zu root %d%s [%zu]: got %s want %s",
                  coll_redop_name(op), coll_dtype_name(t), count, root, in_place ? " in place" : "", e,
                  ref_show(t, dst + e * es, s1, sizeof s1), ref_show(t, want, s2, sizeof s2));
        }
    else if (!in_place)
        for (size_t b = 0; b < len; b++) CHECK((unsigned char)dst[b] == 0xee, "a non-root's dst was written");
    release(src, len + es);
    if (!in_place) release(dst, len + es);
    free(want), free(x);
}

static void *heap_alloc(size_t len) { return malloc(len); }
static void heap_free(void *p, size_t len) { (void)len; free(p); }
/* Memory no peer can reach directly: the engine must go through the copy engine. */
static void *private_alloc(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED && !sm_exposed(p), "a private mapping");
    return p;
}
static void private_free(void *p, size_t len) { munmap(p, len); }

/* Every (type, op), all-reduce and to the last member, small and sliced. */
static void reduce_all_kinds(struct coll_group *g, bool every_kind)
{
    int sz = g->m.size;
    for (int t = 0; t < COLL_DTYPE_COUNT; t++)
        for (int op = 0; op < COLL_REDOP_COUNT; op++) {
            if (!coll_kernel((enum coll_dtype)t, (enum coll_redop)op)) continue;
            if (!every_kind && t != COLL_INT32 && t != COLL_DOUBLE_INT && t != COLL_UINT8 && t != COLL_LDOUBLE) continue;
            size_t es = coll_dtype_size((enum coll_dtype)t), big = 3 * 8192 / es + 5;
            reduce_one(g, (enum coll_dtype)t, (enum coll_redop)op, 7, COLL_ALL, false, heap_alloc, heap_free);
            reduce_one(g, (enum coll_dtype)t, (enum coll_redop)op, big, COLL_ALL, false, heap_alloc, heap_free);
            reduce_one(g, (enum coll_dtype)t, (enum coll_redop)op, 7, sz - 1, false, heap_alloc, heap_free);
            reduce_one(g, (enum coll_dtype)t, (enum coll_redop)op, big, sz - 1, false, heap_alloc, heap_free);
        }
    /* in place, at every root and for all, small and sliced */
    for (int root = COLL_ALL; root < sz; root++) {
        reduce_one(g, COLL_INT64, COLL_SUM, 11, root, true, heap_alloc, heap_free);
        reduce_one(g, COLL_DOUBLE, COLL_MAX, 9000, root, true, heap_alloc, heap_free);
        reduce_one(g, COLL_2INT, COLL_MINLOC, 3000, root, true, heap_alloc, heap_free);
    }
    reduce_one(g, COLL_INT32, COLL_SUM, 0, COLL_ALL, false, heap_alloc, heap_free);
    CHECK(coll_reduce(g, NULL, NULL, 1, COLL_DOUBLE, COLL_BAND, COLL_ALL) == SM_ERR_ARG, "band on double refused");
}

static void private_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    size_t len = 70000;
    unsigned char *buf = private_alloc(len * (size_t)sz);
    for (int root = 0; root < sz; root += sz > 1 ? sz - 1 : 1) {
        for (size_t j = 0; j < len; j++) buf[j] = i == root ? pattern(root, j) : 0;
        OK(coll_bcast(g, buf, buf, len, root));
        for (size_t j = 0; j < len; j++) CHECK(buf[j] == pattern(root, j), "private bcast [%zu]", j);
    }
    unsigned char *src = private_alloc(len);
    for (size_t j = 0; j < len; j++) src[j] = pattern(i, j);
    OK(coll_allgather(g, buf, src, len));
    for (int p = 0; p < sz; p++) for (size_t j = 0; j < len; j += 97) CHECK(buf[p * len + j] == pattern(p, j), "private allgather");
    private_free(src, len);
    private_free(buf, len * (size_t)sz);
    reduce_one(g, COLL_INT32, COLL_SUM, 7, COLL_ALL, false, private_alloc, private_free);
    reduce_one(g, COLL_INT32, COLL_SUM, 20000, COLL_ALL, false, private_alloc, private_free);
    reduce_one(g, COLL_DOUBLE, COLL_MIN, 20000, 0, false, private_alloc, private_free);
    reduce_one(g, COLL_FLOAT, COLL_PROD, 5, sz - 1, true, private_alloc, private_free);
}

/* Back to back, roots and sizes changing, no barrier between, some members
 * slower than others: a fast member's next record must not confuse a slow
 * member still in the previous collective. */
static void stress(struct coll_group *g, int rounds, unsigned seed)
{
    int sz = g->m.size, i = g->m.me;
    long acc[300], out[300];
    unsigned char b[3000];
    for (int k = 0; k < rounds; k++) {
        unsigned r = seed + (unsigned)k * 2654435761u;
        int root = (int)(r % (unsigned)sz);
        size_t cnt = 1 + r % 300, blen = r % 3000;
        if ((unsigned)(i + k) % 5 == 0) for (int y = 0; y < 3; y++) sched_yield();
        for (size_t j = 0; j < cnt; j++) acc[j] = (long)(i + 1) * (long)(j + (size_t)k);
        OK(coll_reduce(g, out, acc, cnt, COLL_INT64, COLL_SUM, (k % 3) ? COLL_ALL : root));
        if ((k % 3) || i == root)
            for (size_t j = 0; j < cnt; j++) CHECK(out[j] == (long)sz * (sz + 1) / 2 * (long)(j + (size_t)k), "stress sum %d", k);
        for (size_t j = 0; j < blen; j++) b[j] = i == root ? pattern(k, j) : 0;
        OK(coll_bcast(g, b, b, blen, root));
        for (size_t j = 0; j < blen; j++) CHECK(b[j] == pattern(k, j), "stress bcast %d", k);
        if (k % 4 == 0) OK(coll_barrier(g));
    }
}

/* Two groups of the same members at once, each driven by its own thread. */
struct th { struct coll_group *g; int rounds; unsigned seed; };
static void *driver(void *arg)
{
    struct th *t = arg;
    stress(t->g, t->rounds, t->seed);
    return NULL;
}

static void threads_check(void)
{
    struct coll_group dup;
    struct sm_group all = { n, me, 0, 1, NULL };
    OK(coll_group_create(&dup, &all, &world));
    CHECK(dup.num != world.num, "a dup has its own number");
    pthread_t t1;
    struct th a = { &world, 150, 1 }, b = { &dup, 150, 7 };
    CHECK(pthread_create(&t1, NULL, driver, &a) == 0, "thread");
    driver(&b);
    pthread_join(t1, NULL);
    coll_group_destroy(&dup);
}

/* Active sets: every rank, and every other rank, in turn; state made per call. */
static void aset_check(void)
{
    for (int k = 0; k < 40; k++) {
        struct coll_group a;
        int logstride = k % 2, size = logstride ? (n + 1) / 2 : n;
        coll_group_aset(&a, 0, logstride, size);
        if (a.m.me < 0) continue;
        long v = a.m.me + k, sum;
        OK(coll_reduce(&a, &sum, &v, 1, COLL_INT64, COLL_SUM, COLL_ALL));
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * k, "active set sum %ld", sum);
        int x = a.m.me == size - 1 ? k : -1;
        OK(coll_bcast(&a, &x, &x, sizeof x, size - 1));
        CHECK(x == k, "active set bcast %d", x);
        int all[SM_NMAX];
        OK(coll_allgather(&a, all, &v, sizeof(int)));
        OK(coll_barrier(&a));
    }
    struct coll_group a;
    coll_group_aset(&a, 0, 0, n);
    barrier_check(&a, 15, 30);
}

/* Members that disagree are told so where they can see it, and the group
 * still works after. */
static void mismatch_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    if (sz < 2) return;
    long v = 1, out;
    sm_status_t st = coll_reduce(g, &out, &v, 1, COLL_INT64, i == sz - 1 ? COLL_MAX : COLL_SUM, COLL_ALL);
    CHECK(st == SM_ERR_MISMATCH, "different ops: %d", st);
    CHECK(strstr(sm_fail_reason(), "member") != NULL, "reason: %s", sm_fail_reason());
    /* a broadcast: the reader that expects another size is told */
    char buf[1024];
    for (int big = 0; big < 2; big++) {
        st = coll_bcast(g, buf, buf, (size_t)(i == 1 ? 8 : 16) * (big ? 25 : 1), 0);
        CHECK(i == 1 ? st == SM_ERR_TRUNCATE : st == SM_OK, "bcast of other sizes: member %d got %d", i, st);
    }
    st = coll_allgather(g, buf, buf, i == 0 ? 2 : 1);
    CHECK(st == SM_ERR_TRUNCATE, "allgather of other sizes: %d", st);
    st = coll_alltoalls(g, buf, buf + 512, 1, 1, i == 0 ? 2 : 1, 1);
    CHECK(st == SM_ERR_TRUNCATE, "alltoall of other sizes: %d", st);
    /* reductions to a root: the root sees every member's call; the others,
     * which read no record, check the next member's later (so the two
     * around the odd one see it too, at their next collective: by the end
     * of a barrier, which reads the next member's record, it is done) */
    st = coll_reduce(g, i == 0 ? &out : NULL, &v, 1, i == sz - 1 ? COLL_INT32 : COLL_INT64, COLL_SUM, 0);
    CHECK(i == 0 ? st == SM_ERR_MISMATCH : st == SM_OK, "reduce of other types: member %d got %d", i, st);
    bool late = i != 0 && i >= sz - 2;
    st = coll_barrier(g);
    CHECK(late ? st == SM_ERR_MISMATCH && strstr(sm_fail_reason(), "the collective before this one") &&
                     strstr(sm_fail_reason(), "a reduce (sum on int")
               : st == SM_OK,
          "the barrier after the reduce of other types: member %d got %d (%s)", i, st, late ? sm_fail_reason() : "");
    /* every member its own root: nobody reads a record, each sees the next
     * member's at its next collective (any kind), which names the earlier one */
    char b8[8] = { 0 }, blocks[8 * SM_NMAX] = { 0 };
    st = coll_bcast(g, b8, b8, sizeof b8, i);
    CHECK(st == SM_OK, "bcast, every member its own root: member %d got %d at the call", i, st);
    st = coll_barrier(g);
    CHECK(st == SM_ERR_MISMATCH && strstr(sm_fail_reason(), "a broadcast with root"),
          "bcast, every member its own root: member %d got %d at the barrier after (%s)", i, st, sm_fail_reason());
    struct coll_args sa = { .kind = COLL_SCATTER, .root = i, .src = { blocks, 8 }, .dst = { b8, 8 } };
    OK(coll_run(g, &sa));
    st = coll_reduce(g, &out, &v, 1, COLL_INT64, COLL_SUM, COLL_ALL);
    CHECK(st == SM_ERR_MISMATCH && strstr(sm_fail_reason(), "a scatter with root"),
          "scatter, every member its own root: member %d got %d at the allreduce after (%s)", i, st, sm_fail_reason());
    /* members that disagree on the root: both roots see it */
    st = coll_reduce(g, i <= 1 ? &out : NULL, &v, 1, COLL_INT64, COLL_SUM, i == 1 ? 1 : 0);
    CHECK(i <= 1 ? st == SM_ERR_MISMATCH : st == SM_OK, "different roots: member %d got %d", i, st);
    OK(coll_reduce(g, &out, &v, 1, COLL_INT64, COLL_SUM, COLL_ALL));
    CHECK(out == sz, "after the mismatches: %ld", out);
    CHECK(coll_bcast(g, buf, buf, 1, sz) == SM_ERR_ARG, "bad root");
}

/* A member that reads no record does not wait for the next member: a
 * small broadcast's root, and a small gather's other members, run
 * COLL_RECS - 1 calls before any other member has begun one. (Programs may
 * not count on it; this test does, so it hangs if such members wait.) */
static _Atomic int go;          /* a phase: written by the member that ran ahead */

static void release_others(struct coll_group *g, int phase)
{
    for (int k = 0; k < g->m.size; k++) {
        if (k == g->m.me) continue;
        /* never lowered: another group's member may have released it further already */
        _Atomic int *p = sm_remote(sm_group_rank(&g->m, k), (const void *)&go);
        int v = atomic_load(p);
        while (v < phase && !atomic_compare_exchange_weak(p, &v, phase)) {}
    }
}

static void ahead_check(struct coll_group *g, int phase)
{
    int sz = g->m.size, i = g->m.me;
    enum { K = COLL_RECS - 1 };
    static long b[K], blocks[K][SM_NMAX];
    if (sz < 2) return;
    /* broadcasts from member 0 */
    for (int k = 0; k < K; k++) b[k] = i == 0 ? 1000 * phase + k : -1;
    if (i != 0)
        while (atomic_load(&go) < phase) sched_yield();
    for (int k = 0; k < K; k++) OK(coll_bcast(g, &b[k], &b[k], sizeof b[k], 0));
    if (i == 0) release_others(g, phase);
    for (int k = 0; k < K; k++) CHECK(b[k] == 1000 * phase + k, "bcast %d ahead: %ld", k, b[k]);
    /* (by its end, every check deferred before is done: a member runs at
     * most COLL_RECS collectives past the first that another has not) */
    OK(coll_barrier(g));
    /* gathers to member 0, member 1 first */
    for (int k = 0; k < K; k++) b[k] = 100 * i + k;
    if (i != 1)
        while (atomic_load(&go) < phase + 1) sched_yield();
    for (int k = 0; k < K; k++) OK(coll_run(g, &(struct coll_args){ .kind = COLL_GATHER, .root = 0, .src = { &b[k], sizeof b[k] },
                                                                     .dst = { blocks[k], sizeof b[k] } }));
    if (i == 1) release_others(g, phase + 1);
    for (int k = 0; k < K && i == 0; k++)
        for (int j = 0; j < sz; j++) CHECK(blocks[k][j] == 100 * j + k, "gather %d ahead: block %d is %ld", k, j, blocks[k][j]);
    OK(coll_barrier(g));
}

/* A broadcast's root runs ahead of the others until it needs a record
 * back: the one it used COLL_RECS calls before, free once every member has
 * checked that call (sched.c record_free, which keeps the least checked
 * word it has seen of its peers so as not to read them at every call).
 * The root begins 3 * COLL_RECS calls alone, the others COLL_RECS - 1 calls
 * later, the last of them pausing on the way: had the root rewritten a
 * record some member had still to read, that member would find the record
 * of a later call (the mismatch error) or its value. */
static void recfree_check(struct coll_group *g, int phase)
{
    int sz = g->m.size, i = g->m.me;
    enum { K = 3 * COLL_RECS };
    static long b[K];
    if (sz < 2) return;
    for (int k = 0; k < K; k++) b[k] = i == 0 ? 1000 * phase + k : -1;
    if (i != 0)
        while (atomic_load(&go) < phase) sched_yield();
    for (int k = 0; k < K; k++) {
        if (i == 0 && k == COLL_RECS - 1) release_others(g, phase);
        if (i == sz - 1 && k % COLL_RECS == COLL_RECS / 2) usleep(2000);
        OK(coll_bcast(g, &b[k], &b[k], sizeof b[k], 0));
    }
    for (int k = 0; k < K; k++) CHECK(b[k] == 1000 * phase + k, "bcast %d of a root ahead: %ld", k, b[k]);
    OK(coll_barrier(g));
}

/* A small scatter's root runs ahead as a broadcast's does: its blocks for
 * the others travel in its record, its own left out, so with b bytes a
 * block where (n - 1) * b fits the record and n * b would not, it never
 * needs the bounce buffer (whose part is free only once every peer has
 * finished the collective COLL_BOUNCES before: before the own block was
 * left out, the root waited there for members that had not begun). Each
 * root also changes its buffer as soon as a call returns, and the roots
 * rotate after that: the blocks are those of the call. */
static void ahead_scatter_check(struct coll_group *g, int phase)
{
    int sz = g->m.size, i = g->m.me;
    enum { K = COLL_RECS - 1 };
    static unsigned char src[COLL_INLINE * 2], dst[K][COLL_INLINE + 8];
    if (sz < 2) return;
    size_t b = COLL_INLINE / (size_t)(sz - 1);
    CHECK(b * (size_t)sz > COLL_INLINE, "%zu bytes a block on %d members fit the record anyway", b, sz);
    memset(dst, 0xee, sizeof dst);
    if (i != 0)
        while (atomic_load(&go) < phase) sched_yield();
    for (int k = 0; k < K; k++) {
        if (i == 0)
            for (size_t j = 0; j < b * (size_t)sz; j++) src[j] = (unsigned char)(k * 31 + j);
        OK(coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = 0, .src = { i == 0 ? src : NULL, b },
                                            .dst = { dst[k], b } }));
        if (i == 0) memset(src, 0xff, sizeof src);         /* at once: the call is over */
    }
    if (i == 0) release_others(g, phase);
    for (int k = 0; k < K; k++)
        for (size_t j = 0; j < b; j++)
            CHECK(dst[k][j] == (unsigned char)(k * 31 + (size_t)i * b + j), "scatter %d ahead: byte %zu is %u", k, j,
                  dst[k][j]);
    CHECK(dst[0][b] == 0xee, "scatter ahead: past the block");
    OK(coll_barrier(g));
    /* then back to back with the roots rotating and the sizes varying
     * (record, bounce buffer, in place), each root's buffer rewritten at once */
    for (int k = 0; k < 3 * K; k++) {
        int root = k % sz;
        size_t len = (size_t[]){ 1, b, COLL_INLINE, 700, 2000 }[k % 5];
        unsigned char *s = malloc(len * (size_t)sz), *d = malloc(len);
        CHECK(s && d, "no memory");
        for (size_t j = 0; i == root && j < len * (size_t)sz; j++) s[j] = (unsigned char)(k + j * 7);
        OK(coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = root, .src = { i == root ? s : NULL, len },
                                            .dst = { d, len } }));
        if (i == root) memset(s, 0, len * (size_t)sz);
        for (size_t j = 0; j < len; j++)
            CHECK(d[j] == (unsigned char)(k + ((size_t)i * len + j) * 7), "scatter %d (root %d, %zu B): byte %zu is %u",
                  k, root, len, j, d[j]);
        free(s), free(d);
    }
    OK(coll_barrier(g));
}

/* A small scan runs as a chain (reduce.c): a member rewrites its record
 * once its one reader, the next member, is done with it, so member 0 runs
 * COLL_RECS - 1 scans ahead of member 1, and so on down the chain: with 3
 * members or more, more than COLL_RECS scans before the last member has
 * begun one (a test that hangs where a record waits for every member).
 * Then many back to back, members at different speeds, exscan in place
 * among them; every prefix checked. A member that called another
 * collective meanwhile fails instead of waiting for a record rewritten. */
static void scan_one(struct coll_group *g, enum coll_kind kind, long *dst, const long *src, int cnt)
{
    OK(coll_run(g, &(struct coll_args){ .kind = kind, .src = { src ? (void *)src : COLL_IN_PLACE, (size_t)cnt * sizeof *dst },
                                         .dst = { dst, (size_t)cnt * sizeof *dst },
                                         .red = { .t = COLL_INT64, .op = COLL_SUM } }));
}
static long scan_val(int member, int k, int e) { return (long)(member + 1) * 1000 + k * 7 + e; }
static long scan_ref(int upto, int k, int e)      /* sources 0..upto */
{
    long s = 0;
    for (int j = 0; j <= upto; j++) s += scan_val(j, k, e);
    return s;
}

static void scan_ahead_check(struct coll_group *g, int phase)
{
    int sz = g->m.size, i = g->m.me;
    enum { K = COLL_RECS + COLL_RECS / 2, M = 400, E = 3 };
    static long out[K][E];
    if (sz < 3) return;
    long v[E];
    /* the last member begins once member 0 has done K scans */
    if (i == sz - 1)
        while (atomic_load(&go) < phase) sched_yield();
    for (int k = 0; k < K; k++) {
        for (int e = 0; e < E; e++) v[e] = scan_val(i, k, e);
        scan_one(g, COLL_SCAN, out[k], v, E);
    }
    if (i == 0) release_others(g, phase);
    for (int k = 0; k < K; k++)
        for (int e = 0; e < E; e++) CHECK(out[k][e] == scan_ref(i, k, e), "scan %d ahead: %ld", k, out[k][e]);
    /* back to back, scan and exscan (in place every third), members slowed in turn */
    for (int k = 0; k < M; k++) {
        long d[E];
        enum coll_kind kind = k % 2 ? COLL_EXSCAN : COLL_SCAN;
        bool inpl = k % 3 == 0;
        for (int e = 0; e < E; e++) v[e] = scan_val(i, k, e), d[e] = inpl ? v[e] : -7;
        if ((k / 50) % sz == i && k % 5 == 0) sched_yield();
        scan_one(g, kind, d, inpl ? NULL : v, 1 + k % E);
        for (int e = 0; e < E; e++) {
            long want = e > k % E ? (inpl ? v[e] : -7)
                      : kind == COLL_SCAN ? scan_ref(i, k, e) : i == 0 ? (inpl ? v[e] : -7) : scan_ref(i - 1, k, e);
            CHECK(d[e] == want, "%s %d (%s), element %d: %ld, expected %ld", kind == COLL_SCAN ? "scan" : "exscan", k,
                  inpl ? "in place" : "apart", e, d[e], want);
        }
    }
    OK(coll_barrier(g));
    /* member 1 calls a barrier where the others scan: member 2, which reads
     * member 1's record, fails as a mismatch, member 1 too (or as its peer's
     * failure, seen first), the later ones as their peer's; nobody waits */
    long x = i, y = -1;
    sm_status_t st = i == 1 ? coll_barrier(g) : coll_run(g, &(struct coll_args){ .kind = COLL_SCAN, .src = { &x, sizeof x },
                                                           .dst = { &y, sizeof y }, .red = { .t = COLL_INT64, .op = COLL_SUM } });
    CHECK(i == 0 ? st == SM_OK : i == 2 ? st == SM_ERR_MISMATCH : st == SM_ERR_MISMATCH || st == SM_ERR_PEER,
          "scan against a barrier: member %d got %d", i, st);
    OK(coll_barrier(g));
}

/* The records are 64 deep (coll.h COLL_RECS): with ranks outnumbering
 * cores, a small scan's members run a turn on their core until they are
 * that far ahead of their reader, so the depth sets the context switches a
 * call (n / depth, NOTES). Member 0 does 63 scans and exscans (in place
 * every third) before any other member begins one: it hangs where a member
 * may run only 15 (or 31) ahead. Every prefix checked. */
static void scan_deep_check(struct coll_group *g, int phase)
{
    int sz = g->m.size, i = g->m.me;
    enum { DEEP = 63, E = 2 };
    static long out[DEEP][E];
    long v[DEEP][E];
    if (sz < 2) return;
    if (i != 0)
        while (atomic_load(&go) < phase) sched_yield();
    for (int k = 0; k < DEEP; k++) {
        bool inpl = k % 3 == 0;
        for (int e = 0; e < E; e++) v[k][e] = scan_val(i, k, e), out[k][e] = inpl ? v[k][e] : -7;
        scan_one(g, k % 2 ? COLL_EXSCAN : COLL_SCAN, out[k], inpl ? NULL : v[k], E);
    }
    if (i == 0) release_others(g, phase);
    for (int k = 0; k < DEEP; k++)
        for (int e = 0; e < E; e++) {
            long want = k % 2 == 0 ? scan_ref(i, k, e) : i == 0 ? (k % 3 == 0 ? v[k][e] : -7) : scan_ref(i - 1, k, e);
            CHECK(out[k][e] == want, "%s %d ahead, element %d: %ld, expected %ld", k % 2 ? "exscan" : "scan", k, e,
                  out[k][e], want);
        }
    OK(coll_barrier(g));
}

/* Small scans and exscans back to back with nonblocking ones outstanding
 * (coll_start) and allreduces between them, on every group; in turn a
 * member sleeps a few milliseconds before a call, so that the others sleep
 * in their waits too and need the wakes of the chain's stamps and releases
 * (sched.c, coll_stamp's owed wake). */
static void nb_done(void *ctx, sm_status_t st, const char *why)
{
    (void)why;
    atomic_store((_Atomic int *)ctx, st == SM_OK ? 1 : 2);
}
static bool nb_set(void *ctx) { return atomic_load((_Atomic int *)ctx) != 0; }

static void scan_start(struct coll_group *g, enum coll_kind kind, long *dst, const long *src, int cnt, struct coll_args *a,
                       _Atomic int *flag)
{
    *a = (struct coll_args){ .kind = kind, .src = { (void *)src, (size_t)cnt * sizeof *dst },
                             .dst = { dst, (size_t)cnt * sizeof *dst }, .red = { .t = COLL_INT64, .op = COLL_SUM } };
    atomic_store(flag, 0);
    OK(coll_start(g, a, nb_done, flag));
}

static void scan_want(enum coll_kind kind, int i, int k, int cnt, const long *d, long dflt, const char *what)
{
    for (int e = 0; e < 3; e++) {
        long want = e >= cnt ? dflt : kind == COLL_SCAN ? scan_ref(i, k, e) : i == 0 ? dflt : scan_ref(i - 1, k, e);
        CHECK(d[e] == want, "%s %d, element %d: %ld, expected %ld", what, k, e, d[e], want);
    }
}

static void scan_mix_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    enum { M = 240 };
    for (int k = 0; k < M; k++) {
        long v[3], w[3], d[3] = { -7, -7, -7 }, d2[3] = { -7, -7, -7 };
        int cnt = 1 + k % 3;
        for (int e = 0; e < 3; e++) v[e] = scan_val(i, k, e), w[e] = scan_val(i, k + 1, e);
        if (k % 9 == 0 && (k / 9) % sz == i) usleep(2000);
        switch (k % 5) {
        case 0: scan_one(g, COLL_SCAN, d, v, cnt); scan_want(COLL_SCAN, i, k, cnt, d, -7, "scan"); break;
        case 1: scan_one(g, COLL_EXSCAN, d, v, cnt); scan_want(COLL_EXSCAN, i, k, cnt, d, -7, "exscan"); break;
        case 2: case 3: {
            /* an Iscan (Iexscan) outstanding while a blocking exscan (scan) runs */
            struct coll_args a;
            _Atomic int f;
            enum coll_kind nk = k % 5 == 2 ? COLL_SCAN : COLL_EXSCAN, bk = nk == COLL_SCAN ? COLL_EXSCAN : COLL_SCAN;
            scan_start(g, nk, d, v, cnt, &a, &f);
            scan_one(g, bk, d2, w, cnt);
            coll_wait(nb_set, &f);
            CHECK(atomic_load(&f) == 1, "nonblocking %s %d failed", nk == COLL_SCAN ? "scan" : "exscan", k);
            scan_want(nk, i, k, cnt, d, -7, "nonblocking");
            scan_want(bk, i, k + 1, cnt, d2, -7, "blocking behind a nonblocking one");
            break;
        }
        default: {
            long r[3] = { -7, -7, -7 };
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_ALLREDUCE, .src = { v, (size_t)cnt * sizeof *v },
                                                 .dst = { r, (size_t)cnt * sizeof *r },
                                                 .red = { .t = COLL_INT64, .op = COLL_SUM } }));
            for (int e = 0; e < cnt; e++) CHECK(r[e] == scan_ref(sz - 1, k, e), "allreduce %d: %ld", k, r[e]);
        }
        }
    }
    OK(coll_barrier(g));
}

/* Serial or sliced (reduce.c serial_max): every reduction kind at sizes
 * about the crossovers, against the reference, and the group's count of
 * sliced calls against the rule: two members (rooted to 2 KiB, others to
 * 8 KiB), else to 4 KiB, but crowded (oversubscribed, three members a CPU:
 * scans only inline; four: reduces and scans only inline, allreduces to
 * 2 KiB), where a serial member that ran ahead slept. */
static int crowded_cpus;     /* the CPUs the job may run on, as its command says (0: the library's count) */
static bool want_sliced(int sz, enum coll_kind kind, size_t bytes)
{
    bool scan = kind == COLL_SCAN || kind == COLL_EXSCAN;
    if (sz < 2) return false;
    if (sz == 2) return kind != COLL_EXSCAN && bytes > (kind == COLL_REDUCE ? 2048u : 8192u);   /* exscan: direct */
    int cpus = crowded_cpus ? crowded_cpus : sm_core.cpus;
    bool over = crowded_cpus ? sm_core.size > crowded_cpus : sm_core.oversubscribed;
    int per_cpu = over ? sz / cpus : 1;
    if (per_cpu >= 4) return bytes > (kind == COLL_REDUCE || scan ? (size_t)COLL_INLINE : 2048u);
    if (per_cpu >= 3 && scan) return bytes > COLL_INLINE;
    return bytes > 4096;
}
static void crowded_check(struct coll_group *g)
{
    static const enum coll_kind kinds[] = { COLL_REDUCE, COLL_ALLREDUCE, COLL_SCAN, COLL_EXSCAN };
    static const size_t sizes[] = { 96, 104, 256, 2048, 2056, 4096, 4104, 8192, 8200 };
    static long src[1100], dst[1100];
    int sz = g->m.size, i = g->m.me, k = 0;
    /* a job confined to fewer CPUs (taskset) is as crowded as its ranks on them, however many
     * the machine has; one bound a rank a core (smrun --bind-to core) has all of them */
    CHECK(!crowded_cpus || (sm_core.cpus == crowded_cpus && sm_core.oversubscribed == (sm_core.size > crowded_cpus)),
          "%d ranks on %d CPUs%s, want %d CPUs", sm_core.size, sm_core.cpus,
          sm_core.oversubscribed ? " (oversubscribed)" : "", crowded_cpus);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t kd = 0; kd < 4; kd++, k++) {
            enum coll_kind kind = kinds[kd];
            int cnt = (int)(sizes[si] / sizeof(long)), root = k % sz;
            for (int e = 0; e < cnt; e++) src[e] = scan_val(i, k, e), dst[e] = -7;
            uint64_t before = g->sliced;
            OK(coll_run(g, &(struct coll_args){ .kind = kind, .root = root, .src = { src, sizes[si] },
                                                 .dst = { dst, sizes[si] }, .red = { .t = COLL_INT64, .op = COLL_SUM } }));
            int upto = kind == COLL_SCAN ? i : kind == COLL_EXSCAN ? i - 1 : sz - 1;
            bool gets = kind == COLL_REDUCE ? i == root : upto >= 0;
            for (int e = 0; e < cnt; e++)
                CHECK(dst[e] == (gets ? scan_ref(upto, k, e) : -7), "kind %d %zu B root %d [%d]: %ld", (int)kind,
                      sizes[si], root, e, dst[e]);
            bool want = want_sliced(sz, kind, sizes[si]);
            CHECK(g->sliced - before == (want ? 1u : 0u), "kind %d %zu B, %d members on %d CPUs%s: %llu sliced, want %d",
                  (int)kind, sizes[si], sz, sm_core.cpus, sm_core.oversubscribed ? " (oversubscribed)" : "",
                  (unsigned long long)(g->sliced - before), want);
        }
    OK(coll_barrier(g));
}

/* Two members' exscan above the serial copy (reduce.c, direct): member 1
 * copies member 0's source once, member 0 waits for it. Sizes about the
 * crossover and large ones, in place and not, back to back with scans of
 * the same size (member 0 must not leave before member 1 read its source,
 * which it changes for the next call); member 0's destination untouched;
 * the group's count of direct calls (two members only, to 512 KiB) and of
 * sliced ones (none for these exscans). */
/* A wait for a member pinned to the waiter's CPU, oversubscribed (core/wait.c
 * sm_wait_on): small scatters, gathers and broadcasts with the root rotating,
 * contents checked; the group's count of waits that yielded from their first
 * turn is not 0 where members pinned a CPU each share one (smrun --bind-to
 * core, more ranks than CPUs), and each member's is 0 where none shares its
 * CPU or none is pinned. Which CPU each member is on is seen here
 * (sched_getaffinity) and exchanged, not taken from the core. */
static void mate_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    cpu_set_t cs;
    int32_t cpu = -1;                   /* not pinned */
    if (sched_getaffinity(0, sizeof cs, &cs) == 0 && CPU_COUNT(&cs) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &cs)) cpu = c;
    int32_t cpus[SM_NMAX];
    OK(coll_allgather(g, cpus, &cpu, sizeof cpu));
    int shared = 0, pinned = 0;
    for (int m = 0; m < sz; m++) shared += m != i && cpu >= 0 && cpus[m] == cpu, pinned += cpus[m] >= 0;
    uint64_t any = (uint64_t)shared, share_sum;
    OK(coll_reduce(g, &share_sum, &any, 1, COLL_UINT64, COLL_SUM, COLL_ALL));
    bool want = sm_core.oversubscribed && pinned == sz && share_sum > 0;
    uint64_t w0 = sm_wait_mate_waits();
    for (int k = 0; k < 3000; k++) {
        int root = k % sz;
        unsigned char s[8 * SM_NMAX], d[16], b[8];
        for (int m = 0; m < sz && i == root; m++)
            for (int j = 0; j < 8; j++) s[m * 8 + j] = pattern(m + k, (size_t)j);
        memset(d, 0xee, sizeof d);
        OK(coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = root, .src = { i == root ? s : NULL, 8 },
                                            .dst = { d, 8 } }));
        for (int j = 0; j < 8; j++) CHECK(d[j] == pattern(i + k, (size_t)j), "scatter %d from %d: byte %d", k, root, j);
        CHECK(d[8] == 0xee, "scatter %d: past the block", k);
        if (k % 3) continue;
        for (int j = 0; j < 8; j++) b[j] = pattern(i * 5 + k, (size_t)j);
        OK(coll_run(g, &(struct coll_args){ .kind = COLL_GATHER, .root = root, .src = { b, 8 }, .dst = { s, 8 } }));
        for (int m = 0; m < sz && i == root; m++)
            for (int j = 0; j < 8; j++)
                CHECK(s[m * 8 + j] == pattern(m * 5 + k, (size_t)j), "gather %d to %d: block %d byte %d", k, root, m, j);
        if (i == root) memcpy(b, "rotating", 8);
        else memset(b, 0, 8);
        OK(coll_bcast(g, b, i == root ? b : NULL, 8, root));
        CHECK(!memcmp(b, "rotating", 8), "broadcast %d from %d", k, root);
    }
    uint64_t mine = sm_wait_mate_waits() - w0, sum;
    OK(coll_reduce(g, &sum, &mine, 1, COLL_UINT64, COLL_SUM, COLL_ALL));
    if (want) CHECK(sum > 0, "%d members pinned, %d on this CPU (%d), oversubscribed: no wait for a member of the "
                             "same CPU yielded from its first turn", sz, shared + 1, cpu);
    else CHECK(mine == 0,
               "%d members, %d pinned, %d on this CPU (%d)%s: %llu waits yielded from their first turn, want none",
               sz, pinned, shared + 1, cpu, sm_core.oversubscribed ? ", oversubscribed" : "",
               (unsigned long long)mine);
    OK(coll_barrier(g));
}

static void direct_check(struct coll_group *g)
{
    static const size_t sizes[] = { 8192, 8200, 65536, 262144 + 8, 1048576 };
    size_t most = sizes[sizeof sizes / sizeof *sizes - 1] / sizeof(long);
    long *src = malloc(most * sizeof *src), *dst = malloc(most * sizeof *dst);
    CHECK(src && dst, "no memory");
    int sz = g->m.size, i = g->m.me, k = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int rep = 0; rep < 6; rep++, k++) {
            bool inpl = rep % 2, scan = rep % 3 == 2;
            enum coll_kind kind = scan ? COLL_SCAN : COLL_EXSCAN;
            int cnt = (int)(sizes[si] / sizeof(long));
            for (int e = 0; e < cnt; e++) src[e] = scan_val(i, k, e), dst[e] = inpl ? src[e] : -7;
            uint64_t before = g->direct, sbefore = g->sliced;
            OK(coll_run(g, &(struct coll_args){ .kind = kind, .src = { inpl ? COLL_IN_PLACE : src, sizes[si] },
                                                 .dst = { dst, sizes[si] }, .red = { .t = COLL_INT64, .op = COLL_SUM } }));
            int upto = scan ? i : i - 1;
            for (int e = 0; e < cnt; e++)
                CHECK(dst[e] == (upto >= 0 ? scan_ref(upto, k, e) : inpl ? scan_val(i, k, e) : -7),
                      "%s %zu B%s member %d [%d]: %ld", scan ? "scan" : "exscan", sizes[si], inpl ? " in place" : "", i, e,
                      dst[e]);
            bool want = !scan && sz == 2 && sizes[si] > 8192 && sizes[si] <= 512 * 1024;
            CHECK(g->direct - before == (want ? 1u : 0u), "%s %zu B, %d members: %llu direct, want %d",
                  scan ? "scan" : "exscan", sizes[si], sz, (unsigned long long)(g->direct - before), want);
            CHECK(!want || g->sliced == sbefore, "exscan %zu B, 2 members: sliced too", sizes[si]);
        }
    free(src), free(dst);
    OK(coll_barrier(g));
}

/* The lean path's boundaries (reduce.c coll_red_lean): every (type, op) of
 * every reduction kind at 1 element, at the most that fits COLL_INLINE and
 * one more (the general path), in place and not; each member may take
 * either path (a nonblocking reduction outstanding on the group sends its
 * blocking calls the general way), so both are mixed on one group. */
static void lean_one(struct coll_group *g, enum coll_kind kind, enum coll_dtype t, enum coll_redop op, size_t count,
                     int root, bool in_place, bool nb_under)
{
    int sz = g->m.size, i = g->m.me;
    size_t es = coll_dtype_size(t), len = count * es;
    _Alignas(16) char src[2 * COLL_INLINE + 64], dst[2 * COLL_INLINE + 64], want[64], x[64];
    _Alignas(16) long nsrc = i + 1, ndst = -1;
    char s1[80], s2[80];
    for (size_t e = 0; e < count; e++) ref_value(t, src + e * es, i, e);
    memset(dst, 0xee, sizeof dst);
    if (in_place) memcpy(dst, src, len);
    struct coll_args a = { .kind = kind, .root = root, .src = { in_place ? COLL_IN_PLACE : src, len },
                           .dst = { dst, len }, .red = { .t = t, .op = op } };
    struct coll_args na;
    _Atomic int f = 0;
    if (nb_under) {
        /* every member starts it; the even ones wait for it first (their
         * blocking call is lean), the odd ones after (theirs is not) */
        na = (struct coll_args){ .kind = COLL_ALLREDUCE, .src = { &nsrc, sizeof nsrc }, .dst = { &ndst, sizeof ndst },
                                 .red = { .t = COLL_INT64, .op = COLL_SUM } };
        OK(coll_start(g, &na, nb_done, &f));
        if (i % 2 == 0) coll_wait(nb_set, &f);
    }
    OK(coll_run(g, &a));
    if (nb_under) {
        coll_wait(nb_set, &f);
        CHECK(atomic_load(&f) == 1 && ndst == (long)sz * (sz + 1) / 2, "the nonblocking allreduce under it: %ld", ndst);
    }
    int upto = kind == COLL_SCAN ? i : kind == COLL_EXSCAN ? i - 1 : sz - 1;
    bool gets = kind == COLL_REDUCE ? i == root : upto >= 0;
    for (size_t e = 0; e < count && gets; e++) {
        ref_value(t, want, 0, e);
        for (int p = 1; p <= upto; p++) {
            ref_value(t, x, p, e);
            ref_apply(t, op, want, want, x);
        }
        CHECK(ref_equal(t, dst + e * es, want), "kind %d %s %s count %zu root %d%s [%zu]: got %s want %s", (int)kind,
              coll_redop_name(op), coll_dtype_name(t), count, root, in_place ? " in place" : "", e,
              ref_show(t, dst + e * es, s1, sizeof s1), ref_show(t, want, s2, sizeof s2));
    }
    if (!in_place && !gets)
        for (size_t b = 0; b < len; b++) CHECK((unsigned char)dst[b] == 0xee, "kind %d: dst written at member %d", (int)kind, i);
    for (size_t b = gets || in_place ? len : 0; b < sizeof dst; b++)
        CHECK((unsigned char)dst[b] == 0xee, "kind %d %s count %zu: written past the vector", (int)kind, coll_dtype_name(t), count);
}

static void lean_check(struct coll_group *g)
{
    static const enum coll_kind kinds[] = { COLL_ALLREDUCE, COLL_REDUCE, COLL_SCAN, COLL_EXSCAN };
    int sz = g->m.size, i = g->m.me, k = 0;
    for (int t = 0; t < COLL_DTYPE_COUNT; t++)
        for (int op = 0; op < COLL_REDOP_COUNT; op++) {
            if (!coll_kernel((enum coll_dtype)t, (enum coll_redop)op)) continue;
            size_t es = coll_dtype_size((enum coll_dtype)t), most = COLL_INLINE / es;
            size_t counts[] = { 1, most, most + 1 };
            for (size_t c = 0; c < 3; c++)
                for (size_t kd = 0; kd < 4; kd++, k++) {
                    int root = kinds[kd] == COLL_REDUCE ? k % sz : 0;
                    bool inpl = k % 3 == 1 && (kinds[kd] != COLL_REDUCE || i == root);
                    lean_one(g, kinds[kd], (enum coll_dtype)t, (enum coll_redop)op, counts[c], root, inpl,
                             k % 5 == 0);
                }
        }
    /* bad input through the lean path: a root out of the group, an op not
     * defined on the type (refused by the general path's checks) */
    long v = 1, out = 0;
    CHECK(coll_run(g, &(struct coll_args){ .kind = COLL_REDUCE, .root = sz, .src = { &v, 8 }, .dst = { &out, 8 },
                                            .red = { .t = COLL_INT64, .op = COLL_SUM } }) == SM_ERR_ARG &&
              strstr(sm_fail_reason(), "root"), "bad root: %s", sm_fail_reason());
    CHECK(coll_run(g, &(struct coll_args){ .kind = COLL_SCAN, .src = { &v, 8 }, .dst = { &out, 8 },
                                            .red = { .t = COLL_DOUBLE, .op = COLL_BXOR } }) == SM_ERR_ARG &&
              strstr(sm_fail_reason(), "not defined"), "bxor on double: %s", sm_fail_reason());
    /* members that disagree on the op, the size and the kind: seen there */
    if (sz > 1) {
        sm_status_t st = coll_run(g, &(struct coll_args){ .kind = COLL_ALLREDUCE, .src = { &v, 8 }, .dst = { &out, 8 },
                                                           .red = { .t = COLL_INT64, .op = i == 0 ? COLL_MAX : COLL_SUM } });
        CHECK(st == SM_ERR_MISMATCH && strstr(sm_fail_reason(), "member"), "ops differ: %d %s", st, sm_fail_reason());
        long two[2] = { 1, 2 }, o2[2];
        st = coll_run(g, &(struct coll_args){ .kind = COLL_ALLREDUCE, .src = { two, i == 0 ? 16 : 8 }, .dst = { o2, 16 },
                                               .red = { .t = COLL_INT64, .op = COLL_SUM } });
        CHECK(st == SM_ERR_TRUNCATE, "sizes differ: %d %s", st, sm_fail_reason());
        st = coll_run(g, &(struct coll_args){ .kind = i == sz - 1 ? COLL_SCAN : COLL_EXSCAN, .src = { &v, 8 },
                                               .dst = { &out, 8 }, .red = { .t = COLL_INT64, .op = COLL_SUM } });
        if (i == sz - 1) CHECK(st == SM_ERR_MISMATCH, "scan against exscans: %d %s", st, sm_fail_reason());
        (void)coll_barrier(g);      /* (the late reports of the exscan's members) */
        OK(coll_barrier(g));
        OK(coll_reduce(g, &out, &v, 1, COLL_INT64, COLL_SUM, COLL_ALL));
        CHECK(out == sz, "after the mismatches: %ld", out);
    }
}

/* Reduce-scatter (reduce.c scatter_lean, carry_copy): a member's record
 * carries its source without its own block, so 2 members' blocks of up to
 * COLL_INLINE bytes go the lean way; every (type, op), blocks of 1 element,
 * the most that is lean and one more, the block form and the v form
 * (counts of a basic type, one member's block empty, sizes that differ by
 * member), in place and not, the general path mixed in (the odd members'
 * call nonblocking: their carried copies read by lean members and the
 * other way round), the group's lean count checked. */
static void rslean_one(struct coll_group *g, enum coll_dtype t, enum coll_redop op, size_t c, bool v, bool inpl,
                       bool mix)
{
    int sz = g->m.size, i = g->m.me;
    size_t es = coll_dtype_size(t);
    static struct dt_predef bts[COLL_DTYPE_COUNT];     /* one per type: the engine may keep its address */
    struct dt_predef *bt = &bts[t];
    if (!bt->t.size) dt_predef_init(bt, 0, es, es, es, 0, 0);
    int counts[8];
    size_t total = 0, b0 = 0, blk = 0;
    for (int j = 0; j < sz; j++) {
        counts[j] = v ? (j % 3 == 2 ? 0 : (int)(c - (size_t)(j % 2 && c > 1))) : (int)c;
        if (j == i) b0 = total, blk = (size_t)counts[j];
        total += (size_t)counts[j];
    }
    char *src = malloc(total * es + 1), *dst = malloc(total * es + 64), x[64], want[64], s1[80], s2[80];
    for (size_t e = 0; e < total; e++) ref_value(t, src + e * es, i, e);
    memset(dst, 0xee, total * es + 64);
    if (inpl) memcpy(dst, src, total * es);
    struct coll_args a = { .kind = COLL_REDUCE_SCATTER, .src = { inpl ? COLL_IN_PLACE : src, total * es },
                           .dst = { dst, c * es }, .red = { .t = t, .op = op } };
    if (v) a.dst = (struct coll_buf){ dst, 0, &bt->t, counts, NULL, NULL };
    if (inpl) a.src.count = 0;
    /* mixed: the odd members' call is nonblocking (the general path) */
    bool nb = mix && i % 2;
    bool lean = !nb && !g->active && (total - blk) * es <= COLL_INLINE && blk * es <= COLL_INLINE;
    uint64_t before = g->lean;
    if (nb) {
        _Atomic int f = 0;
        OK(coll_start(g, &a, nb_done, &f));
        coll_wait(nb_set, &f);
        CHECK(atomic_load(&f) == 1, "the nonblocking reduce-scatter failed");
    } else {
        OK(coll_run(g, &a));
    }
    CHECK(g->lean - before == (lean ? 1u : 0u), "reduce-scatter %s %s block %zu%s%s: %llu lean calls, want %d",
          coll_redop_name(op), coll_dtype_name(t), c, v ? " v" : "", inpl ? " in place" : "",
          (unsigned long long)(g->lean - before), lean);
    for (size_t e = 0; e < blk; e++) {
        ref_value(t, want, 0, b0 + e);
        for (int p = 1; p < sz; p++) {
            ref_value(t, x, p, b0 + e);
            ref_apply(t, op, want, want, x);
        }
        CHECK(ref_equal(t, dst + e * es, want), "reduce-scatter %s %s block %zu%s%s member %d [%zu]: got %s want %s",
              coll_redop_name(op), coll_dtype_name(t), c, v ? " v" : "", inpl ? " in place" : "", i, e,
              ref_show(t, dst + e * es, s1, sizeof s1), ref_show(t, want, s2, sizeof s2));
    }
    for (size_t b = (inpl ? total : blk) * es; b < total * es + 64; b++)
        CHECK((unsigned char)dst[b] == 0xee, "reduce-scatter %s block %zu: written past the block", coll_dtype_name(t), c);
    free(src), free(dst);
}

static void rslean_check(struct coll_group *g)
{
    int sz = g->m.size, k = 0;
    for (int t = 0; t < COLL_DTYPE_COUNT; t++)
        for (int op = 0; op < COLL_REDOP_COUNT; op++) {
            if (!coll_kernel((enum coll_dtype)t, (enum coll_redop)op)) continue;
            size_t es = coll_dtype_size((enum coll_dtype)t), most = COLL_INLINE / es / (size_t)(sz > 1 ? sz - 1 : 1);
            size_t cs[] = { 1, most, most + 1 };
            for (size_t c = 0; c < 3; c++)
                for (int v = 0; v < 2; v++, k++)
                    rslean_one(g, (enum coll_dtype)t, (enum coll_redop)op, cs[c], v, k % 3 == 1, k % 4 < 2);
        }
    /* members whose vectors differ (member 0's blocks of one element, the others' of two) */
    if (sz > 1) {
        long in[16] = { 0 }, out[2];
        size_t c = g->m.me == 0 ? 1 : 2;
        sm_status_t st = coll_run(g, &(struct coll_args){ .kind = COLL_REDUCE_SCATTER, .src = { in, 8 * c * (size_t)sz },
                                                           .dst = { out, 8 * c }, .red = { .t = COLL_INT64, .op = COLL_SUM } });
        CHECK(st == SM_ERR_TRUNCATE, "reduce-scatter, vectors differ: %d %s", st, sm_fail_reason());
        (void)coll_barrier(g);
        OK(coll_barrier(g));
    }
}

/* The data movers' lean path (move.c coll_move_lean): every kind at the
 * sizes where a member's contribution just fits its record and one byte
 * more, fixed and v blocks (sizes differing by member, gaps between them),
 * in place where allowed, roots in turn, members on both paths on one group
 * (a nonblocking allreduce still listed on some of them), each checked
 * against the data and against the group's count of lean calls by the
 * rule each member applies; bad input. */
enum { MROOM = 128 };           /* a block's place: more than COLL_INLINE + 1 */
static unsigned char mval(int s, int d, size_t j, int k) { return (unsigned char)(s * 37 + d * 11 + (int)j * 3 + k + 1); }
/* Bytes from member s to member d (v: they differ by pair, symmetric for alltoall in place). */
static size_t mcnt(bool v, size_t blk, int s, int d) { return v && blk ? blk - (size_t)((s + d) % 2) : blk; }

/* What this member's call carries, and so whether it is lean (move.c's rule). */
static bool mlean_expect(const struct coll_group *g, enum coll_kind kind, bool v, size_t blk, int root, bool inpl)
{
    int n = g->m.size, me = g->m.me;
    bool paces = me == root && sm_core.oversubscribed && n > 2 * sm_core.cpus;
    size_t others = 0, arrays = v && n > 1 ? sizeof(uint16_t) * (size_t)n : 0;   /* 2-byte ends a block */
    for (int d = 0; d < n; d++)
        if (d != me || n == 1) others += kind == COLL_ALLTOALL ? mcnt(v, blk, me, d) : mcnt(v, blk, d, 0);
    others += arrays;           /* the arrays in front of the bytes (REC_VBLOCKS) */
    switch (kind) {
    case COLL_BCAST: return !paces && blk <= COLL_INLINE;
    case COLL_SCATTER:
        if (me != root) return mcnt(v, blk, me, 0) <= COLL_INLINE;
        return !paces && others <= COLL_INLINE && (v || blk <= COLL_INLINE);
    case COLL_GATHER:
        if (me != root) return mcnt(v, blk, me, 0) <= COLL_INLINE;
        for (int i = 0; i < n; i++) if (mcnt(v, blk, i, 0) > COLL_INLINE) return false;
        return !v || 2 * sizeof(int) * (size_t)n <= COLL_INLINE;
    case COLL_ALLGATHER: case COLL_COLLECT: return mcnt(v, blk, me, 0) <= COLL_INLINE;
    default: return !(v && inpl) && others <= COLL_INLINE && (v || blk <= COLL_INLINE);
    }
}

static struct coll_buf mbuf(void *p, size_t len) { return (struct coll_buf){ .base = p, .count = len }; }

static void mlean_one(struct coll_group *g, enum coll_kind kind, bool v, size_t blk, int root, bool inpl, bool nb_under, int k)
{
    int n = g->m.size, me = g->m.me;
    unsigned char *sb = malloc((size_t)n * MROOM), *db = malloc((size_t)n * MROOM);
    int *sc = malloc(sizeof(int) * 4 * (size_t)n), *sd = sc + n, *rc = sd + n, *rd = rc + n;
    CHECK(sb && db && sc, "memory");
    memset(sb, 0xee, (size_t)n * MROOM), memset(db, 0xee, (size_t)n * MROOM);
    bool a2a = kind == COLL_ALLTOALL, rooted = kind == COLL_BCAST || kind == COLL_SCATTER || kind == COLL_GATHER;
    if (!rooted) root = -1;
    /* block i of a buffer: v at i * MROOM, else blk apart */
    #define AT(buf, i) ((buf) + (size_t)(i) * (v ? MROOM : blk))
    for (int i = 0; i < n; i++) {
        sc[i] = (int)(a2a ? mcnt(v, blk, me, i) : mcnt(v, blk, i, 0)), sd[i] = i * MROOM;
        rc[i] = (int)(a2a ? mcnt(v, blk, i, me) : mcnt(v, blk, i, 0)), rd[i] = i * MROOM;
    }
    struct coll_args a = { .kind = kind, .root = root };
    struct coll_buf vs = { sb, 0, NULL, sc, sd, NULL }, vr = { db, 0, NULL, rc, rd, NULL };
    size_t mine = mcnt(v, blk, me, 0);
    switch (kind) {
    case COLL_BCAST:
        for (size_t j = 0; j < blk; j++) (inpl ? db : sb)[j] = mval(root, 0, j, k);
        a.src = mbuf(me == root && !inpl ? sb : NULL, blk);
        a.dst = mbuf(db, blk);
        break;
    case COLL_SCATTER:
        if (me == root)
            for (int i = 0; i < n; i++)
                for (size_t j = 0; j < mcnt(v, blk, i, 0); j++) AT(sb, i)[j] = mval(root, i, j, k);
        a.src = v ? vs : mbuf(sb, blk);
        a.dst = me == root && inpl ? mbuf(COLL_IN_PLACE, 0) : mbuf(db, mine);
        break;
    case COLL_GATHER:
    case COLL_ALLGATHER:
        for (size_t j = 0; j < mine; j++) (inpl ? AT(db, me) : sb)[j] = mval(me, kind == COLL_GATHER ? root : 0, j, k);
        a.src = inpl ? mbuf(COLL_IN_PLACE, 0) : mbuf(sb, mine);
        a.dst = v ? vr : mbuf(db, blk);
        break;
    case COLL_COLLECT:          /* v: lengths that differ by member; dst: them all, concatenated */
        for (size_t j = 0; j < mine; j++) sb[j] = mval(me, 0, j, k);
        a.src = mbuf(sb, mine), a.dst = mbuf(db, 0);
        break;
    default:
        for (int d = 0; d < n; d++)
            for (size_t j = 0; j < mcnt(v, blk, me, d); j++) AT(inpl ? db : sb, d)[j] = mval(me, d, j, k);
        a.src = inpl ? mbuf(COLL_IN_PLACE, 0) : v ? vs : mbuf(sb, blk);
        a.dst = v ? vr : mbuf(db, blk);
    }
    long nsrc = me + 1, ndst = -1;
    struct coll_args na = { .kind = COLL_ALLREDUCE, .src = { &nsrc, sizeof nsrc }, .dst = { &ndst, sizeof ndst },
                            .red = { .t = COLL_INT64, .op = COLL_SUM } };
    _Atomic int f = 0;
    if (nb_under) {
        OK(coll_start(g, &na, nb_done, &f));
        if (me % 2 == 0) coll_wait(nb_set, &f);
    }
    bool lean = !g->active && mlean_expect(g, kind, v, blk, root, inpl);
    uint64_t before = g->lean;
    /* A v source that travels in the record (a scatterv's root, alltoallv)
     * carries its blocks' sizes in front of them (REC_VBLOCKS): its readers
     * find all of it from the stamp's line on, and the layouts' line (src,
     * the third) is not written. (The record's last use, COLL_RECS calls
     * back, is read by now: these calls hold members within a few calls.) */
    bool vsrc = lean && v && n > 1 && ((kind == COLL_SCATTER && me == root) || kind == COLL_ALLTOALL);
    struct coll_rec *r = coll_rec_of(g, me, g->seq + 1);
    memset(&r->src, 0x5a, sizeof r->src);
    OK(coll_run(g, &a));
    CHECK(g->lean - before == (lean ? 1u : 0u), "kind %d%s %zu B root %d%s: %llu lean calls, want %d", (int)kind,
          v ? " v" : "", blk, root, inpl ? " in place" : "", (unsigned long long)(g->lean - before), lean);
    if (vsrc) {
        unsigned char canary[sizeof r->src];
        memset(canary, 0x5a, sizeof canary);
        CHECK((r->flags & (REC_CARRIED | REC_VBLOCKS)) == (REC_CARRIED | REC_VBLOCKS) && !memcmp(&r->src, canary, sizeof canary),
              "kind %d v %zu B root %d: flags %#x, the layouts' line %s", (int)kind, blk, root, r->flags,
              memcmp(&r->src, canary, sizeof canary) ? "written" : "untouched");
    }
    if (nb_under) {
        coll_wait(nb_set, &f);
        CHECK(atomic_load(&f) == 1 && ndst == (long)n * (n + 1) / 2, "the nonblocking allreduce under it: %ld", ndst);
    }
    /* the data: every block where it belongs, nothing else written */
    unsigned char *want = malloc((size_t)n * MROOM);
    CHECK(want != NULL, "memory");
    memset(want, 0xee, (size_t)n * MROOM);
    switch (kind) {
    case COLL_BCAST:
        for (size_t j = 0; j < blk; j++) want[j] = mval(root, 0, j, k);
        break;
    case COLL_SCATTER:
        if (!(me == root && inpl))
            for (size_t j = 0; j < mine; j++) want[j] = mval(root, me, j, k);
        break;
    case COLL_COLLECT:
        for (int i = 0, at = 0; i < n; at += (int)mcnt(v, blk, i, 0), i++)
            for (size_t j = 0; j < mcnt(v, blk, i, 0); j++) want[(size_t)at + j] = mval(i, 0, j, k);
        break;
    case COLL_GATHER:
    case COLL_ALLGATHER:
        if (kind == COLL_GATHER && me != root) {
            if (inpl) for (size_t j = 0; j < mine; j++) AT(want, me)[j] = mval(me, root, j, k);
            break;
        }
        for (int i = 0; i < n; i++)
            for (size_t j = 0; j < mcnt(v, blk, i, 0); j++) AT(want, i)[j] = mval(i, kind == COLL_GATHER ? root : 0, j, k);
        break;
    default:
        for (int s = 0; s < n; s++)
            for (size_t j = 0; j < mcnt(v, blk, s, me); j++) AT(want, s)[j] = mval(s, me, j, k);
    }
    for (size_t b = 0; b < (size_t)n * MROOM; b++)
        CHECK(db[b] == want[b], "kind %d%s %zu B root %d%s member %d: byte %zu is %#x, want %#x", (int)kind, v ? " v" : "",
              blk, root, inpl ? " in place" : "", me, b, db[b], want[b]);
    #undef AT
    free(want), free(sb), free(db), free(sc);
}

static void mlean_check(struct coll_group *g)
{
    static const enum coll_kind kinds[] = { COLL_BCAST, COLL_SCATTER, COLL_GATHER, COLL_ALLGATHER, COLL_ALLTOALL,
                                            COLL_COLLECT };
    int n = g->m.size, me = g->m.me, k = 0;
    size_t L = n > 1 ? COLL_INLINE / (size_t)(n - 1) : COLL_INLINE;               /* fixed blocks for n - 1 members */
    size_t Lv = n > 1 && COLL_INLINE > 8 * n ? (COLL_INLINE - 8 * (size_t)n) / (size_t)(n - 1) : 1;   /* with the arrays */
    size_t sizes[] = { 0, 1, 8, L - 1, L, L + 1, Lv, Lv + 1, COLL_INLINE, COLL_INLINE + 1 };
    for (size_t kd = 0; kd < sizeof kinds / sizeof *kinds; kd++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int v = 0; v < 2; v++, k++) {
                if (v && kinds[kd] == COLL_BCAST) continue;
                int root = k % n;
                bool inpl = k % 3 == 1 && kinds[kd] != COLL_COLLECT &&
                            (kinds[kd] == COLL_ALLGATHER || kinds[kd] == COLL_ALLTOALL || me == root);
                mlean_one(g, kinds[kd], v, sizes[z], root, inpl, k % 4 == 0, k);
            }
    /* bad input: a root out of the group (the general path's error), sizes that differ */
    uint64_t before = g->lean;
    char x[32] = { 0 }, y[32 * SM_NMAX];
    CHECK(coll_run(g, &(struct coll_args){ .kind = COLL_BCAST, .root = n, .dst = { x, 8 } }) == SM_ERR_ARG &&
              strstr(sm_fail_reason(), "root"), "bad root: %s", sm_fail_reason());
    CHECK(coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = -1, .src = { x, 8 }, .dst = { y, 8 } }) == SM_ERR_ARG,
          "bad root: %s", sm_fail_reason());
    CHECK(g->lean == before, "a bad call counted as lean");
    if (n > 1) {
        sm_status_t st = coll_run(g, &(struct coll_args){ .kind = COLL_ALLGATHER, .src = { x, me == 0 ? 8 : 16 },
                                                           .dst = { y, 16 } });
        CHECK(st == SM_ERR_TRUNCATE && strstr(sm_fail_reason(), "member"), "allgather sizes differ: %d %s", st,
              sm_fail_reason());
        st = coll_run(g, &(struct coll_args){ .kind = COLL_GATHER, .root = 0, .src = { x, me == n - 1 ? 8 : 16 },
                                               .dst = { y, 16 } });
        if (me == 0) CHECK(st == SM_ERR_TRUNCATE, "gather sizes differ: %d %s", st, sm_fail_reason());
        st = coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = 0, .src = { y, 8 }, .dst = { x, me == 1 ? 16 : 8 } });
        if (me == 1) CHECK(st == SM_ERR_TRUNCATE && strstr(sm_fail_reason(), "sends"), "scatter sizes differ: %d %s", st,
                           sm_fail_reason());
        st = coll_run(g, &(struct coll_args){ .kind = COLL_ALLTOALL, .src = { y, me == 0 ? 4 : 8 }, .dst = { y + 16 * n, 8 } });
        CHECK(st == SM_ERR_TRUNCATE, "alltoall sizes differ: %d %s", st, sm_fail_reason());
        unsigned want = 4 - (me == 0 && sm_core.oversubscribed && n > 2 * sm_core.cpus);   /* the scatter's root paces */
        CHECK(g->lean - before == want, "the mismatched calls: %llu lean, want %u", (unsigned long long)(g->lean - before), want);
        (void)coll_barrier(g);      /* (late reports of the members that read no record) */
        OK(coll_barrier(g));
    }
    mlean_one(g, COLL_ALLGATHER, false, 8, 0, false, false, 1);
}

/* Past the record, 2 members on cores of their own publish a source in
 * place (coll_carrier, COLL_CARRY_MAX_2); more members, or members that
 * share cores, copy it into the bounce buffer up to COLL_BOUNCE; a source
 * that its member writes during the collective (in-place alltoall and
 * reductions) is copied either way. The own record's REC_CARRIED after each
 * call says which, for the callers whose choice does not depend on how far
 * peers are (non-rooted kinds; a broadcast's root with 2 members), and
 * every result is checked: allgather, alltoall, allreduce (in place and
 * not), a broadcast of a type with holes from each root in turn, gather
 * and scatter, at the record's size, one byte over, 512 B, 4 KiB, the
 * bounce buffer's size and one byte over. */
static bool carried_want(int sz, size_t span, bool src_ok)
{
    if (span <= COLL_INLINE) return true;
    if (span > COLL_BOUNCE) return false;
    return !(src_ok && sz == 2 && !sm_core.oversubscribed);
}

static void carry_flag(struct coll_group *g, bool want, const char *what, size_t len)
{
    bool got = coll_rec_of(g, g->m.me, g->seq)->flags & REC_CARRIED;
    CHECK(got == want, "%s of %zu B on %d members: %s, want %s", what, len, g->m.size, got ? "carried" : "in place",
          want ? "carried" : "in place");
}

static void carry_check(struct coll_group *g)
{
    int sz = g->m.size, i = g->m.me;
    static const size_t sizes[] = { COLL_INLINE, COLL_INLINE + 4, 512, 4096, COLL_BOUNCE, COLL_BOUNCE + 4 };
    static struct dt_predef byte;
    dt_predef_init(&byte, 0, 1, 1, 1, 0, 0);
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t len = sizes[z], all = len * (size_t)sz;
        unsigned char *s = malloc(all), *d = malloc(all + 1);
        int32_t *v = malloc(len), *r = malloc(len);
        CHECK(s && d && v && r, "no memory");
        /* allgather, then in place */
        for (int inpl = 0; inpl < 2; inpl++) {
            memset(d, 0xee, all + 1);
            for (size_t j = 0; j < len; j++) (inpl ? d + (size_t)i * len : s)[j] = pattern(i, j);
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_ALLGATHER, .src = { inpl ? COLL_IN_PLACE : s, len },
                                                .dst = { d, len } }));
            carry_flag(g, carried_want(sz, len, true), inpl ? "allgather in place" : "allgather", len);
            for (int m = 0; m < sz; m++)
                for (size_t j = 0; j < len; j++)
                    CHECK(d[(size_t)m * len + j] == pattern(m, j), "allgather %zu B: block %d byte %zu", len, m, j);
            CHECK(d[all] == 0xee, "allgather %zu B: past the end", len);
        }
        /* alltoall: in place, the source is the destination it writes: always a copy */
        for (int inpl = 0; inpl < 2; inpl++) {
            memset(d, 0xee, all + 1);
            for (int m = 0; m < sz; m++)
                for (size_t j = 0; j < len; j++) (inpl ? d : s)[(size_t)m * len + j] = pattern(i * sz + m, j);
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_ALLTOALL, .src = { inpl ? COLL_IN_PLACE : s, len },
                                                .dst = { d, len } }));
            size_t span = sz > 1 ? all - len : len;
            carry_flag(g, carried_want(sz, span, !inpl), inpl ? "alltoall in place" : "alltoall", len);
            for (int m = 0; m < sz; m++)
                for (size_t j = 0; j < len; j++)
                    CHECK(d[(size_t)m * len + j] == pattern(m * sz + i, j), "alltoall %zu B: block %d byte %zu", len, m, j);
            CHECK(d[all] == 0xee, "alltoall %zu B: past the end", len);
        }
        /* allreduce of int32 sums (serial up to reduce.c's crossover: then carried or in place) */
        size_t cnt = len / sizeof *v;
        for (int inpl = 0; inpl < 2; inpl++) {
            for (size_t e = 0; e < cnt; e++) (inpl ? r : v)[e] = (int32_t)(i * 1000 + e);
            uint64_t sliced = g->sliced;
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_ALLREDUCE, .src = { inpl ? COLL_IN_PLACE : v, cnt * 4 },
                                                .dst = { r, cnt * 4 }, .red = { .t = COLL_INT32, .op = COLL_SUM } }));
            if (sz > 1 && g->sliced == sliced)
                carry_flag(g, carried_want(sz, cnt * 4, !inpl), inpl ? "allreduce in place" : "allreduce", len);
            for (size_t e = 0; e < cnt; e++)
                CHECK(r[e] == (int32_t)(1000 * sz * (sz - 1) / 2 + sz * (int)e), "allreduce %zu B [%zu]: %d", len, e, r[e]);
        }
        /* broadcasts from every root of a type with holes: 4 bytes of every 8 */
        struct dt_type *four = NULL, *holes = NULL;
        size_t nb = len / 8;
        OK(dt_contiguous(4, &byte.t, &four));
        OK(dt_hvector(nb, 1, 8, four, &holes));
        for (int root = 0; root < sz; root++) {
            memset(d, 0xee, all + 1);
            for (size_t j = 0; j < len; j++) d[j] = i == root ? pattern(root, j) : 0xee;
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_BCAST, .root = root, .dst = { d, 1, holes } }));
            if (i == root && sz == 2) carry_flag(g, carried_want(sz, nb * 4, true), "broadcast root", nb * 4);
            for (size_t j = 0; j < len; j++)
                CHECK(d[j] == (i == root || (j < nb * 8 && j % 8 < 4) ? pattern(root, j) : 0xee),
                      "broadcast %zu B from %d: byte %zu", len, root, j);
        }
        dt_unref(holes), dt_unref(four);
        /* gather and scatter, roots in turn */
        for (int root = 0; root < sz; root++) {
            memset(d, 0xee, all + 1);
            for (size_t j = 0; j < len; j++) s[j] = pattern(i + root, j);
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_GATHER, .root = root, .src = { s, len }, .dst = { d, len } }));
            for (int m = 0; m < sz && i == root; m++)
                for (size_t j = 0; j < len; j++)
                    CHECK(d[(size_t)m * len + j] == pattern(m + root, j), "gather %zu B to %d: block %d byte %zu", len, root, m, j);
            for (size_t j = 0; i == root && j < all; j++) s[j] = pattern(root, j);
            memset(d, 0xee, len + 1);
            OK(coll_run(g, &(struct coll_args){ .kind = COLL_SCATTER, .root = root, .src = { i == root ? s : NULL, len },
                                                .dst = { d, len } }));
            for (size_t j = 0; j < len; j++)
                CHECK(d[j] == pattern(root, (size_t)i * len + j), "scatter %zu B from %d: byte %zu", len, root, j);
            CHECK(d[len] == 0xee, "scatter %zu B: past the block", len);
        }
        free(s), free(d), free(v), free(r);
    }
    OK(coll_barrier(g));
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    bool all = !strcmp(part, "all");
    if (!strcmp(part, "crowded") && argc > 2) crowded_cpus = atoi(argv[2]);
    me = sm_rank(), n = sm_size();
    make_groups();
    for (int gi = 0; gi < NGROUPS; gi++) {
        struct coll_group *g = &groups[gi];
        if (g->num < 0) continue;            /* not a member: on to the next group */
        if (all || !strcmp(part, "basic")) {
            barrier_check(g, gi, 40);
            bcast_check(g);
            gather_check(g);
            alltoall_check(g);
        }
        if (all || !strcmp(part, "reduce")) reduce_all_kinds(g, gi == 0);
        if (all || !strcmp(part, "stress")) stress(g, 300, (unsigned)gi);
        if (gi == 0 && (all || !strcmp(part, "private"))) private_check(g);
        if (gi == 0 && (all || !strcmp(part, "mismatch"))) mismatch_check(g);
        if (all || !strcmp(part, "ahead")) ahead_check(g, 2 * gi + 1);
        if (all || !strcmp(part, "ahead_scatter")) ahead_scatter_check(g, 2 * NGROUPS + 1 + gi);
        if (all || !strcmp(part, "scanahead")) scan_ahead_check(g, 100 + gi);
        if (all || !strcmp(part, "scandeep")) scan_deep_check(g, 200 + gi);
        if (all || !strcmp(part, "scanmix")) scan_mix_check(g);
        if (all || !strcmp(part, "lean")) lean_check(g);
        if (all || !strcmp(part, "rslean")) rslean_check(g);
        if (all || !strcmp(part, "movelean")) mlean_check(g);
        if (all || !strcmp(part, "recfree")) recfree_check(g, 200 + gi);
        if (all || !strcmp(part, "crowded")) crowded_check(g);
        if (all || !strcmp(part, "carry")) carry_check(g);
        if (all || !strcmp(part, "direct")) direct_check(g);
        if (gi == 0 && (all || !strcmp(part, "mate"))) mate_check(g);
    }
    if (all || !strcmp(part, "basic")) aset_check();
    if (all || !strcmp(part, "threads")) threads_check();
    OK(coll_barrier(&world));
    barrier_check(&world, 0, 5);
    for (int gi = 0; gi < NGROUPS; gi++) coll_group_destroy(&groups[gi]);
    if (me == 0) printf("test_coll %s: %d ranks ok\n", part, n);
    return 0;
}
