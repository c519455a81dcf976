/* Datatypes: the predefined table, the constructors (MPI's checks, handles
 * and envelopes around src/dt's layouts), queries, pack/unpack. (The
 * reduction operations are op.c's.) */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sm_core.h"
#include "smpi.h"

_Static_assert(_Generic((MPI_Aint *)0, ptrdiff_t *: 1, default: 0), "MPI_Aint arrays are ptrdiff_t arrays for src/dt");

struct smpi_type smpi_types[SMPI_TYPE_PREDEF_COUNT];
uint8_t smpi_type_run[SMPI_TYPE_PREDEF_COUNT];
static struct dt_predef predef_dt[SMPI_TYPE_PREDEF_COUNT];

/* Predefined type id: its layout's basic type is its own id (reductions). */
static void predef(int id, const char *name, size_t size, size_t align, size_t extent, size_t off2, size_t len2)
{
    dt_predef_init(&predef_dt[id], id, size, align, extent, off2, len2);
    smpi_types[id] = (struct smpi_type){ .magic = SMPI_MAGIC_TYPE, .id = id, .combiner = MPI_COMBINER_NAMED,
                                         .refs = 1, .committed = true, .dt = &predef_dt[id].t, .name = name };
    const struct dt_type *t = &predef_dt[id].t;
    smpi_type_run[id] = t->contig && !t->true_lb && t->size <= UINT8_MAX ? (uint8_t)t->size : 0;
}
#define P(id, T) predef((int)(intptr_t)id, #id, sizeof(T), _Alignof(T), sizeof(T), 0, 0)
/* A pair {value, int}: the int may sit after padding, and the pair's extent is the C struct's. */
#define PAIR(id, S, V) predef((int)(intptr_t)id, #id, sizeof(V) + sizeof(int), _Alignof(S), sizeof(S), \
                              offsetof(S, i), sizeof(int))

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
    if (t && !t->id) smpi_refs_add(&t->refs, 1);
}

void smpi_type_unref(struct smpi_type *t)
{
    if (!t || t->id || smpi_refs_add(&t->refs, -1) > 0) return;
    t->magic = 0;
    for (int i = 0; i < t->nd; i++) smpi_type_unref(t->cd[i]);
    free(t->ci), free(t->ca), free(t->cd);
    dt_unref(t->dt);
    free(t->uname);
    free(t);
}

int smpi_type_bad(struct smpi_comm *c, MPI_Datatype h, const char *R)
{
    if (!smpi_type(h)) return smpi_error(c, MPI_ERR_TYPE, R, "datatype %s", smpi_hstr((const void *)h, "MPI_DATATYPE_NULL"));
    return smpi_error(c, MPI_ERR_TYPE, R, "datatype %p is not committed", (void *)h);
}

MPI_Count smpi_type_elements(const struct smpi_type *t, MPI_Count bytes)
{
    int64_t n = dt_elements(t->dt, (size_t)bytes);
    return n < 0 ? MPI_UNDEFINED : (MPI_Count)n;
}

/* --- Pack and unpack ------------------------------------------------------- */

void smpi_pack(const void *in, int count, const struct smpi_type *t, void *out)
{
    dt_pack(out, in, t->dt, (size_t)count);
}

void smpi_unpack(const void *in, int count, const struct smpi_type *t, void *out)
{
    dt_unpack(out, t->dt, (size_t)count, in);
}

void *smpi_contig_buf(void *buf, int count, const struct smpi_type *t, bool pack, void **tmp)
{
    *tmp = NULL;
    if (dt_is_contig(t->dt, (size_t)count)) return (char *)buf + t->dt->true_lb;
    size_t len = (size_t)count * t->dt->size;
    if (!(*tmp = malloc(len ? len : 1))) sm_fatal("MPI: out of memory packing %zu bytes", len);
    if (pack) smpi_pack(buf, count, t, *tmp);
    return *tmp;
}

/* --- Constructors ------------------------------------------------------------
 * Each checks MPI's arguments, has src/dt build the layout, and keeps how
 * the type was made (MPI_Type_get_envelope/contents): up to six integer
 * arrays (concatenated), the addresses, and the component types, which it
 * holds references to (a component's handle may be freed before). */
struct contents {
    struct { const int *v; int n; } i[6];
    const MPI_Aint *a;
    int na;
    struct smpi_type *const *d;
    int nd;
};

/* Record c in t; false when out of memory. */
static bool record(struct smpi_type *t, const struct contents *c)
{
    t->ni = 0;
    for (int k = 0; k < 6; k++) t->ni += c->i[k].n;
    t->na = c->na, t->nd = c->nd;
    t->ci = malloc(sizeof(int) * (size_t)(t->ni + 1));
    t->ca = malloc(sizeof(MPI_Aint) * (size_t)(t->na + 1));
    t->cd = malloc(sizeof *t->cd * (size_t)(t->nd + 1));
    if (!t->ci || !t->ca || !t->cd) {
        free(t->ci), free(t->ca), free(t->cd);
        t->ci = NULL, t->ca = NULL, t->cd = NULL, t->ni = t->na = t->nd = 0;
        return false;
    }
    for (int k = 0, at = 0; k < 6; at += c->i[k].n, k++)
        if (c->i[k].n) memcpy(t->ci + at, c->i[k].v, sizeof(int) * (size_t)c->i[k].n);
    if (t->na) memcpy(t->ca, c->a, sizeof(MPI_Aint) * (size_t)t->na);
    for (int i = 0; i < t->nd; i++) {
        t->cd[i] = c->d[i];
        smpi_type_ref(t->cd[i]);
    }
    return true;
}

