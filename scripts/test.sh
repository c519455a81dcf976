#!/bin/sh
# Set up (scripts/setup.sh), then run the whole test suite with CTest.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
cd build && ctest --output-on-failure --timeout 300 "$@"
