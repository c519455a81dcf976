#!/usr/bin/env python3
"""rma_compare.py: bench_mpi_rma under smartmap, Open MPI and MPICH, in
alternated rounds (one run of each per round, so that a busy machine slows
all three alike), then the median of each figure over the rounds and the
ratios issue 13 asks for: MPI_Put + MPI_Win_flush (8 B) against the better
of Open MPI and MPICH, on MPI_Win_allocate and on MPI_Win_create over
malloc'd memory; fence and PSCW epochs against smartmap's own barrier of
the same run; the overlap ratio. Prints a Markdown table.

  bench/mpi/rma_compare.py [--rounds 5] [--reps 7] [--bin build/bin]"""
import argparse
import os
import statistics
import subprocess
import sys

ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
ap.add_argument('--rounds', type=int, default=5)
ap.add_argument('--reps', type=int, default=7, help='timed runs per figure inside each run (their median)')
ap.add_argument('--bin', default=os.path.join(os.path.dirname(__file__), '..', '..', 'build', 'bin'))
a = ap.parse_args()
b = os.path.abspath(a.bin)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
impls = {
    'smartmap': [f'{b}/smrun', '-n', '2', '--bind-to', 'core', f'{b}/bench_mpi_rma'],
    'Open MPI': ['mpirun.openmpi', '-n', '2', '--bind-to', 'core', f'{b}/bench_mpi_rma.openmpi'],
    'MPICH': ['mpiexec.mpich', '-n', '2', '-bind-to', 'core', f'{b}/bench_mpi_rma.mpich'],
}
runs = {k: {} for k in impls}
for r in range(a.rounds):
    for name, cmd in impls.items():
        p = subprocess.run(cmd + [str(a.reps)], env=env, capture_output=True, text=True, timeout=600)
        if p.returncode:
            sys.exit(f'rma_compare: {name} failed ({p.returncode}):\n{p.stdout}{p.stderr}')
        for line in p.stdout.splitlines():
            k, v = line.split()
            runs[name].setdefault(k, []).append(float(v))
    print(f'round {r + 1}/{a.rounds} done', file=sys.stderr)

med = {n: {k: statistics.median(v) for k, v in d.items()} for n, d in runs.items()}
keys = ['put_flush_allocate', 'put_flush_create_malloc', 'barrier', 'fence_epoch', 'pscw_epoch', 'fence_per_barrier',
        'pscw_per_barrier', 'overlap_ratio_64KiB']
units = {k: 'us' for k in keys}
for k in keys[5:]:
    units[k] = 'ratio'
print(f'Medians of {a.rounds} alternated rounds (each the median of {a.reps} timed runs), 2 ranks bound to cores.\n')
print('| figure | unit | smartmap | Open MPI | MPICH |')
print('|---|---|---:|---:|---:|')
for k in keys:
    print(f'| {k} | {units[k]} | ' + ' | '.join(f'{med[n][k]:.4g}' for n in impls) + ' |')
print()
sm = med['smartmap']
for k in ('put_flush_allocate', 'put_flush_create_malloc'):
    best = min(med['Open MPI'][k], med['MPICH'][k])
    # the ratio per round too: how steady it is
    per = [min(o, m) / s for s, o, m in zip(runs['smartmap'][k], runs['Open MPI'][k], runs['MPICH'][k])]
    print(f'- {k}: the better of Open MPI and MPICH / smartmap = {best / sm[k]:.1f}x '
          f'(per round {min(per):.1f}x to {max(per):.1f}x; target >= 3x)')
for k in ('fence_per_barrier', 'pscw_per_barrier'):
    per = runs['smartmap'][k]
    print(f'- smartmap {k.replace("_per_", " epoch / ")} measured next to it = {statistics.median(per):.2f} '
          f'(rounds {min(per):.2f} to {max(per):.2f}; target <= 2)')
print(f'- overlap ratio (transfers and computation together / the longer alone; 1.0: full overlap): smartmap '
      f'{sm["overlap_ratio_64KiB"]:.3f}, Open MPI {med["Open MPI"]["overlap_ratio_64KiB"]:.3f}, MPICH '
      f'{med["MPICH"]["overlap_ratio_64KiB"]:.3f} (target < 1.1)')
