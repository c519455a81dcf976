/* A program that knows nothing of smartmap (not linked with it): under
 * `smrun --preload` its malloc must come from the slot and peers must be
 * able to write into it. Finds the library's API with dlsym. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile long box[64];  /* a global: rank r's value arrives at box[r] */

int main(void)
{
    int (*rank)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "sm_rank");
    int (*size)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "sm_size");
    void *(*remote)(int, const void *) = (void *(*)(int, const void *))dlsym(RTLD_DEFAULT, "sm_remote");
    void (*barrier)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "sm_barrier");
    if (!rank || !size || !remote || !barrier) {
        fprintf(stderr, "preload_probe: libsmartmap is not loaded\n");
        return 1;
    }
    int me = rank(), n = size();
    char *p = malloc(1000);
    if (remote(me, p) != p) {   /* heap memory is in the rank's own slot: its own global address */
        fprintf(stderr, "rank %d: malloc returned %p, outside the rank's slot\n", me, (void *)p);
        return 1;
    }
    char *d = strdup("glibc's own allocations too");
    if (!remote(me, d)) { fprintf(stderr, "rank %d: strdup not in the slot\n", me); return 1; }
    for (int r = 0; r < n; r++) ((volatile long *)remote(r, (const void *)box))[me] = 1000 + me;
    barrier();
    for (int r = 0; r < n; r++)
        if (box[r] != 1000 + r) { fprintf(stderr, "rank %d: box[%d] = %ld\n", me, r, box[r]); return 1; }
    if (me == 0) printf("preload: %d ranks exchanged through an unlinked program\n", n);
    free(d);
    free(p);
    return 0;
}
