/* dt.h: datatype layouts (DESIGN.md §2), the engine under p2p, coll and rma
 * that knows where the bytes of a typed buffer are. A dt_type is a typemap
 * flattened to blocks, with its bounds and its basic-type composition; the
 * constructors build one from others as MPI's do (the binding checks the
 * arguments, handles and names), and dt_copy moves any byte range of one
 * typemap stream into another, in one pass and without a buffer between.
 *
 * A dt_type is one object with no pointers inside (header, runs, blocks),
 * immutable once built and counted, so it can be shared by handles and
 * requests, and read by a peer through a single global address. */
#ifndef DT_H
#define DT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_status.h"

#define DT_MIXED (-1)   /* dt_type.basic: more than one basic type, or none */

/* count basic elements of size bytes each, all of basic type basic (the
 * binding's id), in typemap order (MPI_Get_elements, external32). No
 * padding inside: layouts are compared bytewise (coll's same_type). */
struct dt_run { size_t size, count; int64_t basic; };
/* len data bytes at off from the element's address; at: data bytes of the
 * element before this block (its position in the element's stream) */
struct dt_blk { ptrdiff_t off; size_t len; size_t at; };

struct dt_type {
    size_t    size;          /* data bytes in one element */
    ptrdiff_t true_lb;       /* the first data byte (offset from the element) */
    bool      contig;        /* elements an extent apart make one run from true_lb */
    bool      marked;        /* bounds set explicitly (resized, subarray) and inherited
                              * by types built from it: no alignment padding */
    int       refs;          /* 0: static storage, never freed */
    ptrdiff_t lb, ub;        /* extent = ub - lb */
    ptrdiff_t true_ub;       /* past the last data byte */
    size_t    align;         /* strictest alignment of its basic elements */
    int       basic;         /* the binding's id of its only basic type, or DT_MIXED */
    int       nruns, nblk;
    size_t    nbasic;        /* basic elements in one element */
    /* followed by nruns struct dt_run, then nblk struct dt_blk */
};

static inline const struct dt_run *dt_runs(const struct dt_type *t) { return (const struct dt_run *)(t + 1); }
static inline const struct dt_blk *dt_blocks(const struct dt_type *t)
{
    return (const struct dt_blk *)(dt_runs(t) + t->nruns);
}
static inline ptrdiff_t dt_extent(const struct dt_type *t) { return t->ub - t->lb; }
/* Are count elements one contiguous run of count * size bytes from true_lb? */
static inline bool dt_is_contig(const struct dt_type *t, size_t count)
{
    return t->contig || count == 0 || (t->nblk == 1 && count == 1);
}
/* The bytes that count elements' data span, relative to the buffer: [*lo, *hi). */
static inline void dt_span(const struct dt_type *t, size_t count, ptrdiff_t *lo, ptrdiff_t *hi)
{
    ptrdiff_t last = count ? (ptrdiff_t)(count - 1) * dt_extent(t) : 0;
    *lo = t->true_lb + (last < 0 ? last : 0);
    *hi = t->true_ub + (last > 0 ? last : 0);
}

/* Predefined types in static storage (the bindings' tables): a basic type
 * of size bytes and alignment align, or a pair (MPI_DOUBLE_INT...) whose
 * last len2 bytes sit at off2, extent bytes apart. One basic element each. */
struct dt_predef { struct dt_type t; struct dt_run run[1]; struct dt_blk blk[2]; };
void dt_predef_init(struct dt_predef *p, int basic, size_t size, size_t align, size_t extent, size_t off2,
                    size_t len2);

/* Constructors: *out is a new type (one reference). SM_ERR_NOMEM, or
 * SM_ERR_ARG when the result would be too large to describe; the counts
 * and block lengths are non-negative (the binding checks them). */
sm_status_t dt_contiguous(size_t count, const struct dt_type *old, struct dt_type **out);
/* count blocks of blocklen elements, stride bytes apart */
sm_status_t dt_hvector(size_t count, size_t blocklen, ptrdiff_t stride, const struct dt_type *old,
                       struct dt_type **out);
/* count blocks of old: block i has bl[i] elements (bl NULL: blocklen each)
 * at disp[i] bytes, or at idisp[i] extents of old when disp is NULL. */
sm_status_t dt_indexed(size_t count, const int *bl, size_t blocklen, const ptrdiff_t *disp, const int *idisp,
                       const struct dt_type *old, struct dt_type **out);
