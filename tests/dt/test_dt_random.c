/* Random datatypes against the reference model (dtref.h): every
 * constructor, nested up to four levels, with negative displacements,
 * strides and lower bounds, holes, empty blocks and explicit bounds. For
 * each type: size, bounds, true bounds, the flattened typemap byte by byte
 * and the element count of every prefix; then dt_copy between random pairs
 * of types, in chunks cut at random and copied in random order, against the
 * byte-by-byte reference copy (bytes outside the typemap untouched).
 *   test_dt_random [seed [types]]   (every rank runs its own seed) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dt.h"
#include "dtref.h"

static unsigned long long rs;
static unsigned rnd(unsigned n)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)(rs >> 33) % n : 0;
}
static int rnd_in(int lo, int hi) { return lo + (int)rnd((unsigned)(hi - lo + 1)); }

struct ty { struct dt_type *t; struct ref r; };

enum { NBASIC = 6 };
static struct dt_predef predef[NBASIC];
static struct ty basics[NBASIC];

static void init_basics(void)
{
    /* char, short, int, double, {double, int} (no hole), {short, int} (a hole) */
    static const size_t size[NBASIC] = { 1, 2, 4, 8, 12, 6 }, align[NBASIC] = { 1, 2, 4, 8, 8, 4 },
                        ext[NBASIC] = { 1, 2, 4, 8, 16, 8 }, off2[NBASIC] = { 0, 0, 0, 0, 8, 4 },
                        len2[NBASIC] = { 0, 0, 0, 0, 4, 4 };
    for (int i = 0; i < NBASIC; i++) {
        dt_predef_init(&predef[i], i + 1, size[i], align[i], ext[i], off2[i], len2[i]);
        basics[i].t = &predef[i].t;
        basics[i].r = ref_basic(size[i], align[i], ext[i], off2[i], len2[i]);
    }
}

static void ty_free(struct ty *x)
{
    if (x->t->refs) { dt_unref(x->t); ref_free(&x->r); }
}

static struct ty random_type(int depth);

/* A component: a basic type, or (depth permitting) a random type of at most 2 KiB. */
static struct ty component(int depth)
{
    if (depth > 0 && rnd(3)) {
        struct ty x = random_type(depth - 1);
        if (x.r.size <= 2048) return x;
        ty_free(&x);
    }
    return basics[rnd(NBASIC)];
}

