/* MPI errors: error classes and their texts, the program's own classes
 * and codes (MPI_Add_error_class/code/string), error handlers
 * (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, the user's), and the one-line report. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

static const char *const class_text[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid communicator topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: could not spawn processes",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name to look up",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronisation of RMA calls",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective arguments not identical",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion failed",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialised",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialised",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: invalid variable or category index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: invalid enumeration item index",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid tool interface handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more variable handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more performance variable sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid performance variable session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: performance variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category of that name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tool interface",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
};

/* The program's classes and codes, numbered from MPI_ERR_LASTCODE + 1
 * (a class is a code of its own class); smpi_last_code is the last one
 * given (MPI_LASTUSEDCODE). */
#define USER_CODES 1024
static struct user_code { int cls; char *text; } user[USER_CODES];
int smpi_last_code = MPI_ERR_LASTCODE;
static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;

static struct user_code *user_of(int code)
{
    int last = __atomic_load_n(&smpi_last_code, __ATOMIC_ACQUIRE);
    return code > MPI_ERR_LASTCODE && code <= last ? &user[code - MPI_ERR_LASTCODE - 1] : NULL;
}

static const char *text_of(int code)
{
    struct user_code *u = user_of(code);
    if (u) return u->text ? u->text : "";
    if (code < 0 || code >= MPI_ERR_LASTCODE) return NULL;
    return class_text[code] ? class_text[code] : "MPI error";
}

/* A new code of class cls (-1: a new class, its own), or -1 when all are taken. */
static int new_code(int cls)
{
    if (smpi_mt) pthread_mutex_lock(&user_lock);
    int code = smpi_last_code + 1;
    if (code - MPI_ERR_LASTCODE <= USER_CODES) {
        user[code - MPI_ERR_LASTCODE - 1] = (struct user_code){ cls < 0 ? code : cls, NULL };
        __atomic_store_n(&smpi_last_code, code, __ATOMIC_RELEASE);
    } else code = -1;
    if (smpi_mt) pthread_mutex_unlock(&user_lock);
    return code;
}

int PMPI_Add_error_class(int *errorclass)
{
    static const char R[] = "MPI_Add_error_class";
    SMPI_CHECK_INIT(R);
    if (!errorclass) return smpi_error(NULL, MPI_ERR_ARG, R, "errorclass is NULL");
    int c = new_code(-1);
    if (c < 0) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no room for another error class (%d codes at most)", USER_CODES);
    *errorclass = c;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_class = PMPI_Add_error_class

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char R[] = "MPI_Add_error_code";
    SMPI_CHECK_INIT(R);
    if (!errorcode) return smpi_error(NULL, MPI_ERR_ARG, R, "errorcode is NULL");
    struct user_code *u = user_of(errorclass);
    if (!(errorclass >= 0 && errorclass < MPI_ERR_LASTCODE) && !(u && u->cls == errorclass))
        return smpi_error(NULL, MPI_ERR_ARG, R, "%d is not an error class", errorclass);
    int c = new_code(errorclass);
    if (c < 0) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no room for another error code (%d at most)", USER_CODES);
    *errorcode = c;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_code = PMPI_Add_error_code

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char R[] = "MPI_Add_error_string";
    SMPI_CHECK_INIT(R);
    struct user_code *u = user_of(errorcode);
    if (!u) return smpi_error(NULL, MPI_ERR_ARG, R, "%d is not a class or code MPI_Add_error_class/code made", errorcode);
    if (!string) return smpi_error(NULL, MPI_ERR_ARG, R, "string is NULL");
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return smpi_error(NULL, MPI_ERR_ARG, R, "string of %zu characters (MPI_MAX_ERROR_STRING is %d)", strlen(string),
                          MPI_MAX_ERROR_STRING);
    char *t = strdup(string);
    if (!t) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for the string");
    if (smpi_mt) pthread_mutex_lock(&user_lock);
    char *old = u->text;
    u->text = t;                    /* (a thread reading the old one at this moment: the standard leaves it) */
    if (smpi_mt) pthread_mutex_unlock(&user_lock);
    free(old);
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_string = PMPI_Add_error_string

int smpi_class_of(sm_status_t st)
{
    switch (st) {
    case SM_OK: return MPI_SUCCESS;
    case SM_ERR_ARG: return MPI_ERR_ARG;
    case SM_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case SM_ERR_ACCESS: return MPI_ERR_BUFFER;
    case SM_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case SM_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case SM_ERR_INTERN: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;     /* SM_ERR_STATE, SM_ERR_PEER, SM_ERR_MISMATCH */
    }
}

/* MPI_ERRORS_ARE_FATAL: one line naming routine, class and value, then the job ends. */
static _Noreturn void fatal(int cls, const char *routine, const char *fmt, va_list ap)
{
    const char *text = text_of(cls) && *text_of(cls) ? text_of(cls) : "MPI error";
    char what[256];
    vsnprintf(what, sizeof what, fmt, ap);
    sm_say("%s: %s: %s", routine, text, what);
    char note[128];
    int clen = (int)(strchr(text, ':') ? strchr(text, ':') - text : (ptrdiff_t)strlen(text));
    snprintf(note, sizeof note, "MPI_ERRORS_ARE_FATAL in %s (%.*s)", routine, clen, text);
    sm_abort(cls, note);
}

int smpi_error(struct smpi_comm *comm, int cls, const char *routine, const char *fmt, ...)
{
    if (!comm) comm = &smpi_comm_world;
    MPI_Errhandler eh = comm->errh;
    if (eh == MPI_ERRORS_RETURN) return cls;
    struct smpi_errh *u = smpi_user_errh(eh);
    if (u && u->fn) {
        /* MPI passes the handle and the code; the handler may return (then
         * so does the routine, with the code) or end the program itself. */
        MPI_Comm h = smpi_comm_handle(comm);
        int code = cls;
        smpi_errh_ref(u);                /* the handler may free it, or reset the comm's */
        u->fn(&h, &code, routine);
        smpi_errh_unref(u);
        return cls;
    }
    va_list ap;
    va_start(ap, fmt);
    fatal(cls, routine, fmt, ap);
}

int smpi_win_error(MPI_Errhandler eh, MPI_Win win, int cls, const char *routine, const char *fmt, ...)
{
    if (eh == MPI_ERRORS_RETURN) return cls;
    struct smpi_errh *u = smpi_user_errh(eh);
    if (u && u->win_fn) {
        int code = cls;
        smpi_errh_ref(u);
        u->win_fn(&win, &code, routine);
        smpi_errh_unref(u);
        return cls;
    }
    va_list ap;
    va_start(ap, fmt);
    fatal(cls, routine, fmt, ap);
}

/* A communicator's error handler (a window's is not one). */
static int errh_check(MPI_Errhandler e)
{
    return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN || (smpi_user_errh(e) && smpi_user_errh(e)->fn);
}

static int set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!errh_check(errhandler))
        return smpi_error(c, MPI_ERR_ARG, R, "invalid error handler %s",
                          smpi_hstr((const void *)errhandler, "MPI_ERRHANDLER_NULL"));
    smpi_errh_ref(errhandler);
    smpi_errh_unref(c->errh);
    c->errh = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(comm, errhandler, "MPI_Comm_set_errhandler");
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

