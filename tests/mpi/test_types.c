/* Datatypes: every constructor, sent non-contiguous and received both as
 * bytes and as the same type, checked byte for byte against a local
 * pack/unpack (holes untouched); sizes, extents, pack/unpack, pair types;
 * the alignment rule for struct extents, empty first blocks, and the
 * contents of types whose components were freed. */
#include <limits.h>
#include <stdbool.h>
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

static void extent_is(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, int size, const char *what)
{
    MPI_Aint l, e;
    int sz;
    OK(MPI_Type_get_extent(t, &l, &e));
    OK(MPI_Type_size(t, &sz));
    CHECK(l == lb && e == extent && sz == size, "%s: lb %ld extent %ld size %d, expected %ld %ld %d", what, (long)l,
          (long)e, sz, (long)lb, (long)extent, size);
}

/* MPI-3.1 §4.1.6: a struct's upper bound is padded to the strictest
 * alignment of its members, as the C compiler pads the C struct; so arrays
 * of the struct type travel element by element. Explicit bounds (resized)
 * are never padded. */
static void struct_alignment(void)
{
    struct li { long v; int i; } x[3], y[3];
    struct ldi { long double v; int i; };
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { offsetof(struct li, v), offsetof(struct li, i) };
    MPI_Datatype ty[2] = { MPI_LONG, MPI_INT }, t, r;
    OK(MPI_Type_create_struct(2, bl, d, ty, &t));
    OK(MPI_Type_commit(&t));
    extent_is(t, 0, sizeof(struct li), 12, "{long, int}");
    for (int i = 0; i < 3; i++) x[i] = (struct li){ 1000L * me + i, -i }, y[i] = (struct li){ -1, -1 };
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Sendrecv(x, 3, t, to, 3, y, 3, t, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) CHECK(y[i].v == 1000L * from + i && y[i].i == -i, "{long, int}[%d]", i);
    OK(MPI_Type_free(&t));
    ty[0] = MPI_LONG_DOUBLE;
    d[1] = offsetof(struct ldi, i);
    OK(MPI_Type_create_struct(2, bl, d, ty, &t));
    extent_is(t, 0, sizeof(struct ldi), (int)sizeof(long double) + 4, "{long double, int}");
    OK(MPI_Type_free(&t));
    /* a member with explicit bounds: its markers decide, no padding */
    OK(MPI_Type_create_resized(MPI_DOUBLE, 0, 9, &r));
    ty[0] = r, ty[1] = MPI_CHAR, d[0] = 0, d[1] = 9;
    OK(MPI_Type_create_struct(2, bl, d, ty, &t));
    extent_is(t, 0, 9, 9, "{resized(double, 0, 9), char at 9}");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free(&r));
    /* the pair types are the C structs */
    extent_is(MPI_LONG_INT, 0, sizeof(struct li), 12, "MPI_LONG_INT");
    extent_is(MPI_LONG_DOUBLE_INT, 0, sizeof(struct ldi), (int)sizeof(long double) + 4, "MPI_LONG_DOUBLE_INT");
}

/* An indexed type whose first block is empty commits and has the size and
 * bounds of its other blocks; zero-length blocks anywhere are no data. */
static void empty_first_block(void)
{
    int bl[3] = { 0, 2, 0 }, dis[3] = { 5, 1, 9 };
    MPI_Datatype t;
    OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    extent_is(t, 4, 8, 8, "indexed {0 at 5, 2 at 1, 0 at 9}");
    int src[4] = { 10 + me, 11 + me, 12 + me, 13 + me }, dst[4] = { -1, -1, -1, -1 };
    OK(MPI_Sendrecv(src, 1, t, me, 4, dst, 1, t, me, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(dst[0] == -1 && dst[1] == 11 + me && dst[2] == 12 + me && dst[3] == -1, "indexed data %d %d %d %d", dst[0],
          dst[1], dst[2], dst[3]);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_indexed(1, bl, dis, MPI_INT, &t));       /* nothing at all */
    OK(MPI_Type_commit(&t));
    extent_is(t, 0, 0, 0, "indexed {0 at 5}");
    OK(MPI_Type_free(&t));
    /* empty blocks far away (as MPICH's indexed_misc tests): they add nothing */
    int len[3] = { 0, 4, 0 }, far[3] = { INT_MAX, 2, INT_MAX };
    MPI_Aint hfar[3] = { LLONG_MAX, 2 * sizeof(int), LLONG_MAX };
    OK(MPI_Type_indexed(3, len, far, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    extent_is(t, 2 * sizeof(int), 4 * sizeof(int), 4 * sizeof(int), "indexed {0 at INT_MAX, 4 at 2, 0 at INT_MAX}");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_create_hindexed(3, len, hfar, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    extent_is(t, 2 * sizeof(int), 4 * sizeof(int), 4 * sizeof(int), "hindexed {0 at LLONG_MAX, ...}");
    OK(MPI_Type_free(&t));
}

/* Decode a type all the way down (as mpi4py's Datatype.decode() does),
 * freeing every derived handle it is given; true if it found a predefined want. */
static bool decode(MPI_Datatype t, MPI_Datatype want, int depth)
{
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    if (comb == MPI_COMBINER_NAMED) return t == want;
    CHECK(depth < 8 && ni <= 16 && na <= 16 && nd <= 16, "envelope %d %d %d", ni, na, nd);
    int ints[16];
    MPI_Aint addrs[16];
    MPI_Datatype types[16];
    OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    bool found = false;
    for (int i = 0; i < nd; i++) {
        found = decode(types[i], want, depth + 1) || found;
        int ci, ca, cd, cc;
        OK(MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc));
        if (cc != MPI_COMBINER_NAMED) OK(MPI_Type_free(&types[i]));
    }
    return found;
}

/* MPI_Type_get_contents on a struct whose component handles were freed:
 * the contents still name usable types, handed out as new handles. */
static void contents_of_freed(void)
{
    MPI_Datatype vec, pair, st, got[2];
    int bl[2] = { 1, 2 }, ints[3];
    MPI_Aint d[2] = { 0, 64 }, addrs[2];
    OK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &vec));
    OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pair));
    MPI_Datatype ty[2] = { vec, pair };
    OK(MPI_Type_create_struct(2, bl, d, ty, &st));
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&pair));
    CHECK(decode(st, MPI_DOUBLE_INT, 0) && decode(st, MPI_SHORT, 0), "decode lost a component");
    OK(MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, got));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && addrs[1] == 64, "struct contents");
    /* a handed-out type is a type like any other: commit, send, free */
    OK(MPI_Type_commit(&got[0]));
    short s[6] = { 1, 2, 3, 4, 5, 6 }, r[3];
    OK(MPI_Sendrecv(s, 1, got[0], me, 5, r, 3, MPI_SHORT, me, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r[0] == 1 && r[1] == 3 && r[2] == 5, "a vector from the contents: %d %d %d", r[0], r[1], r[2]);
    OK(MPI_Type_free(&got[0]));
    OK(MPI_Type_free(&got[1]));
    OK(MPI_Type_free(&st));
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
    struct_alignment();
    empty_first_block();
    contents_of_freed();
    OK(MPI_Finalize());
    if (me == 0) printf("test_types: %d ranks ok\n", n);
    return 0;
}
