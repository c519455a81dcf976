/* memlimit.c: how much memory this process may use: the machine's, or less
 * where its memory cgroup (or an ancestor) has a limit (cgroup v2
 * memory.max and memory.high, v1 memory.limit_in_bytes). Linked into
 * libsmartmap (a program run without smrun sizes its heap by it) and into
 * smrun (the default --mem-per-rank). No malloc, no stdio: it runs before
 * the allocator exists. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_memlimit.h"

#define UNLIMITED UINT64_MAX

/* The file at path, NUL-ended, in buf; its length, or -1. */
static ssize_t read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0) return -1;
    buf[n] = 0;
    return n;
}

/* A limit file's value: a number of bytes, or "max" (cgroup v2). v1 says
 * "unlimited" with a number near 2^63. */
static uint64_t read_limit(const char *dir, const char *name)
{
    char path[4200], buf[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_file(path, buf, sizeof buf) <= 0 || !(buf[0] >= '0' && buf[0] <= '9')) return UNLIMITED;
    uint64_t v = strtoull(buf, NULL, 10);
    return v >= (1ULL << 62) ? UNLIMITED : v;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The smallest limit of the group root/path and its ancestors up to root. */
static uint64_t group_limit(const char *root, const char *path, int v2)
{
    char dir[4200];
    int n = snprintf(dir, sizeof dir, "%s%s", root, path);
    if (n <= 0 || (size_t)n >= sizeof dir) return UNLIMITED;
    size_t stop = strlen(root);
    uint64_t lim = UNLIMITED;
    for (;;) {
        while (n > (int)stop + 1 && dir[n - 1] == '/') dir[--n] = 0;
        if (v2) lim = min_u64(lim, min_u64(read_limit(dir, "memory.max"), read_limit(dir, "memory.high")));
        else lim = min_u64(lim, read_limit(dir, "memory.limit_in_bytes"));
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < stop) break;
        *slash = 0;
        n = (int)(slash - dir);
    }
    return lim;
}

static uint64_t cgroup_limit(void)
{
    char buf[4096];
    if (read_file("/proc/self/cgroup", buf, sizeof buf) <= 0) return UNLIMITED;
    uint64_t lim = UNLIMITED;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = 0;
        const char *controllers = c1 + 1, *path = c2 + 1;
        if (!strcmp(line, "0") && !*controllers) {          /* v2: the unified hierarchy */
            const char *root = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                             ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
            lim = min_u64(lim, group_limit(root, path, 1));
        } else {
            for (const char *c = controllers; c && *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
                if (!strncmp(c, "memory", 6) && (c[6] == ',' || c[6] == 0))
                    lim = min_u64(lim, group_limit("/sys/fs/cgroup/memory", path, 0));
        }
    }
    return lim;
}

uint64_t sm_memory_limit(void)
{
    char buf[256];
    unsigned long long kb = 0;
    if (read_file("/proc/meminfo", buf, sizeof buf) > 0) sscanf(buf, "MemTotal: %llu kB", &kb);
    uint64_t total = (uint64_t)kb << 10, lim = cgroup_limit();
    return total && total < lim ? total : lim == UNLIMITED ? total : lim;
}
