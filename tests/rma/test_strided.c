/* test_strided.c: strided transfers (rma.h) of 0 to 8 levels between a
 * rank's buffer and its right neighbour's, put and get, checked element by
 * element against the index arithmetic; spans and their errors. */
#include "rma_test.h"

#define BUF (1u << 20)
static unsigned char src[BUF], dst[BUF];

/* The byte offset of element idx (digits in count[1..]) and byte b. */
static size_t at(const size_t *count, const ptrdiff_t *stride, int levels, size_t flat)
{
    size_t off = flat % count[0];
    flat /= count[0];
    for (int l = 0; l < levels; l++) {
        off += (flat % count[l + 1]) * (size_t)stride[l];
        flat /= count[l + 1];
    }
    return off;
}

static void one_layout(const size_t *count, const ptrdiff_t *ss, const ptrdiff_t *ds, int levels, bool put)
{
    size_t total = count[0], sspan, dspan;
    for (int l = 1; l <= levels; l++) total *= count[l];
    CHECK_ST(rma_strided_span(count, ss, levels, &sspan), SM_OK);
    CHECK_ST(rma_strided_span(count, ds, levels, &dspan), SM_OK);
    CHECK(sspan <= BUF && dspan <= BUF, "spans %zu %zu", sspan, dspan);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (size_t i = 0; i < BUF; i++) src[i] = (unsigned char)(i * 7 + (size_t)me * 13), dst[i] = 0xEE;
    sm_barrier();
    if (put) rma_strided_copy(sm_remote(right, dst), ds, src, ss, count, levels);
    else rma_strided_copy(dst, ds, sm_remote(left, src), ss, count, levels);
    sm_barrier();
    /* dst now holds left's elements (put by left, or got from left) */
    static unsigned char want[BUF];
    memset(want, 0xEE, BUF);
    for (size_t e = 0; e < total; e++) {
        size_t s = at(count, ss, levels, e), d = at(count, ds, levels, e);
        want[d] = (unsigned char)(s * 7 + (size_t)left * 13);
    }
    for (size_t i = 0; i < BUF; i++)
        CHECK(dst[i] == want[i], "%d levels, %s: byte %zu is %u, not %u", levels, put ? "put" : "get", i, dst[i], want[i]);
    sm_barrier();
}

int main(void)
{
    test_start();
    /* 0 to 8 levels; blocks of 1 to 24 bytes (the fixed-size paths and others) */
    size_t count[RMA_STRIDE_LEVELS + 1];
    ptrdiff_t ss[RMA_STRIDE_LEVELS], ds[RMA_STRIDE_LEVELS];
    size_t blocks[] = {1, 2, 4, 8, 16, 24, 3};
    for (int levels = 0; levels <= RMA_STRIDE_LEVELS; levels++) {
        count[0] = blocks[levels % 7];
        size_t sext = count[0], dext = count[0];
        for (int l = 0; l < levels; l++) {
            count[l + 1] = levels > 5 ? 2 : (size_t)(3 - l % 2);
            ss[l] = (ptrdiff_t)(sext + (size_t)l + 1);    /* gaps in the source ... */
            ds[l] = (ptrdiff_t)(dext + 2 * (size_t)l);    /* ... and others (or none) in the destination */
            sext = (count[l + 1] - 1) * (size_t)ss[l] + sext;
            dext = (count[l + 1] - 1) * (size_t)ds[l] + dext;
        }
        one_layout(count, ss, ds, levels, true);
        one_layout(count, ss, ds, levels, false);
    }
    /* SHMEM's case: one level of elements at element strides */
    size_t c1[2] = {8, 100};
    ptrdiff_t s3 = 24, d2 = 16;
    one_layout(c1, &s3, &d2, 1, true);
    /* spans: empty, a stride that does not matter, errors */
    size_t span, c0[3] = {8, 0, 5};
    ptrdiff_t st[2] = {16, -1};
    CHECK_ST(rma_strided_span(c0, st, 2, &span), SM_OK);
    CHECK(span == 0, "a count of 0: span %zu", span);
    size_t c2[3] = {8, 4, 1};
    CHECK_ST(rma_strided_span(c2, st, 2, &span), SM_OK);
    CHECK(span == 56, "span %zu, not 56", span);
    size_t c3[3] = {8, 4, 2};
    CHECK_ST(rma_strided_span(c3, st, 2, &span), SM_ERR_ARG);
    CHECK_REASON("stride -1 must be positive");
    ptrdiff_t huge[1] = {PTRDIFF_MAX};
    size_t c4[2] = {8, 3};
    CHECK_ST(rma_strided_span(c4, huge, 1, &span), SM_ERR_ARG);
    CHECK_REASON("overflow the address space");
    CHECK_ST(rma_strided_span(c4, huge, RMA_STRIDE_LEVELS + 1, &span), SM_ERR_ARG);
    CHECK_REASON("stride levels");
    sm_barrier();
    return 0;
}
