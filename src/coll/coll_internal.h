/* coll_internal.h: the layout of SM_AREA_COLL in every rank's control
 * region (the groups' records and progress words), a running collective
 * (struct coll_op, a resumable schedule), and the helpers that the engine's
 * files share: sched.c runs schedules, move.c and reduce.c are the
 * collectives, group.c makes groups. */
#ifndef COLL_INTERNAL_H
#define COLL_INTERNAL_H

#include <string.h>

#include "coll.h"

/* --- Shared layout ------------------------------------------------------------------
 * A member's buffer as its peers find it: global addresses. base is the
 * address of element 0; type 0 means plain bytes (a packed stream; for a
 * reduction's source, C arrays of its type). Fixed blocks: count elements
 * per block; with counts, block i is counts[i] elements at displs[i]
 * extents (bytes with types, or when type is 0). */
struct coll_lay {
    uint64_t base, type, count;
    uint64_t counts, displs, types;
    uint64_t size, ext;                 /* of one element (1 for bytes) */
};

/* Up to COLL_INLINE bytes, a contribution travels in the record itself,
 * in the stamp's line: a small collective costs one line transfer. */
#define COLL_INLINE 96
/* Up to this many bytes, it travels in the member's bounce buffer
 * (coll_group.bounce, in its exposed heap): either way the member completes
 * without waiting for its readers. COLL_BOUNCES parts, used in turn, fewer
 * than the records: sixteen parts (one per record) made 4 KiB allreduces
 * on 8 ranks a third slower, each rank's readers missing in cache. */
#define COLL_BOUNCE 8192
#define COLL_BOUNCES 4
/* Past this many bytes (and the record), 2 members on cores of their own
 * publish a source in place rather than in the bounce buffer: the copy
 * into the bounce buffer, 64 lines at 4 KiB, each taken back from the peer
 * that read it COLL_BOUNCES collectives before, cost more than the wait
 * for the one reader, which spins on a core of its own. The crossover is
 * in the table in reduce.c's header (bench/mpi/crossover.sh builds with
 * -DCOLL_CARRY_MAX_2=...). */
#ifndef COLL_CARRY_MAX_2
#define COLL_CARRY_MAX_2 COLL_INLINE
#endif

/* The lean path's read hint (sched.c coll_lean_await): a reader asks for
 * its peer's record this many collectives ahead. */
#define COLL_PF_READ 8

enum rec_flags {
    REC_CARRIED = 1,    /* src is a copy in the record or bounce buffer (packed; reductions: C arrays) */
    REC_SHARE = 2,      /* broadcast reader: its dst takes copies from others (claim/done below) */
    REC_PUSH = 4,       /* gather root: peers write their blocks into its dst */
    REC_FAILED = 8,     /* the member failed before moving data: its peers fail too */
    REC_VBLOCKS = 16,   /* with REC_CARRIED: blocks of their own sizes, at aux n uint16_t ends (block i
                         * is bytes [end[i-1], end[i]) of what follows), then the bytes (move.c
                         * publish_carried): no layout to read */
};
_Static_assert(COLL_BOUNCE <= UINT16_MAX, "a carried v source's ends fit 2 bytes");

/* A member's record for one collective on a group: written by the member,
 * then stamped with the collective's sequence number, read by its peers.
 * COLL_RECS per group, used in turn; a member writes one again only when
 * every peer has finished the collective after the one it was last used
 * for (peers check a record's collective when they finish the next one). */
