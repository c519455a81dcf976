/* coll.h: the collective engine (DESIGN.md §4), shared by the MPI and
 * OpenSHMEM bindings: groups (a communicator or a team as the engine sees
 * it), the (type, op) reduction kernels, the SMARTMAP algorithms that read
 * and write the members' buffers in place, and the point-to-point ones
 * still used where no in-place algorithm exists yet.
 *
 * In-place protocol. Every member of a group has, in its SM_AREA_COLL, the
 * group's state at the place the group's number gives: barrier cells, two
 * records (seed 000's coll_info) and a progress word. A member publishes its
 * buffers' addresses and lengths (or, when small, the data itself) in a
 * record and stamps it with the group's sequence number (the count of
 * collectives begun on the group, the same in every member); peers wait for
 * that stamp, read the record, copy straight between user buffers, and set
 * their progress word when done; the owner waits for its readers' progress
 * before it returns (unless its data travelled in the record) and before it
 * writes that record again. So back-to-back collectives on a group never
 * mix, and collectives on different groups (a communicator and its dup,
 * MPI and SHMEM, teams) never share state. Nonblocking collectives will
 * want more records per group, the same way. */
#ifndef COLL_H
#define COLL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_core.h"
#include "sm_status.h"
#include "p2p.h"

/* --- Reduction kernels -------------------------------------------------------------
 * Machine types: every C type of MPI and OpenSHMEM maps to one of them (the
 * integers by size and signedness). The pair types are the C structs
 * {value; int} with their padding (MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT). */
enum coll_dtype {
    COLL_INT8, COLL_INT16, COLL_INT32, COLL_INT64,
    COLL_UINT8, COLL_UINT16, COLL_UINT32, COLL_UINT64,
    COLL_FLOAT, COLL_DOUBLE, COLL_LDOUBLE,
    COLL_CFLOAT, COLL_CDOUBLE, COLL_CLDOUBLE,
    COLL_BOOL,
    COLL_FLOAT_INT, COLL_DOUBLE_INT, COLL_LONG_INT, COLL_2INT, COLL_SHORT_INT, COLL_LDOUBLE_INT,
    COLL_DTYPE_COUNT
};
enum coll_redop {
    COLL_SUM, COLL_PROD, COLL_MIN, COLL_MAX,
    COLL_LAND, COLL_LOR, COLL_LXOR, COLL_BAND, COLL_BOR, COLL_BXOR,
    COLL_MINLOC, COLL_MAXLOC,
    COLL_REDOP_COUNT
};
/* The pair types: {value, int} as C lays them out (padding included); the
 * MPI binding's pair datatypes have these layouts. */
struct coll_float_int { float v; int i; };
struct coll_double_int { double v; int i; };
struct coll_long_int { long v; int i; };
struct coll_2int { int v; int i; };
struct coll_short_int { short v; int i; };
struct coll_ldouble_int { long double v; int i; };

/* The integer type of that size and signedness. */
static inline enum coll_dtype coll_int_dtype(size_t size, bool is_signed)
{
    int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return (enum coll_dtype)((is_signed ? COLL_INT8 : COLL_UINT8) + k);
}
/* The machine type of C type T (any standard arithmetic type or typedef of one). */
#define COLL_DTYPE_OF(T) _Generic((T)0, _Bool: COLL_BOOL,                                          \
    char: coll_int_dtype(1, CHAR_MIN < 0), signed char: COLL_INT8, unsigned char: COLL_UINT8,      \
    short: coll_int_dtype(sizeof(short), true), unsigned short: coll_int_dtype(sizeof(short), false), \
    int: coll_int_dtype(sizeof(int), true), unsigned: coll_int_dtype(sizeof(int), false),          \
    long: coll_int_dtype(sizeof(long), true), unsigned long: coll_int_dtype(sizeof(long), false),  \
    long long: coll_int_dtype(sizeof(long long), true),                                            \
    unsigned long long: coll_int_dtype(sizeof(long long), false),                                  \
    float: COLL_FLOAT, double: COLL_DOUBLE, long double: COLL_LDOUBLE,                             \
    float _Complex: COLL_CFLOAT, double _Complex: COLL_CDOUBLE, long double _Complex: COLL_CLDOUBLE)

