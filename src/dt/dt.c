/* Datatype layouts: building flattened typemaps (merging adjacent blocks,
 * bounds by MPI's rules), and the cursor that copies one typemap stream into
 * another. */
#include <stdlib.h>
#include <string.h>

#include "dt.h"

_Static_assert(offsetof(struct dt_predef, run) == sizeof(struct dt_type) &&
               offsetof(struct dt_predef, blk) == sizeof(struct dt_type) + sizeof(struct dt_run),
               "a predefined type's runs and blocks follow its header");

void dt_predef_init(struct dt_predef *p, int basic, size_t size, size_t align, size_t extent, size_t off2,
                    size_t len2)
{
    struct dt_type *t = &p->t;
    *t = (struct dt_type){ .size = size, .refs = 0, .lb = 0, .ub = (ptrdiff_t)extent, .align = align,
                           .basic = basic, .nruns = 1, .nblk = 1, .nbasic = 1 };
    p->run[0] = (struct dt_run){ size, 1, basic };
    p->blk[0] = (struct dt_blk){ 0, size - len2, 0 };
    if (len2 && off2 == size - len2) p->blk[0].len = size;     /* no hole: one block */
    else if (len2) p->blk[t->nblk++] = (struct dt_blk){ (ptrdiff_t)off2, len2, size - len2 };
    t->true_ub = p->blk[t->nblk - 1].off + (ptrdiff_t)p->blk[t->nblk - 1].len;
    t->contig = t->nblk == 1 && size == extent;
}

void dt_unref(const struct dt_type *t)
{
    struct dt_type *m = (struct dt_type *)t;
    if (m && m->refs && --m->refs == 0) free(m);
}

/* --- Building ----------------------------------------------------------------
 * A type is built by appending placements of existing types (n elements of
 * old at disp, an extent apart) in typemap order; the first failure sticks
 * and is reported once at the end. Bounds follow MPI-3.1 §4.1.6-4.1.7: a
 * type whose bounds were set explicitly (resized) has lb/ub markers that
 * every type built from it inherits, and then only markers count;
 * otherwise lb and ub span the placements and the extent is padded to the
 * strictest alignment of the basic types in it (ε: {long, int} spans 16
 * bytes, as the C struct does). */
struct build {
    struct dt_blk *blk;
    struct dt_run *run;
    int    nblk, cap, nrun, rcap;
    size_t size, nbasic, align;
    int    basic;                   /* -2 until the first basic type */
    bool   any, any_marked, any_data; /* placements seen: unmarked, marked; data bytes */
    ptrdiff_t lb, ub, mlb, mub;     /* their bounds */
    ptrdiff_t true_lb, true_ub;
    sm_status_t st;
};

static void build_begin(struct build *b)
{
    *b = (struct build){ .align = 1, .basic = -2 };
}

static bool grow(void **p, int *cap, int n, size_t elem, struct build *b)
{
    if (n < *cap) return true;
    if (*cap > (int)(0x7fffffff / 2)) { b->st = sm_fail(SM_ERR_ARG, "more than %d blocks", *cap); return false; }
    int c = *cap ? 2 * *cap : 8;
    void *q = realloc(*p, elem * (size_t)c);
    if (!q) { b->st = sm_fail(SM_ERR_NOMEM, "no memory for a typemap of %d blocks", c); return false; }
    *p = q, *cap = c;
    return true;
}

static void add_blk(struct build *b, ptrdiff_t off, size_t len)
{
    if (!len || b->st) return;
    if (b->nblk && b->blk[b->nblk - 1].off + (ptrdiff_t)b->blk[b->nblk - 1].len == off) {
        b->blk[b->nblk - 1].len += len;
    } else {
        if (!grow((void **)&b->blk, &b->cap, b->nblk, sizeof *b->blk, b)) return;
        b->blk[b->nblk++] = (struct dt_blk){ off, len, 0 };
    }
    ptrdiff_t end = off + (ptrdiff_t)len;
    if (!b->any_data || off < b->true_lb) b->true_lb = off;
    if (!b->any_data || end > b->true_ub) b->true_ub = end;
    b->any_data = true;
}