struct coll_rec {
    /* The sequence number it is published for (low half) and which
     * collective (high half: kind, root, type, op, checked by peers), in
     * one word so that a reader sees the pair as written: a deferred check
     * (sched.c, settle) may read a record its owner has since rewritten
     * for another group at the number, and must not take a new collective
     * for the old one. */
    alignas(SM_CACHELINE) _Atomic uint64_t tag;
    uint32_t fin;               /* the member's checked word when it published (a lower bound of its progress too) */
    uint32_t flags;
    uint64_t len;               /* bytes this member contributes (or expects), by kind */
    uint64_t aux;               /* carried: where the copy is; else by kind */
    /* the first 32 bytes share the stamp's line; aligned for any element
     * (long double), as the kernels read it in place */
    alignas(16) unsigned char data[COLL_INLINE];
    struct coll_lay src, dst;           /* written only for buffers published in place */
    /* Written after the stamp, by the member or its peers: a broadcast
     * reader's chunks (claimed, copied), a sliced reduction's chunks
     * (member 0's), a group creation's rounds. */
    alignas(SM_CACHELINE) _Atomic uint32_t claim;
    _Atomic uint32_t done;
    _Atomic uint64_t vote;
};
_Static_assert(offsetof(struct coll_rec, data) == 32 && offsetof(struct coll_rec, src) == 128,
               "a small contribution starts in the stamp's line, the layouts in the third");
_Static_assert(sizeof(struct coll_rec) == 5 * SM_CACHELINE, "a record is five lines");

/* A record's source: its layouts, or for a contribution carried in the
 * record or bounce buffer (whose owner writes only the stamp's line), plain
 * bytes at aux, len bytes per block. */
static inline const struct coll_lay *coll_src(const struct coll_rec *p, struct coll_lay *tmp)
{
    if (!(p->flags & REC_CARRIED)) return &p->src;
    *tmp = (struct coll_lay){ p->aux, 0, p->len, 0, 0, 0, 1, 1 };
    return tmp;
}

static inline uint32_t coll_tag_seq(uint64_t tag) { return (uint32_t)tag; }
static inline uint32_t coll_tag_sig(uint64_t tag) { return (uint32_t)(tag >> 32); }
/* Which collective a published record is for (read after its stamp). */
static inline uint32_t coll_rec_sig(const struct coll_rec *p)
{
    return coll_tag_sig(atomic_load_explicit(&((struct coll_rec *)p)->tag, memory_order_relaxed));
}

/* A group's state in one member's area. progress: the last collective up
 * to which this member has finished with its peers' memory (it may have
 * finished later ones too); never cleared, so a new group at the number
 * starts past it. checked (at most progress): the last collective up to
 * which, besides, it has done with its peers' records: the checks it
 * deferred (a member that read no record of a collective checks the next
 * member's later, sched.c) are done. Peers wait for progress before they
 * reuse their buffers, for checked before they rewrite a record. One line
 * for both. */
struct coll_slot {
    struct coll_rec rec[COLL_RECS];
    alignas(SM_CACHELINE) _Atomic uint32_t progress;
    _Atomic uint32_t checked;
};

/* Active sets: start + i * 2^logstride for i < size; a flat barrier per
 * (logstride, size) in the first member's area. */
#define COLL_ASET_LOGSTRIDES 10  /* 2^9 > SM_NMAX: larger strides cannot hold two ranks */
#define COLL_ASET_KEYS (COLL_ASET_LOGSTRIDES * (SM_NMAX + 1))

struct coll_area {
    uint64_t used[COLL_GROUPS_MAX / 64];     /* group numbers this rank is a member of */
    struct coll_slot slot[COLL_GROUPS_MAX];
    struct coll_rec aset_rec;                /* the record for active-set collectives */
    struct { alignas(SM_CACHELINE) _Atomic uint32_t n; } aset_bar[COLL_ASET_KEYS];
};
_Static_assert(sizeof(struct coll_area) <= SM_AREA_COLL_SIZE, "the collective state fits its area");

static inline struct coll_area *coll_area_of(int rank) { return sm_area(rank, SM_AREA_COLL); }

/* sm_global without the call: where every rank sees this rank's object at
 * p, or NULL if p is not in exposed memory. */
static inline void *coll_global(const void *p)
{
    uint64_t off = sm_local_offset((uintptr_t)p);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(sm_core.rank) + off);
}

