#!/bin/sh
# What MPI_THREAD_MULTIPLE costs a program that calls MPI from one thread:
# runs thread_level at each level named, alternating, ROUNDS times, and
# prints the median of each figure and its ratio to the first level's.
#   thread_level.sh LAUNCH BENCH [ROUNDS [SECONDS [LEVEL...]]]
# LAUNCH: the launcher and its arguments for 2 ranks, quoted
# ("smrun -n 2", "mpirun.openmpi -n 2"); BENCH: the thread_level program.
# Levels default to single and multiple; a level may be given as
# path:level to compare builds (e.g. a build from before a change).
set -eu
[ $# -ge 2 ] || { sed -n '2,9p' "$0"; exit 2; }
launch=$1 bench=$2 rounds=${3:-7} secs=${4:-0.3}
shift $(( $# < 4 ? $# : 4 ))
[ $# -gt 0 ] || set -- single multiple
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$rounds" ]; do
  for l in "$@"; do
    case $l in *:*) prog=${l%%:*} lv=${l##*:} ;; *) prog=$bench lv=$l ;; esac
    # shellcheck disable=SC2086
    $launch "$prog" "$lv" "$secs" | sed "s|^[a-z]*|$l|" >>"$out"
  done
  i=$((i + 1))
done
awk -v order="$*" '
function median(s,   a, k, t, i, j) {
  k = split(s, a, " ")
  for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{ for (f = 3; f <= NF; f++) { split($f, kv, "="); v[$1, kv[1]] = v[$1, kv[1]] " " kv[2]; keys[f] = kv[1] } }
END {
  n = split(order, lv, " ")
  printf "%-28s", "median of " NR / n " runs"
  for (f = 3; f in keys; f++) printf " %16s %7s", keys[f], "ratio"
  printf "\n"
  for (i = 1; i <= n; i++) {
    printf "%-28s", lv[i]
    for (f = 3; f in keys; f++) {
      m = median(v[lv[i], keys[f]]); b = median(v[lv[1], keys[f]])
      printf " %16.4f %7.3f", m, b ? m / b : 0
    }
    printf "\n"
  }
}' "$out"
