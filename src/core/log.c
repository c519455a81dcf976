/* log.c: the core's one-line messages on stderr ("smartmap: rank R: ..."),
 * written with one write() and no malloc, so usable during start-up and
 * from inside the allocator; and how smartmap.h's functions report a
 * failure. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "sm_core.h"

static void vsay(const char *fmt, va_list ap)
{
    char buf[512];
    int n = sm_core.size > 1 || sm_core.pmix ? snprintf(buf, sizeof buf, "smartmap: rank %d: ", sm_core.rank)
                             : snprintf(buf, sizeof buf, "smartmap: ");
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}

void sm_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

_Noreturn void sm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    _exit(1);
}

int sm_public_error(const char *routine, sm_status_t st)
{
    sm_say("%s: %s", routine, sm_fail_reason());
    return st >= SM_ERR_STATE ? st : SM_ERR_STATE;   /* the internal kinds, as smartmap.h knows them */
}