static inline bool coll_aset(const struct coll_group *g) { return g->num == COLL_NUM_ASET; }
static inline struct coll_slot *coll_slot_of(const struct coll_group *g, int i) { return g->slots[i]; }
/* Member i's record for collective seq. */
static inline struct coll_rec *coll_rec_of(const struct coll_group *g, int i, uint32_t seq)
{
    return coll_aset(g) ? &coll_area_of(sm_group_rank(&g->m, i))->aset_rec
                        : &coll_slot_of(g, i)->rec[seq % COLL_RECS];
}

/* --- A running collective -------------------------------------------------------------
 * A schedule: step() runs it as far as it can and returns true once it is
 * complete. Its position is kept in pc (the sequence every collective goes
 * through: publish, body, release, wait for the users of its buffers,
 * check a peer's record) and bpc (the kind's own body), written with the
 * CO_* macros below; anything that must survive a wait lives in the op. */
struct coll_op;
struct coll_kind_ops {
    const char *name;
    /* Fill this member's record (after the common fields) and decide who
     * uses its buffers (o->readers); SM_OK or why it cannot take part. */
    sm_status_t (*prepare)(struct coll_op *o, struct coll_rec *mine);
    /* The kind's own part, between publication and release. */
    bool (*body)(struct coll_op *o);
};
extern const struct coll_kind_ops *const coll_kinds[COLL_KINDS];

/* span.c: groups spanning nodes, their collectives over point-to-point. */
bool coll_spans(const struct sm_group *m);                 /* a member is on another node */
const struct p2p_comm *coll_span_job(void);                /* the whole job, for creating groups over it */
sm_status_t coll_span_attach(struct coll_group *g);        /* g (numbered) spans nodes: its communicator */
sm_status_t coll_span_run(struct coll_group *g, const struct coll_args *a);
sm_status_t coll_span_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx);
/* The tag of g's next collective (its sequence number taken, as every
 * member does at the same point), and a nonblocking one started later
 * with it (hier.c: a leaders' stage that waits for its node's). */
int coll_span_reserve(struct coll_group *g);
sm_status_t coll_span_start_tag(struct coll_group *g, const struct coll_args *a, int tag, coll_done_fn done, void *ctx);
void coll_span_progress(void);
/* The messages of collectives between nodes (span.c, hier.c). A member
 * that failed still sends and receives what its peers expect of it, so
 * that none waits: fail_msg turns its message into one of another size
 * (empty; one byte where none is expected), and a receive into one of
 * nothing. recv_status: a completed receive's status, which fails (naming
 * the member and the sizes) on any message but one of the size expected
 * (every member knows what each other sends it: a shorter message is a
 * count that differs, or a member that failed). */
void coll_fail_msg(bool send, void **buf, size_t *bytes, const struct dt_type **t);
sm_status_t coll_recv_status(const struct coll_group *g, const struct p2p_req *r);
/* Block i of b (a block per member): its address, type and stream bytes. */
void *coll_buf_block(const struct coll_buf *b, int i, const struct dt_type **t, size_t *bytes);
/* Scratch for the large collectives between nodes (span.c, hier.c): a few
 * freed blocks are kept for the next call (coll_scratch_free), as the
 * allocator returns a freed large block to the kernel at once and each
 * call paid its pages' faults again. */
void *coll_scratch(size_t n);
void coll_scratch_free(void *p);
bool coll_threaded(void);                                  /* coll_threads was called: lists under locks */
bool coll_span_busy(void);
/* hier.c: the blocking ones hierarchically (the node's engine, leaders over
 * span.c), or on span.c where that does not fit; and what g->hier holds. */
sm_status_t coll_hier_run(struct coll_group *g, const struct coll_args *a);
void coll_hier_free(struct coll_group *g);
/* The nonblocking ones by nodes too, once g is split (else span.c's), and
 * their progress (coll_progress runs it while any is active). */
sm_status_t coll_hier_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx);
bool coll_hier_busy(void);
void coll_hier_progress(void);
extern const struct coll_kind_ops coll_barrier_ops, coll_bcast_ops, coll_gather_ops, coll_scatter_ops,
    coll_allgather_ops, coll_alltoall_ops, coll_reduce_ops, coll_create_ops;

#define COLL_NONE (-2)                   /* readers: nobody uses this member's buffers */

