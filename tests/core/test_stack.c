/* Large main-thread stack buffers (argv[1] MiB, default 6; run under
 * `ulimit -s unlimited` for more) are exposed: every rank writes its part
 * of every peer's stack buffer through the address the peer published. */
#include <string.h>
#include "check.h"

static uintptr_t published;   /* sm_global of this rank's stack buffer */

static void exchange(size_t mib)
{
    int me = sm_rank(), n = sm_size();
    size_t len = mib << 20, part = len / (size_t)n & ~(size_t)7;
    unsigned char buf[len];   /* a VLA: deep in the stack */
    memset(buf, 0, len);
    CHECK(sm_exposed(buf) && sm_exposed(buf + len - 1), "a %zu MiB stack buffer is not exposed", mib);
    published = (uintptr_t)sm_global(buf);
    sm_barrier();
    for (int r = 0; r < n; r++) {
        unsigned char *dst = (unsigned char *)*(uintptr_t *)sm_remote(r, &published) + (size_t)me * part;
        memset(dst, me % 251 + 1, part);
    }
    sm_barrier();
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < part; i += 4093)
            CHECK(buf[(size_t)r * part + i] == r % 251 + 1, "byte %zu from rank %d", i, r);
    sm_barrier();
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 6;
    exchange(mib);
    if (sm_rank() == 0) printf("stack: %zu MiB stack buffers exchanged by %d ranks\n", mib, sm_size());
    return 0;
}
