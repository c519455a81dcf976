/* rma.c: the one-sided engine's slow paths: error reports and strided copies. */
#include <stdarg.h>
#include <stdio.h>

#include "rma.h"

static void default_exit(int code) { sm_abort(code, "ended the job after an RMA error"); }
static rma_exit_fn exit_fn = default_exit;

void rma_set_exit(rma_exit_fn fn) { exit_fn = fn ? fn : default_exit; }

_Noreturn void rma_fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sm_say("%s", line);
    exit_fn(1);
    sm_abort(1, "ended the job after an RMA error");   /* exit_fn must not return */
}

_Noreturn void rma_bad_pe(const char *routine, int pe)
{
    rma_fail("%s: PE %d out of range (0..%d)", routine, pe, sm_core.size - 1);
}

_Noreturn void rma_bad_addr(const char *routine, const void *addr, size_t len, int pe)
{
    /* A negative size reaches here as a huge size_t: name it as the caller wrote it. */
    if ((ptrdiff_t)len < 0)
        rma_fail("%s: size %td is negative, target PE %d", routine, (ptrdiff_t)len, pe);
    if (sm_local_offset((uintptr_t)addr) == UINT64_MAX)
        rma_fail("%s: address %p is not symmetric (not exposed by smartmap), target PE %d",
                 routine, addr, pe);
    rma_fail("%s: address %p + %zu bytes extends beyond the exposed memory, target PE %d",
             routine, addr, len, pe);
}

/* Bytes spanned by nelems elements at a stride; 0 on overflow or a bad stride. */
static size_t span(ptrdiff_t stride, size_t elem, size_t nelems, const char *routine)
{
    if (nelems == 0) return 0;
    if (stride < 1) rma_fail("%s: stride %td must be positive", routine, stride);
    size_t s = (size_t)stride * elem, n;
    if (__builtin_mul_overflow(s, nelems - 1, &n) || __builtin_add_overflow(n, elem, &n))
        rma_fail("%s: %zu elements at stride %td overflow the address space", routine, nelems, stride);
    return n;
}

/* Copy element by element with fixed-size copies (inlined by the compiler). */
static void strided_copy(char *d, const char *s, size_t ds, size_t ss, size_t elem, size_t n)
{
#define SM_STRIDED(SZ) for (size_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, SZ); break
    switch (elem) {
    case 1: SM_STRIDED(1);
    case 2: SM_STRIDED(2);
    case 4: SM_STRIDED(4);
    case 8: SM_STRIDED(8);
    case 16: SM_STRIDED(16);
    default: SM_STRIDED(elem);
    }
#undef SM_STRIDED
}

void rma_iput(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
              size_t elem, size_t nelems, const char *routine)
{
    size_t dlen = span(dst_stride, elem, nelems, routine);
    span(src_stride, elem, nelems, routine);
    if (!nelems) return;
    char *r = rma_xlate(pe, dst, dlen, routine);
    strided_copy(r, src, (size_t)dst_stride * elem, (size_t)src_stride * elem, elem, nelems);
}

void rma_iget(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
              size_t elem, size_t nelems, const char *routine)
{
    size_t slen = span(src_stride, elem, nelems, routine);
    span(dst_stride, elem, nelems, routine);
    if (!nelems) return;
    const char *r = rma_xlate(pe, src, slen, routine);
    strided_copy(dst, r, (size_t)dst_stride * elem, (size_t)src_stride * elem, elem, nelems);
}
