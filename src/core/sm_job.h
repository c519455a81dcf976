/* The contract between smrun and libsmartmap: address layout, environment,
 * and the per-rank control block that both sides read. Internal to the core. */
#ifndef SM_JOB_H
#define SM_JOB_H

#include <stdint.h>

/* Slots: rank r's memfd is mapped by every rank (and by smrun) at
 * SM_BASE + r * SM_SLOT. Offsets inside a slot are the memfd's offsets. */
/* 32 TiB up to 48 TiB: in AddressSanitizer's high memory (above its shadow,
 * which ends at 0x10007fff7fff, and below its allocator at 0x600000000000),
 * above the legacy mmap base (0x155555554000, 21.3 TiB, used under `ulimit
 * -s unlimited`, growing up: 10 TiB of room), below PIE executables
 * (0x5555...) and the top-down mmap area under the stack. */
#define SM_BASE        0x200000000000ULL
#define SM_SLOT_SHIFT  36                 /* 64 GiB of address space per rank */
#define SM_SLOT        (1ULL << SM_SLOT_SHIFT)
#define SM_NMAX        256                /* ranks per job */

#define SM_CTRL_OFF    0ULL                   /* control block (struct sm_ctrl), engine areas */
#define SM_CTRL_SIZE   (64ULL << 20)
#define SM_STAGE_OFF   (64ULL << 20)          /* bounce buffer of the staged copy path */
#define SM_STAGE_SIZE  (4ULL << 20)
#define SM_GLOBALS_OFF (128ULL << 20)         /* the executable's .data/.bss */
#define SM_GLOBALS_MAX ((3ULL << 30) - SM_GLOBALS_OFF)
#define SM_STACK_OFF   (3ULL << 30)           /* the main thread's stack: RLIMIT_STACK, */
#define SM_STACK_MAX   (1ULL << 30)           /* at most 1 GiB (for `ulimit -s unlimited`) */
#define SM_HEAP_OFF    (4ULL << 30)           /* the malloc arena: SMARTMAP_HEAP_BYTES long */
#define SM_HEAP_ALIGN  (64ULL << 20)          /* mimalloc arena blocks are 32 MiB */
#define SM_HEAP_MIN    (64ULL << 20)
#define SM_SYM_OFF     (32ULL << 30)          /* the symmetric region (sm_symmetric_grow) */
#define SM_SYM_MAX     (SM_SLOT - SM_SYM_OFF)
#define SM_HEAP_MAX    (SM_SYM_OFF - SM_HEAP_OFF)
/* smrun makes every memfd SM_SYM_OFF long; the hole between the end of the
 * heap and SM_SYM_OFF is never touched, so it costs no memory. Every rank
 * maps every slot whole, so when a rank grows its own memfd beyond
 * SM_SYM_OFF (the symmetric region, at an engine's request) its peers see
 * the new bytes without mapping anything. */

/* Environment set by smrun for each rank (sm_settings.h has the whole
 * table of SMARTMAP_* settings). */
#define SM_ENV_RANK     "SMARTMAP_RANK"       /* 0..size-1: the rank's slot */
#define SM_ENV_SIZE     "SMARTMAP_SIZE"       /* number of slots: the universe (smrun --universe-size) */
#define SM_ENV_WBASE    "SMARTMAP_WORLD_BASE" /* the rank's world: ranks WORLD_BASE.. */
#define SM_ENV_WSIZE    "SMARTMAP_WORLD_SIZE" /* ..WORLD_BASE+WORLD_SIZE-1 (smrun's -n, or one spawn) */
#define SM_ENV_APPNUM   "SMARTMAP_APPNUM"     /* the app context (MPMD ':' or spawn command) */
#define SM_ENV_SPAWNFD  "SMARTMAP_SPAWN_FD"   /* smrun's spawn service (SOCK_SEQPACKET) */
#define SM_ENV_PARENT   "SMARTMAP_PARENT"     /* a spawned rank's: the spawner's text (sm_spawn) */
#define SM_ENV_PID      "SMARTMAP_PID"        /* pid of the rank process itself */
#define SM_ENV_FD0      "SMARTMAP_FD0"        /* memfds of slots 0..size-1 are fds FD0..FD0+size-1 */
#define SM_ENV_PAGES    "SMARTMAP_PAGES"      /* "4k" or "2m" */
#define SM_ENV_HEAP     "SMARTMAP_HEAP_BYTES" /* malloc heap per rank, a multiple of SM_HEAP_ALIGN */
#define SM_ENV_LAUNCHER "SMARTMAP_LAUNCHER"   /* "smrun VERSION" */
#define SM_ENV_JOB      "SMARTMAP_JOB"        /* a mark unique to the job (smrun's guardian) */

/* The first bytes of every slot: written by the rank, read by peers and by
 * smrun (which maps the first page of every memfd). Layout is ABI between
 * smrun and the library; engines get their own areas further in. */
#define SM_CTRL_MAGIC 0x534d415254504d32ULL /* "SMARTPM2" */

enum sm_ctrl_flag {
    SM_CTRL_NOTE = 1u << 0,  /* exit_note holds how the rank ended (e.g. an abort) */
};

