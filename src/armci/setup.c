/* setup.c: ARMCI setup and finalisation, the fatal reports, process checks,
 * groups (groups of the collective engine, with an MPI communicator when
 * MPI is there), topology and the odds and ends of armci.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "armci_internal.h"

enum armci_state armci_state;
int armci_me, armci_nproc;
struct rma_regions armci_regions = RMA_REGIONS_INIT("ARMCI_Malloc memory");
ARMCI_Group armci_world, armci_default;
static struct armci_igroup world_i;
static int init_count;

/* --- Reports ---------------------------------------------------------------------- */

static _Noreturn void end_job(int code, const char *note)
{
    code &= 255;
    sm_abort(code ? code : 1, note);   /* an error never ends the job looking like success */
}

_Noreturn void armci_fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sm_say("%s", line);
    end_job(1, "stopped the job on an ARMCI error");
}

_Noreturn void armci_fail_engine(const char *routine)
{
    if (armci_state == ARMCI_NEVER) armci_fail("%s: called before ARMCI_Init", routine);
    if (armci_state == ARMCI_FINALIZED) armci_fail("%s: called after ARMCI_Finalize", routine);
    armci_fail("%s: %s", routine, sm_fail_reason());
}

_Noreturn void armci_fail_status(const char *routine, sm_status_t st)
{
    /* The process at fault says why and ends the job; give it time to. */
    for (int i = 0; st == SM_ERR_PEER && i < 1000; i++) usleep(10000);
    armci_fail_engine(routine);
}

static sm_status_t topology_init(void);
static void topology_finalize(void);

void armci_check_proc(int proc, const char *routine)
{
    armci_require_init(routine);
    if (SM_UNLIKELY((unsigned)proc >= (unsigned)armci_nproc))
        armci_fail("%s: process %d out of range (0..%d)", routine, proc, armci_nproc - 1);
}

void *armci_remote_slow(int proc, const void *addr, size_t len, const char *routine)
{
    armci_check_proc(proc, routine);
    if ((ptrdiff_t)len < 0) armci_fail("%s: size %td is negative", routine, (ptrdiff_t)len);
    if (len == 0) return (void *)addr;   /* nothing is accessed */
    const struct rma_region *r = rma_regions_find_slow(&armci_regions, proc, addr, len);
    if (!r) armci_fail("%s: remote %s", routine, sm_fail_reason());
    return (void *)((uintptr_t)addr + r->delta);
}

void ARMCI_Error(const char *msg, int code)
{
    char note[64];
    sm_say("ARMCI_Error: %s (code %d)", msg ? msg : "(no message)", code);
    snprintf(note, sizeof note, "called ARMCI_Error(%d)", code);
    end_job(code, note);
}

/* Nothing to clean: no shared segments, files or server threads. */
void ARMCI_Cleanup(void) {}

/* --- MPI, when it is there ---------------------------------------------------------
 * Only through MPI's public (profiling) interface, as a program would. */
static bool mpi_on(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    return init && !fin;
}

/* --- Setup ------------------------------------------------------------------------- */

static int init(int level, MPI_Comm comm, const char *routine)
{
    if (armci_state == ARMCI_ON) {
        init_count++;
        return 0;
    }
    sm_core_ensure();
    if (level < MPI_THREAD_SINGLE || level > MPI_THREAD_MULTIPLE)
        armci_fail("%s: thread level %d is not one of MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE", routine, level);
    if (comm != MPI_COMM_WORLD) {
        int same = MPI_UNEQUAL;
        if (!mpi_on()) armci_fail("%s: a communicator needs MPI to be initialised", routine);
        if (comm == MPI_COMM_NULL || PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same) != MPI_SUCCESS ||
            (same != MPI_IDENT && same != MPI_CONGRUENT))
            armci_fail("%s: the communicator must hold every process in MPI_COMM_WORLD's order "
                       "(ARMCI's process ids are the job's ranks here)", routine);
    }
    if (sm_core.world_base != 0)
        armci_fail("%s: this process was started by MPI_Comm_spawn (ranks %d..%d of the job); ARMCI runs "
                   "only in the job smrun started (its process ids are slots)", routine, sm_core.world_base,
                   sm_core.world_base + sm_core.world_size - 1);
    armci_me = sm_core.rank, armci_nproc = sm_core.world_size;
    /* Under MPI_THREAD_MULTIPLE another thread may look up a remote address while this one allocates. */
    sm_status_t st = rma_regions_init(&armci_regions, "ARMCI_Malloc memory", level == MPI_THREAD_MULTIPLE);
    if (st) armci_fail("%s: %s", routine, sm_fail_reason());
    sm_finalize_required("ARMCI_Finalize");
    armci_state = ARMCI_ON;
    init_count = 1;
    armci_groups_init();
    if ((st = armci_acc_init()) || (st = topology_init())) armci_fail_status(routine, st);
    if (sm_spans_nodes()) rma_remote_start();   /* waits poll: UCX carries the others' operations */
    return 0;
}

