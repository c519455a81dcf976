/* Job bootstrap: map every rank's slot, move the executable's .data/.bss and
 * the main-thread stack into the rank's own slot, hand the heap to the
 * allocator, publish the layout. Runs before main(), or at the first malloc
 * if that comes earlier; nothing here may call malloc. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sm_core.h"
#include "sm_alloc.h"

struct sm_core sm_core = { .rank = 0, .size = 1, .own_fd = -1 };

static _Atomic int init_state; /* 0 not started, 1 running, 2 done */
static _Atomic pid_t init_tid; /* the thread running init: its own mallocs must not wait */

static void vsay(const char *fmt, va_list ap)
{
    char buf[512];
    int n = sm_core.size > 1 ? snprintf(buf, sizeof buf, "smartmap: rank %d: ", sm_core.rank)
                             : snprintf(buf, sizeof buf, "smartmap: ");
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}

void sm_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

_Noreturn void sm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    _exit(1);
}

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end) return dflt;
    return v;
}

/* MemTotal from /proc/meminfo, in bytes (0 if unreadable). */
static uint64_t mem_total(void)
{
    char buf[256];
    int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    unsigned long long kb = 0;
    if (sscanf(buf, "MemTotal: %llu kB", &kb) != 1) return 0;
    return (uint64_t)kb << 10;
}

/* Read /proc/self/maps into buf (no malloc). */
static size_t read_maps(char *buf, size_t cap)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t len = 0;
    ssize_t n;
    while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0) len += (size_t)n;
    close(fd);
    buf[len] = 0;
    return len;
}

/* --- Slots ---------------------------------------------------------------- */

/* Say why the slot range could not be reserved, naming what is in the way:
 * a mapping of the program's (EEXIST), or the address-space limit. */
static _Noreturn void slot_range_taken(void *want, size_t span, int err)
{
    uintptr_t lo = (uintptr_t)want, hi = lo + span;
    char what[200] = "";
    if (err == EEXIST) {
        static char maps[1 << 19];
        read_maps(maps, sizeof maps);
        for (char *line = maps; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            unsigned long a, b;
            int name = 0;
            if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &a, &b, &name) >= 2 && a < hi && b > lo) {
                snprintf(what, sizeof what, "[%#lx, %#lx) %s is mapped there", a, b,
                         name && line[name] ? line + name : "(anonymous)");
                break;
            }
            line = nl ? nl + 1 : NULL;
        }
        if (!what[0]) snprintf(what, sizeof what, "something else is mapped there");
    } else if (err == ENOMEM) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(what, sizeof what, "the address-space limit (ulimit -v) is %llu MiB; "
                     "the job needs %zu GiB of it", (unsigned long long)(rl.rlim_cur >> 20), span >> 30);
        else
            snprintf(what, sizeof what, "%s", strerrordesc_np(err));
    } else {
        snprintf(what, sizeof what, "%s", err ? strerrordesc_np(err) : "the kernel placed it elsewhere");
    }
    sm_fatal("init: cannot reserve the slot range [%p, %p) for %d ranks: %s", want, (void *)hi,
             sm_core.size, what);
}

