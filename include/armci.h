/* armci.h: ARMCI (Aggregate Remote Memory Copy Interface) on smartmap,
 * source-compatible with ARMCI-MPI's armci.h (with message.h for the
 * armci_msg_* routines), so that programs written for it and Global Arrays
 * configured with an external ARMCI build with smcc unchanged.
 *
 * The SMARTMAP way (seed 003 without its data-server thread): the memory
 * ARMCI_Malloc returns is in each process's slot, which every process maps,
 * so every operation is a copy or a CPU atomic on the target's memory by the
 * caller alone. Nothing needs the target's attention, and every operation
 * is complete (locally and at the target) when it returns: the
 * non-blocking forms are the blocking ones, their handles complete at once.
 *
 * Processes: the ranks of the smrun job (ARMCI's absolute ids are job ranks,
 * the same as MPI_COMM_WORLD ranks). ARMCI runs with or without MPI: without
 * MPI_Init it needs nothing else; inside an MPI program either may be
 * initialised first, and each group carries an MPI communicator of the same
 * processes when MPI was initialised before the group was made.
 *
 * Errors: a bad process id, an address outside the target's ARMCI_Malloc
 * memory, a negative size, a bad stride or type end the job with one line
 * naming the routine and the value, as ARMCI_Error does. */
#ifndef SMARTMAP_ARMCI_H
#define SMARTMAP_ARMCI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARMCI_API __attribute__((visibility("default")))

#define ARMCI_MPI 3              /* the ARMCI-MPI interface version this header follows */
#define SMARTMAP_ARMCI 1

/* Accumulate types: dst += scale * src, element by element, each element
 * atomically (the complex ones as a whole). */
enum ARMCI_Acc_e {
    ARMCI_ACC_INT,               /* int */
    ARMCI_ACC_LNG,               /* long */
    ARMCI_ACC_FLT,               /* float */
    ARMCI_ACC_DBL,               /* double */
    ARMCI_ACC_CPL,               /* float complex (two floats), scale complex */
    ARMCI_ACC_DCP                /* double complex (two doubles), scale complex */
};

typedef long armci_size_t;
#define ARMCII_MPI_SIZE_T MPI_LONG

/* --- Setup --------------------------------------------------------------------
 * Init is collective over every process; it may be called again (counted,
 * ARMCI-MPI's way), and Finalize ends ARMCI when the count returns to 0.
 * Init_thread: any level up to MPI_THREAD_MULTIPLE (one-sided operations
 * are thread-safe; collectives on one group must not run in two threads at
 * once). Init_thread_comm and Init_mpi_comm take a communicator of every
 * process (MPI_COMM_WORLD or one congruent with it). */
ARMCI_API int   ARMCI_Init(void);
ARMCI_API int   ARMCI_Init_args(int *argc, char ***argv);
ARMCI_API int   ARMCI_Init_thread(int armci_requested);
ARMCI_API int   ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
ARMCI_API int   ARMCI_Init_mpi_comm(MPI_Comm comm);
ARMCI_API int   ARMCI_Initialized(void);
ARMCI_API int   ARMCI_Finalize(void);
/* Nothing to release: no shared segments or server threads (kept for programs that call it). */
ARMCI_API void  ARMCI_Cleanup(void);
/* One line "ARMCI_Error: msg (code)", then the job ends with code (1 if
 * code is 0 modulo 256: an error never looks like success). */
ARMCI_API void  ARMCI_Error(const char *msg, int code);

/* --- Memory -------------------------------------------------------------------
 * Collective over the (default) world group: each process gives its own
 * size (0 allowed) and gets every process's address in base_ptrs[i] (NULL
 * where the size is 0), usable by any process: with the process id in
 * one-sided calls, or directly by load and store (ARMCI_Uses_shm is 1).
 * Not zeroed. Returns 0, or nonzero in every process when one of them has
 * no memory for its part (one line says which; nothing is allocated).
 * ARMCI_Free is collective too: each process passes its own address (NULL
 * if its size was 0). */
ARMCI_API int   ARMCI_Malloc(void **base_ptrs, armci_size_t size);
ARMCI_API int   ARMCI_Free(void *ptr);
/* Local memory for buffers (like MPI_Alloc_mem; every buffer is fine here). */
ARMCI_API void *ARMCI_Malloc_local(armci_size_t size);
ARMCI_API int   ARMCI_Free_local(void *ptr);

/* --- Completion and ordering --------------------------------------------------
 * Operations are complete when they return: Fence and AllFence order them
 * with what follows (a full memory barrier); Barrier is AllFence and a
 * barrier over every process. Access_begin/end bracket direct load/store
 * access to the caller's own ARMCI memory (memory barriers; the address is
 * checked). */
