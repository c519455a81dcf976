/* Every rank writes into every peer's malloc'd, large, realloc'd,
 * thread-allocated, global, main-stack and private (non-exposed) buffers,
 * through sm_remote, sm_global and sm_put/sm_get; every peer verifies. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "check.h"

#define CHUNK 4096                    /* bytes each writer owns in each buffer */
#define NMAXR 64
#define LARGE ((size_t)3 << 29)       /* 1.5 GiB of virtual memory */

enum kind { HEAP, LARGE_HEAP, REALLOCED, THREAD_HEAP, GLOBAL, STACK, PRIVATE, NKIND };
static const char *kind_name[NKIND] = { "malloc", "large malloc", "realloc", "thread malloc",
                                        "global", "main stack", "private mmap" };

/* Published directory, itself a global: peers read it with sm_remote. */
static struct { uintptr_t local[NKIND]; uintptr_t global[NKIND]; } dir;
static unsigned char global_buf[NMAXR * CHUNK];

static unsigned char pattern(int writer, int owner, int kind, size_t i)
{
    return (unsigned char)(writer * 31 + owner * 7 + kind * 13 + i * 3 + (i >> 8));
}

static void *thread_alloc(void *arg) { return malloc(*(size_t *)arg); }

/* Under AddressSanitizer its allocator serves malloc, outside the slot: only
 * globals and the main stack are exposed, and the heap kinds test the
 * fallback paths like the private mapping. */
static int exposed(int k)
{
#ifdef SM_SANITIZE
    return k == GLOBAL || k == STACK;
#else
    return k != PRIVATE;
#endif
}

/* Writer me fills its CHUNK in owner's buffer of kind k, a third by each method. */
static void write_chunk(int me, int owner, int k)
{
    unsigned char src[CHUNK];
    for (size_t i = 0; i < CHUNK; i++) src[i] = pattern(me, owner, k, i);
    size_t third = CHUNK / 3, off = (size_t)me * CHUNK;
    uintptr_t local = 0, global = 0;
    sm_get(owner, &local, &dir.local[k], sizeof local);            /* read the peer's directory */
    uintptr_t *gdir = sm_remote(owner, &dir.global[k]);
    CHECK(gdir != NULL, "sm_remote of a global returned NULL");
    global = *gdir;
    /* 1: a store through the address the owner published with sm_global */
    if (global) memcpy((char *)global + off, src, third);
    else CHECK(sm_put(owner, (char *)local + off, src, third) == SM_OK, "sm_put (private)");
    /* 2: sm_remote (symmetric globals), else sm_put to the owner's own pointer */
    if (k == GLOBAL) memcpy((char *)sm_remote(owner, global_buf) + off + third, src + third, third);
    else CHECK(sm_put(owner, (char *)local + off + third, src + third, third) == SM_OK, "sm_put");
    /* 3: sm_put to the global address, or to the local one when not exposed */
    void *dst = global ? (char *)global + off + 2 * third : (char *)local + off + 2 * third;
    CHECK(sm_put(owner, dst, src + 2 * third, CHUNK - 2 * third) == SM_OK, "sm_put (third)");
    /* And read it back with sm_get from the owner's own pointer. */
    unsigned char back[CHUNK];
    CHECK(sm_get(owner, back, (char *)local + off, CHUNK) == SM_OK, "sm_get");
    CHECK(memcmp(back, src, CHUNK) == 0, "sm_get read back wrong data from rank %d's %s",
          owner, kind_name[k]);
}

int main(void)
{
    int me = sm_rank(), n = sm_size();
    CHECK(n <= NMAXR, "too many ranks");
    size_t size = (size_t)n * CHUNK;
    unsigned char stack_buf[NMAXR * CHUNK];
    unsigned char *buf[NKIND];

    buf[HEAP] = malloc(size);
    unsigned char *large = malloc(LARGE);
    CHECK(large != NULL, "malloc of 1.5 GiB failed");
    buf[LARGE_HEAP] = large + LARGE - size;                 /* the far end of it */
    unsigned char *r = malloc(16);
    memcpy(r, "realloc-keeps-me", 16);
    buf[REALLOCED] = realloc(r, size + 100000);
    CHECK(memcmp(buf[REALLOCED], "realloc-keeps-me", 16) == 0, "realloc lost the contents");
    pthread_t t;
    void *tbuf;
    pthread_create(&t, NULL, thread_alloc, &size);
    pthread_join(t, &tbuf);
    buf[THREAD_HEAP] = tbuf;
    buf[GLOBAL] = global_buf;
    buf[STACK] = stack_buf;
    buf[PRIVATE] = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf[PRIVATE] != MAP_FAILED, "mmap");

    for (int k = 0; k < NKIND; k++) {
        CHECK(sm_exposed(buf[k]) == exposed(k), "sm_exposed(%s) = %d", kind_name[k],
              sm_exposed(buf[k]));
        memset(buf[k], 0xEE, size);
        dir.local[k] = (uintptr_t)buf[k];
        dir.global[k] = (uintptr_t)sm_global(buf[k]);
        CHECK((dir.global[k] != 0) == exposed(k), "sm_global(%s)", kind_name[k]);
    }
    /* Translation edge cases. */
    CHECK(sm_remote(n, global_buf) == NULL, "sm_remote(size) must be NULL");
    CHECK(sm_remote(-1, global_buf) == NULL, "sm_remote(-1) must be NULL");
    CHECK(sm_global(buf[PRIVATE]) == NULL, "private memory has no global address");
    CHECK(sm_global(sm_global(buf[HEAP])) == sm_global(buf[HEAP]), "global of a global");
    CHECK(sm_remote(me, global_buf) == sm_global(global_buf), "sm_remote(me) == sm_global");
    int on_stack;
    CHECK(sm_exposed(&on_stack), "main-thread stack must be exposed");

    sm_barrier();
    for (int i = 1; i <= n; i++) {          /* each rank starts with a different peer */
        int owner = (me + i) % n;
        for (int k = 0; k < NKIND; k++) write_chunk(me, owner, k);
    }
    sm_barrier();
    for (int k = 0; k < NKIND; k++)
        for (int w = 0; w < n; w++)
            for (size_t i = 0; i < CHUNK; i++)
                CHECK(buf[k][(size_t)w * CHUNK + i] == pattern(w, me, k, i),
                      "%s byte %zu from rank %d: got %#x want %#x", kind_name[k], i, w,
                      buf[k][(size_t)w * CHUNK + i], pattern(w, me, k, i));

    /* Which path carried the private-memory bytes, if the test asks. */
    const char *expect = getenv("TEST_EXPECT_PATH");
    uint64_t bytes[SM_PATH_COUNT];
    sm_path_bytes(bytes);
    if (expect && n > 1) {
        int want = strcmp(expect, "staged") == 0 ? SM_PATH_STAGED : SM_PATH_KERNEL;
        int other = want == SM_PATH_STAGED ? SM_PATH_KERNEL : SM_PATH_STAGED;
        CHECK(bytes[want] > 0 && bytes[other] == 0, "expected the %s path: kernel %llu staged %llu",
              expect, (unsigned long long)bytes[SM_PATH_KERNEL], (unsigned long long)bytes[SM_PATH_STAGED]);
    }
    sm_barrier();
    free(large);
    free(buf[HEAP]);
    free(buf[REALLOCED]);
    free(tbuf);
    if (me == 0) printf("exchange: %d ranks x %d kinds verified\n", n, NKIND);
    return 0;
}
