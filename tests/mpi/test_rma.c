/* One-sided communication, every call under every synchronisation on every
 * kind of window memory, data checked element by element. Memory: a
 * window from MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create
 * over malloc'd memory, over a global array, over a stack buffer (main's),
 * over a private mmap (reached through smartmap's fallback copies, not
 * exposed), and a dynamic window with malloc'd memory attached.
 * Synchronisation: fence, post/start/complete/wait, lock shared, lock
 * exclusive, lock_all with flush. Each rank r works on its target
 * (r + 1) % n, in the part of the target's window that is r's, so no two
 * origins touch the same element; the calls: put, get, accumulate (SUM and
 * REPLACE), get_accumulate (SUM, NO_OP), fetch_and_op, compare_and_swap,
 * and in passive-target epochs rput, rget, raccumulate, rget_accumulate.
 * Across nodes (a PMIx launch with fake nodes) the shared window and the
 * private mmap are refused (MPI_ERR_COMM, MPI_ERR_ARG), which is checked
 * instead, and the shared query gives nothing for a target elsewhere. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <smartmap.h>

#include "mcheck.h"

#define K 16                          /* elements per origin */
#define MAXN 8
#define WIN_ELEMS (MAXN * K)
typedef int64_t elem;

static int me, n, src, dst;           /* dst: our target; src: the origin whose target we are */
static int one_node, local[MAXN];     /* mcheck_nodes */
static elem global_win[WIN_ELEMS];

enum kind { ALLOCATE, SHARED, MALLOC, GLOBAL, STACK, MMAP, DYNAMIC, KINDS };
static const char *const kind_name[] = { "allocate", "allocate_shared", "create(malloc)", "create(global)",
                                         "create(stack)", "create(private mmap)", "dynamic" };
enum mode { FENCE, PSCW, LOCK_SHARED, LOCK_EXCL, LOCK_ALL, MODES };
static const char *const mode_name[] = { "fence", "pscw", "lock shared", "lock exclusive", "lock_all" };

struct w {
    MPI_Win win;
    elem *mem;                        /* our window memory */
    MPI_Aint tbase;                   /* dynamic: dst's memory address (displacements are addresses) */
    enum kind kind;
    enum mode mode;
    MPI_Group origin, target;         /* PSCW: {src}, {dst} */
    void *own;                        /* what to free */
};

/* The displacement of element i of our part of dst's window. */
static MPI_Aint disp(const struct w *w, int i)
{
    if (w->kind == DYNAMIC) return w->tbase + (MPI_Aint)((me * K + i) * sizeof(elem));
    return me * K + i;
}

