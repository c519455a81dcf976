/* mpi.h: the MPI 3.1 C interface of smartmap (what is implemented, plus the
 * constants programs commonly use). Every MPI_X has its profiling name PMPI_X.
 *
 * Handles are pointers to opaque library objects (as in Open MPI), so the
 * compiler rejects an MPI_Datatype passed as an MPI_Comm. Predefined handles
 * are small integers cast to the handle type (not addresses of exported
 * variables): they are constant expressions, need no copy relocations, and
 * the library turns them into its objects with one comparison. */
#ifndef SMARTMAP_MPI_H
#define SMARTMAP_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SMPI_API __attribute__((visibility("default")))

#define MPI_VERSION    3
#define MPI_SUBVERSION 1
#define SMARTMAP_MPI   1

typedef struct smpi_comm     *MPI_Comm;
typedef struct smpi_group    *MPI_Group;
typedef struct smpi_type     *MPI_Datatype;
typedef struct smpi_op       *MPI_Op;
typedef struct smpi_request  *MPI_Request;
typedef struct smpi_errh     *MPI_Errhandler;
typedef struct smpi_message  *MPI_Message;
typedef struct smpi_info     *MPI_Info;
typedef intptr_t  MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef int  MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int  MPI_Comm_delete_attr_function(MPI_Comm comm, int keyval, void *attribute_val,
                                           void *extra_state);

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int smpi_cancelled;
    MPI_Count smpi_count;       /* bytes received */
} MPI_Status;

#define SMPI_PREDEF(T, n) ((T)(intptr_t)(n))

/* --- Null handles and predefined objects -------------------------------- */
#define MPI_COMM_NULL       SMPI_PREDEF(MPI_Comm, 0)
#define MPI_COMM_WORLD      SMPI_PREDEF(MPI_Comm, 1)
#define MPI_COMM_SELF       SMPI_PREDEF(MPI_Comm, 2)
#define MPI_GROUP_NULL      SMPI_PREDEF(MPI_Group, 0)
#define MPI_GROUP_EMPTY     SMPI_PREDEF(MPI_Group, 1)
#define MPI_REQUEST_NULL    SMPI_PREDEF(MPI_Request, 0)
#define MPI_ERRHANDLER_NULL SMPI_PREDEF(MPI_Errhandler, 0)
#define MPI_ERRORS_ARE_FATAL SMPI_PREDEF(MPI_Errhandler, 1)
#define MPI_ERRORS_RETURN   SMPI_PREDEF(MPI_Errhandler, 2)
#define MPI_MESSAGE_NULL    SMPI_PREDEF(MPI_Message, 0)
#define MPI_MESSAGE_NO_PROC SMPI_PREDEF(MPI_Message, 1)
#define MPI_INFO_NULL       SMPI_PREDEF(MPI_Info, 0)
#define MPI_INFO_ENV        SMPI_PREDEF(MPI_Info, 1)

