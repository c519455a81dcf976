/* Substrate benchmark: (1) flag ping-pong half round trip between ranks 0
 * and 1 through sm_remote and through a plain MAP_SHARED mapping of one
 * memfd (the physical limit), (2) an 8-byte OpenSHMEM put + quiet against
 * its limit, a plain store into the peer's line through sm_remote and a
 * locked add, (3) single-copy bandwidth of sm_get from rank 1's heap against
 * memcpy within one process, 8 B to 64 MiB. Runs alternate between the two
 * sides and the median is quoted. Run: smrun -n 2 substrate */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdalign.h>
#include <shmem.h>
#include <smartmap.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REPS 7

struct flags { alignas(64) _Atomic uint64_t f[2][8]; }; /* f[r][0]: rank r's flag, own line */
static struct flags pp;                                 /* a global: exposed, symmetric */
static struct { int pid, fd; } raw_src;                 /* where rank 1 finds the raw memfd */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}
static double spread(double *v, int n) { return (v[n - 1] - v[0]) / v[n / 2]; } /* v sorted */
static double iqr(double *v, int n) { return (v[3 * n / 4] - v[n / 4]) / v[n / 2]; }  /* v sorted: many runs */

/* Spin, then give the core away: on a loaded machine every turn would
 * otherwise wait for a time slice (and a quick run seem to hang). */
static inline void relax(int *spins)
{
    if (++*spins > 4096) sched_yield();
    else __builtin_ia32_pause();
}

/* Half round trip in ns: mine/theirs are the local flag and the peer's flag. */
static double pingpong(int me, _Atomic uint64_t *mine, _Atomic uint64_t *theirs, long iters)
{
    sm_barrier();
    double t0 = now();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        int spins = 0;
        if (me == 0) {
            atomic_store_explicit(theirs, i, memory_order_release);
            while (atomic_load_explicit(mine, memory_order_acquire) != i) relax(&spins);
        } else {
            while (atomic_load_explicit(mine, memory_order_acquire) != i) relax(&spins);
            atomic_store_explicit(theirs, i, memory_order_release);
        }
    }
    double t = (now() - t0) / iters / 2 * 1e9;
    atomic_store(mine, 0);
    sm_barrier();
    return t;
}

/* ns per 8-byte put + quiet to rank 1: shmem_putmem + shmem_quiet, or the
 * limit they are measured against: a store through sm_remote and a locked
 * add (what quiet costs on x86), the same store, the same line. */
static double put_quiet(bool raw, uint64_t *dst, uint64_t *peer_dst, long iters)
{
    double t0 = now();
    for (uint64_t i = 0; i < (uint64_t)iters; i++) {
        if (raw) {
            *(volatile uint64_t *)peer_dst = i;
            __asm__ __volatile__("lock addl $0, -4(%%rsp)" ::: "memory", "cc");
        } else {
            shmem_putmem(dst, &i, sizeof i, 1);
            shmem_quiet();
        }
    }
    return (now() - t0) / iters * 1e9;
}

