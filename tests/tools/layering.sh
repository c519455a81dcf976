#!/bin/sh
# The build enforces the layers (DESIGN.md §2): a file of a layer that
# includes the header of a layer it does not USE fails to compile. Builds
# the probe targets of tests/tools/CMakeLists.txt: ok_* must compile (the
# layer's own and allowed headers), bad_* must fail, and for the right
# reason: the header is not found.
# Usage: layering.sh CMAKE BUILD_DIR ok_TARGET... -- bad_TARGET:HEADER...
set -u
cmake=$1 build=$2
shift 2
fail=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  if out=$("$cmake" --build "$build" --target "$1" 2>&1); then
    echo "layering: $1 compiles, as it should"
  else
    echo "$out"; echo "layering: $1 does not compile, but it uses only what its layer may"; fail=1
  fi
  shift
done
[ $# -gt 0 ] && shift
for probe in "$@"; do
  target=${probe%%:*} header=${probe#*:}
  if out=$("$cmake" --build "$build" --target "$target" 2>&1); then
    echo "layering: $target compiles, but it includes $header, which its layer may not see"; fail=1
  elif echo "$out" | grep -q "fatal error: $header: No such file or directory"; then
    echo "layering: $target fails: $header: No such file or directory"
  else
    echo "$out"; echo "layering: $target fails, but not for want of $header"; fail=1
  fi
done
exit $fail
