/* lt_common.h: what every launcher-test helper does first: learn its rank
 * from smrun's environment and record itself in $LT_DIR, so
 * that the test can check afterwards that no process of the job survived. */
#ifndef LT_COMMON_H
#define LT_COMMON_H

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int lt_rank = -1, lt_size = -1;

/* Field 22 of /proc/self/stat: with the pid, names a process uniquely. */
static unsigned long long lt_starttime(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long long v = 0;
    for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
    if (p) v = strtoull(p + 1, NULL, 10);
    return v;
}

/* Record this process (kind: "rank" or "grandchild") in $LT_DIR as
 * "pid starttime pgid rank". */
static void lt_record(const char *kind)
{
    const char *dir = getenv("LT_DIR");
    if (!dir) return;
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, kind, (int)getpid());
    snprintf(tmp, sizeof tmp, "%s/.tmp.%d", dir, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f, "%d %llu %d %d\n", (int)getpid(), lt_starttime(), (int)getpgrp(), lt_rank);
    fclose(f);
    rename(tmp, path);             /* the test sees whole records only */
}

/* Wait (up to 10 s) until every rank of the job has recorded itself. */
static void lt_wait_all(void)
{
    const char *dir = getenv("LT_DIR");
    if (!dir) return;
    for (int i = 0; i < 1000; i++) {
        int n = 0;
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) n += strncmp(e->d_name, "rank.", 5) == 0;
        if (d) closedir(d);
        if (n >= lt_size) return;
        struct timespec ts = { 0, 10 * 1000000 };
        nanosleep(&ts, NULL);
    }
}

static void lt_init(void)
{
    const char *r = getenv("SMARTMAP_RANK"), *s = getenv("SMARTMAP_SIZE");
    lt_rank = r ? atoi(r) : -1;
    lt_size = s ? atoi(s) : -1;
    lt_record("rank");
}

static void lt_sleep_forever(void)
{
    for (;;) pause();
}

#endif
