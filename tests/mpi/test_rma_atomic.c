/* Accumulate atomicity under contention from every rank (MPI 3.1 §11.7.1:
 * same op, same basic type, same location), on every path the engine
 * takes: a CPU instruction (integer sum), a compare-and-swap loop (double
 * sum, integer product, pairs' MAXLOC, 16-byte elements), and the lock of
 * the target's region (32-byte elements, misaligned elements, memory
 * reached through the fallback). Fetch_and_op and Compare_and_swap
 * counters are exact (every ticket handed out once), and concurrent
 * replaces are never torn. Every rank hits every rank's window. An
 * argument sets the rounds (up to 200; fewer across nodes, where every
 * locked element is five round trips over TCP). */
#include <complex.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mcheck.h"

#define ITER_MAX 200
static int ITER = ITER_MAX;
#define BYTES 4096
static int me, n;

struct tally { MPI_Win win; char *mem; const char *what; };

/* Everyone adds to the same elements of every rank's window. */
static void sums(struct tally *t, int lock)
{
    OK(MPI_Win_fence(0, t->win));
    memset(t->mem, 0, BYTES);
    OK(MPI_Win_fence(0, t->win));
    if (lock == 0) OK(MPI_Win_lock_all(0, t->win));
    for (int i = 0; i < ITER * n; i++) {
        int tr = (me + i) % n;
        if (lock) OK(MPI_Win_lock(lock, tr, 0, t->win));
        int64_t one = 1;
        double half = 0.5;
        long double q = 0.25L;
        double complex c = 1.0 + 2.0 * I;
        long double complex lc = 1.0L - 1.0L * I;
        int32_t mine = me * 1000 + i / n;
        OK(MPI_Accumulate(&one, 1, MPI_INT64_T, tr, 0, 1, MPI_INT64_T, MPI_SUM, t->win));      /* instruction */
        OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, tr, 8, 1, MPI_DOUBLE, MPI_SUM, t->win));       /* CAS loop */
        OK(MPI_Accumulate(&q, 1, MPI_LONG_DOUBLE, tr, 16, 1, MPI_LONG_DOUBLE, MPI_SUM, t->win)); /* 16 bytes */
        OK(MPI_Accumulate(&c, 1, MPI_C_DOUBLE_COMPLEX, tr, 32, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, t->win));
        OK(MPI_Accumulate(&lc, 1, MPI_C_LONG_DOUBLE_COMPLEX, tr, 64, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM,
                          t->win));                                                            /* the lock */
        OK(MPI_Accumulate(&one, 1, MPI_INT64_T, tr, 101, 1, MPI_INT64_T, MPI_SUM, t->win));    /* misaligned */
        OK(MPI_Accumulate(&mine, 1, MPI_INT32_T, tr, 128, 1, MPI_INT32_T, MPI_MAX, t->win));     /* CAS loop */
        if (lock) OK(MPI_Win_unlock(tr, t->win));
    }
    if (lock == 0) OK(MPI_Win_unlock_all(t->win));
    OK(MPI_Win_fence(0, t->win));
    int64_t i64, mis;
    double d;
    long double ld;
    double complex c;
    long double complex lc;
    memcpy(&i64, t->mem, 8), memcpy(&d, t->mem + 8, 8), memcpy(&ld, t->mem + 16, sizeof ld);
    memcpy(&c, t->mem + 32, sizeof c), memcpy(&lc, t->mem + 64, sizeof lc), memcpy(&mis, t->mem + 101, 8);
    int64_t total = (int64_t)n * ITER;
    CHECK(i64 == total, "%s, lock %d: int64 sum %lld, not %lld", t->what, lock, (long long)i64, (long long)total);
    CHECK(d == 0.5 * total, "%s: double sum %g, not %g", t->what, d, 0.5 * total);
    CHECK(ld == 0.25L * total, "%s: long double sum %Lg", t->what, ld);
    CHECK(creal(c) == total && cimag(c) == 2.0 * total, "%s: complex sum %g%+gi", t->what, creal(c), cimag(c));
    CHECK(creall(lc) == total && cimagl(lc) == -total, "%s: long double complex sum %Lg%+Lgi", t->what, creall(lc),
          cimagl(lc));
    CHECK(mis == total, "%s: misaligned sum %lld", t->what, (long long)mis);
    int32_t max;
    memcpy(&max, t->mem + 128, 4);
    CHECK(max == (n - 1) * 1000 + ITER - 1, "%s: int32 max %d", t->what, max);
}

