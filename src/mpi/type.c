/* Datatypes: the predefined table, constructors (flattened to a list of
 * blocks per element), pack/unpack. */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sm_core.h"
#include "smpi.h"

struct smpi_type smpi_types[SMPI_TYPE_PREDEF_COUNT];
/* One or two blocks per predefined type; the pair types may have a hole. */
static struct p2p_blk predef_blk[SMPI_TYPE_PREDEF_COUNT][2];
static struct smpi_run predef_run[SMPI_TYPE_PREDEF_COUNT];

static void predef(int id, const char *name, size_t size, size_t extent, size_t off2, size_t len2)
{
    struct smpi_type *t = &smpi_types[id];
    t->magic = SMPI_MAGIC_TYPE, t->id = id, t->combiner = MPI_COMBINER_NAMED, t->refs = 1;
    t->committed = true, t->name = name;
    t->size = size, t->lb = 0, t->ub = (ptrdiff_t)extent;
    t->blk = predef_blk[id];
    t->blk[0] = (struct p2p_blk){ 0, size - len2 };
    t->nblk = 1;
    if (len2) t->blk[t->nblk++] = (struct p2p_blk){ (ptrdiff_t)off2, len2 };
    t->true_lb = 0, t->true_ub = len2 ? (ptrdiff_t)(off2 + len2) : (ptrdiff_t)size;
    t->basic = id, t->nbasic = 1;
    t->runs = &predef_run[id], t->nruns = 1;
    t->runs[0] = (struct smpi_run){ size, 1 };
}
#define P(id, T) predef((int)(intptr_t)id, #id, sizeof(T), sizeof(T), 0, 0)
/* A pair {value, int}: the int may sit after padding. */
#define PAIR(id, S, V) do { \
    size_t o = offsetof(S, i); \
    if (o == sizeof(V)) predef((int)(intptr_t)id, #id, sizeof(V) + sizeof(int), sizeof(S), 0, 0); \
    else predef((int)(intptr_t)id, #id, sizeof(V) + sizeof(int), sizeof(S), o, sizeof(int)); \
} while (0)

__attribute__((constructor)) static void types_init(void)
{
    P(MPI_CHAR, char); P(MPI_SIGNED_CHAR, signed char); P(MPI_UNSIGNED_CHAR, unsigned char);
    P(MPI_BYTE, unsigned char); P(MPI_WCHAR, wchar_t); P(MPI_SHORT, short);
    P(MPI_UNSIGNED_SHORT, unsigned short); P(MPI_INT, int); P(MPI_UNSIGNED, unsigned);
    P(MPI_LONG, long); P(MPI_UNSIGNED_LONG, unsigned long); P(MPI_LONG_LONG_INT, long long);
    P(MPI_UNSIGNED_LONG_LONG, unsigned long long); P(MPI_FLOAT, float); P(MPI_DOUBLE, double);
    P(MPI_LONG_DOUBLE, long double); P(MPI_INT8_T, int8_t); P(MPI_INT16_T, int16_t);
    P(MPI_INT32_T, int32_t); P(MPI_INT64_T, int64_t); P(MPI_UINT8_T, uint8_t);
    P(MPI_UINT16_T, uint16_t); P(MPI_UINT32_T, uint32_t); P(MPI_UINT64_T, uint64_t);
    P(MPI_C_BOOL, _Bool); P(MPI_C_FLOAT_COMPLEX, float _Complex);
    P(MPI_C_DOUBLE_COMPLEX, double _Complex); P(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    P(MPI_AINT, MPI_Aint); P(MPI_OFFSET, MPI_Offset); P(MPI_COUNT, MPI_Count); P(MPI_PACKED, char);
    /* the reduction kernels' layouts (coll.h) */
    PAIR(MPI_FLOAT_INT, struct coll_float_int, float); PAIR(MPI_DOUBLE_INT, struct coll_double_int, double);
    PAIR(MPI_LONG_INT, struct coll_long_int, long); PAIR(MPI_2INT, struct coll_2int, int);
    PAIR(MPI_SHORT_INT, struct coll_short_int, short);
    PAIR(MPI_LONG_DOUBLE_INT, struct coll_ldouble_int, long double);
}

void smpi_type_ref(struct smpi_type *t)
{
    if (t && !t->id) t->refs++;
}

void smpi_type_unref(struct smpi_type *t)
{
    if (!t || t->id || --t->refs > 0) return;
    t->magic = 0;
    for (int i = 0; i < t->nd; i++) smpi_type_unref(t->cd[i]);
    free(t->ci), free(t->ca), free(t->cd);
    free(t->blk);
    free(t->runs);
    free(t->uname);
    free(t);
}

/* Record how t was made: ni integers (the concatenation of up to three
 * arrays), na addresses, nd types. Out of memory is fatal, as for the typemap. */
static void record(struct smpi_type *t, const int *i0, int n0, const int *i1, int n1, const int *i2, int n2,
                   const MPI_Aint *a, int na, const MPI_Datatype *d, int nd)
{
    t->ni = n0 + n1 + n2, t->na = na, t->nd = nd;
    t->ci = malloc(sizeof(int) * (size_t)(t->ni + 1));
    t->ca = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    t->cd = malloc(sizeof *t->cd * (size_t)(nd + 1));
    if (!t->ci || !t->ca || !t->cd) sm_fatal("MPI: out of memory recording a datatype's constructor");
    if (n0) memcpy(t->ci, i0, sizeof(int) * (size_t)n0);
    if (n1) memcpy(t->ci + n0, i1, sizeof(int) * (size_t)n1);
    if (n2) memcpy(t->ci + n0 + n1, i2, sizeof(int) * (size_t)n2);
    if (na) memcpy(t->ca, a, sizeof(MPI_Aint) * (size_t)na);
    for (int i = 0; i < nd; i++) {
        t->cd[i] = smpi_type(d[i]);
        smpi_type_ref(t->cd[i]);
    }
}

int smpi_type_check(struct smpi_comm *c, MPI_Datatype h, const char *R, struct smpi_type **out)
{
    struct smpi_type *t = smpi_type(h);
    if (!t) return smpi_error(c, MPI_ERR_TYPE, R, "datatype %s", smpi_hstr((const void *)h, "MPI_DATATYPE_NULL"));
    if (!t->committed) return smpi_error(c, MPI_ERR_TYPE, R, "datatype %p is not committed", (void *)h);
    *out = t;
    return MPI_SUCCESS;
}

/* --- Pack and unpack ------------------------------------------------------- */

void smpi_pack(const void *in, int count, const struct smpi_type *t, void *out)
{
    char *o = out;
    ptrdiff_t ext = smpi_extent(t);
    for (int i = 0; i < count; i++)
        for (int b = 0; b < t->nblk; b++) {
            memcpy(o, (const char *)in + i * ext + t->blk[b].off, t->blk[b].len);
            o += t->blk[b].len;
        }
}

void smpi_unpack(const void *in, int count, const struct smpi_type *t, void *out)
{
    const char *p = in;
    ptrdiff_t ext = smpi_extent(t);
    for (int i = 0; i < count; i++)
        for (int b = 0; b < t->nblk; b++) {
            memcpy((char *)out + i * ext + t->blk[b].off, p, t->blk[b].len);
            p += t->blk[b].len;
        }
}

void *smpi_contig_buf(void *buf, int count, const struct smpi_type *t, bool pack, void **tmp)
{
    *tmp = NULL;
    if (smpi_contig(t)) return t->nblk ? (char *)buf + t->blk[0].off : buf;
    size_t len = (size_t)count * t->size;
    if (!(*tmp = malloc(len ? len : 1))) sm_fatal("MPI: out of memory packing %zu bytes", len);
    if (pack) smpi_pack(buf, count, t, *tmp);
    return *tmp;
}

struct p2p_layout *smpi_layout(int count, const struct smpi_type *t)
{
    struct p2p_layout *l = malloc(sizeof *l + sizeof l->blk[0] * (size_t)t->nblk);
    if (!l) sm_fatal("MPI: out of memory for a layout of %d blocks", t->nblk);
    l->count = (size_t)count, l->extent = smpi_extent(t), l->nblk = t->nblk;
    memcpy(l->blk, t->blk, sizeof l->blk[0] * (size_t)t->nblk);
    return l;
}

/* --- Constructors ------------------------------------------------------------ */

struct builder { struct smpi_type *t; int cap, rcap; bool any; };

/* count more basic elements of size bytes, merged into the last run if equal */
static void add_run(struct builder *b, size_t size, size_t count)
{
    struct smpi_type *t = b->t;
    if (!count) return;
    if (t->nruns && t->runs[t->nruns - 1].size == size) { t->runs[t->nruns - 1].count += count; return; }
    if (t->nruns == b->rcap) {
        b->rcap = b->rcap ? 2 * b->rcap : 4;
        t->runs = realloc(t->runs, sizeof *t->runs * (size_t)b->rcap);
        if (!t->runs) sm_fatal("MPI: out of memory building a datatype");
    }
    t->runs[t->nruns++] = (struct smpi_run){ size, count };
}

MPI_Count smpi_type_elements(const struct smpi_type *t, MPI_Count bytes)
{
    if (!t->size) return 0;
    MPI_Count n = bytes / (MPI_Count)t->size * (MPI_Count)t->nbasic, rem = bytes % (MPI_Count)t->size;
    for (int i = 0; i < t->nruns && rem > 0; i++) {
        MPI_Count k = rem / (MPI_Count)t->runs[i].size;
        if (k > (MPI_Count)t->runs[i].count) k = (MPI_Count)t->runs[i].count;
        n += k, rem -= k * (MPI_Count)t->runs[i].size;
        if (k < (MPI_Count)t->runs[i].count) break;
    }
    return rem ? MPI_UNDEFINED : n;
}

static void add_blk(struct builder *b, ptrdiff_t off, size_t len)
{
    struct smpi_type *t = b->t;
    if (!len) return;
    if (t->nblk && t->blk[t->nblk - 1].off + (ptrdiff_t)t->blk[t->nblk - 1].len == off) {
        t->blk[t->nblk - 1].len += len;
        return;
    }
    if (t->nblk == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        t->blk = realloc(t->blk, sizeof *t->blk * (size_t)b->cap);
        if (!t->blk) sm_fatal("MPI: out of memory building a datatype");
    }
    t->blk[t->nblk++] = (struct p2p_blk){ off, len };
}

/* Append n elements of old, the first at displacement disp, one extent apart. */
static void add_elems(struct builder *b, ptrdiff_t disp, int n, const struct smpi_type *old)
{
    struct smpi_type *t = b->t;
    ptrdiff_t ext = smpi_extent(old);
    if (n <= 0) return;
    ptrdiff_t lo = disp + old->lb, hi = disp + (ptrdiff_t)(n - 1) * ext + old->ub;
    if (ext < 0) { ptrdiff_t x = lo; lo = disp + (ptrdiff_t)(n - 1) * ext + old->lb; hi = x - old->lb + old->ub; }
    if (!b->any || lo < t->lb) t->lb = lo;
    if (!b->any || hi > t->ub) t->ub = hi;
    b->any = true;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < old->nblk; k++) add_blk(b, disp + j * ext + old->blk[k].off, old->blk[k].len);
    if (old->nruns == 1) add_run(b, old->runs[0].size, (size_t)n * old->runs[0].count);
    else
        for (int j = 0; j < n; j++)
            for (int k = 0; k < old->nruns; k++) add_run(b, old->runs[k].size, old->runs[k].count);
    t->size += (size_t)n * old->size;
    if (t->basic == -2) t->basic = old->basic;
    else if (t->basic != old->basic) t->basic = -1;
    t->nbasic += (size_t)n * old->nbasic;
}

static struct smpi_type *type_begin(int combiner, struct builder *b)
{
    struct smpi_type *t = calloc(1, sizeof *t);
    if (!t) sm_fatal("MPI: out of memory for a datatype");
    t->magic = SMPI_MAGIC_TYPE, t->combiner = combiner, t->refs = 1, t->basic = -2;
    *b = (struct builder){ t, 0, 0, false };
    return t;
}

static MPI_Datatype type_end(struct smpi_type *t)
{
    if (t->basic == -2) t->basic = -1;
    t->true_lb = t->true_ub = 0;
    for (int k = 0; k < t->nblk; k++) {
        ptrdiff_t lo = t->blk[k].off, hi = lo + (ptrdiff_t)t->blk[k].len;
        if (!k || lo < t->true_lb) t->true_lb = lo;
        if (!k || hi > t->true_ub) t->true_ub = hi;
    }
    return t;
}

#define CHECK_OLD(old, h, R) \
    struct smpi_type *old = smpi_type(h); \
    if (!old) return smpi_error(NULL, MPI_ERR_TYPE, R, "invalid datatype %p", (void *)(h))
#define CHECK_COUNT(n, R) \
    if ((n) < 0) return smpi_error(NULL, MPI_ERR_COUNT, R, "count %d is negative", (n))
#define CHECK_OUT(p, R) \
    if (!(p)) return smpi_error(NULL, MPI_ERR_ARG, R, "newtype is NULL")

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_contiguous";
    CHECK_OLD(old, oldtype, R); CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    struct builder b;
    struct smpi_type *t = type_begin(MPI_COMBINER_CONTIGUOUS, &b);
    add_elems(&b, 0, count, old);
    *newtype = type_end(t);
    record(t, &count, 1, NULL, 0, NULL, 0, NULL, 0, &oldtype, 1);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

static int hvector(int count, int bl, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype,
                   int combiner, const char *R)
{
    CHECK_OLD(old, oldtype, R); CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    if (bl < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "blocklength %d is negative", bl);
    struct builder b;
    struct smpi_type *t = type_begin(combiner, &b);
    for (int i = 0; i < count; i++) add_elems(&b, i * stride, bl, old);
    *newtype = type_end(t);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct smpi_type *old = smpi_type(oldtype);
    int rc = hvector(count, blocklength, old ? stride * smpi_extent(old) : 0, oldtype, newtype,
                     MPI_COMBINER_VECTOR, "MPI_Type_vector");
    int ints[3] = { count, blocklength, stride };
    if (!rc) record(*newtype, ints, 3, NULL, 0, NULL, 0, NULL, 0, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    int rc = hvector(count, blocklength, stride, oldtype, newtype, MPI_COMBINER_HVECTOR,
                     "MPI_Type_create_hvector");
    int ints[2] = { count, blocklength };
    if (!rc) record(*newtype, ints, 2, NULL, 0, NULL, 0, &stride, 1, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

/* The general constructor: block i holds bl[i] (or bl0) elements of types[i]
 * (or old) at byte displacement disp[i] (or idisp[i] extents). */
static int general(int count, const int *bl, int bl0, const MPI_Aint *disp, const int *idisp,
                   const MPI_Datatype *types, MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner,
                   const char *R)
{
    CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    if (count && ((!bl && bl0 < 0) || (!disp && !idisp)))
        return smpi_error(NULL, MPI_ERR_ARG, R, "NULL array or negative blocklength");
    struct smpi_type *old = NULL;
    if (!types) { old = smpi_type(oldtype); if (!old) return smpi_error(NULL, MPI_ERR_TYPE, R, "invalid datatype %p", (void *)oldtype); }
    for (int i = 0; i < count; i++) {
        if (bl && bl[i] < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "blocklength[%d] = %d is negative", i, bl[i]);
        if (types && !smpi_type(types[i]))
            return smpi_error(NULL, MPI_ERR_TYPE, R, "types[%d] = %p is invalid", i, (void *)types[i]);
    }
    struct builder b;
    struct smpi_type *t = type_begin(combiner, &b);
    for (int i = 0; i < count; i++) {
        const struct smpi_type *o = types ? smpi_type(types[i]) : old;
        ptrdiff_t d = disp ? disp[i] : (ptrdiff_t)idisp[i] * smpi_extent(o);
        add_elems(&b, d, bl ? bl[i] : bl0, o);
    }
    *newtype = type_end(t);
    return MPI_SUCCESS;
}

int PMPI_Type_indexed(int count, const int bl[], const int displs[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = general(count, bl, 0, NULL, displs, NULL, oldtype, newtype, MPI_COMBINER_INDEXED, "MPI_Type_indexed");
    if (!rc) record(*newtype, &count, 1, bl, count, displs, count, NULL, 0, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint displs[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    int rc = general(count, bl, 0, displs, NULL, NULL, oldtype, newtype, MPI_COMBINER_HINDEXED,
                     "MPI_Type_create_hindexed");
    if (!rc) record(*newtype, &count, 1, bl, count, NULL, 0, displs, count, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displs[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    int rc = general(count, NULL, blocklength, NULL, displs, NULL, oldtype, newtype,
                     MPI_COMBINER_INDEXED_BLOCK, "MPI_Type_create_indexed_block");
    int ints[2] = { count, blocklength };
    if (!rc) record(*newtype, ints, 2, displs, count, NULL, 0, NULL, 0, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    int rc = general(count, NULL, blocklength, displs, NULL, NULL, oldtype, newtype,
                     MPI_COMBINER_HINDEXED_BLOCK, "MPI_Type_create_hindexed_block");
    int ints[2] = { count, blocklength };
    if (!rc) record(*newtype, ints, 2, NULL, 0, NULL, 0, displs, count, &oldtype, 1);
    return rc;
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

int PMPI_Type_create_struct(int count, const int bl[], const MPI_Aint displs[], const MPI_Datatype types[],
                            MPI_Datatype *newtype)
{
    if (count > 0 && !types) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_create_struct", "types is NULL");
    int rc = general(count, bl, 0, displs, NULL, types, MPI_DATATYPE_NULL, newtype, MPI_COMBINER_STRUCT,
                     "MPI_Type_create_struct");
    if (!rc) record(*newtype, &count, 1, bl, count, NULL, 0, displs, count, types, count);
    return rc;
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_create_subarray";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    if (ndims < 1 || !sizes || !subsizes || !starts)
        return smpi_error(NULL, MPI_ERR_ARG, R, "ndims %d or NULL array", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return smpi_error(NULL, MPI_ERR_ARG, R, "invalid order %d", order);
    for (int d = 0; d < ndims; d++)
        if (sizes[d] < 1 || subsizes[d] < 1 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: size %d, subsize %d, start %d", d, sizes[d],
                              subsizes[d], starts[d]);
    /* dim(k): the k-th dimension from the fastest varying one */
#define DIM(k) (order == MPI_ORDER_C ? ndims - 1 - (k) : (k))
    ptrdiff_t ext = smpi_extent(old), stride[32];
    if (ndims > 32) return smpi_error(NULL, MPI_ERR_ARG, R, "ndims %d above 32", ndims);
    ptrdiff_t total = 1;
    for (int k = 0; k < ndims; k++) stride[k] = total * ext, total *= sizes[DIM(k)];
    struct builder b;
    struct smpi_type *t = type_begin(MPI_COMBINER_SUBARRAY, &b);
    int idx[32] = { 0 };                 /* over every dimension but the fastest */
    for (;;) {
        ptrdiff_t off = (ptrdiff_t)starts[DIM(0)] * ext;
        for (int k = 1; k < ndims; k++) off += (ptrdiff_t)(starts[DIM(k)] + idx[k]) * stride[k];
        add_elems(&b, off, subsizes[DIM(0)], old);
        int k = 1;
        while (k < ndims && ++idx[k] == subsizes[DIM(k)]) idx[k++] = 0;
        if (k == ndims) break;
    }
#undef DIM
    type_end(t);
    t->lb = 0, t->ub = total * ext;      /* the extent is the whole array's */
    *newtype = t;
    record(t, &ndims, 1, sizes, ndims, subsizes, ndims, NULL, 0, &oldtype, 1);
    t->ni += ndims + 1;                  /* then starts[] and order */
    if (!(t->ci = realloc(t->ci, sizeof(int) * (size_t)t->ni))) sm_fatal("MPI: out of memory recording a subarray");
    memcpy(t->ci + 1 + 2 * ndims, starts, sizeof(int) * (size_t)ndims);
    t->ci[t->ni - 1] = order;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

static struct smpi_type *type_copy(const struct smpi_type *old, int combiner)
{
    struct builder b;
    struct smpi_type *t = type_begin(combiner, &b);
    add_elems(&b, 0, 1, old);
    t->lb = old->lb, t->ub = old->ub;
    type_end(t);
    return t;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_create_resized";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    struct smpi_type *t = type_copy(old, MPI_COMBINER_RESIZED);
    t->lb = lb, t->ub = lb + extent;
    *newtype = t;
    MPI_Aint a[2] = { lb, extent };
    record(t, NULL, 0, NULL, 0, NULL, 0, a, 2, &oldtype, 1);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_dup";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    struct smpi_type *t = type_copy(old, MPI_COMBINER_DUP);
    t->committed = old->committed;
    *newtype = t;
    record(t, NULL, 0, NULL, 0, NULL, 0, NULL, 0, &oldtype, 1);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_dup = PMPI_Type_dup

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    if (!datatype) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_commit", "datatype is NULL");
    CHECK_OLD(t, *datatype, "MPI_Type_commit");
    t->committed = true;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_commit = PMPI_Type_commit

int PMPI_Type_free(MPI_Datatype *datatype)
{
    if (!datatype) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_free", "datatype is NULL");
    CHECK_OLD(t, *datatype, "MPI_Type_free");
    if (t->id) return smpi_error(NULL, MPI_ERR_TYPE, "MPI_Type_free", "cannot free predefined %s", t->name);
    /* A derived type's typemap is copied into the types built from it; the
     * requests that still use it hold references. The handle dies now. */
    t->magic = 0;
    *datatype = MPI_DATATYPE_NULL;
    smpi_type_unref(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free = PMPI_Type_free

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char R[] = "MPI_Type_set_name";
    CHECK_OLD(t, datatype, R);
    if (!type_name) return smpi_error(NULL, MPI_ERR_ARG, R, "type_name is NULL");
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);   /* MPI: longer names are truncated */
    char *s = malloc(n + 1);
    if (!s) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "out of memory for a name");
    memcpy(s, type_name, n);
    s[n] = 0;
    free(t->uname);
    t->uname = s;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_set_name = PMPI_Type_set_name

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char R[] = "MPI_Type_get_name";
    CHECK_OLD(t, datatype, R);
    if (!type_name || !resultlen) return smpi_error(NULL, MPI_ERR_ARG, R, "type_name or resultlen is NULL");
    const char *s = t->uname ? t->uname : t->name ? t->name : "";
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", s);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_name = PMPI_Type_get_name

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    CHECK_OLD(t, datatype, "MPI_Type_size");
    if (!size) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
    *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;   /* MPI: too large for an int */
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    CHECK_OLD(t, datatype, "MPI_Type_size_x");
    if (!size) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_size_x", "size is NULL");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    CHECK_OLD(t, datatype, "MPI_Type_get_extent_x");
    if (!lb || !extent) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_get_extent_x", "NULL argument");
    *lb = t->lb, *extent = smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    CHECK_OLD(t, datatype, "MPI_Type_get_true_extent_x");
    if (!true_lb || !true_extent)
        return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_get_true_extent_x", "NULL argument");
    *true_lb = t->true_lb, *true_extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    CHECK_OLD(t, datatype, "MPI_Type_get_extent");
    if (!lb || !extent) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_get_extent", "NULL argument");
    *lb = t->lb, *extent = smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    CHECK_OLD(t, datatype, "MPI_Type_get_true_extent");
    if (!true_lb || !true_extent) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Type_get_true_extent", "NULL argument");
    *true_lb = t->true_lb, *true_extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_address = PMPI_Get_address

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    static const char R[] = "MPI_Type_get_envelope";
    CHECK_OLD(t, datatype, R);
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    *num_integers = t->ni, *num_addresses = t->na, *num_datatypes = t->nd, *combiner = t->combiner;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope

/* A new handle on a type equal to t (MPI_Type_get_contents hands out new
 * objects for derived types, which the caller frees). */
static struct smpi_type *type_clone(const struct smpi_type *t)
{
    struct smpi_type *c = malloc(sizeof *c);
    if (!c) sm_fatal("MPI: out of memory for a datatype");
    *c = *t;
    c->magic = SMPI_MAGIC_TYPE, c->refs = 1, c->uname = NULL;   /* t's handle may be freed already */
    c->blk = malloc(sizeof *c->blk * (size_t)(t->nblk + 1));
    if (!c->blk) sm_fatal("MPI: out of memory for a datatype");
    memcpy(c->blk, t->blk, sizeof *c->blk * (size_t)t->nblk);
    c->runs = malloc(sizeof *c->runs * (size_t)(t->nruns + 1));
    if (!c->runs) sm_fatal("MPI: out of memory for a datatype");
    memcpy(c->runs, t->runs, sizeof *c->runs * (size_t)t->nruns);
    MPI_Datatype d[t->nd + 1];
    for (int i = 0; i < t->nd; i++) d[i] = t->cd[i]->id ? (MPI_Datatype)(intptr_t)t->cd[i]->id : t->cd[i];
    record(c, t->ci, t->ni, NULL, 0, NULL, 0, t->ca, t->na, d, t->nd);
    return c;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int ints[], MPI_Aint addrs[], MPI_Datatype types[])
{
    static const char R[] = "MPI_Type_get_contents";
    CHECK_OLD(t, datatype, R);
    if (t->combiner == MPI_COMBINER_NAMED)
        return smpi_error(NULL, MPI_ERR_TYPE, R, "%s is predefined: it has no contents", t->name);
    if (max_integers < t->ni || max_addresses < t->na || max_datatypes < t->nd)
        return smpi_error(NULL, MPI_ERR_ARG, R, "room for %d, %d, %d but the type has %d integers, %d addresses, "
                          "%d datatypes", max_integers, max_addresses, max_datatypes, t->ni, t->na, t->nd);
    if ((t->ni && !ints) || (t->na && !addrs) || (t->nd && !types))
        return smpi_error(NULL, MPI_ERR_ARG, R, "NULL array");
    if (t->ni) memcpy(ints, t->ci, sizeof(int) * (size_t)t->ni);
    if (t->na) memcpy(addrs, t->ca, sizeof(MPI_Aint) * (size_t)t->na);
    for (int i = 0; i < t->nd; i++)
        types[i] = t->cd[i]->id ? (MPI_Datatype)(intptr_t)t->cd[i]->id : type_clone(t->cd[i]);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char R[] = "MPI_Pack_size";
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = smpi_type_check(c, datatype, R, &t);
    if (rc) return rc;
    if (incount < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", incount);
    if (!size) return smpi_error(c, MPI_ERR_ARG, R, "size is NULL");
    *size = incount * (int)t->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char R[] = "MPI_Pack";
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = smpi_type_check(c, datatype, R, &t);
    if (rc) return rc;
    if (incount < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", incount);
    if (!position || *position < 0) return smpi_error(c, MPI_ERR_ARG, R, "invalid position");
    size_t need = (size_t)incount * t->size;
    if ((size_t)*position + need > (size_t)outsize)
        return smpi_error(c, MPI_ERR_TRUNCATE, R, "%zu bytes at position %d do not fit in %d", need, *position, outsize);
    if (need && (!inbuf || !outbuf)) return smpi_error(c, MPI_ERR_BUFFER, R, "NULL buffer");
    smpi_pack(inbuf, incount, t, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char R[] = "MPI_Unpack";
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = smpi_type_check(c, datatype, R, &t);
    if (rc) return rc;
    if (outcount < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", outcount);
    if (!position || *position < 0) return smpi_error(c, MPI_ERR_ARG, R, "invalid position");
    size_t need = (size_t)outcount * t->size;
    if ((size_t)*position + need > (size_t)insize)
        return smpi_error(c, MPI_ERR_TRUNCATE, R, "%zu bytes at position %d exceed %d", need, *position, insize);
    if (need && (!inbuf || !outbuf)) return smpi_error(c, MPI_ERR_BUFFER, R, "NULL buffer");
    smpi_unpack((const char *)inbuf + *position, outcount, t, outbuf);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack
