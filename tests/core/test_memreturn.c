/* Freed memory really goes back to the system: the rank's memfd loses the
 * blocks (not merely unmapped pages), for huge and for many small blocks. */
#include <string.h>
#include "check.h"

static size_t resident(void)
{
    struct sm_mem_info mi;
    sm_mem_info(&mi);
    return mi.slot_resident;
}

int main(void)
{
    const size_t big = (size_t)256 << 20, MiB = 1 << 20;
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

    /* Many medium blocks: freed memory is purged (maybe after a delay) and
     * reused; a second round must not grow the slot. */
    enum { N = 512 };
    static char *v[N];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) { v[i] = malloc(256 << 10); memset(v[i], 2, 256 << 10); }
        for (int i = 0; i < N; i++) free(v[i]);
    }
    size_t peak_bound = after + (size_t)N * (256 << 10) + 64 * MiB;
    CHECK(resident() < peak_bound, "3 rounds of 128 MiB left %zu MiB resident", resident() / MiB);
    sm_barrier();
    if (sm_rank() == 0)
        printf("memreturn: 256 MiB touched %zu MiB -> freed %zu MiB resident\n", touched / MiB,
               after / MiB);
    return 0;
}
