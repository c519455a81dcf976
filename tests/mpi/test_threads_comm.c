/* MPI_THREAD_MULTIPLE beyond point-to-point: 4 threads per rank create and
 * free communicators at once (dup, split, create, create_group, idup) over
 * communicators of their own, each with attributes under keyvals the
 * threads create and free at the same time (copy and delete callbacks
 * counted), and windows made and used on them, with attributes too. Every result is checked. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mcheck.h"

#define T    4
#define ITER 12

static int me, n;
static MPI_Comm tc[T];
static atomic_int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    *(void **)out = in;
    *flag = 1;
    atomic_fetch_add(&copies, 1);
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    atomic_fetch_add(&deletes, 1);
    return MPI_SUCCESS;
}

static void check_comm(MPI_Comm c, int t, int i, int want_size)
{
    int size, sum = 0, one = 1;
    OK(MPI_Comm_size(c, &size));
    CHECK(size == want_size, "thread %d iteration %d: size %d, not %d", t, i, size, want_size);
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size, "thread %d iteration %d: allreduce gave %d, not %d", t, i, sum, size);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < ITER; i++) {
        int key;
        OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
        OK(MPI_Comm_set_attr(tc[t], key, (void *)(intptr_t)(t * 1000 + i)));
        MPI_Comm d, s, g, id, cr;
        OK(MPI_Comm_dup(tc[t], &d));            /* copies the attribute */
        void *v;
        int flag;
        OK(MPI_Comm_get_attr(d, key, &v, &flag));
        CHECK(flag && (intptr_t)v == t * 1000 + i, "thread %d: dup's attribute %ld", t, (long)(intptr_t)v);
        check_comm(d, t, i, n);
        OK(MPI_Comm_split(d, me % 2, -me, &s));
        check_comm(s, t, i, (n + 1 - me % 2) / 2);
        int rank;
        OK(MPI_Comm_rank(s, &rank));
        CHECK(rank == ((n + 1 - me % 2) / 2 - 1 - me / 2), "thread %d: split rank %d", t, rank);
        MPI_Group wg, hg;
        OK(MPI_Comm_group(d, &wg));
        int range[1][3] = { { 0, n - 1, 2 } };
        OK(MPI_Group_range_incl(wg, 1, range, &hg));
        OK(MPI_Comm_create_group(d, wg, 100 + t, &g));
        check_comm(g, t, i, n);
        MPI_Comm ge = MPI_COMM_NULL;             /* by the even ranks alone, while the others go on */
        if (me % 2 == 0) {
            OK(MPI_Comm_create_group(d, hg, 200 + t, &ge));
            check_comm(ge, t, i, (n + 1) / 2);
            OK(MPI_Comm_free(&ge));
        }
        OK(MPI_Comm_create(d, hg, &cr));
        if (me % 2 == 0) check_comm(cr, t, i, (n + 1) / 2);
        else CHECK(cr == MPI_COMM_NULL, "thread %d: MPI_Comm_create gave a communicator to a non-member", t);
        MPI_Request r;
        OK(MPI_Comm_idup(s, &id, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        check_comm(id, t, i, (n + 1 - me % 2) / 2);
        /* a window on the thread's communicator: each rank puts its rank into its right neighbour */
        int *base, got = -1;
        MPI_Win w;
        OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, d, &base, &w));
        *base = -1;
        OK(MPI_Win_fence(0, w));
        OK(MPI_Put(&me, 1, MPI_INT, (me + 1) % n, 0, 1, MPI_INT, w));
        OK(MPI_Win_fence(0, w));
        got = *base;
        CHECK(got == (me + n - 1) % n, "thread %d: window got %d", t, got);
        int wkey, wflag;
        void *wv;
        OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkey, NULL));
        OK(MPI_Win_set_attr(w, wkey, (void *)(intptr_t)(t + 1)));
        OK(MPI_Win_get_attr(w, wkey, &wv, &wflag));
        CHECK(wflag && (intptr_t)wv == t + 1, "thread %d: window attribute %ld", t, (long)(intptr_t)wv);
        OK(MPI_Win_free(&w));                    /* deletes the attribute */
        OK(MPI_Win_free_keyval(&wkey));
        OK(MPI_Group_free(&hg));
        OK(MPI_Group_free(&wg));
        OK(MPI_Comm_free(&g));
        if (cr != MPI_COMM_NULL) OK(MPI_Comm_free(&cr));
        OK(MPI_Comm_free(&id));
        OK(MPI_Comm_free(&s));
        OK(MPI_Comm_free(&d));                   /* deletes the copy */
        OK(MPI_Comm_delete_attr(tc[t], key));    /* and the original */
        OK(MPI_Comm_free_keyval(&key));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    for (int t = 0; t < T; t++) OK(MPI_Comm_dup(MPI_COMM_WORLD, &tc[t]));
    pthread_t th[T];
    for (int t = 0; t < T; t++) CHECK(!pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), "pthread_create");
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    CHECK(copies == T * ITER && deletes == 2 * T * ITER, "copy callbacks %d (want %d), delete callbacks %d (want %d)",
          (int)copies, T * ITER, (int)deletes, 2 * T * ITER);
    for (int t = 0; t < T; t++) OK(MPI_Comm_free(&tc[t]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("mpi_threads_comm: %d ranks, %d threads: ok\n", n, T);
    OK(MPI_Finalize());
    return 0;
}
