/* The window calls test_rma.c does not reach: the predefined attributes of
 * every flavor (MPI_WIN_BASE, SIZE, DISP_UNIT), names, user attributes and
 * their delete callbacks (by MPI_Win_delete_attr, by replacement, by
 * MPI_Win_free), MPI_Win_set_info changing the hints in effect (no_locks,
 * accumulate_ops, accumulate_ordering), MPI_Win_allocate_shared with and
 * without alloc_shared_noncontig, MPI_Win_sync in the unified model's
 * load/store pattern, fence assertions used as MPI allows them, lock with
 * MPI_MODE_NOCHECK, flush_local to one rank and flush_all, and every
 * accumulate operation on MPI_BYTE. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

#define EL 32
static int me, n, dst, src;
static int64_t global_mem[EL];

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int du, int flavor, const char *what)
{
    void *b;
    MPI_Aint *s;
    int *d, *f, flag;
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
    CHECK(flag && b == base, "%s: MPI_WIN_BASE %p, not %p", what, b, base);
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &flag));
    CHECK(flag && *s == size, "%s: MPI_WIN_SIZE %ld, not %ld", what, (long)*s, (long)size);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &d, &flag));
    CHECK(flag && *d == du, "%s: MPI_WIN_DISP_UNIT %d, not %d", what, *d, du);
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag));
    CHECK(flag && *f == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, not %d", what, *f, flavor);
}

static void attributes(void)
{
    MPI_Win win;
    int64_t *mem;
    OK(MPI_Win_create(global_mem, sizeof global_mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, global_mem, sizeof global_mem, 8, MPI_WIN_FLAVOR_CREATE, "MPI_Win_create");
    OK(MPI_Win_free(&win));
    OK(MPI_Win_allocate(24, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    check_attrs(win, mem, 24, 4, MPI_WIN_FLAVOR_ALLOCATE, "MPI_Win_allocate");
    OK(MPI_Win_free(&win));
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic");
    OK(MPI_Win_free(&win));
    /* a window of size 0 on some ranks */
    OK(MPI_Win_allocate(me % 2 ? 0 : 16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Aint *s;
    int flag;
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &flag));
    CHECK(*s == (me % 2 ? 0 : 16), "size-0 window: MPI_WIN_SIZE %ld", (long)*s);
    OK(MPI_Win_free(&win));
}

static int deleted;
static int count_delete(MPI_Win win, int key, void *val, void *extra)
{
    (void)win, (void)key;
    CHECK(extra == &deleted, "the delete callback's extra_state");
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void names_and_keyvals(void)
{
    MPI_Win win;
    OK(MPI_Win_create(global_mem, sizeof global_mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0 && !name[0], "an unnamed window's name is '%s'", name);
    OK(MPI_Win_set_name(win, "halo exchange"));
    OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 13 && !strcmp(name, "halo exchange"), "name '%s' (%d)", name, len);
    int kv, one = 1, ten = 10, hundred = 100, *got, flag;
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &kv, &deleted));
    OK(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(!flag, "an attribute not set is found");
    OK(MPI_Win_set_attr(win, kv, &one));
    OK(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag && got == &one, "the attribute set is not the one found");
    OK(MPI_Win_set_attr(win, kv, &ten));         /* replaces: one's delete callback */
    CHECK(deleted == 1, "replacing an attribute: %d deleted", deleted);
    OK(MPI_Win_delete_attr(win, kv));
    CHECK(deleted == 11, "MPI_Win_delete_attr: %d deleted", deleted);
    OK(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(!flag, "a deleted attribute is found");
    OK(MPI_Win_set_attr(win, kv, &hundred));
    OK(MPI_Win_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval sets MPI_KEYVAL_INVALID");
    OK(MPI_Win_free(&win));                       /* deletes the last one */
    CHECK(deleted == 111, "MPI_Win_free: %d deleted", deleted);
}

static void info_get(MPI_Win win, const char *key, const char *want)
{
    MPI_Info used;
    char val[64];
    int flag;
    OK(MPI_Win_get_info(win, &used));
    OK(MPI_Info_get(used, key, sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, want), "info %s is '%s', not '%s'", key, flag ? val : "(unset)", want);
    OK(MPI_Info_free(&used));
}

static void info_set(MPI_Win win, const char *key, const char *value)
{
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, key, value));
    OK(MPI_Win_set_info(win, info));
    OK(MPI_Info_free(&info));
}

