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
#define ITER 1000

static inline void test_start(void)
{
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
}
#endif
