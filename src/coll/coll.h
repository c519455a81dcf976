/* coll.h: the collective engine (DESIGN.md §4), shared by the MPI and
 * OpenSHMEM bindings: groups (a communicator or a team as the engine sees
 * it), the (type, op) reduction kernels, and every collective as a
 * resumable schedule that reads and writes the members' buffers in place.
 *
 * In-place protocol. Every member of a group has, in its SM_AREA_COLL, the
 * group's state at the place the group's number gives: COLL_RECS records
 * (seed 000's coll_info) and a progress word. Each collective on a group has
 * a sequence number (the count of collectives begun on it, the same in
 * every member). At its start every member publishes its buffers' global
 * addresses and layouts (or, when small, the data itself) in record
 * seq % COLL_RECS and stamps it with seq; peers wait for the stamp, check
 * that the record describes the same collective, and copy or reduce
 * straight between user buffers, typemap to typemap (src/dt). A member says
 * in its progress word the last collective up to which it has finished with
 * every peer's memory; an owner whose buffers peers use waits for their
 * progress before the collective completes (unless its data travelled in
 * its record), and before it writes a record again. So back-to-back and
 * overlapping collectives on a group never mix, and collectives on
 * different groups (a communicator and its dup, MPI and SHMEM, teams) never
 * share state.
 *
 * Nonblocking. A collective is a schedule that runs as far as it can and
 * resumes where it waited; the blocking calls start one and wait for it.
 * Schedules started with coll_start progress whenever the engine runs
 * (coll_progress, called by the point-to-point engine's progress while any
 * is active) and complete in any order; their starts are local. */
#ifndef COLL_H
#define COLL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_core.h"
#include "sm_status.h"
#include "dt.h"
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
    COLL_REDOP_COUNT,
    COLL_USER = COLL_REDOP_COUNT        /* a user function (struct coll_red.fn) */
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

/* A reduction as a function (MPI's user operations, the point-to-point
 * allreduce): inout = in op inout over n elements of elem bytes. */
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
#define COLL_GROUPS_MAX 2048    /* groups a rank may be a member of at once */
#define COLL_NUM_ASET   (-2)    /* an active set: a group for one call only */
/* Records per group: how many collectives a member may run ahead of the
 * slowest. Rooted and small collectives complete locally, so with ranks
 * outnumbering cores a rank given the core runs many before it must yield;
 * 4 made it yield every fourth call (bench_mpi_coll, 8 ranks, 2 cores).
 * A small scan's chain (and a small reduce) yields about n / COLL_RECS
 * times a call (each member once a turn, a turn at most COLL_RECS calls
 * ahead of its reader): 16 gave 0.3 context switches a call on 4 ranks and
 * 0.55 on 8, 64 gives 0.1 and 0.16, Open MPI's (NOTES, scan4). The records
 * take COLL_GROUPS_MAX * COLL_RECS * 320 bytes of the area (sm_core.h),
 * touched only as groups use them: 20 KiB a group a rank. */
#define COLL_RECS       64      /* at most 64: a bit each in coll_group.pend */

struct coll_slot;               /* coll_internal.h */
struct coll_group {
    struct sm_group m;
    int       num;              /* the group's number; -1 if the caller is not a member */
    uint32_t  seq;              /* the last collective begun */
    uint32_t  pub;              /* the last collective whose record this member published */
    uint32_t  progress;         /* what its progress word says */
    uint32_t  checked;          /* what its checked word says (coll_internal.h, struct coll_slot) */
    int       active;           /* schedules of this group on the engine's list */
    uint32_t *seen;             /* per member: the least its progress word said; from seen + size,
                                 * the least its checked word said */
    uint32_t  all_checked;      /* the least of the other members' checked words as seen (record_free) */
    /* Checks deferred (sched.c, settle): bit seq % COLL_RECS for each
     * collective that read no record here and whose next member's record
     * is still to be checked, with what this member called there. */
    uint64_t  pend;
    uint32_t *pend_sig;         /* COLL_RECS of them, in seen's block (out of the struct: a SHMEM
                                 * team, which holds a group, keeps its exported size) */
    /* Per member: its slot of this group (coll_internal.h coll_slot_of), in
     * seen's block after pend_sig. Worked out once here: from the rank each
     * time (sm_group_rank, the area, the slot) it was ~90 of a 2-rank small
     * scan's ~1000 instructions a call on each member (callgrind). */
    struct coll_slot **slots;
    /* Who read this member's record the last time each was used (sched.c,
     * record_free): 0 every member, m + 1 member m alone (a small scan's
     * chain), -1 nobody. Zero in a new group: every member. */
    int16_t   rd[COLL_RECS];
    /* A deferred check that failed, until a later collective reports it. */
    sm_status_t late_st;
    uint32_t  late_seq;
    char     *late_why;
    void     *bounce;           /* copies of this member's medium contributions, one per record */
    int       aset;             /* active sets: where the barrier lives (first member's area) */
    struct p2p_comm *net;       /* the group spans nodes: its collectives go over point-to-point
                                 * on this communicator (span.c); NULL on one node */
    struct coll_hier *hier;     /* spanning: its node's group and the leaders' (hier.c), made at its
                                 * first blocking collective; freed with g (not with a copy of g) */
    uint64_t  lean;             /* blocking collectives run on the lean path (statistics, tests) */
    uint64_t  sliced;           /* reductions run sliced (reduce.c serial_max; statistics, tests) */
    uint64_t  direct;           /* two members' large exscans run as one copy (reduce.c; statistics, tests) */
};