/* MPI-1's name (removed in MPI 3.0): the same call, its errors under its own name */
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(comm, errhandler, "MPI_Errhandler_set");
}
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set

static int get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!errhandler) return smpi_error(c, MPI_ERR_ARG, R, "errhandler is NULL");
    smpi_errh_ref(c->errh);              /* a new reference: the caller frees it (MPI-3.1 §8.3.4) */
    *errhandler = c->errh;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler(comm, errhandler, "MPI_Comm_get_errhandler");
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

/* MPI-1's name: as MPI_Comm_get_errhandler, a new reference the caller may free */
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler(comm, errhandler, "MPI_Errhandler_get");
}
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char R[] = "MPI_Errhandler_free";
    if (!errhandler) return smpi_error(NULL, MPI_ERR_ARG, R, "errhandler is NULL");
    if (!errh_check(*errhandler) && !smpi_user_errh(*errhandler))
        return smpi_error(NULL, MPI_ERR_ARG, R, "invalid error handler %s",
                          smpi_hstr((const void *)*errhandler, "MPI_ERRHANDLER_NULL"));
    smpi_errh_unref(*errhandler);        /* the predefined ones are never really freed */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free

static int create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler, const char *R)
{
    SMPI_CHECK_INIT(R);
    if (!function) return smpi_error(NULL, MPI_ERR_ARG, R, "function is NULL");
    if (!errhandler) return smpi_error(NULL, MPI_ERR_ARG, R, "errhandler is NULL");
    struct smpi_errh *e = malloc(sizeof *e);
    if (!e) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "out of memory for an error handler");
    *e = (struct smpi_errh){ SMPI_MAGIC_ERRH, 1, function, NULL };
    *errhandler = e;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    return create_errhandler(function, errhandler, "MPI_Comm_create_errhandler");
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

/* MPI-1's name; MPI_Handler_function is the communicator's handler type */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return create_errhandler(function, errhandler, "MPI_Errhandler_create");
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char R[] = "MPI_Comm_call_errhandler";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (errorcode == MPI_SUCCESS) return MPI_SUCCESS;   /* no error to raise (as MPICH and Open MPI) */
    if (!text_of(errorcode)) return smpi_error(c, MPI_ERR_ARG, R, "invalid error code %d", errorcode);
    smpi_error(c, errorcode, R, "raised by the program");
    return MPI_SUCCESS;                  /* MPI: success, unless the handler ends the program */
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *t = text_of(errorcode);
    if (!string || !resultlen) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Error_string", "NULL argument");
    if (!t) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Error_string", "invalid error code %d", errorcode);
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorclass is NULL");
    if (!text_of(errorcode))
        return smpi_error(NULL, MPI_ERR_ARG, "MPI_Error_class", "invalid error code %d", errorcode);
    struct user_code *u = user_of(errorcode);
    *errorclass = u ? u->cls : errorcode;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_class = PMPI_Error_class
