/* The copy engine: direct load/store where memory is exposed, else single
 * copy through the kernel (process_vm_readv/writev), else staged through the
 * slot by the owner's service thread. Counts the bytes each path carried.
 * Returns sm_status_t and records why (sm_fail); prints nothing: the public
 * sm_put/sm_get (api.c) and the engines report. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sm_core.h"

/* --- Translation of a peer's address ------------------------------------- */

/* [a, a+len) named in rank's own address space (not a slot address), as a
 * global address, or NULL if rank's memory there is not exposed (or not wholly). */
static void *peer_global_lookup(int rank, uintptr_t a, size_t len)
{
    uintptr_t glo, glen, slo, slen;
    if (rank == sm_core.rank) {
        glo = sm_core.globals_lo, glen = sm_core.globals_len;
        slo = sm_core.stack_lo, slen = sm_core.stack_len;
    } else {
        struct sm_rank_ctrl *c = sm_ctrl_of(rank);
        sm_wait_ready(rank);
        glo = c->globals_lo, glen = c->globals_len, slo = c->stack_lo, slen = c->stack_len;
    }
    if (a - glo < glen && len <= glen - (a - glo))
        return (void *)(sm_slot_base(rank) + SM_GLOBALS_OFF + (a - glo));
    if (a - slo < slen && len <= slen - (a - slo))
        return (void *)(sm_slot_base(rank) + SM_STACK_OFF + (a - slo));
    return NULL;
}

/* Global addresses (what sm_global and sm_remote give) pass straight through. */
static inline void *peer_global(int rank, uintptr_t a, size_t len)
{
    uintptr_t s = a - (uintptr_t)SM_BASE;
    if (SM_LIKELY(s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT))) {
        uint64_t off = s & (SM_SLOT - 1);
        return off + len <= sm_core.slot_bytes ? (void *)a : NULL;
    }
    return peer_global_lookup(rank, a, len);
}

/* --- Statistics --------------------------------------------------------------- */

static _Atomic uint64_t path_bytes[SM_PATH_COUNT];

static inline void count(enum sm_path p, size_t n)
{
    if (SM_UNLIKELY(sm_setting(SM_SET_STATS)))
        atomic_fetch_add_explicit(&path_bytes[p], n, memory_order_relaxed);
}

/* The copy itself, in the direction asked: write is local -> remote. */
static inline void move(bool write, void *remote, void *local, size_t len)
{
    if (write) memcpy(remote, local, len);
    else memcpy(local, remote, len);
}

void sm_path_bytes(uint64_t out[SM_PATH_COUNT])
{
    for (int i = 0; i < SM_PATH_COUNT; i++) out[i] = atomic_load(&path_bytes[i]);
}

void sm_stats_report(void)
{
    if (!sm_setting(SM_SET_STATS)) return;
    sm_say("sm_put/sm_get bytes: direct %llu, kernel %llu, staged %llu",
           (unsigned long long)path_bytes[SM_PATH_DIRECT],
           (unsigned long long)path_bytes[SM_PATH_KERNEL],
           (unsigned long long)path_bytes[SM_PATH_STAGED]);
    uint64_t idle, slept;
    sm_wait_counts(&idle, &slept);
    sm_say("waits: %llu sleeps, %llu yields that found the core idle; %d CPU%s for the ranks on this machine%s",
           (unsigned long long)slept, (unsigned long long)idle, sm_core.cpus, sm_core.cpus == 1 ? "" : "s",
           sm_core.oversubscribed ? " (oversubscribed)" : "");
    if (sm_wait_ran_turns())
        sm_say("waits' turns that ran UCX events and looked again, not yielding: %llu",
               (unsigned long long)sm_wait_ran_turns());
    if (sm_wait_mate_waits())
        sm_say("waits for a rank on this rank's CPU, yielding from the first turn: %llu",
               (unsigned long long)sm_wait_mate_waits());
}

static sm_status_t access_error(int rank, bool write, uintptr_t remote, size_t len)
{
    return sm_fail(SM_ERR_ACCESS, "address %p (+%zu bytes) is not mapped %s in rank %d", (void *)remote,
                   len, write ? "writable" : "readable", rank);
}

/* --- Kernel path ------------------------------------------------------------- */