/* Create g over members m (m->me < 0, or m NULL: the caller is not a member
 * and g is left with num -1). Collective over the members of parent, or of
 * every rank of the job if parent is NULL (every rank calls it, nothing else
 * of the engine in flight); m's table, if any, must outlive g. SM_ERR_NOMEM
 * when COLL_GROUPS_MAX are in use. The group's sequence numbers start past
 * any its members used before at that number, so nothing left there by an
 * earlier group is taken for its. */
sm_status_t coll_group_create(struct coll_group *g, const struct sm_group *m, const struct coll_group *parent);
/* The same as a nonblocking collective on parent: done(ctx, status, reason)
 * is called once g is made (or could not be). Local: it never waits. */
typedef void (*coll_done_fn)(void *ctx, sm_status_t st, const char *why);
sm_status_t coll_group_icreate(struct coll_group *g, const struct sm_group *m, struct coll_group *parent,
                               coll_done_fn done, void *ctx);
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
/* An active set with members on other nodes cannot be used so (their
 * memory is not mapped here, nor is the barrier in the first member's
 * area): coll_aset_spans says so, and coll_group_aset_span makes g a group
 * of the set's members over point-to-point, as coll_group_create_p2p does
 * (collective over the set: its first use, which all its members make),
 * for the caller to keep and destroy. */
bool coll_aset_spans(const struct coll_group *g);
sm_status_t coll_group_aset_span(struct coll_group *g, int start, int logstride, int size);
/* The index of job rank r in g, or -1. */
int coll_group_index(const struct coll_group *g, int rank);

/* --- Buffers ------------------------------------------------------------------------
 * count elements of type at base (type NULL: count bytes), in any memory
 * (peers reach exposed memory directly; the engine stages the rest). Where
 * a buffer has a block per member (a gather's receive buffer, a scatter's
 * send buffer, both of an alltoall), block i is count elements at
 * base + i * count * extent, or with counts (the v collectives) counts[i]
 * elements at base + displs[i] * extent, or with types as well (alltoallw)
 * counts[i] elements of types[i] at base + displs[i] bytes. The arrays, the
 * types and the data must stay as they are until the collective completes. */
struct coll_buf {
    void *base;
    size_t count;
    const struct dt_type *type;
    const int *counts, *displs;
    const struct dt_type *const *types;
};
/* base of a send buffer: the data is in the receive buffer (MPI_IN_PLACE;
 * for scatter, the root's receive buffer: its block stays in the send one). */
#define COLL_IN_PLACE ((void *)1)

/* A reduction: the predefined op on type t, or (op COLL_USER) fn on
 * elements of the buffers' datatype in its own layout, applied in member
 * order (s0 op s1 op ... for every member's order, commutative or not).
 * Predefined ops see C arrays of t: the buffers' types must be made of t
 * alone; elem is t's own layout when it differs from its packed one (the
 * pair types with padding), else NULL. */
struct coll_red {
    enum coll_dtype t;
    enum coll_redop op;
    const struct dt_type *elem;
    struct coll_fn fn;          /* COLL_USER: fn.elem is unused (the extent is the datatype's) */
    bool commute;               /* COLL_USER: fn commutes (results may be grouped in any member order) */
};

