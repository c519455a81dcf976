/* test_shmem_state.c: OpenSHMEM routines called before shmem_init or after
 * shmem_finalize are reported like shmem_malloc before shmem_init: one line
 * naming the routine, then the job ends. PE 1 makes the call; CTest checks
 * the message with tests/expect.py. Usage: test_shmem_state WHEN ROUTINE,
 * WHEN before or after. */
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <smartmap.h>

static long x[4], lock;

static void call(const char *r)
{
    long v[2] = {1, 2};
    if (!strcmp(r, "p")) shmem_long_p(x, 1, 0);
    if (!strcmp(r, "putmem")) shmem_putmem(x, v, sizeof v, 0);
    if (!strcmp(r, "get")) shmem_long_get(v, x, 2, 0);
    if (!strcmp(r, "iput")) shmem_long_iput(x, v, 2, 1, 2, 0);
    if (!strcmp(r, "amo")) (void)shmem_long_atomic_fetch_add(x, 1, 0);
    if (!strcmp(r, "ctx")) shmem_ctx_long_put(SHMEM_CTX_DEFAULT, x, v, 2, 0);
    if (!strcmp(r, "signal")) shmem_long_put_signal(x, v, 1, (uint64_t *)&x[2], 1, SHMEM_SIGNAL_SET, 0);
    if (!strcmp(r, "wait")) shmem_long_wait_until(x, SHMEM_CMP_EQ, 0);
    if (!strcmp(r, "lock")) shmem_set_lock(&lock);
    if (!strcmp(r, "quiet")) shmem_quiet();
    if (!strcmp(r, "ptr")) (void)shmem_ptr(x, 0);
    if (!strcmp(r, "malloc")) (void)shmem_malloc(8);
    fprintf(stderr, "PE %d: %s returned\n", sm_rank(), r);
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    bool before = !strcmp(argv[1], "before");
    if (before && sm_rank() == 1) call(argv[2]);
    shmem_init();
    shmem_finalize();
    if (!before && sm_rank() == 1) call(argv[2]);
    return 0;
}
