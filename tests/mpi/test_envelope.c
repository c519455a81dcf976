/* MPI_Type_get_envelope and MPI_Type_get_contents for every constructor:
 * a type rebuilt from its contents has the same typemap; the derived types
 * the contents hand out are the caller's to free. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* Rebuild a type from its envelope and contents: the same typemap. */
static MPI_Datatype rebuild(MPI_Datatype t, int want_combiner)
{
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == want_combiner, "combiner %d, expected %d", comb, want_combiner);
    int ints[64];
    MPI_Aint addrs[16];
    MPI_Datatype types[16], nt = MPI_DATATYPE_NULL;
    CHECK(ni <= 64 && na <= 16 && nd <= 16, "envelope %d %d %d", ni, na, nd);
    OK(MPI_Type_get_contents(t, 64, 16, 16, ints, addrs, types));
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: OK(MPI_Type_contiguous(ints[0], types[0], &nt)); break;
    case MPI_COMBINER_VECTOR: OK(MPI_Type_vector(ints[0], ints[1], ints[2], types[0], &nt)); break;
    case MPI_COMBINER_HVECTOR: OK(MPI_Type_create_hvector(ints[0], ints[1], addrs[0], types[0], &nt)); break;
    case MPI_COMBINER_INDEXED: OK(MPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], types[0], &nt)); break;
    case MPI_COMBINER_HINDEXED: OK(MPI_Type_create_hindexed(ints[0], ints + 1, addrs, types[0], &nt)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        OK(MPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, types[0], &nt)); break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        OK(MPI_Type_create_hindexed_block(ints[0], ints[1], addrs, types[0], &nt)); break;
    case MPI_COMBINER_STRUCT: OK(MPI_Type_create_struct(ints[0], ints + 1, addrs, types, &nt)); break;
    case MPI_COMBINER_SUBARRAY: {
        int d = ints[0];
        OK(MPI_Type_create_subarray(d, ints + 1, ints + 1 + d, ints + 1 + 2 * d, ints[1 + 3 * d], types[0], &nt));
        break;
    }
    case MPI_COMBINER_RESIZED: OK(MPI_Type_create_resized(types[0], addrs[0], addrs[1], &nt)); break;
    case MPI_COMBINER_DUP: OK(MPI_Type_dup(types[0], &nt)); break;
    default: CHECK(0, "combiner %d", comb);
    }
    /* derived types handed out by MPI_Type_get_contents are the caller's to free */
    for (int i = 0; i < nd; i++) {
        int ci, ca, cd, cc;
        OK(MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc));
        if (cc != MPI_COMBINER_NAMED) OK(MPI_Type_free(&types[i]));
    }
    OK(MPI_Type_commit(&nt));
    return nt;
}

/* t and u lay out the same bytes: pack both from one buffer and compare. */
static void same_typemap(MPI_Datatype t, MPI_Datatype u, const char *what)
{
    static unsigned char src[4096], p1[4096], p2[4096];
    for (int i = 0; i < (int)sizeof src; i++) src[i] = (unsigned char)(i * 7 + 3);
    int s1, s2, pos1 = 0, pos2 = 0;
    MPI_Aint lb1, e1, lb2, e2;
    OK(MPI_Type_size(t, &s1));
    OK(MPI_Type_size(u, &s2));
    OK(MPI_Type_get_extent(t, &lb1, &e1));
    OK(MPI_Type_get_extent(u, &lb2, &e2));
    CHECK(s1 == s2 && lb1 == lb2 && e1 == e2, "%s: size %d/%d extent %ld/%ld", what, s1, s2, (long)e1, (long)e2);
    OK(MPI_Pack(src + 256, 2, t, p1, sizeof p1, &pos1, MPI_COMM_WORLD));
    OK(MPI_Pack(src + 256, 2, u, p2, sizeof p2, &pos2, MPI_COMM_WORLD));
    CHECK(pos1 == pos2 && !memcmp(p1, p2, (size_t)pos1), "%s: rebuilt typemap differs", what);
}

static void envelopes(void)
{
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
    int bl[3] = { 2, 1, 3 }, dis[3] = { 5, 0, 9 }, sizes[2] = { 5, 7 }, subs[2] = { 3, 4 }, starts[2] = { 1, 2 };
    MPI_Aint hd[3] = { 40, 0, 17 }, sd[2] = { 0, 8 };
    MPI_Datatype vec, st[2] = { MPI_CHAR, MPI_DOUBLE }, made[11];
    int combs[11] = { MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED,
                      MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
                      MPI_COMBINER_STRUCT, MPI_COMBINER_SUBARRAY, MPI_COMBINER_RESIZED, MPI_COMBINER_DUP };
    OK(MPI_Type_vector(3, 2, 4, MPI_SHORT, &vec));
    OK(MPI_Type_contiguous(3, vec, &made[0]));           /* contents hand back a derived type */
    OK(MPI_Type_vector(4, 2, 3, MPI_INT, &made[1]));
    OK(MPI_Type_create_hvector(3, 2, 24, MPI_FLOAT, &made[2]));
    OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &made[3]));
    OK(MPI_Type_create_hindexed(3, bl, hd, MPI_CHAR, &made[4]));
    OK(MPI_Type_create_indexed_block(3, 2, dis, MPI_SHORT, &made[5]));
    OK(MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &made[6]));
    OK(MPI_Type_create_struct(2, bl, sd, st, &made[7]));
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_CHAR, &made[8]));
    OK(MPI_Type_create_resized(vec, -4, 100, &made[9]));
    OK(MPI_Type_dup(vec, &made[10]));
    OK(MPI_Type_free(&vec));              /* the types made from it keep what they need */
    for (int i = 0; i < 11; i++) {
        char what[32];
        snprintf(what, sizeof what, "combiner %d", combs[i]);
        OK(MPI_Type_commit(&made[i]));
        MPI_Datatype again = rebuild(made[i], combs[i]);
        same_typemap(made[i], again, what);
        OK(MPI_Type_free(&again));
        OK(MPI_Type_free(&made[i]));
    }
    /* hindexed_block moves the right bytes: 3 blocks of 2 chars at 40, 0, 17 */
    OK(MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &vec));
    OK(MPI_Type_commit(&vec));
    char src[64], got[6];
    for (int i = 0; i < 64; i++) src[i] = (char)i;
    OK(MPI_Sendrecv(src, 1, vec, me, 3, got, 6, MPI_CHAR, me, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got[0] == 40 && got[1] == 41 && got[2] == 0 && got[3] == 1 && got[4] == 17 && got[5] == 18,
          "hindexed_block bytes %d %d %d %d %d %d", got[0], got[1], got[2], got[3], got[4], got[5]);
    OK(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    envelopes();
    OK(MPI_Finalize());
    if (me == 0) printf("test_envelope: %d ranks ok\n", n);
    return 0;
}
