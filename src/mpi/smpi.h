/* smpi.h: the MPI bindings' internal objects (communicators, groups,
 * datatypes, requests, error handlers) and helpers shared by src/mpi/.
 * Inside the binding, calls flow one way: the entry files (env.c, comm.c,
 * collective.c, pt2pt.c; rma.c -> win.c) -> request.c -> type.c -> info.c ->
 * err.c -> objects.c; nothing calls back up. inter.c and dynamic.c are
 * above the other entry files: they build on their PMPI_ entry points
 * (over intracommunicators), which reach an intercommunicator's operations
 * only through its table (struct smpi_inter_ops). */
#ifndef SMPI_H
#define SMPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi.h"
#include "sm_core.h"
#include "dt.h"
#include "p2p.h"
#include "coll.h"

#define SMPI_MAGIC_COMM 0x434f4d4du
#define SMPI_MAGIC_TYPE 0x54595045u
#define SMPI_MAGIC_GRP  0x47525550u
#define SMPI_MAGIC_OP   0x4f504f50u

struct smpi_group {
    uint32_t magic;
    int      refs;
    int      size;
    int      rank;              /* the caller's rank in the group, or MPI_UNDEFINED */
    int     *world;             /* job rank of each member */
};

#define SMPI_MAGIC_ERRH 0x45525248u
/* A user's error handler (MPI_Comm_create_errhandler); the predefined ones
 * are the small integers 1 (fatal) and 2 (return). Counted: communicators
 * using it keep it alive after MPI_Errhandler_free. */
struct smpi_errh {
    uint32_t magic;
    int      refs;
    MPI_Comm_errhandler_function *fn;
    MPI_Win_errhandler_function *win_fn;   /* a window's (MPI_Win_create_errhandler): fn is NULL */
};
/* Whether handle h can be an object of len bytes the library made (one of
 * its heap blocks): a value that cannot (0x12345, a stack address) is
 * refused without being read. */
static inline bool smpi_object(const void *h, size_t len)
{
    return ((uintptr_t)h & 7) == 0 && sm_heap_holds(h, len);
}

/* A user's error handler, or NULL (a predefined one, or not a handler). */
static inline struct smpi_errh *smpi_user_errh(MPI_Errhandler e)
{
    return smpi_object(e, sizeof *e) && e->magic == SMPI_MAGIC_ERRH ? e : NULL;
}

struct smpi_comm {
    uint32_t magic;
    int      refs;
    struct p2p_comm pt;         /* point-to-point context */
    struct p2p_comm co;         /* collective context (pt.ctx + 1) */
    struct coll_group cg;       /* the collective engine's group (members: group->world) */
    struct smpi_group *group;
    MPI_Errhandler errh;
    char     name[MPI_MAX_OBJECT_NAME];
    struct smpi_attr *attrs;    /* user attributes */
    struct smpi_topo *topo;     /* process topology (topo.c), or NULL; shared by dups */
    struct smpi_inter *inter;   /* an intercommunicator's other side (inter.c), else NULL */
    char    *hints;             /* MPI_Comm_set_info's pairs (info.c's block), or NULL */
    bool     linked;            /* made by connect/accept/join: its remote group counted in sm_link
                                 * until MPI_Comm_disconnect (dynamic.c) */
};
/* An intercommunicator: group is the local group, pt names the remote
 * group's ranks (pt.world is remote->world, pt.size its size) with pt.rank
 * the caller's local rank; cg is unused (num -1). Its collectives run on
 * local (an intracommunicator over the local group, contexts of its own)
 * and between the groups on peer, whose pt is the intercommunicator's
 * second context (co). */
/* What an intercommunicator does differently (inter.c's table): comm.c and
 * collective.c call through it when c->inter is set, with their own
 * arguments (checked there as far as they concern the communicator), so
 * that inter.c, which builds on their PMPI_ entry points over
 * intracommunicators, is above them. The collectives (and dup) take req
 * NULL for the blocking form, else the I- form's request. */