/* count basic elements of one basic type: repeated ones stay one run */
static void add_run(struct build *b, size_t size, size_t count, int64_t basic)
{
    if (!count || b->st) return;
    struct dt_run *last = b->nrun ? &b->run[b->nrun - 1] : NULL;
    if (last && last->size == size && last->basic == basic) { last->count += count; return; }
    if (!grow((void **)&b->run, &b->rcap, b->nrun, sizeof *b->run, b)) return;
    b->run[b->nrun++] = (struct dt_run){ size, count, basic };
}

static bool too_large(struct build *b, bool overflow)
{
    if (overflow && !b->st) b->st = sm_fail(SM_ERR_ARG, "the type's size or bounds overflow");
    return overflow;
}

/* n elements of old, the first at disp, an extent apart. */
static void add_elems(struct build *b, ptrdiff_t disp, size_t n, const struct dt_type *old)
{
    if (!n || b->st) return;
    ptrdiff_t ext = dt_extent(old), last, lo, hi;
    size_t bytes, basics;
    if (too_large(b, n > PTRDIFF_MAX || __builtin_mul_overflow((ptrdiff_t)(n - 1), ext, &last) ||
                         __builtin_add_overflow(disp, old->lb + (last < 0 ? last : 0), &lo) ||
                         __builtin_add_overflow(disp, old->ub + (last > 0 ? last : 0), &hi) ||
                         __builtin_mul_overflow(n, old->size, &bytes) ||
                         __builtin_add_overflow(b->size, bytes, &b->size) ||
                         __builtin_mul_overflow(n, old->nbasic, &basics)))
        return;
    if (old->marked) {
        if (!b->any_marked || lo < b->mlb) b->mlb = lo;
        if (!b->any_marked || hi > b->mub) b->mub = hi;
        b->any_marked = true;
    } else {
        if (!b->any || lo < b->lb) b->lb = lo;
        if (!b->any || hi > b->ub) b->ub = hi;
        b->any = true;
    }
    b->nbasic += basics;
    if (old->align > b->align) b->align = old->align;
    if (old->nbasic) b->basic = b->basic == -2 || b->basic == old->basic ? old->basic : DT_MIXED;
    const struct dt_blk *blk = dt_blocks(old);
    if (old->contig && old->nblk == 1) {
        add_blk(b, disp + blk[0].off, bytes);           /* one run: no loop over n */
    } else {
        for (size_t j = 0; j < n && !b->st; j++)
            for (int k = 0; k < old->nblk; k++) add_blk(b, disp + (ptrdiff_t)j * ext + blk[k].off, blk[k].len);
    }
    const struct dt_run *run = dt_runs(old);
    if (old->nruns == 1) add_run(b, run[0].size, n * run[0].count, run[0].basic);
    else
        for (size_t j = 0; j < n && !b->st; j++)
            for (int k = 0; k < old->nruns; k++) add_run(b, run[k].size, run[k].count, run[k].basic);
}

/* The type built, with explicit bounds (resized, subarray) if bounds is not NULL. */
static sm_status_t build_end(struct build *b, const ptrdiff_t *bounds, struct dt_type **out)
{
    struct dt_type *t = NULL;
    if (!b->st) {
        size_t bytes = sizeof *t + sizeof(struct dt_run) * (size_t)b->nrun + sizeof(struct dt_blk) * (size_t)b->nblk;
        if (!(t = malloc(bytes))) b->st = sm_fail(SM_ERR_NOMEM, "no memory for a typemap of %d blocks", b->nblk);
    }
    if (b->st) {
        free(b->blk), free(b->run);
        return b->st;
    }
    *t = (struct dt_type){ .size = b->size, .refs = 1, .align = b->align, .nruns = b->nrun, .nblk = b->nblk,
                           .nbasic = b->nbasic, .basic = b->basic == -2 ? DT_MIXED : b->basic,
                           .true_lb = b->true_lb, .true_ub = b->true_ub };
    if (bounds) {
        t->lb = bounds[0], t->ub = bounds[1], t->marked = true;
    } else if (b->any_marked) {
        t->lb = b->mlb, t->ub = b->mub, t->marked = true;
    } else if (b->any) {
        ptrdiff_t ext = b->ub - b->lb, pad = ext % (ptrdiff_t)b->align;
        t->lb = b->lb, t->ub = b->ub + (pad ? (ptrdiff_t)b->align - pad : 0);
    }
    if (b->nrun) memcpy((struct dt_run *)dt_runs(t), b->run, sizeof *b->run * (size_t)b->nrun);
    struct dt_blk *blk = (struct dt_blk *)dt_blocks(t);
    size_t at = 0;
    for (int k = 0; k < b->nblk; k++) {
        blk[k] = b->blk[k];
        blk[k].at = at;
        at += blk[k].len;
    }
    t->contig = t->nblk == 0 || (t->nblk == 1 && (ptrdiff_t)blk[0].len == dt_extent(t));
    free(b->blk), free(b->run);
    *out = t;
    return SM_OK;
}

