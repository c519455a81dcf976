/* test_armci_bad.c: bad input to ARMCI, and a process that dies. Each
 * case makes one mistake (in process 1 unless it is a collective one),
 * which must end the job with one line naming the routine and the value
 * (tests/armci/CMakeLists.txt checks the line and the exit code); the
 * other processes wait in a barrier that never completes.
 * Usage: test_armci_bad CASE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <armci.h>

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "before") && armci_msg_me() == 1) {   /* a put before ARMCI_Init */
        int v = 0;
        ARMCI_Put(&v, &v, sizeof v, 0);
        return 0;
    }
    ARMCI_Init();
    int me = armci_msg_me(), n = armci_msg_nproc();
    void **p = malloc(sizeof *p * (size_t)n);
    ARMCI_Malloc(p, 256);
    char buf[512] = { 0 };
    int ok = 0;
    if (me == 1) {
        int st[9] = { 8, 8, 8, 8, 8, 8, 8, 8, 8 }, cnt[10] = { 8, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
        int one = 1, loc;
        armci_giov_t iov = { (void *[]){ buf }, (void *[]){ p[0] }, -4, 1 };
        if (!strcmp(c, "proc")) ARMCI_Put(buf, p[0], 8, n);
        else if (!strcmp(c, "proc_neg")) ARMCI_Get(p[0], buf, 8, -1);
        else if (!strcmp(c, "size")) ARMCI_Put(buf, p[0], -3, 0);
        else if (!strcmp(c, "local")) ARMCI_Put(buf, buf + 64, 8, 0);             /* not ARMCI memory */
        else if (!strcmp(c, "wrong_proc")) ARMCI_Put(buf, p[0], 8, 2 % n);       /* process 0's address, to process 2 */
        else if (!strcmp(c, "beyond")) ARMCI_Get((char *)p[0] + 200, buf, 100, 0);
        else if (!strcmp(c, "levels")) ARMCI_PutS(buf, st, p[0], st, cnt, 9, 0);
        else if (!strcmp(c, "count")) { cnt[1] = -2; ARMCI_GetS(p[0], st, buf, st, cnt, 1, 0); }
        else if (!strcmp(c, "stride")) { st[0] = 0; cnt[1] = 2; ARMCI_PutS(buf, st, p[0], st, cnt, 1, 0); }
        else if (!strcmp(c, "acc_type")) ARMCI_Acc(9, &one, buf, p[0], 8, 0);
        else if (!strcmp(c, "acc_bytes")) ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, p[0], 12, 0);
        else if (!strcmp(c, "vector")) ARMCI_PutV(&iov, 1, 0);
        else if (!strcmp(c, "rmw_op")) ARMCI_Rmw(7, &loc, p[0], 1, 0);
        else if (!strcmp(c, "rmw_align")) ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &loc, (char *)p[0] + 4, 1, 0);
        else if (!strcmp(c, "nomutex")) ARMCI_Lock(0, 0);
        else if (!strcmp(c, "fence")) ARMCI_Fence(n + 5);
        else if (!strcmp(c, "absid")) { ARMCI_Group w; ARMCI_Group_get_world(&w); ARMCI_Absolute_id(&w, n); }
        else if (!strcmp(c, "error")) ARMCI_Error("the program gave up", 42);
        else if (!strcmp(c, "nofinalize")) return 0;   /* exits without ARMCI_Finalize */
        else ok = 1;
    } else {
        ok = 1;
    }
    if (!strcmp(c, "mutex_twice") || !strcmp(c, "unlock") || !strcmp(c, "mutex_range")) {
        ARMCI_Create_mutexes(2);
        if (me == 1) {
            if (!strcmp(c, "mutex_twice")) ARMCI_Lock(1, 0), ARMCI_Lock(1, 0);
            else if (!strcmp(c, "unlock")) ARMCI_Unlock(0, 0);
            else ARMCI_Lock(2, 0);
        }
    }
    if (!strcmp(c, "die")) {   /* process 1 dies holding a mutex the others wait for: the job ends */
        ARMCI_Create_mutexes(1);
        if (me == 1) ARMCI_Lock(0, 0), abort();
        ARMCI_Barrier();
        ARMCI_Lock(0, 0);
    }
    if (!strcmp(c, "free")) ARMCI_Free(me == 1 ? buf : p[me]);   /* process 1 frees an address ARMCI did not give */
    if (!strcmp(c, "free_mismatch")) {   /* process 1 frees another allocation than the others */
        void **q = malloc(sizeof *q * (size_t)n);
        ARMCI_Malloc(q, 64);
        ARMCI_Free(me == 1 ? q[me] : p[me]);
    }
    if (!strcmp(c, "group")) {
        int pids[2] = { 0, me == 1 ? n : 1 };
        ARMCI_Group g;
        ARMCI_Group_create(2, pids, &g);
    }
    if (!strcmp(c, "after")) {
        ARMCI_Finalize();
        if (me == 1) ARMCI_Barrier();
        return 0;
    }
    if (!strcmp(c, "msg_no_mpi") && me == 1) armci_msg_snd(1, buf, 4, 0);
    if (ok) ARMCI_Barrier();   /* everyone but the process at fault: ended by it */
    ARMCI_Finalize();
    return 0;
}