/* Datatypes: the numbers index the library's table (src/mpi/type.c). */
#define MPI_DATATYPE_NULL        SMPI_PREDEF(MPI_Datatype, 0)
#define MPI_CHAR                 SMPI_PREDEF(MPI_Datatype, 1)
#define MPI_SIGNED_CHAR          SMPI_PREDEF(MPI_Datatype, 2)
#define MPI_UNSIGNED_CHAR        SMPI_PREDEF(MPI_Datatype, 3)
#define MPI_BYTE                 SMPI_PREDEF(MPI_Datatype, 4)
#define MPI_WCHAR                SMPI_PREDEF(MPI_Datatype, 5)
#define MPI_SHORT                SMPI_PREDEF(MPI_Datatype, 6)
#define MPI_UNSIGNED_SHORT       SMPI_PREDEF(MPI_Datatype, 7)
#define MPI_INT                  SMPI_PREDEF(MPI_Datatype, 8)
#define MPI_UNSIGNED             SMPI_PREDEF(MPI_Datatype, 9)
#define MPI_LONG                 SMPI_PREDEF(MPI_Datatype, 10)
#define MPI_UNSIGNED_LONG        SMPI_PREDEF(MPI_Datatype, 11)
#define MPI_LONG_LONG_INT        SMPI_PREDEF(MPI_Datatype, 12)
#define MPI_LONG_LONG            MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG   SMPI_PREDEF(MPI_Datatype, 13)
#define MPI_FLOAT                SMPI_PREDEF(MPI_Datatype, 14)
#define MPI_DOUBLE               SMPI_PREDEF(MPI_Datatype, 15)
#define MPI_LONG_DOUBLE          SMPI_PREDEF(MPI_Datatype, 16)
#define MPI_INT8_T               SMPI_PREDEF(MPI_Datatype, 17)
#define MPI_INT16_T              SMPI_PREDEF(MPI_Datatype, 18)
#define MPI_INT32_T              SMPI_PREDEF(MPI_Datatype, 19)
#define MPI_INT64_T              SMPI_PREDEF(MPI_Datatype, 20)
#define MPI_UINT8_T              SMPI_PREDEF(MPI_Datatype, 21)
#define MPI_UINT16_T             SMPI_PREDEF(MPI_Datatype, 22)
#define MPI_UINT32_T             SMPI_PREDEF(MPI_Datatype, 23)
#define MPI_UINT64_T             SMPI_PREDEF(MPI_Datatype, 24)
#define MPI_C_BOOL               SMPI_PREDEF(MPI_Datatype, 25)
#define MPI_C_FLOAT_COMPLEX      SMPI_PREDEF(MPI_Datatype, 26)
#define MPI_C_COMPLEX            MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX     SMPI_PREDEF(MPI_Datatype, 27)
#define MPI_C_LONG_DOUBLE_COMPLEX SMPI_PREDEF(MPI_Datatype, 28)
#define MPI_AINT                 SMPI_PREDEF(MPI_Datatype, 29)
#define MPI_OFFSET               SMPI_PREDEF(MPI_Datatype, 30)
#define MPI_COUNT                SMPI_PREDEF(MPI_Datatype, 31)
#define MPI_PACKED               SMPI_PREDEF(MPI_Datatype, 32)
#define MPI_FLOAT_INT            SMPI_PREDEF(MPI_Datatype, 33)
#define MPI_DOUBLE_INT           SMPI_PREDEF(MPI_Datatype, 34)
#define MPI_LONG_INT             SMPI_PREDEF(MPI_Datatype, 35)
#define MPI_2INT                 SMPI_PREDEF(MPI_Datatype, 36)
#define MPI_SHORT_INT            SMPI_PREDEF(MPI_Datatype, 37)
#define MPI_LONG_DOUBLE_INT      SMPI_PREDEF(MPI_Datatype, 38)
#define SMPI_TYPE_PREDEF_COUNT   39

#define MPI_OP_NULL  SMPI_PREDEF(MPI_Op, 0)
#define MPI_MAX      SMPI_PREDEF(MPI_Op, 1)
#define MPI_MIN      SMPI_PREDEF(MPI_Op, 2)
#define MPI_SUM      SMPI_PREDEF(MPI_Op, 3)
#define MPI_PROD     SMPI_PREDEF(MPI_Op, 4)
#define MPI_LAND     SMPI_PREDEF(MPI_Op, 5)
#define MPI_BAND     SMPI_PREDEF(MPI_Op, 6)
#define MPI_LOR      SMPI_PREDEF(MPI_Op, 7)
#define MPI_BOR      SMPI_PREDEF(MPI_Op, 8)
#define MPI_LXOR     SMPI_PREDEF(MPI_Op, 9)
#define MPI_BXOR     SMPI_PREDEF(MPI_Op, 10)
#define MPI_MINLOC   SMPI_PREDEF(MPI_Op, 11)
#define MPI_MAXLOC   SMPI_PREDEF(MPI_Op, 12)
#define MPI_REPLACE  SMPI_PREDEF(MPI_Op, 13)
#define MPI_NO_OP    SMPI_PREDEF(MPI_Op, 14)

/* --- Constants --------------------------------------------------------------- */
#define MPI_ANY_SOURCE   (-1)
#define MPI_PROC_NULL    (-2)
#define MPI_ROOT         (-3)
#define MPI_ANY_TAG      (-1)
#define MPI_UNDEFINED    (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 128
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING   256
#define MPI_MAX_OBJECT_NAME    128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY       255
#define MPI_MAX_INFO_VAL       1024
#define MPI_MAX_PORT_NAME      256
#define MPI_STATUS_IGNORE   ((MPI_Status *)0)  /* as Open MPI: no bogus address for GCC to check */
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE        ((void *)1)
#define MPI_BOTTOM          ((void *)0)
#define MPI_UNWEIGHTED      ((int *)2)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)