int PARMCI_Init(void) { return init(MPI_THREAD_SINGLE, MPI_COMM_WORLD, "ARMCI_Init"); }
int PARMCI_Init_args(int *argc, char ***argv) { (void)argc, (void)argv; return init(MPI_THREAD_SINGLE, MPI_COMM_WORLD, "ARMCI_Init_args"); }
int PARMCI_Init_thread(int armci_requested) { return init(armci_requested, MPI_COMM_WORLD, "ARMCI_Init_thread"); }
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm) { return init(armci_requested, comm, "ARMCI_Init_thread_comm"); }
int PARMCI_Init_mpi_comm(MPI_Comm comm) { return init(MPI_THREAD_SINGLE, comm, "ARMCI_Init_mpi_comm"); }
int PARMCI_Initialized(void) { return armci_state == ARMCI_ON; }
#pragma weak ARMCI_Init = PARMCI_Init
#pragma weak ARMCI_Init_args = PARMCI_Init_args
#pragma weak ARMCI_Init_thread = PARMCI_Init_thread
#pragma weak ARMCI_Init_thread_comm = PARMCI_Init_thread_comm
#pragma weak ARMCI_Init_mpi_comm = PARMCI_Init_mpi_comm
#pragma weak ARMCI_Initialized = PARMCI_Initialized

int PARMCI_Finalize(void)
{
    if (armci_state != ARMCI_ON || --init_count > 0) return 0;
    armci_quiet("ARMCI_Finalize");
    sm_status_t st = coll_barrier(&world_i.cg);   /* nobody needs anybody's ARMCI memory any more */
    if (st) armci_fail_status("ARMCI_Finalize", st);
    armci_mutex_finalize();
    armci_memory_finalize();
    armci_acc_finalize();
    armci_groups_finalize();
    topology_finalize();
    rma_regions_clear(&armci_regions);
    armci_state = ARMCI_FINALIZED;
    sm_finalize_done("ARMCI_Finalize");
    return 0;
}
#pragma weak ARMCI_Finalize = PARMCI_Finalize

/* --- Groups --------------------------------------------------------------------------- */

static const ARMCI_Group no_group = { MPI_COMM_NULL, MPI_COMM_NULL, NULL, NULL, -1, 0, NULL };

static ARMCI_Group as_handle(struct armci_igroup *g)
{
    return (ARMCI_Group){ g->comm, MPI_COMM_NULL, g->abs, NULL, g->cg.m.me, g->cg.m.size, g };
}

void armci_groups_init(void)
{
    int *abs = malloc(sizeof *abs * (size_t)armci_nproc);
    if (!abs) armci_fail("ARMCI_Init: no memory for the world group");
    for (int i = 0; i < armci_nproc; i++) abs[i] = i;
    struct sm_group all = { armci_nproc, armci_me, 0, 1, NULL };   /* start/stride: no table to search */
    world_i = (struct armci_igroup){ .abs = abs, .comm = MPI_COMM_NULL };
    sm_status_t st = coll_group_create(&world_i.cg, &all, NULL);
    if (st) armci_fail_status("ARMCI_Init", st);
    if (mpi_on()) PMPI_Comm_dup(MPI_COMM_WORLD, &world_i.comm);
    armci_world = armci_default = as_handle(&world_i);
}

void armci_groups_finalize(void)
{
    coll_group_destroy(&world_i.cg);
    if (world_i.comm != MPI_COMM_NULL && mpi_on()) PMPI_Comm_free(&world_i.comm);
    free(world_i.abs);
    world_i = (struct armci_igroup){ .comm = MPI_COMM_NULL };
    armci_world = armci_default = no_group;
}

