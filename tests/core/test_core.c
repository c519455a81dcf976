/* A rank that crashes (argv[1]: segv, a real fault; abort), for the core-dump test
 * (test_coredump.py): its core must hold the rank's own touched memory (heap,
 * globals, the exposed main stack) and nothing of its peers' slots nor of the
 * untouched rest of its own, so that it is small, written at once, and gdb
 * can show the backtrace and the heap's values. Rank 0 crashes; the others
 * wait for it in sm_barrier. */
#include <stdint.h>
#include <string.h>
#include "check.h"

#define HEAP_WORDS (8u << 20)        /* 64 MiB of heap, touched */

uint64_t *heap_words;                /* gdb: print heap_words[12345] */
int marker_global = 0x5eed;

__attribute__((noinline)) static int crash_here(volatile int *where, int depth)
{
    if (depth > 0) return crash_here(where, depth - 1) + 1;
    return *where;                   /* SIGSEGV: where is NULL */
}

int main(int argc, char **argv)
{
    heap_words = malloc(HEAP_WORDS * sizeof *heap_words);
    CHECK(heap_words, "malloc");
    for (uint64_t i = 0; i < HEAP_WORDS; i++) heap_words[i] = i * 3 + 1;
    volatile int stack_marker = 0x57ac;
    sm_barrier();
    if (sm_rank() == 0) {
        if (argc > 1 && !strcmp(argv[1], "abort")) abort();
        volatile int *nowhere = (volatile int *)(uintptr_t)(argc > 5);   /* NULL, unknown to the compiler */
        return crash_here(nowhere, 3) + stack_marker;
    }
    sm_barrier();
    return 0;
}
