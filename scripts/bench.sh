#!/bin/sh
# Set up (scripts/setup.sh), then run the main job: smbench, the seed papers'
# benchmarks under smartmap (each transport), Open MPI and MPICH side by side.
#   scripts/bench.sh [smbench options]   a quick run (about a minute): tables in
#                                        the terminal, report and plots in ./smbench-DATE/
#   scripts/bench.sh --report            the full run (about 15 minutes) that
#                                        docs/PERFORMANCE.md and docs/perf/ hold
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
if [ "${1:-}" = --report ]; then
  shift
  rm -rf docs/perf
  rc=0
  tools/smbench --ranks 2,4 --out docs/perf "$@" || rc=$?
  {
    echo "# Performance"
    echo
    echo "Regenerate with \`scripts/bench.sh --report\` (runs \`tools/smbench --ranks 2,4 --out docs/perf\`,"
    echo "about 15 minutes on 2 cores; \`scripts/bench.sh\` alone is the one-minute look). The plots and every"
    echo "sample (\`results.json\`, for \`tools/smbench compare\`) are in [perf/](perf/)."
    echo
    sed -e '1d' -e 's/](\([a-z_0-9]*\.png\))/](perf\/\1)/g' docs/perf/report.md
    echo
    echo "## Not in smbench yet"
    echo
    echo "SHMEM atomics, put bandwidth and message rate, and SHMEM collectives (barrier, broadcast,"
    echo "sliced reductions) are measured by \`bench/shmem/osu_shmem\` by hand: commands and figures in"
    echo "[bench/shmem/RESULTS.md](../bench/shmem/RESULTS.md)."
  } > docs/PERFORMANCE.md
  rm docs/perf/report.md
  exit $rc
fi
exec tools/smbench --quick "$@"