/* Set once the kernel said no (seccomp, ptrace rules): not asked again. */
static _Atomic bool kernel_denied;
/* 0: not probed yet, 1: probing, 2: done. */
static _Atomic int kernel_probed;

static int probe_child(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);       /* a trapped call kills, runs no handler */
    char from = 1, to = 0;
    struct iovec l = { &to, 1 }, r = { &from, 1 };
    syscall(SYS_process_vm_readv, (long)syscall(SYS_getpid), &l, 1L, &r, 1L, 0L);
    syscall(SYS_exit, 0);
    return 0;
}

/* A seccomp filter may kill the caller of process_vm_readv (SIGSYS) rather
 * than refuse it: try it once in a throw-away child sharing our memory (no
 * copy of it), and if that child is killed, never call it here. */
static void kernel_probe(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&kernel_probed, &expect, 1)) {
        while (atomic_load(&kernel_probed) != 2) sched_yield();
        return;
    }
    static char stack[16 << 10] __attribute__((aligned(16)));
    pid_t pid = clone(probe_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK, NULL);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, __WALL) != pid || !WIFEXITED(st)) atomic_store(&kernel_denied, true);
    atomic_store(&kernel_probed, 2);
}

static bool kernel_allowed(void)
{
    if (sm_setting(SM_SET_FALLBACK) != 0) return false;
    if (SM_UNLIKELY(atomic_load_explicit(&kernel_probed, memory_order_acquire) != 2)) kernel_probe();
    return !atomic_load_explicit(&kernel_denied, memory_order_relaxed);
}

/* SM_ERR_UNSUPPORTED if the kernel refuses this process the call. */
static sm_status_t kernel_copy(int rank, bool write, uintptr_t remote, void *local, size_t len)
{
    pid_t pid = sm_ctrl_of(rank)->job.pid;
    while (len) {
        struct iovec l = { local, len }, r = { (void *)remote, len };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPERM || errno == ENOSYS || errno == EACCES) {
                atomic_store(&kernel_denied, true);
                return sm_fail(SM_ERR_UNSUPPORTED, "process_vm_%sv: %s", write ? "write" : "read",
                               strerrordesc_np(errno));
            }
            if (errno == EFAULT) return access_error(rank, write, remote, len);
            return sm_fail(SM_ERR_STATE, "rank %d unreachable: %s", rank, strerrordesc_np(errno));
        }
        if (n == 0) return access_error(rank, write, remote, len);
        count(SM_PATH_KERNEL, (size_t)n);
        local = (char *)local + n;
        remote += (uintptr_t)n;
        len -= (size_t)n;
    }
    return SM_OK;
}

/* --- Staged path ------------------------------------------------------------- */

/* Is [a, a+len) mapped in this process with the access we need? */
struct range_check { uintptr_t at, end; bool need_write, ok; };

static bool check_mapping(const struct sm_mapping *m, void *arg)
{
    struct range_check *c = arg;
    if (m->hi <= c->at) return true;
    if (m->lo > c->at || m->perm[0] != 'r' || (c->need_write && m->perm[1] != 'w')) return false;
    c->at = m->hi;
    c->ok = c->at >= c->end;
    return !c->ok;
}

static bool range_accessible(uintptr_t a, size_t len, bool need_write)
{
    struct range_check c = { a, a + len, need_write, len == 0 };
    return sm_maps_each(check_mapping, &c) == SM_OK && c.ok;
}

static void *service_main(void *arg)
{
    struct sm_svc *s = &sm_ctrl_of(sm_core.rank)->svc;
    uint32_t seen = (uint32_t)(uintptr_t)arg; /* read before any peer could post */
    sm_wait_plain();                          /* it never runs UCX: the program's threads do */
    for (;;) {
        uint32_t req = sm_wait_word((volatile uint32_t *)&s->req, seen);
        seen = req;
        bool write = s->op == SM_SVC_WRITE; /* initiator writes into us */
        uintptr_t local = (uintptr_t)s->local;
        size_t len = (size_t)s->len;
        if (!range_accessible(local, len, write)) {
            s->result = SM_ERR_ACCESS;
        } else {
            if (write) memcpy((void *)local, (void *)(uintptr_t)s->global, len);
            else memcpy((void *)(uintptr_t)s->global, (void *)local, len);
            s->result = SM_OK;
        }
        atomic_store_explicit(&s->done, req, memory_order_release);
        sm_wake_word((volatile uint32_t *)&s->done);
    }
    return NULL;
}

