#!/bin/sh
# asan_user.sh BINDIR SOURCE: a user's MPI program built with smcc
# -fsanitize=address runs on 2 ranks against the ordinary libsmartmap (the
# sanitizer's allocator serves the program, whose heap peers then reach
# through the kernel), and AddressSanitizer reports a heap overflow in it.
set -u
bin=$1 src=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$bin/smcc" -fsanitize=address -fno-omit-frame-pointer -g -O1 -o "$dir/prog" "$src" || exit 1
out=$("$bin/smrun" -n 2 "$dir/prog" ok 2>&1); rc=$?
echo "$out"
[ $rc = 0 ] && echo "$out" | grep -q "^debug_mpi: 2 ranks ok$" || { echo "asan_user: FAILED: ok run, exit $rc"; exit 1; }
out=$("$bin/smrun" -n 2 "$dir/prog" overflow 2>&1); rc=$?
echo "$out"
[ $rc != 0 ] && echo "$out" | grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" ||
  { echo "asan_user: FAILED: the overflow was not reported (exit $rc)"; exit 1; }
echo "asan_user: ok"
