/* api.c: the entry points of smartmap.h that are not waiting or waking:
 * the job, translation, sm_put/sm_get, the lifecycle clients and abort.
 * Each makes sure the core is initialised (a program may call them before
 * libsmartmap's constructor has run), calls the internal routine, and turns
 * its status into the documented return code and one line naming the
 * routine. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_core.h"

/* --- The job --------------------------------------------------------------- */

int sm_rank(void) { sm_core_ensure(); return sm_core.rank; }
int sm_size(void) { sm_core_ensure(); return sm_core.world_size; }
sm_status_t sm_one_node(const char *what)
{
    if (SM_LIKELY(!sm_spans_nodes())) return SM_OK;
    return sm_fail(SM_ERR_UNSUPPORTED, "%s: not supported across nodes yet (the job's %d ranks are on more than "
                   "one node, %d on this one)", what, sm_core.size, sm_core.nlocal);
}

void sm_barrier(void)
{
    sm_core_ensure();
    /* Across nodes the job barrier covers the node only: PMIx's fence covers the job. */
    if (SM_UNLIKELY(sm_core.nlocal != sm_core.size)) {
        if (sm_pmix_fence() != SM_OK) sm_fatal("sm_barrier: %s", sm_fail_reason());
        return;
    }
    sm_job_barrier();
}

void sm_mem_info(struct sm_mem_info *info)
{
    sm_core_ensure();
    struct stat st;
    info->heap_capacity = sm_core.heap_bytes;
    info->slot_resident = fstat(sm_core.own_fd, &st) == 0 ? (size_t)st.st_blocks * 512 : 0;
}

/* --- Translation ------------------------------------------------------------ */

void *sm_global(const void *p)
{
    sm_core_ensure();
    uint64_t off = sm_local_offset((uintptr_t)p);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(sm_core.rank) + off);
}

void *sm_remote(int rank, const void *p)
{
    sm_core_ensure();
    if ((unsigned)rank >= (unsigned)sm_core.size || !sm_rank_local(rank)) return NULL;
    uint64_t off = sm_local_offset((uintptr_t)p);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(rank) + off);
}

bool sm_exposed(const void *p)
{
    sm_core_ensure();
    return sm_local_offset((uintptr_t)p) != UINT64_MAX;
}

/* --- Copy ------------------------------------------------------------------- */

int sm_put(int rank, void *dst, const void *src, size_t len)
{
    sm_core_ensure();
    return sm_copy_api("sm_put", rank, true, dst, (void *)src, len);
}

int sm_get(int rank, void *dst, const void *src, size_t len)
{
    sm_core_ensure();
    return sm_copy_api("sm_get", rank, false, (void *)src, dst, len);
}

/* --- Lifecycle clients (sm_job.h: struct sm_client) --------------------------- */

static pthread_mutex_t clients_lock = PTHREAD_MUTEX_INITIALIZER;

static struct sm_client *client_named(struct sm_ctrl *c, const char *routine)
{
    for (int i = 0; i < SM_CLIENT_MAX; i++)
        if (atomic_load(&c->client[i].state) == SM_CLIENT_REGISTERED &&
            strcmp(c->client[i].finalize, routine) == 0)
            return &c->client[i];
    return NULL;
}

static sm_status_t check_routine(const char *routine)
{
    if (!routine || !*routine) return sm_fail(SM_ERR_ARG, "the finalize routine's name is %s", routine ? "empty" : "NULL");
    if (strlen(routine) >= SM_CLIENT_NAME)
        return sm_fail(SM_ERR_ARG, "'%s' is longer than %d characters", routine, SM_CLIENT_NAME - 1);
    return SM_OK;
}

static sm_status_t client_register(const char *routine)
{
    sm_status_t st = check_routine(routine);
    if (st) return st;
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    if (client_named(c, routine)) return sm_fail(SM_ERR_STATE, "%s is already required", routine);
    for (int i = 0; i < SM_CLIENT_MAX; i++) {      /* remembered for good (sm_job.h) */
        if (strcmp(c->seen[i], routine) == 0) break;
        if (!c->seen[i][0]) { snprintf(c->seen[i], sizeof c->seen[i], "%s", routine); break; }
    }
    for (int i = 0; i < SM_CLIENT_MAX; i++) {
        struct sm_client *k = &c->client[i];
        if (atomic_load(&k->state) != SM_CLIENT_FREE) continue;
        atomic_store(&k->state, SM_CLIENT_CLAIMED);   /* smrun ignores a half-written name */
        snprintf(k->finalize, sizeof k->finalize, "%s", routine);
        atomic_store_explicit(&k->state, SM_CLIENT_REGISTERED, memory_order_release);
        return SM_OK;
    }
    return sm_fail(SM_ERR_STATE, "%d finalize routines are required already, the most there can be",
                   SM_CLIENT_MAX);
}

static sm_status_t client_deregister(const char *routine)
{
    sm_status_t st = check_routine(routine);
    if (st) return st;
    struct sm_client *k = client_named(&sm_ctrl_of(sm_core.rank)->job, routine);
    if (!k) return sm_fail(SM_ERR_STATE, "%s was not required (sm_finalize_required)", routine);
    atomic_store_explicit(&k->state, SM_CLIENT_FREE, memory_order_release);
    return SM_OK;
}

int sm_finalize_required(const char *finalize_routine)
{
    sm_core_ensure();
    pthread_mutex_lock(&clients_lock);
    sm_status_t st = client_register(finalize_routine);
    pthread_mutex_unlock(&clients_lock);
    return st == SM_OK ? SM_OK : sm_public_error("sm_finalize_required", st);
}

int sm_finalize_done(const char *finalize_routine)
{
    sm_core_ensure();
    pthread_mutex_lock(&clients_lock);
    sm_status_t st = client_deregister(finalize_routine);
    pthread_mutex_unlock(&clients_lock);
    return st == SM_OK ? SM_OK : sm_public_error("sm_finalize_done", st);
}

/* --- Abort ------------------------------------------------------------------- */

_Noreturn void sm_abort(int code, const char *note)
{
    sm_core_init();                 /* not joined: an abort must not wait for the others */
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    snprintf(c->exit_note, sizeof c->exit_note, "%s", note ? note : "called sm_abort");
    c->exit_code = code;
    atomic_fetch_or(&c->flags, SM_CTRL_NOTE);
    if (sm_core.singleton || sm_core.pmix) sm_say("%s", c->exit_note);   /* no smrun to print it */
    _exit(code);
}
