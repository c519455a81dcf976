/* rma_test.h: what the one-sided engine's tests share: the rank numbers,
 * CHECK, and a status check that quotes the engine's reason. */
#ifndef RMA_TEST_H
#define RMA_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rma.h"

static int me, n;
static inline void test_start(void) { me = sm_rank(), n = sm_size(); }

/* An engine call that must give status want; on another, the reason. */
#define CHECK_ST(call, want)                                                                  \
    do {                                                                                      \
        sm_status_t st_ = (call);                                                             \
        CHECK(st_ == (want), "%s gave %s, not %s: %s", #call, sm_status_name(st_),           \
              sm_status_name(want), sm_fail_reason());                                        \
    } while (0)
/* The reason of the last failure contains text. */
#define CHECK_REASON(text) CHECK(strstr(sm_fail_reason(), text), "reason '%s' lacks '%s'", sm_fail_reason(), text)

/* The same value from every rank: rank 0's, fetched by all. */
static inline uint64_t from_rank0(uint64_t *shared, uint64_t mine)
{
    if (me == 0) *shared = mine;
    sm_barrier();
    uint64_t v = *(uint64_t *)sm_remote(0, shared);
    sm_barrier();
    return v;
}
#endif