sm_status_t dt_contiguous(size_t count, const struct dt_type *old, struct dt_type **out)
{
    struct build b;
    build_begin(&b);
    add_elems(&b, 0, count, old);
    return build_end(&b, NULL, out);
}

sm_status_t dt_hvector(size_t count, size_t blocklen, ptrdiff_t stride, const struct dt_type *old,
                       struct dt_type **out)
{
    size_t n;
    ptrdiff_t span;
    if (old->contig && count && blocklen && !__builtin_mul_overflow((ptrdiff_t)blocklen, dt_extent(old), &span) &&
        span == stride && !__builtin_mul_overflow(count, blocklen, &n))
        return dt_contiguous(n, old, out);        /* the blocks touch: one run, same typemap */
    struct build b;
    build_begin(&b);
    for (size_t i = 0; i < count && !b.st; i++) add_elems(&b, (ptrdiff_t)i * stride, blocklen, old);
    return build_end(&b, NULL, out);
}

sm_status_t dt_indexed(size_t count, const int *bl, size_t blocklen, const ptrdiff_t *disp, const int *idisp,
                       const struct dt_type *old, struct dt_type **out)
{
    struct build b;
    build_begin(&b);
    for (size_t i = 0; i < count && !b.st; i++) {
        ptrdiff_t d = disp ? disp[i] : (ptrdiff_t)idisp[i] * dt_extent(old);
        add_elems(&b, d, bl ? (size_t)bl[i] : blocklen, old);
    }
    return build_end(&b, NULL, out);
}

sm_status_t dt_struct(size_t count, const int *bl, const ptrdiff_t *disp, const struct dt_type *const *types,
                      struct dt_type **out)
{
    struct build b;
    build_begin(&b);
    for (size_t i = 0; i < count && !b.st; i++) add_elems(&b, disp[i], (size_t)bl[i], types[i]);
    return build_end(&b, NULL, out);
}

sm_status_t dt_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts, bool fortran_order,
                        const struct dt_type *old, struct dt_type **out)
{
    enum { MAXD = 32 };
    if (ndims < 1 || ndims > MAXD) return sm_fail(SM_ERR_ARG, "%d dimensions (1 to %d)", ndims, MAXD);
    /* dimension k counted from the fastest varying one */
#define DIM(k) (fortran_order ? (k) : ndims - 1 - (k))
    ptrdiff_t ext = dt_extent(old), stride[MAXD], total = ext;
    for (int k = 0; k < ndims; k++) {
        stride[k] = total;
        if (__builtin_mul_overflow(total, (ptrdiff_t)sizes[DIM(k)], &total))
            return sm_fail(SM_ERR_ARG, "the array's extent overflows");
    }
    struct build b;
    build_begin(&b);
    int idx[MAXD] = { 0 };               /* over every dimension but the fastest */
    for (;;) {
        ptrdiff_t off = (ptrdiff_t)starts[DIM(0)] * ext;
        for (int k = 1; k < ndims; k++) off += (ptrdiff_t)(starts[DIM(k)] + idx[k]) * stride[k];
        add_elems(&b, off, (size_t)subsizes[DIM(0)], old);
        int k = 1;
        while (k < ndims && ++idx[k] == subsizes[DIM(k)]) idx[k++] = 0;
        if (k == ndims || b.st) break;
    }
#undef DIM
    ptrdiff_t bounds[2] = { 0, total };
    return build_end(&b, bounds, out);
}