struct smpi_inter_ops {
    int (*dup)(struct smpi_comm *c, MPI_Comm *newcomm, MPI_Request *req, const char *R);
    int (*split)(struct smpi_comm *c, int color, int key, MPI_Comm *newcomm, const char *R);
    int (*create)(struct smpi_comm *c, MPI_Group group, MPI_Comm *newcomm, const char *R);
    int (*compare)(struct smpi_comm *a, struct smpi_comm *b);
    int (*barrier)(struct smpi_comm *c, MPI_Request *req, const char *R);
    int (*bcast)(struct smpi_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Request *req,
                 const char *R);
    int (*reduce)(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Request *req, const char *R);
    int (*allreduce)(struct smpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Request *req, const char *R);
    int (*reduce_scatter)(struct smpi_comm *c, const void *sbuf, void *rbuf, const int rcounts[], int rcount,
                          MPI_Datatype type, MPI_Op op, MPI_Request *req, const char *R);
    int (*gather)(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, int root, MPI_Request *req,
                  const char *R);
    int (*scatter)(struct smpi_comm *c, const void *sbuf, const int scounts[], const int displs[], int scount,
                   MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Request *req,
                   const char *R);
    int (*allgather)(struct smpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     const int rcounts[], const int displs[], int rcount, MPI_Datatype rtype, MPI_Request *req,
                     const char *R);
    /* displacements in bytes (bytes) or in extents of each block's type */
    int (*alltoallw)(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[],
                     const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
                     const MPI_Datatype rtypes[], bool bytes, MPI_Request *req, const char *R);
    /* counts NULL: scount / rcount each, the blocks one after another */
    int (*alltoall)(struct smpi_comm *c, const void *sbuf, const int scounts[], const int sdispls[], int scount,
                    MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[], int rcount,
                    MPI_Datatype rtype, MPI_Request *req, const char *R);
};
struct smpi_inter {
    struct smpi_group *remote;
    struct smpi_comm  *local;
    struct smpi_comm  *peer;
    const struct smpi_inter_ops *ops;
    struct smpi_ico   *head, *tail;     /* its collectives in progress, in the order they began (inter.c) */
};
struct smpi_attr { struct smpi_attr *next; int key; void *val; };

/* A process topology (topo.c): one block (the arrays follow it), never
 * changed once made, counted: MPI_Comm_dup's copies share it. The
 * neighbour lists are what the neighbourhood collectives use (neighbor.c):
 * ranks in the communicator, MPI_PROC_NULL at a non-periodic edge. */
struct smpi_topo {
    int  refs;
    int  kind;                  /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int  ndims;                 /* MPI_CART: dims, periods (0/1), the caller's coords */
    int *dims, *periods, *coords;
    int  nnodes, nedges;        /* MPI_GRAPH: the whole graph */
    int *index, *edges;
    bool weighted;              /* MPI_DIST_GRAPH: inw/outw hold weights */
    int  indeg, outdeg;         /* neighbours (every kind) */
    int *in, *out, *inw, *outw;
};
/* The neighbourhood collectives' tags on the collective context: this one,
 * and below it one per Cartesian direction (neighbor.c). */
#define SMPI_TAG_NEIGHBOR (-(1 << 20))
/* MPI_TAG_UB: INT_MAX, or 2^23 - 1 in a job spanning nodes (set by MPI_Init). */
extern int smpi_tag_ub;
static inline struct smpi_topo *smpi_topo_ref(struct smpi_topo *t)
{
    if (t) t->refs++;
    return t;
}
static inline void smpi_topo_unref(struct smpi_topo *t)
{
    if (t && --t->refs == 0) free(t);
}

struct smpi_op {
    uint32_t magic;
    MPI_User_function *fn;
    int commute;
};

/* A datatype handle: MPI's things about it; where its bytes are is its dt
 * layout's (src/dt), shared by the handles of one typemap (MPI_Type_dup,
 * the types MPI_Type_get_contents hands out) and the requests using it. */
struct smpi_type {
    uint32_t  magic;
    int       id;               /* predefined index, 0 for derived types */
    int       combiner;
    int       refs;
    bool      committed;
    struct dt_type *dt;         /* the layout (a reference; dt->basic: a predefined index) */
    const char *name;           /* a predefined type's name */
    char     *uname;            /* MPI_Type_set_name's (owned), or NULL */
    struct smpi_attr *attrs;    /* MPI_Type_set_attr's */
    /* The constructor's arguments, for MPI_Type_get_envelope/contents
     * (owned; the types are counted references). */
    int       ni, na, nd;
    int      *ci;
    MPI_Aint *ca;
    struct smpi_type **cd;
};

