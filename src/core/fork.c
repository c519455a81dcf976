/* fork() in a rank. The rank's globals, stack and heap are MAP_SHARED
 * mappings of its memfd, which a child would share rather than copy: parent
 * and child would run on the same stack pages. So fork runs on a private
 * stack, and the child makes its own copies of the globals and stack (and a
 * copy-on-write view of the heap) before either side returns. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sm_alloc.h"
#include "sm_core.h"

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t fork_result;
static int fork_errno;
static int fork_pipe[2];

/* Replace [lo, lo+len), the memfd's bytes from off, by private anonymous
 * memory with the same contents, copying only the pages that hold
 * something. Read from the memfd, not copied from [lo, lo+len): a checked
 * memcpy would report the sanitizer's redzones in the globals and stack. */
static bool privatize(uintptr_t lo, size_t len, uint64_t off)
{
    if (!len) return true;
    char *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) return false;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), npg = len / pg;
    unsigned char vec[4096];
    for (size_t first = 0; first < npg; first += sizeof vec) {
        size_t n = npg - first < sizeof vec ? npg - first : sizeof vec;
        if (mincore((void *)(lo + first * pg), n * pg, vec) != 0) memset(vec, 1, n);
        for (size_t i = 0; i < n; i++) {
            size_t at = (first + i) * pg;
            if ((vec[i] & 1) && pread(sm_core.own_fd, tmp + at, pg, (off_t)(off + at)) != (ssize_t)pg)
                return false;
        }
    }
    return mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == (void *)lo;
}

static void child_detach(void)
{
    bool ok = privatize(sm_core.globals_lo, sm_core.globals_len, SM_GLOBALS_OFF) &&
              privatize(sm_core.stack_lo, sm_core.stack_len, SM_STACK_OFF);
    uintptr_t heap = sm_slot_base(sm_core.rank) + SM_HEAP_OFF;
    ok = ok && mmap((void *)heap, sm_core.heap_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                    sm_core.own_fd, (off_t)SM_HEAP_OFF) == (void *)heap;
    if (ok) madvise((void *)heap, sm_core.heap_bytes, MADV_DONTDUMP);   /* as the slot was (dump.c) */
    /* The child cannot run on: its stack is still its parent's. */
    if (!ok) sm_fatal("fork: the child cannot copy the rank's memory: %s", strerrordesc_np(errno));
    sm_alloc_forked();
    sm_wait_init();     /* membarrier registration is not inherited */
    sm_core.globals_len = sm_core.stack_len = 0; /* the child's copies are private */
}

static void fork_on_private_stack(void)
{
    pid_t (*real_fork)(void) = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
    fork_result = real_fork();
    fork_errno = errno;
    if (fork_result == 0) {
        close(fork_pipe[0]);
        child_detach();
        char c = 1;
        ssize_t w = write(fork_pipe[1], &c, 1);
        (void)w;
        close(fork_pipe[1]);
    } else {
        close(fork_pipe[1]);
        if (fork_result > 0) { /* until the child has its copies (or died) */
            char c;
            while (read(fork_pipe[0], &c, 1) < 0 && errno == EINTR) {}
        }
        close(fork_pipe[0]);
    }
}

SM_API pid_t fork(void)
{
    sm_core_init();
    if (!sm_core.stack_len && !sm_core.globals_len) {
        pid_t (*real_fork)(void) = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
        return real_fork();
    }
    pthread_mutex_lock(&fork_lock);
    if (pipe2(fork_pipe, O_CLOEXEC) != 0) {
        pthread_mutex_unlock(&fork_lock);
        return -1;
    }
    sm_on_private_stack(fork_on_private_stack);
    pid_t r = fork_result;
    int e = fork_errno;
    if (r == 0) pthread_mutex_init(&fork_lock, NULL);
    else pthread_mutex_unlock(&fork_lock);
    errno = e;
    return r;
}