struct coll_op {
    struct coll_op *next, *prev;        /* the engine's list of started schedules */
    struct coll_group *g;
    const struct coll_args *a;          /* the caller's (blocking), or the copy after the op (nonblocking) */
    uint32_t seq, sig;
    int n, me;
    int pc, bpc;                        /* where the schedule and its body resume */
    int i, k;                           /* loop state of the body */
    size_t x, y;                        /* more of it */
    int readers;                        /* who uses this member's buffers: COLL_ALL, a member, COLL_NONE */
    bool listed;                        /* on the engine's list (else run by its caller alone) */
    bool read_any;                      /* it checked a peer's record, or one is sure to check its own
                                         * (else it checks one at the end) */
    bool released;
    bool late;                          /* its record is stamped by the body, not at publication (a chain) */
    bool owe_wake;                      /* stamped by a body that returns at once: the release wakes for both */
    bool (*gate)(void *);               /* a node stage of hier.c: publishes only once gate(gate_ctx) */
    void *gate_ctx;
    uint32_t flags;                     /* its record's */
    size_t len;                         /* its record's */
    sm_status_t st;
    char *why;                          /* the reason for st (owned) */
    coll_done_fn done;
    void *ctx;
    /* What the engine made for this collective and frees at the end:
     * staged copies of buffers peers cannot reach, copies of types and
     * arrays, scratch. */
    void *owned[8];            /* scratch: stages of both sides, their arrays and types (memory peers cannot reach) */
    int nowned;
    struct coll_lay src, dst;           /* this member's buffers as published */
    struct coll_lay staged;             /* a destination peers write into a stage ... */
    struct coll_buf staged_buf;         /* ... copied into this buffer at the end */
    int staged_nb;                      /* (its blocks; 0: nothing staged) */
    void (*finish)(struct coll_op *o);  /* the kind's last local step, after every peer is done */
    void *kctx;                         /* the kind's own state (group creation) */
    /* reductions (reduce.c) */
    struct coll_red_state {
        size_t N, E;                    /* elements, per chunk */
        size_t es_c, es_s;              /* predefined: bytes of an element in C layout, in the stream */
        uint32_t nchunks;
        bool sliced, user;
        bool chain;                     /* a small scan as a chain of prefixes */
        bool direct;                    /* two members' large exscan: member 1 copies member 0's source */
        coll_kernel_fn k;
        const struct dt_type *U;        /* user: the datatype (this member's) */
        struct coll_lay mine;           /* this member's source, local addresses */
        size_t *bstart;                 /* reduce-scatter: each member's first element (n + 1), */
        uint32_t *cstart;               /* ... and first chunk (n + 1) */
        uint8_t *same;                  /* user: member j's datatype has this member's layout */
    } r;
};

#define CO_BEGIN(pcv) switch (pcv) { case 0:
#define CO_WAIT(pcv, cond) do { (pcv) = __LINE__; __attribute__((fallthrough)); case __LINE__: \
                                if (!(cond)) return false; } while (0)
#define CO_END(pcv) (pcv) = -1; __attribute__((fallthrough)); case -1: ; } return true

/* --- Helpers (sched.c) --------------------------------------------------------------- */
/* Member i's record for o once it is published (NULL: not yet); with check
 * (and on a mismatch) o fails and the record is returned anyway. */
struct coll_rec *coll_await(struct coll_op *o, int i);
/* The record's collective against o's: kind, root, type, op, and with
 * same_len its length. On a mismatch o fails (naming both) and false. */
bool coll_check(struct coll_op *o, int i, const struct coll_rec *p, bool same_len);
/* Has member i finished (with its peers' memory) collective seq? */
bool coll_finished(struct coll_group *g, int i, uint32_t seq);
/* o fails with st and the current sm_fail_reason (the first failure counts). */
void coll_fail(struct coll_op *o, sm_status_t st);
/* Wake the members of g that may wait for what this member just wrote. */
void coll_wake_all(const struct coll_group *g);
static inline int coll_rank(const struct coll_op *o, int i) { return sm_group_rank(&o->g->m, i); }
/* The member after me, i steps on (i < n). */
static inline int coll_next(const struct coll_op *o, int k) { return o->me + k < o->n ? o->me + k : o->me + k - o->n; }