static void map_slots(int fd0)
{
    size_t span = (size_t)sm_core.size << SM_SLOT_SHIFT;
    void *want = (void *)(uintptr_t)SM_BASE;
    /* Reserve the whole range first so nothing else can land between slots. */
    void *res = mmap(want, span, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (res == MAP_FAILED || res != want)
        slot_range_taken(want, span, res == MAP_FAILED ? errno : 0);
    /* Whole slots, beyond the memfds' ends: a rank that grows its memfd
     * (sm_symmetric_grow) needs no peer to map anything. */
    for (int r = 0; r < sm_core.size; r++) {
        void *at = (void *)sm_slot_base(r);
        void *p = mmap(at, SM_SLOT, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd0 + r, 0);
        if (p != at)
            sm_fatal("init: cannot map rank %d's slot (fd %d): %s", r, fd0 + r, strerrordesc_np(errno));
        if (sm_core.huge_pages) {
            madvise((char *)at + SM_HEAP_OFF, sm_core.heap_bytes, MADV_HUGEPAGE);
            madvise((char *)at + SM_SYM_OFF, SM_SYM_MAX, MADV_HUGEPAGE);
        }
    }
}

/* Work out who we are. Returns the fd of rank 0's memfd, or -1 for a
 * singleton (not started by smrun, or a process a rank started). */
static int find_job(void)
{
    long rank = env_long(SM_ENV_RANK, -1), size = env_long(SM_ENV_SIZE, -1);
    long fd0 = env_long(SM_ENV_FD0, -1);
    if (rank < 0 || size < 1 || size > SM_NMAX || rank >= size || fd0 < 0) return -1;
    /* The memfds must still be open: a rank closes them once mapped, so its
     * own children (which inherit the environment) fall back to singletons. */
    for (long r = 0; r < size; r++) {   /* (a rank may have grown its symmetric region) */
        struct stat st;
        if (fstat((int)(fd0 + r), &st) != 0 || st.st_size < (off_t)SM_SYM_OFF) return -1;
    }
    /* Claim the rank: the first process to initialise in it wins (the rank
     * itself, or the first program a non-smartmap wrapper such as sh starts). */
    struct sm_ctrl *c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (int)(fd0 + rank), 0);
    if (c == MAP_FAILED) return -1;
    int32_t expect = 0;
    bool claimed = __atomic_compare_exchange_n(&c->pid, &expect, (int32_t)getpid(), false,
                                               __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    munmap(c, 4096);
    if (!claimed) return -1;
    sm_core.rank = (int)rank;
    sm_core.size = (int)size;
    sm_core.slot_bytes = SM_SYM_OFF;
    long heap = env_long(SM_ENV_HEAP, 0);
    if (heap < (long)SM_HEAP_MIN || (uint64_t)heap > SM_HEAP_MAX || heap % (long)SM_HEAP_ALIGN) heap = SM_HEAP_MIN;
    sm_core.heap_bytes = (uint64_t)heap;
    return (int)fd0;
}

/* A job of one: make our own memfd, sized like smrun's default for one rank. */
static int make_singleton(void)
{
    sm_core.rank = 0;
    sm_core.size = 1;
    sm_core.singleton = true;
    uint64_t heap = mem_total() / 10 * 9;
    if (heap < SM_HEAP_MIN) heap = SM_HEAP_MIN;
    if (heap > SM_HEAP_MAX) heap = SM_HEAP_MAX;
    heap = (heap + SM_HEAP_ALIGN - 1) & ~(SM_HEAP_ALIGN - 1);
    int fd = memfd_create("smartmap.single", MFD_CLOEXEC);
    if (fd < 0) sm_fatal("init: memfd_create: %s", strerrordesc_np(errno));
    sm_core.heap_bytes = heap;
    sm_core.slot_bytes = SM_SYM_OFF;
    if (ftruncate(fd, (off_t)sm_core.slot_bytes) != 0)
        sm_fatal("init: cannot size the slot to %llu bytes: %s",
                 (unsigned long long)sm_core.slot_bytes, strerrordesc_np(errno));
    return fd;
}

/* --- Globals: the executable's writable PT_LOAD, after RELRO ------------- */

struct rw_seg { uintptr_t lo, hi; };

static int find_rw_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct rw_seg *seg = arg;
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    long pg = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(pg - 1);
        uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + pg - 1) & ~(uintptr_t)(pg - 1);
        /* ld.so makes [.., relro_end rounded down) read-only; keep that private. */
        uintptr_t r = relro_end & ~(uintptr_t)(pg - 1);
        if (r > lo && r < hi) lo = r;
        if (r >= hi) continue;
        seg->lo = lo;
        seg->hi = hi;
        break;
    }
    return 1; /* the first object is the executable */
}

static void expose_globals(void)
{
    struct rw_seg seg = { 0, 0 };
    dl_iterate_phdr(find_rw_segment, &seg);
    if (seg.hi <= seg.lo) return;
    size_t len = seg.hi - seg.lo;
    if (len > SM_GLOBALS_MAX) {
        sm_say("init: the executable's .data/.bss (%zu MiB) exceed the %llu MiB exposed window; "
               "globals reach peers through the fallback copy path", len >> 20,
               (unsigned long long)(SM_GLOBALS_MAX >> 20));
        return;
    }
    char *own = (char *)sm_slot_base(sm_core.rank) + SM_GLOBALS_OFF;
    memcpy(own, (void *)seg.lo, len);
    void *p = mmap((void *)seg.lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   sm_core.own_fd, (off_t)SM_GLOBALS_OFF);
    if (p != (void *)seg.lo)
        sm_fatal("init: cannot remap the executable's globals at %p: %s", (void *)seg.lo,
                 strerrordesc_np(errno));
    sm_core.globals_lo = seg.lo;
    sm_core.globals_len = len;
}

