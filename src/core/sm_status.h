/* sm_status.h: the internal status type. Every engine entry point returns an
 * sm_status_t; the engines never print or end the job on an error a caller
 * could handle: they record why (sm_fail) and return, and each binding maps
 * the status to its own world (MPI error classes and handlers, SHMEM's fatal
 * report, ARMCI's int), naming its routine and quoting sm_fail_reason(). */
#ifndef SM_STATUS_H
#define SM_STATUS_H

#include "smartmap.h"   /* SM_OK and the public SM_ERR_* (-1 .. -4) */

typedef int sm_status_t;

/* Beyond the public codes: what engines can report. */
enum sm_status_internal {
    SM_INPROGRESS      = 1,   /* started, not complete yet (nonblocking) */
    SM_ERR_TRUNCATE    = -5,  /* data longer than the receiving buffer */
    SM_ERR_PEER        = -6,  /* a peer is gone or broke the protocol */
    SM_ERR_UNSUPPORTED = -7,  /* a valid request this build cannot serve */
    SM_ERR_MISMATCH    = -8,  /* ranks disagree (sizes, roots, ops of a collective) */
    SM_ERR_INTERN      = -9,  /* a bug: an invariant does not hold */
};

/* Record why the calling thread's current operation failed and return st,
 * so that an engine can write `return sm_fail(SM_ERR_NOMEM, "...")`. The
 * reason is one line without the routine's name (the binding adds it). */
sm_status_t sm_fail(sm_status_t st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The reason last recorded by this thread ("" if none). */
const char *sm_fail_reason(void);
/* A short name for a status: "SM_ERR_NOMEM". */
const char *sm_status_name(sm_status_t st);

#endif
