/* arch.h: the CPU's waiting and ordering instructions, in one place: the
 * spin-wait hint and the full barrier that wait.c and the engines use. */
#ifndef SM_ARCH_H
#define SM_ARCH_H

#include <stdatomic.h>

/* In a spin-wait loop: let the sibling hyperthread run, save power. */
static inline void sm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* A full barrier: no later load passes an earlier store. On x86 a locked add
 * to the stack orders ordinary memory like mfence at a fraction of its cost,
 * as Linux's smp_mb() does (it does not order non-temporal stores: memcpy
 * ends those with sfence itself). */
static inline void sm_full_fence(void)
{
#if defined(__x86_64__)
    __asm__ __volatile__("lock addl $0, -4(%%rsp)" ::: "memory", "cc");
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

#endif