sm_status_t dt_resized(const struct dt_type *old, ptrdiff_t lb, ptrdiff_t extent, struct dt_type **out)
{
    struct build b;
    ptrdiff_t bounds[2] = { lb, 0 };
    if (__builtin_add_overflow(lb, extent, &bounds[1])) return sm_fail(SM_ERR_ARG, "lb + extent overflows");
    build_begin(&b);
    add_elems(&b, 0, 1, old);
    return build_end(&b, bounds, out);
}

/* --- Copying ------------------------------------------------------------------
 * A cursor walks a stream of elements (or plain bytes) piece by piece: the
 * longest run of consecutive bytes from its position, at most max. */
struct cursor {
    char *base;
    const struct dt_type *t;     /* NULL: plain bytes from base */
    const struct dt_blk *blk;
    ptrdiff_t ext;
    size_t elem, in;              /* element, and bytes into block b (plain: into the stream) */
    int b;
};

/* Place c at byte pos of its stream. */
static void cursor_at(struct cursor *c, char *base, const struct dt_type *t, size_t pos)
{
    if (t && t->contig) base += t->true_lb, t = NULL;  /* one run: plain bytes */
    c->base = base, c->t = t;
    if (!t) { c->in = pos; return; }
    c->blk = dt_blocks(t);
    c->ext = dt_extent(t);
    c->elem = pos / t->size;
    size_t r = pos - c->elem * t->size;
    int lo = 0, hi = t->nblk - 1;      /* the last block starting at or before r */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->blk[mid].at <= r) lo = mid; else hi = mid - 1;
    }
    c->b = lo;
    c->in = r - c->blk[lo].at;
}

static inline size_t cursor_next(struct cursor *c, size_t max, char **at)
{
    if (!c->t) { *at = c->base + c->in; c->in += max; return max; }
    if (c->in == c->blk[c->b].len) {   /* finished a block: the next one */
        c->in = 0;
        if (++c->b == c->t->nblk) c->b = 0, c->elem++;
    }
    const struct dt_blk *k = &c->blk[c->b];
    size_t n = k->len - c->in < max ? k->len - c->in : max;
    *at = c->base + (ptrdiff_t)c->elem * c->ext + k->off + (ptrdiff_t)c->in;
    c->in += n;
    return n;
}

/* Walk the pieces that bytes [off, off + len) of two streams break into
 * (the longest runs consecutive in both) and hand each to fn. */
static inline void walk(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype,
                        size_t off, size_t len, void (*fn)(void *, const void *, size_t, void *), void *ctx)
{
    if (!len) return;
    struct cursor d, s;
    cursor_at(&d, dst, dtype, off);
    cursor_at(&s, (char *)src, stype, off);
    if (!d.t && !s.t) { fn(d.base + off, s.base + off, len, ctx); return; }
    char *dp = NULL, *sp = NULL;
    size_t dn = 0, sn = 0;
    while (len) {
        if (!dn) dn = cursor_next(&d, len, &dp);
        if (!sn) sn = cursor_next(&s, len, &sp);
        size_t k = dn < sn ? dn : sn;
        fn(dp, sp, k, ctx);
        dp += k, sp += k, dn -= k, sn -= k, len -= k;
    }
}

static inline void copy_piece(void *dst, const void *src, size_t n, void *ctx)
{
    (void)ctx;
    memcpy(dst, src, n);
}

void dt_copy(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype, size_t off,
             size_t len)
{
    walk(dst, dtype, src, stype, off, len, copy_piece, NULL);
}

void dt_apply(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype, size_t off,
              size_t len, void (*fn)(void *dst, const void *src, size_t n, void *ctx), void *ctx)
{
    walk(dst, dtype, src, stype, off, len, fn, ctx);
}

int64_t dt_elements(const struct dt_type *t, size_t bytes)
{
    if (!t->size) return 0;
    int64_t n = (int64_t)(bytes / t->size * t->nbasic);
    size_t rem = bytes % t->size;
    const struct dt_run *run = dt_runs(t);
    for (int i = 0; i < t->nruns && rem > 0; i++) {
        size_t k = rem / run[i].size;
        if (k > run[i].count) k = run[i].count;
        n += (int64_t)k, rem -= k * run[i].size;
        if (k < run[i].count) break;
    }
    return rem ? -1 : n;
}

