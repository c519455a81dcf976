/* Datatypes: every constructor, sent non-contiguous and received both as
 * bytes and as the same type, checked byte for byte against a local
 * pack/unpack (holes untouched); sizes, extents, pack/unpack, pair types. */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "mcheck.h"

static int me, n;
static int private_src;   /* send from a private mapping peers cannot read directly */

/* Send count elements of t around the ring; check the bytes on the wire and
 * the unpacked layout (bytes outside the typemap keep their 0xEE). */
static void roundtrip(MPI_Datatype t, int count, const char *what)
{
    MPI_Aint lb, ext, tlb, text;
    int size;
    OK(MPI_Type_size(t, &size));
    OK(MPI_Type_get_extent(t, &lb, &ext));
    OK(MPI_Type_get_true_extent(t, &tlb, &text));
    size_t span = (size_t)(tlb + text + (count - 1) * ext) + 64;
    unsigned char *src = private_src ? mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                     : malloc(span);
    unsigned char *dst = malloc(span), *want = malloc(span);
    CHECK(src != MAP_FAILED, "mmap");
    unsigned char *packed = malloc((size_t)size * (size_t)count + 1), *wire = malloc((size_t)size * (size_t)count + 1);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    for (size_t i = 0; i < span; i++) src[i] = (unsigned char)(i * 13 + from * 7 + 1);
    int pos = 0;
    OK(MPI_Pack(src, count, t, packed, size * count, &pos, MPI_COMM_WORLD));
    CHECK(pos == size * count, "%s: pack position %d", what, pos);
    for (size_t i = 0; i < span; i++) src[i] = (unsigned char)(i * 13 + me * 7 + 1);
    /* as bytes */
    MPI_Status st;
    OK(MPI_Sendrecv(src, count, t, to, 1, wire, size * count, MPI_BYTE, from, 1, MPI_COMM_WORLD, &st));
    CHECK(!memcmp(wire, packed, (size_t)size * (size_t)count), "%s: bytes on the wire differ", what);
    /* as the type itself */
    memset(dst, 0xEE, span);
    memset(want, 0xEE, span);
    pos = 0;
    OK(MPI_Unpack(packed, size * count, &pos, want, count, t, MPI_COMM_WORLD));
    OK(MPI_Sendrecv(src, count, t, to, 2, dst, count, t, from, 2, MPI_COMM_WORLD, &st));
    CHECK(!memcmp(dst, want, span), "%s: unpacked layout differs", what);
    int c;
    OK(MPI_Get_count(&st, t, &c));
    CHECK(c == count, "%s: get_count %d", what, c);
    if (private_src) munmap(src, span);
    else free(src);
    free(dst), free(want), free(packed), free(wire);
}

