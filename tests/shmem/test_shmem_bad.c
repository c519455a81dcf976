/* test_shmem_bad.c: bad input and failures; CTest checks the message and the
 * exit code with tests/expect.py. Usage: test_shmem_bad CASE. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <shmem.h>
#include <smartmap.h>

static long x[4];

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (!strcmp(c, "pe") && me == 1) shmem_long_p(x, 5, n);
    if (!strcmp(c, "pe_neg") && me == 0) (void)shmem_long_g(x, -1);
    if (!strcmp(c, "addr") && me == 1) {
        long *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        shmem_long_put(priv, x, 4, 0);
    }
    if (!strcmp(c, "size") && me == 0) shmem_int_put((int *)x, (int *)x, (size_t)-3, 1);
    if (!strcmp(c, "negbytes") && me == 0) shmem_putmem(x, x, (size_t)-3, 1);
    if (!strcmp(c, "collsize") && me == 2) shmem_long_broadcast(SHMEM_TEAM_WORLD, x, x, (size_t)-2, 0);
    if (!strcmp(c, "invalid_team") && me == 1) shmem_int_sum_reduce(SHMEM_TEAM_INVALID, (int *)x, (int *)x, 1);
    if (!strcmp(c, "bytes") && me == 0) shmem_putmem(x, x, (size_t)1 << 62, 1);
    if (!strcmp(c, "stride") && me == 0) shmem_long_iput(x, x, 0, 1, 3, 1);
    if (!strcmp(c, "team")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
        shmem_team_destroy(t);
        if (me == 0) shmem_team_sync(t);
    }
    if (!strcmp(c, "ctx") && me == 2) {
        shmem_ctx_t ctx;
        shmem_ctx_create(0, &ctx);
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_p(ctx, x, 1, 0);
    }
    if (!strcmp(c, "ctx_addr") && me == 3) {
        long *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        shmem_ctx_long_put(SHMEM_CTX_DEFAULT, priv, x, 2, 0);
    }
    if (!strcmp(c, "ctx_pe") && me == 0) shmem_ctx_uint64_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, (uint64_t *)x, (uint64_t *)x, 1, n + 2);
    if (!strcmp(c, "root") && me == 0) shmem_broadcastmem(SHMEM_TEAM_WORLD, x, x + 1, 8, n);
    if (!strcmp(c, "mismatch")) (void)shmem_malloc(me == 1 ? 200 : 100);
    if (!strcmp(c, "malloc_barrier")) {
        if (me == 0) shmem_barrier_all();
        else (void)shmem_malloc(64);
    }
    if (!strcmp(c, "malloc_put") && me == 1) {
        long *priv = malloc(4 * sizeof(long));
        shmem_long_put(priv, x, 4, 2);
    }
    if (!strcmp(c, "malloc_amo") && me == 2) shmem_int_atomic_add(malloc(sizeof(int)), 1, 0);
    if (!strcmp(c, "mmap_wait") && me == 3) {
        long *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        shmem_long_wait_until(priv, SHMEM_CMP_EQ, 1);
    }
    if (!strcmp(c, "peer_heap")) {   /* PE 1's malloc buffer, by its global address */
        static void *pub;
        if (me == 1) pub = malloc(64);   /* its own global address: the heap is in the slot */
        shmem_barrier_all();
        void *p;
        shmem_getmem(&p, &pub, sizeof p, 1);
        if (me == 0) shmem_putmem(p, x, 8, 2);
        shmem_barrier_all();
    }
    if (!strcmp(c, "ctrl") && me == 0) {   /* the start of this PE's slot: its control block */
        uintptr_t slot = (uintptr_t)sm_global(x) & ~(((uintptr_t)1 << 36) - 1);
        shmem_getmem(x, (void *)slot, 8, 1);
    }
    if (!strcmp(c, "sym_end")) {   /* run with SHMEM_SYMMETRIC_SIZE=1M: the first block is at its start */
        char *h = shmem_malloc(64);
        if (me == 3) shmem_putmem(h + (1 << 20) - 8, x, 16, 1);
    }
    if (!strcmp(c, "free") && me == 0) shmem_free(x);
    if (!strcmp(c, "cmp") && me == 0) shmem_long_wait_until(x, 42, 0);
    if (!strcmp(c, "exit") && me == 1) shmem_global_exit(7);
    if (!strcmp(c, "nofinalize") && me == 1) return 0;
    if (!strcmp(c, "symsize")) {   /* SHMEM_SYMMETRIC_SIZE=1M */
        void *a = shmem_malloc((1 << 20) + 1), *b = shmem_malloc(1 << 20);
        if (a || !b) { fprintf(stderr, "PE %d: a 1 MiB heap gave %p and %p\n", me, a, b); return 1; }
        shmem_free(b);
    }
    if (!strcmp(c, "bigalloc")) {
        void *p = shmem_malloc((size_t)1 << 40);
        if (p) { fprintf(stderr, "PE %d: 1 TiB allocation succeeded\n", me); return 1; }
    }
    shmem_finalize();
    return 0;
}
