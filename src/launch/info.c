/* info.c: smrun's view of the SMARTMAP_* settings (the core's table,
 * sm_settings.h): --info prints each with its current value, its default and
 * its meaning (as ompi_info and ucx_info -c do), --info=markdown the table
 * README's Environment section holds, and before a job starts the values the
 * ranks will read are checked, so that a bad one stops nothing but smrun. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_settings.h"
#include "smrun.h"

extern char **environ;

static const char *reader_title[] = {
    [SM_READ_LIB]   = "Read once by libsmartmap in every rank (and in a program run without smrun)",
    [SM_READ_SMRUN] = "Set by smrun for each rank (not for users to set)",
    [SM_READ_SMCC]  = "Read by the compiler wrappers smcc, smc++ and smfort",
};

/* text, wrapped at 78 columns: the first line from column at (where the
 * cursor is), the others indented to it. */
static void print_wrapped(const char *text, int at)
{
    const int width = 78 - at;
    for (bool first = true; *text; first = false) {
        int n = (int)strlen(text);
        if (n > width) {
            n = width;
            while (n > 0 && text[n] != ' ') n--;
            if (n == 0) n = width;
        }
        printf("%*s%.*s\n", first ? 0 : at, "", n, text);
        text += n;
        while (*text == ' ') text++;
    }
}

static void print_text(void)
{
    printf("smartmap %s settings: environment variables (value now; default; meaning)\n", SMRUN_VERSION);
    for (int reader = SM_READ_LIB; reader <= SM_READ_SMCC; reader++) {
        printf("\n%s:\n", reader_title[reader]);
        for (int i = 0; i < SM_SET_COUNT; i++) {
            const struct sm_setting *s = &sm_settings[i];
            if ((int)s->reader != reader) continue;
            const char *now = getenv(s->name);
            char why[160], values[96], note[300];
            uint64_t v;
            sm_setting_values(i, values, sizeof values);
            if (!now || !*now)
                snprintf(note, sizeof note, "%s; values %s", *s->dflt ? "default" : "not set", values);
            else if (!sm_setting_parse(i, now, &v, why, sizeof why))
                snprintf(note, sizeof note, "from the environment: INVALID, %s", why);
            else if (*s->dflt)
                snprintf(note, sizeof note, "from the environment; default %s; values %s", s->dflt, values);
            else
                snprintf(note, sizeof note, "from the environment; values %s", values);
            const char *shown = now && *now ? now : s->dflt;
            printf("%s%s%s  (%s)\n", s->name, *shown ? "=" : "", shown, note);
            printf("    ");
            print_wrapped(s->meaning, 4);
        }
    }
}

static void print_markdown(void)
{
    printf("| variable | values | default | meaning |\n|---|---|---|---|\n");
    for (int reader = SM_READ_LIB; reader <= SM_READ_SMCC; reader++)
        for (int i = 0; i < SM_SET_COUNT; i++) {
            const struct sm_setting *s = &sm_settings[i];
            if ((int)s->reader != reader) continue;
            char values[96];
            sm_setting_values(i, values, sizeof values);
            const char *dflt = reader == SM_READ_SMRUN ? "set by smrun" : *s->dflt ? s->dflt : "as built";
            printf("| `%s` | %s | %s | %s |\n", s->name, values, dflt, s->meaning);
        }
}

void print_settings_info(const char *format)
{
    if (!format || !*format) print_text();
    else if (strcmp(format, "markdown") == 0) print_markdown();
    else usage_error("--info: '%s' is not 'markdown' (or nothing, for text)", format);
}

void print_smrun_settings(void)
{
    for (int i = 0; i < SM_SET_COUNT; i++)
        if (sm_settings[i].reader == SM_READ_SMRUN)
        {
            printf("  %-22s ", sm_settings[i].name);
            print_wrapped(sm_settings[i].meaning, 25);
        }
}

/* One VAR=VALUE the ranks will see: a library setting must parse; smrun's
 * own are overridden (-x cannot set them); other SMARTMAP_* names are typos. */
static void check_one(const char *entry, const char *origin)
{
    if (strncmp(entry, "SMARTMAP_", 9) != 0) return;
    const char *eq = strchr(entry, '=');
    if (!eq) return;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - entry), entry);
    int id = sm_setting_find(name);
    if (id < 0) {
        msg("warning: %s%s is not a smartmap setting (smrun --info lists them)", origin, name);
        return;
    }
    const struct sm_setting *s = &sm_settings[id];
    char why[160];
    uint64_t v;
    if (s->reader == SM_READ_LIB && eq[1] && !sm_setting_parse(id, eq + 1, &v, why, sizeof why))
        usage_error("%s%s: '%s' %s (smrun --info lists the settings)", origin, name, eq + 1, why);
    if (s->reader == SM_READ_SMRUN && *origin)
        msg("warning: %s%s is set by smrun for each rank; ignored", origin, name);
}

void check_settings(const struct options *o)
{
    for (char **e = environ; *e; e++) check_one(*e, "");
    for (int i = 0; i < o->ngenv; i++) check_one(o->genv[i], "-x ");
    for (int a = 0; a < o->napps; a++)
        for (int i = 0; i < o->apps[a].nenv; i++) check_one(o->apps[a].env[i], "-x ");
}