static void commit_and_test(MPI_Datatype *t, int count, const char *what)
{
    OK(MPI_Type_commit(t));
    roundtrip(*t, count, what);
    roundtrip(*t, 1, what);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    MPI_Datatype t, u, v;

    {   /* names: predefined ones by their MPI name, derived ones as set (truncated to the limit) */
        char name[MPI_MAX_OBJECT_NAME], longname[300];
        int len;
        OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
        CHECK(!strcmp(name, "MPI_DOUBLE") && len == 10, "predefined name '%s'", name);
        OK(MPI_Type_contiguous(2, MPI_INT, &t));
        OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == 0 && !name[0], "a new type has an empty name: '%s'", name);
        OK(MPI_Type_set_name(t, "pair of ints"));
        OK(MPI_Type_get_name(t, name, &len));
        CHECK(!strcmp(name, "pair of ints") && len == 12, "set name '%s'", name);
        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        OK(MPI_Type_set_name(t, longname));
        OK(MPI_Type_get_name(t, name, &len));
        CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == (size_t)len, "long name truncated to %d", len);
        OK(MPI_Type_free(&t));
    }

    OK(MPI_Type_contiguous(5, MPI_SHORT, &t));
    commit_and_test(&t, 7, "contiguous");
    OK(MPI_Type_vector(8, 1, 8, MPI_DOUBLE, &v));                 /* a matrix column */
    commit_and_test(&v, 3, "vector");
    int sz;
    MPI_Aint lb, ext;
    OK(MPI_Type_size(v, &sz));
    OK(MPI_Type_get_extent(v, &lb, &ext));
    CHECK(sz == 64 && lb == 0 && ext == (7 * 8 + 1) * 8, "vector size %d extent %ld", sz, (long)ext);
    OK(MPI_Type_create_resized(v, 0, sizeof(double), &u));        /* interleaved columns */
    commit_and_test(&u, 8, "resized");
    OK(MPI_Type_free(&u));
    OK(MPI_Type_contiguous(2, v, &u));                            /* types of types */
    commit_and_test(&u, 2, "contiguous of vector");
    OK(MPI_Type_free(&u));
    OK(MPI_Type_free(&v));
    OK(MPI_Type_create_hvector(4, 3, 20, MPI_INT, &v));
    commit_and_test(&v, 5, "hvector");
    OK(MPI_Type_free(&v));
    int bl[3] = { 2, 1, 3 }, dis[3] = { 5, 0, 9 };
    OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &v));
    commit_and_test(&v, 4, "indexed");
    OK(MPI_Type_free(&v));
    MPI_Aint hd[3] = { 40, 0, 17 };
    OK(MPI_Type_create_hindexed(3, bl, hd, MPI_CHAR, &v));
    commit_and_test(&v, 4, "hindexed");
    OK(MPI_Type_free(&v));
    OK(MPI_Type_create_indexed_block(3, 2, dis, MPI_FLOAT, &v));
    commit_and_test(&v, 4, "indexed_block");
    OK(MPI_Type_free(&v));
    struct rec { char c; double d; int i[3]; short s; } recs[4];
    MPI_Aint base, disp[4];
    OK(MPI_Get_address(&recs[0], &base));
    OK(MPI_Get_address(&recs[0].c, &disp[0]));
    OK(MPI_Get_address(&recs[0].d, &disp[1]));
    OK(MPI_Get_address(&recs[0].i, &disp[2]));
    OK(MPI_Get_address(&recs[0].s, &disp[3]));
    for (int i = 0; i < 4; i++) disp[i] -= base;
    int sbl[4] = { 1, 1, 3, 1 };
    MPI_Datatype types[4] = { MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT };
    OK(MPI_Type_create_struct(4, sbl, disp, types, &v));
    OK(MPI_Type_create_resized(v, 0, sizeof(struct rec), &u));
    OK(MPI_Type_free(&v));
    commit_and_test(&u, 4, "struct");
    OK(MPI_Type_size(u, &sz));
    CHECK(sz == 1 + 8 + 12 + 2, "struct size %d", sz);
    OK(MPI_Type_dup(u, &v));
    roundtrip(v, 3, "dup");
    OK(MPI_Type_free(&v));
    OK(MPI_Type_free(&u));
    /* a 3x4 block at (1, 2) of a 5x7 array, in both orders */
    int sizes[2] = { 5, 7 }, subs[2] = { 3, 4 }, starts[2] = { 1, 2 };
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &v));
    OK(MPI_Type_size(v, &sz));
    OK(MPI_Type_get_extent(v, &lb, &ext));
    CHECK(sz == 12 * 4 && lb == 0 && ext == 35 * 4, "subarray size %d extent %ld", sz, (long)ext);
    commit_and_test(&v, 2, "subarray C");
    int arr[35], packed[12], pos = 0;
    for (int i = 0; i < 35; i++) arr[i] = i;
    OK(MPI_Pack(arr, 1, v, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(packed[0] == 1 * 7 + 2 && packed[4] == 2 * 7 + 2 && packed[11] == 3 * 7 + 5, "subarray C layout");
    OK(MPI_Type_free(&v));
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &v));
    commit_and_test(&v, 2, "subarray Fortran");
    pos = 0;
    OK(MPI_Pack(arr, 1, v, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(packed[0] == 2 * 5 + 1 && packed[1] == 2 * 5 + 2 && packed[3] == 3 * 5 + 1, "subarray Fortran layout");
    OK(MPI_Type_free(&v));
    /* a large non-contiguous message goes the single-copy path */
    OK(MPI_Type_vector(50000, 3, 4, MPI_INT, &v));
    commit_and_test(&v, 1, "large vector");
    private_src = 1;                  /* not exposed: packed by the sender instead */
    roundtrip(v, 1, "large vector from private memory");
    private_src = 0;
    OK(MPI_Type_free(&v));
    /* pair types, one with a hole */
    roundtrip(MPI_SHORT_INT, 5, "MPI_SHORT_INT");
    roundtrip(MPI_DOUBLE_INT, 5, "MPI_DOUBLE_INT");
    roundtrip(MPI_LONG_DOUBLE_INT, 3, "MPI_LONG_DOUBLE_INT");
    /* element counts */
    OK(MPI_Type_contiguous(3, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    int x[6] = { 1, 2, 3, 4, 5, 6 }, y[6], c;
    MPI_Status st;
    OK(MPI_Sendrecv(x, 4, MPI_INT, me, 0, y, 2, v, me, 0, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, v, &c));
    CHECK(c == MPI_UNDEFINED, "partial count %d", c);
    OK(MPI_Get_elements(&st, v, &c));
    CHECK(c == 4, "elements %d", c);
    OK(MPI_Type_free(&v));
    /* collectives on a derived type */
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    int z[5] = { me, -1, me, -1, me }, zs[5];
    OK(MPI_Allreduce(z, zs, 1, v, MPI_SUM, MPI_COMM_WORLD));
    CHECK(zs[0] == n * (n - 1) / 2 && zs[2] == zs[0] && zs[4] == zs[0], "allreduce on a vector");
    int w[5] = { 7, -1, 8, -1, 9 };
    if (me) w[0] = w[2] = w[4] = 0;
    OK(MPI_Bcast(w, 1, v, 0, MPI_COMM_WORLD));
    CHECK(w[0] == 7 && w[2] == 8 && w[4] == 9 && w[1] == -1, "bcast on a vector");
    OK(MPI_Type_free(&v));
    OK(MPI_Finalize());
    if (me == 0) printf("test_types: %d ranks ok\n", n);
    return 0;
}