enum smpi_req_kind { SMPI_REQ_SEND = 1, SMPI_REQ_RECV, SMPI_REQ_COLL, SMPI_REQ_GREQ };
struct smpi_request {
    struct p2p_req p;           /* first: the engine's part */
    int       kind;
    bool      persistent, started, proc_null;
    bool      buffered;         /* MPI_Bsend_init: each start is a buffered send */
    bool      refs;             /* holds references: a counted communicator, a derived type */
    MPI_Comm  comm;             /* resolved */
    /* arguments, kept for persistent requests and for unpacking */
    void     *ubuf;
    int       ucount;
    struct smpi_type *utype;
    int       peer, tag;
    enum p2p_mode mode;
    struct smpi_request *bnext; /* buffered sends in flight (MPI_Bsend) */
    void     *bcopy;            /* a buffered send's copy of the message */
    void     *coll;             /* a nonblocking collective's state (collective.c, comm.c) */
    /* MPI_Ibsend/MPI_Bsend_init: the user's request and the send in flight
     * name each other while both live, so that MPI_Cancel reaches the send */
    struct smpi_request *bsend, *bowner;
    /* A request the engine does not complete by itself (SMPI_REQ_COLL):
     * poll says whether it is complete now, setting p.done (and p.st.err,
     * p.why) when it is; it makes no progress of its own (the waits do).
     * A composite's parts are engine requests (request.c). */
    bool    (*poll)(struct smpi_request *q);
    struct p2p_req **parts;
    int       nparts, first;    /* parts started; the first not known complete */
};

/* A test or probe that found nothing: when ranks outnumber cores, the core
 * goes to a rank that may make progress for us (a program polling in a
 * loop would otherwise keep it for a whole time slice). */
void smpi_idle_slow(void);
static inline void smpi_idle(void)
{
    if (SM_UNLIKELY(sm_core.oversubscribed)) smpi_idle_slow();
}

/* Handle resolution: predefined handles are small integers. */
extern struct smpi_comm smpi_comm_world, smpi_comm_self;
/* Every rank of the job, for the binding's own use (no collective group):
 * Intercomm_merge makes its communicator over it, and the dynamic-process
 * calls (connect/accept, join) meet on it. */
extern struct smpi_comm *smpi_comm_universe;   /* a heap object, as handles are */
/* A spawned process's intercommunicator to its parents (objects.c; made by
 * dynamic.c's smpi_spawn_connect from MPI_Init, forgotten when freed). */
extern MPI_Comm smpi_comm_parent;
int smpi_spawn_connect(void);
extern struct smpi_type smpi_types[SMPI_TYPE_PREDEF_COUNT];
/* By predefined id: the bytes of one element if count elements are count x
 * that many contiguous bytes, else 0 (MPI_DATATYPE_NULL, and the pairs with
 * a gap: MPI_DOUBLE_INT's 12 bytes in an extent of 16). One load for the
 * inline put and get (rma.c), where smpi_types[id].dt->size is three. */
extern __attribute__((visibility("hidden"))) uint8_t smpi_type_run[SMPI_TYPE_PREDEF_COUNT];
static inline struct smpi_comm *smpi_comm(MPI_Comm c)
{
    uintptr_t v = (uintptr_t)c;
    if (v == 1) return &smpi_comm_world;
    if (v == 2) return &smpi_comm_self;
    if (!smpi_object(c, sizeof *c) || c->magic != SMPI_MAGIC_COMM) return NULL;
    return c;
}
/* The handle the user knows c by (callbacks get it): predefined ones by name. */
static inline MPI_Comm smpi_comm_handle(struct smpi_comm *c)
{
    return c == &smpi_comm_world ? MPI_COMM_WORLD : c == &smpi_comm_self ? MPI_COMM_SELF : c;
}
static inline struct smpi_type *smpi_type(MPI_Datatype t)
{
    uintptr_t v = (uintptr_t)t;
    if (v < SMPI_TYPE_PREDEF_COUNT) return v ? &smpi_types[v] : NULL;
    if (!smpi_object(t, sizeof *t) || t->magic != SMPI_MAGIC_TYPE) return NULL;
    return t;
}
static inline ptrdiff_t smpi_extent(const struct smpi_type *t) { return dt_extent(t->dt); }
static inline bool smpi_contig(const struct smpi_type *t) { return t->dt->contig; }
/* How the engine sees (buf, count, t): plain bytes at *b (type NULL) when
 * they are contiguous, else the typemap of t from buf. */
