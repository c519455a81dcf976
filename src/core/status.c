/* The internal status type's reasons: one thread-local line per thread. */
#include <stdarg.h>
#include <stdio.h>

#include "sm_status.h"

/* initial-exec: no __tls_get_addr (which may allocate) during start-up. */
static __thread char reason[256] __attribute__((tls_model("initial-exec")));

sm_status_t sm_fail(sm_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return st;
}

const char *sm_fail_reason(void) { return reason; }

const char *sm_status_name(sm_status_t st)
{
    switch (st) {
    case SM_OK: return "SM_OK";
    case SM_INPROGRESS: return "SM_INPROGRESS";
    case SM_ERR_ARG: return "SM_ERR_ARG";
    case SM_ERR_NOMEM: return "SM_ERR_NOMEM";
    case SM_ERR_ACCESS: return "SM_ERR_ACCESS";
    case SM_ERR_STATE: return "SM_ERR_STATE";
    case SM_ERR_TRUNCATE: return "SM_ERR_TRUNCATE";
    case SM_ERR_PEER: return "SM_ERR_PEER";
    case SM_ERR_UNSUPPORTED: return "SM_ERR_UNSUPPORTED";
    case SM_ERR_MISMATCH: return "SM_ERR_MISMATCH";
    case SM_ERR_INTERN: return "SM_ERR_INTERN";
    }
    return "SM_ERR_?";
}
