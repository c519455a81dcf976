/* state.c: the process-wide core state (sm_core.h), written once by the
 * bootstrap (init.c) and read by every other part of the core and above. */
#include "sm_core.h"

struct sm_core sm_core = { .rank = 0, .size = 1, .own_fd = -1 };