/* MAXLOC on pairs from every rank: the largest value, the smallest index on ties. */
static void maxloc(struct tally *t)
{
    struct { int v, i; } p2, *r2 = (void *)(t->mem + 512);
    struct { double v; int i; } pd, *rd = (void *)(t->mem + 528);
    struct { long double v; int i; } pl, *rl = (void *)(t->mem + 576);
    OK(MPI_Win_fence(0, t->win));
    r2->v = -1, r2->i = -1, rd->v = -1, rd->i = -1, rl->v = -1, rl->i = -1;
    OK(MPI_Win_fence(0, t->win));
    OK(MPI_Win_lock_all(0, t->win));
    for (int i = 0; i < ITER / 4; i++)
        for (int tr = 0; tr < n; tr++) {
            int v = (i * 7 + me * 13) % 50;
            p2.v = v, p2.i = me, pd.v = v, pd.i = me, pl.v = v, pl.i = me;
            OK(MPI_Accumulate(&p2, 1, MPI_2INT, tr, 512, 1, MPI_2INT, MPI_MAXLOC, t->win));
            OK(MPI_Accumulate(&pd, 1, MPI_DOUBLE_INT, tr, 528, 1, MPI_DOUBLE_INT, MPI_MAXLOC, t->win));
            OK(MPI_Accumulate(&pl, 1, MPI_LONG_DOUBLE_INT, tr, 576, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, t->win));
        }
    OK(MPI_Win_unlock_all(t->win));
    OK(MPI_Win_fence(0, t->win));
    int best = -1, who = -1;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < ITER / 4; i++) {
            int v = (i * 7 + r * 13) % 50;
            if (v > best || (v == best && r < who)) best = v, who = r;
        }
    CHECK(r2->v == best && r2->i == who, "%s: 2INT maxloc (%d, %d), not (%d, %d)", t->what, r2->v, r2->i, best, who);
    CHECK(rd->v == best && rd->i == who, "%s: DOUBLE_INT maxloc (%g, %d)", t->what, rd->v, rd->i);
    CHECK(rl->v == best && rl->i == who, "%s: LONG_DOUBLE_INT maxloc (%Lg, %d)", t->what, rl->v, rl->i);
}

/* Tickets from rank 0's counter: each handed out once. Then a counter
 * incremented by compare-and-swap retries, aligned and misaligned. */
static void counters(struct tally *t)
{
    int64_t *fao = (int64_t *)(t->mem + 1024), *cas = (int64_t *)(t->mem + 1032);
    OK(MPI_Win_fence(0, t->win));
    *fao = 0, *cas = 0;
    memset(t->mem + 1041, 0, 8);
    OK(MPI_Win_fence(0, t->win));
    int64_t got[ITER_MAX], one = 1;
    OK(MPI_Win_lock_all(0, t->win));
    for (int i = 0; i < ITER; i++) {
        OK(MPI_Fetch_and_op(&one, &got[i], MPI_INT64_T, 0, 1024, MPI_SUM, t->win));
        for (MPI_Aint at = 1032; at <= 1041; at += 9) {   /* aligned: the instruction; misaligned: the lock */
            int64_t seen = 0, prev;
            OK(MPI_Fetch_and_op(NULL, &seen, MPI_INT64_T, 0, at, MPI_NO_OP, t->win));
            for (;;) {
                int64_t next = seen + 1;
                OK(MPI_Compare_and_swap(&next, &seen, &prev, MPI_INT64_T, 0, at, t->win));
                if (prev == seen) break;
                seen = prev;
            }
        }
    }
    OK(MPI_Win_unlock_all(t->win));
    int64_t *all = me == 0 ? malloc(sizeof *all * ITER * (size_t)n) : NULL;
    OK(MPI_Gather(got, ITER, MPI_INT64_T, all, ITER, MPI_INT64_T, 0, MPI_COMM_WORLD));
    OK(MPI_Win_fence(0, t->win));
    if (me == 0) {
        int64_t total = (int64_t)n * ITER, mis;
        char *seen = calloc((size_t)total, 1);
        for (int64_t k = 0; k < total; k++) {
            CHECK(all[k] >= 0 && all[k] < total && !seen[all[k]], "%s: ticket %lld twice or out of range",
                  t->what, (long long)all[k]);
            seen[all[k]] = 1;
        }
        memcpy(&mis, t->mem + 1041, 8);
        CHECK(*fao == total && *cas == total && mis == total, "%s: counters %lld %lld %lld, not %lld", t->what,
              (long long)*fao, (long long)*cas, (long long)mis, (long long)total);
        free(seen);
        free(all);
    }
}

