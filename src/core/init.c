/* Job bootstrap: read the settings, map every rank's slot, move the
 * executable's .data/.bss and the main-thread stack into the rank's own
 * slot, hand the heap to the allocator, publish the layout. Runs before
 * main(), or at the first malloc if that comes earlier; nothing here may call
 * malloc. A step that fails returns why (sm_status_t); init_once ends the
 * process with that line, the only place in the core that does. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/prctl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch.h"
#include "sm_core.h"
#include "sm_alloc.h"
#include "sm_memlimit.h"

static _Atomic int init_state; /* 0 not started, 1 running, 2 done */
static _Atomic pid_t init_tid; /* the thread running init: its own mallocs must not wait */

/* Copy [src, src+len) into the rank's own slot at offset off (mapped by
 * then, and zero there), by hand: the source is the live stack or the
 * globals, which a checked copy would report (AddressSanitizer their
 * redzones; valgrind the stack's uninitialised bytes, were they passed to a
 * system call). With sparse (the globals) zero words are not written, so a
 * large .bss costs no memory until used; not for the stack, whose
 * uninitialised bytes must not be tested (valgrind). len and the addresses
 * are multiples of 8. */
__attribute__((no_sanitize_address)) static void copy_to_own_slot(uint64_t off, const void *src, size_t len,
                                                                  bool sparse)
{
    const uint64_t *s = src;
    volatile uint64_t *d = (volatile uint64_t *)(sm_slot_base(sm_core.rank) + off);  /* no memcpy call */
    for (size_t i = 0; i < len / 8; i++) {
        uint64_t v = s[i];
        if (v || !sparse) d[i] = v;
    }
}

/* --- Slots ---------------------------------------------------------------- */

/* Why the slot range could not be reserved, naming what is in the way: a
 * mapping of the program's (EEXIST), or the address-space limit. */
struct in_the_way { uintptr_t lo, hi; char what[200]; };

static bool find_in_the_way(const struct sm_mapping *m, void *arg)
{
    struct in_the_way *w = arg;
    if (m->lo >= w->hi || m->hi <= w->lo) return true;
    snprintf(w->what, sizeof w->what, "[%#lx, %#lx) %s is mapped there", (unsigned long)m->lo,
             (unsigned long)m->hi, *m->path ? m->path : "(anonymous)");
    return false;
}

static sm_status_t slot_range_taken(void *want, size_t span, int err)
{
    struct in_the_way w = { (uintptr_t)want, (uintptr_t)want + span, "" };
    if (err == EEXIST) {
        sm_maps_each(find_in_the_way, &w);
        if (!w.what[0]) snprintf(w.what, sizeof w.what, "something else is mapped there");
    } else if (err == ENOMEM) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(w.what, sizeof w.what, "the address-space limit (ulimit -v) is %llu MiB; "
                     "the job needs %zu GiB of it", (unsigned long long)(rl.rlim_cur >> 20), span >> 30);
        else
            snprintf(w.what, sizeof w.what, "%s", strerrordesc_np(err));
    } else {
        snprintf(w.what, sizeof w.what, "%s", err ? strerrordesc_np(err) : "the kernel placed it elsewhere");
    }
    return sm_fail(SM_ERR_NOMEM, "cannot reserve the slot range [%p, %p) for %d ranks: %s", want,
                   (void *)w.hi, sm_core.size, w.what);
}

