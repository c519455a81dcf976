/* arch.h: what the core and the engines need of the CPU, in one place: the
 * spin-wait hint, the full barrier, a prefetch for writing, and a call on
 * another stack. */
#ifndef SM_ARCH_H
#define SM_ARCH_H

#include <stdatomic.h>
#include <stdint.h>

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

/* Ask for the line at p in the exclusive state, to be written soon: the
 * store then finds it here instead of waiting for its owner's copy, with
 * every later store queued behind it (x86-64 CPUs without PREFETCHW decode
 * it as a NOP). */
static inline void sm_prefetch_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ __volatile__("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Ask for the line at p to be read soon. Not __builtin_prefetch: GCC 12.2
 * found a helper of sched.c's made of it alone "looping pure"
 * (-fdump-tree-all, local-pure-const) and deleted its call, its result
 * unused: the hint was not in the object, and the reader missed on every
 * record it read. The asm is volatile, never removed. */
static inline void sm_prefetch_read(const void *p)
{
#if defined(__x86_64__)
    __asm__ __volatile__("prefetcht0 %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 0, 3);
#endif
}

/* The stack pointer, near enough: where the caller's frame ends. */
static inline uintptr_t sm_stack_pointer(void)
{
#if defined(__x86_64__)
    uintptr_t sp;
    __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
    return sp;
#else
    return (uintptr_t)__builtin_frame_address(0);
#endif
}

/* Call fn on the stack that ends at top (16-byte aligned), and come back.
 * Plain code rather than makecontext/swapcontext, which AddressSanitizer
 * warns about in every process and handles only in part. Elsewhere the core
 * falls back to ucontext (init.c). */
#if defined(__x86_64__)
#define SM_ARCH_CALL_ON_STACK 1
static inline void sm_call_on_stack(void (*fn)(void), void *top)
{
    __asm__ __volatile__("mov %%rsp, %%rbx\n\t"
                         "mov %0, %%rsp\n\t"
                         "call *%1\n\t"
                         "mov %%rbx, %%rsp"
                         : "+r"(top), "+r"(fn)
                         :
                         : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
                           "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
#endif

#endif