/* Where a contribution of span bytes to o travels when its member does not
 * wait for its readers: the record, the bounce buffer, or NULL (peers
 * read it in place). src_ok: the caller can publish its buffer itself
 * instead (not a buffer it writes during the collective); then 2 members
 * on cores of their own get NULL past COLL_CARRY_MAX_2. */
void *coll_carrier(struct coll_op *o, size_t span, bool src_ok);
/* A deferred check on g that failed and is not reported yet (sched.c):
 * its status (the reason naming both calls), and it is reported; else SM_OK. */
sm_status_t coll_late(struct coll_group *g);
/* Stamp this member's record now (its prepare set o->late): peers may read it.
 * The peers are woken then, or, by a body that returns true right after
 * (last), with the release's wake (one waker fence and one look at each
 * peer's sleepers a call instead of two). */
void coll_stamp(struct coll_op *o, bool last);
/* Memory the op owns until it ends (freed then); NULL when out of memory (o fails). */
void *coll_alloc(struct coll_op *o, size_t bytes);

/* A buffer as peers see it: the global layout of blocks nblocks of b
 * (nblocks 1 for a buffer without blocks), staged in the heap when b or
 * its type is not exposed: a source is packed there, a destination is
 * received there and unpacked at the end. SM_ERR_NOMEM. */
sm_status_t coll_lay_src(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks);
sm_status_t coll_lay_dst(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks);
/* The same with the stage laid out as `as` (reductions: C arrays of elem). */
sm_status_t coll_lay_as(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks,
                        const struct dt_type *as, bool dst);
/* Bytes of one element of a buffer's type (1 for bytes). */
static inline size_t coll_elem_size(const struct dt_type *t) { return t ? t->size : 1; }
/* The same for the local side (no staging: this member reaches its own
 * memory): the layout with local addresses. Inline, as coll_block: the
 * small collectives' path takes several a peer. */
static inline void coll_lay_local(struct coll_lay *l, const struct coll_buf *b)
{
    *l = (struct coll_lay){ (uint64_t)(uintptr_t)b->base, (uint64_t)(uintptr_t)b->type, b->count,
                            (uint64_t)(uintptr_t)b->counts, (uint64_t)(uintptr_t)b->displs,
                            (uint64_t)(uintptr_t)b->types, coll_elem_size(b->type),
                            b->type ? (uint64_t)dt_extent(b->type) : 1 };
}
/* Block i of a layout: element 0's address, element count, type (NULL:
 * bytes), and the stream bytes. Reads a peer's arrays. */
struct coll_blk { char *base; size_t count; const struct dt_type *type; size_t bytes; };
static inline struct coll_blk coll_block(const struct coll_lay *l, int i, int nblocks)
{
    struct coll_blk k;
    const struct dt_type *t = (const struct dt_type *)(uintptr_t)l->type;
    if (!l->counts) {
        k.base = (char *)(uintptr_t)l->base + (ptrdiff_t)((size_t)i * l->count * l->ext);
        k.count = l->count;
        k.type = t;
        k.bytes = l->count * l->size;
        (void)nblocks;
        return k;
    }
    int c = ((const int *)(uintptr_t)l->counts)[i], d = ((const int *)(uintptr_t)l->displs)[i];
    if (l->types) {
        t = ((const struct dt_type *const *)(uintptr_t)l->types)[i];
        k.base = (char *)(uintptr_t)l->base + d;
    } else {
        k.base = (char *)(uintptr_t)l->base + (ptrdiff_t)d * (ptrdiff_t)l->ext;
    }
    k.count = c > 0 ? (size_t)c : 0;
    k.type = t;
    k.bytes = k.count * coll_elem_size(t);
    return k;
}

/* A block's bytes as one run (plain bytes, or a contiguous typemap such as
 * a v collective's predefined type), or NULL. */