/* Reserve the slots of ranks [0, n) so nothing else can land between them. */
static sm_status_t reserve_slots(int n)
{
    size_t span = (size_t)n << SM_SLOT_SHIFT;
    void *want = (void *)(uintptr_t)SM_BASE;
    void *res = mmap(want, span, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (res == MAP_FAILED || res != want) {
        int err = res == MAP_FAILED ? errno : 0;
        if (res != MAP_FAILED) munmap(res, span);
        return slot_range_taken(want, span, err);
    }
    return SM_OK;
}

/* Map rank r's slot whole, beyond its memfd's end: a rank that grows its
 * memfd (sm_symmetric_grow) needs no peer to map anything. */
static sm_status_t map_slot(int r, int fd)
{
    void *at = (void *)sm_slot_base(r);
    void *p = mmap(at, SM_SLOT, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p != at)
        return sm_fail(SM_ERR_NOMEM, "cannot map rank %d's slot (fd %d): %s", r, fd, strerrordesc_np(errno));
    /* Out of core dumps, which would write it whole (dump.c). */
    madvise(at, SM_SLOT, MADV_DONTDUMP);
    if (sm_core.huge_pages) {
        madvise((char *)at + SM_HEAP_OFF, sm_core.heap_bytes, MADV_HUGEPAGE);
        madvise((char *)at + SM_SYM_OFF, SM_SYM_MAX, MADV_HUGEPAGE);
    }
    return SM_OK;
}

static sm_status_t map_slots(int fd0)
{
    sm_status_t st = reserve_slots(sm_core.size);
    for (int r = 0; r < sm_core.size && !st; r++) st = map_slot(r, fd0 + r);
    return st;
}

/* Why this process could not take its rank although it inherited the rank's
 * environment and memfds: it runs as a job of one, and fails with this
 * reason once it uses the job (sm_core_join). Empty otherwise. */
static char refused[320];
/* This process held the rank in an earlier image that never joined (a
 * wrapper that exec'd the program): the program takes the rank over. */
static bool takeover;

/* State, parent and name of process pid; false if there is none. */
static bool proc_stat(pid_t pid, char *state, pid_t *ppid, char *comm, size_t len)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    int p = 0;
    if (!open_paren || !close_paren || sscanf(close_paren + 1, " %c %d", state, &p) != 2) return false;
    snprintf(comm, len, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    *ppid = p;
    return true;
}

static bool is_ancestor(pid_t pid)
{
    char state, comm[32];
    pid_t p = getppid();
    for (int depth = 0; p > 1 && depth < 64; depth++) {
        if (p == pid) return true;
        if (!proc_stat(p, &state, &p, comm, sizeof comm)) return false;
    }
    return false;
}

static void refuse(int rank, pid_t holder)
{
    char state = 'X', comm[32] = "";
    pid_t ppid;
    bool alive = proc_stat(holder, &state, &ppid, comm, sizeof comm) && state != 'Z' && state != 'X';
    if (holder == getpid())
        snprintf(refused, sizeof refused, "this process has run a smartmap program in rank %d already, "
                 "which used the job: a rank runs one smartmap program (not another after exec)", rank);
    else if (alive && is_ancestor(holder))
        snprintf(refused, sizeof refused, "rank %d's program %s (pid %d) started this one: what a rank starts "
                 "is not part of the job (unset SMARTMAP_RANK to run it as a job of one)", rank, comm,
                 (int)holder);
    else
        snprintf(refused, sizeof refused, "rank %d %s %s (pid %d): a rank runs one smartmap program (a "
                 "wrapper script must exec its program)", rank, alive ? "runs" : "has run",
                 alive ? comm : "a smartmap program", (int)holder);
}

/* Work out who we are. Returns the fd of rank 0's memfd, or -1 for a
 * singleton (not started by smrun, or a process that cannot take its rank:
 * `refused` says why). */
static int find_job(void)
{
    uint64_t rank = sm_setting(SM_SET_RANK), size = sm_setting(SM_SET_SIZE), fd0 = sm_setting(SM_SET_FD0);
    if (size < 1 || size > SM_NMAX || rank >= size || fd0 > INT_MAX - SM_NMAX) return -1;
    /* The memfds must be open: a process that closed them has left the job. */
    for (uint64_t r = 0; r < size; r++) {   /* (a rank may have grown its symmetric region) */
        struct stat st;
        if (fstat((int)(fd0 + r), &st) != 0 || st.st_size < (off_t)SM_SYM_OFF) return -1;
    }
    /* Claim the rank: the first process to initialise in it takes it (the
     * rank itself, or the program a non-smartmap wrapper such as sh starts),
     * and keeps it across exec until it joins the job (a smartmap wrapper
     * that execs the program hands it on). Any other is refused. */
    struct sm_ctrl *c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (int)(fd0 + rank), 0);
    if (c == MAP_FAILED) return -1;
    int32_t holder = 0;
    bool claimed = __atomic_compare_exchange_n(&c->pid, &holder, (int32_t)getpid(), false,
                                               __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    if (!claimed && holder == getpid() && atomic_load(&c->stage) < SM_STAGE_JOINING)
        claimed = takeover = true;
    munmap(c, 4096);
    if (!claimed) {
        refuse((int)rank, holder);
        return -1;
    }
    sm_core.rank = (int)rank;
    sm_core.size = (int)size;
    sm_core.slot_bytes = SM_SYM_OFF;
    uint64_t heap = sm_setting(SM_SET_HEAP);
    if (heap < SM_HEAP_MIN || heap > SM_HEAP_MAX || heap % SM_HEAP_ALIGN) heap = SM_HEAP_MIN;
    sm_core.heap_bytes = heap;
    return (int)fd0;
}

/* A rank that makes its own memfd: a job of one, or a rank started by a
 * PMIx launcher. The heap as smrun's default would make it for nshare
 * ranks on the machine (a PMIx rank: SMARTMAP_HEAP_BYTES if set). */
static sm_status_t make_own_slot(int nshare, int *fd_out)
{
    uint64_t heap = sm_core.pmix ? sm_setting(SM_SET_HEAP) : SM_SETTING_UNSET;
    if (heap == SM_SETTING_UNSET || heap < SM_HEAP_MIN || heap > SM_HEAP_MAX)
        heap = sm_memory_limit() / 10 * 9 / (uint64_t)nshare;   /* as smrun's default */
    heap = heap / SM_HEAP_ALIGN * SM_HEAP_ALIGN;
    if (heap < SM_HEAP_MIN) heap = SM_HEAP_MIN;
    if (heap > SM_HEAP_MAX) heap = SM_HEAP_MAX;
    int fd = memfd_create(sm_core.singleton ? "smartmap.single" : "smartmap.rank", MFD_CLOEXEC);
    if (fd < 0) return sm_fail(SM_ERR_NOMEM, "memfd_create: %s", strerrordesc_np(errno));
    sm_core.heap_bytes = heap;
    sm_core.slot_bytes = SM_SYM_OFF;
    if (ftruncate(fd, (off_t)sm_core.slot_bytes) != 0)
        return sm_fail(SM_ERR_NOMEM, "cannot size the slot to %llu bytes: %s",
                       (unsigned long long)sm_core.slot_bytes, strerrordesc_np(errno));
    *fd_out = fd;
    return SM_OK;
}

/* A rank started by a PMIx launcher, before PMIx is up (it allocates):
 * its own slot only, in a reservation for the largest job; the peers come
 * in join_node (the constructor). Until then the job is as large as this
 * rank needs. */
static sm_status_t make_pmix_rank(int rank)
{
    sm_pmix_norandomize();
    sm_core.rank = rank;
    sm_core.size = rank + 1;
    sm_core.pmix = true;
    /* Open MPI says how many ranks share the machine; other launchers: set SMARTMAP_HEAP_BYTES. */
    const char *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    int nshare = ls ? atoi(ls) : 1;
    int fd;
    sm_status_t st = make_own_slot(nshare > 0 && nshare <= SM_NMAX ? nshare : 1, &fd);
    if (!st) st = reserve_slots(SM_NMAX);
    if (!st) st = map_slot(rank, fd);
    if (!st) sm_core.own_fd = fd;
    return st;
}

/* The symmetric region grows at an engine's request (sm_core.h); every
 * rank maps every slot whole (map_slots), so peers see it at once. */
sm_status_t sm_symmetric_grow(uint64_t bytes)
{
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

static sm_status_t expose_globals(void)
{
    struct rw_seg seg = { 0, 0 };
    dl_iterate_phdr(find_rw_segment, &seg);
    if (seg.hi <= seg.lo) return SM_OK;
    size_t len = seg.hi - seg.lo;
    if (len > SM_GLOBALS_MAX) {
        sm_say("init: the executable's .data/.bss (%zu MiB) exceed the %llu MiB exposed window; "
               "globals reach peers through the fallback copy path", len >> 20,
               (unsigned long long)(SM_GLOBALS_MAX >> 20));
        return SM_OK;
    }
    copy_to_own_slot(SM_GLOBALS_OFF, (void *)seg.lo, len, true);
    void *p = mmap((void *)seg.lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   sm_core.own_fd, (off_t)SM_GLOBALS_OFF);
    if (p != (void *)seg.lo)
        return sm_fail(SM_ERR_NOMEM, "cannot remap the executable's globals at %p: %s", (void *)seg.lo,
                       strerrordesc_np(errno));
    sm_core.globals_lo = seg.lo;
    sm_core.globals_len = len;
    return SM_OK;
}

/* --- Stack: the main thread's stack moves onto the memfd in place -------- */

void sm_on_private_stack(void (*fn)(void))
{
    static char stack[64 << 10] __attribute__((aligned(16)));
#ifdef SM_ARCH_CALL_ON_STACK
    sm_call_on_stack(fn, stack + sizeof stack);
#else
    static ucontext_t back, ctx;
    getcontext(&ctx);
    ctx.uc_stack.ss_sp = stack;
    ctx.uc_stack.ss_size = sizeof stack;
    ctx.uc_link = &back; /* fn's return resumes the caller */
    makecontext(&ctx, fn, 0);
    swapcontext(&back, &ctx);
#endif
}

struct stack_move { uintptr_t old_lo, hi, new_lo; sm_status_t st; };
static struct stack_move stack_move;

static void move_stack_on_alt(void)
{
    struct stack_move *m = &stack_move;
    copy_to_own_slot(SM_STACK_OFF + (m->old_lo - m->new_lo), (void *)m->old_lo, m->hi - m->old_lo, false);
    void *p = mmap((void *)m->new_lo, m->hi - m->new_lo, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, sm_core.own_fd, (off_t)SM_STACK_OFF);
    if (p != (void *)m->new_lo)
        m->st = sm_fail(SM_ERR_NOMEM, "cannot remap the main stack [%p, %p): %s", (void *)m->new_lo,
                        (void *)m->hi, strerrordesc_np(errno));
}

/* The mapping that holds the stack pointer (the kernel's [stack]; under
 * valgrind the one valgrind made for the program), and the end of the
 * mapping below it. */
struct stack_find { uintptr_t sp, below_end, lo, hi; };

static bool find_stack(const struct sm_mapping *m, void *arg)
{
    struct stack_find *f = arg;
    if (f->sp - m->lo >= m->hi - m->lo) { f->below_end = m->hi; return f->sp > m->hi; }
    f->lo = m->lo;
    f->hi = m->hi;
    return false;
}

/* /proc/PID/cmdline and environ read the argument and environment strings
 * from anonymous memory only (FOLL_ANON): once the stack that holds them is
 * the memfd's, ps would show [prog], and smrun's guardian could not find a
 * job's daemon by its environment. So copy the strings to anonymous memory
 * and point the kernel at them (PR_SET_MM_MAP: no privilege needed where the
 * kernel has checkpoint/restore; elsewhere they stay unreadable). */
static void keep_cmdline_readable(uintptr_t lo, uintptr_t hi)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return;
    buf[n] = 0;
    /* Fields 26-28 and 45-51 of stat(5): code, stack, data, brk, args, environment. */
    unsigned long long v[52] = { 0 };
    char *p = strrchr(buf, ')');
    for (int field = 3; p && field <= 51; field++) {
        p = strchr(p + 1, ' ');
        if (p) v[field] = strtoull(p + 1, NULL, 10);
    }
    struct prctl_mm_map map = {
        .start_code = v[26], .end_code = v[27], .start_stack = v[28], .start_data = v[45],
        .end_data = v[46], .start_brk = v[47], .brk = (uint64_t)syscall(SYS_brk, 0),
        .arg_start = v[48], .arg_end = v[49], .env_start = v[50], .env_end = v[51], .exe_fd = (uint32_t)-1,
    };
    uint64_t first = map.arg_start < map.env_start ? map.arg_start : map.env_start;
    uint64_t last = map.arg_end > map.env_end ? map.arg_end : map.env_end;
    if (!first || first < lo || last > hi || last <= first) return;
    char *copy = mmap(NULL, last - first, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) return;
    memcpy(copy, (void *)first, last - first);
    uint64_t shift = (uint64_t)copy - first;
    map.arg_start += shift, map.arg_end += shift, map.env_start += shift, map.env_end += shift;
    if (prctl(PR_SET_MM, PR_SET_MM_MAP, &map, sizeof map, 0) != 0) munmap(copy, last - first);
}

static sm_status_t expose_stack(void)
{
    struct stack_find f = { sm_stack_pointer(), 0, 0, 0 };
    if (sm_maps_each(find_stack, &f) != SM_OK || !f.hi) return SM_OK;  /* stays private: the fallback paths reach it */
    uintptr_t lo = f.lo, hi = f.hi;
    struct rlimit rl;
    uint64_t want = SM_STACK_MAX;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
        want = rl.rlim_cur;
    want &= ~(uint64_t)4095;
    if (want < hi - lo) want = hi - lo; /* never shrink what is in use */
    if (want > SM_STACK_MAX) return SM_OK;
    uintptr_t new_lo = hi - want;
    if (new_lo < f.below_end + (1 << 20)) new_lo = f.below_end + (1 << 20); /* keep a guard gap */
    if (new_lo > lo) return SM_OK;
    /* What lies below the stack pointer (and its red zone) is dead: not
     * copied (valgrind would report reading it). */
    uintptr_t live = (f.sp - 128) & ~(uintptr_t)15;
    stack_move = (struct stack_move){ .old_lo = live > lo ? live : lo, .hi = hi, .new_lo = new_lo };
    /* Copy and remap from a private stack: nothing may run on the old one. */
    sm_on_private_stack(move_stack_on_alt);
    if (stack_move.st) return stack_move.st;
    sm_core.stack_lo = new_lo;
    sm_core.stack_len = hi - new_lo;
    keep_cmdline_readable(new_lo, hi);
    return SM_OK;
}

/* --- Init ------------------------------------------------------------------ */

static sm_status_t join_job(void)
{
    int fd0 = find_job(), own = -1, prank;
    sm_status_t st;
    if (fd0 < 0 && !refused[0] && sm_pmix_launched(&prank)) {
        if (!sm_pmix_available())
            return sm_fail(SM_ERR_UNSUPPORTED, "started by a PMIx launcher (%s is set), but this smartmap was built "
                           "without PMIx: install libpmix-dev and rebuild, or start the job with smrun", "PMIX_RANK");
        return make_pmix_rank(prank);
    }
    if (fd0 >= 0) {
        if ((st = map_slots(fd0))) return st;
        own = fcntl(fd0 + sm_core.rank, F_DUPFD_CLOEXEC, 3);
        if (own < 0) return sm_fail(SM_ERR_NOMEM, "dup of the rank's memfd: %s", strerrordesc_np(errno));
        /* The memfds stay open: the program a wrapper execs takes the rank
         * over through them, and what the rank starts sees it is not the rank. */
    } else {
        sm_core.rank = 0;
        sm_core.size = 1;
        sm_core.singleton = true;
        if ((st = make_own_slot(1, &own)) || (st = map_slots(own))) return st;
    }
    sm_core.own_fd = own;
    /* Taking the rank over from the wrapper that exec'd us: its heap,
     * globals and stack go (the allocator needs a zero arena). Not its
     * control block, which holds the job barrier if we are rank 0; no peer
     * has used the rest, since none can be past the start-up barrier. */
    if (takeover && fallocate(own, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)SM_AREA_OFF,
                              (off_t)(sm_core.slot_bytes - SM_AREA_OFF)) != 0)
        return sm_fail(SM_ERR_NOMEM, "cannot clear the slot of the wrapper that exec'd this program: %s",
                       strerrordesc_np(errno));
    sm_core.nlocal = sm_core.size;
    for (int r = 0; r < sm_core.size; r++) sm_core.local[r / 64] |= 1ULL << (r % 64);
    /* The world: all slots, unless smrun says which of them (a universe
     * larger than -n, or a spawned world). */
    uint64_t wb = sm_setting(SM_SET_WBASE), ws = sm_setting(SM_SET_WSIZE);
    bool given = fd0 >= 0 && ws != SM_SETTING_UNSET && ws >= 1 && wb < (uint64_t)sm_core.size &&
                 ws <= (uint64_t)sm_core.size - wb && (uint64_t)sm_core.rank - wb < ws;
    sm_core.world_base = given ? (int)wb : 0;
    sm_core.world_size = given ? (int)ws : sm_core.size;
    return SM_OK;
}