/* A random type built by one constructor from random components. */
static struct ty random_type(int depth)
{
    struct ty old = component(depth), x;
    struct ref_build b;
    ref_begin(&b);
    ptrdiff_t ext = old.r.ub - old.r.lb;
    sm_status_t st = SM_OK;
    int kind = rnd(8);
    size_t count = rnd(8) ? (size_t)rnd_in(1, 3) : 0;
    if (kind == 0) {                                        /* contiguous */
        st = dt_contiguous(count, old.t, &x.t);
        ref_place(&b, 0, count, &old.r);
    } else if (kind == 1) {                                 /* vector / hvector */
        size_t bl = rnd(3);
        ptrdiff_t stride = rnd(2) ? (ptrdiff_t)rnd_in(-3, 4) * ext : rnd_in(-40, 40);
        st = dt_hvector(count, bl, stride, old.t, &x.t);
        for (size_t i = 0; i < count; i++) ref_place(&b, (ptrdiff_t)i * stride, bl, &old.r);
    } else if (kind == 2 || kind == 3) {                    /* (h)indexed(_block) */
        int bl[4], idisp[4], same = rnd(2), blk = rnd_in(0, 3);
        ptrdiff_t disp[4];
        for (size_t i = 0; i < count; i++) {
            bl[i] = same ? blk : rnd_in(0, 3);
            idisp[i] = rnd_in(-4, 6);
            disp[i] = rnd_in(-50, 50);
        }
        bool bytes = kind == 3;
        st = dt_indexed(count, same ? NULL : bl, (size_t)blk, bytes ? disp : NULL, idisp, old.t, &x.t);
        for (size_t i = 0; i < count; i++)
            ref_place(&b, bytes ? disp[i] : (ptrdiff_t)idisp[i] * ext, (size_t)bl[i], &old.r);
    } else if (kind == 4) {                                 /* struct */
        struct ty part[4];
        const struct dt_type *types[4];
        int bl[4];
        ptrdiff_t disp[4], at = rnd_in(-16, 16);
        for (size_t i = 0; i < count; i++) {
            part[i] = i ? component(depth) : old;
            types[i] = part[i].t;
            bl[i] = rnd_in(0, 3);
            disp[i] = at;
            at += rnd(4) ? (ptrdiff_t)bl[i] * (part[i].r.ub - part[i].r.lb) : rnd_in(-20, 30);
        }
        st = dt_struct(count, bl, disp, types, &x.t);
        for (size_t i = 0; i < count; i++) ref_place(&b, disp[i], (size_t)bl[i], &part[i].r);
        for (size_t i = 1; i < count; i++) ty_free(&part[i]);
    } else if (kind == 5) {                                 /* subarray */
        int nd = rnd_in(1, 3), sizes[3], subs[3], starts[3];
        bool fortran = rnd(2);
        for (int k = 0; k < nd; k++) {
            sizes[k] = rnd_in(1, 4);
            subs[k] = rnd_in(1, sizes[k]);
            starts[k] = rnd_in(0, sizes[k] - subs[k]);
        }
        st = dt_subarray(nd, sizes, subs, starts, fortran, old.t, &x.t);
        /* the reference: every element of the block in array order, as an
         * hindexed type of single elements would place them */
        ptrdiff_t total = 1;
        for (int k = 0; k < nd; k++) total *= sizes[k];
        for (ptrdiff_t e = 0; e < total; e++) {
            ptrdiff_t rest = e, off = 0, mult = 1;
            bool in = true;
            for (int k = 0; k < nd; k++) {                 /* k from the fastest dimension */
                int d = fortran ? k : nd - 1 - k;
                int i = (int)(rest % sizes[d]);
                rest /= sizes[d];
                in = in && i >= starts[d] && i < starts[d] + subs[d];
                off += i * mult;
                mult *= sizes[d];
            }
            if (in) ref_place(&b, off * ext, 1, &old.r);
        }
        b.any_marked = true, b.mlb = 0, b.mub = total * ext;
    } else {                                                /* resized */
        ptrdiff_t lb = rnd_in(-24, 24), e = rnd_in(kind == 6 ? 1 : -16, 40);
        st = dt_resized(old.t, lb, e, &x.t);
        ref_place(&b, 0, 1, &old.r);
        b.any_marked = true, b.mlb = lb, b.mub = lb + e;
    }
    CHECK(st == SM_OK, "constructor %d: %s", kind, sm_fail_reason());
    x.r = ref_end(&b);
    ty_free(&old);
    return x;
}