sm_status_t sm_copy_start_service(void)
{
    struct sm_svc *s = &sm_ctrl_of(sm_core.rank)->svc;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 << 10);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits: signals go to the program */
    pthread_t t;
    uintptr_t seen = atomic_load(&s->req);
    int rc = pthread_create(&t, &attr, service_main, (void *)seen);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return sm_fail(SM_ERR_NOMEM, "cannot start the copy service thread: %s", strerrordesc_np(rc));
    pthread_setname_np(t, "smartmap-svc");
    atomic_store_explicit(&s->running, 1, memory_order_release);
    return SM_OK;
}

/* One request to rank's service thread; global is exposed memory of ours. */
static sm_status_t staged_request(int rank, enum sm_svc_op op, uintptr_t remote, uintptr_t global, size_t len)
{
    struct sm_svc *s = &sm_ctrl_of(rank)->svc;
    if (!atomic_load_explicit(&s->running, memory_order_acquire))
        return sm_fail(SM_ERR_STATE, "rank %d unreachable: it has no copy service thread", rank);
    uint32_t expect = 0;
    while (!atomic_compare_exchange_weak(&s->lock, &expect, 1)) {
        sm_wait_word((volatile uint32_t *)&s->lock, expect);
        expect = 0;
    }
    s->op = op;
    s->local = remote;
    s->global = global;
    s->len = len;
    uint32_t req = atomic_load(&s->req) + 1;
    atomic_store_explicit(&s->req, req, memory_order_release);
    sm_wake_word((volatile uint32_t *)&s->req);
    while (atomic_load_explicit(&s->done, memory_order_acquire) != req)
        sm_wait_word((volatile uint32_t *)&s->done, atomic_load(&s->done));
    sm_status_t result = s->result;
    atomic_store_explicit(&s->lock, 0, memory_order_release);
    sm_wake_word((volatile uint32_t *)&s->lock);
    return result == SM_OK ? SM_OK : access_error(rank, op == SM_SVC_WRITE, remote, len);
}

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER; /* our one bounce buffer */

static sm_status_t staged_copy(int rank, bool write, uintptr_t remote, void *local, size_t len)
{
    enum sm_svc_op op = write ? SM_SVC_WRITE : SM_SVC_READ;
    uint64_t off = sm_local_offset((uintptr_t)local);
    if (off != UINT64_MAX && off + len <= sm_core.slot_bytes) { /* one copy, by the owner */
        sm_status_t st = staged_request(rank, op, remote, sm_slot_base(sm_core.rank) + off, len);
        if (st == SM_OK) count(SM_PATH_STAGED, len);
        return st;
    }
    char *stage = (char *)sm_slot_base(sm_core.rank) + SM_STAGE_OFF;
    sm_status_t st = SM_OK;
    pthread_mutex_lock(&stage_lock);
    for (size_t done = 0; done < len && st == SM_OK;) {
        size_t n = len - done < SM_STAGE_SIZE ? len - done : SM_STAGE_SIZE;
        if (write) memcpy(stage, (char *)local + done, n);
        st = staged_request(rank, op, remote + done, (uintptr_t)stage, n);
        if (st == SM_OK && !write) memcpy((char *)local + done, stage, n);
        if (st == SM_OK) count(SM_PATH_STAGED, n);
        done += n;
    }
    pthread_mutex_unlock(&stage_lock);
    return st;
}

/* --- A chosen path, for engines that compare transports ---------------------- */

