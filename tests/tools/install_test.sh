#!/bin/sh
# `cmake --install` gives a working prefix: smrun, smcc, smc++, the mpicc /
# mpicxx / mpirun / mpiexec names, the library, the headers, pkg-config and
# the CMake package, all usable from there.
set -eu
builddir=$1 here=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
cmake --install "$builddir" --prefix "$p" >/dev/null
for f in bin/smrun bin/smcc bin/smc++ bin/mpicc bin/mpicxx bin/mpirun bin/mpiexec \
         include/smartmap.h include/mpi.h include/shmem.h; do
  [ -e "$p/$f" ] || { echo "install lacks $f"; exit 1; }
done
libdir=$(dirname "$(find "$p" -name 'libsmartmap.so' | head -1)")
[ -n "$libdir" ] || { echo "install lacks libsmartmap.so"; exit 1; }
"$p/bin/smcc" -show -o app app.c | grep -q -- "-I$p/include" || { echo "smcc -show: wrong include path"; exit 1; }
"$p/bin/mpicc" -show -c app.c | grep -q -- "-I$p/include" || { echo "mpicc -show: wrong include path"; exit 1; }

"$p/bin/smcc" -o "$tmp/hello" "$here/hello.c"
"$p/bin/smrun" -n 3 "$tmp/hello" | grep -c '^hello from rank' | grep -qx 3
"$p/bin/smrun" -n 2 --preload "$tmp/hello" >/dev/null
"$p/bin/mpicc" -O2 -o "$tmp/hello_mpi" "$here/hello_mpi.c"
"$p/bin/mpirun" -n 4 "$tmp/hello_mpi" | grep -c 'sum 6$' | grep -qx 4
"$p/bin/mpiexec" -n 2 "$tmp/hello_mpi" >/dev/null
"$p/bin/mpicxx" -O2 -o "$tmp/hello_cxx" "$here/hello_cxx.cpp"
"$p/bin/mpirun" -n 3 "$tmp/hello_cxx" | grep -c '^c++ pe' | grep -qx 3

# pkg-config and find_package, as a user's build would use them.
PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs smartmap | grep -q -- '-lsmartmap'
cc $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs smartmap) -o "$tmp/hello_pc" "$here/hello.c"
"$p/bin/smrun" -n 2 "$tmp/hello_pc" >/dev/null
cmake -S "$here/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" -DHELLO_SRC="$here/hello.c" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$p/bin/smrun" -n 2 "$tmp/consumer/consumer" >/dev/null
echo "install: ok"