static void hints(void)
{
    MPI_Win win;
    OK(MPI_Win_create(global_mem, sizeof global_mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    info_get(win, "no_locks", "false");
    info_get(win, "accumulate_ordering", "rar,raw,war,waw");
    info_get(win, "accumulate_ops", "same_op_no_op");
    info_set(win, "no_locks", "true");
    info_get(win, "no_locks", "true");
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, dst, 0, win) == MPI_ERR_RMA_SYNC, "a lock with no_locks=true");
    info_set(win, "no_locks", "false");
    OK(MPI_Win_lock(MPI_LOCK_SHARED, dst, 0, win));
    OK(MPI_Win_unlock(dst, win));
    info_set(win, "accumulate_ops", "same_op");
    info_get(win, "accumulate_ops", "same_op");
    info_set(win, "accumulate_ordering", "raw,war");
    info_get(win, "accumulate_ordering", "raw,war");
    info_set(win, "accumulate_ordering", "sometimes");   /* not a valid value: ignored */
    info_get(win, "accumulate_ordering", "raw,war");
    /* accumulates still atomic and in order with the weaker hints */
    int64_t v = me + 1, r;
    OK(MPI_Win_fence(0, win));
    global_mem[0] = 0;
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; t++) OK(MPI_Accumulate(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, win));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, dst, 0, win));
    OK(MPI_Fetch_and_op(NULL, &r, MPI_INT64_T, dst, 0, MPI_NO_OP, win));
    OK(MPI_Win_unlock(dst, win));
    CHECK(r == (int64_t)n * (n + 1) / 2, "accumulate_ops=same_op: sum %lld", (long long)r);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
}

/* Shared windows: contiguous by default (each member's part right after
 * the previous one's), separate with alloc_shared_noncontig; load/store
 * with MPI_Win_sync in a lock_all epoch (MPI 3.1 §11.7, example 11.10's
 * pattern). */
static void shared(bool noncontig)
{
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        OK(MPI_Info_create(&info));
        OK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    int64_t *mine;
    MPI_Win win;
    OK(MPI_Win_allocate_shared((me + 1) * 8 * (MPI_Aint)sizeof(int64_t), sizeof(int64_t), info, MPI_COMM_WORLD,
                               &mine, &win));
    if (info != MPI_INFO_NULL) OK(MPI_Info_free(&info));
    info_get(win, "alloc_shared_noncontig", noncontig ? "true" : "false");
    MPI_Aint size;
    int du;
    int64_t *p, *first;
    OK(MPI_Win_shared_query(win, me, &size, &du, &p));
    CHECK(p == mine && size == (me + 1) * 8 * (MPI_Aint)sizeof(int64_t) && du == 8, "own part: %p (%p), %ld, %d",
          (void *)p, (void *)mine, (long)size, du);
    OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &du, &first));
    OK(MPI_Win_shared_query(win, 0, &size, &du, &p));
    CHECK(first == p && size == 8 * (MPI_Aint)sizeof(int64_t), "MPI_PROC_NULL: rank 0's part");
    if (!noncontig)   /* ranks 0 .. me-1 hold 8, 16, ... elements before ours */
        CHECK(mine == first + 8 * me * (me + 1) / 2, "contiguous: rank %d's part at %p, rank 0's at %p", me,
              (void *)mine, (void *)first);
    OK(MPI_Win_lock_all(0, win));
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < (me + 1) * 8; i++) mine[i] = round * 1000 + me * 100 + i;
        OK(MPI_Win_sync(win));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Win_sync(win));
        int64_t *q;
        OK(MPI_Win_shared_query(win, dst, &size, &du, &q));
        for (int i = 0; i < (dst + 1) * 8; i++)
            CHECK(q[i] == round * 1000 + dst * 100 + i, "round %d: rank %d's element %d loaded as %lld", round, dst,
                  i, (long long)q[i]);
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_free(&win));
}

/* Fence assertions as MPI allows them, lock with MPI_MODE_NOCHECK, and the
 * flushes to one rank and to all. */