/* out[i] = a[i] op b[i] for n elements; out may be a or b. On every type:
 * integers take every op but the *LOC ones; floating types SUM PROD MIN MAX;
 * complex SUM PROD; bool the logical ops; pairs MINLOC MAXLOC (the extreme
 * value, on a tie the smaller index). NULL where the op is not defined. */
typedef void (*coll_kernel_fn)(void *out, const void *a, const void *b, size_t n);
coll_kernel_fn coll_kernel(enum coll_dtype t, enum coll_redop op);
size_t coll_dtype_size(enum coll_dtype t);
const char *coll_dtype_name(enum coll_dtype t);
const char *coll_redop_name(enum coll_redop op);

/* A reduction as a function (the point-to-point algorithms, MPI's user
 * operations): inout = in op inout over n elements of elem bytes. */
struct coll_fn {
    void (*fn)(const void *in, void *inout, size_t n, const void *ctx);
    const void *ctx;
    size_t elem;
};
/* The kernel of (t, op) as a coll_fn; SM_ERR_ARG if op is not defined on t. */
sm_status_t coll_fn_predefined(struct coll_fn *f, enum coll_dtype t, enum coll_redop op);

/* --- Groups ---------------------------------------------------------------------------
 * Members are described as the core does (table or start/stride). A group's
 * number is free in every member when it is created, so the number names
 * the group's state in each member's area without ambiguity. */
#define COLL_GROUPS_MAX 4096    /* groups a rank may be a member of at once */
#define COLL_NUM_ASET   (-2)    /* an active set: a group for one call only */

struct coll_group {
    struct sm_group m;
    int       num;              /* the group's number; -1 if the caller is not a member */
    uint32_t  seq;              /* the last collective begun (the records' stamps) */
    uint32_t  last_pub[2];      /* when this member last wrote each of its two records ... */
    int       last_readers[2];  /* ... and who read it then (COLL_ALL: every member) */
    uint32_t *seen;             /* per member: the last collective it is known to have finished */
    void     *bounce;           /* copies of this member's medium contributions (two, in turn) */
    int       aset;             /* active sets: where the barrier lives (first member's area) */
};

/* Create g over members m (m->me < 0, or m NULL: the caller is not a member
 * and g is left with num -1). Collective over the members of parent, or of
 * every rank of the job if parent is NULL (every rank calls it); m's table,
 * if any, must outlive g. SM_ERR_NOMEM when COLL_GROUPS_MAX are in use.
 * The group's sequence numbers start past any its members used before at
 * that number, so nothing left there by an earlier group is taken for its. */
sm_status_t coll_group_create(struct coll_group *g, const struct sm_group *m, const struct coll_group *parent);
/* The same, collective over the ranks of a point-to-point communicator
 * (MPI_Comm_create_group: only the new members take part). */
sm_status_t coll_group_create_p2p(struct coll_group *g, const struct sm_group *m, const struct p2p_comm *over);
/* Release g's number. Not synchronising (MPI frees a communicator when its
 * last request completes): it waits only until the other members have
 * finished the collectives this member has (they may still read its last
 * records), which they do without it. */
void coll_group_destroy(struct coll_group *g);
/* An active set (OpenSHMEM's deprecated forms): job ranks start + i * 2^logstride,
 * i < size, with no creation step; every collective on it starts with a
 * barrier, so none of its state outlives the call. The caller checks that
 * the set fits the job; *g's me is -1 if the caller is not in it. */
void coll_group_aset(struct coll_group *g, int start, int logstride, int size);
/* The index of job rank r in g, or -1. */
int coll_group_index(const struct coll_group *g, int rank);