ARMCI_API void  ARMCI_Barrier(void);
ARMCI_API void  ARMCI_Fence(int proc);
ARMCI_API void  ARMCI_AllFence(void);
ARMCI_API void  ARMCI_Access_begin(void *ptr);
ARMCI_API void  ARMCI_Access_end(void *ptr);
/* memmove of local memory. */
ARMCI_API void  ARMCI_Copy(void *src, void *dst, int size);

/* --- Contiguous transfers -------------------------------------------------------
 * The remote side (dst of Put and Acc, src of Get) is ARMCI_Malloc memory
 * of proc, named by the address ARMCI_Malloc gave for proc; the local side
 * is any memory of the caller. Return 0. */
ARMCI_API int   ARMCI_Get(void *src, void *dst, int size, int target);
ARMCI_API int   ARMCI_Put(void *src, void *dst, int size, int target);
/* dst += scale * src over bytes (a multiple of the type's size); scale
 * points to one element of the type. */
ARMCI_API int   ARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);

/* --- Strided transfers ----------------------------------------------------------
 * count[0] contiguous bytes, then count[1] .. count[stride_levels] blocks
 * at byte strides stride_ar[0] .. stride_ar[stride_levels-1] (0 to 8
 * levels: up to 8-dimensional array sections), on each side. */
ARMCI_API int   ARMCI_PutS(void *src_ptr, int src_stride_ar[/*stride_levels*/],
                           void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                           int count[/*stride_levels+1*/], int stride_levels, int proc);
ARMCI_API int   ARMCI_GetS(void *src_ptr, int src_stride_ar[/*stride_levels*/],
                           void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                           int count[/*stride_levels+1*/], int stride_levels, int proc);
ARMCI_API int   ARMCI_AccS(int datatype, void *scale,
                           void *src_ptr, int src_stride_ar[/*stride_levels*/],
                           void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                           int count[/*stride_levels+1*/], int stride_levels, int proc);
/* The put, then *flag = value at proc (flag is ARMCI memory of proc): whoever
 * sees the flag sees the data. */
ARMCI_API int   ARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
ARMCI_API int   ARMCI_PutS_flag(void *src_ptr, int src_stride_ar[/*stride_levels*/],
                                void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                                int count[/*stride_levels+1*/], int stride_levels,
                                int *flag, int value, int proc);
/* Pack a local strided section into buf (read) or unpack buf into it (write). */
ARMCI_API void  armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
ARMCI_API void  armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* --- Non-blocking transfers ----------------------------------------------------------
 * Complete when they return (see above): Wait, WaitProc and WaitAll return
 * at once, Test returns 0 (complete). A NULL handle is allowed. */
typedef struct armci_hdl_s {
    int target;                  /* the last operation's process (-1 after ARMCI_INIT_HANDLE) */
    int aggregate;               /* ARMCI_SET_AGGREGATE_HANDLE */
} armci_hdl_t;

ARMCI_API void  ARMCI_INIT_HANDLE(armci_hdl_t *hdl);
ARMCI_API void  ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle);
ARMCI_API void  ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle);

ARMCI_API int   ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int   ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int   ARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int   ARMCI_Wait(armci_hdl_t *hdl);
ARMCI_API int   ARMCI_Test(armci_hdl_t *hdl);
ARMCI_API int   ARMCI_WaitProc(int proc);
ARMCI_API int   ARMCI_WaitAll(void);
ARMCI_API int   ARMCI_NbPutS(void *src_ptr, int src_stride_ar[/*stride_levels*/],
                             void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                             int count[/*stride_levels+1*/], int stride_levels, int proc, armci_hdl_t *hdl);
ARMCI_API int   ARMCI_NbGetS(void *src_ptr, int src_stride_ar[/*stride_levels*/],
                             void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                             int count[/*stride_levels+1*/], int stride_levels, int proc, armci_hdl_t *hdl);
ARMCI_API int   ARMCI_NbAccS(int datatype, void *scale,
                             void *src_ptr, int src_stride_ar[/*stride_levels*/],
                             void *dst_ptr, int dst_stride_ar[/*stride_levels*/],
                             int count[/*stride_levels+1*/], int stride_levels, int proc, armci_hdl_t *hdl);

/* --- Vector (generalised I/O vector) transfers ---------------------------------------
 * Each descriptor moves ptr_array_len segments of bytes bytes, segment i
 * from src_ptr_array[i] to dst_ptr_array[i]. */