/* A PMIx rank, in the constructor (PMIx allocates and starts a thread):
 * join the job, map the slots of the node's other ranks. The slots of ranks
 * on other nodes stay reserved and inaccessible. */
static sm_status_t join_node(void)
{
    int fd[SM_NMAX];
    for (int r = 0; r < SM_NMAX; r++) fd[r] = -1;
    sm_status_t st = sm_pmix_join(fd);
    if (!st) sm_wait_init();
    for (int r = 0; r < SM_NMAX; r++) {
        if (!st && r != sm_core.rank && fd[r] >= 0) st = map_slot(r, fd[r]);
        if (fd[r] >= 0) close(fd[r]);
    }
    if (st) return st;
    sm_core.world_base = 0;
    sm_core.world_size = sm_core.size;
    size_t beyond = (size_t)(SM_NMAX - sm_core.size) << SM_SLOT_SHIFT;
    if (beyond) munmap((void *)sm_slot_base(sm_core.size), beyond);
    /* (sm_pmix_join set oversubscribed: the ranks on this machine) */
    /* A job spanning nodes: the engines reach off-node ranks their own way
     * or refuse (sm_one_node); the core's direct paths refuse them. */
    return SM_OK;
}

static void init_once(void)
{
    sm_core.pid = getpid();
    char why[256];
    if (sm_settings_read(sm_core.setting, why, sizeof why) >= 0)
        sm_fatal("init: %s (smrun --info lists the settings)", why);
    sm_core.huge_pages = sm_setting(SM_SET_PAGES) == 1;   /* "4k|2m" */
    sm_status_t st = join_job();
    /* Every CPU until the ranks' own are known (sm_core_join; a PMIx
     * rank's, sm_pmix_join): fewer can only make the job oversubscribed,
     * which waits take up at once (sm_wait_init again). */
    sm_cpus_settle(NULL, 0, sm_core.size);
    /* (a PMIx rank's size is a placeholder until join_node: its waits are
     * set up there, once sm_pmix_join has counted the ranks on the machine) */
    if (!sm_core.pmix) sm_wait_init();
    if (!st) st = expose_globals();
    if (!st) st = expose_stack();
    if (!st) st = sm_alloc_attach((void *)(sm_slot_base(sm_core.rank) + SM_HEAP_OFF), sm_core.heap_bytes);
    if (st) sm_fatal("init: %s", sm_fail_reason());
    sm_dump_init();

    struct sm_rank_ctrl *c = sm_ctrl_of(sm_core.rank);
    if (takeover) memset(&c->svc, 0, sizeof c->svc);   /* the wrapper's service thread is gone */
    c->job.rank = sm_core.rank;
    c->job.pid = sm_core.pid;
    c->globals_lo = sm_core.globals_lo;
    c->globals_len = sm_core.globals_len;
    c->stack_lo = sm_core.stack_lo;
    c->stack_len = sm_core.stack_len;
    __atomic_store_n(&c->job.magic, SM_CTRL_MAGIC, __ATOMIC_RELEASE);
    atomic_store_explicit(&c->job.stage, SM_STAGE_EXPOSED, memory_order_release);
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
        return;
    }
    /* Init itself allocated (a libc routine did): let it through. */
    if (atomic_load(&init_tid) == gettid()) return;
    /* Another thread is initialising. */
    while (atomic_load_explicit(&init_state, memory_order_acquire) != 2) sched_yield();
}