/* --- Stack: the main thread's stack moves onto the memfd in place -------- */

void sm_on_private_stack(void (*fn)(void))
{
    static ucontext_t back, ctx;
    static char stack[64 << 10] __attribute__((aligned(16)));
    getcontext(&ctx);
    ctx.uc_stack.ss_sp = stack;
    ctx.uc_stack.ss_size = sizeof stack;
    ctx.uc_link = &back; /* fn's return resumes the caller */
    makecontext(&ctx, fn, 0);
    swapcontext(&back, &ctx);
}

struct stack_move { uintptr_t old_lo, hi, new_lo; bool ok; };
static struct stack_move stack_move;

static void move_stack_on_alt(void)
{
    struct stack_move *m = &stack_move;
    char *own = (char *)sm_slot_base(sm_core.rank) + SM_STACK_OFF;
    memcpy(own + (m->old_lo - m->new_lo), (void *)m->old_lo, m->hi - m->old_lo);
    void *p = mmap((void *)m->new_lo, m->hi - m->new_lo, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, sm_core.own_fd, (off_t)SM_STACK_OFF);
    m->ok = (p == (void *)m->new_lo);
}

static void expose_stack(void)
{
    static char maps[1 << 19]; /* [stack] is the last line, after every slot's */
    size_t n = read_maps(maps, sizeof maps);
    if (n == 0) return;
    uintptr_t below_end = 0, lo = 0, hi = 0;
    for (char *line = maps; line && *line;) {
        char *nl = strchr(line, '\n');
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2) {
            char *tag = strstr(line, "[stack]");
            if (tag && (!nl || tag < nl)) { lo = a; hi = b; break; }
            below_end = b;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!hi) return;
    struct rlimit rl;
    uint64_t want = SM_STACK_MAX;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
        want = rl.rlim_cur;
    want &= ~(uint64_t)4095;
    if (want < hi - lo) want = hi - lo; /* never shrink what is in use */
    if (want > SM_STACK_MAX) return;
    uintptr_t new_lo = hi - want;
    if (new_lo < below_end + (1 << 20)) new_lo = below_end + (1 << 20); /* keep a guard gap */
    if (new_lo > lo) return;
    stack_move = (struct stack_move){ .old_lo = lo, .hi = hi, .new_lo = new_lo };
    /* Copy and remap from a private stack: nothing may run on the old one. */
    sm_on_private_stack(move_stack_on_alt);
    if (!stack_move.ok)
        sm_fatal("init: cannot remap the main stack [%p, %p): %s", (void *)new_lo, (void *)hi,
                 strerrordesc_np(errno));
    sm_core.stack_lo = new_lo;
    sm_core.stack_len = hi - new_lo;
}

/* --- Init ------------------------------------------------------------------ */

static void init_once(void)
{
    sm_core.pid = getpid();
    const char *pages = getenv(SM_ENV_PAGES);
    sm_core.huge_pages = pages && strcmp(pages, "2m") == 0;
    int fd0 = find_job();
    int own;
    if (fd0 >= 0) {
        map_slots(fd0);
        own = fcntl(fd0 + sm_core.rank, F_DUPFD_CLOEXEC, 3);
        if (own < 0) sm_fatal("init: dup of the rank's memfd: %s", strerrordesc_np(errno));
        /* Mapped now; our children must not inherit the job's memfds. */
        for (int r = 0; r < sm_core.size; r++) close(fd0 + r);
    } else {
        own = make_singleton();
        map_slots(own);
    }
    sm_core.own_fd = own;
    /* Not the affinity mask: a pinned rank sees one CPU however many there are. */
    sm_core.oversubscribed = sm_core.size > sysconf(_SC_NPROCESSORS_ONLN);
    sm_wait_init();

    expose_globals();
    expose_stack();
    sm_alloc_attach((void *)(sm_slot_base(sm_core.rank) + SM_HEAP_OFF), sm_core.heap_bytes);

    struct sm_rank_ctrl *c = sm_ctrl_of(sm_core.rank);
    c->job.rank = sm_core.rank;
    c->job.pid = sm_core.pid;
    c->globals_lo = sm_core.globals_lo;
    c->globals_len = sm_core.globals_len;
    c->stack_lo = sm_core.stack_lo;
    c->stack_len = sm_core.stack_len;
    __atomic_store_n(&c->job.magic, SM_CTRL_MAGIC, __ATOMIC_RELEASE);
    atomic_store_explicit(&c->ready, 1, memory_order_release);
    sm_wake_word((volatile uint32_t *)&c->ready);
}

