/* lt_preload.c: stands in for libsmartmap.so in the --preload test: when
 * loaded, it marks the environment, so the rank can tell it was preloaded. */
#include <stdlib.h>

__attribute__((constructor)) static void lt_preloaded(void)
{
    setenv("LT_PRELOADED", "yes", 1);
}
