#!/bin/sh
# The test command (README; .ci/run runs it). Sets up (scripts/setup.sh),
# then runs the whole suite twice:
#  1. build/, compiled with warnings as errors (-DSMARTMAP_WERROR=ON);
#  2. build-sanitize/, libsmartmap, smrun and the tests compiled with
#     AddressSanitizer + UndefinedBehaviorSanitizer (-O1 -g; any UB report
#     fails its test). The tests that cannot run under the sanitizers (they
#     test the slot heap, which the sanitizer's allocator replaces; --preload;
#     ulimit -v; programs built without them; smbench's timings) are disabled
#     there and listed by ctest: README, "Sanitizers", says why.
# Extra arguments go to both ctest runs (e.g. -R mpi_).
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh -DSMARTMAP_WERROR=ON
(cd build && ctest -j2 --output-on-failure --timeout 300 "$@")
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSMARTMAP_SANITIZE=ON -DSMARTMAP_WERROR=ON >/dev/null
cmake --build build-sanitize
(cd build-sanitize && ctest -j2 --output-on-failure --timeout 300 "$@")
