/* dtref.h: a reference model of datatypes for the dt tests, as plain as
 * MPI-3.1 §4.1 writes it: a type is the list of its data bytes' offsets in
 * typemap order (one entry per byte), the sizes of its basic elements in
 * order, and its bounds by the standard's rules (lb/ub markers, the
 * alignment padding ε). Slow and obvious on purpose. */
#ifndef DTREF_H
#define DTREF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct ref {
    ptrdiff_t *byte;   /* offset of each data byte, in typemap order */
    size_t     size;
    size_t    *elem;   /* size of each basic element, in order */
    size_t     nelem;
    ptrdiff_t  lb, ub;
    bool       marked; /* lb/ub markers (resized, subarray) */
    size_t     align;
};

static inline void *ref_grow(void *p, size_t n, size_t elem)
{
    p = realloc(p, (n ? n : 1) * elem);
    if (!p) abort();
    return p;
}

/* A basic type of size bytes; a pair {value, int} when len2 (the last len2
 * bytes at off2), extent bytes apart. */
static inline struct ref ref_basic(size_t size, size_t align, size_t extent, size_t off2, size_t len2)
{
    struct ref r = { 0 };
    r.byte = ref_grow(NULL, size, sizeof *r.byte);
    for (size_t i = 0; i < size; i++) r.byte[i] = (ptrdiff_t)(i < size - len2 ? i : off2 + (i - (size - len2)));
    r.size = size;
    r.elem = ref_grow(NULL, 1, sizeof *r.elem);
    r.elem[0] = size, r.nelem = 1;
    r.lb = 0, r.ub = (ptrdiff_t)extent, r.align = align;
    return r;
}

static inline void ref_free(struct ref *r) { free(r->byte), free(r->elem); }

/* A type under construction: placements appended in typemap order. */
struct ref_build {
    struct ref r;
    bool any, any_marked;
    ptrdiff_t lb, ub, mlb, mub;
};

static inline void ref_begin(struct ref_build *b)
{
    memset(b, 0, sizeof *b);
    b->r.align = 1;
}

/* n elements of old at disp, extent apart: each element's bytes, markers
 * and bounds placed one by one. */
static inline void ref_place(struct ref_build *b, ptrdiff_t disp, size_t n, const struct ref *old)
{
    ptrdiff_t ext = old->ub - old->lb;
    for (size_t j = 0; j < n; j++) {
        ptrdiff_t at = disp + (ptrdiff_t)j * ext, lo = at + old->lb, hi = at + old->ub;
        b->r.byte = ref_grow(b->r.byte, b->r.size + old->size, sizeof *b->r.byte);
        for (size_t i = 0; i < old->size; i++) b->r.byte[b->r.size++] = at + old->byte[i];
        b->r.elem = ref_grow(b->r.elem, b->r.nelem + old->nelem, sizeof *b->r.elem);
        for (size_t i = 0; i < old->nelem; i++) b->r.elem[b->r.nelem++] = old->elem[i];
        if (old->marked) {
            if (!b->any_marked || lo < b->mlb) b->mlb = lo;
            if (!b->any_marked || hi > b->mub) b->mub = hi;
            b->any_marked = true;
        } else {
            if (!b->any || lo < b->lb) b->lb = lo;
            if (!b->any || hi > b->ub) b->ub = hi;
            b->any = true;
        }
        if (old->align > b->r.align) b->r.align = old->align;
    }
}

static inline struct ref ref_end(struct ref_build *b)
{
    struct ref r = b->r;
    if (b->any_marked) r.lb = b->mlb, r.ub = b->mub, r.marked = true;
    else if (b->any) {
        r.lb = b->lb, r.ub = b->ub;
        while ((r.ub - r.lb) % (ptrdiff_t)r.align) r.ub++;     /* ε */
    } else r.lb = r.ub = 0;
    return r;
}

static inline void ref_true(const struct ref *r, ptrdiff_t *lo, ptrdiff_t *hi)
{
    *lo = *hi = 0;
    for (size_t i = 0; i < r->size; i++) {
        if (!i || r->byte[i] < *lo) *lo = r->byte[i];
        if (!i || r->byte[i] + 1 > *hi) *hi = r->byte[i] + 1;
    }
}

/* Address (from the buffer) of byte k of a stream of elements of r. */
static inline ptrdiff_t ref_addr(const struct ref *r, size_t k)
{
    return (ptrdiff_t)(k / r->size) * (r->ub - r->lb) + r->byte[k % r->size];
}

/* Basic elements in the first bytes of a stream of r; -1 inside one. */
static inline long long ref_elements(const struct ref *r, size_t bytes)
{
    if (!r->size) return 0;
    long long n = 0;
    for (size_t i = 0; bytes; i = (i + 1) % r->nelem) {
        if (bytes < r->elem[i]) return -1;
        bytes -= r->elem[i], n++;
    }
    return n;
}

#endif
