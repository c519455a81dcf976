#!/bin/sh
# crossover.sh: measures the collective engine's algorithm crossovers (the
# table in src/coll/reduce.c's header): builds bench_mpi_coll twice, once
# with every reduction serial, no cooperative broadcast and every source of
# 2 members copied into the bounce buffer, once with every reduction
# sliced, every broadcast cooperative and every source of 2 members
# published in place (COLL_CARRY_MAX_2), then runs the two in turn (reps
# times, alternating) on n ranks and prints, per operation and size, both
# medians and sliced/serial (below 1: the sliced, cooperative or in-place
# algorithm wins). OPS (default Bcast,Reduce,Allreduce) picks the
# operations: the movers (Allgather,Alltoall,Gather,Scatter) show the
# carry crossover alone, with 2 ranks.
#   crossover.sh [ranks (2 4)] [reps (5)] [max_bytes (65536)]
# Environment: SRC (the source tree, default: this script's), OUT (the
# variant build trees, default /tmp/smartmap-crossover), SMRUN_ARGS.
set -eu
RANKS=${1:-2 4}
REPS=${2:-5}
MAX=${3:-65536}
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-/tmp/smartmap-crossover}
OPS=${OPS:-Bcast,Reduce,Allreduce}

build() {   # build NAME CFLAGS
    cmake -S "$SRC" -B "$OUT/$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$2" >/dev/null
    cmake --build "$OUT/$1" --target bench_mpi_coll smrun >/dev/null
}
BIG=0x40000000
build serial "-DCOLL_SERIAL_MAX_ROOTED=$BIG -DCOLL_SERIAL_MAX_2=$BIG -DCOLL_SERIAL_MAX_N=$BIG -DCOLL_SERIAL_MAX_CROWDED=$BIG -DCOLL_SERIAL_MAX_AHEAD=$BIG -DCOLL_BCAST_COOP_2=$BIG -DCOLL_BCAST_COOP=$BIG -DCOLL_CARRY_MAX_2=$BIG"
build sliced "-DCOLL_SERIAL_MAX_ROOTED=0 -DCOLL_SERIAL_MAX_2=0 -DCOLL_SERIAL_MAX_N=0 -DCOLL_SERIAL_MAX_CROWDED=0 -DCOLL_SERIAL_MAX_AHEAD=0 -DCOLL_BCAST_COOP_2=0 -DCOLL_BCAST_COOP=0 -DCOLL_CARRY_MAX_2=0"

raw=$OUT/raw.txt
: >"$raw"
for n in $RANKS; do
    r=0
    while [ "$r" -lt "$REPS" ]; do
        for v in serial sliced; do
            "$OUT/$v/bin/smrun" ${SMRUN_ARGS:-} -n "$n" "$OUT/$v/bin/bench_mpi_coll" "$MAX" 0.05 "$OPS" |
                awk -v n="$n" -v v="$v" '/^# [A-Z]/ { op = $2; sub(",", "", op) } /^ *[0-9]/ { print n, op, $1, v, $2 }' >>"$raw"
        done
        r=$((r + 1))
    done
done

# median per (ranks, op, bytes, variant), then the ratio
sort -k1,1n -k2,2 -k3,3n -k4,4 -k5,5g "$raw" | awk '
function flush() { if (cnt) { med[key] = (cnt % 2) ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2; if (!(row in seen)) { seen[row] = 1; rows[++nr] = row } } cnt = 0 }
{ k = $1 " " $2 " " $3 " " $4; if (k != key) { flush(); key = k; row = $1 " " $2 " " $3 } v[++cnt] = $5 }
END { flush(); printf "%5s %-10s %9s %12s %12s %8s\n", "ranks", "op", "bytes", "serial_us", "sliced_us", "ratio"
      for (i = 1; i <= nr; i++) { a = med[rows[i] " serial"]; b = med[rows[i] " sliced"]; split(rows[i], f, " ")
          printf "%5s %-10s %9s %12.3f %12.3f %8.2f\n", f[1], f[2], f[3], a, b, (a > 0 ? b / a : 0) } }'
