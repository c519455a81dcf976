/* The lifecycle clients of smartmap.h (sm_finalize_required/done): each
 * library registers its finalize routine and deregisters it, in any order;
 * bad names and bad sequences are refused with a code and one line each (the
 * driver counts the lines). With "leave", the program registers a client and
 * exits without deregistering it: smrun must name the routine and fail. */
#include <string.h>
#include "check.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "leave")) {
        CHECK(sm_finalize_required("lib_finalize") == SM_OK, "register");
        CHECK(sm_finalize_required("other_finalize") == SM_OK, "register a second");
        CHECK(sm_finalize_done("lib_finalize") == SM_OK, "deregister the first");
        sm_barrier();
        return 0;                 /* smrun: "exited without calling other_finalize" */
    }
    /* 5 lines: bad names and a wrong sequence */
    CHECK(sm_finalize_required(NULL) == SM_ERR_ARG, "NULL name");
    CHECK(sm_finalize_required("") == SM_ERR_ARG, "empty name");
    CHECK(sm_finalize_required("a_finalize_routine_named_at_length") == SM_ERR_ARG, "name too long");
    CHECK(sm_finalize_done("never_required") == SM_ERR_STATE, "done before required");
    CHECK(sm_finalize_required("A_finalize") == SM_OK, "A");
    CHECK(sm_finalize_required("A_finalize") == SM_ERR_STATE, "A twice");
    /* 4 at a time; a slot freed is reused; any order */
    CHECK(sm_finalize_required("B_finalize") == SM_OK, "B");
    CHECK(sm_finalize_required("C_finalize") == SM_OK, "C");
    CHECK(sm_finalize_required("D_finalize") == SM_OK, "D");
    CHECK(sm_finalize_required("E_finalize") == SM_ERR_STATE, "a fifth");   /* 6th line */
    CHECK(sm_finalize_done("B_finalize") == SM_OK, "B done");
    CHECK(sm_finalize_required("E_finalize") == SM_OK, "E in B's place");
    CHECK(sm_finalize_done("A_finalize") == SM_OK && sm_finalize_done("E_finalize") == SM_OK &&
          sm_finalize_done("D_finalize") == SM_OK && sm_finalize_done("C_finalize") == SM_OK, "all done");
    CHECK(sm_finalize_done("C_finalize") == SM_ERR_STATE, "C done twice");   /* 7th line */
    sm_barrier();
    if (sm_rank() == 0) printf("clients: ok\n");
    return 0;                     /* every client done: a clean exit */
}