/* block i: bl[i] elements of types[i] at disp[i] bytes */
sm_status_t dt_struct(size_t count, const int *bl, const ptrdiff_t *disp, const struct dt_type *const *types,
                      struct dt_type **out);
/* the subsizes block at starts of an array of sizes (C order: the last
 * dimension varies fastest; Fortran order: the first); its extent is the
 * whole array's. The binding checks 0 <= starts, starts + subsizes <= sizes. */
sm_status_t dt_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts, bool fortran_order,
                        const struct dt_type *old, struct dt_type **out);
/* old's typemap with bounds lb and lb + extent */
sm_status_t dt_resized(const struct dt_type *old, ptrdiff_t lb, ptrdiff_t extent, struct dt_type **out);

/* References: a type lives while anything holds one (static types always). */
static inline struct dt_type *dt_ref(const struct dt_type *t)
{
    struct dt_type *m = (struct dt_type *)t;
    if (m && m->refs) m->refs++;
    return m;
}
void dt_unref(const struct dt_type *t);

/* Copy bytes [off, off + len) of one typemap stream into the same positions
 * of another: the stream of elements of type stype at src (stype NULL:
 * plain bytes) into that of dtype at dst. The caller keeps off + len within
 * both buffers' elements. Any offset: copies can go in chunks. */
void dt_copy(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype, size_t off,
             size_t len);
/* The same walk, handing each pair of pieces (n bytes at dst and src) to
 * fn instead of copying: accumulate-like operations. With both types made
 * of one basic type whose elements have no hole (not a pair type with
 * padding inside) and off, len multiples of its size, every piece holds
 * whole basic elements. */
void dt_apply(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype, size_t off,
              size_t len, void (*fn)(void *dst, const void *src, size_t n, void *ctx), void *ctx);
/* Pack count elements of t at in into plain bytes at out, and back. */
static inline void dt_pack(void *out, const void *in, const struct dt_type *t, size_t count)
{
    dt_copy(out, NULL, in, t, 0, count * t->size);
}
static inline void dt_unpack(void *out, const struct dt_type *t, size_t count, const void *in)
{
    dt_copy(out, t, in, NULL, 0, count * t->size);
}
/* Basic elements in the first bytes of a stream of t, or -1 when bytes
 * end inside one (MPI_Get_elements' MPI_UNDEFINED). */
int64_t dt_elements(const struct dt_type *t, size_t bytes);

/* --- Data representations (MPI-3.1 §13.5.2, "external32") ---------------------
 * A basic type's representation: one or two parts (pair types, complex
 * numbers) in its packed bytes, each nsize bytes natively and xsize bytes
 * big-endian in the representation. The binding gives a table indexed by
 * basic id (nparts 0: the type has no representation). */
enum dt_xkind {
    DT_X_UINT,      /* unsigned integer (also floats and bytes: only the byte order changes) */
    DT_X_SINT,      /* signed integer: sign-extended or range-checked when the size changes */
    DT_X_LDOUBLE,   /* long double <-> IEEE binary128 */
};
struct dt_xpart { uint8_t kind, nsize, xsize; };
struct dt_xrep { int nparts; struct dt_xpart part[2]; };
struct dt_xtab { const struct dt_xrep *rep; int n; };

/* Bytes of count elements of t in the representation; SM_ERR_UNSUPPORTED
 * when a basic type of t has none (or its size disagrees with the table),
 * SM_ERR_ARG when the size overflows. */
sm_status_t dt_repr_size(const struct dt_type *t, size_t count, const struct dt_xtab *x, size_t *bytes);
/* Write count elements of t at in (a typed buffer) in the representation
 * at out; SM_ERR_ARG when a value does not fit its external size (a long
 * beyond 32 bits: out then holds the values before it), SM_ERR_UNSUPPORTED
 * as dt_repr_size, SM_ERR_NOMEM. */
sm_status_t dt_repr_pack(void *out, const void *in, const struct dt_type *t, size_t count, const struct dt_xtab *x);
/* Read count elements of t at out (a typed buffer) from the representation
 * at in; the same errors (a value too large for a smaller native type). */
sm_status_t dt_repr_unpack(void *out, const struct dt_type *t, size_t count, const void *in, const struct dt_xtab *x);

#endif
