/* The allocator glue: the malloc family served from the rank's own slot. */
#ifndef SM_ALLOC_H
#define SM_ALLOC_H
#include <stdbool.h>
#include <stddef.h>
#include "sm_status.h"
/* Hand [base, base+len) to the allocator; from now on every allocation of
 * every thread comes from there, and nothing from elsewhere. */
sm_status_t sm_alloc_attach(void *base, size_t len);
/* Whether p is a block of the slot's heap. */
bool sm_alloc_owns(const void *p);
/* In a forked child, whose heap is a private copy-on-write view. */
void sm_alloc_forked(void);
#endif