/* How far the rank's program has come (smrun reads it to tell a job that can
 * no longer finish). A program joins the job at its first use of it (a
 * smartmap call, MPI_Init, shmem_init): the start-up barrier, which waits
 * for every rank's program to have exposed its memory. A wrapper that execs
 * the program (a shell script under --preload) exposes its own and never
 * joins: the program after the exec, the same process, takes the rank over. */
enum sm_stage {
    SM_STAGE_NONE,      /* no smartmap program has claimed the rank yet */
    SM_STAGE_EXPOSED,   /* claimed (pid), memory exposed (magic): running, not joined */
    SM_STAGE_JOINING,   /* in the start-up barrier, waiting for the others */
    SM_STAGE_JOINED,    /* past it */
    SM_STAGE_LEFT,      /* exited without joining, counted in the barrier on its way out */
};

/* Clients of the job's lifecycle (MPI, OpenSHMEM, ARMCI ...): each registers
 * when it is initialised, naming its finalize routine, and deregisters when
 * finalised, in any order. A rank that exits while one is registered has
 * failed, and smrun names the routines it did not call. */
#define SM_CLIENT_MAX  4
#define SM_CLIENT_NAME 28
enum sm_client_state { SM_CLIENT_FREE, SM_CLIENT_CLAIMED, SM_CLIENT_REGISTERED };
struct sm_client {
    _Atomic uint32_t state;           /* enum sm_client_state */
    char finalize[SM_CLIENT_NAME];    /* "MPI_Finalize", "shmem_finalize" */
};

struct sm_ctrl {
    uint64_t magic;                 /* SM_CTRL_MAGIC once the rank has initialised */
    int32_t  rank;
    int32_t  pid;
    _Atomic uint32_t flags;         /* enum sm_ctrl_flag */
    _Atomic uint32_t stage;         /* enum sm_stage */
    int32_t  exit_code;             /* with SM_CTRL_NOTE: the code the rank asked for */
    struct sm_client client[SM_CLIENT_MAX];
    /* The finalize routines ever required here (the first SM_CLIENT_MAX):
     * a rank that exited without requiring one that another rank requires
     * never initialised that library, and the other would wait for it. */
    char     seen[SM_CLIENT_MAX][SM_CLIENT_NAME];
    char     exit_note[128];        /* with SM_CTRL_NOTE: printed by smrun */
    /* Slots this rank depends on (sm_link): link[s] counts its connections
     * to slot s (MPI_Comm_connect/accept/join, until disconnected), hand[s]
     * the handshakes under way with s. A smrun whose job shares a universe
     * with other jobs (smrun --universe/--join) reads them to end its job
     * when a slot of another job that its ranks depend on is gone: a link
     * when that process ended without finalizing, a handshake whenever it
     * ended (nobody will answer). */
    _Atomic uint16_t link[SM_NMAX];
    _Atomic uint16_t hand[SM_NMAX];
};

/* The spawn service: a rank asks smrun to start processes in free slots
 * with one datagram on SMARTMAP_SPAWN_FD carrying the reply socket
 * (SCM_RIGHTS): struct sm_spawn_req, then napps int32 process counts, napps
 * int32 argument counts, then NUL-terminated strings: the parent text, and
 * for each app its command and arguments. smrun answers with one struct
 * sm_spawn_reply on the reply socket. */
#define SM_SPAWN_MAGIC 0x5350574eu          /* "SPWN" */
#define SM_SPAWN_REQ_MAX (60u << 10)         /* a datagram fits the default socket buffer */
struct sm_spawn_req {
    uint32_t magic;
    int32_t  rank;                           /* the requester's slot */
    int32_t  napps;
};
enum sm_spawn_result { SM_SPAWN_OK, SM_SPAWN_NOSLOTS, SM_SPAWN_BADCMD, SM_SPAWN_BADREQ, SM_SPAWN_FAILED };
struct sm_spawn_reply {
    int32_t result;                          /* enum sm_spawn_result */
    int32_t base;                            /* SM_SPAWN_OK: the first slot; the others follow */
    char    why[256];                        /* otherwise: what was wrong */
};

/* A universe shared by separately started jobs (smrun --universe NAME,
 * smrun --join NAME): the first smrun listens on the abstract Unix socket
 * "\0smartmap-universe.<uid>.<NAME>" (SOCK_SEQPACKET, peers of another uid
 * refused by SO_PEERCRED). Another smrun asks it for slots with struct
 * sm_universe_req, as often as it likes on one connection; the answer is
 * one struct sm_universe_reply and, after the first successful one, the
 * universe's memfds, slot 0 up, at most SM_UNIVERSE_FDS per datagram
 * (SCM_RIGHTS), each datagram carrying an int32 of its first slot. */
#define SM_UNIVERSE_MAGIC 0x554e4956u       /* "UNIV" */
#define SM_UNIVERSE_NAME  64                /* the longest NAME */
#define SM_UNIVERSE_FDS   200               /* fds per datagram (the kernel's limit is 253) */
struct sm_universe_req {
    uint32_t magic;
    int32_t  count;                          /* slots wanted, used once */
};
struct sm_universe_reply {
    uint32_t magic;
    int32_t  result;                         /* enum sm_spawn_result */
    int32_t  base;                           /* SM_SPAWN_OK: the first slot given; the others follow */
    int32_t  universe;                       /* slots in the universe (memfds that follow) */
    char     why[256];                       /* otherwise: what was wrong */
};

#endif
