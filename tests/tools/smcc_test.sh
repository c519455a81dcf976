#!/bin/sh
# smcc builds a program that smrun runs; -show prints the command; -c compiles only.
set -eu
bindir=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bindir/smcc" -show -o app app.c | grep -q -- '-lsmartmap' || { echo "smcc -show lacks -lsmartmap"; exit 1; }
"$bindir/smcc" -show -c app.c | grep -q -- '-lsmartmap' && { echo "smcc -c must not link"; exit 1; }
"$bindir/smcc" -O2 -o "$tmp/hello" "$src"
"$bindir/smrun" -n 4 "$tmp/hello" > "$tmp/out"
cat "$tmp/out"
[ "$(grep -c '^hello from rank' "$tmp/out")" = 4 ] || { echo "expected 4 lines"; exit 1; }
"$bindir/smcc" -c -o "$tmp/hello.o" "$src" && "$bindir/smcc" -o "$tmp/hello2" "$tmp/hello.o"
"$bindir/smrun" -n 2 "$tmp/hello2" >/dev/null
echo "smcc: ok"
