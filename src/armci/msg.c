/* msg.c: ARMCI's message-passing routines (message.h): the collectives on
 * the collective engine over ARMCI groups (no MPI needed), the
 * point-to-point ones on MPI's public interface (MPI needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armci_internal.h"

int armci_msg_me(void) { sm_core_ensure(); return sm_core.rank; }
int armci_msg_nproc(void) { sm_core_ensure(); return sm_core.world_size; }

void armci_msg_abort(int code)
{
    char msg[48];
    snprintf(msg, sizeof msg, "armci_msg_abort(%d)", code);
    ARMCI_Error(msg, code);
}

double armci_timer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void done(sm_status_t st, const char *routine)
{
    if (SM_UNLIKELY(st)) armci_fail_status(routine, st);
}

static void check_scope(int scope, const char *r)
{
    if (scope != SCOPE_ALL && scope != SCOPE_NODE && scope != SCOPE_MASTERS)
        armci_fail("%s: scope %d is not one of SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS", r, scope);
}

/* --- Point-to-point, on MPI ------------------------------------------------------------ */
static MPI_Comm msg_comm(const char *r)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) armci_fail("%s: ARMCI's messages travel on MPI here: MPI must be initialised", r);
    armci_require_init(r);
    return armci_group_comm(&armci_world);
}

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    PMPI_Send(buffer, len, MPI_BYTE, to, tag, msg_comm("armci_msg_snd"));
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    MPI_Status st;
    PMPI_Recv(buffer, buflen, MPI_BYTE, from, tag, msg_comm("armci_msg_rcv"), &st);
    if (msglen) PMPI_Get_count(&st, MPI_BYTE, msglen);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    MPI_Status st;
    PMPI_Recv(buffer, buflen, MPI_BYTE, MPI_ANY_SOURCE, tag, msg_comm("armci_msg_rcvany"), &st);
    if (msglen) PMPI_Get_count(&st, MPI_BYTE, msglen);
    return st.MPI_SOURCE;
}

/* --- Barriers and broadcasts ------------------------------------------------------------- */
void parmci_msg_group_barrier(ARMCI_Group *group)
{
    struct armci_igroup *g = armci_group_check(group, "armci_msg_group_barrier");
    armci_quiet("armci_msg_group_barrier");
    done(coll_barrier(&g->cg), "armci_msg_group_barrier");
}
void parmci_msg_barrier(void) { parmci_msg_group_barrier(&armci_world); }
#pragma weak armci_msg_barrier = parmci_msg_barrier
#pragma weak armci_msg_group_barrier = parmci_msg_group_barrier

static void bcast(void *buf, int len, int root, ARMCI_Group *group, const char *r)
{
    struct armci_igroup *g = armci_group_check(group, r);
    if (len < 0) armci_fail("%s: len %d is negative", r, len);
    if (len && !buf) armci_fail("%s: buffer is NULL", r);
    int gr = armci_group_rank_of(g, root);
    if (gr < 0) armci_fail("%s: root %d is not a process of the group", r, root);
    done(coll_bcast(&g->cg, buf, buf, (size_t)len, gr), r);
}
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    check_scope(scope, "armci_msg_group_bcast_scope");
    bcast(buf, len, root, group, "armci_msg_group_bcast_scope");
}
void armci_msg_bcast(void *buffer, int len, int root) { bcast(buffer, len, root, &armci_world, "armci_msg_bcast"); }
void armci_msg_brdcst(void *buffer, int len, int root) { bcast(buffer, len, root, &armci_world, "armci_msg_brdcst"); }
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    check_scope(scope, "armci_msg_bcast_scope");
    bcast(buffer, len, root, &armci_world, "armci_msg_bcast_scope");
}

void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    check_scope(scope, "armci_msg_bintree");
    int me = armci_msg_me(), n = armci_msg_nproc();
    *Root = 0;
    *Up = me == 0 ? -1 : (me - 1) / 2;
    *Left = 2 * me + 1 < n ? 2 * me + 1 : -1;
    *Right = 2 * me + 2 < n ? 2 * me + 2 : -1;
}

/* --- Reductions ----------------------------------------------------------------------------- */
static enum coll_dtype msg_dtype(int type, const char *r)
{
    switch (type) {
    case ARMCI_INT: return COLL_DTYPE_OF(int);
    case ARMCI_LONG: return COLL_DTYPE_OF(long);
    case ARMCI_LONG_LONG: return COLL_DTYPE_OF(long long);
    case ARMCI_FLOAT: return COLL_FLOAT;
    case ARMCI_DOUBLE: return COLL_DOUBLE;
    default: armci_fail("%s: type %d is not one of ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE",
                        r, type);
    }
}

/* x[i] = |x[i]| (absmax, absmin). */
static void absolute(void *x, int n, int type)
{
#define ABS_LOOP(T) for (int i = 0; i < n; i++) if (((T *)x)[i] < 0) ((T *)x)[i] = -((T *)x)[i]; break
    switch (type) {
    case ARMCI_INT: ABS_LOOP(int);
    case ARMCI_LONG: ABS_LOOP(long);
    case ARMCI_LONG_LONG: ABS_LOOP(long long);
    case ARMCI_FLOAT: ABS_LOOP(float);
    default: ABS_LOOP(double);
    }
#undef ABS_LOOP
}

