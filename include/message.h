/* message.h: ARMCI's message-passing routines (armci_msg_*), as ARMCI-MPI's
 * message.h declares them; armci.h includes this file, and this file
 * armci.h, so either may come first.
 *
 * The collectives (barrier, broadcast, reductions, select) run on smartmap's
 * collective engine over an ARMCI group, MPI or not. The point-to-point
 * ones (armci_msg_snd, _rcv, _rcvany) send MPI messages on the world
 * group's communicator, so they need MPI to be initialised (one line and
 * the end of the job otherwise). Scopes: every process is on one node, so
 * SCOPE_ALL, SCOPE_MASTERS and SCOPE_NODE are all the group's processes. */
#ifndef SMARTMAP_ARMCI_H
#include <armci.h>
#else
#ifndef SMARTMAP_ARMCI_MESSAGE_H
#define SMARTMAP_ARMCI_MESSAGE_H

enum armci_scope_e { SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS };
/* Element types of the reductions. */
enum armci_type_e { ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE };

/* The caller's absolute id, and the number of processes. */
ARMCI_API int    armci_msg_me(void);
ARMCI_API int    armci_msg_nproc(void);
/* End the job with code (one line, as ARMCI_Error). */
ARMCI_API void   armci_msg_abort(int code);
/* Seconds of a monotonic clock. */
ARMCI_API double armci_timer(void);

/* MPI messages on the world group's communicator (MPI must be initialised). */
ARMCI_API void armci_msg_snd(int tag, void *buffer, int len, int to);
ARMCI_API void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
ARMCI_API int  armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

/* Collectives over the world group, or the given one. */
ARMCI_API void armci_msg_barrier(void);
ARMCI_API void armci_msg_group_barrier(ARMCI_Group *group);
/* The binary tree of processes (0 at the root; -1: none). */
ARMCI_API void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);
/* len bytes from root (an absolute id) to every process. */
ARMCI_API void armci_msg_bcast(void *buffer, int len, int root);
ARMCI_API void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
ARMCI_API void armci_msg_brdcst(void *buffer, int len, int root);
ARMCI_API void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);

/* Reductions in place on n elements of x: op is "+", "*", "max", "min",
 * "absmax" or "absmin" (the absolute values' extreme), or for the integer
 * types "or", "and" (bitwise). gop: the result everywhere; reduce: at
 * process 0 only (x is left as it was elsewhere). */
ARMCI_API void armci_msg_reduce(void *x, int n, char *op, int type);
ARMCI_API void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);
ARMCI_API void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
ARMCI_API void armci_msg_igop(int *x, int n, char *op);
ARMCI_API void armci_msg_lgop(long *x, int n, char *op);
ARMCI_API void armci_msg_llgop(long long *x, int n, char *op);
ARMCI_API void armci_msg_fgop(float *x, int n, char *op);
ARMCI_API void armci_msg_dgop(double *x, int n, char *op);
ARMCI_API void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group);
ARMCI_API void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
ARMCI_API void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
ARMCI_API void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
ARMCI_API void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
ARMCI_API void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);

/* Select: x is n bytes whose first element (of type) is the key (the rest
 * travels with it, as Global Arrays' index); the contributing processes'
 * smallest ("min") or largest ("max") key wins, and its n bytes end up in
 * x everywhere (a tie: the lowest process). */
ARMCI_API void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
ARMCI_API void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

/* ptr_ar[armci_msg_me()] to every process's ptr_ar (n: the number of processes). */
ARMCI_API void armci_exchange_address(void *ptr_ar[], int n);
ARMCI_API void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);
/* Not here (declared by ARMCI-MPI, defined by none of its versions):
 * armci_msg_clus_* and armci_grp_clus_brdcst. */

#endif
#endif
