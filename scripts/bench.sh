#!/bin/sh
# Set up (scripts/setup.sh), then run the main job: smbench, the seed papers'
# benchmarks under smartmap, Open MPI and MPICH side by side.
#   scripts/bench.sh [smbench options]   a quick run (about a minute on a quiet machine):
#                                        tables in the terminal, report and plots in ./smbench-DATE/
#   scripts/bench.sh --report [options]  the full run (2, 4 and 8 ranks; 0.03 s per size, 5 rounds,
#                                        then more for noisy rows until 14 minutes have passed: about
#                                        25 minutes on 2 cores, the offnode suite included) that docs/PERFORMANCE.md and docs/perf/ hold
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
if [ "${1:-}" = --report ]; then
  shift
  rm -rf docs/perf.new
  rc=0
  tools/smbench --ranks 2,4,8 --seconds 0.03 --timeout 180 --time-limit 14 --out docs/perf.new "$@" || rc=$?
  if [ ! -f docs/perf.new/report.md ]; then   # smbench stopped before its report: keep the last one
    rm -rf docs/perf.new
    exit "$rc"
  fi
  rm -rf docs/perf
  mv docs/perf.new docs/perf
  {
    echo "# Performance"
    echo
    echo "Regenerate with \`scripts/bench.sh --report\` (runs \`tools/smbench --ranks 2,4,8 --seconds 0.03 --timeout 180 --time-limit 14 --out docs/perf\`,"
    echo "about 25 minutes on 2 cores, the offnode suite (smartmap between fake nodes against Open MPI's pml/ucx) included;"
    echo "\`scripts/bench.sh\` alone is the one-minute look). The plots and every sample (\`results.json\`,"
    echo "for \`tools/smbench compare\`) are in [perf/](perf/); how the figures are measured and how far"
    echo "to trust a ratio: \"Method\" below."
    echo
    sed -e '1d' -e 's|docs/perf\.new|docs/perf|g' -e 's/](\([a-z_0-9]*\.png\))/](perf\/\1)/g' docs/perf/report.md
  } > docs/PERFORMANCE.md
  rm docs/perf/report.md
  exit $rc
fi
exec tools/smbench --quick "$@"
