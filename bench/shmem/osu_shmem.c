/* osu_shmem.c: OpenSHMEM micro-benchmarks in the style of the OSU OpenSHMEM
 * suite: put/get latency (8 B - 4 MiB), put bandwidth and message rate
 * between PE 0 and PE 1, atomic latency for each operation, and barrier,
 * broadcast and reduction latency over all PEs. Standard OpenSHMEM only.
 * Usage: smrun -n 2 osu_shmem [put|get|pingpong|bw|rate|atomic|coll|all] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#define MAXSZ (4 << 20)
static int me, npes;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int iters(size_t sz) { return sz <= 8192 ? 20000 : sz <= (1 << 20) ? 1000 : 100; }

static void lat(const char *what, int get, char *s, char *d)
{
    if (me == 0) printf("# OSU-style OpenSHMEM %s Latency Test\n# %-10s %12s\n", what, "Size", "Latency (us)");
    for (size_t sz = 8; sz <= MAXSZ; sz *= 2) {
        int n = iters(sz), warm = n / 10;
        shmem_barrier_all();
        double t0 = 0;
        if (me == 0) {
            for (int i = 0; i < n + warm; i++) {
                if (i == warm) t0 = now();
                if (get) shmem_getmem(d, s, sz, 1);
                else { shmem_putmem(d, s, sz, 1); shmem_quiet(); }
            }
            printf("%-12zu %12.3f\n", sz, (now() - t0) / n);
        }
    }
    shmem_barrier_all();
}

static void bw(char *s, char *d, int rate)
{
    const int window = 64;
    if (me == 0) printf(rate ? "# OSU-style OpenSHMEM Put Message Rate Test\n# %-10s %14s\n"
                             : "# OSU-style OpenSHMEM Put Bandwidth Test\n# %-10s %14s\n",
                        "Size", rate ? "Messages/s" : "Bandwidth (MB/s)");
    for (size_t sz = rate ? 1 : 8; sz <= (rate ? 8192u : (size_t)MAXSZ); sz *= 2) {
        int n = (sz <= 8192 ? 2000 : sz <= (1 << 20) ? 50 : 10);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = now();
            for (int i = 0; i < n; i++) {
                for (int w = 0; w < window; w++) shmem_putmem_nbi(d + (rate ? w * sz : 0), s, sz, 1);
                shmem_quiet();
            }
            double us = now() - t0, msgs = (double)n * window;
            if (rate) printf("%-12zu %14.0f\n", sz, msgs / us * 1e6);
            else printf("%-12zu %14.2f\n", sz, msgs * sz / us);
        }
    }
    shmem_barrier_all();
}

/* Half round trip of an 8-byte put answered by a put, each side waiting
 * with shmem_wait_until: comparable with the substrate's flag ping-pong. */
static long ping, pong;
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static void pingpong(void)
{
    enum { REPS = 7, N = 20000 };   /* median of 7 runs: this VM is noisy */
    double t[REPS];
    long v = 0;
    for (int r = 0; r < REPS; r++) {
        shmem_barrier_all();
        double t0 = now();
        for (int i = 0; i < N; i++) {
            v++;
            if (me == 0) {
                shmem_long_p(&ping, v, 1);
                shmem_quiet();
                shmem_long_wait_until(&pong, SHMEM_CMP_EQ, v);
            } else if (me == 1) {
                shmem_long_wait_until(&ping, SHMEM_CMP_EQ, v);
                shmem_long_p(&pong, v, 0);
                shmem_quiet();
            }
        }
        t[r] = (now() - t0) / N / 2;
    }
    qsort(t, REPS, sizeof t[0], cmpd);
    if (me == 0) printf("# OpenSHMEM 8-byte put ping-pong (put + quiet, wait_until), median of %d runs\n"
                        "%-12s %12.3f us half round trip (min %.3f, max %.3f)\n", REPS, "8", t[REPS / 2], t[0], t[REPS - 1]);
    shmem_barrier_all();
}

