/* Freed memory really goes back to the system, at once: the rank's memfd
 * loses the blocks (not merely unmapped pages), for every size class: huge
 * blocks, and many large, medium and small ones (shared memory is not
 * swappable, so a heap that keeps what was freed holds RAM for good). Also
 * for a thread's heap after the thread has ended. */
#include <pthread.h>
#include <string.h>
#include "check.h"

#define MiB ((size_t)1 << 20)

static size_t resident(void)
{
    struct sm_mem_info mi;
    sm_mem_info(&mi);
    return mi.slot_resident;
}

/* n blocks of size bytes, touched, then freed: what stays resident above
 * base must be small (a few pages of metadata, not the blocks). */
static void churn(const char *what, size_t size, size_t n)
{
    char **v = malloc(n * sizeof *v);
    CHECK(v, "malloc of %zu pointers", n);
    size_t base = resident();
    for (size_t i = 0; i < n; i++) {
        v[i] = malloc(size);
        CHECK(v[i] && sm_exposed(v[i]), "%s: malloc(%zu) number %zu", what, size, i);
        memset(v[i], 1, size);
    }
    size_t touched = resident();
    CHECK(touched >= base + size * n / 2, "%s: %zu MiB resident after touching %zu MiB", what,
          touched / MiB, size * n / MiB);
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    size_t after = resident();
    CHECK(after < base + 16 * MiB, "%s: %zu x %zu B freed, %zu MiB still resident (%zu MiB before, "
          "%zu MiB touched)", what, n, size, after / MiB, base / MiB, touched / MiB);
}

static void *thread_churn(void *arg)
{
    (void)arg;
    churn("thread, 256 KiB blocks", 256 << 10, 256);
    /* Blocks that outlive the thread are freed by main after it ended. */
    char **keep = malloc(256 * sizeof *keep);
    for (int i = 0; i < 256; i++) { keep[i] = malloc(64 << 10); memset(keep[i], 3, 64 << 10); }
    return keep;
}

int main(void)
{
    const size_t big = (size_t)256 << 20;
    size_t before = resident();
    char *p = malloc(big);
    CHECK(p && sm_exposed(p), "malloc(256 MiB)");
    memset(p, 1, big);
    size_t touched = resident();
    CHECK(touched >= before + big, "slot resident %zu MiB after touching 256 MiB (was %zu MiB)",
          touched / MiB, before / MiB);
    free(p);
    size_t after = resident();
    CHECK(after < touched - big / 2, "free(256 MiB) left %zu MiB resident (was %zu MiB touched)",
          after / MiB, touched / MiB);

    /* Every size class, 64 MiB each: large, medium, small blocks. */
    churn("1 MiB blocks", MiB, 64);
    churn("256 KiB blocks", 256 << 10, 256);
    churn("4000 B blocks", 4000, 16384);
    churn("100 B blocks", 100, 1 << 19);

    /* Another thread's heap: its frees, and main's frees of its blocks. */
    size_t base = resident();
    pthread_t t;
    void *keep;
    CHECK(pthread_create(&t, NULL, thread_churn, NULL) == 0, "pthread_create");
    CHECK(pthread_join(t, &keep) == 0, "pthread_join");
    for (int i = 0; i < 256; i++) free(((char **)keep)[i]);
    free(keep);
    /* A later allocation of main's reclaims the ended thread's segments. */
    free(malloc(64 << 10));
    CHECK(resident() < base + 24 * MiB, "a thread's 16 MiB freed after it ended: %zu MiB resident "
          "(%zu MiB before)", resident() / MiB, base / MiB);
    sm_barrier();
    if (sm_rank() == 0)
        printf("memreturn: 256 MiB touched %zu MiB -> freed %zu MiB resident; every size class "
               "returned\n", touched / MiB, after / MiB);
    return 0;
}
