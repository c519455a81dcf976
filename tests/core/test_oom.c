/* A full slot: malloc returns NULL with ENOMEM and the first failure prints
 * one line naming --mem-per-rank (the test driver checks the message count).
 * Run with a small --mem-per-rank. With argument "touch", every block is
 * written: in a memory cgroup the heap must end in ENOMEM before the
 * cgroup's limit (test_cgroup.py). */
#include <errno.h>
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    int touch = argc > 1 && !strcmp(argv[1], "touch");
    struct sm_mem_info mi;
    sm_mem_info(&mi);
    errno = 0;
    void *p = malloc(mi.heap_capacity + (1 << 20));
    CHECK(p == NULL && errno == ENOMEM, "malloc beyond the slot: %p errno %d", p, errno);
    errno = 0;
    CHECK(calloc(1, mi.heap_capacity * 2) == NULL && errno == ENOMEM, "calloc beyond the slot");
    void *q;
    CHECK(posix_memalign(&q, 64, mi.heap_capacity * 2) == ENOMEM, "posix_memalign beyond the slot");
    /* Fill it with 1 MiB blocks until it refuses; all of them are in the slot. */
    size_t got = 0;
    void *head = NULL;
    for (;;) {
        void **b = malloc(1 << 20);
        if (!b) { CHECK(errno == ENOMEM, "errno %d", errno); break; }
        CHECK(sm_exposed(b), "block outside the slot");
        if (touch) memset(b, 1, 1 << 20);
        *b = head;
        head = b;
        got += 1 << 20;
    }
    CHECK(got >= mi.heap_capacity / 2, "only %zu MiB of %zu MiB before ENOMEM", got >> 20,
          mi.heap_capacity >> 20);
    while (head) { void *next = *(void **)head; free(head); head = next; }
    /* After freeing, allocation works again. */
    p = malloc(1 << 20);
    CHECK(p != NULL, "malloc after freeing everything");
    free(p);
    printf("oom: rank %d filled %zu MiB of %zu MiB\n", sm_rank(), got >> 20, mi.heap_capacity >> 20);
    return 0;
}
