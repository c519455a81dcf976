/* dump.c: what a rank's core dump holds. Every slot is a shared mapping of
 * a memfd tens of GiB long, and the kernel writes a shared mapping whole,
 * allocating a zero page for each hole as it goes: a 2-rank job's core was
 * 66 GiB and grew shared memory while smrun waited. So every slot is left out
 * of cores (MADV_DONTDUMP, at init), and a crash handler puts back what the
 * rank itself holds: the pages its memfd has (SEEK_DATA), in its own slot
 * and at the addresses of its globals and main stack, whose holes are left
 * out. The core then holds the rank's touched memory, the stack included
 * (gdb's backtrace needs it), and is written in moments.
 *
 * The handler is installed only where the program and its tools have none
 * (a sanitizer's, a debugger's or the program's own handler comes first),
 * does its work only when a core will be written (RLIMIT_CORE), and then
 * lets the signal kill the process as it would have. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sm_core.h"

/* The signals whose default action writes a core (signal(7)), but SIGTRAP,
 * which belongs to debuggers. */
static const int core_signals[] = { SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS };

/* Most madvise calls a crash makes: each splits a mapping, and a process
 * has at most vm.max_map_count (65530) of them. */
#define DUMP_RANGES_MAX 8192

/* Walk the data extents of the memfd in [off, off+len), mapped at addr,
 * holes shorter than gap merged into the data around them. With apply, mark
 * data for the core and holes not; return the number of extents. */
static long walk_extents(uintptr_t addr, uint64_t off, uint64_t len, uint64_t gap, bool apply)
{
    int fd = sm_core.own_fd;
    uint64_t end = off + len, at = off;
    long n = 0;
    while (at < end) {
        off_t d = lseek(fd, (off_t)at, SEEK_DATA);
        if (d < 0 || (uint64_t)d >= end) break;   /* ENXIO: no data after at */
        uint64_t lo = (uint64_t)d, hi = lo;
        for (;;) {                                /* extend over short holes */
            off_t h = lseek(fd, (off_t)hi, SEEK_HOLE);
            hi = h < 0 || (uint64_t)h > end ? end : (uint64_t)h;
            if (hi >= end) break;
            off_t nd = lseek(fd, (off_t)hi, SEEK_DATA);
            if (nd < 0 || (uint64_t)nd >= end || (uint64_t)nd - hi >= gap) break;
            hi = (uint64_t)nd;
        }
        if (apply) {
            if (lo > at) madvise((void *)(addr + (at - off)), lo - at, MADV_DONTDUMP);
            madvise((void *)(addr + (lo - off)), hi - lo, MADV_DODUMP);
        }
        n++;
        at = hi;
    }
    if (apply && at < end) madvise((void *)(addr + (at - off)), end - at, MADV_DONTDUMP);
    return n;
}

static void dump_only_data(uintptr_t addr, uint64_t off, uint64_t len)
{
    if (!len) return;
    uint64_t gap = 64 << 10;
    while (walk_extents(addr, off, len, gap, false) > DUMP_RANGES_MAX / 3) gap *= 4;
    walk_extents(addr, off, len, gap, true);
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
    (void)si, (void)uc;
    int saved = errno;
    struct rlimit rl;
    if (getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur > 0) {
        /* After fork the child's heap is private (fork.c) but still the
         * memfd's where it has not written: the same walk suits it. */
        dump_only_data(sm_slot_base(sm_core.rank), 0, sm_core.slot_bytes);
        dump_only_data(sm_core.globals_lo, SM_GLOBALS_OFF, sm_core.globals_len);
        dump_only_data(sm_core.stack_lo, SM_STACK_OFF, sm_core.stack_len);
    }
    /* Die of the signal as without us: raised again, it is delivered when
     * this handler returns, in the context that caused it (a fault's
     * registers are what the core shows). */
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

void sm_dump_init(void)
{
    /* On a stack of its own, so that a main-stack overflow still gets here
     * (the main thread's, if the program has set none). */
    static char alt[64 << 10] __attribute__((aligned(16)));
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
        stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };
        sigaltstack(&ss, NULL);
    }
    struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO | SA_ONSTACK };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof core_signals / sizeof core_signals[0]; i++) {
        struct sigaction cur;
        if (sigaction(core_signals[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == SIG_DFL)
            sigaction(core_signals[i], &sa, NULL);
    }
}
