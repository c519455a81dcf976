/* Reduction operations: MPI_Op handles, user functions, and the translation
 * of a predefined (MPI_Op, datatype) to the collective engine's (type, op),
 * whose kernel table does the arithmetic (src/coll/kernels.c). */
#include <stdlib.h>
#include <wchar.h>

#include "smpi.h"

#define OPNUM(o) ((int)(intptr_t)(o))

/* The type categories of MPI-3.1 §5.9.2, and what each allows. */
enum { K_NONE, K_INT, K_MULTI, K_FLOAT, K_COMPLEX, K_LOGICAL, K_BYTE, K_PAIR };
#define B(op) (1u << (op))
static const unsigned allowed[] = {
    [K_INT] = B(COLL_MAX) | B(COLL_MIN) | B(COLL_SUM) | B(COLL_PROD) | B(COLL_LAND) | B(COLL_LOR) | B(COLL_LXOR) |
              B(COLL_BAND) | B(COLL_BOR) | B(COLL_BXOR),
    [K_MULTI] = B(COLL_MAX) | B(COLL_MIN) | B(COLL_SUM) | B(COLL_PROD) | B(COLL_BAND) | B(COLL_BOR) | B(COLL_BXOR),
    [K_FLOAT] = B(COLL_MAX) | B(COLL_MIN) | B(COLL_SUM) | B(COLL_PROD),
    [K_COMPLEX] = B(COLL_SUM) | B(COLL_PROD),
    [K_LOGICAL] = B(COLL_LAND) | B(COLL_LOR) | B(COLL_LXOR),
    [K_BYTE] = B(COLL_BAND) | B(COLL_BOR) | B(COLL_BXOR),
    [K_PAIR] = B(COLL_MINLOC) | B(COLL_MAXLOC),
};

/* Predefined datatype id (mpi.h) -> the engine's type and the category. */
static int category(int id, enum coll_dtype *t)
{
#define C(n, T, k) case n: *t = COLL_DTYPE_OF(T); return k;
    switch (id) {
    /* MPI_CHAR and MPI_WCHAR are in no category of the standard; taken as
     * integers, as MPICH and Open MPI do. */
    C(1, char, K_INT) C(2, signed char, K_INT) C(3, unsigned char, K_INT) C(4, unsigned char, K_BYTE)
    C(5, wchar_t, K_INT) C(6, short, K_INT) C(7, unsigned short, K_INT) C(8, int, K_INT) C(9, unsigned, K_INT)
    C(10, long, K_INT) C(11, unsigned long, K_INT) C(12, long long, K_INT) C(13, unsigned long long, K_INT)
    C(14, float, K_FLOAT) C(15, double, K_FLOAT) C(16, long double, K_FLOAT)
    C(17, int8_t, K_INT) C(18, int16_t, K_INT) C(19, int32_t, K_INT) C(20, int64_t, K_INT)
    C(21, uint8_t, K_INT) C(22, uint16_t, K_INT) C(23, uint32_t, K_INT) C(24, uint64_t, K_INT)
    C(25, _Bool, K_LOGICAL)
    C(26, float _Complex, K_COMPLEX) C(27, double _Complex, K_COMPLEX) C(28, long double _Complex, K_COMPLEX)
    C(29, MPI_Aint, K_MULTI) C(30, MPI_Offset, K_MULTI) C(31, MPI_Count, K_MULTI)
    case 33: *t = COLL_FLOAT_INT; return K_PAIR;
    case 34: *t = COLL_DOUBLE_INT; return K_PAIR;
    case 35: *t = COLL_LONG_INT; return K_PAIR;
    case 36: *t = COLL_2INT; return K_PAIR;
    case 37: *t = COLL_SHORT_INT; return K_PAIR;
    case 38: *t = COLL_LDOUBLE_INT; return K_PAIR;
    default: return K_NONE;              /* MPI_PACKED */
    }
#undef C
}

/* MPI_MAX .. MPI_MAXLOC (1 .. 12) -> the engine's op. */
static const enum coll_redop redop[] = {
    [1] = COLL_MAX, [2] = COLL_MIN, [3] = COLL_SUM, [4] = COLL_PROD, [5] = COLL_LAND, [6] = COLL_BAND,
    [7] = COLL_LOR, [8] = COLL_BOR, [9] = COLL_LXOR, [10] = COLL_BXOR, [11] = COLL_MINLOC, [12] = COLL_MAXLOC,
};
static const char *const op_name[] = {
    "MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR",
    "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP",
};

/* A user function: inout = in op inout on n elements of the datatype (the
 * addresses its typemap is relative to, as in a buffer of the program's). */
static void apply_user(const void *in, void *inout, size_t n, const void *ctx)
{
    const struct smpi_uop *u = ctx;
    MPI_Datatype t = u->type;
    int len = (int)n;
    u->op->fn((void *)in, inout, &len, &t);
}

int smpi_op_prepare(struct smpi_comm *c, MPI_Op op, MPI_Datatype h, const struct smpi_type *t, const char *R,
                    struct smpi_red *out)
{
    if ((uintptr_t)op >= 4096) {
        if (!smpi_object(op, sizeof *op) || op->magic != SMPI_MAGIC_OP)
            return smpi_error(c, MPI_ERR_OP, R, "invalid operation %p", (void *)op);
        /* Applied in rank order, so non-commutative operations are fine too.
         * The function sees elements in the datatype's own layout, an extent apart. */
        if (smpi_extent(t) <= 0 && t->dt->size)
            return smpi_error(c, MPI_ERR_TYPE, R, "user operations need a positive extent, not %ld",
                              (long)smpi_extent(t));
        *out = (struct smpi_red){ .op = COLL_USER, .uop = { op, h } };
        out->fn = (struct coll_fn){ apply_user, &out->uop, (size_t)smpi_extent(t) };
        return MPI_SUCCESS;
    }
    int o = OPNUM(op);
    if (o < 1 || o > OPNUM(MPI_NO_OP))
        return smpi_error(c, MPI_ERR_OP, R, "invalid operation %s", smpi_hstr((const void *)op, "MPI_OP_NULL"));
    if (o > OPNUM(MPI_MAXLOC))
        return smpi_error(c, MPI_ERR_OP, R, "%s is for one-sided accumulate only", op_name[o]);
    if (t->dt->basic < 1) return smpi_error(c, MPI_ERR_TYPE, R, "reductions need a predefined element type");
    enum coll_dtype ct = COLL_INT8;
    int k = category(t->dt->basic, &ct);
    if (!(allowed[k] & B(redop[o])))
        return smpi_error(c, MPI_ERR_OP, R, "%s is not defined on %s", op_name[o], smpi_types[t->dt->basic].name);
    /* (out->fn stays empty: the engine takes a predefined op's kernel from
     * type and op itself; looking it up here too was a call per reduction) */
    *out = (struct smpi_red){ .predefined = true, .type = ct, .op = redop[o] };
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    if (!user_fn || !op) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Op_create", "NULL argument");
    struct smpi_op *o = calloc(1, sizeof *o);
    if (!o) return smpi_error(NULL, MPI_ERR_NO_MEM, "MPI_Op_create", "no memory");
    o->magic = SMPI_MAGIC_OP, o->fn = user_fn, o->commute = commute;
    *op = o;
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_free(MPI_Op *op)
{
    if (!op || !smpi_object(*op, sizeof **op) || (*op)->magic != SMPI_MAGIC_OP)
        return smpi_error(NULL, MPI_ERR_OP, "MPI_Op_free", "not a user-defined operation");
    (*op)->magic = 0;
    free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_free = PMPI_Op_free

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char R[] = "MPI_Op_commutative";
    if (!commute) return smpi_error(NULL, MPI_ERR_ARG, R, "commute is NULL");
    if ((uintptr_t)op >= 4096) {
        if (!smpi_object(op, sizeof *op) || op->magic != SMPI_MAGIC_OP)
            return smpi_error(NULL, MPI_ERR_OP, R, "invalid operation %p", (void *)op);
        *commute = op->commute != 0;
    } else if (op == MPI_OP_NULL || OPNUM(op) > OPNUM(MPI_NO_OP)) {
        return smpi_error(NULL, MPI_ERR_OP, R, "invalid operation %s", smpi_hstr((const void *)op, "MPI_OP_NULL"));
    } else *commute = 1;                 /* every predefined operation commutes */
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

/* One-sided accumulate (MPI 3.1 §11.3.4): a predefined operation, MPI_REPLACE
 * or MPI_NO_OP (any predefined type), never a user's. */
const char *smpi_op_accumulate(MPI_Op op, int id, enum coll_dtype *t, enum coll_redop *rop, int *cls)
{
    static __thread char why[128];
    int o = OPNUM(op);
    *cls = MPI_ERR_OP;
    if ((uintptr_t)op >= 4096) return "user-defined operations are not allowed in one-sided accumulates";
    if (o < 1 || o > OPNUM(MPI_NO_OP)) {
        snprintf(why, sizeof why, "invalid operation %s", smpi_hstr((const void *)op, "MPI_OP_NULL"));
        return why;
    }
    int k = category(id, t);
    if (k == K_BYTE) k = K_INT;   /* unsigned 8-bit integers here, as MPICH and Open MPI (and mpi4py's suite) take them */
    if (o > OPNUM(MPI_MAXLOC)) {
        *rop = o == OPNUM(MPI_REPLACE) ? COLL_REDOP_COUNT : COLL_REDOP_COUNT + 1;
        return NULL;
    }
    if (!(allowed[k] & B(redop[o]))) {
        snprintf(why, sizeof why, "%s is not defined on %s", op_name[o], smpi_types[id].name);
        return why;
    }
    *rop = redop[o];
    return NULL;
}
