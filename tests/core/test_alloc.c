/* The whole malloc family is served from the rank's slot, in every thread:
 * each entry point's block is exposed, aligned as asked, as large as
 * malloc_usable_size says, and writable by every peer; glibc's odd
 * alignments are accepted (rounded up), not refused as a full slot. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { MALLOC, CALLOC, REALLOC, REALLOCARRAY, POSIX_MEMALIGN, ALIGNED_ALLOC, MEMALIGN,
       MEMALIGN_ODD, ALIGNED_ODD, VALLOC, PVALLOC, NKIND };
static const char *name[NKIND] = { "malloc", "calloc", "realloc", "reallocarray",
    "posix_memalign", "aligned_alloc", "memalign", "memalign(24)", "aligned_alloc(100)",
    "valloc", "pvalloc" };
#define NMAXR 64
#define LEN 1000

/* Global addresses of this rank's blocks [thread][kind], read by peers. */
static uintptr_t blocks[2][NKIND];

static void *alloc_kind(int k, size_t *align)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    void *p = NULL;
    *align = sizeof(void *);
    errno = 0;
    switch (k) {
    case MALLOC: p = malloc(LEN); break;
    case CALLOC:
        p = calloc(LEN, 1);
        for (int i = 0; p && i < LEN; i++) CHECK(((char *)p)[i] == 0, "calloc: byte %d not zero", i);
        break;
    case REALLOC: p = realloc(malloc(10), LEN); break;
    case REALLOCARRAY: p = reallocarray(NULL, LEN / 10, 10); break;
    case POSIX_MEMALIGN: *align = 4096; CHECK(posix_memalign(&p, 4096, LEN) == 0, "posix_memalign"); break;
    case ALIGNED_ALLOC: *align = 256; p = aligned_alloc(256, LEN); break;
    case MEMALIGN: *align = 1 << 16; p = memalign(1 << 16, LEN); break;
    case MEMALIGN_ODD: *align = 32; p = memalign(24, LEN); break;       /* glibc: rounded up */
    case ALIGNED_ODD: *align = 128; p = aligned_alloc(100, LEN); break;
    case VALLOC: *align = pg; p = valloc(LEN); break;
    case PVALLOC: *align = pg; p = pvalloc(LEN); break;
    }
    CHECK(p != NULL, "%s(%d) returned NULL, errno %d", name[k], LEN, errno);
    CHECK(sm_exposed(p), "%s's block %p is not in the slot", name[k], p);
    CHECK((uintptr_t)p % *align == 0, "%s's block %p is not %zu-aligned", name[k], p, *align);
    size_t usable = malloc_usable_size(p);
    CHECK(usable >= LEN, "malloc_usable_size(%s's block) = %zu < %d", name[k], usable, LEN);
    if (k == PVALLOC) CHECK(usable % pg == 0, "pvalloc: usable size %zu is not whole pages", usable);
    memset(p, 0, usable);                                /* all of it is ours */
    return p;
}

static void *thread_main(void *arg)
{
    (void)arg;
    size_t align;
    for (int k = 0; k < NKIND; k++) blocks[1][k] = (uintptr_t)sm_global(alloc_kind(k, &align));
    return NULL;
}

int main(void)
{
    int me = sm_rank(), n = sm_size();
    CHECK(n <= NMAXR, "too many ranks");
    size_t align;
    void *local[NKIND];
    for (int k = 0; k < NKIND; k++) {
        local[k] = alloc_kind(k, &align);
        blocks[0][k] = (uintptr_t)sm_global(local[k]);
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    /* Bad alignments fail with EINVAL, and not as a full slot. */
    void *q;
    CHECK(posix_memalign(&q, 24, 8) == EINVAL, "posix_memalign(24) must be EINVAL");
    errno = 0;
    CHECK(memalign(SIZE_MAX, 8) == NULL && errno == EINVAL, "memalign(SIZE_MAX): errno %d", errno);
    sm_barrier();

    /* Every rank writes its byte into every peer's blocks, of both threads. */
    for (int p = 0; p < n; p++)
        for (int th = 0; th < 2; th++)
            for (int k = 0; k < NKIND; k++) {
                uintptr_t *g = sm_remote(p, &blocks[th][k]);
                CHECK(g && *g, "rank %d's %s block (thread %d) not published", p, name[k], th);
                ((unsigned char *)*g)[me] = (unsigned char)(me + 1);
                ((unsigned char *)*g)[LEN - 1 - me] = (unsigned char)(me + 1);
            }
    sm_barrier();
    for (int th = 0; th < 2; th++)
        for (int k = 0; k < NKIND; k++) {
            unsigned char *b = (unsigned char *)blocks[th][k];
            for (int w = 0; w < n; w++)
                CHECK(b[w] == w + 1 && b[LEN - 1 - w] == w + 1, "%s block (thread %d): rank %d's "
                      "bytes are %d, %d", name[k], th, w, b[w], b[LEN - 1 - w]);
        }
    for (int k = 0; k < NKIND; k++) free(local[k]);
    sm_barrier();
    if (me == 0) printf("alloc: %d entry points ok in %d ranks\n", NKIND, n);
    return 0;
}