static inline const struct dt_type *smpi_engine_view(void *buf, int count, const struct smpi_type *t, void **b)
{
    if (SM_LIKELY(dt_is_contig(t->dt, (size_t)count))) { *b = (char *)buf + t->dt->true_lb; return NULL; }
    *b = buf;
    return t->dt;
}

/* --- Errors (err.c) ---------------------------------------------------------
 * Raise error class cls in routine: with MPI_ERRORS_ARE_FATAL on comm (NULL:
 * MPI_COMM_WORLD) print one line and end the job; with a user's handler call
 * it; then return cls. */
int smpi_error(struct smpi_comm *comm, int cls, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error class for an engine's status (SM_ERR_NOMEM: MPI_ERR_NO_MEM...). */
int smpi_class_of(sm_status_t st);
/* The last error code given (MPI_LASTUSEDCODE): MPI_ERR_LASTCODE until
 * MPI_Add_error_class/code. */
extern int smpi_last_code;
const char *smpi_comm_name(const struct smpi_comm *c);

/* A handle for a message: its null name, or its address. */
static inline const char *smpi_hstr(const void *h, const char *null_name)
{
    static __thread char b[32];
    if (!h) return null_name;
    snprintf(b, sizeof b, "%p", h);
    return b;
}

/* --- Shared objects (objects.c) --- */
extern int smpi_state;           /* 0 before MPI_Init, 1 initialised, 2 finalised */
/* MPI_THREAD_MULTIPLE: objects may be shared by threads. Reference counts
 * are then changed atomically; single-threaded, plainly. */
extern bool smpi_mt;
static inline int smpi_refs_add(int *refs, int d)
{
    if (__builtin_expect(smpi_mt, 0)) return __atomic_add_fetch(refs, d, __ATOMIC_ACQ_REL);
    return *refs += d;
}
extern struct smpi_group smpi_group_empty;
/* A group of size members (world[] to fill), or NULL when out of memory. */
struct smpi_group *smpi_group_new(int size);
void smpi_group_set_rank(struct smpi_group *g);
/* The members of g as the collective engine sees them. */
struct sm_group smpi_group_members(const struct smpi_group *g);
void smpi_group_unref(struct smpi_group *g);
void smpi_errh_ref(MPI_Errhandler e);
void smpi_errh_unref(MPI_Errhandler e);
/* Communicators are counted: MPI_Comm_free with requests still pending
 * frees the handle, the object goes with the last request. */
void smpi_comm_setup(struct smpi_comm *c, struct smpi_group *g, uint32_t ctx, const char *name);
int  smpi_comm_init_predef(void);
int  smpi_comm_self_attrs_free(void);
/* Whether c is counted (the predefined ones and the hidden universe are not). */
static inline bool smpi_comm_counted(const struct smpi_comm *c)
{
    return c != &smpi_comm_world && c != &smpi_comm_self && c != smpi_comm_universe;
}
void smpi_comm_ref(struct smpi_comm *c);
void smpi_comm_unref(struct smpi_comm *c);
/* Context ids of intercommunicators: from here up, agreed over both groups
 * (inter.c); the hidden communicator over the whole job (dynamic processes'
 * connect/accept and Intercomm_merge) uses SMPI_CTX_UNIVERSE. */
#define SMPI_CTX_INTER0   0x40000000u
#define SMPI_CTX_UNIVERSE 0x3ffffffeu

/* Argument checks shared by the bindings; each returns from the caller on error. */
#define SMPI_CHECK_INIT(routine) do { \
    if (smpi_state != 1) return smpi_error(NULL, MPI_ERR_OTHER, routine, \
        smpi_state ? "called after MPI_Finalize" : "called before MPI_Init"); } while (0)
#define SMPI_GET_COMM(var, handle, routine) \
    struct smpi_comm *var = smpi_comm(handle); \
    if (!var) return smpi_error(NULL, MPI_ERR_COMM, routine, "communicator %s", \
                          smpi_hstr((const void *)(handle), "MPI_COMM_NULL"))

/* Datatypes (type.c). Derived types are counted: a request keeps the type
 * it was given alive after MPI_Type_free (a persistent request restarts
 * from it), as MPI lets a program free a type its operations still use. */