/* The new handle for layout d (st: how building it went), made by combiner from c. */
static int made(sm_status_t st, struct dt_type *d, int combiner, const struct contents *c, MPI_Datatype *newtype,
                const char *R)
{
    if (st) return smpi_error(NULL, smpi_class_of(st), R, "%s", sm_fail_reason());
    struct smpi_type *t = calloc(1, sizeof *t);
    if (!t || !record(t, c)) {
        free(t);
        dt_unref(d);
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for a datatype");
    }
    t->magic = SMPI_MAGIC_TYPE, t->combiner = combiner, t->refs = 1, t->dt = d;
    *newtype = t;
    return MPI_SUCCESS;
}

#define CHECK_OLD(old, h, R) \
    struct smpi_type *old = smpi_type(h); \
    if (!old) return smpi_error(NULL, MPI_ERR_TYPE, R, "invalid datatype %s", \
                                smpi_hstr((const void *)(h), "MPI_DATATYPE_NULL"))
#define CHECK_COUNT(n, R) \
    if ((n) < 0) return smpi_error(NULL, MPI_ERR_COUNT, R, "count %d is negative", (n))
#define CHECK_OUT(p, R) \
    if (!(p)) return smpi_error(NULL, MPI_ERR_ARG, R, "newtype is NULL")

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_contiguous";
    CHECK_OLD(old, oldtype, R); CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    struct dt_type *d = NULL;
    sm_status_t st = dt_contiguous((size_t)count, old->dt, &d);
    return made(st, d, MPI_COMBINER_CONTIGUOUS, &(struct contents){ .i = { { &count, 1 } }, .d = &old, .nd = 1 },
                newtype, R);
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_vector";
    CHECK_OLD(old, oldtype, R); CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    if (blocklength < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "blocklength %d is negative", blocklength);
    struct dt_type *d = NULL;
    sm_status_t st = dt_hvector((size_t)count, (size_t)blocklength, stride * smpi_extent(old), old->dt, &d);
    int ints[3] = { count, blocklength, stride };
    return made(st, d, MPI_COMBINER_VECTOR, &(struct contents){ .i = { { ints, 3 } }, .d = &old, .nd = 1 }, newtype,
                R);
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

static int hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype,
                   const char *R)
{
    CHECK_OLD(old, oldtype, R); CHECK_COUNT(count, R); CHECK_OUT(newtype, R);
    if (blocklength < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "blocklength %d is negative", blocklength);
    struct dt_type *d = NULL;
    sm_status_t st = dt_hvector((size_t)count, (size_t)blocklength, stride, old->dt, &d);
    int ints[2] = { count, blocklength };
    return made(st, d, MPI_COMBINER_HVECTOR,
                &(struct contents){ .i = { { ints, 2 } }, .a = &stride, .na = 1, .d = &old, .nd = 1 }, newtype, R);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_create_hvector");
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

/* MPI-1's name (removed in MPI 3.0). Its combiner is MPI_COMBINER_HVECTOR:
 * MPI_COMBINER_HVECTOR_INTEGER was Fortran's, with integer strides. */
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_hvector");
}
#pragma weak MPI_Type_hvector = PMPI_Type_hvector

/* The indexed family's checks: count blocks of bl[i] (or blocklength) elements. */
static int check_blocks(int count, const int *bl, int blocklength, const void *displs, const char *R)
{
    CHECK_COUNT(count, R);
    if (count && (!displs || (!bl && blocklength < 0)))
        return smpi_error(NULL, MPI_ERR_ARG, R, displs ? "blocklength %d is negative" : "displacements are NULL",
                          blocklength);
    for (int i = 0; bl && i < count; i++)
        if (bl[i] < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "blocklength[%d] = %d is negative", i, bl[i]);
    return MPI_SUCCESS;
}

/* MPI_Type_indexed, create_hindexed, create_indexed_block, create_hindexed_block. */
static int indexed(int count, const int bl[], int blocklength, const MPI_Aint *adispl, const int *idispl,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner, const char *R)
{
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    if (count > 0 && !bl && combiner != MPI_COMBINER_INDEXED_BLOCK && combiner != MPI_COMBINER_HINDEXED_BLOCK)
        return smpi_error(NULL, MPI_ERR_ARG, R, "blocklengths are NULL");
    int rc = check_blocks(count, bl, blocklength, adispl ? (const void *)adispl : (const void *)idispl, R);
    if (rc) return rc;
    struct dt_type *d = NULL;
    sm_status_t st = dt_indexed((size_t)count, bl, (size_t)blocklength, adispl, idispl, old->dt, &d);
    /* contents: count, then the block lengths (or the one), then integer displacements */
    int n = bl ? count : 1;
    struct contents c = { .i = { { &count, 1 }, { bl ? bl : &blocklength, n }, { idispl, idispl ? count : 0 } },
                          .a = adispl, .na = adispl ? count : 0, .d = &old, .nd = 1 };
    return made(st, d, combiner, &c, newtype, R);
}