void sm_core_init(void)
{
    int s = atomic_load_explicit(&init_state, memory_order_acquire);
    if (SM_LIKELY(s == 2)) return;
    int expect = 0;
    if (atomic_compare_exchange_strong(&init_state, &expect, 1)) {
        atomic_store(&init_tid, gettid());
        init_once();
        atomic_store_explicit(&init_state, 2, memory_order_release);
        __atomic_store_n(&sm_core.initialized, 1, __ATOMIC_RELEASE);
        return;
    }
    /* Init itself allocated (a libc routine did): let it through. */
    if (atomic_load(&init_tid) == gettid()) return;
    /* Another thread is initialising. */
    while (atomic_load_explicit(&init_state, memory_order_acquire) != 2) sched_yield();
}

void sm_wait_ready(int rank)
{
    struct sm_rank_ctrl *c = sm_ctrl_of(rank);
    while (!atomic_load_explicit(&c->ready, memory_order_acquire))
        sm_wait_word((volatile uint32_t *)&c->ready, 0);
}

__attribute__((constructor(101))) static void sm_constructor(void)
{
    sm_core_init();
    if (sm_core.size == 1) return;
    /* Output goes to smrun through a pipe: line buffering, as on a terminal,
     * so a rank killed because a peer failed has not lost its last lines. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    sm_copy_start_service();
    /* Every rank has moved its globals and stack into its slot before any
     * main() runs: a peer's early store must not be overwritten by the copy. */
    sm_barrier();
}

__attribute__((destructor)) static void sm_destructor(void)
{
    if (atomic_load(&init_state) == 2 && getpid() == sm_core.pid) sm_stats_report();
}

/* --- Public job API -------------------------------------------------------- */

int sm_rank(void) { sm_core_ensure(); return sm_core.rank; }
int sm_size(void) { sm_core_ensure(); return sm_core.size; }

void sm_mem_info(struct sm_mem_info *info)
{
    sm_core_init();
    struct stat st;
    info->heap_capacity = sm_core.heap_bytes;
    info->slot_resident = fstat(sm_core.own_fd, &st) == 0 ? (size_t)st.st_blocks * 512 : 0;
}

sm_status_t sm_symmetric_grow(uint64_t bytes)
{
    sm_core_init();
    if (bytes > SM_SYM_MAX)
        return sm_fail(SM_ERR_NOMEM, "a symmetric region of %llu bytes exceeds the %llu bytes a slot has room for",
                       (unsigned long long)bytes, (unsigned long long)SM_SYM_MAX);
    if (bytes <= sm_core.sym_bytes) return SM_OK;
    if (ftruncate(sm_core.own_fd, (off_t)(SM_SYM_OFF + bytes)) != 0)
        return sm_fail(SM_ERR_NOMEM, "cannot grow the slot's memfd to %llu bytes: %s",
                       (unsigned long long)(SM_SYM_OFF + bytes), strerrordesc_np(errno));
    sm_core.sym_bytes = bytes;
    sm_core.slot_bytes = SM_SYM_OFF + bytes;
    return SM_OK;
}

void sm_finalize_required(const char *routine)
{
    sm_core_init();
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    snprintf(c->finalize_name, sizeof c->finalize_name, "%s", routine ? routine : "finalize");
    atomic_fetch_or(&c->flags, SM_CTRL_NEEDS_FINALIZE);
}

void sm_finalize_done(void)
{
    sm_core_init();
    atomic_fetch_and(&sm_ctrl_of(sm_core.rank)->job.flags, ~(uint32_t)SM_CTRL_NEEDS_FINALIZE);
}

_Noreturn void sm_abort(int code, const char *note)
{
    sm_core_init();
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    snprintf(c->exit_note, sizeof c->exit_note, "%s", note ? note : "called sm_abort");
    c->exit_code = code;
    atomic_fetch_or(&c->flags, SM_CTRL_NOTE);
    if (sm_core.singleton) sm_say("%s", c->exit_note);
    _exit(code);
}