enum coll_kind {
    COLL_BARRIER = 1, COLL_BCAST, COLL_GATHER, COLL_SCATTER, COLL_ALLGATHER, COLL_ALLTOALL,
    COLL_REDUCE, COLL_ALLREDUCE, COLL_REDUCE_SCATTER, COLL_SCAN, COLL_EXSCAN,
    COLL_COLLECT,               /* OpenSHMEM's collect: each member's own length, concatenated */
    COLL_KIND_CREATE,           /* internal: a group's creation */
    COLL_KINDS
};
/* One collective's arguments, as MPI-3.1 §5 defines them:
 *  BARRIER; BCAST (dst: the buffer, at root its source too);
 *  GATHER (src at every member, dst at root, a block per member);
 *  SCATTER (src at root, a block per member; dst everywhere);
 *  ALLGATHER, ALLTOALL (a block per member in dst, and in src for alltoall);
 *  REDUCE (dst at root), ALLREDUCE, SCAN, EXSCAN (src and dst of count
 *  elements; EXSCAN leaves member 0's dst alone);
 *  REDUCE_SCATTER (src of sum(dst.counts) elements, or n * dst.count; member
 *  i gets its block in dst);
 *  COLLECT (src everywhere; dst: every member's src, concatenated in order).
 * root: a member index for the rooted ones. A collective's members must
 * agree on the kind, root, reduction and the sizes each sends and receives:
 * where they do not, those that can see it fail (SM_ERR_TRUNCATE for sizes,
 * SM_ERR_MISMATCH for the rest), the reason naming the values. Every member
 * sees the others' records or checks the next member's, so members that
 * disagree on a root are seen even when each thinks itself the root. A
 * member that reads no record (a broadcast's or scatter's root, a small
 * gather's or reduce's other members) does not wait for the next member's:
 * it checks it later, and a mismatch found so is the error of its next
 * collective on the group to complete (SM_ERR_MISMATCH, naming the earlier
 * collective and both calls; that collective itself did its part). By the
 * end of a collective in which it reads the next member's record (a
 * barrier, say) every earlier check is done. */
struct coll_args {
    enum coll_kind kind;
    int root;
    struct coll_buf src, dst;
    struct coll_red red;
    /* An internal step of another call (MPI_Comm_split's allgather, a
     * node's part of a collective spanning nodes): it leaves a failed
     * deferred check (above) to the next collective that is not, as
     * members that saw none would go on where this one stopped. */
    bool quiet;
    /* This member failed in an earlier stage of the same call (hier.c's
     * stages of a collective spanning nodes): it takes its part so that no
     * peer waits for it, but moves no data, and those that read from it
     * fail too (SM_ERR_PEER; between nodes its messages are empty). */
    bool failed;
};

/* Blocking: the collective, start to end. */
sm_status_t coll_run(struct coll_group *g, const struct coll_args *a);
/* Nonblocking: start it (local: it never waits for peers) and return; the
 * engine calls done(ctx, status, reason) once it has completed, from
 * coll_progress or a wait in the engine. SM_ERR_ARG / SM_ERR_NOMEM: it did
 * not start (and consumed no sequence number). */
sm_status_t coll_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx);
/* Run the schedules started with coll_start as far as they go. Point-to-
 * point progress calls it while any is active; waits in the engine, too. */
void coll_progress(void);
/* From now on several threads may start and progress collectives (on
 * different groups): the nonblocking list takes a lock (MPI_THREAD_MULTIPLE). */
void coll_threads(void);
/* Waits in the engine also make point-to-point progress (the MPI binding
 * asks for it: a rank blocked in a collective must still post its sends). */
void coll_poll_p2p(bool on);

/* --- Shorthands for contiguous bytes (OpenSHMEM) -------------------------------------- */
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
/* dst at root (every member with COLL_ALL) = src of member 0 op src of
 * member 1 op ... (count elements of t), the same result in every member and
 * for every root. dst may be src (in place); dst is ignored elsewhere. */
#define COLL_ALL (-1)
sm_status_t coll_reduce(struct coll_group *g, void *dst, const void *src, size_t count, enum coll_dtype t,
                        enum coll_redop op, int root);

/* --- On point-to-point -----------------------------------------------------------------
 * Over a p2p communicator's collective context (c->coll_tag), for groups
 * that do not exist yet (coll_group_create_p2p): rbuf = the reduction of
 * every rank's sbuf (count elements), in rank order. */
sm_status_t coll_p2p_allreduce(const void *sbuf, void *rbuf, size_t count, const struct coll_fn *op,
                               const struct p2p_comm *c);

#endif
