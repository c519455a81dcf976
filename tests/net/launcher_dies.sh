#!/bin/sh
# launcher_dies.sh N PROGRAM LAUNCHER...: starts PROGRAM's "launcher" mode
# (every rank appends its pid to a file, then waits for a message nobody
# sends) under LAUNCHER, kills the launcher with SIGKILL once all N ranks
# are up, and checks that every rank ends within 10 s: ranks that lose
# their PMIx server must not be left behind (Open MPI's own ranks end too).
set -u
n=$1 prog=$2
shift 2
pids=$(mktemp)
trap 'rm -f "$pids"' EXIT
"$@" "$prog" launcher "$pids" &
launcher=$!
i=0
while [ "$(wc -l < "$pids")" -lt "$n" ]; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $launcher 2>/dev/null; then
    echo "FAIL: the $n ranks did not start (launcher gone or 60 s passed)"
    kill -9 $launcher 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
sleep 0.5                      # the ranks into their receive
kill -9 $launcher
wait $launcher 2>/dev/null
i=0
while :; do
  left=
  for p in $(cat "$pids"); do kill -0 "$p" 2>/dev/null && left="$left $p"; done
  [ -z "$left" ] && break
  i=$((i + 1))
  if [ $i -gt 100 ]; then
    echo "FAIL: ranks left 10 s after their launcher was killed:$left"
    kill -9 $left 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
echo "ok: all $n ranks ended after their launcher was killed ($((i * 100)) ms)"
