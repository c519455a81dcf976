#!/bin/sh
# Set up (scripts/setup.sh), then run the main job: the substrate benchmark,
# smartmap's figures next to the raw limits of this machine.
#   scripts/bench.sh            a quick run (about ten seconds)
#   scripts/bench.sh --report   a full run, written to docs/PERFORMANCE.md
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
if [ "${1:-}" = --report ]; then
  out=docs/PERFORMANCE.md
  {
    echo "# Performance"
    echo
    echo "Produced by \`scripts/bench.sh --report\` (runs \`build/bin/smrun -n 2 build/bin/bench_substrate\`)"
    echo "on $(date -u +%Y-%m-%d)."
    echo
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
    echo "$(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r), smartmap $(build/bin/smrun --version | awk '{print $NF}')."
    echo "A shared, noisy VM: read the spreads."
    echo
    echo "## Substrate"
    echo
    build/bin/smrun -n 2 build/bin/bench_substrate
  } > "$out.tmp"
  mv "$out.tmp" "$out"
  cat "$out"
else
  exec build/bin/smrun -n 2 build/bin/bench_substrate --quick
fi
