/* Who fences for the sleeper handshake (core/wait.c sm_wait_init): with a
 * core per rank, sleepers (membarrier) and wakers not; oversubscribed,
 * wakers, but with 3 or 4 ranks a CPU sleepers again, where sleeps are
 * rare and a fence on every small collective's release waited for its
 * lines to come back from the other CPU (docs/NOTES.md, coll8). Where
 * membarrier is refused, wakers always fence. Every rank on its own; the
 * settled state of the job checked last (8 ranks on 2 cores: sleepers). */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"
#include "sm_core.h"

int main(void)
{
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    bool mb = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
    bool over0 = sm_core.oversubscribed;
    uint16_t per0 = sm_core.per_cpu;
    int cpus0 = sm_core.cpus;
    const struct { bool over; int per; bool unfenced; } c[] = {
        { false, 1, true }, { true, 2, false }, { true, 3, true }, { true, 4, true },
        { true, 5, false }, { true, 8, false }, { true, 64, false }, { false, 1, true },
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        sm_core.oversubscribed = c[k].over, sm_core.per_cpu = (uint16_t)c[k].per;
        sm_wait_init();
        CHECK(sm_wake_unfenced == (c[k].unfenced && mb),
              "%s, %d ranks a CPU: wakers %s, want %s (membarrier %s)", c[k].over ? "oversubscribed" : "a core each",
              c[k].per, sm_wake_unfenced ? "unfenced" : "fencing", c[k].unfenced && mb ? "unfenced" : "fencing",
              mb ? "there" : "refused");
    }
    sm_core.oversubscribed = over0, sm_core.per_cpu = per0;
    sm_wait_init();
    /* the job's own state: what the settled CPUs give */
    bool want = mb && (!over0 || (per0 >= 3 && per0 <= 4));
    CHECK(sm_wake_unfenced == want, "job of %d on %d CPUs (%d a CPU): wakers %s", sm_core.size, cpus0, per0,
          sm_wake_unfenced ? "unfenced" : "fencing");
    if (sm_core.size == 8 && cpus0 == 2)
        CHECK(mb ? sm_wake_unfenced : !sm_wake_unfenced, "8 ranks on 2 CPUs: wakers %s",
              sm_wake_unfenced ? "unfenced" : "fencing");
    printf("rank %d: wait fence ok (%d a CPU on %d, wakers %s)\n", sm_core.rank, per0, cpus0,
           sm_wake_unfenced ? "unfenced" : "fencing");
    return 0;
}