/* --- The CPUs the ranks may run on ------------------------------------------ */

/* smrun's ranks, once every one has published its pid (the job barrier):
 * their CPUs, as the ranks run them (a wrapper's taskset included). */
static void settle_job_cpus(void)
{
    pid_t pids[SM_NMAX];
    int n = 0;
    for (int r = 0; r < sm_core.size; r++) {
        const struct sm_ctrl *c = &sm_ctrl_of(r)->job;
        if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) == SM_CTRL_MAGIC && c->pid > 0) pids[n++] = c->pid;
    }
    bool was = sm_core.oversubscribed;
    uint16_t was_per = sm_core.per_cpu;
    sm_cpus_settle(pids, n, sm_core.size);
    /* Wakers fence or not from here on, by the ranks a CPU (each rank
     * switches on its way out of the barrier: a wake missed meanwhile costs
     * a sleep's timeout, 50 us). */
    if (sm_core.oversubscribed != was || sm_core.per_cpu != was_per) sm_wait_init();
}

/* --- Joining the job -------------------------------------------------------- */

static _Atomic uint32_t join_state;  /* 0 not joined, 1 joining, 2 joined */

/* The ranks' programs run with address space randomisation off (smrun), so
 * that a global has the same address in all; what they start need not. Only
 * once joined: a wrapper that execs the program must pass it on. */
