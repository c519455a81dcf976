/* strided.c: strided transfers (rma.h): the span a layout covers, and the
 * copy between two layouts, with fixed-size moves for the usual elements. */
#include "rma.h"

sm_status_t rma_strided_span(const size_t *count, const ptrdiff_t *stride, int levels, size_t *span)
{
    *span = 0;
    if (levels < 0 || levels > RMA_STRIDE_LEVELS)
        return sm_fail(SM_ERR_ARG, "%d stride levels (0..%d)", levels, RMA_STRIDE_LEVELS);
    for (int i = 0; i <= levels; i++)
        if (count[i] == 0) return SM_OK;
    size_t n = count[0], m;
    for (int i = 0; i < levels; i++) {
        if (stride[i] < 1 && count[i + 1] > 1) return sm_fail(SM_ERR_ARG, "stride %td must be positive", stride[i]);
        if (__builtin_mul_overflow((size_t)stride[i], count[i + 1] - 1, &m) || __builtin_add_overflow(n, m, &n))
            return sm_fail(SM_ERR_ARG, "%zu blocks at stride %td overflow the address space", count[i + 1], stride[i]);
    }
    *span = n;
    return SM_OK;
}

/* n blocks of elem bytes; the compiler inlines the fixed sizes. */
static void blocks(char *d, size_t ds, const char *s, size_t ss, size_t elem, size_t n)
{
#define RMA_BLOCKS(SZ) for (size_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, SZ); break
    switch (elem) {
    case 1: RMA_BLOCKS(1);
    case 2: RMA_BLOCKS(2);
    case 4: RMA_BLOCKS(4);
    case 8: RMA_BLOCKS(8);
    case 16: RMA_BLOCKS(16);
    default: RMA_BLOCKS(elem);
    }
#undef RMA_BLOCKS
}

void rma_strided_copy(void *dst, const ptrdiff_t *dst_stride, const void *src, const ptrdiff_t *src_stride,
                      const size_t *count, int levels)
{
    char *d = dst;
    const char *s = src;
    if (levels == 0) {
        memcpy(d, s, count[0]);
    } else if (levels == 1) {
        blocks(d, (size_t)dst_stride[0], s, (size_t)src_stride[0], count[0], count[1]);
    } else {
        size_t ds = (size_t)dst_stride[levels - 1], ss = (size_t)src_stride[levels - 1];
        for (size_t i = 0; i < count[levels]; i++)
            rma_strided_copy(d + i * ds, dst_stride, s + i * ss, src_stride, count, levels - 1);
    }
}