/* The type's description against the reference. */
static void check_type(const struct ty *x, int n)
{
    const struct dt_type *t = x->t;
    const struct ref *r = &x->r;
    ptrdiff_t tlo, thi;
    ref_true(r, &tlo, &thi);
    CHECK(t->size == r->size, "type %d: size %zu, reference %zu", n, t->size, r->size);
    CHECK(t->lb == r->lb && t->ub == r->ub, "type %d: bounds [%td, %td), reference [%td, %td)", n, t->lb, t->ub,
          r->lb, r->ub);
    CHECK(t->true_lb == tlo && t->true_ub == thi, "type %d: true bounds [%td, %td), reference [%td, %td)", n,
          t->true_lb, t->true_ub, tlo, thi);
    CHECK(t->marked == r->marked && t->align == r->align, "type %d: marked %d align %zu", n, t->marked, t->align);
    size_t k = 0;
    const struct dt_blk *blk = dt_blocks(t);
    for (int i = 0; i < t->nblk; i++) {
        CHECK(blk[i].len > 0 && blk[i].at == k, "type %d: block %d len %zu at %zu", n, i, blk[i].len, blk[i].at);
        if (i) CHECK(blk[i - 1].off + (ptrdiff_t)blk[i - 1].len != blk[i].off, "type %d: blocks %d, %d not merged", n,
                     i - 1, i);
        for (size_t j = 0; j < blk[i].len; j++, k++)
            CHECK(k < r->size && r->byte[k] == blk[i].off + (ptrdiff_t)j, "type %d: byte %zu of the typemap", n, k);
    }
    CHECK(k == r->size, "type %d: %zu bytes in blocks, reference %zu", n, k, r->size);
    bool contig = r->size == 0 || (t->nblk == 1 && (ptrdiff_t)r->size == r->ub - r->lb);
    CHECK(t->contig == contig, "type %d: contig %d", n, t->contig);
    for (size_t i = 0; i < 300; i++) {
        size_t bytes = i < 200 ? i : rnd((unsigned)(3 * r->size + 2));
        CHECK(dt_elements(t, bytes) == ref_elements(r, bytes), "type %d: elements in %zu bytes: %lld, reference %lld",
              n, bytes, (long long)dt_elements(t, bytes), ref_elements(r, bytes));
    }
}

/* [lo, hi): the addresses of count elements' bytes; false if two bytes share one. */
static bool span(const struct ref *r, size_t count, ptrdiff_t *lo, ptrdiff_t *hi)
{
    size_t n = count * r->size;
    ptrdiff_t *a = malloc((n ? n : 1) * sizeof *a);
    CHECK(a, "malloc");
    *lo = 0, *hi = 1;
    for (size_t k = 0; k < n; k++) {
        a[k] = ref_addr(r, k);
        if (a[k] < *lo) *lo = a[k];
        if (a[k] + 1 > *hi) *hi = a[k] + 1;
    }
    bool unique = true;
    char *seen = calloc((size_t)(*hi - *lo), 1);
    for (size_t k = 0; k < n && unique; k++) unique = !seen[a[k] - *lo]++;
    free(seen), free(a);
    return unique;
}

static void add_bytes(void *dst, const void *src, size_t n, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) ((unsigned char *)dst)[i] += ((const unsigned char *)src)[i];
}

static void whole_elements(void *dst, const void *src, size_t n, void *ctx)
{
    (void)dst, (void)src;
    CHECK(n % *(size_t *)ctx == 0, "a piece of %zu bytes splits %zu-byte elements", n, *(size_t *)ctx);
}

/* Copy count_s elements of s into count_d of d (as many bytes as both hold)
 * in random chunks, in random order; compare with the reference copy. */