enum { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
enum { MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL };
enum { MPI_COMM_TYPE_SHARED = 1 };
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
/* Predefined attribute keys on MPI_COMM_WORLD. */
enum { MPI_TAG_UB = 1000, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE,
       MPI_LASTUSEDCODE };
enum { MPI_COMBINER_NAMED, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR,
       MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED,
       MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT,
       MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_RESIZED, MPI_COMBINER_F90_REAL,
       MPI_COMBINER_F90_COMPLEX, MPI_COMBINER_F90_INTEGER };

/* Error classes (MPI 3.1 §8.4); codes are classes. */
enum {
    MPI_SUCCESS = 0, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
    MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
    MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_KEYVAL, MPI_ERR_NO_MEM, MPI_ERR_BASE,
    MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_SPAWN, MPI_ERR_PORT,
    MPI_ERR_SERVICE, MPI_ERR_NAME, MPI_ERR_WIN, MPI_ERR_SIZE, MPI_ERR_DISP, MPI_ERR_INFO,
    MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_SYNC,
    MPI_ERR_RMA_RANGE, MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_FLAVOR,
    MPI_ERR_FILE, MPI_ERR_NOT_SAME, MPI_ERR_AMODE, MPI_ERR_UNSUPPORTED_DATAREP,
    MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS,
    MPI_ERR_BAD_FILE, MPI_ERR_ACCESS, MPI_ERR_NO_SPACE, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY,
    MPI_ERR_FILE_IN_USE, MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION, MPI_ERR_IO,
    /* the tool information interface's (§14.3.9); its routines return them */
    MPI_T_ERR_MEMORY, MPI_T_ERR_NOT_INITIALIZED, MPI_T_ERR_CANNOT_INIT, MPI_T_ERR_INVALID_INDEX,
    MPI_T_ERR_INVALID_ITEM, MPI_T_ERR_INVALID_HANDLE, MPI_T_ERR_OUT_OF_HANDLES, MPI_T_ERR_OUT_OF_SESSIONS,
    MPI_T_ERR_INVALID_SESSION, MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_ERR_CVAR_SET_NEVER,
    MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_ERR_PVAR_NO_WRITE, MPI_T_ERR_PVAR_NO_ATOMIC, MPI_T_ERR_INVALID_NAME,
    MPI_T_ERR_INVALID,
    MPI_ERR_LASTCODE
};

/* The MPI-1 attribute calls (deprecated, still in MPI 3.1). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

/* The MPI-1 error handler type (removed in MPI 3.0 with MPI_Errhandler_create;
 * kept for the programs that still use them, as Open MPI's MPI-1 compatibility does). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;

/* Predefined attribute callbacks. */
SMPI_API int smpi_comm_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_DUP_FN         smpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_NULL_COPY_FN        MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN              MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN      MPI_COMM_NULL_DELETE_FN

/* Declares MPI_name and its profiling twin PMPI_name. */
#define SMPI_DECL(ret, name, args) SMPI_API ret MPI_##name args; SMPI_API ret PMPI_##name args;

/* Environment */
SMPI_DECL(int, Init, (int *argc, char ***argv))
SMPI_DECL(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
SMPI_DECL(int, Finalize, (void))
SMPI_DECL(int, Initialized, (int *flag))
SMPI_DECL(int, Finalized, (int *flag))
SMPI_DECL(int, Abort, (MPI_Comm comm, int errorcode))
SMPI_DECL(double, Wtime, (void))
SMPI_DECL(double, Wtick, (void))
SMPI_DECL(int, Get_processor_name, (char *name, int *resultlen))
SMPI_DECL(int, Pcontrol, (const int level, ...))
SMPI_DECL(int, Get_version, (int *version, int *subversion))
SMPI_DECL(int, Get_library_version, (char *version, int *resultlen))
SMPI_DECL(int, Query_thread, (int *provided))
SMPI_DECL(int, Is_thread_main, (int *flag))

/* Errors */
SMPI_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
SMPI_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
SMPI_DECL(int, Errhandler_free, (MPI_Errhandler *errhandler))
SMPI_DECL(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
SMPI_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
/* MPI-1's names for the communicator's (removed in MPI 3.0, as above) */
SMPI_DECL(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
SMPI_DECL(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
SMPI_DECL(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
SMPI_DECL(int, Error_string, (int errorcode, char *string, int *resultlen))
SMPI_DECL(int, Error_class, (int errorcode, int *errorclass))
SMPI_DECL(int, Add_error_class, (int *errorclass))
SMPI_DECL(int, Add_error_code, (int errorclass, int *errorcode))
SMPI_DECL(int, Add_error_string, (int errorcode, const char *string))

/* Point-to-point */
SMPI_DECL(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_DECL(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_DECL(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_DECL(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_DECL(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request))
SMPI_DECL(int, Buffer_attach, (void *buffer, int size))
SMPI_DECL(int, Buffer_detach, (void *buffer_addr, int *size))
SMPI_DECL(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                      MPI_Status *status))
SMPI_DECL(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request))
SMPI_DECL(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request))
SMPI_DECL(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request))
SMPI_DECL(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Request *request))
SMPI_DECL(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Start, (MPI_Request *request))
SMPI_DECL(int, Startall, (int count, MPI_Request array_of_requests[]))
SMPI_DECL(int, Wait, (MPI_Request *request, MPI_Status *status))
SMPI_DECL(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
SMPI_DECL(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
SMPI_DECL(int, Testall, (int count, MPI_Request array_of_requests[], int *flag,
                         MPI_Status array_of_statuses[]))
SMPI_DECL(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
SMPI_DECL(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag,
                         MPI_Status *status))
SMPI_DECL(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[]))
SMPI_DECL(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[]))
SMPI_DECL(int, Request_free, (MPI_Request *request))
SMPI_DECL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
SMPI_DECL(int, Cancel, (MPI_Request *request))
SMPI_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag))
SMPI_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
SMPI_DECL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
SMPI_DECL(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
SMPI_DECL(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
SMPI_DECL(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
SMPI_DECL(int, Status_set_cancelled, (MPI_Status *status, int flag))
/* Generalized requests (MPI 3.1 §12.2). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
SMPI_DECL(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
SMPI_DECL(int, Grequest_complete, (MPI_Request request))
SMPI_DECL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
SMPI_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
SMPI_DECL(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
SMPI_DECL(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                         MPI_Status *status))
SMPI_DECL(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                       MPI_Status *status))
SMPI_DECL(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Request *request))
SMPI_DECL(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                          int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status))
SMPI_DECL(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                  int source, int recvtag, MPI_Comm comm, MPI_Status *status))

/* Communicators and groups */
SMPI_DECL(int, Comm_size, (MPI_Comm comm, int *size))
SMPI_DECL(int, Comm_rank, (MPI_Comm comm, int *rank))
SMPI_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
SMPI_DECL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
SMPI_DECL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
SMPI_DECL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info,
                                 MPI_Comm *newcomm))
SMPI_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_free, (MPI_Comm *comm))
SMPI_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
SMPI_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
SMPI_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag))
SMPI_DECL(int, Comm_remote_size, (MPI_Comm comm, int *size))
SMPI_DECL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
SMPI_DECL(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                  int tag, MPI_Comm *newintercomm))
SMPI_DECL(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))