static void win_open(struct w *w, enum kind kind, elem *stack)
{
    MPI_Aint bytes = WIN_ELEMS * sizeof(elem);
    w->kind = kind, w->own = NULL;
    switch (kind) {
    case ALLOCATE: OK(MPI_Win_allocate(bytes, sizeof(elem), MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win)); break;
    case SHARED: OK(MPI_Win_allocate_shared(bytes, sizeof(elem), MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win)); break;
    case MALLOC: w->own = w->mem = malloc(bytes); break;
    case GLOBAL: w->mem = global_win; break;
    case STACK: w->mem = stack; break;
    case MMAP:
        w->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(w->mem != MAP_FAILED, "mmap");
        break;
    case DYNAMIC: w->own = w->mem = malloc(bytes); break;
    default: break;
    }
    if (kind >= MALLOC && kind <= MMAP)
        OK(MPI_Win_create(w->mem, bytes, sizeof(elem), MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    if (kind == DYNAMIC) {
        OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        OK(MPI_Win_attach(w->win, w->mem, bytes));
        MPI_Aint mine, all[MAXN];
        OK(MPI_Get_address(w->mem, &mine));
        OK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
        w->tbase = all[dst];
    }
    int flag, *flavor, *model;
    OK(MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == (kind == ALLOCATE ? MPI_WIN_FLAVOR_ALLOCATE : kind == SHARED ? MPI_WIN_FLAVOR_SHARED
                              : kind == DYNAMIC ? MPI_WIN_FLAVOR_DYNAMIC : MPI_WIN_FLAVOR_CREATE),
          "flavor %d for %s", *flavor, kind_name[kind]);
    OK(MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", *model);
    MPI_Group g;
    OK(MPI_Win_get_group(w->win, &g));
    OK(MPI_Group_incl(g, 1, &src, &w->origin));
    OK(MPI_Group_incl(g, 1, &dst, &w->target));
    OK(MPI_Group_free(&g));
}

static void win_close(struct w *w)
{
    OK(MPI_Group_free(&w->origin));
    OK(MPI_Group_free(&w->target));
    if (w->kind == DYNAMIC) OK(MPI_Win_detach(w->win, w->mem));
    OK(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "Win_free sets MPI_WIN_NULL");
    if (w->kind == MMAP) munmap(w->mem, WIN_ELEMS * sizeof(elem));
    free(w->own);
}

/* Our window memory, set by us, visible to all before anyone's next epoch. */
static void fill(struct w *w, elem (*f)(int owner, int i))
{
    for (int i = 0; i < WIN_ELEMS; i++) w->mem[i] = f(me, i);
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void epoch_begin(struct w *w)
{
    switch (w->mode) {
    case FENCE: OK(MPI_Win_fence(0, w->win)); break;
    case PSCW: OK(MPI_Win_post(w->origin, 0, w->win)); OK(MPI_Win_start(w->target, 0, w->win)); break;
    case LOCK_SHARED: OK(MPI_Win_lock(MPI_LOCK_SHARED, dst, 0, w->win)); break;
    case LOCK_EXCL: OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, dst, 0, w->win)); break;
    default: OK(MPI_Win_lock_all(0, w->win)); break;
    }
}

/* Close the epoch; then every rank's window holds what was done to it. */
static void epoch_end(struct w *w)
{
    switch (w->mode) {
    case FENCE: OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win)); break;
    case PSCW: OK(MPI_Win_complete(w->win)); OK(MPI_Win_wait(w->win)); break;
    case LOCK_SHARED: case LOCK_EXCL: OK(MPI_Win_unlock(dst, w->win)); break;
    default: OK(MPI_Win_flush(dst, w->win)); OK(MPI_Win_flush_local_all(w->win)); OK(MPI_Win_unlock_all(w->win)); break;
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

static elem initial(int owner, int i) { return (elem)owner * 100000 + i; }
static elem value(int origin, int i) { return (elem)origin * 1000 + 7 * i + 3; }

/* Our part of our target's window was set to initial(dst, .) and then
 * changed by us: check what src did to ours, element by element, with f. */
#define CHECK_MINE(w, what, expect)                                                                   \
    for (int i = 0; i < K; i++) {                                                                     \
        elem got = (w)->mem[src * K + i], want = (expect);                                            \
        CHECK(got == want, "%s, %s, %s: element %d from rank %d is %lld, not %lld", what,             \
              kind_name[(w)->kind], mode_name[(w)->mode], i, src, (long long)got, (long long)want);   \
    }
#define CHECK_BUF(w, what, buf, expect)                                                               \
    for (int i = 0; i < K; i++) {                                                                     \
        elem got = (buf)[i], want = (expect);                                                         \
        CHECK(got == want, "%s, %s, %s: element %d read from rank %d is %lld, not %lld", what,        \
              kind_name[(w)->kind], mode_name[(w)->mode], i, dst, (long long)got, (long long)want);   \
    }

static void calls(struct w *w)
{
    elem out[K], in[K], res[K];
    bool passive = w->mode >= LOCK_SHARED;
    MPI_Datatype T = MPI_INT64_T;
    for (int i = 0; i < K; i++) out[i] = value(me, i);

    /* put: whole, then one element at a time (the small path) */
    fill(w, initial);
    epoch_begin(w);
    OK(MPI_Put(out, K / 2, T, dst, disp(w, 0), K / 2, T, w->win));
    for (int i = K / 2; i < K; i++) OK(MPI_Put(&out[i], 1, T, dst, disp(w, i), 1, T, w->win));
    epoch_end(w);
    CHECK_MINE(w, "MPI_Put", value(src, i));

    /* get */
    fill(w, initial);
    memset(in, 0, sizeof in);
    epoch_begin(w);
    OK(MPI_Get(in, K, T, dst, disp(w, 0), K, T, w->win));
    epoch_end(w);
    CHECK_BUF(w, "MPI_Get", in, initial(dst, me * K + i));

    /* accumulate: SUM, then REPLACE over half */
    fill(w, initial);
    epoch_begin(w);
    OK(MPI_Accumulate(out, K, T, dst, disp(w, 0), K, T, MPI_SUM, w->win));
    OK(MPI_Accumulate(out, K / 2, T, dst, disp(w, 0), K / 2, T, MPI_REPLACE, w->win));
    epoch_end(w);
    CHECK_MINE(w, "MPI_Accumulate", i < K / 2 ? value(src, i) : initial(me, src * K + i) + value(src, i));

    /* get_accumulate: SUM (old values back), then NO_OP (the new ones) */
    fill(w, initial);
    epoch_begin(w);
    OK(MPI_Get_accumulate(out, K, T, res, K, T, dst, disp(w, 0), K, T, MPI_SUM, w->win));
    OK(MPI_Get_accumulate(NULL, 0, T, in, K, T, dst, disp(w, 0), K, T, MPI_NO_OP, w->win));
    epoch_end(w);
    CHECK_BUF(w, "MPI_Get_accumulate(MPI_SUM) result", res, initial(dst, me * K + i));
    CHECK_BUF(w, "MPI_Get_accumulate(MPI_NO_OP) result", in, initial(dst, me * K + i) + value(me, i));
    CHECK_MINE(w, "MPI_Get_accumulate", initial(me, src * K + i) + value(src, i));

    /* fetch_and_op and compare_and_swap, element by element */
    fill(w, initial);
    epoch_begin(w);
    for (int i = 0; i < K; i++) {
        elem one = 1, cmp = initial(dst, me * K + i), nv = value(me, i);
        if (i % 2) OK(MPI_Fetch_and_op(&one, &res[i], T, dst, disp(w, i), MPI_SUM, w->win));
        else OK(MPI_Compare_and_swap(&nv, &cmp, &res[i], T, dst, disp(w, i), w->win));
    }
    elem cmp = -1, nv = 0, r0;
    OK(MPI_Compare_and_swap(&nv, &cmp, &r0, T, dst, disp(w, 0), w->win));   /* does not match: no swap */
    epoch_end(w);
    CHECK_BUF(w, "MPI_Fetch_and_op/MPI_Compare_and_swap result", res, initial(dst, me * K + i));
    CHECK(r0 == value(me, 0), "failed compare_and_swap read %lld", (long long)r0);
    CHECK_MINE(w, "MPI_Fetch_and_op/MPI_Compare_and_swap", i % 2 ? initial(me, src * K + i) + 1 : value(src, i));

    if (!passive) return;
    /* the request-based calls, complete once waited for */
    fill(w, initial);
    MPI_Request q[4];
    epoch_begin(w);
    OK(MPI_Rput(out, K / 4, T, dst, disp(w, 0), K / 4, T, w->win, &q[0]));
    OK(MPI_Rget(in, K / 4, T, dst, disp(w, K / 4), K / 4, T, w->win, &q[1]));
    OK(MPI_Raccumulate(out + K / 2, K / 4, T, dst, disp(w, K / 2), K / 4, T, MPI_SUM, w->win, &q[2]));
    OK(MPI_Rget_accumulate(out + 3 * K / 4, K / 4, T, res, K / 4, T, dst, disp(w, 3 * K / 4), K / 4, T, MPI_SUM,
                           w->win, &q[3]));
    OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    epoch_end(w);
    for (int i = 0; i < K / 4; i++) {
        CHECK(in[i] == initial(dst, me * K + K / 4 + i), "MPI_Rget element %d: %lld", i, (long long)in[i]);
        CHECK(res[i] == initial(dst, me * K + 3 * K / 4 + i), "MPI_Rget_accumulate element %d: %lld", i,
              (long long)res[i]);
    }
    CHECK_MINE(w, "MPI_Rput/MPI_Raccumulate/MPI_Rget_accumulate",
               i < K / 4 ? value(src, i) : i < K / 2 ? initial(me, src * K + i)
                                                     : initial(me, src * K + i) + value(src, i));
}

/* The shared query on the window: our target's memory, loaded directly
 * where it is exposed (size 0 and NULL for the private mmap and dynamic). */
static void shared_query(struct w *w)
{
    MPI_Aint size;
    int du;
    elem *p;
    OK(MPI_Win_shared_query(w->win, dst, &size, &du, &p));
    if (w->kind == MMAP || w->kind == DYNAMIC || !sm_exposed(w->mem)) {   /* (malloc, under the sanitizers) */
        CHECK(size == 0 && p == NULL, "shared_query of %s: size %ld", kind_name[w->kind], (long)size);
        return;
    }
    if (!local[dst])   /* on another node: nothing to load */
        CHECK(size == 0 && p == NULL, "shared_query of %s on another node: size %ld", kind_name[w->kind], (long)size);
    else
        CHECK(size == WIN_ELEMS * (MPI_Aint)sizeof(elem) && du == (int)sizeof(elem) && p,
              "shared_query of %s: size %ld disp_unit %d", kind_name[w->kind], (long)size, du);
    fill(w, initial);
    for (int i = 0; i < WIN_ELEMS && local[dst]; i++)
        CHECK(p[i] == initial(dst, i), "%s: rank %d's element %d loaded directly: %lld", kind_name[w->kind], dst, i,
              (long long)p[i]);
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    elem stack_win[WIN_ELEMS];        /* main's stack: exposed too */
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n <= MAXN, "at most %d ranks", MAXN);
    dst = (me + 1) % n, src = (me + n - 1) % n;
    one_node = mcheck_nodes(local);
    for (enum kind k = 0; k < KINDS; k++) {
        struct w w;
        if (!one_node && (k == SHARED || k == MMAP)) {   /* refused, every rank saying so */
            MPI_Win win = MPI_WIN_NULL;
            elem *m;
            OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            void *mm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            CHECK(mm != MAP_FAILED, "mmap");
            int rc = k == SHARED ? MPI_Win_allocate_shared(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win)
                                 : MPI_Win_create(mm, 4096, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            CHECK(rc == (k == SHARED ? MPI_ERR_COMM : MPI_ERR_ARG) && win == MPI_WIN_NULL,
                  "%s across nodes: %d", kind_name[k], rc);
            munmap(mm, 4096);
            OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
            continue;
        }
        win_open(&w, k, stack_win);
        shared_query(&w);
        for (enum mode m = 0; m < MODES; m++) {
            w.mode = m;
            calls(&w);
        }
        win_close(&w);
    }
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma: %d kinds of memory x %d synchronisations on %d ranks: ok\n", KINDS, MODES, n);
    return 0;
}