int main(int argc, char **argv)
{
    int me = sm_rank();
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (sm_size() != 2) {
        if (me == 0) fprintf(stderr, "substrate: run with 2 ranks: smrun -n 2 %s\n", argv[0]);
        return 2;
    }
    /* The raw limit: a memfd of rank 0's, mapped MAP_SHARED by both ranks
     * (rank 1 opens it through /proc), no smartmap involved. */
    struct flags *raw = NULL;
    if (me == 0) {
        int fd = memfd_create("substrate-raw", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, sizeof(struct flags)) != 0) { perror("memfd"); return 1; }
        raw_src.pid = getpid();
        raw_src.fd = fd;
        raw = mmap(NULL, sizeof *raw, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    sm_barrier();
    if (me == 1) {
        sm_get(0, &raw_src, &raw_src, sizeof raw_src);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", raw_src.pid, raw_src.fd);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) { perror(path); return 1; }
        raw = mmap(NULL, sizeof *raw, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    if (raw == MAP_FAILED || !raw) { perror("mmap"); return 1; }
    sm_barrier();

    long iters = quick ? 20000 : 200000;
    double t_sm[REPS], t_raw[REPS];
    struct flags *peer = sm_remote(1 - me, &pp);
    for (int r = 0; r < REPS; r++) { /* alternate: A B A B ... */
        t_sm[r] = pingpong(me, &pp.f[me][0], &peer->f[1 - me][0], iters);
        t_raw[r] = pingpong(me, &raw->f[me][0], &raw->f[1 - me][0], iters);
    }
    double m_sm = median(t_sm, REPS), m_raw = median(t_raw, REPS);
    if (me == 0) {
        printf("Rank 0 <-> rank 1; %d runs alternated between the two sides; medians, with the\n"
               "spread (max-min)/median of the runs.\n", REPS);
        printf("\n### Flag ping-pong, half round trip\n\n");
        printf("| path | ns | spread |\n|---|---:|---:|\n");
        printf("| sm_remote (smartmap) | %.1f | %.0f%% |\n", m_sm, 100 * spread(t_sm, REPS));
        printf("| MAP_SHARED memfd (raw limit) | %.1f | %.0f%% |\n", m_raw, 100 * spread(t_raw, REPS));
        printf("\nsmartmap / raw: **%.2fx** (target <= 1.2x)\n", m_sm / m_raw);
    }

    /* Put + quiet: rank 0 puts, rank 1 waits in shmem_barrier_all. Many
     * short runs, each a pair (limit, put): a burst of load from elsewhere
     * then spoils pairs, not a side; the ratio is the median of the pairs'. */
    shmem_init();
    uint64_t *pdst = shmem_malloc(64);
    enum { PAIRS = 101 };
    static double t_put[PAIRS], t_lim[PAIRS], t_ratio[PAIRS];
    int pairs = quick ? 31 : PAIRS;
    shmem_barrier_all();
    if (me == 0)
        for (int r = 0; r < pairs; r++) {
            t_lim[r] = put_quiet(true, pdst, shmem_ptr(pdst, 1), 20000);
            t_put[r] = put_quiet(false, pdst, NULL, 20000);
            t_ratio[r] = t_put[r] / t_lim[r];
        }
    shmem_barrier_all();
    if (me == 0) {
        double a = median(t_put, pairs), sa = iqr(t_put, pairs);
        double b = median(t_lim, pairs), sb = iqr(t_lim, pairs);
        printf("\n### 8-byte put + quiet to rank 1 (%d alternated pairs of 20000)\n\n", pairs);
        printf("| path | ns | interquartile range |\n|---|---:|---:|\n");
        printf("| shmem_putmem + shmem_quiet | %.2f | %.0f%% |\n", a, 100 * sa);
        printf("| store via sm_remote + locked add (limit) | %.2f | %.0f%% |\n", b, 100 * sb);
        printf("\nput+quiet / limit: **%.2fx** (median of the pairs' ratios; target <= 1.3x)\n", median(t_ratio, pairs));
    }
    shmem_free(pdst);

    /* Bandwidth: rank 0 pulls from rank 1's heap with sm_get; the baseline
     * is memcpy between two buffers of rank 0's. Rank 1 waits in a barrier. */
    size_t max = quick ? (size_t)16 << 20 : (size_t)64 << 20;
    char *src = malloc(max), *dst = malloc(max), *src_local = malloc(max);
    memset(src, 1, max);
    memset(dst, 2, max);
    memset(src_local, 3, max);
    void *peer_src = NULL;
    static uintptr_t published;
    published = (uintptr_t)src;
    sm_barrier();
    if (me == 0) {
        sm_get(1, &peer_src, &published, sizeof peer_src);
        printf("\n### Single-copy bandwidth: sm_get from rank 1 vs memcpy within one process\n\n");
        printf("| bytes | sm_get MB/s | memcpy MB/s | ratio | spread |\n|---:|---:|---:|---:|---:|\n");
        double worst_large = 1e9;
        for (size_t n = 8; n <= max; n *= quick ? 16 : 4) {
            long it = (long)((quick ? 64 : 512) * 1048576.0 / (double)n);
            if (it < 4) it = 4;
            if (it > 200000) it = 200000;
            double bw_sm[REPS], bw_mc[REPS];
            for (int r = 0; r < REPS; r++) {
                double t0 = now();
                for (long i = 0; i < it; i++) sm_get(1, dst, peer_src, n);
                bw_sm[r] = (double)n * it / (now() - t0) / 1e6;
                t0 = now();
                for (long i = 0; i < it; i++) {
                    memcpy(dst, src_local, n);
                    __asm__ __volatile__("" ::: "memory");
                }
                bw_mc[r] = (double)n * it / (now() - t0) / 1e6;
            }
            double a = median(bw_sm, REPS), sa = spread(bw_sm, REPS);
            double b = median(bw_mc, REPS);
            printf("| %zu | %.0f | %.0f | %.2fx | %.0f%% |\n", n, a, b, a / b, 100 * sa);
            if (n >= (1 << 20) && a / b < worst_large) worst_large = a / b;
        }
        printf("\nsmallest sm_get / memcpy ratio at >= 1 MiB: **%.2fx** (target >= 0.9x)\n", worst_large);
    }
    shmem_finalize();
    return 0;
}