/* Dynamic processes, within one smrun job (README: what they can reach) */
SMPI_DECL(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
SMPI_DECL(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[],
                                     const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                     MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
SMPI_DECL(int, Comm_get_parent, (MPI_Comm *parent))
SMPI_DECL(int, Open_port, (MPI_Info info, char *port_name))
SMPI_DECL(int, Close_port, (const char *port_name))
SMPI_DECL(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
SMPI_DECL(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
SMPI_DECL(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
SMPI_DECL(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
SMPI_DECL(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
SMPI_DECL(int, Comm_join, (int fd, MPI_Comm *intercomm))
SMPI_DECL(int, Comm_disconnect, (MPI_Comm *comm))
SMPI_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
SMPI_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
SMPI_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
SMPI_DECL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
SMPI_DECL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
SMPI_DECL(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                    MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                    void *extra_state))
SMPI_DECL(int, Comm_free_keyval, (int *comm_keyval))
SMPI_DECL(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                               void *extra_state))
SMPI_DECL(int, Keyval_free, (int *keyval))
SMPI_DECL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
SMPI_DECL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
SMPI_DECL(int, Attr_delete, (MPI_Comm comm, int keyval))
SMPI_DECL(int, Group_size, (MPI_Group group, int *size))
SMPI_DECL(int, Group_rank, (MPI_Group group, int *rank))
SMPI_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
SMPI_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
SMPI_DECL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
SMPI_DECL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
SMPI_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
SMPI_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
SMPI_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
SMPI_DECL(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                       int ranks2[]))
SMPI_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
SMPI_DECL(int, Group_free, (MPI_Group *group))

/* Datatypes */
SMPI_DECL(int, Type_size, (MPI_Datatype datatype, int *size))
SMPI_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
SMPI_DECL(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
SMPI_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
SMPI_DECL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
SMPI_DECL(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
SMPI_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_DECL(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype))
SMPI_DECL(int, Type_indexed, (int count, const int array_of_blocklengths[],
                              const int array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                      const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                    const MPI_Aint array_of_displacements[],
                                    const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                      const int array_of_starts[], int order, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                     MPI_Datatype *newtype))
/* Distributed arrays (MPI 3.1 §4.1.4) */
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
SMPI_DECL(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[],
                                    const int array_of_distribs[], const int array_of_dargs[],
                                    const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype))
SMPI_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
SMPI_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
/* Datatype attributes (MPI 3.1 §6.7.4) */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                          void *extra_state);
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_DUP_FN         ((MPI_Type_copy_attr_function *)smpi_comm_dup_fn)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
/* Fortran 90 parameterised types (MPI 3.1 §17.1.9): predefined, never freed */
SMPI_DECL(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
SMPI_DECL(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn,
                                    MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                                    void *extra_state))
SMPI_DECL(int, Type_free_keyval, (int *type_keyval))
SMPI_DECL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
SMPI_DECL(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
SMPI_DECL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
SMPI_DECL(int, Type_commit, (MPI_Datatype *datatype))
SMPI_DECL(int, Type_free, (MPI_Datatype *datatype))
SMPI_DECL(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                      int *position, MPI_Comm comm))
SMPI_DECL(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                        MPI_Datatype datatype, MPI_Comm comm))
SMPI_DECL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
/* The portable representation (MPI 3.1 §4.2.3, §13.5.2): datarep "external32" */
SMPI_DECL(int, Pack_external, (const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                               void *outbuf, MPI_Aint outsize, MPI_Aint *position))
SMPI_DECL(int, Unpack_external, (const char *datarep, const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                 void *outbuf, int outcount, MPI_Datatype datatype))
SMPI_DECL(int, Pack_external_size, (const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size))
SMPI_DECL(int, Get_address, (const void *location, MPI_Aint *address))
/* The MPI-1 names of the routines above (deprecated in MPI 2.0, removed in
 * 3.0; the MPI 2.2 prototypes): old programs still call them. */
SMPI_DECL(int, Address, (void *location, MPI_Aint *address))
SMPI_DECL(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                              MPI_Datatype *newtype))
SMPI_DECL(int, Type_hindexed, (int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                               MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_DECL(int, Type_struct, (int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                             MPI_Datatype *array_of_types, MPI_Datatype *newtype))
SMPI_DECL(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
SMPI_DECL(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
SMPI_DECL(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
SMPI_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
SMPI_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
SMPI_DECL(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                   int *num_datatypes, int *combiner))
SMPI_DECL(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                                   int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                                   MPI_Datatype array_of_datatypes[]))

SMPI_DECL(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
SMPI_DECL(int, Op_free, (MPI_Op *op))
SMPI_DECL(int, Op_commutative, (MPI_Op op, int *commute))
SMPI_DECL(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))

/* Info objects */
SMPI_DECL(int, Info_create, (MPI_Info *info))
SMPI_DECL(int, Info_set, (MPI_Info info, const char *key, const char *value))
SMPI_DECL(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
SMPI_DECL(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
SMPI_DECL(int, Info_delete, (MPI_Info info, const char *key))
SMPI_DECL(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
SMPI_DECL(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
SMPI_DECL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
SMPI_DECL(int, Info_free, (MPI_Info *info))

/* Memory: MPI_Alloc_mem gives heap memory, which every peer maps (the
 * single-copy path reads it directly). */
SMPI_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
SMPI_DECL(int, Free_mem, (void *base))

/* Collectives */
SMPI_DECL(int, Barrier, (MPI_Comm comm))
SMPI_DECL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
SMPI_DECL(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        int root, MPI_Comm comm))
SMPI_DECL(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm))
SMPI_DECL(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_DECL(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_DECL(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm))
SMPI_DECL(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm))
SMPI_DECL(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm))
SMPI_DECL(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm))
SMPI_DECL(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                         MPI_Comm comm))
SMPI_DECL(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_DECL(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm))

/* Nonblocking collectives: they progress in every MPI call and complete
 * through the request like point-to-point ones. */
SMPI_DECL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        MPI_Request *request))
SMPI_DECL(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         int root, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                           MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request))
SMPI_DECL(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request))


