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
# -show prints what one would type; arguments with spaces survive.
"$bindir/smcc" -show -O2 -o app app.c | grep -q -- " -O2 -o app app.c " || { echo "smcc -show quotes plain arguments"; exit 1; }
printf '#include <stdio.h>\nint main(void) { puts(MSG); return 0; }\n' > "$tmp/msg.c"
"$bindir/smcc" -DMSG='"two words"' -o "$tmp/msg" "$tmp/msg.c"
[ "$("$bindir/smrun" -n 1 "$tmp/msg")" = "two words" ] || { echo "smcc lost an argument's spaces"; exit 1; }
# What build systems ask (CMake's FindMPI): the flags alone, usable with cc.
inc=$("$bindir/smcc" -showme:compile) lnk=$("$bindir/smcc" -showme:link)
case $inc in -I*) ;; *) echo "smcc -showme:compile: '$inc'"; exit 1 ;; esac
case $lnk in *-lsmartmap*) ;; *) echo "smcc -showme:link: '$lnk'"; exit 1 ;; esac
"$bindir/mpicc" -compile-info | grep -q -- "-I" || { echo "mpicc -compile-info"; exit 1; }
"$bindir/mpicc" -link-info | grep -q -- "-lsmartmap" || { echo "mpicc -link-info"; exit 1; }
cc $inc -c -o "$tmp/hello3.o" "$src" && cc -o "$tmp/hello3" "$tmp/hello3.o" $lnk
[ "$("$bindir/smrun" -n 3 "$tmp/hello3" | grep -c '^hello from rank')" = 3 ] || { echo "cc with -showme flags"; exit 1; }
echo "smcc: ok"
