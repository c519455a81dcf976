/* state.c: the process-wide core state (sm_core.h), written once by the
 * bootstrap (init.c, pmix.c) and read by every other part of the core and
 * above. */
#define _GNU_SOURCE             /* CPU_OR, sched_getaffinity */
#include <sched.h>
#include <unistd.h>

#include "sm_core.h"

struct sm_core sm_core = { .rank = 0, .size = 1, .own_fd = -1 };

/* (sm_core.h) */
void sm_cpus_settle(const pid_t *pids, int n, int ranks)
{
    cpu_set_t all, one;
    CPU_ZERO(&all);
    for (int i = 0; i < n; i++)
        if (pids[i] > 0 && sched_getaffinity(pids[i], sizeof one, &one) == 0) CPU_OR(&all, &all, &one);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cpus = CPU_COUNT(&all);
    if (cpus <= 0 || (online > 0 && cpus > online)) cpus = online > 0 ? (int)online : 1;  /* (none read) */
    sm_core.cpus = cpus;
    sm_core.oversubscribed = ranks > cpus;
    sm_core.per_cpu = (uint16_t)(ranks > 0 ? (ranks + cpus - 1) / cpus : 1);
}
