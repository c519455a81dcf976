#!/bin/sh
# An OpenSHMEM program compiles with smcc (strict C11, warnings as errors) and runs with smrun.
set -eu
bindir=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bindir/smcc" -std=c11 -pedantic -Wall -Wextra -Werror -O2 -o "$tmp/hello" "$src"
"$bindir/smrun" -n 4 "$tmp/hello" > "$tmp/out"
cat "$tmp/out"
[ "$(grep -c '^hello from PE [0-3] of 4$' "$tmp/out")" = 4 ] || { echo "expected 4 lines"; exit 1; }
echo "smcc_shmem: ok"