static long tgt, fetched;
static void atomics(void)
{
    if (me == 0) printf("# OSU-style OpenSHMEM Atomic Operation Latency Test (long, PE 0 -> PE 1)\n# %-20s %12s\n", "Operation", "Latency (us)");
    const int n = 100000;
#define AMO(NAME, STMT) do { shmem_barrier_all(); \
        if (me == 0) { double t0 = now(); for (int i = 0; i < n; i++) { STMT; } \
                       printf("%-22s %12.3f\n", NAME, (now() - t0) / n); } } while (0)
    AMO("shmem_atomic_fetch_add", fetched += shmem_long_atomic_fetch_add(&tgt, 1, 1));
    AMO("shmem_atomic_add", shmem_long_atomic_add(&tgt, 1, 1));
    AMO("shmem_atomic_fetch_inc", fetched += shmem_long_atomic_fetch_inc(&tgt, 1));
    AMO("shmem_atomic_inc", shmem_long_atomic_inc(&tgt, 1));
    AMO("shmem_atomic_compare_swap", fetched += shmem_long_atomic_compare_swap(&tgt, i, i + 1, 1));
    AMO("shmem_atomic_swap", fetched += shmem_long_atomic_swap(&tgt, i, 1));
    AMO("shmem_atomic_fetch", fetched += shmem_long_atomic_fetch(&tgt, 1));
    AMO("shmem_atomic_set", shmem_long_atomic_set(&tgt, i, 1));
    AMO("shmem_atomic_fetch_and", fetched += shmem_int64_atomic_fetch_and(&tgt, ~0L, 1));
    AMO("shmem_atomic_fetch_or", fetched += shmem_int64_atomic_fetch_or(&tgt, 1, 1));
    AMO("shmem_atomic_fetch_xor", fetched += shmem_int64_atomic_fetch_xor(&tgt, 1, 1));
    shmem_barrier_all();
}

static void coll(char *s, char *d)
{
    const int n = 10000;
    shmem_barrier_all();
    double t0 = now();
    for (int i = 0; i < n; i++) shmem_barrier_all();
    if (me == 0) printf("# OSU-style OpenSHMEM Barrier Latency Test (%d PEs)\n%-12s %12.3f\n", npes, "barrier", (now() - t0) / n);
    if (me == 0) printf("# OSU-style OpenSHMEM Broadcast / Sum-Reduce Latency Test (%d PEs)\n# %-10s %14s %14s\n",
                        npes, "Size", "bcast (us)", "reduce (us)");
    for (size_t sz = 8; sz <= (1 << 20); sz *= 4) {
        int k = sz <= 8192 ? 5000 : 200;
        shmem_barrier_all();
        t0 = now();
        for (int i = 0; i < k; i++) shmem_broadcastmem(SHMEM_TEAM_WORLD, d, s, sz, 0);
        double tb = (now() - t0) / k;
        shmem_barrier_all();
        t0 = now();
        for (int i = 0; i < k; i++) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)d, (long *)s, sz / sizeof(long));
        double tr = (now() - t0) / k;
        if (me == 0) printf("%-12zu %14.3f %14.3f\n", sz, tb, tr);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "osu_shmem: needs at least 2 PEs\n");
        shmem_global_exit(2);
    }
    char *s = shmem_malloc(MAXSZ), *d = shmem_malloc(64 * 8192 > MAXSZ ? 64 * 8192 : MAXSZ);
    memset(s, 1, MAXSZ);
    int all = !strcmp(what, "all");
    if (all || !strcmp(what, "put")) lat("Put", 0, s, d);
    if (all || !strcmp(what, "get")) lat("Get", 1, s, d);
    if (all || !strcmp(what, "pingpong")) pingpong();
    if (all || !strcmp(what, "bw")) bw(s, d, 0);
    if (all || !strcmp(what, "rate")) bw(s, d, 1);
    if (all || !strcmp(what, "atomic")) atomics();
    if (all || !strcmp(what, "coll")) coll(s, d);
    shmem_free(s), shmem_free(d);
    shmem_finalize();
    return 0;
}
