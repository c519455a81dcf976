/* maps.c: the one reader of /proc/self/maps. Streams the file through a
 * buffer on the caller's stack (no malloc: usable during start-up, and by
 * the service thread while the program allocates). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sm_core.h"

/* One line: "lo-hi perms offset dev inode   path". */
static bool parse_line(char *line, struct sm_mapping *m)
{
    unsigned long lo, hi;
    int path = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &lo, &hi, m->perm, &path) < 3) return false;
    m->lo = lo;
    m->hi = hi;
    m->path = path ? line + path : "";
    return true;
}

sm_status_t sm_maps_each(sm_mapping_fn fn, void *arg)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sm_fail(SM_ERR_STATE, "cannot read /proc/self/maps: %s", strerrordesc_np(errno));
    char buf[PATH_MAX + 4096];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return sm_fail(SM_ERR_STATE, "cannot read /proc/self/maps: %s", strerrordesc_np(e));
        }
        len += (size_t)n;
        buf[len] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n')) || (n == 0 && *line)) {
            if (nl) *nl = '\0';
            struct sm_mapping m;
            if (parse_line(line, &m) && !fn(&m, arg)) { close(fd); return SM_OK; }
            line = nl ? nl + 1 : line + strlen(line);
        }
        if (n == 0) break;
        len -= (size_t)(line - buf);              /* keep the partial last line */
        memmove(buf, line, len);
        if (len == sizeof buf - 1) len = 0;       /* a line longer than any path: drop it */
    }
    close(fd);
    return SM_OK;
}