/* --- In-place collectives -----------------------------------------------------------
 * Every member calls the same collectives on a group, in the same order;
 * buffers are contiguous bytes in any memory (exposed memory is read and
 * written directly, the rest through sm_get/sm_put). Members that disagree
 * get SM_ERR_MISMATCH (the reason names the values): all of them on sizes
 * (allgather, alltoall), sizes, roots, types and ops (reductions); on a
 * broadcast's size the reader that differs and the root. (Members that
 * disagree on a broadcast's root are not seen: readers wait for no one but
 * the root.) */
sm_status_t coll_barrier(struct coll_group *g);
/* len bytes from src at root to dst everywhere (at root too unless dst is
 * NULL or src; src is read only at root). */
sm_status_t coll_bcast(struct coll_group *g, void *dst, const void *src, size_t len, int root);
/* Every member's len bytes, in member order: allgather (every len equal) and
 * collect (each its own len, concatenated). src may be dst's own block. */
sm_status_t coll_allgather(struct coll_group *g, void *dst, const void *src, size_t len);
sm_status_t coll_collect(struct coll_group *g, void *dst, const void *src, size_t len);
/* Block j of src (nelems elements of elem bytes, src_stride elements apart,
 * block j starting at element j * nelems * src_stride) goes to member j,
 * into block i of its dst (likewise with dst_stride) where i is the sender.
 * Strides are positive. */
sm_status_t coll_alltoalls(struct coll_group *g, void *dst, const void *src, ptrdiff_t dst_stride,
                           ptrdiff_t src_stride, size_t elem, size_t nelems);
static inline sm_status_t coll_alltoall(struct coll_group *g, void *dst, const void *src, size_t len)
{
    return coll_alltoalls(g, dst, src, 1, 1, len ? len : 1, len ? 1 : 0);
}
/* dst at root (every member with COLL_ALL) = src of member 0 op src of
 * member 1 op ... (count elements of t), the same result in every member and
 * for every root. dst may be src (in place); dst is ignored elsewhere. */
#define COLL_ALL (-1)
sm_status_t coll_reduce(struct coll_group *g, void *dst, const void *src, size_t count, enum coll_dtype t,
                        enum coll_redop op, int root);

/* --- On point-to-point -----------------------------------------------------------------
 * Over a p2p communicator's collective context (c->coll_tag); buffers are
 * contiguous bytes. Not yet in place: gather(v), scatter(v), allgatherv,
 * alltoallv, scan, and reductions with user functions. */
/* rbuf (at root) = the reduction of every rank's sbuf, in rank order; sbuf == rbuf is allowed. */
sm_status_t coll_p2p_reduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op, int root,
                            const struct p2p_comm *c);
sm_status_t coll_p2p_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op,
                               const struct p2p_comm *c);
/* Blocks of len bytes per rank, in rank order in rbuf / sbuf. */
sm_status_t coll_p2p_gather(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c);
sm_status_t coll_p2p_scatter(const void *sbuf, void *rbuf, size_t len, int root, const struct p2p_comm *c);
/* Prefix reductions in rank order; exclusive leaves rank 0's rbuf untouched. */
sm_status_t coll_p2p_scan(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op, bool exclusive,
                          const struct p2p_comm *c);
/* The v-variants: per-rank byte counts and byte displacements. */
sm_status_t coll_p2p_gatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens, const size_t *rdispls,
                             int root, const struct p2p_comm *c);
sm_status_t coll_p2p_scatterv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf, size_t rlen,
                              int root, const struct p2p_comm *c);
sm_status_t coll_p2p_allgatherv(const void *sbuf, size_t slen, void *rbuf, const size_t *rlens,
                                const size_t *rdispls, const struct p2p_comm *c);
sm_status_t coll_p2p_alltoallv(const void *sbuf, const size_t *slens, const size_t *sdispls, void *rbuf,
                               const size_t *rlens, const size_t *rdispls, const struct p2p_comm *c);

#endif