/* Replaces of 16-byte elements from all, read meanwhile by all: never torn. */
static void untorn(struct tally *t)
{
    OK(MPI_Win_fence(0, t->win));
    memset(t->mem + 2048, 0, 64);
    OK(MPI_Win_fence(0, t->win));
    OK(MPI_Win_lock_all(0, t->win));
    for (int i = 0; i < ITER; i++) {
        int tr = (me + i) % n;
        double complex mine = (me + 1) * (1.0 + 1.0 * I), seen;
        long double complex lmine = (me + 1) * (1.0L + 1.0L * I), lseen;
        OK(MPI_Accumulate(&mine, 1, MPI_C_DOUBLE_COMPLEX, tr, 2048, 1, MPI_C_DOUBLE_COMPLEX, MPI_REPLACE, t->win));
        OK(MPI_Get_accumulate(NULL, 0, MPI_C_DOUBLE_COMPLEX, &seen, 1, MPI_C_DOUBLE_COMPLEX, (tr + 1) % n, 2048, 1,
                              MPI_C_DOUBLE_COMPLEX, MPI_NO_OP, t->win));
        CHECK(creal(seen) == cimag(seen), "%s: a torn 16-byte element (%g, %g)", t->what, creal(seen), cimag(seen));
        OK(MPI_Accumulate(&lmine, 1, MPI_C_LONG_DOUBLE_COMPLEX, tr, 2080, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_REPLACE,
                          t->win));
        OK(MPI_Get_accumulate(NULL, 0, MPI_C_LONG_DOUBLE_COMPLEX, &lseen, 1, MPI_C_LONG_DOUBLE_COMPLEX, (tr + 1) % n,
                              2080, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_NO_OP, t->win));
        CHECK(creall(lseen) == cimagl(lseen), "%s: a torn 32-byte element (%Lg, %Lg)", t->what, creall(lseen),
              cimagl(lseen));
    }
    OK(MPI_Win_unlock_all(t->win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, t->win));
}

static void all_tests(struct tally *t)
{
    sums(t, 0);
    sums(t, MPI_LOCK_SHARED);
    sums(t, MPI_LOCK_EXCLUSIVE);
    maxloc(t);
    counters(t);
    untorn(t);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    if (argc > 1 && atoi(argv[1]) >= 4 && atoi(argv[1]) <= ITER_MAX) ITER = atoi(argv[1]);
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    struct tally t = { .what = "MPI_Win_allocate" };
    OK(MPI_Win_allocate(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t.mem, &t.win));
    all_tests(&t);
    OK(MPI_Win_free(&t.win));
    if (mcheck_nodes(NULL)) {
        t.what = "private mmap";   /* every element under the lock, through the fallback copies */
        t.mem = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(t.mem != MAP_FAILED, "mmap");
        OK(MPI_Win_create(t.mem, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t.win));
        all_tests(&t);
        OK(MPI_Win_free(&t.win));
        munmap(t.mem, BYTES);
    } else {   /* across nodes a private mmap is refused (test_rma checks it): malloc'd memory */
        t.what = "MPI_Win_create(malloc)";
        t.mem = malloc(BYTES);
        OK(MPI_Win_create(t.mem, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t.win));
        all_tests(&t);
        OK(MPI_Win_free(&t.win));
        free(t.mem);
    }
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_atomic: %d ranks x %d: ok\n", n, ITER);
    return 0;
}
