#!/bin/sh
# smfort and its MPI names build Fortran programs that smrun runs, in each
# form (fixed-form mpif.h, use mpi_f08, legacy mpif.h code with mixed buffer
# types), from the build tree and from an installed prefix.
# Usage: smfort_test.sh BUILD_DIR SOURCE_DIR
set -eu
builddir=$1 here=$2
bin=$builddir/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "smfort_test: $*"; exit 1; }

for w in smfort mpif90 mpifort mpif77; do
  "$bin/$w" -show -o app app.f90 | grep -q -- '-lsmartmap' || fail "$w -show lacks -lsmartmap"
done
"$bin/smfort" -show -c app.f90 | grep -q -- '-lsmartmap' && fail "smfort -c must not link"
"$bin/smfort" -showme:compile | grep -q -- "-I$builddir/fortran" || fail "smfort -showme:compile lacks the module directory"
"$bin/smfort" --help | grep -q 'mpi_f08' || fail "smfort --help"

"$bin/smfort" -o "$tmp/hello" "$here/hello.f"
[ "$("$bin/smrun" -n 3 "$tmp/hello" | grep -c '^hello from rank [0-2] of 3, sum 3$')" = 3 ] || fail "fixed-form mpif.h program"
(cd "$tmp" && "$bin/mpifort" -O2 -o hello_f08 "$here/hello_f08.f90")
[ "$("$bin/smrun" -n 2 "$tmp/hello_f08" | grep -c '^hello from rank [01] of 2, sum 1$')" = 2 ] || fail "use mpi_f08 program"
"$bin/mpif90" -o "$tmp/legacy" "$here/legacy.f90" 2>"$tmp/warnings" || { cat "$tmp/warnings"; fail "legacy mpif.h code"; }
"$bin/smrun" -n 4 "$tmp/legacy" | grep -q '^legacy: sum 6$' || fail "legacy program's result"

# An installed prefix: mpif.h and the modules beside mpi.h, libsmartmap_f, the names.
p=$tmp/prefix
cmake --install "$builddir" --prefix "$p" >/dev/null
for f in bin/smfort bin/mpif90 bin/mpifort bin/mpif77 include/mpif.h include/mpi.mod include/mpi_f08.mod; do
  [ -e "$p/$f" ] || fail "install lacks $f"
done
[ -n "$(find "$p" -name libsmartmap_f.a)" ] || fail "install lacks libsmartmap_f.a"
"$p/bin/smfort" -show -c app.f90 | grep -q -- "-I$p/include" || fail "installed smfort: wrong include path"
(cd "$tmp" && "$p/bin/mpifort" -o hello_inst "$here/hello_f08.f90")
[ "$("$p/bin/smrun" -n 2 "$tmp/hello_inst" | grep -c '^hello from rank')" = 2 ] || fail "program built by the installed smfort"
echo "smfort: ok"
