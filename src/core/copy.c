/* Translation (sm_global, sm_remote, sm_exposed) and the copy engine:
 * direct load/store where memory is exposed, else single copy through the
 * kernel (process_vm_readv/writev), else staged through the slot by the
 * owner's service thread. Counts the bytes each path carried. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sm_core.h"

/* --- Translation ----------------------------------------------------------- */

void *sm_global(const void *p)
{
    sm_core_ensure();
    uint64_t off = sm_local_offset((uintptr_t)p);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(sm_core.rank) + off);
}

void *sm_remote(int rank, const void *p)
{
    sm_core_ensure();
    if ((unsigned)rank >= (unsigned)sm_core.size) return NULL;
    uint64_t off = sm_local_offset((uintptr_t)p);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(rank) + off);
}

bool sm_exposed(const void *p)
{
    sm_core_ensure();
    return sm_local_offset((uintptr_t)p) != UINT64_MAX;
}

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
static int stats_mode = -1; /* -1 unknown, 0 off, 1 on */

static bool stats_on(void)
{
    if (SM_UNLIKELY(stats_mode < 0)) {
        const char *s = getenv("SMARTMAP_STATS");
        stats_mode = s && *s && strcmp(s, "0") != 0;
    }
    return stats_mode;
}

static inline void count(enum sm_path p, size_t n)
{
    if (SM_UNLIKELY(stats_mode != 0) && stats_on())
        atomic_fetch_add_explicit(&path_bytes[p], n, memory_order_relaxed);
}

void sm_path_bytes(uint64_t out[SM_PATH_COUNT])
{
    for (int i = 0; i < SM_PATH_COUNT; i++) out[i] = atomic_load(&path_bytes[i]);
}

void sm_stats_report(void)
{
    if (!stats_on()) return;
    sm_say("sm_put/sm_get bytes: direct %llu, kernel %llu, staged %llu",
           (unsigned long long)path_bytes[SM_PATH_DIRECT],
           (unsigned long long)path_bytes[SM_PATH_KERNEL],
           (unsigned long long)path_bytes[SM_PATH_STAGED]);
}

/* --- Kernel path ------------------------------------------------------------- */

/* 0 unknown, 1 usable, 2 denied (seccomp, ptrace rules) or not wanted. */
static _Atomic int kernel_path;

static bool kernel_allowed(void)
{
    int k = atomic_load_explicit(&kernel_path, memory_order_relaxed);
    if (SM_UNLIKELY(k == 0)) {
        const char *f = getenv("SMARTMAP_FALLBACK");
        k = f && strcmp(f, "staged") == 0 ? 2 : 1;
        atomic_store(&kernel_path, k);
    }
    return k == 1;
}

/* Returns 0, an errno for a real failure, or -1 if the kernel said no. */
static int kernel_copy(int rank, bool write, uintptr_t remote, void *local, size_t len)
{
    pid_t pid = sm_ctrl_of(rank)->job.pid;
    while (len) {
        struct iovec l = { local, len }, r = { (void *)remote, len };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPERM || errno == ENOSYS || errno == EACCES) {
                atomic_store(&kernel_path, 2);
                return -1;
            }
            return errno;
        }
        if (n == 0) return EFAULT;
        count(SM_PATH_KERNEL, (size_t)n);
        local = (char *)local + n;
        remote += (uintptr_t)n;
        len -= (size_t)n;
    }
    return 0;
}

/* --- Staged path ------------------------------------------------------------- */