static inline char *coll_flat(const struct coll_blk *b)
{
    if (SM_LIKELY(!b->type)) return b->base;
    return dt_is_contig(b->type, b->count) ? b->base + b->type->true_lb : NULL;
}
/* Copy stream bytes [off, off + len) of src into the same positions of dst. */
static inline void coll_copy(const struct coll_blk *d, const struct coll_blk *s, size_t off, size_t len)
{
    char *dp = coll_flat(d), *sp = dp ? coll_flat(s) : NULL;
    if (SM_LIKELY(sp != NULL)) memcpy(dp + off, sp + off, len);
    else dt_copy(d->base, d->type, s->base, s->type, off, len);
}

/* What every member must agree on (a record's tag's high half): kind, root
 * (+1: none is 0), and for reductions the type and op (user functions: COLL_USER). */
#define COLL_SIG(kind, root, t, op) \
    ((uint32_t)(kind) << 24 | (uint32_t)((root) + 1) << 12 | (uint32_t)(t) << 6 | (uint32_t)(op))

/* The lean path: a small blocking collective on a group with nothing else
 * in flight (no schedule of its own on the engine's list, no late failure
 * pending; coll_run checks that), run inline with the general path's
 * protocol (the same records, stamps, progress and deferred checks, so its
 * peers may run either) without a schedule. reduce.c: reductions on plain
 * C arrays with a predefined op; move.c: broadcast, scatter(v), gather(v),
 * allgather(v), collect, alltoall(v) of contiguous buffers whose contribution fits
 * the record. False: not such a call, nothing done (the caller runs the
 * general path); true: done, its status in *st. */
bool coll_red_lean(struct coll_group *g, const struct coll_args *a, sm_status_t *st);
bool coll_move_lean(struct coll_group *g, const struct coll_args *a, sm_status_t *st);
/* (sched.c) Their common part. open: o set up for the helpers (g, a, n,
 * me, sig, seq, st, readers COLL_NONE), its record free to write (waited
 * for), fin written; the record returned for the caller to fill (flags,
 * len, aux or layouts) and stamp. stamp: published (REC_FAILED if o
 * failed); its wake is owed to a wait or the end. await: member i's record
 * of o, published (waited for). end: the end of step() after the body
 * (deferred check, progress, readers, late report); o's status. */
struct coll_rec *coll_lean_open(struct coll_op *o, struct coll_group *g, const struct coll_args *a, uint32_t sig);
static inline void coll_lean_stamp(struct coll_op *o, struct coll_rec *r)
{
    if (SM_UNLIKELY(o->st != SM_OK)) r->flags |= REC_FAILED;
    atomic_store_explicit(&r->tag, (uint64_t)o->sig << 32 | o->seq, memory_order_release);
    o->g->pub = o->seq;
    o->owe_wake = true;                 /* woken with the release, or before a wait */
}
struct coll_rec *coll_lean_await(struct coll_op *o, int i);
sm_status_t coll_lean_end(struct coll_op *o);

/* (sched.c) Initialise o for the arguments; SM_ERR_ARG. Then launch it:
 * blocking, it runs to the end (its status); else it joins the list
 * (o then from malloc, with done set: freed after done is called). */
sm_status_t coll_op_init(struct coll_op *o, struct coll_group *g, const struct coll_args *a);
sm_status_t coll_launch(struct coll_op *o, bool blocking);
/* Start o (from malloc: the engine frees it after done) on g for a (the
 * caller's, kept until done), nonblocking, held before its publication
 * until gate(gctx) is true: its sequence number is taken now, so the
 * group's later collectives wait behind it (hier.c posts every node stage
 * of a nonblocking collective at its start). SM_ERR_ARG: not started. */
sm_status_t coll_start_gated(struct coll_op *o, struct coll_group *g, const struct coll_args *a,
                             bool (*gate)(void *), void *gctx, coll_done_fn done, void *ctx);
/* Wait until cond(arg), moving the engine's schedules (and point-to-point,
 * when asked for) on meanwhile. */
void coll_wait(bool (*cond)(void *), void *arg);

#endif