static void check_copy(const struct ty *d, size_t count_d, const struct ty *s, size_t count_s, int n)
{
    ptrdiff_t dlo, dhi, slo, shi;
    if (!span(&d->r, count_d, &dlo, &dhi)) return;          /* receiving twice into a byte: erroneous */
    span(&s->r, count_s, &slo, &shi);
    size_t len = count_d * d->r.size < count_s * s->r.size ? count_d * d->r.size : count_s * s->r.size;
    size_t dbytes = (size_t)(dhi - dlo) + 32, sbytes = (size_t)(shi - slo) + 32;
    unsigned char *dst = malloc(dbytes), *want = malloc(dbytes), *src = malloc(sbytes);
    CHECK(dst && want && src, "malloc");
    for (size_t i = 0; i < sbytes; i++) src[i] = (unsigned char)rnd(256);
    memset(dst, 0xA5, dbytes);
    memset(want, 0xA5, dbytes);
    unsigned char *dbase = dst + 16 - dlo, *wbase = want + 16 - dlo, *sbase = src + 16 - slo;
    for (size_t k = 0; k < len; k++) wbase[ref_addr(&d->r, k)] = sbase[ref_addr(&s->r, k)];
    /* cut [0, len) into chunks, shuffle them */
    size_t cut[65], nc = 0;
    cut[nc++] = 0;
    for (size_t at = 0; at < len && nc < 64;) {
        at += 1 + rnd((unsigned)(len / 4 + 2));
        cut[nc++] = at < len ? at : len;
    }
    if (cut[nc - 1] != len) cut[nc++] = len;
    size_t order[64];
    for (size_t i = 0; i + 1 < nc; i++) order[i] = i;
    for (size_t i = nc - 1; i > 1; i--) {
        size_t j = rnd((unsigned)i), x = order[i - 1];
        order[i - 1] = order[j], order[j] = x;
    }
    for (size_t i = 0; i + 1 < nc; i++) {
        size_t c = order[i];
        dt_copy(dbase, d->t, sbase, s->t, cut[c], cut[c + 1] - cut[c]);
    }
    for (size_t i = 0; i < dbytes; i++)
        CHECK(dst[i] == want[i], "copy %d: %zu x %zu bytes into %zu x %zu bytes, %zu chunks: byte %td of the destination",
              n, count_s, s->r.size, count_d, d->r.size, nc - 1, (ptrdiff_t)i - 16 + dlo);
    /* dt_apply walks the same pieces: add the source into what the copy left */
    for (size_t k = 0; k < len; k++) wbase[ref_addr(&d->r, k)] += sbase[ref_addr(&s->r, k)];
    for (size_t i = 0; i + 1 < nc; i++)
        dt_apply(dbase, d->t, sbase, s->t, cut[order[i]], cut[order[i] + 1] - cut[order[i]], add_bytes, NULL);
    for (size_t i = 0; i < dbytes; i++) CHECK(dst[i] == want[i], "apply %d: byte %td", n, (ptrdiff_t)i - 16 + dlo);
    /* one basic type on both sides, without a hole (not {short, int}): every
     * piece holds whole elements */
    size_t whole = d->t->basic == s->t->basic && d->t->basic != DT_MIXED && d->t->basic != 6 ? d->r.elem[0] : 0;
    if (whole) dt_apply(dbase, d->t, sbase, s->t, 0, len, whole_elements, &whole);
    free(dst), free(want), free(src);
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20240601ULL;
    int ntypes = argc > 2 ? atoi(argv[2]) : 3000;
    seed += (unsigned long long)sm_rank() * 7919;
    rs = seed;
    printf("test_dt_random: rank %d seed %llu\n", sm_rank(), seed);
    fflush(stdout);
    init_basics();
    struct ty prev = basics[0];
    int copies = 0, holes = 0, neg = 0, marked = 0, big = 0;
    for (int n = 0; n < ntypes; n++) {
        struct ty x = random_type(3);
        check_type(&x, n);
        holes += x.t->nblk > 1, neg += x.t->lb < 0, marked += x.t->marked, big += x.r.size > 256;
        if (x.r.size * 4 < 8192 && prev.r.size * 4 < 8192) {
            /* the same data both ways, and a shorter one of each */
            size_t cx = rnd_in(1, 4), cp = prev.r.size ? (cx * x.r.size + prev.r.size - 1) / prev.r.size : 0;
            if (cp > 0 && cp <= 8) {
                check_copy(&x, cx, &prev, cp, n);
                check_copy(&prev, cp, &x, cx, n);
                copies += 2;
            }
            check_copy(&x, 1 + rnd(3), &x, 1 + rnd(3), n);
            copies++;
        }
        ty_free(&prev);
        prev = x;
    }
    ty_free(&prev);
    printf("test_dt_random: rank %d: %d types (%d with holes, %d with lb < 0, %d resized, %d over 256 bytes), "
           "%d copies ok\n", sm_rank(), ntypes, holes, neg, marked, big, copies);
    return 0;
}