/* --- One-sided communication (MPI RMA, MPI 3.1 chapter 11) --------------------
 * Every window is reachable by loads and stores from every rank (all memory
 * is exposed, or reached through smartmap's fallback copies): operations
 * complete as they are issued, the target never takes part (passive target
 * is truly passive), and MPI_Win_shared_query answers for every window,
 * not only for MPI_Win_allocate_shared's (size 0 and NULL where the memory
 * is private to its rank). The memory model is MPI_WIN_UNIFIED. */
typedef struct smpi_win *MPI_Win;
#define MPI_WIN_NULL SMPI_PREDEF(MPI_Win, 0)
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *code, ...);
typedef int  MPI_Win_copy_attr_function(MPI_Win oldwin, int keyval, void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int  MPI_Win_delete_attr_function(MPI_Win win, int keyval, void *attribute_val, void *extra_state);
/* (windows are never duplicated, so no copy callback is ever called) */
#define MPI_WIN_NULL_COPY_FN   ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_DUP_FN         ((MPI_Win_copy_attr_function *)smpi_comm_dup_fn)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
/* Assertions, lock types, flavors, memory models, predefined attributes. */
enum { MPI_MODE_NOCHECK = 1024, MPI_MODE_NOSTORE = 2048, MPI_MODE_NOPUT = 4096, MPI_MODE_NOPRECEDE = 8192,
       MPI_MODE_NOSUCCEED = 16384 };
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
enum { MPI_WIN_FLAVOR_CREATE = 1, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED };
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };
enum { MPI_WIN_BASE = 1100, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL };

SMPI_DECL(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
SMPI_DECL(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                              MPI_Win *win))
SMPI_DECL(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                     MPI_Win *win))
SMPI_DECL(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
SMPI_DECL(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
SMPI_DECL(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
SMPI_DECL(int, Win_detach, (MPI_Win win, const void *base))
SMPI_DECL(int, Win_free, (MPI_Win *win))
SMPI_DECL(int, Win_get_group, (MPI_Win win, MPI_Group *group))
SMPI_DECL(int, Win_set_info, (MPI_Win win, MPI_Info info))
SMPI_DECL(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
SMPI_DECL(int, Win_set_name, (MPI_Win win, const char *win_name))
SMPI_DECL(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
SMPI_DECL(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn,
                                   MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                                   void *extra_state))
SMPI_DECL(int, Win_free_keyval, (int *win_keyval))
SMPI_DECL(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
SMPI_DECL(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
SMPI_DECL(int, Win_delete_attr, (MPI_Win win, int win_keyval))
SMPI_DECL(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
SMPI_DECL(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
SMPI_DECL(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
SMPI_DECL(int, Win_call_errhandler, (MPI_Win win, int errorcode))
SMPI_DECL(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
SMPI_DECL(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
SMPI_DECL(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                            MPI_Op op, MPI_Win win))
SMPI_DECL(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                void *result_addr, int result_count, MPI_Datatype result_datatype,
                                int target_rank, MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
SMPI_DECL(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                              MPI_Aint target_disp, MPI_Op op, MPI_Win win))
SMPI_DECL(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr,
                                  MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
SMPI_DECL(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                      MPI_Request *request))
SMPI_DECL(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                      MPI_Request *request))
SMPI_DECL(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
SMPI_DECL(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                 void *result_addr, int result_count, MPI_Datatype result_datatype,
                                 int target_rank, MPI_Aint target_disp, int target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
SMPI_DECL(int, Win_fence, (int assert, MPI_Win win))
SMPI_DECL(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
SMPI_DECL(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
SMPI_DECL(int, Win_complete, (MPI_Win win))
SMPI_DECL(int, Win_wait, (MPI_Win win))
SMPI_DECL(int, Win_test, (MPI_Win win, int *flag))
SMPI_DECL(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
SMPI_DECL(int, Win_unlock, (int rank, MPI_Win win))
SMPI_DECL(int, Win_lock_all, (int assert, MPI_Win win))
SMPI_DECL(int, Win_unlock_all, (MPI_Win win))
SMPI_DECL(int, Win_flush, (int rank, MPI_Win win))
SMPI_DECL(int, Win_flush_all, (MPI_Win win))
SMPI_DECL(int, Win_flush_local, (int rank, MPI_Win win))
SMPI_DECL(int, Win_flush_local_all, (MPI_Win win))
SMPI_DECL(int, Win_sync, (MPI_Win win))

/* Process topologies and neighbourhood collectives (MPI 3.1 chapter 7).
 * Ranks are never reordered: a topology's rank is the old communicator's. */
#define MPI_GRAPH         1
#define MPI_CART          2
#define MPI_DIST_GRAPH    3
#define MPI_WEIGHTS_EMPTY ((int *)3)   /* a weighted graph's empty weight list (the weight
                                        * arguments are pointers, not arrays, so that GCC
                                        * does not read this or MPI_UNWEIGHTED as arrays) */
SMPI_DECL(int, Topo_test, (MPI_Comm comm, int *status))
SMPI_DECL(int, Dims_create, (int nnodes, int ndims, int dims[]))
SMPI_DECL(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                             MPI_Comm *comm_cart))
SMPI_DECL(int, Cartdim_get, (MPI_Comm comm, int *ndims))
SMPI_DECL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
SMPI_DECL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
SMPI_DECL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
SMPI_DECL(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
SMPI_DECL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
SMPI_DECL(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
SMPI_DECL(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                              MPI_Comm *comm_graph))
SMPI_DECL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
SMPI_DECL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
SMPI_DECL(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
SMPI_DECL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
SMPI_DECL(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
SMPI_DECL(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                            const int *sourceweights, int outdegree, const int destinations[],
                                            const int *destweights, MPI_Info info, int reorder,
                                            MPI_Comm *comm_dist_graph))
SMPI_DECL(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                   const int destinations[], const int *weights, MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph))
SMPI_DECL(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
SMPI_DECL(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                                      int maxoutdegree, int destinations[], int *destweights))
SMPI_DECL(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm))
SMPI_DECL(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_DECL(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
SMPI_DECL(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_DECL(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Request *request))
SMPI_DECL(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Request *request))

/* Fortran interoperability (MPI 3.1 §17.2.4-5; src/mpi/fint.c). A Fortran
 * handle is an INTEGER: a predefined C handle's own small number, or an
 * index the library keeps for a user object. A Fortran status is the C
 * status's bytes as MPI_STATUS_SIZE INTEGERs; MPI_F08_status has the same
 * bytes with its public fields named. The IGNORE addresses are the Fortran
 * layer's COMMON blocks. */
typedef int MPI_Fint;
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint smpi_hidden[(sizeof(MPI_Status) - 3 * sizeof(MPI_Fint)) / sizeof(MPI_Fint)];
} MPI_F08_status;
SMPI_API extern MPI_Fint mpi_fortran_status_ignore_[], mpi_fortran_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE     (&mpi_fortran_status_ignore_[0])
#define MPI_F_STATUSES_IGNORE   (&mpi_fortran_statuses_ignore_[0])
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)mpi_fortran_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)mpi_fortran_statuses_ignore_)
SMPI_DECL(MPI_Comm, Comm_f2c, (MPI_Fint comm))
SMPI_DECL(MPI_Fint, Comm_c2f, (MPI_Comm comm))
SMPI_DECL(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
SMPI_DECL(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
SMPI_DECL(MPI_Group, Group_f2c, (MPI_Fint group))
SMPI_DECL(MPI_Fint, Group_c2f, (MPI_Group group))
SMPI_DECL(MPI_Op, Op_f2c, (MPI_Fint op))
SMPI_DECL(MPI_Fint, Op_c2f, (MPI_Op op))
SMPI_DECL(MPI_Request, Request_f2c, (MPI_Fint request))
SMPI_DECL(MPI_Fint, Request_c2f, (MPI_Request request))
SMPI_DECL(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
SMPI_DECL(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
SMPI_DECL(MPI_Message, Message_f2c, (MPI_Fint message))
SMPI_DECL(MPI_Fint, Message_c2f, (MPI_Message message))
SMPI_DECL(MPI_Info, Info_f2c, (MPI_Fint info))
SMPI_DECL(MPI_Fint, Info_c2f, (MPI_Info info))
SMPI_DECL(MPI_Win, Win_f2c, (MPI_Fint win))
SMPI_DECL(MPI_Fint, Win_c2f, (MPI_Win win))
SMPI_DECL(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
SMPI_DECL(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
SMPI_DECL(int, Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status))
SMPI_DECL(int, Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status))
SMPI_DECL(int, Status_f082f, (const MPI_F08_status *f08_status, MPI_Fint *f_status))
SMPI_DECL(int, Status_f2f08, (const MPI_Fint *f_status, MPI_F08_status *f08_status))

/* --- The tool information interface (MPI 3.1 §14.3) -----------------------
 * smartmap has no control or performance variables and no categories: the
 * counts are 0 and every index is invalid, correctly. Callable before
 * MPI_Init and after MPI_Finalize, from any thread. */
typedef struct smpi_t_enum    *MPI_T_enum;
typedef struct smpi_t_cvar    *MPI_T_cvar_handle;
typedef struct smpi_t_pvar    *MPI_T_pvar_handle;
typedef struct smpi_t_session *MPI_T_pvar_session;
#define MPI_T_ENUM_NULL          SMPI_PREDEF(MPI_T_enum, 0)
#define MPI_T_CVAR_HANDLE_NULL   SMPI_PREDEF(MPI_T_cvar_handle, 0)
#define MPI_T_PVAR_HANDLE_NULL   SMPI_PREDEF(MPI_T_pvar_handle, 0)
#define MPI_T_PVAR_ALL_HANDLES   SMPI_PREDEF(MPI_T_pvar_handle, 1)
#define MPI_T_PVAR_SESSION_NULL  SMPI_PREDEF(MPI_T_pvar_session, 0)
enum { MPI_T_VERBOSITY_USER_BASIC, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
       MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
       MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL };
enum { MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE, MPI_T_BIND_MPI_ERRHANDLER,
       MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP, MPI_T_BIND_MPI_REQUEST,
       MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO };
enum { MPI_T_SCOPE_CONSTANT, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
       MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL, MPI_T_SCOPE_ALL_EQ };
enum { MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE, MPI_T_PVAR_CLASS_PERCENTAGE,
       MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_LOWWATERMARK, MPI_T_PVAR_CLASS_COUNTER,
       MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER, MPI_T_PVAR_CLASS_GENERIC };

SMPI_DECL(int, T_init_thread, (int required, int *provided))
SMPI_DECL(int, T_finalize, (void))
SMPI_DECL(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
SMPI_DECL(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
SMPI_DECL(int, T_cvar_get_num, (int *num_cvar))
SMPI_DECL(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity,
                                 MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                 int *bind, int *scope))
SMPI_DECL(int, T_cvar_get_index, (const char *name, int *cvar_index))
SMPI_DECL(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
SMPI_DECL(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
SMPI_DECL(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
SMPI_DECL(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
SMPI_DECL(int, T_pvar_get_num, (int *num_pvar))
SMPI_DECL(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                 MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                 int *bind, int *readonly, int *continuous, int *atomic))
SMPI_DECL(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
SMPI_DECL(int, T_pvar_session_create, (MPI_T_pvar_session *session))
SMPI_DECL(int, T_pvar_session_free, (MPI_T_pvar_session *session))
SMPI_DECL(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                     MPI_T_pvar_handle *handle, int *count))
SMPI_DECL(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
SMPI_DECL(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
SMPI_DECL(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
SMPI_DECL(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
SMPI_DECL(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
SMPI_DECL(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
SMPI_DECL(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
SMPI_DECL(int, T_category_get_num, (int *num_cat))
SMPI_DECL(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                     int *num_cvars, int *num_pvars, int *num_categories))
SMPI_DECL(int, T_category_get_index, (const char *name, int *cat_index))
SMPI_DECL(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
SMPI_DECL(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
SMPI_DECL(int, T_category_get_categories, (int cat_index, int len, int indices[]))
SMPI_DECL(int, T_category_changed, (int *stamp))

#undef SMPI_DECL

#ifdef __cplusplus
}
#endif
#endif