void smpi_type_ref(struct smpi_type *t);
void smpi_type_unref(struct smpi_type *t);
/* The type behind handle h, committed, in *out; else MPI_ERR_TYPE raised. */
int  smpi_type_bad(struct smpi_comm *c, MPI_Datatype h, const char *routine) __attribute__((cold, noinline));
static inline int smpi_type_check(struct smpi_comm *c, MPI_Datatype h, const char *routine, struct smpi_type **out)
{
    struct smpi_type *t = *out = smpi_type(h);
    return SM_LIKELY(t && t->committed) ? MPI_SUCCESS : smpi_type_bad(c, h, routine);
}
/* MPI_Get_elements: the basic elements in the first bytes of a message of
 * t elements, or MPI_UNDEFINED when bytes ends inside one. */
MPI_Count smpi_type_elements(const struct smpi_type *t, MPI_Count bytes);
void smpi_pack(const void *in, int count, const struct smpi_type *t, void *out);
void smpi_unpack(const void *in, int count, const struct smpi_type *t, void *out);
/* The contiguous view of (buf, count, t): buf itself, or a packed copy (*tmp,
 * to free) when pack; for receive buffers (pack false) an unpacked scratch. */
void *smpi_contig_buf(void *buf, int count, const struct smpi_type *t, bool pack, void **tmp);
/* Reductions (op.c): the operation on predefined (or homogeneous derived)
 * types as the engine's (type, op), or a user function with its datatype
 * (fn.ctx points at uop: *out must stay where it is while fn is used). */
struct smpi_red {
    struct coll_fn fn;
    bool predefined;
    enum coll_dtype type;
    enum coll_redop op;
    struct smpi_uop { struct smpi_op *op; MPI_Datatype type; } uop;
};
int  smpi_op_prepare(struct smpi_comm *c, MPI_Op op, MPI_Datatype h, const struct smpi_type *t,
                     const char *routine, struct smpi_red *out);

/* Keyval tables (comm.c for communicators, win.c for windows): entries of
 * esize bytes in chunks that never move, so that lookups take no lock while
 * a thread adds one (MPI_THREAD_MULTIPLE). Entry i, or NULL; add returns
 * the new entry's index, or -1 when out of memory or room. */
#define SMPI_KEY_CHUNK  256
#define SMPI_KEY_CHUNKS 256
struct smpi_keytab { void *chunk[SMPI_KEY_CHUNKS]; int n; size_t esize; };
void *smpi_keytab_get(struct smpi_keytab *t, int i);
int  smpi_keytab_add(struct smpi_keytab *t, const void *entry);
/* Attribute lists (any object's) with threads: one recursive lock, as
 * callbacks may call the attribute routines; unlock returns rc. */
void smpi_attrs_lock(void);
int  smpi_attrs_unlock(int rc);

/* Info objects (info.c): the object, or NULL for MPI_INFO_NULL and bad handles. */
struct smpi_info *smpi_info(MPI_Info h);
/* A communicator's hints (info.c): *hints (NULL: none) with info's pairs
 * set over it; a copy of src in *dst; a new info object holding them. */
int smpi_hints_merge(char **hints, MPI_Info info, const char *R);
int smpi_hints_copy(char **dst, const char *src, const char *R);
int smpi_hints_info(const char *hints, MPI_Info *out, const char *R);
#define SMPI_CHECK_INFO(c, h, R) do { if ((h) != MPI_INFO_NULL && !smpi_info(h)) \
    return smpi_error(c, MPI_ERR_INFO, R, "info %p is not an info object", (void *)(h)); } while (0)

/* Requests: a new one holding references to c and t (both may be freed
 * by the program while it lives), or NULL when out of memory; released (the
 * engine frees an active one when it completes). Inline: every message
 * makes and releases one. */
static inline struct smpi_request *smpi_request_new(struct smpi_comm *c, int kind, void *buf, int count,
                                                    struct smpi_type *t, int peer, int tag, enum p2p_mode mode)
{
    struct smpi_request *q = (struct smpi_request *)p2p_req_alloc();
    if (!q) return NULL;
    q->kind = kind, q->comm = c, q->ubuf = buf, q->ucount = count, q->utype = t;
    q->peer = peer, q->tag = tag, q->mode = mode;
    bool cc = smpi_comm_counted(c), ct = t && !t->id;  /* predefined types are not counted */
    q->refs = cc || ct;         /* (one test for the release, not these) */
    if (SM_UNLIKELY(cc)) smpi_comm_ref(c);
    if (SM_UNLIKELY(ct)) smpi_type_ref(t);
    return q;
}
void smpi_request_drop_parts(struct smpi_request *q);
void smpi_request_unref(struct smpi_request *q);
static inline void smpi_request_drop(struct smpi_request *q)
{
    if (SM_UNLIKELY(q->parts != NULL)) smpi_request_drop_parts(q);
    if (SM_UNLIKELY(q->refs)) smpi_request_unref(q);
}
static inline void smpi_request_release(struct smpi_request *q)
{
    smpi_request_drop(q);
    p2p_req_free(&q->p);
}
/* Release a complete request (smpi_req_done said so): the engine has
 * nothing of it left to look at. */