/* Is [a, a+len) mapped in this process with the access we need? */
static bool range_accessible(uintptr_t a, size_t len, bool need_write)
{
    static char maps[1 << 18];
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t n = 0;
    ssize_t r;
    while (n < sizeof maps - 1 && (r = read(fd, maps + n, sizeof maps - 1 - n)) > 0) n += (size_t)r;
    close(fd);
    maps[n] = 0;
    uintptr_t at = a, end = a + len;
    for (char *line = maps; line && *line && at < end;) {
        unsigned long lo, hi;
        char perm[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && lo <= at && at < hi) {
            if (perm[0] != 'r' || (need_write && perm[1] != 'w')) return false;
            at = hi;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    return at >= end;
}

static void *service_main(void *arg)
{
    struct sm_svc *s = &sm_ctrl_of(sm_core.rank)->svc;
    uint32_t seen = (uint32_t)(uintptr_t)arg; /* read before any peer could post */
    for (;;) {
        uint32_t req = sm_wait_word((volatile uint32_t *)&s->req, seen);
        seen = req;
        bool write = s->op == SM_SVC_WRITE; /* initiator writes into us */
        uintptr_t local = (uintptr_t)s->local;
        size_t len = (size_t)s->len;
        if (!range_accessible(local, len, write)) {
            s->result = EFAULT;
        } else {
            if (write) memcpy((void *)local, (void *)(uintptr_t)s->global, len);
            else memcpy((void *)(uintptr_t)s->global, (void *)local, len);
            s->result = 0;
        }
        atomic_store_explicit(&s->done, req, memory_order_release);
        sm_wake_word((volatile uint32_t *)&s->done);
    }
    return NULL;
}

void sm_copy_start_service(void)
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
    if (rc != 0) {
        sm_say("init: cannot start the copy service thread: %s; peers cannot reach this rank's "
               "private memory without process_vm_writev", strerrordesc_np(rc));
        return;
    }
    pthread_setname_np(t, "smartmap-svc");
    atomic_store_explicit(&s->running, 1, memory_order_release);
}

/* One request to rank's service thread; global is exposed memory of ours. */
static int staged_request(int rank, enum sm_svc_op op, uintptr_t remote, uintptr_t global, size_t len)
{
    struct sm_svc *s = &sm_ctrl_of(rank)->svc;
    if (!atomic_load_explicit(&s->running, memory_order_acquire)) return ENOTSUP;
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
    int result = s->result;
    atomic_store_explicit(&s->lock, 0, memory_order_release);
    sm_wake_word((volatile uint32_t *)&s->lock);
    return result;
}

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER; /* our one bounce buffer */

static int staged_copy(int rank, bool write, uintptr_t remote, void *local, size_t len)
{
    enum sm_svc_op op = write ? SM_SVC_WRITE : SM_SVC_READ;
    uint64_t off = sm_local_offset((uintptr_t)local);
    if (off != UINT64_MAX && off + len <= sm_core.slot_bytes) { /* one copy, by the owner */
        int rc = staged_request(rank, op, remote, sm_slot_base(sm_core.rank) + off, len);
        if (rc == 0) count(SM_PATH_STAGED, len);
        return rc;
    }
    char *stage = (char *)sm_slot_base(sm_core.rank) + SM_STAGE_OFF;
    int rc = 0;
    pthread_mutex_lock(&stage_lock);
    for (size_t done = 0; done < len && rc == 0;) {
        size_t n = len - done < SM_STAGE_SIZE ? len - done : SM_STAGE_SIZE;
        if (write) memcpy(stage, (char *)local + done, n);
        rc = staged_request(rank, op, remote + done, (uintptr_t)stage, n);
        if (rc == 0 && !write) memcpy((char *)local + done, stage, n);
        if (rc == 0) count(SM_PATH_STAGED, n);
        done += n;
    }
    pthread_mutex_unlock(&stage_lock);
    return rc;
}

/* --- A chosen path, for engines that compare transports ---------------------- */

int sm_copy_via(enum sm_path path, int rank, bool write, void *remote, void *local, size_t len)
{
    sm_core_ensure();
    if (!len) return SM_OK;
    if (path == SM_PATH_DIRECT) {
        void *g = peer_global(rank, (uintptr_t)remote, len);
        if (!g) return SM_ERR_ACCESS;
        if (write) memcpy(g, local, len);
        else memcpy(local, g, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    int rc = path == SM_PATH_KERNEL ? kernel_copy(rank, write, (uintptr_t)remote, local, len)
                                    : staged_copy(rank, write, (uintptr_t)remote, local, len);
    return rc == 0 ? SM_OK : rc == EFAULT ? SM_ERR_ACCESS : SM_ERR_STATE;
}

/* --- sm_put / sm_get --------------------------------------------------------- */

static int copy_slow(const char *routine, int rank, bool write, uintptr_t remote, void *local,
                     size_t len)
{
    if (rank == sm_core.rank) { /* our own private memory */
        if (write) memcpy((void *)remote, local, len);
        else memcpy(local, (void *)remote, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    int rc = -1;
    if (kernel_allowed()) rc = kernel_copy(rank, write, remote, local, len);
    if (rc < 0) rc = staged_copy(rank, write, remote, local, len);
    if (rc == 0) return SM_OK;
    if (rc == EFAULT) {
        sm_say("%s: address %p (+%zu bytes) is not mapped %s in rank %d", routine,
               (void *)remote, len, write ? "writable" : "readable", rank);
        return SM_ERR_ACCESS;
    }
    sm_say("%s: rank %d unreachable: %s", routine, rank, strerrordesc_np(rc));
    return SM_ERR_STATE;
}

static inline int check_args(const char *routine, int rank, const void *dst, const void *src, size_t len)
{
    if (SM_UNLIKELY((unsigned)rank >= (unsigned)sm_core.size)) {
        sm_say("%s: rank %d out of range [0, %d)", routine, rank, sm_core.size);
        return SM_ERR_ARG;
    }
    if (SM_UNLIKELY(len && (!dst || !src))) {
        sm_say("%s: %s is NULL (length %zu)", routine, dst ? "src" : "dst", len);
        return SM_ERR_ARG;
    }
    if (SM_UNLIKELY(len > PTRDIFF_MAX)) {
        sm_say("%s: length %zu too large", routine, len);
        return SM_ERR_ARG;
    }
    return SM_OK;
}

int sm_put(int rank, void *dst, const void *src, size_t len)
{
    sm_core_ensure();
    int rc = check_args("sm_put", rank, dst, src, len);
    if (rc || !len) return rc;
    void *g = peer_global(rank, (uintptr_t)dst, len);
    if (SM_LIKELY(g != NULL)) {
        memcpy(g, src, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    return copy_slow("sm_put", rank, true, (uintptr_t)dst, (void *)src, len);
}

int sm_get(int rank, void *dst, const void *src, size_t len)
{
    sm_core_ensure();
    int rc = check_args("sm_get", rank, dst, src, len);
    if (rc || !len) return rc;
    void *g = peer_global(rank, (uintptr_t)src, len);
    if (SM_LIKELY(g != NULL)) {
        memcpy(dst, g, len);
        count(SM_PATH_DIRECT, len);
        return SM_OK;
    }
    return copy_slow("sm_get", rank, false, (uintptr_t)src, dst, len);
}