typedef struct {
    void **src_ptr_array;        /* where each segment starts, source side */
    void **dst_ptr_array;        /* ... destination side */
    int    bytes;                /* the length of every segment */
    int    ptr_array_len;        /* the number of segments */
} armci_giov_t;

ARMCI_API int ARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int ARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int ARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int ARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
ARMCI_API int ARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
ARMCI_API int ARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);

/* --- Single values ------------------------------------------------------------------ */
ARMCI_API int    ARMCI_PutValueInt(int src, void *dst, int proc);
ARMCI_API int    ARMCI_PutValueLong(long src, void *dst, int proc);
ARMCI_API int    ARMCI_PutValueFloat(float src, void *dst, int proc);
ARMCI_API int    ARMCI_PutValueDouble(double src, void *dst, int proc);
ARMCI_API int    ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int    ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int    ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int    ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int    ARMCI_GetValueInt(void *src, int proc);
ARMCI_API long   ARMCI_GetValueLong(void *src, int proc);
ARMCI_API float  ARMCI_GetValueFloat(void *src, int proc);
ARMCI_API double ARMCI_GetValueDouble(void *src, int proc);

/* --- Mutexes -----------------------------------------------------------------------
 * Create is collective: each process makes count mutexes (its own count),
 * which any process locks as (mutex, proc). Fair (first come, first
 * served); locking one the caller holds, or unlocking one it does not, is
 * an error. Destroy is collective. */
ARMCI_API int   ARMCI_Create_mutexes(int count);
ARMCI_API int   ARMCI_Destroy_mutexes(void);
ARMCI_API void  ARMCI_Lock(int mutex, int proc);
ARMCI_API void  ARMCI_Unlock(int mutex, int proc);

/* --- Read-modify-write -----------------------------------------------------------------
 * Atomic on the int or long at prem (ARMCI memory of proc, naturally
 * aligned); the old value goes to *ploc. FETCH_AND_ADD adds value; SWAP
 * stores *ploc. */
enum ARMCI_Rmw_e { ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG };
ARMCI_API int ARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);

/* --- Groups ----------------------------------------------------------------------------
 * A group is a value (copy it freely; free it once). pid_list names ranks
 * of the parent group (the default group for ARMCI_Group_create); creation
 * is collective over the parent, and a process not in pid_list gets a group
 * of size 0 and rank -1. comm: the group's MPI communicator when MPI was
 * initialised before the group was made (MPI_COMM_NULL otherwise; the world
 * group then gives MPI_COMM_WORLD once MPI is initialised). grp_to_abs:
 * the members' absolute ids. noncoll_pgroup_comm and abs_to_grp are
 * ARMCI-MPI's and unused here (MPI_COMM_NULL, NULL). */
typedef struct {
    MPI_Comm  comm;
    MPI_Comm  noncoll_pgroup_comm;
    int      *grp_to_abs;
    int      *abs_to_grp;
    int       rank;
    int       size;
    struct armci_igroup *impl;   /* smartmap's: the group as the collective engine sees it */
} ARMCI_Group;

ARMCI_API void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out);
ARMCI_API void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                                        ARMCI_Group *group_parent);
ARMCI_API void ARMCI_Group_free(ARMCI_Group *group);
/* 0 and the caller's rank, or 1 (rank -1) if the caller is not a member. */
ARMCI_API int  ARMCI_Group_rank(ARMCI_Group *group, int *rank);
ARMCI_API void ARMCI_Group_size(ARMCI_Group *group, int *size);
ARMCI_API void ARMCI_Group_set_default(ARMCI_Group *group);
ARMCI_API void ARMCI_Group_get_default(ARMCI_Group *group_out);
ARMCI_API void ARMCI_Group_get_world(ARMCI_Group *group_out);
/* The absolute id of group rank group_rank. */
ARMCI_API int  ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
/* ARMCI_Malloc and ARMCI_Free over a group: base_ptrs is indexed by group
 * rank; one-sided calls still take absolute ids. */
ARMCI_API int  ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group);
ARMCI_API int  ARMCI_Free_group(void *ptr, ARMCI_Group *group);
/* The group's MPI communicator (the comm member): what Global Arrays' configure looks for. */
ARMCI_API MPI_Comm armci_group_comm(ARMCI_Group *group);

/* --- The message-passing routines (armci_msg_*) --------------------------------------- */
#include <message.h>