static void gop(void *x, int n, const char *op, int type, ARMCI_Group *group, int root, const char *r)
{
    struct armci_igroup *g = armci_group_check(group, r);
    enum coll_dtype t = msg_dtype(type, r);
    if (n < 0) armci_fail("%s: n %d is negative", r, n);
    if (n && !x) armci_fail("%s: x is NULL", r);
    if (!op) armci_fail("%s: op is NULL", r);
    bool integer = type != ARMCI_FLOAT && type != ARMCI_DOUBLE, abs = !strncmp(op, "abs", 3);
    enum coll_redop o;
    if (op[0] == '+') o = COLL_SUM;
    else if (op[0] == '*') o = COLL_PROD;
    else if (!strncmp(op + 3 * abs, "max", 3)) o = COLL_MAX;
    else if (!strncmp(op + 3 * abs, "min", 3)) o = COLL_MIN;
    else if (integer && !strcmp(op, "or")) o = COLL_BOR;
    else if (integer && !strcmp(op, "and")) o = COLL_BAND;
    else armci_fail("%s: op \"%s\" is not one of +, *, max, min, absmax, absmin%s", r, op, integer ? ", or, and" : "");
    if (abs) absolute(x, n, type);
    done(coll_reduce(&g->cg, x, x, (size_t)n, t, o, root), r);
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    check_scope(scope, "armci_msg_group_gop_scope");
    gop(x, n, op, type, group, COLL_ALL, "armci_msg_group_gop_scope");
}
void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    check_scope(scope, "armci_msg_gop_scope");
    gop(x, n, op, type, &armci_world, COLL_ALL, "armci_msg_gop_scope");
}
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    check_scope(scope, "armci_msg_reduce_scope");
    gop(x, n, op, type, &armci_world, 0, "armci_msg_reduce_scope");
}
void armci_msg_reduce(void *x, int n, char *op, int type) { gop(x, n, op, type, &armci_world, 0, "armci_msg_reduce"); }

#define GOPS(c, T, TYPE)                                                                              \
void armci_msg_##c##gop(T *x, int n, char *op) { gop(x, n, op, TYPE, &armci_world, COLL_ALL, "armci_msg_" #c "gop"); } \
void armci_msg_group_##c##gop(T *x, int n, char *op, ARMCI_Group *group)                              \
{ gop(x, n, op, TYPE, group, COLL_ALL, "armci_msg_group_" #c "gop"); }
GOPS(i, int, ARMCI_INT)
GOPS(l, long, ARMCI_LONG)
GOPS(ll, long long, ARMCI_LONG_LONG)
GOPS(f, float, ARMCI_FLOAT)
GOPS(d, double, ARMCI_DOUBLE)
#undef GOPS

/* --- Select: every member's record, then the same choice everywhere ---------------------- */
#define SEL_HDR 16   /* a record: contribute (int), then the n bytes at 16 (aligned for any key) */
static bool better(const char *a, const char *b, int type, bool max)
{
#define CMP(T) { T x, y; memcpy(&x, a, sizeof x), memcpy(&y, b, sizeof y); return max ? x > y : x < y; }
    switch (type) {
    case ARMCI_INT: CMP(int)
    case ARMCI_LONG: CMP(long)
    case ARMCI_LONG_LONG: CMP(long long)
    case ARMCI_FLOAT: CMP(float)
    default: CMP(double)
    }
#undef CMP
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    const char *r = "armci_msg_sel";
    check_scope(scope, r);
    struct armci_igroup *g = armci_group_check(&armci_world, r);
    msg_dtype(type, r);
    if (n < (type == ARMCI_INT || type == ARMCI_FLOAT ? 4 : 8))
        armci_fail("%s: n %d is smaller than the key's type", r, n);
    if (!x || !op) armci_fail("%s: %s is NULL", r, x ? "op" : "x");
    bool max = !strncmp(op, "max", 3);
    if (!max && strncmp(op, "min", 3)) armci_fail("%s: op \"%s\" is neither min nor max", r, op);
    size_t rec = SEL_HDR + (((size_t)n + 15) & ~(size_t)15), m = (size_t)g->cg.m.size;
    char *mine = calloc(1, rec), *all = malloc(rec * m);
    if (!mine || !all) armci_fail("%s: no memory for %zu records of %zu bytes", r, m, rec);
    memcpy(mine, &contribute, sizeof contribute);
    memcpy(mine + SEL_HDR, x, (size_t)n);
    done(coll_allgather(&g->cg, all, mine, rec), r);
    const char *best = NULL;
    for (size_t i = 0; i < m; i++) {
        const char *c = all + i * rec;
        int on;
        memcpy(&on, c, sizeof on);
        if (on && (!best || better(c + SEL_HDR, best + SEL_HDR, type, max))) best = c;
    }
    if (best) memcpy(x, best + SEL_HDR, (size_t)n);
    free(mine), free(all);
}
void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    armci_msg_sel_scope(SCOPE_ALL, x, n, op, type, contribute);
}

/* --- Addresses ----------------------------------------------------------------------------- */
void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group)
{
    const char *r = "armci_exchange_address";
    struct armci_igroup *g = armci_group_check(group, r);
    if (n != g->cg.m.size) armci_fail("%s: n %d is not the number of processes (%d)", r, n, g->cg.m.size);
    if (!ptr_arr) armci_fail("%s: ptr_ar is NULL", r);
    void *mine = ptr_arr[g->cg.m.me];
    done(coll_allgather(&g->cg, ptr_arr, &mine, sizeof mine), r);
}
void armci_exchange_address(void *ptr_ar[], int n) { armci_exchange_address_grp(ptr_ar, n, &armci_world); }