struct armci_igroup *armci_group_check(const ARMCI_Group *g, const char *routine)
{
    armci_require_init(routine);
    if (!g) armci_fail("%s: group is NULL", routine);
    if (!g->impl || g->impl->cg.num < 0)
        armci_fail("%s: process %d is not a member of the group (or the group was freed)", routine, armci_me);
    return g->impl;
}

int armci_group_rank_of(const struct armci_igroup *g, int proc)
{
    return coll_group_index(&g->cg, proc);
}

void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *group_parent)
{
    const char *r = "ARMCI_Group_create";
    struct armci_igroup *p = armci_group_check(group_parent, r);
    int psize = p->cg.m.size;
    if (!group_out) armci_fail("%s: group_out is NULL", r);
    if (grp_size < 0 || grp_size > psize)
        armci_fail("%s: grp_size %d is not in 0..%d (the parent group's size)", r, grp_size, psize);
    if (grp_size && !pid_list) armci_fail("%s: pid_list is NULL", r);
    char *seen = calloc((size_t)psize, 1);
    int *abs = malloc(sizeof *abs * (size_t)(grp_size ? grp_size : 1));
    if (!seen || !abs) armci_fail("%s: no memory for a group of %d", r, grp_size);
    int me = -1;
    for (int i = 0; i < grp_size; i++) {
        int q = pid_list[i];
        if (q < 0 || q >= psize) armci_fail("%s: pid_list[%d] = %d is not a rank of the parent group (0..%d)", r, i, q, psize - 1);
        if (seen[q]) armci_fail("%s: pid_list[%d] = %d appears twice", r, i, q);
        seen[q] = 1;
        abs[i] = p->abs[q];
        if (abs[i] == armci_me) me = i;
    }
    free(seen);
    struct armci_igroup *g = calloc(1, sizeof *g);
    if (!g) armci_fail("%s: no memory for a group", r);
    struct sm_group m = { grp_size, me, 0, 0, abs };
    g->abs = abs, g->comm = MPI_COMM_NULL;
    sm_status_t st = coll_group_create(&g->cg, &m, &p->cg);   /* collective over the parent */
    if (st) armci_fail_status(r, st);
    if (me < 0) {
        free(abs), free(g);
        *group_out = no_group;
        return;
    }
    if (mpi_on()) {   /* collective over the members only */
        MPI_Group wg, sub;
        PMPI_Comm_group(MPI_COMM_WORLD, &wg);
        PMPI_Group_incl(wg, grp_size, abs, &sub);
        PMPI_Comm_create_group(MPI_COMM_WORLD, sub, 0x4152 /* "AR" */, &g->comm);
        PMPI_Group_free(&sub);
        PMPI_Group_free(&wg);
    }
    *group_out = as_handle(g);
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    ARMCI_Group_create_child(grp_size, pid_list, group_out, &armci_default);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    const char *r = "ARMCI_Group_free";
    armci_require_init(r);
    if (!group) armci_fail("%s: group is NULL", r);
    struct armci_igroup *g = group->impl;
    if (!g) return;   /* the caller is not a member: nothing was made */
    if (g == &world_i) armci_fail("%s: the world group is freed by ARMCI_Finalize", r);
    coll_group_destroy(&g->cg);
    if (g->comm != MPI_COMM_NULL && mpi_on()) PMPI_Comm_free(&g->comm);
    if (armci_default.impl == g) armci_default = armci_world;
    free(g->abs), free(g);
    *group = no_group;
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    if (!group || !rank) armci_fail("ARMCI_Group_rank: %s is NULL", group ? "rank" : "group");
    *rank = group->rank;
    return *rank >= 0 ? 0 : 1;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    if (!group || !size) armci_fail("ARMCI_Group_size: %s is NULL", group ? "size" : "group");
    *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    armci_group_check(group, "ARMCI_Group_set_default");
    armci_default = *group;
}

/* The world group's communicator: its dup of MPI_COMM_WORLD, or
 * MPI_COMM_WORLD itself when MPI came after ARMCI (a dup needs every
 * process, and these calls are not collective). */
static MPI_Comm comm_of(const struct armci_igroup *g)
{
    return g == &world_i && g->comm == MPI_COMM_NULL && mpi_on() ? MPI_COMM_WORLD : g->comm;
}