static void randomise_children(void)
{
    int pers = personality(0xffffffff);
    if (pers != -1 && (pers & ADDR_NO_RANDOMIZE)) personality((unsigned long)pers & ~(unsigned long)ADDR_NO_RANDOMIZE);
}

void sm_core_join(void)
{
    sm_core_init();
    uint32_t state = 0;
    if (!atomic_compare_exchange_strong(&join_state, &state, 1)) {
        while ((state = atomic_load(&join_state)) != 2) sm_wait_word((volatile uint32_t *)&join_state, state);
        return;
    }
    if (refused[0])
        sm_fatal("cannot join the job as rank %llu: %s", (unsigned long long)sm_setting(SM_SET_RANK), refused);
    if (!sm_core.singleton) {
        struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
        atomic_store(&c->stage, SM_STAGE_JOINING);
        /* Every rank's program has moved its globals and stack into its slot
         * before any uses the job: a peer's store cannot be lost to that copy. */
        sm_job_barrier();
        if (!sm_core.pmix) settle_job_cpus();
        atomic_store(&c->stage, SM_STAGE_JOINED);
        randomise_children();
    }
    __atomic_store_n(&sm_core.joined, 1, __ATOMIC_RELEASE);
    atomic_store(&join_state, 2);
    sm_wake_word((volatile uint32_t *)&join_state);
}

