/* The MPI environment: MPI_Init/Init_thread/Finalize, state queries, Abort,
 * timers, processor name and versions. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sm_core.h"
#include "smpi.h"

static int thread_level;
static pthread_t main_thread;

static int init(int required, int *provided, const char *routine)
{
    if (smpi_state)
        return smpi_error(NULL, MPI_ERR_OTHER, routine, smpi_state == 1 ? "MPI is already initialised"
                                                                        : "called after MPI_Finalize");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return smpi_error(NULL, MPI_ERR_ARG, routine, "invalid thread level %d", required);
    sm_core_ensure();
    sm_status_t st = p2p_init(sizeof(struct smpi_request));
    if (st) return smpi_error(NULL, st == SM_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER, routine, "%s", sm_fail_reason());
    /* Between nodes the tag travels in 24 bits of UCX's (src/p2p). */
    if (sm_spans_nodes()) smpi_tag_ub = (1 << 23) - 1;
    if (smpi_comm_init_predef()) return smpi_error(NULL, MPI_ERR_NO_MEM, routine, "no memory for MPI_COMM_WORLD");
    coll_poll_p2p(true);                 /* a rank blocked in a collective still posts its sends */
    /* MULTIPLE: the engine's structures and the shared objects' counts take
     * locks and atomics from now on; below it, nothing changes. */
    if (required == MPI_THREAD_MULTIPLE) {
        if ((st = p2p_threads())) return smpi_error(NULL, MPI_ERR_NO_MEM, routine, "%s", sm_fail_reason());
        coll_threads();
        smpi_mt = true;
    }
    thread_level = required;
    if (provided) *provided = thread_level;
    main_thread = pthread_self();
    sm_finalize_required("MPI_Finalize");
    smpi_state = 1;
    /* A spawned process meets its parents before the program runs. */
    int rc = smpi_spawn_connect();
    return rc ? smpi_error(NULL, rc, routine, "cannot connect to the processes that spawned this one") : MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return init(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}
#pragma weak MPI_Init = PMPI_Init

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc, (void)argv;
    if (!provided) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Init_thread", "provided is NULL");
    return init(required, provided, "MPI_Init_thread");
}
#pragma weak MPI_Init_thread = PMPI_Init_thread

int PMPI_Finalize(void)
{
    SMPI_CHECK_INIT("MPI_Finalize");
    int rc = smpi_comm_self_attrs_free();
    if (rc) return rc;
    p2p_finalize();                        /* every send has reached its ring */
    /* Nobody still needs our memory. A deferred check of an earlier
     * collective on MPI_COMM_WORLD (src/coll/sched.c) is done by the end of
     * a barrier: a failure is this call's error. */
    sm_status_t st = coll_barrier(&smpi_comm_world.cg);
    /* the predefined communicators are never freed: their hints are, here */
    free(smpi_comm_world.hints), smpi_comm_world.hints = NULL;
    free(smpi_comm_self.hints), smpi_comm_self.hints = NULL;
    smpi_state = 2;
    sm_finalize_done("MPI_Finalize");
    if (st) return smpi_error(&smpi_comm_world, smpi_class_of(st), "MPI_Finalize", "%s", sm_fail_reason());
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalize = PMPI_Finalize

int PMPI_Initialized(int *flag)
{
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    *flag = smpi_state != 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int *flag)
{
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    *flag = smpi_state == 2;
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalized = PMPI_Finalized

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    struct smpi_comm *c = smpi_comm(comm);
    char note[128];
    snprintf(note, sizeof note, "called MPI_Abort(%s, %d)", c ? smpi_comm_name(c) : "<invalid>", errorcode);
    sm_abort(errorcode, note);
}
#pragma weak MPI_Abort = PMPI_Abort

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#pragma weak MPI_Wtime = PMPI_Wtime

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#pragma weak MPI_Wtick = PMPI_Wtick

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return smpi_error(NULL, MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME)) snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name

/* Profiling control (MPI 3.1 §14.2.4): smartmap has no profiling of its
 * own to switch, so any level is accepted and nothing changes; a profiling
 * library intercepting MPI_Pcontrol sees the call. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Get_version", "NULL argument");
    *version = MPI_VERSION, *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return smpi_error(NULL, MPI_ERR_ARG, "MPI_Get_library_version", "NULL argument");
    *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "smartmap MPI %s (MPI %d.%d, SMARTMAP single-copy)",
                          SMARTMAP_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

int PMPI_Query_thread(int *provided)
{
    SMPI_CHECK_INIT("MPI_Query_thread");
    if (!provided) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    *provided = thread_level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Query_thread = PMPI_Query_thread

int PMPI_Is_thread_main(int *flag)
{
    SMPI_CHECK_INIT("MPI_Is_thread_main");
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main

/* Heap memory: the heap is mapped into every peer, so messages from and to
 * it take the single-copy path; there is nothing special to allocate. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char R[] = "MPI_Alloc_mem";
    SMPI_CHECK_INIT(R);
    if (size < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "size %ld is negative", (long)size);
    SMPI_CHECK_INFO(NULL, info, R);      /* no hints are read */
    if (!baseptr) return smpi_error(NULL, MPI_ERR_ARG, R, "baseptr is NULL");
    void *p = malloc(size ? (size_t)size : 1);
    if (!p) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void *base)
{
    SMPI_CHECK_INIT("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
#pragma weak MPI_Free_mem = PMPI_Free_mem