static void asserts_and_flushes(void)
{
    int64_t *mem, v;
    MPI_Win win;
    OK(MPI_Win_allocate(EL * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < EL; i++) mem[i] = -1;
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));      /* (NOSTORE would be wrong: mem was just stored) */
    v = me;
    OK(MPI_Put(&v, 1, MPI_INT64_T, dst, 0, 1, MPI_INT64_T, win));
    OK(MPI_Win_fence(MPI_MODE_NOSTORE, win));        /* nobody stored locally in this epoch */
    CHECK(mem[0] == src, "fence epoch: %lld from rank %d", (long long)mem[0], src);
    OK(MPI_Get(&v, 1, MPI_INT64_T, dst, 0, 1, MPI_INT64_T, win));
    OK(MPI_Win_fence(MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win));   /* only gets in it */
    CHECK(v == me, "got back %lld", (long long)v);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* NOCHECK: the program guarantees nobody else holds the target's lock (each origin has its own target) */
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, dst, MPI_MODE_NOCHECK, win));
    for (int i = 1; i < EL; i++) {
        v = me * 1000 + i;
        OK(MPI_Put(&v, 1, MPI_INT64_T, dst, i, 1, MPI_INT64_T, win));
        if (i % 2) OK(MPI_Win_flush_local(dst, win));   /* v may be reused */
        else OK(MPI_Win_flush(dst, win));
    }
    OK(MPI_Win_flush_all(win));
    OK(MPI_Win_flush_local_all(win));
    OK(MPI_Win_unlock(dst, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_sync(win));
    for (int i = 1; i < EL; i++)
        CHECK(mem[i] == src * 1000 + i, "lock NOCHECK: element %d is %lld", i, (long long)mem[i]);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
}

/* Every predefined accumulate operation on MPI_BYTE, taken as unsigned
 * 8-bit integers (as MPICH and Open MPI take it, and mpi4py's suite uses
 * it), through MPI_Get_accumulate and MPI_Accumulate. */
static void byte_ops(void)
{
    static const MPI_Op ops[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,
                                  MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP };
    enum { NB = 8 };
    uint8_t *mem, o[NB], r[NB], g[NB], five[NB];
    MPI_Win win;
    OK(MPI_Win_allocate(NB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(five, 200, NB);
    for (int i = 0; i < NB; i++) o[i] = (uint8_t)(i * 37 + me);
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, dst, 0, win));   /* each rank its own target */
        OK(MPI_Put(five, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, win));
        OK(MPI_Win_flush(dst, win));
        memset(r, 0, NB);
        OK(MPI_Get_accumulate(o, NB, MPI_BYTE, r, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, ops[k], win));
        OK(MPI_Win_flush(dst, win));
        OK(MPI_Get(g, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, win));
        OK(MPI_Win_unlock(dst, win));
        for (int i = 0; i < NB; i++) {
            unsigned a = 200, b = o[i], want;
            MPI_Op op = ops[k];
            want = op == MPI_SUM ? a + b : op == MPI_PROD ? a * b : op == MPI_MAX ? (a > b ? a : b)
                 : op == MPI_MIN ? (a < b ? a : b) : op == MPI_LAND ? (a && b) : op == MPI_LOR ? (a || b)
                 : op == MPI_LXOR ? (!a != !b) : op == MPI_BAND ? (a & b) : op == MPI_BOR ? (a | b)
                 : op == MPI_BXOR ? (a ^ b) : op == MPI_REPLACE ? b : a;
            CHECK(r[i] == 200 && g[i] == (uint8_t)want, "op %zu byte %d: result %u, target %u, not %u", k, i, r[i],
                  g[i], (uint8_t)want);
        }
    }
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, dst, 0, win));
    OK(MPI_Put(five, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, win));
    OK(MPI_Win_flush(dst, win));
    OK(MPI_Accumulate(o, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, MPI_SUM, win));
    OK(MPI_Win_flush(dst, win));
    OK(MPI_Get(g, NB, MPI_BYTE, dst, 0, NB, MPI_BYTE, win));
    OK(MPI_Win_unlock(dst, win));
    for (int i = 0; i < NB; i++) CHECK(g[i] == (uint8_t)(200 + o[i]), "MPI_Accumulate byte %d: %u", i, g[i]);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    dst = (me + 1) % n, src = (me + n - 1) % n;
    attributes();
    names_and_keyvals();
    hints();
    if (mcheck_nodes(NULL)) {   /* (across nodes refused: test_rma checks that) */
        shared(false);
        shared(true);
    }
    asserts_and_flushes();
    byte_ops();
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_misc: ok on %d ranks\n", n);
    return 0;
}