/* --- Data representations -----------------------------------------------------
 * The typed buffer is packed natively (dt_pack) and that stream converted
 * run by run, basic element by element, part by part; unpacking goes the
 * other way. Integers change size through 64 bits with a range check. */
_Static_assert(sizeof(struct dt_run) == 3 * sizeof(int64_t), "no padding in a run (compared bytewise)");

static const struct dt_xrep *xrep_of(const struct dt_xtab *x, const struct dt_run *r)
{
    if (r->basic < 0 || r->basic >= x->n) return NULL;
    const struct dt_xrep *p = &x->rep[r->basic];
    size_t n = 0;
    for (int i = 0; i < p->nparts; i++) n += p->part[i].nsize;
    return p->nparts && n == r->size ? p : NULL;
}

sm_status_t dt_repr_size(const struct dt_type *t, size_t count, const struct dt_xtab *x, size_t *bytes)
{
    const struct dt_run *run = dt_runs(t);
    size_t per = 0, n;
    for (int k = 0; k < t->nruns; k++) {
        const struct dt_xrep *p = xrep_of(x, &run[k]);
        if (!p) return sm_fail(SM_ERR_UNSUPPORTED, "basic type %lld (%zu bytes) has no external representation",
                               (long long)run[k].basic, run[k].size);
        size_t one = 0;
        for (int i = 0; i < p->nparts; i++) one += p->part[i].xsize;
        if (__builtin_mul_overflow(one, run[k].count, &n) || __builtin_add_overflow(per, n, &per))
            return sm_fail(SM_ERR_ARG, "the external size overflows");
    }
    if (__builtin_mul_overflow(per, count, bytes)) return sm_fail(SM_ERR_ARG, "the external size overflows");
    return SM_OK;
}

static bool host_le(void) { return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; }

/* n bytes from a native value at p to big-endian at q (or back: the same reversal) */
static void swap_bytes(unsigned char *q, const unsigned char *p, size_t n)
{
    if (!host_le()) { memcpy(q, p, n); return; }
    for (size_t i = 0; i < n; i++) q[i] = p[n - 1 - i];
}

/* a native integer of n <= 8 bytes, as 64 bits (sign-extended if sgn) */
static uint64_t load_native(const unsigned char *p, size_t n, bool sgn)
{
    unsigned char be[8];
    swap_bytes(be, p, n);          /* big-endian: most significant first */
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v << 8 | be[i];
    if (sgn && n < 8 && (be[0] & 0x80)) v |= ~(uint64_t)0 << (8 * n);
    return v;
}
static uint64_t load_be(const unsigned char *p, size_t n, bool sgn)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v << 8 | p[i];
    if (sgn && n < 8 && n && (p[0] & 0x80)) v |= ~(uint64_t)0 << (8 * n);
    return v;
}
/* Does v fit in n bytes (signed or not)? */
static bool fits(uint64_t v, size_t n, bool sgn)
{
    if (n >= 8) return true;
    if (!sgn) return v >> (8 * n) == 0;
    int64_t s = (int64_t)v, lim = (int64_t)1 << (8 * n - 1);
    return s >= -lim && s < lim;
}
static void store_be(unsigned char *q, size_t n, uint64_t v)
{
    for (size_t i = n; i-- > 0; v >>= 8) q[i] = (unsigned char)v;
}
static void store_native(unsigned char *q, size_t n, uint64_t v)
{
    unsigned char be[8];
    store_be(be, n, v);
    swap_bytes(q, be, n);
}