/* --- Topology: every process is on one node ----------------------------------------------- */
enum armci_domain_e { ARMCI_DOMAIN_SMP };
typedef int armci_domain_t;
ARMCI_API int armci_domain_nprocs(armci_domain_t domain, int id);
ARMCI_API int armci_domain_id(armci_domain_t domain, int glob_proc_id);
ARMCI_API int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
ARMCI_API int armci_domain_my_id(armci_domain_t domain);
ARMCI_API int armci_domain_count(armci_domain_t domain);
ARMCI_API int armci_domain_same_id(armci_domain_t domain, int proc);
ARMCI_API int ARMCI_Same_node(int proc);

/* Every process reaches every other's ARMCI memory by load and store: 1. */
ARMCI_API int  ARMCI_Uses_shm(void);
ARMCI_API void ARMCI_Set_shm_limit(unsigned long shmemlimit);   /* no limit to set: ignored */
ARMCI_API int  ARMCI_Uses_shm_grp(ARMCI_Group *group);

/* Memory "devices" (ARMCI-MPI's, undocumented there): the device is ignored. */
ARMCI_API int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
ARMCI_API int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device);
ARMCI_API int ARMCI_Free_memdev(void *ptr);

/* --- The profiling interface: PARMCI_X is the library's ARMCI_X, which a
 * profiler may define in the program and call PARMCI_X from. ------------------------------ */
ARMCI_API int     PARMCI_Init(void);
ARMCI_API int     PARMCI_Init_args(int *argc, char ***argv);
ARMCI_API int     PARMCI_Init_thread(int armci_requested);
ARMCI_API int     PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
ARMCI_API int     PARMCI_Init_mpi_comm(MPI_Comm comm);
ARMCI_API int     PARMCI_Initialized(void);
ARMCI_API int     PARMCI_Finalize(void);
ARMCI_API int     PARMCI_Malloc(void **base_ptrs, armci_size_t size);
ARMCI_API int     PARMCI_Free(void *ptr);
ARMCI_API void   *PARMCI_Malloc_local(armci_size_t size);
ARMCI_API int     PARMCI_Free_local(void *ptr);
ARMCI_API void    PARMCI_Barrier(void);
ARMCI_API void    PARMCI_Fence(int proc);
ARMCI_API void    PARMCI_AllFence(void);
ARMCI_API void    PARMCI_Access_begin(void *ptr);
ARMCI_API void    PARMCI_Access_end(void *ptr);
ARMCI_API int     PARMCI_Get(void *src, void *dst, int size, int target);
ARMCI_API int     PARMCI_Put(void *src, void *dst, int size, int target);
ARMCI_API int     PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc);
ARMCI_API int     PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                              int count[], int stride_levels, int proc);
ARMCI_API int     PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                              int count[], int stride_levels, int proc);
ARMCI_API int     PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[],
                              void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels, int proc);
ARMCI_API int     PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc);
ARMCI_API int     PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                                   int count[], int stride_levels, int *flag, int value, int proc);
ARMCI_API int     PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int     PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int     PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc);
ARMCI_API int     PARMCI_Wait(armci_hdl_t *hdl);
ARMCI_API int     PARMCI_Test(armci_hdl_t *hdl);
ARMCI_API int     PARMCI_WaitProc(int proc);
ARMCI_API int     PARMCI_WaitAll(void);
ARMCI_API int     PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                                int count[], int stride_levels, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                                int count[], int stride_levels, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[],
                                void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels, int proc,
                                armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
ARMCI_API int     PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle);
ARMCI_API int     PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                                armci_hdl_t *handle);
ARMCI_API int     PARMCI_PutValueInt(int src, void *dst, int proc);
ARMCI_API int     PARMCI_PutValueLong(long src, void *dst, int proc);
ARMCI_API int     PARMCI_PutValueFloat(float src, void *dst, int proc);
ARMCI_API int     PARMCI_PutValueDouble(double src, void *dst, int proc);
ARMCI_API int     PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *hdl);
ARMCI_API int     PARMCI_GetValueInt(void *src, int proc);
ARMCI_API long    PARMCI_GetValueLong(void *src, int proc);
ARMCI_API float   PARMCI_GetValueFloat(void *src, int proc);
ARMCI_API double  PARMCI_GetValueDouble(void *src, int proc);
ARMCI_API int     PARMCI_Create_mutexes(int count);
ARMCI_API int     PARMCI_Destroy_mutexes(void);
ARMCI_API void    PARMCI_Lock(int mutex, int proc);
ARMCI_API void    PARMCI_Unlock(int mutex, int proc);
ARMCI_API int     PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc);
ARMCI_API void    parmci_msg_barrier(void);
ARMCI_API void    parmci_msg_group_barrier(ARMCI_Group *group);
ARMCI_API int     PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
ARMCI_API int     PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                                             const char *device);
ARMCI_API int     PARMCI_Free_memdev(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