static void get_group(ARMCI_Group *group_out, const ARMCI_Group *g, const char *r)
{
    armci_require_init(r);
    if (!group_out) armci_fail("%s: group_out is NULL", r);
    *group_out = *g;
    group_out->comm = comm_of(g->impl);
}
void ARMCI_Group_get_default(ARMCI_Group *group_out) { get_group(group_out, &armci_default, "ARMCI_Group_get_default"); }
void ARMCI_Group_get_world(ARMCI_Group *group_out) { get_group(group_out, &armci_world, "ARMCI_Group_get_world"); }

MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    return comm_of(armci_group_check(group, "armci_group_comm"));
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    struct armci_igroup *g = armci_group_check(group, "ARMCI_Absolute_id");
    if (group_rank < 0 || group_rank >= g->cg.m.size)
        armci_fail("ARMCI_Absolute_id: group rank %d out of range (0..%d)", group_rank, g->cg.m.size - 1);
    return g->abs[group_rank];
}

/* --- Topology: an SMP domain per node, numbered by their first processes --------------------
 * (one of every process on one node). dom_of is made at init only when the
 * job spans nodes. */
static int *dom_of, ndom = 1;

static sm_status_t topology_init(void)
{
    if (!sm_spans_nodes()) return SM_OK;
    int first = 0, *firsts = malloc(sizeof *firsts * (size_t)armci_nproc);
    if (!firsts || !(dom_of = malloc(sizeof *dom_of * (size_t)armci_nproc))) {
        free(firsts);
        return sm_fail(SM_ERR_NOMEM, "no memory for the nodes of %d processes", armci_nproc);
    }
    while (!sm_rank_local(first)) first++;
    sm_status_t st = coll_allgather(&armci_world.impl->cg, firsts, &first, sizeof first);
    ndom = 0;
    for (int p = 0; p < armci_nproc && !st; p++)   /* (a node's first process comes before its others) */
        dom_of[p] = firsts[p] == p ? ndom++ : dom_of[firsts[p]];
    free(firsts);
    return st;
}

static void topology_finalize(void)
{
    free(dom_of);
    dom_of = NULL, ndom = 1;
}

static int domain_of(int proc) { return dom_of ? dom_of[proc] : 0; }

static void domain_check(armci_domain_t domain, const char *routine)
{
    armci_require_init(routine);
    if (domain != ARMCI_DOMAIN_SMP) armci_fail("%s: domain %d is not ARMCI_DOMAIN_SMP", routine, domain);
}
static void domain_id_check(int id, const char *routine)
{
    if (id < 0 || id >= ndom)
        armci_fail("%s: domain id %d out of range (0..%d: one per node)", routine, id, ndom - 1);
}
int armci_domain_count(armci_domain_t domain) { domain_check(domain, "armci_domain_count"); return ndom; }
int armci_domain_my_id(armci_domain_t domain) { domain_check(domain, "armci_domain_my_id"); return domain_of(armci_me); }
int armci_domain_nprocs(armci_domain_t domain, int id)
{
    domain_check(domain, "armci_domain_nprocs");
    domain_id_check(id, "armci_domain_nprocs");
    int k = 0;
    for (int p = 0; p < armci_nproc; p++) k += domain_of(p) == id;
    return k;
}
int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    domain_check(domain, "armci_domain_id");
    armci_check_proc(glob_proc_id, "armci_domain_id");
    return domain_of(glob_proc_id);
}
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    domain_check(domain, "armci_domain_glob_proc_id");
    domain_id_check(id, "armci_domain_glob_proc_id");
    for (int p = 0, k = 0; p < armci_nproc; p++)
        if (domain_of(p) == id && k++ == loc_proc_id) return p;
    armci_fail("armci_domain_glob_proc_id: process %d out of range (0..%d) of domain %d", loc_proc_id,
               armci_domain_nprocs(domain, id) - 1, id);
}
int armci_domain_same_id(armci_domain_t domain, int proc)
{
    domain_check(domain, "armci_domain_same_id");
    armci_check_proc(proc, "armci_domain_same_id");
    return domain_of(proc) == domain_of(armci_me);
}
int ARMCI_Same_node(int proc) { armci_check_proc(proc, "ARMCI_Same_node"); return sm_rank_local(proc); }

int ARMCI_Uses_shm(void) { return 1; }
void ARMCI_Set_shm_limit(unsigned long shmemlimit) { (void)shmemlimit; }
int ARMCI_Uses_shm_grp(ARMCI_Group *group) { armci_group_check(group, "ARMCI_Uses_shm_grp"); return 1; }