__attribute__((constructor(101))) static void sm_constructor(void)
{
    sm_core_init();
    if (sm_core.pmix && getpid() == sm_core.pid && join_node() != SM_OK) sm_fatal("init: %s", sm_fail_reason());
    if (sm_core.size == 1) return;
    /* Output goes to smrun through a pipe: line buffering, as on a terminal,
     * so a rank killed because a peer failed has not lost its last lines. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Peers reach the engines' blocks (libsmartmap's own malloc calls) in
     * the slot. A tool that replaces malloc in every library serves them
     * from elsewhere, and the job would hang: refuse it, saying why. */
    void *probe = malloc(64);
    bool ours = sm_alloc_owns(probe);
    free(probe);
    if (!ours)
        sm_fatal("init: another allocator serves libsmartmap's own blocks, which peers must reach in the "
                 "slot (under valgrind, add --soname-synonyms=somalloc=nouserintercepts)");
    if (sm_copy_start_service() != SM_OK)
        sm_say("init: %s; peers cannot reach this rank's private memory without process_vm_writev",
               sm_fail_reason());
}

/* Under a PMIx launcher no smrun watches the ranks' control blocks: a rank
 * leaving with a client's finalize not called (MPI_Init without
 * MPI_Finalize) says so itself and leaves PMIx unfinalised, so that the
 * launcher ends the job instead of letting its peers wait for it. */
static void pmix_exit(void)
{
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    bool pending = false;
    for (int i = 0; i < SM_CLIENT_MAX; i++)
        if (atomic_load(&c->client[i].state) == SM_CLIENT_REGISTERED) {
            sm_say("exited without calling %s; the launcher ends the job", c->client[i].finalize);
            pending = true;
        }
    if (!pending) sm_pmix_finalize();
}

__attribute__((destructor)) static void sm_destructor(void)
{
    if (atomic_load(&init_state) != 2 || getpid() != sm_core.pid) return;
    sm_stats_report();
    /* A rank that never used the job counts itself in the start-up barrier
     * on its way out, so that those that joined do not wait for it. */
    uint32_t never = 0;
    if (!sm_core.singleton && atomic_compare_exchange_strong(&join_state, &never, 2)) {
        atomic_store(&sm_ctrl_of(sm_core.rank)->job.stage, SM_STAGE_LEFT);
        sm_job_barrier_leave();
    }
    if (sm_core.pmix) pmix_exit();
}
