#!/bin/sh
# Install what is missing on Debian 12 (apt-get, as root or through sudo),
# then configure and build smartmap into build/ (build/bin: smrun, smcc).
# Arguments go to CMake (scripts/test.sh: -DSMARTMAP_WERROR=ON).
set -eu
cd "$(dirname "$0")/.."
need=
# smbench's plots need matplotlib; its baselines are Debian's Open MPI and MPICH;
# the tests of debugging a rank run gdb and valgrind.
# gfortran: the Fortran bindings (src/fortran) and smfort. libpmix-dev: starting under mpirun (optional).
# libucx-dev, ucx-utils: traffic between nodes over UCX (optional; ucx_info lists transports).
for pkg in cmake ninja-build gcc g++ gfortran libc6-dev libmimalloc-dev python3 util-linux pkg-config \
           python3-matplotlib openmpi-bin libopenmpi-dev mpich libmpich-dev gdb valgrind libpmix-dev \
           libucx-dev ucx-utils; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need="$need $pkg"
done
if [ -n "$need" ]; then
  echo "setup: installing$need"
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
# apt's matplotlib serves Debian's python3; another python3 first on PATH gets it from pip
python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib
# mpi4py's own test suite (tests/mpi4py): its source distribution and the
# wheels that build it, kept outside the tree; the test says "skipped"
# without them (PyPI unreachable).
cache=${SMARTMAP_CACHE:-$HOME/.cache/smartmap}
if [ ! -f "$cache/mpi4py-4.1.2.tar.gz" ]; then
  mkdir -p "$cache"
  python3 -m pip download -q -d "$cache" --no-deps --no-binary mpi4py mpi4py==4.1.2 &&
    python3 -m pip download -q -d "$cache" --only-binary :all: cython setuptools wheel ||
    { echo "setup: mpi4py's source distribution not downloaded: its test will be skipped"; rm -f "$cache/mpi4py-4.1.2.tar.gz"; }
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build
