/* The program's own error classes, codes and strings (MPI 3.1 §8.5):
 * MPI_Add_error_class/code/string, MPI_Error_class and MPI_Error_string on
 * them, MPI_LASTUSEDCODE, a user's handler given a new code, bad input. */
#include <string.h>

#include "mcheck.h"

static int seen;
static void handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    seen = *code;
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int me, cls, code, len, flag, *last;
    char s[MPI_MAX_ERROR_STRING];
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "new class %d not above MPI_ERR_LASTCODE %d", cls, MPI_ERR_LASTCODE);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == cls, "MPI_LASTUSEDCODE %d, not %d", flag ? *last : -1, cls);
    OK(MPI_Error_string(cls, s, &len));
    CHECK(len == 0 && !s[0], "a new class's string is \"%s\", not empty", s);
    OK(MPI_Add_error_code(cls, &code));
    CHECK(code > cls, "new code %d", code);
    int c2;
    OK(MPI_Error_class(code, &c2));
    CHECK(c2 == cls, "the code's class %d, not %d", c2, cls);
    OK(MPI_Error_class(cls, &c2));
    CHECK(c2 == cls, "the class's class %d", c2);
    OK(MPI_Add_error_string(code, "my library's error"));
    OK(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "my library's error") && len == (int)strlen(s), "string \"%s\" (%d)", s, len);
    OK(MPI_Add_error_string(code, "replaced"));
    OK(MPI_Error_string(code, s, &len));
    CHECK(!strcmp(s, "replaced"), "string \"%s\" after replacing", s);
    int pcode;                                           /* a code of a predefined class */
    OK(MPI_Add_error_code(MPI_ERR_OTHER, &pcode));
    OK(MPI_Error_class(pcode, &c2));
    CHECK(c2 == MPI_ERR_OTHER, "class of a code of MPI_ERR_OTHER: %d", c2);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(*last == pcode, "MPI_LASTUSEDCODE %d, not %d", *last, pcode);
    /* a user's handler receives the program's code */
    MPI_Errhandler eh;
    OK(MPI_Comm_create_errhandler(handler, &eh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
    CHECK(seen == code, "the handler saw %d, not %d", seen, code);
    /* bad input, returned */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&eh));
    int e;
    MPI_Error_class(MPI_Add_error_code(code, &c2), &e);  /* a code is not a class */
    CHECK(e == MPI_ERR_ARG, "a code as a class: %d", e);
    MPI_Error_class(MPI_Add_error_code(123456, &c2), &e);
    CHECK(e == MPI_ERR_ARG, "class 123456: %d", e);
    MPI_Error_class(MPI_Add_error_string(MPI_ERR_TYPE, "no"), &e);
    CHECK(e == MPI_ERR_ARG, "a string for a predefined class: %d", e);
    char big[MPI_MAX_ERROR_STRING + 8];
    memset(big, 'x', sizeof big - 1), big[sizeof big - 1] = 0;
    MPI_Error_class(MPI_Add_error_string(code, big), &e);
    CHECK(e == MPI_ERR_ARG, "an overlong string: %d", e);
    MPI_Error_class(MPI_Add_error_class(NULL), &e);
    CHECK(e == MPI_ERR_ARG, "NULL class: %d", e);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("mpi_errclass: ok\n");
    OK(MPI_Finalize());
    return 0;
}