sm_status_t sm_copy_via(enum sm_path path, int rank, bool write, void *remote, void *local, size_t len)
{
    if (!len) return SM_OK;
    if (path == SM_PATH_DIRECT) {
        void *g = peer_global(rank, (uintptr_t)remote, len);
        if (!g) return sm_fail(SM_ERR_ACCESS, "address %p (+%zu bytes) of rank %d is not exposed",
                               remote, len, rank);
        move(write, g, local, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    return path == SM_PATH_KERNEL ? kernel_copy(rank, write, (uintptr_t)remote, local, len)
                                  : staged_copy(rank, write, (uintptr_t)remote, local, len);
}

/* --- Any path: direct, else kernel, else staged ------------------------------- */

/* Not a global (slot) address: the peer's own name for its exposed memory,
 * else a path through the kernel or the owner. Out of line: the fast path
 * below then needs no saved registers. */
static __attribute__((noinline)) sm_status_t copy_slow(int rank, bool write, uintptr_t remote, void *local,
                                                       size_t len)
{
    void *g = peer_global_lookup(rank, remote, len);
    if (!g && rank == sm_core.rank) g = (void *)remote;   /* our own private memory */
    if (g) {
        move(write, g, local, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    if (kernel_allowed()) {
        sm_status_t st = kernel_copy(rank, write, remote, local, len);
        if (st != SM_ERR_UNSUPPORTED) return st;
    }
    return staged_copy(rank, write, remote, local, len);
}

static __attribute__((noinline, cold)) sm_status_t bad_args(int rank, bool write, const void *remote, size_t len)
{
    if ((unsigned)rank >= (unsigned)sm_core.size)
        return sm_fail(SM_ERR_ARG, "rank %d out of range [0, %d)", rank, sm_core.size);
    if (len > PTRDIFF_MAX) return sm_fail(SM_ERR_ARG, "length %zu too large", len);
    bool dst_null = write ? !remote : remote != NULL;   /* put: dst is remote; get: dst is local */
    return sm_fail(SM_ERR_ARG, "%s is NULL (length %zu)", dst_null ? "dst" : "src", len);
}

#define COLD_COPY __attribute__((noinline, cold))
static inline sm_status_t copy_body(int rank, bool write, void *remote, void *local, size_t len)
{
    uintptr_t s = (uintptr_t)remote - (uintptr_t)SM_BASE;
    if (SM_LIKELY(s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT))) {   /* a global address */
        if ((s & (SM_SLOT - 1)) + len > sm_core.slot_bytes)
            return sm_fail(SM_ERR_ACCESS, "address %p (+%zu bytes) runs past the end of rank %d's slot",
                           remote, len, (int)(s >> SM_SLOT_SHIFT));
        count(SM_PATH_DIRECT, len);
        move(write, remote, local, len);
        return SM_OK;
    }
    return len ? copy_slow(rank, write, (uintptr_t)remote, local, len) : SM_OK;
}

/* Bad arguments, or a job spanning nodes: the slots of ranks on other nodes
 * are not mapped here. */
static COLD_COPY sm_status_t copy_checked(int rank, bool write, void *remote, void *local, size_t len)
{
    if ((unsigned)rank >= (unsigned)sm_core.size || len > PTRDIFF_MAX || (len && (!remote || !local)))
        return bad_args(rank, write, remote, len);
    uintptr_t s = (uintptr_t)remote - (uintptr_t)SM_BASE;
    int owner = s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT) ? (int)(s >> SM_SLOT_SHIFT) : rank;
    if (!sm_rank_local(rank) || !sm_rank_local(owner))
        return sm_fail(SM_ERR_UNSUPPORTED, "rank %d is on another node: direct access is not supported across nodes yet",
                       sm_rank_local(rank) ? owner : rank);
    return copy_body(rank, write, remote, local, len);
}

static inline sm_status_t copy(int rank, bool write, void *remote, void *local, size_t len)
{
    if (SM_UNLIKELY((unsigned)rank >= (unsigned)sm_core.size || len > PTRDIFF_MAX ||
                    (len && (!remote || !local)) || sm_core.nlocal != sm_core.size))
        return copy_checked(rank, write, remote, local, len);
    return copy_body(rank, write, remote, local, len);
}

sm_status_t sm_copy(int rank, bool write, void *remote, void *local, size_t len)
{
    return copy(rank, write, remote, local, len);
}

/* The body of sm_put and sm_get, which tail-call it: no extra call on the
 * path of a small copy. */
int sm_copy_api(const char *routine, int rank, bool write, void *remote, void *local, size_t len)
{
    sm_status_t st = copy(rank, write, remote, local, len);
    return SM_LIKELY(st == SM_OK) ? SM_OK : sm_public_error(routine, st);
}
