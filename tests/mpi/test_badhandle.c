/* Bogus handles (0x12345, 0xdeadbeef, the address of a stack variable, a
 * malloc'd block) given for a datatype, a communicator, an operation, a
 * group, an info, an error handler, a window, a request and a message
 * (also a copy of one already received): each call returns the right error class under
 * MPI_ERRORS_RETURN, never reading them. With "fatal" (the default
 * handler), the first one ends the job with one line naming the routine. */
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

#define EXPECT_CLASS(call, want) do { \
    int rc_ = (call), cls_; MPI_Error_class(rc_, &cls_); \
    CHECK(cls_ == (want), "%s: error class %d, expected %d (%s)", #call, cls_, (want), #want); } while (0)

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        int x = 0;
        MPI_Send(&x, 1, (MPI_Datatype)(uintptr_t)0xdeadbeef, 0, 0, MPI_COMM_WORLD);
        return 3;                          /* not reached */
    }
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int me, x = 1, y, n;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    long on_stack[4];
    void *block = calloc(1, 256);          /* in the heap, where the library's objects are */
    const uintptr_t bogus[] = { 0x12345, 0xdeadbeef, (uintptr_t)on_stack, (uintptr_t)on_stack + 3, (uintptr_t)block };
    for (size_t k = 0; k < sizeof bogus / sizeof bogus[0]; k++) {
        uintptr_t b = bogus[k];
        EXPECT_CLASS(MPI_Send(&x, 1, (MPI_Datatype)b, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
        EXPECT_CLASS(MPI_Type_size((MPI_Datatype)b, &n), MPI_ERR_TYPE);
        EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, (MPI_Comm)b), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Comm_size((MPI_Comm)b, &n), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Allreduce(&x, &y, 1, MPI_INT, (MPI_Op)b, MPI_COMM_WORLD), MPI_ERR_OP);
        MPI_Op op = (MPI_Op)b;
        EXPECT_CLASS(MPI_Op_free(&op), MPI_ERR_OP);
        EXPECT_CLASS(MPI_Group_size((MPI_Group)b, &n), MPI_ERR_GROUP);
        EXPECT_CLASS(MPI_Info_set((MPI_Info)b, "key", "value"), MPI_ERR_INFO);
        MPI_Request r = (MPI_Request)b, rs[2] = { MPI_REQUEST_NULL, (MPI_Request)b };
        int flag, index;
        EXPECT_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Waitany(2, rs, &index, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Testsome(2, rs, &n, &index, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Start(&r), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST);
        MPI_Message m = (MPI_Message)b;
        EXPECT_CLASS(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Imrecv(&y, 1, MPI_INT, &m, &r), MPI_ERR_REQUEST);
        EXPECT_CLASS(MPI_Win_fence(0, (MPI_Win)b), MPI_ERR_WIN);
        MPI_Win w = (MPI_Win)b;
        EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_WIN);
        MPI_Errhandler e = (MPI_Errhandler)b;
        EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, e), MPI_ERR_ARG);
        EXPECT_CLASS(MPI_Errhandler_free(&e), MPI_ERR_ARG);
    }
    /* A message handle is good for one receive: a copy of it is refused after. */
    MPI_Message m, copy;
    MPI_Request sr;
    OK(MPI_Isend(&x, 1, MPI_INT, me, 7, MPI_COMM_WORLD, &sr));
    OK(MPI_Mprobe(me, 7, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    copy = m;
    OK(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK(y == x && m == MPI_MESSAGE_NULL, "Mrecv after Mprobe: %d", y);
    EXPECT_CLASS(MPI_Mrecv(&y, 1, MPI_INT, &copy, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    free(block);
    /* Real handles still work after all that. */
    OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(y == n, "allreduce %d on %d ranks", y, n);
    OK(MPI_Finalize());
    if (me == 0) printf("test_badhandle: every bogus handle refused\n");
    return 0;
}