static inline void smpi_request_release_done(struct smpi_request *q)
{
    smpi_request_drop(q);
    p2p_req_free_done(&q->p);
}
/* Completion of any request: the engine's, or a polled one's (request.c). */
sm_status_t smpi_request_wait_polled(struct smpi_request *q);
sm_status_t smpi_request_test_polled(struct smpi_request *q);
static inline bool smpi_req_done(struct smpi_request *q)
{
    return p2p_done(&q->p) || (SM_UNLIKELY(q->poll != NULL) && q->poll(q));
}
/* As p2p_wait and p2p_test: q's result once complete, else why not. */
static inline sm_status_t smpi_req_wait(struct smpi_request *q)
{
    return SM_LIKELY(!q->poll) ? p2p_wait(&q->p) : smpi_request_wait_polled(q);
}
static inline sm_status_t smpi_req_test(struct smpi_request *q)
{
    return SM_LIKELY(!q->poll) ? p2p_test(&q->p) : smpi_request_test_polled(q);
}

/* Composite requests (request.c): one MPI request completing when all its
 * parts have, each an engine request the caller started (p2p_isend,
 * p2p_irecv) and handed over with smpi_request_add; room for n parts. The
 * first part that failed gives the request its error and its reason. For
 * operations made of many messages: the nonblocking neighbourhood
 * collectives, and any collective built on point-to-point. NULL when out
 * of memory. */
struct smpi_request *smpi_request_composite(struct smpi_comm *c, int n);
static inline void smpi_request_add(struct smpi_request *q, struct p2p_req *part)
{
    q->parts[q->nparts++] = part;
}

/* (request.c) Complete q at once, with an empty status. */
void smpi_request_complete(struct smpi_request *q);
/* Generalized requests (request.c; the request's coll holds the callbacks).
 * A complete one's status from its query_fn (st never NULL) and that
 * function's error; its end (free_fn, then the request released) and
 * free_fn's error; MPI_Request_free and MPI_Cancel on one. */
int  smpi_greq_status(struct smpi_request *q, MPI_Status *st);
int  smpi_greq_end(struct smpi_request *q);
int  smpi_greq_free(struct smpi_request *q);
int  smpi_greq_cancel(struct smpi_request *q);
/* A request for a nonblocking collective on c (active until the engine
 * calls smpi_request_coll_done), or NULL when out of memory. */
struct smpi_request *smpi_request_coll(struct smpi_comm *c);
/* The collective ended with st (the reason why, for routine): the request
 * completes (or, freed by the program already, goes). */
void smpi_request_coll_done(struct smpi_request *q, sm_status_t st, const char *routine, const char *why);
/* Context ids: WORLD uses 0/1, SELF 2/3, and the others a pair from the
 * number of their group in the collective engine, unique among this rank's
 * live communicators and the same in every member. */
static inline uint32_t smpi_ctx_of(const struct coll_group *g) { return 4 + 2 * (uint32_t)g->num; }
/* A request that is already complete (empty status), or NULL when out of
 * memory: the nonblocking calls that finish at once (MPI_Comm_idup) return it. */
MPI_Request smpi_request_done(struct smpi_comm *c);

/* --- One-sided communication (win.c, rma.c) ---------------------------------
 * Raise cls in routine on window win (the handle as the program has it),
 * whose error handler is eh: as smpi_error does for a communicator. */
int smpi_win_error(MPI_Errhandler eh, MPI_Win win, int cls, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* (op.c) The collective engine's (type, op) for a one-sided accumulate of
 * op on the predefined type id: *rop is COLL_REDOP_COUNT for MPI_REPLACE
 * and COLL_REDOP_COUNT + 1 for MPI_NO_OP. NULL, or why not (the class in
 * *cls: MPI_ERR_OP or MPI_ERR_TYPE). */
const char *smpi_op_accumulate(MPI_Op op, int id, enum coll_dtype *t, enum coll_redop *rop, int *cls);

#endif
