/* shmem_test.h: what the OpenSHMEM test programs share: the PE numbers,
 * sizes, CHECK, and start-up. Each program tests one routine group, checked
 * element by element on any number of PEs, and exits non-zero with the PE,
 * line and values on failure. */
#ifndef SHMEM_TEST_H
#define SHMEM_TEST_H
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <smartmap.h>

#include "../core/check.h"   /* CHECK: names the PE (= rank), the place and the condition */

static int me, npes;
#define N 37                    /* odd sizes throughout */
/* Iterations of the contended loops: SHMEM_TEST_ITER (jobs across nodes
 * over TCP run fewer), else 1000. */
static int shmem_test_iter = 1000;
#define ITER shmem_test_iter

static inline void test_start(void)
{
    const char *it = getenv("SHMEM_TEST_ITER");
    if (it && atoi(it) > 0) shmem_test_iter = atoi(it);
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
}
#endif