int PMPI_Type_indexed(int count, const int bl[], const int displs[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed(count, bl, 0, NULL, displs, oldtype, newtype, MPI_COMBINER_INDEXED, "MPI_Type_indexed");
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_create_hindexed(int count, const int bl[], const MPI_Aint displs[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return indexed(count, bl, 0, displs, NULL, oldtype, newtype, MPI_COMBINER_HINDEXED, "MPI_Type_create_hindexed");
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_hindexed(int count, int *bl, MPI_Aint *displs, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed(count, bl, 0, displs, NULL, oldtype, newtype, MPI_COMBINER_HINDEXED, "MPI_Type_hindexed");
}
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displs[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    return indexed(count, NULL, blocklength, NULL, displs, oldtype, newtype, MPI_COMBINER_INDEXED_BLOCK,
                   "MPI_Type_create_indexed_block");
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return indexed(count, NULL, blocklength, displs, NULL, oldtype, newtype, MPI_COMBINER_HINDEXED_BLOCK,
                   "MPI_Type_create_hindexed_block");
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

static int type_struct(int count, const int bl[], const MPI_Aint displs[], const MPI_Datatype types[],
                       MPI_Datatype *newtype, const char *R)
{
    CHECK_OUT(newtype, R);
    if (count > 0 && (!types || !bl)) return smpi_error(NULL, MPI_ERR_ARG, R, "%s is NULL", types ? "bl" : "types");
    int rc = check_blocks(count, bl, 0, displs, R);
    if (rc) return rc;
    struct smpi_type **objs = malloc(sizeof *objs * (size_t)(count + 1));
    const struct dt_type **dts = malloc(sizeof *dts * (size_t)(count + 1));
    if (!objs || !dts) {
        free(objs), free(dts);
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for %d types", count);
    }
    for (int i = 0; i < count && !rc; i++) {
        if (!(objs[i] = smpi_type(types[i])))
            rc = smpi_error(NULL, MPI_ERR_TYPE, R, "types[%d] = %s is invalid", i,
                            smpi_hstr((const void *)types[i], "MPI_DATATYPE_NULL"));
        else dts[i] = objs[i]->dt;
    }
    if (!rc) {
        struct dt_type *d = NULL;
        sm_status_t st = dt_struct((size_t)count, bl, displs, dts, &d);
        struct contents c = { .i = { { &count, 1 }, { bl, count } }, .a = displs, .na = count, .d = objs, .nd = count };
        rc = made(st, d, MPI_COMBINER_STRUCT, &c, newtype, R);
    }
    free(objs), free(dts);
    return rc;
}

int PMPI_Type_create_struct(int count, const int bl[], const MPI_Aint displs[], const MPI_Datatype types[],
                            MPI_Datatype *newtype)
{
    return type_struct(count, bl, displs, types, newtype, "MPI_Type_create_struct");
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

int PMPI_Type_struct(int count, int *bl, MPI_Aint *displs, MPI_Datatype *types, MPI_Datatype *newtype)
{
    return type_struct(count, bl, displs, types, newtype, "MPI_Type_struct");
}
#pragma weak MPI_Type_struct = PMPI_Type_struct

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
        if (sizes[d] < 1 || subsizes[d] < 1 || starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: size %d, subsize %d, start %d", d, sizes[d],
                              subsizes[d], starts[d]);
    struct dt_type *d = NULL;
    sm_status_t st = dt_subarray(ndims, sizes, subsizes, starts, order == MPI_ORDER_FORTRAN, old->dt, &d);
    struct contents c = { .i = { { &ndims, 1 }, { sizes, ndims }, { subsizes, ndims }, { starts, ndims }, { &order, 1 } },
                          .d = &old, .nd = 1 };
    return made(st, d, MPI_COMBINER_SUBARRAY, &c, newtype, R);
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_create_resized";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    struct dt_type *d = NULL;
    sm_status_t st = dt_resized(old->dt, lb, extent, &d);
    MPI_Aint a[2] = { lb, extent };
    return made(st, d, MPI_COMBINER_RESIZED, &(struct contents){ .a = a, .na = 2, .d = &old, .nd = 1 }, newtype, R);
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized

/* --- Distributed arrays (MPI 3.1 §4.1.4) -------------------------------------
 * Built as the standard's reference construction does, one dimension at a
 * time from the fastest varying: the blocks of darg elements a process owns
 * (dealt round robin over the psize processes of its grid dimension; the
 * last block of all may be short) in a type resized to the whole
 * dimension, which the next dimension takes as its element. */
static sm_status_t darray_dim(int gsize, int distrib, int darg, int psize, int r, const struct dt_type *old,
                              struct dt_type **out)
{
    if (distrib == MPI_DISTRIBUTE_NONE) darg = gsize, psize = 1, r = 0;
    else if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        darg = distrib == MPI_DISTRIBUTE_BLOCK ? (int)(((int64_t)gsize + psize - 1) / psize) : 1;
    ptrdiff_t ext = dt_extent(old), bytes, stride, first, lastd, whole;
    int64_t nblocks = ((int64_t)gsize + darg - 1) / darg;
    int64_t mine = nblocks > r ? (nblocks - r - 1) / psize + 1 : 0;
    int last = (int)(gsize - (nblocks - 1) * darg);          /* elements in the last block of all */
    bool short_last = mine && (nblocks - 1) % psize == r && last < darg;
    if (__builtin_mul_overflow((ptrdiff_t)darg, ext, &bytes) || __builtin_mul_overflow(bytes, (ptrdiff_t)psize, &stride) ||
        __builtin_mul_overflow(bytes, (ptrdiff_t)r, &first) ||
        __builtin_mul_overflow(bytes, (ptrdiff_t)(nblocks - 1), &lastd) ||
        __builtin_mul_overflow((ptrdiff_t)gsize, ext, &whole))
        return sm_fail(SM_ERR_ARG, "the array's extent overflows");
    struct dt_type *v = NULL, *st = NULL;
    sm_status_t rc = dt_hvector((size_t)(mine - short_last), (size_t)darg, stride, old, &v);
    if (!rc) {
        int bl[2] = { 1, last };
        ptrdiff_t disp[2] = { first, lastd };
        const struct dt_type *types[2] = { v, old };
        rc = dt_struct(short_last ? 2 : 1, bl, disp, types, &st);
    }
    if (!rc) rc = dt_resized(st, 0, whole, out);
    dt_unref(v), dt_unref(st);
    return rc;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_create_darray";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    if (size < 1 || rank < 0 || rank >= size)
        return smpi_error(NULL, MPI_ERR_ARG, R, "rank %d of a group of %d", rank, size);
    if (ndims < 1 || !gsizes || !distribs || !dargs || !psizes)
        return smpi_error(NULL, MPI_ERR_ARG, R, "ndims %d or NULL array", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return smpi_error(NULL, MPI_ERR_ARG, R, "invalid order %d", order);
    int64_t procs = 1;
    for (int d = 0; d < ndims; d++) {
        if (gsizes[d] < 1 || psizes[d] < 1)
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: gsize %d, psize %d", d, gsizes[d], psizes[d]);
        if (distribs[d] != MPI_DISTRIBUTE_BLOCK && distribs[d] != MPI_DISTRIBUTE_CYCLIC &&
            distribs[d] != MPI_DISTRIBUTE_NONE)
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: invalid distribution %d", d, distribs[d]);
        if (dargs[d] < 1 && dargs[d] != MPI_DISTRIBUTE_DFLT_DARG)
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: distribution argument %d", d, dargs[d]);
        if (distribs[d] == MPI_DISTRIBUTE_NONE && psizes[d] != 1)
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d is not distributed but has %d processes", d,
                              psizes[d]);
        if (distribs[d] == MPI_DISTRIBUTE_BLOCK && dargs[d] != MPI_DISTRIBUTE_DFLT_DARG &&
            (int64_t)dargs[d] * psizes[d] < gsizes[d])
            return smpi_error(NULL, MPI_ERR_ARG, R, "dimension %d: %d blocks of %d do not cover %d elements", d,
                              psizes[d], dargs[d], gsizes[d]);
        procs *= psizes[d];
        if (procs > size) break;
    }
    if (procs != size)
        return smpi_error(NULL, MPI_ERR_ARG, R, "the process grid's size is not the group's %d", size);
    /* the process grid is row-major whatever the array's order */
    int coord[ndims];
    for (int d = ndims - 1, q = rank; d >= 0; d--) coord[d] = q % psizes[d], q /= psizes[d];
    struct dt_type *cur = dt_ref(old->dt), *next = NULL;
    sm_status_t st = SM_OK;
    for (int k = 0; k < ndims && !st; k++) {
        int d = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
        st = darray_dim(gsizes[d], distribs[d], dargs[d], psizes[d], coord[d], cur, &next);
        dt_unref(cur);
        cur = st ? NULL : next;
    }
    int hdr[3] = { size, rank, ndims };
    struct contents c = { .i = { { hdr, 3 }, { gsizes, ndims }, { distribs, ndims }, { dargs, ndims }, { psizes, ndims },
                                 { &order, 1 } },
                          .d = &old, .nd = 1 };
    return made(st, cur, MPI_COMBINER_DARRAY, &c, newtype, R);
}
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray

/* --- Fortran 90 parameterised types (MPI 3.1 §17.1.9) ---------------------------------
 * The smallest kind with the precision p and decimal exponent range r asked
 * for (MPI_UNDEFINED: any), as a type whose combiner and contents say how it
 * was asked for. They count as predefined: one handle per (combiner, p, r),
 * made on first use, never freed. */
#define F90_MAX 64
static struct { int combiner, p, r; struct smpi_type *t; } f90_made[F90_MAX];
static int f90_n;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

static int f90(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype, const char *R)
{
    SMPI_CHECK_INIT(R);
    CHECK_OUT(newtype, R);
    if (base == MPI_DATATYPE_NULL) {
        if (combiner == MPI_COMBINER_F90_INTEGER)
            return smpi_error(NULL, MPI_ERR_ARG, R, "no integer kind has a decimal range of %d", r);
        return smpi_error(NULL, MPI_ERR_ARG, R, "no %s kind has precision %d and exponent range %d",
                          combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", p, r);
    }
    if (smpi_mt) pthread_mutex_lock(&f90_lock);
    int rc = MPI_SUCCESS, i;
    for (i = 0; i < f90_n; i++)
        if (f90_made[i].combiner == combiner && f90_made[i].p == p && f90_made[i].r == r) break;
    if (i == f90_n && f90_n == F90_MAX)
        rc = smpi_error(NULL, MPI_ERR_NO_MEM, R, "more than %d Fortran 90 types", F90_MAX);
    else if (i == f90_n) {
        int pr[2] = { p, r };
        bool integer = combiner == MPI_COMBINER_F90_INTEGER;
        MPI_Datatype t;
        rc = made(SM_OK, dt_ref(smpi_type(base)->dt), combiner,
                  &(struct contents){ .i = { { integer ? pr + 1 : pr, integer ? 1 : 2 } } }, &t, R);
        if (!rc) {
            t->committed = true;
            f90_made[f90_n++] = (typeof(f90_made[0])){ combiner, p, r, t };
        }
    }
    if (!rc) *newtype = f90_made[i].t;
    if (smpi_mt) pthread_mutex_unlock(&f90_lock);
    return rc;
}

static bool is_f90(const struct smpi_type *t)
{
    return t->combiner == MPI_COMBINER_F90_INTEGER || t->combiner == MPI_COMBINER_F90_REAL ||
           t->combiner == MPI_COMBINER_F90_COMPLEX;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype b = r < 0 ? MPI_DATATYPE_NULL : r <= 2 ? MPI_INT8_T : r <= 4 ? MPI_INT16_T : r <= 9 ? MPI_INT32_T
                   : r <= 18 ? MPI_INT64_T : MPI_DATATYPE_NULL;
    return f90(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, b, newtype, "MPI_Type_create_f90_integer");
}
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer

/* The real kind (0 float, 1 double, 2 long double) for (p, r), or -1. */
static int real_kind(int p, int r)
{
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return -1;      /* one must be given */
    int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r;
    if (pp < 0 || rr < 0) return -1;
    return pp <= 6 && rr <= 37 ? 0 : pp <= 15 && rr <= 307 ? 1 : pp <= 18 && rr <= 4931 ? 2 : -1;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    static const MPI_Datatype kind[3] = { MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE };
    int k = real_kind(p, r);
    return f90(MPI_COMBINER_F90_REAL, p, r, k < 0 ? MPI_DATATYPE_NULL : kind[k], newtype, "MPI_Type_create_f90_real");
}
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    static const MPI_Datatype kind[3] = { MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX };
    int k = real_kind(p, r);
    return f90(MPI_COMBINER_F90_COMPLEX, p, r, k < 0 ? MPI_DATATYPE_NULL : kind[k], newtype,
               "MPI_Type_create_f90_complex");
}
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex

/* --- Attributes (MPI 3.1 §6.7.4) ------------------------------------------------
 * Keyvals numbered apart from communicators' and windows' (from TYPE_KEY0),
 * so that one given to the wrong kind of object is caught. */
#define TYPE_KEY0 0x20000000
struct type_key { bool used; MPI_Type_copy_attr_function *copy; MPI_Type_delete_attr_function *del; void *extra; };
static struct smpi_keytab keys = { .esize = sizeof(struct type_key) };

static struct type_key *key_of(int k)
{
    struct type_key *kv = k >= TYPE_KEY0 ? smpi_keytab_get(&keys, k - TYPE_KEY0) : NULL;
    return kv && kv->used ? kv : NULL;
}
/* The handle the program knows t by (callbacks get it). */
static MPI_Datatype handle_of(struct smpi_type *t) { return t->id ? (MPI_Datatype)(intptr_t)t->id : t; }

static struct smpi_attr **attr_find(struct smpi_type *t, int k)
{
    struct smpi_attr **a = &t->attrs;
    while (*a && (*a)->key != k) a = &(*a)->next;
    return a;
}

/* Remove attribute k of t (set), calling its delete callback (under the attribute lock). */
static int attr_delete(struct smpi_type *t, int k, const char *R)
{
    struct smpi_attr **pa = attr_find(t, k), *a = *pa;
    struct type_key *kv = key_of(k);
    if (kv && kv->del) {
        int rc = kv->del(handle_of(t), k, a->val, kv->extra);
        if (rc) return smpi_error(NULL, rc, R, "the delete callback of keyval %d failed", k);
    }
    *pa = a->next;
    free(a);
    return MPI_SUCCESS;
}

static int attr_set(struct smpi_type *t, int k, void *val, const char *R)
{
    struct smpi_attr **pa = attr_find(t, k);
    if (*pa) {
        int rc = attr_delete(t, k, R);
        if (rc) return rc;
        pa = attr_find(t, k);
    }
    if (!(*pa = calloc(1, sizeof **pa))) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for an attribute");
    (*pa)->key = k, (*pa)->val = val;
    return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn,
                            int *keyval, void *extra_state)
{
    static const char R[] = "MPI_Type_create_keyval";
    SMPI_CHECK_INIT(R);
    if (!keyval) return smpi_error(NULL, MPI_ERR_ARG, R, "keyval is NULL");
    struct type_key kv = { true, copy_fn, delete_fn, extra_state };
    int i = smpi_keytab_add(&keys, &kv);
    if (i < 0) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no room for another datatype keyval (%d at most)", keys.n);
    *keyval = TYPE_KEY0 + i;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int *keyval)
{
    static const char R[] = "MPI_Type_free_keyval";
    SMPI_CHECK_INIT(R);
    if (!keyval || !key_of(*keyval))
        return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid datatype keyval %d", keyval ? *keyval : 0);
    /* attributes set with it keep their callbacks until deleted: the number is not reused */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

int PMPI_Type_set_attr(MPI_Datatype datatype, int keyval, void *attribute_val)
{
    static const char R[] = "MPI_Type_set_attr";
    SMPI_CHECK_INIT(R);
    CHECK_OLD(t, datatype, R);
    if (!key_of(keyval)) return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid datatype keyval %d", keyval);
    smpi_attrs_lock();
    return smpi_attrs_unlock(attr_set(t, keyval, attribute_val, R));
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype datatype, int keyval, void *attribute_val, int *flag)
{
    static const char R[] = "MPI_Type_get_attr";
    SMPI_CHECK_INIT(R);
    CHECK_OLD(t, datatype, R);
    if (!attribute_val || !flag) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    if (!key_of(keyval)) return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid datatype keyval %d", keyval);
    smpi_attrs_lock();
    struct smpi_attr *a = *attr_find(t, keyval);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->val;
    return smpi_attrs_unlock(MPI_SUCCESS);
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype datatype, int keyval)
{
    static const char R[] = "MPI_Type_delete_attr";
    SMPI_CHECK_INIT(R);
    CHECK_OLD(t, datatype, R);
    if (!key_of(keyval)) return smpi_error(NULL, MPI_ERR_KEYVAL, R, "invalid datatype keyval %d", keyval);
    smpi_attrs_lock();
    if (!*attr_find(t, keyval))
        return smpi_attrs_unlock(smpi_error(NULL, MPI_ERR_KEYVAL, R, "keyval %d is not set on this datatype", keyval));
    return smpi_attrs_unlock(attr_delete(t, keyval, R));
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

/* MPI_Type_dup copies the attributes whose copy callback says so. */
static int attrs_copy(struct smpi_type *from, struct smpi_type *to, const char *R)
{
    smpi_attrs_lock();
    for (struct smpi_attr *a = from->attrs; a; a = a->next) {
        struct type_key *kv = key_of(a->key);
        if (!kv || !kv->copy) continue;
        void *val = NULL;
        int flag = 0, rc = kv->copy(handle_of(from), a->key, kv->extra, a->val, &val, &flag);
        if (rc) return smpi_attrs_unlock(smpi_error(NULL, rc, R, "the copy callback of keyval %d failed", a->key));
        if (flag && (rc = attr_set(to, a->key, val, R))) return smpi_attrs_unlock(rc);
    }
    return smpi_attrs_unlock(MPI_SUCCESS);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char R[] = "MPI_Type_dup";
    CHECK_OLD(old, oldtype, R); CHECK_OUT(newtype, R);
    int rc = made(SM_OK, dt_ref(old->dt), MPI_COMBINER_DUP, &(struct contents){ .d = &old, .nd = 1 }, newtype, R);
    if (rc) return rc;
    (*newtype)->committed = old->committed;      /* the same typemap, in the same state */
    return attrs_copy(old, *newtype, R);
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
    if (is_f90(t))
        return smpi_error(NULL, MPI_ERR_TYPE, "MPI_Type_free", "cannot free a Fortran 90 parameterised type (%p)",
                          (void *)t);
    smpi_attrs_lock();
    while (t->attrs) {
        int rc = attr_delete(t, t->attrs->key, "MPI_Type_free");
        if (rc) return smpi_attrs_unlock(rc);
    }
    smpi_attrs_unlock(0);
    /* The handle dies now; the types built from it and the requests that
     * still use it hold references. */
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

/* --- Queries ---------------------------------------------------------------- */

/* The query routines' common checks: a datatype and no NULL output. */
#define QUERY(t, h, R, out1, out2) \
    CHECK_OLD(t, h, R); \
    if (!(out1) || !(out2)) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument")

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    QUERY(t, datatype, "MPI_Type_size", size, size);
    *size = t->dt->size > INT_MAX ? MPI_UNDEFINED : (int)t->dt->size;   /* MPI: too large for an int */
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    QUERY(t, datatype, "MPI_Type_size_x", size, size);
    *size = (MPI_Count)t->dt->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    QUERY(t, datatype, "MPI_Type_get_extent_x", lb, extent);
    *lb = t->dt->lb, *extent = smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    QUERY(t, datatype, "MPI_Type_get_true_extent_x", true_lb, true_extent);
    *true_lb = t->dt->true_lb, *true_extent = t->dt->true_ub - t->dt->true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    QUERY(t, datatype, "MPI_Type_get_extent", lb, extent);
    *lb = t->dt->lb, *extent = smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

/* MPI-1's queries (removed in MPI 3.0): the extent, and the lower and upper
 * bounds (MPI 2.2 §4.1.6: ub = lb + extent, so a resized type's). */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    QUERY(t, datatype, "MPI_Type_extent", extent, extent);
    *extent = smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_extent = PMPI_Type_extent

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    QUERY(t, datatype, "MPI_Type_lb", displacement, displacement);
    *displacement = t->dt->lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_lb = PMPI_Type_lb

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    QUERY(t, datatype, "MPI_Type_ub", displacement, displacement);
    *displacement = t->dt->lb + smpi_extent(t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_ub = PMPI_Type_ub

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    QUERY(t, datatype, "MPI_Type_get_true_extent", true_lb, true_extent);
    *true_lb = t->dt->true_lb, *true_extent = t->dt->true_ub - t->dt->true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

static int address_of(const void *location, MPI_Aint *address, const char *R)
{
    if (!address) return smpi_error(NULL, MPI_ERR_ARG, R, "address is NULL");
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    return address_of(location, address, "MPI_Get_address");
}
#pragma weak MPI_Get_address = PMPI_Get_address

int PMPI_Address(void *location, MPI_Aint *address)
{
    return address_of(location, address, "MPI_Address");
}
#pragma weak MPI_Address = PMPI_Address

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

/* The handle MPI_Type_get_contents gives for component t: a predefined
 * type's own, else a new handle on the same layout and contents (MPI: a
 * new object the caller frees), whether or not t's handle was freed. NULL
 * when out of memory. */
static MPI_Datatype contents_handle(struct smpi_type *t)
{
    if (t->id) return (MPI_Datatype)(intptr_t)t->id;
    struct smpi_type *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    struct contents k = { .i = { { t->ci, t->ni } }, .a = t->ca, .na = t->na, .d = t->cd, .nd = t->nd };
    if (!record(c, &k)) { free(c); return NULL; }
    c->magic = SMPI_MAGIC_TYPE, c->combiner = t->combiner, c->refs = 1, c->committed = t->committed;
    c->dt = dt_ref(t->dt);
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
    for (int i = 0; i < t->nd; i++) {
        if ((types[i] = contents_handle(t->cd[i]))) continue;
        while (i-- > 0) smpi_type_unref(smpi_type(types[i]));
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for a datatype");
    }
    if (t->ni) memcpy(ints, t->ci, sizeof(int) * (size_t)t->ni);
    if (t->na) memcpy(addrs, t->ca, sizeof(MPI_Aint) * (size_t)t->na);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

/* The common checks of MPI_Pack, MPI_Unpack and MPI_Pack_size. */
static int pack_check(MPI_Comm comm, MPI_Datatype datatype, int count, struct smpi_comm **c, struct smpi_type **t,
                      const char *R)
{
    if (!(*c = smpi_comm(comm)))
        return smpi_error(NULL, MPI_ERR_COMM, R, "communicator %s", smpi_hstr((const void *)comm, "MPI_COMM_NULL"));
    int rc = smpi_type_check(*c, datatype, R, t);
    if (rc) return rc;
    if (count < 0) return smpi_error(*c, MPI_ERR_COUNT, R, "count %d is negative", count);
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char R[] = "MPI_Pack_size";
    struct smpi_comm *c;
    struct smpi_type *t;
    int rc = pack_check(comm, datatype, incount, &c, &t, R);
    if (rc) return rc;
    if (!size) return smpi_error(c, MPI_ERR_ARG, R, "size is NULL");
    size_t need = (size_t)incount * t->dt->size;
    if (need > INT_MAX) return smpi_error(c, MPI_ERR_SIZE, R, "%zu bytes do not fit in an int", need);
    *size = (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char R[] = "MPI_Pack";
    struct smpi_comm *c;
    struct smpi_type *t;
    int rc = pack_check(comm, datatype, incount, &c, &t, R);
    if (rc) return rc;
    if (!position || *position < 0) return smpi_error(c, MPI_ERR_ARG, R, "invalid position");
    size_t need = (size_t)incount * t->dt->size;
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
    struct smpi_comm *c;
    struct smpi_type *t;
    int rc = pack_check(comm, datatype, outcount, &c, &t, R);
    if (rc) return rc;
    if (!position || *position < 0) return smpi_error(c, MPI_ERR_ARG, R, "invalid position");
    size_t need = (size_t)outcount * t->dt->size;
    if ((size_t)*position + need > (size_t)insize)
        return smpi_error(c, MPI_ERR_TRUNCATE, R, "%zu bytes at position %d exceed %d", need, *position, insize);
    if (need && (!inbuf || !outbuf)) return smpi_error(c, MPI_ERR_BUFFER, R, "NULL buffer");
    smpi_unpack((const char *)inbuf + *position, outcount, t, outbuf);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

/* --- external32 (MPI 3.1 §4.2.3, §13.5.2) ------------------------------------
 * Each predefined type's parts: native size, external size (Table 13.2:
 * long and unsigned long are 4 bytes, long double IEEE binary128, the pair
 * types their two members). */
#define XU(T, x) { DT_X_UINT, sizeof(T), x }
#define XS(T, x) { DT_X_SINT, sizeof(T), x }
#define XL { DT_X_LDOUBLE, sizeof(long double), 16 }
#define X1(a) { 1, { a } }
#define X2(a, b) { 2, { a, b } }
#define XI(id) [(intptr_t)(id)]
static const struct dt_xrep ext32_rep[SMPI_TYPE_PREDEF_COUNT] = {
    XI(MPI_CHAR) = X1(XU(char, 1)), XI(MPI_SIGNED_CHAR) = X1(XS(signed char, 1)),
    XI(MPI_UNSIGNED_CHAR) = X1(XU(unsigned char, 1)), XI(MPI_BYTE) = X1(XU(char, 1)),
    XI(MPI_WCHAR) = X1(XS(wchar_t, 4)), XI(MPI_SHORT) = X1(XS(short, 2)),
    XI(MPI_UNSIGNED_SHORT) = X1(XU(unsigned short, 2)), XI(MPI_INT) = X1(XS(int, 4)),
    XI(MPI_UNSIGNED) = X1(XU(unsigned, 4)), XI(MPI_LONG) = X1(XS(long, 4)),
    XI(MPI_UNSIGNED_LONG) = X1(XU(unsigned long, 4)), XI(MPI_LONG_LONG_INT) = X1(XS(long long, 8)),
    XI(MPI_UNSIGNED_LONG_LONG) = X1(XU(unsigned long long, 8)), XI(MPI_FLOAT) = X1(XU(float, 4)),
    XI(MPI_DOUBLE) = X1(XU(double, 8)), XI(MPI_LONG_DOUBLE) = X1(XL),
    XI(MPI_INT8_T) = X1(XS(int8_t, 1)), XI(MPI_INT16_T) = X1(XS(int16_t, 2)), XI(MPI_INT32_T) = X1(XS(int32_t, 4)),
    XI(MPI_INT64_T) = X1(XS(int64_t, 8)), XI(MPI_UINT8_T) = X1(XU(uint8_t, 1)), XI(MPI_UINT16_T) = X1(XU(uint16_t, 2)),
    XI(MPI_UINT32_T) = X1(XU(uint32_t, 4)), XI(MPI_UINT64_T) = X1(XU(uint64_t, 8)), XI(MPI_C_BOOL) = X1(XU(_Bool, 1)),
    XI(MPI_C_FLOAT_COMPLEX) = X2(XU(float, 4), XU(float, 4)), XI(MPI_C_DOUBLE_COMPLEX) = X2(XU(double, 8), XU(double, 8)),
    XI(MPI_C_LONG_DOUBLE_COMPLEX) = X2(XL, XL), XI(MPI_AINT) = X1(XS(MPI_Aint, 8)),
    XI(MPI_OFFSET) = X1(XS(MPI_Offset, 8)), XI(MPI_COUNT) = X1(XS(MPI_Count, 8)), XI(MPI_PACKED) = X1(XU(char, 1)),
    XI(MPI_FLOAT_INT) = X2(XU(float, 4), XS(int, 4)), XI(MPI_DOUBLE_INT) = X2(XU(double, 8), XS(int, 4)),
    XI(MPI_LONG_INT) = X2(XS(long, 4), XS(int, 4)), XI(MPI_2INT) = X2(XS(int, 4), XS(int, 4)),
    XI(MPI_SHORT_INT) = X2(XS(short, 2), XS(int, 4)), XI(MPI_LONG_DOUBLE_INT) = X2(XL, XS(int, 4)),
};
#undef XU
#undef XS
#undef XL
#undef X1
#undef X2
#undef XI
static const struct dt_xtab ext32 = { ext32_rep, SMPI_TYPE_PREDEF_COUNT };

/* The checks common to the three: datarep, datatype, count. */
static int ext_check(const char *datarep, MPI_Datatype datatype, int count, struct smpi_type **t, const char *R)
{
    if (!datarep) return smpi_error(NULL, MPI_ERR_ARG, R, "datarep is NULL");
    if (strcmp(datarep, "external32"))
        return smpi_error(NULL, MPI_ERR_ARG, R, "datarep \"%.64s\" is not \"external32\"", datarep);
    int rc = smpi_type_check(NULL, datatype, R, t);
    if (rc) return rc;
    if (count < 0) return smpi_error(NULL, MPI_ERR_COUNT, R, "count %d is negative", count);
    return MPI_SUCCESS;
}

/* An engine's failure: a basic type with no representation is the type's
 * fault; converting, a value external32 cannot hold is a conversion error
 * (sizing, SM_ERR_ARG is an overflow). */
static int ext_fail(sm_status_t st, bool converting, const char *R)
{
    int cls = st == SM_ERR_UNSUPPORTED ? MPI_ERR_TYPE : st == SM_ERR_ARG && converting ? MPI_ERR_CONVERSION
            : smpi_class_of(st);
    return smpi_error(NULL, cls, R, "%s", sm_fail_reason());
}

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    static const char R[] = "MPI_Pack_external_size";
    struct smpi_type *t;
    int rc = ext_check(datarep, datatype, incount, &t, R);
    if (rc) return rc;
    if (!size) return smpi_error(NULL, MPI_ERR_ARG, R, "size is NULL");
    size_t need;
    sm_status_t st = dt_repr_size(t->dt, (size_t)incount, &ext32, &need);
    if (st) return ext_fail(st, false, R);
    *size = (MPI_Aint)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size

int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Aint outsize, MPI_Aint *position)
{
    static const char R[] = "MPI_Pack_external";
    struct smpi_type *t;
    int rc = ext_check(datarep, datatype, incount, &t, R);
    if (rc) return rc;
    if (!position || *position < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "invalid position");
    size_t need;
    sm_status_t st = dt_repr_size(t->dt, (size_t)incount, &ext32, &need);
    if (st) return ext_fail(st, false, R);
    if (outsize < *position || need > (size_t)(outsize - *position))
        return smpi_error(NULL, MPI_ERR_TRUNCATE, R, "%zu bytes at position %td do not fit in %td", need, *position,
                          outsize);
    if (need && !outbuf) return smpi_error(NULL, MPI_ERR_BUFFER, R, "outbuf is NULL");
    if (need && (st = dt_repr_pack((char *)outbuf + *position, inbuf, t->dt, (size_t)incount, &ext32)))
        return ext_fail(st, true, R);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype)
{
    static const char R[] = "MPI_Unpack_external";
    struct smpi_type *t;
    int rc = ext_check(datarep, datatype, outcount, &t, R);
    if (rc) return rc;
    if (!position || *position < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "invalid position");
    size_t need;
    sm_status_t st = dt_repr_size(t->dt, (size_t)outcount, &ext32, &need);
    if (st) return ext_fail(st, false, R);
    if (insize < *position || need > (size_t)(insize - *position))
        return smpi_error(NULL, MPI_ERR_TRUNCATE, R, "%zu bytes at position %td exceed %td", need, *position, insize);
    if (need && !inbuf) return smpi_error(NULL, MPI_ERR_BUFFER, R, "inbuf is NULL");
    if (need && (st = dt_repr_unpack(outbuf, t->dt, (size_t)outcount, (const char *)inbuf + *position, &ext32)))
        return ext_fail(st, true, R);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external
