/* Info objects: set, get (cut to valuelen), order of keys, delete, dup,
 * and passing one to the calls that take hints. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* Info objects: set, get (cut to valuelen), order of keys, delete, dup,
 * and passing one to the calls that take hints. */
static void infos(void)
{
    MPI_Info in, d;
    char key[MPI_MAX_INFO_KEY + 1], val[8];
    int flag, len, nk;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "zeta", "1"));
    OK(MPI_Info_set(in, "alpha", "a long value"));
    OK(MPI_Info_set(in, "zeta", "22"));                 /* replaced, keeps its place */
    OK(MPI_Info_get_nkeys(in, &nk));
    OK(MPI_Info_get_nthkey(in, 0, key));
    CHECK(nk == 2 && !strcmp(key, "zeta"), "nkeys %d, first key '%s'", nk, key);
    OK(MPI_Info_get(in, "zeta", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "22"), "get zeta '%s'", val);
    OK(MPI_Info_get_valuelen(in, "alpha", &len, &flag));
    CHECK(flag && len == 12, "valuelen %d", len);
    OK(MPI_Info_get(in, "alpha", 4, val, &flag));
    CHECK(flag && !strcmp(val, "a lo"), "get cut to valuelen: '%s'", val);
    OK(MPI_Info_get(in, "nope", sizeof val - 1, val, &flag));
    CHECK(!flag, "get of a missing key");
    OK(MPI_Info_dup(in, &d));
    OK(MPI_Info_delete(in, "zeta"));
    OK(MPI_Info_get_nkeys(in, &nk));
    CHECK(nk == 1, "after delete %d keys", nk);
    OK(MPI_Info_get(d, "zeta", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "22"), "dup is a copy");
    MPI_Comm c, c2;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, in, &c));
    OK(MPI_Comm_dup_with_info(c, d, &c2));
    int cmp, one_node = mcheck_nodes(NULL), cs;
    OK(MPI_Comm_size(c, &cs));     /* (the info's keys are no hints: ignored) */
    CHECK(one_node ? cs == n : cs < n, "split_type with an info: %d of %d ranks (one node: %d)", cs, n, one_node);
    OK(MPI_Comm_compare(c, c2, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "dup_with_info compare %d", cmp);
    OK(MPI_Comm_free(&c2));
    void *mem;
    OK(MPI_Alloc_mem(64, d, &mem));
    OK(MPI_Free_mem(mem));
    OK(MPI_Comm_free(&c));
    OK(MPI_Info_free(&in));
    OK(MPI_Info_free(&d));
    CHECK(in == MPI_INFO_NULL, "info_free");
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nk));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    infos();
    OK(MPI_Finalize());
    if (me == 0) printf("test_info: %d ranks ok\n", n);
    return 0;
}
