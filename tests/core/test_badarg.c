/* Bad arguments to the core API: return codes, and one message each naming
 * the routine and the value (the driver counts the messages). */
#include <errno.h>
#include <string.h>
#include "check.h"

int main(void)
{
    int me = sm_rank(), n = sm_size();
    char buf[64] = "x", out[64];
    CHECK(sm_put(n, buf, buf, 8) == SM_ERR_ARG, "sm_put to rank n");
    CHECK(sm_get(-1, out, buf, 8) == SM_ERR_ARG, "sm_get from rank -1");
    CHECK(sm_put(0, NULL, buf, 8) == SM_ERR_ARG, "sm_put to NULL");
    CHECK(sm_get(0, out, buf, (size_t)-1) == SM_ERR_ARG, "sm_get of SIZE_MAX bytes");
    CHECK(sm_put(0, NULL, buf, 0) == SM_OK, "a zero-length put is a no-op");
    /* An address that is mapped nowhere in the peer: an error, not a crash. */
    int peer = (me + 1) % n;
    if (peer != me)
        CHECK(sm_get(peer, out, (void *)0x10000, 8) == SM_ERR_ACCESS, "sm_get from an unmapped address");
    CHECK(sm_remote(n, buf) == NULL && sm_remote(-5, buf) == NULL, "sm_remote out of range");
    CHECK(sm_global((void *)0x10000) == NULL && !sm_exposed((void *)0x10000), "unmapped address");
    sm_barrier();
    if (me == 0) printf("badarg: ok\n");
    return 0;
}