/* One part between native bytes nat and external bytes ext (to_ext: which way). */
static sm_status_t convert_part(const struct dt_xpart *p, unsigned char *nat, unsigned char *ext, bool to_ext)
{
    if (p->kind == DT_X_LDOUBLE) {
#if defined(__SIZEOF_FLOAT128__)
        if (p->xsize == 16 && (p->nsize == sizeof(long double) || p->nsize == sizeof(double))) {
            unsigned char q[16];
            if (to_ext) {
                __float128 f;
                if (p->nsize == sizeof(long double)) { long double l; memcpy(&l, nat, sizeof l); f = (__float128)l; }
                else { double d; memcpy(&d, nat, sizeof d); f = (__float128)d; }
                memcpy(q, &f, 16);
                swap_bytes(ext, q, 16);
            } else {
                __float128 f;
                swap_bytes(q, ext, 16);
                memcpy(&f, q, 16);
                if (p->nsize == sizeof(long double)) { long double l = (long double)f; memcpy(nat, &l, sizeof l); }
                else { double d = (double)f; memcpy(nat, &d, sizeof d); }
            }
            return SM_OK;
        }
#endif
        return sm_fail(SM_ERR_UNSUPPORTED, "no conversion of a %u-byte long double to %u bytes", p->nsize, p->xsize);
    }
    if (p->nsize == p->xsize) {
        if (to_ext) swap_bytes(ext, nat, p->nsize); else swap_bytes(nat, ext, p->nsize);
        return SM_OK;
    }
    if (p->nsize > 8 || p->xsize > 8)
        return sm_fail(SM_ERR_UNSUPPORTED, "no conversion of a %u-byte integer to %u bytes", p->nsize, p->xsize);
    bool sgn = p->kind == DT_X_SINT;
    uint64_t v = to_ext ? load_native(nat, p->nsize, sgn) : load_be(ext, p->xsize, sgn);
    size_t n = to_ext ? p->xsize : p->nsize;
    if (!fits(v, n, sgn))
        return sgn ? sm_fail(SM_ERR_ARG, "value %lld does not fit in %zu bytes", (long long)v, n)
                   : sm_fail(SM_ERR_ARG, "value %llu does not fit in %zu bytes", (unsigned long long)v, n);
    if (to_ext) store_be(ext, n, v); else store_native(nat, n, v);
    return SM_OK;
}

/* Convert count elements' native stream nat to or from the representation ext. */
static sm_status_t convert(unsigned char *nat, unsigned char *ext, const struct dt_type *t, size_t count,
                           const struct dt_xtab *x, bool to_ext)
{
    const struct dt_run *run = dt_runs(t);
    for (size_t e = 0; e < count; e++)
        for (int k = 0; k < t->nruns; k++) {
            const struct dt_xrep *p = xrep_of(x, &run[k]);
            if (!p) return sm_fail(SM_ERR_UNSUPPORTED, "basic type %lld has no external representation",
                                   (long long)run[k].basic);
            for (size_t i = 0; i < run[k].count; i++)
                for (int j = 0; j < p->nparts; j++) {
                    sm_status_t st = convert_part(&p->part[j], nat, ext, to_ext);
                    if (st) return st;
                    nat += p->part[j].nsize, ext += p->part[j].xsize;
                }
        }
    return SM_OK;
}

sm_status_t dt_repr_pack(void *out, const void *in, const struct dt_type *t, size_t count, const struct dt_xtab *x)
{
    size_t bytes, len = count * t->size;
    sm_status_t st = dt_repr_size(t, count, x, &bytes);
    if (st || !len) return st;
    unsigned char *tmp = malloc(len);
    if (!tmp) return sm_fail(SM_ERR_NOMEM, "no memory to convert %zu bytes", len);
    dt_pack(tmp, in, t, count);
    st = convert(tmp, out, t, count, x, true);
    free(tmp);
    return st;
}

sm_status_t dt_repr_unpack(void *out, const struct dt_type *t, size_t count, const void *in, const struct dt_xtab *x)
{
    size_t bytes, len = count * t->size;
    sm_status_t st = dt_repr_size(t, count, x, &bytes);
    if (st || !len) return st;
    /* zeroed: padding inside a native basic type (long double's) is defined */
    unsigned char *tmp = calloc(1, len);
    if (!tmp) return sm_fail(SM_ERR_NOMEM, "no memory to convert %zu bytes", len);
    st = convert(tmp, (unsigned char *)in, t, count, x, false);
    if (!st) dt_unpack(out, t, count, tmp);
    free(tmp);
    return st;
}
