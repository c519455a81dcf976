#!/bin/sh
# with_tool.sh TOOL COMMAND...: run COMMAND if TOOL is installed, else skip
# (exit 77) saying so. scripts/setup.sh installs valgrind and gdb.
tool=$1; shift
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "skipped: $tool is not installed (scripts/setup.sh installs it)"
  exit 77
fi
exec "$@"
