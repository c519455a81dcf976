/* The memory this process may use (memlimit.c), shared by libsmartmap and smrun. */
#ifndef SM_MEMLIMIT_H
#define SM_MEMLIMIT_H
#include <stdint.h>
/* The smaller of the machine's memory (MemTotal) and the limit of this
 * process's memory cgroup and its ancestors; 0 if neither is known. */
uint64_t sm_memory_limit(void);
#endif
