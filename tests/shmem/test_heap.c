/* test_heap.c: the symmetric heap: malloc, align, calloc, realloc, free; the same
 * offsets in every PE, first fit, clearing before the exit barrier. */
#include "shmem_test.h"

/* --- heap -------------------------------------------------------------------------- */
static void t_heap(void)
{
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
    long *hinted = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    *hinted = 0;
    shmem_barrier_all();
    shmem_long_atomic_inc(hinted, 0);
    shmem_barrier_all();
    CHECK(me != 0 || *hinted == npes, "malloc_with_hints counter %ld", *hinted);
    shmem_free(hinted);
    char *a = shmem_malloc(100), *b = shmem_align(4096, 5000), *c = shmem_calloc(77, 3);
    CHECK(a && b && c && (uintptr_t)b % 4096 == 0, "a %p b %p c %p", (void *)a, (void *)b, (void *)c);
    for (int i = 0; i < 231; i++) CHECK(c[i] == 0, "calloc byte %d = %d", i, c[i]);
    /* Same offsets everywhere: PE 0's own addresses, got from PE 0, are
     * where shmem_ptr puts PE 0's instances of mine (each PE's heap is in
     * its own slot, so the local addresses themselves differ). */
    uintptr_t mine[3] = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c};
    static uintptr_t theirs[3];
    if (me == 0) memcpy(theirs, mine, sizeof mine);
    shmem_barrier_all();
    uintptr_t p0[3];
    shmem_getmem(p0, theirs, sizeof p0, 0);
    for (int i = 0; i < 3; i++) {   /* PE 0 on another node: no shmem_ptr, the same distances */
        uintptr_t near = (uintptr_t)shmem_ptr((void *)mine[i], 0);
        CHECK(near ? p0[i] == near : p0[i] - p0[0] == mine[i] - mine[0], "offset %d differs from PE 0's", i);
    }
    for (int i = 0; i < 100; i++) a[i] = (char)(i + me);
    shmem_barrier_all();
    a = shmem_realloc(a, 100000);   /* must move or grow; content kept */
    for (int i = 0; i < 100; i++) CHECK(a[i] == (char)(i + me), "realloc byte %d", i);
    shmem_putmem(a + 99000, "xyz", 3, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(!memcmp(a + 99000, "xyz", 3), "put into the realloc'd block");
    /* realloc: NULL is malloc, shrinking keeps the block's contents, 0 frees */
    char *r = shmem_realloc(NULL, 300);
    CHECK(r != NULL, "realloc(NULL)");
    for (int i = 0; i < 300; i++) r[i] = (char)(3 * i + me);
    r = shmem_realloc(r, 50);
    for (int i = 0; i < 50; i++) CHECK(r[i] == (char)(3 * i + me), "shrunk byte %d", i);
    r = shmem_realloc(r, 2000);
    for (int i = 0; i < 50; i++) CHECK(r[i] == (char)(3 * i + me), "regrown byte %d", i);
    CHECK(shmem_realloc(r, 0) == NULL, "realloc to 0");
    shmem_free(b);
    char *d = shmem_align(4096, 4000);          /* first fit: reuses b's place */
    CHECK(d == b, "d %p b %p", (void *)d, (void *)b);
    shmem_free(a), shmem_free(c), shmem_free(d);
    /* calloc clears before its exit barrier: a put right after the call
     * (here into the peer's last bytes, which its memset reaches last) must
     * survive. */
    size_t cn = (size_t)24 << 20;
    char *z = shmem_calloc(cn, 1);
    shmem_putmem(z + cn - 8, "survive", 8, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(!memcmp(z + cn - 8, "survive", 8), "put after shmem_calloc wiped by the peer's clearing");
    CHECK(z[0] == 0 && z[cn / 2] == 0, "calloc not zero");
    shmem_free(z);
    /* Many small blocks, freed in a different order, then one big block. */
    void *v[50];
    for (int i = 0; i < 50; i++) v[i] = shmem_malloc((size_t)(i * 13 + 1));
    for (int i = 0; i < 50; i += 2) shmem_free(v[i]);
    for (int i = 1; i < 50; i += 2) shmem_free(v[i]);
    void *big = shmem_malloc(1 << 20);
    CHECK(big != NULL, "1 MiB after frees");
    shmem_free(big);
}

int main(void)
{
    test_start();
    t_heap();
    shmem_finalize();
    return 0;
}
