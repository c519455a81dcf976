#!/bin/sh
# An ARMCI program in the style of Global Arrays compiles with smcc (strict
# C11, warnings as errors) and smc++ (armci.h is C++-clean), and runs with smrun.
set -eu
bindir=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bindir/smcc" -std=c11 -pedantic -Wall -Wextra -Werror -O2 -o "$tmp/ga_style" "$src"
printf '#include <armci.h>\nint main(void) { ARMCI_Group g; armci_hdl_t h; ARMCI_INIT_HANDLE(&h); return (int)sizeof g + ARMCI_Uses_shm() - 1 - (int)sizeof g; }\n' > "$tmp/cxx.cc"
"$bindir/smc++" -Wall -Wextra -Werror -o "$tmp/cxx" "$tmp/cxx.cc"
"$bindir/smrun" -n 4 "$tmp/ga_style" > "$tmp/out"
cat "$tmp/out"
[ "$(grep -c '^ga_style: process [0-3] of 4: ok$' "$tmp/out")" = 4 ] || { echo "expected 4 lines"; exit 1; }
echo "smcc_armci: ok"
