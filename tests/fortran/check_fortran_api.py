#!/usr/bin/env python3
"""check_fortran_api.py: every routine of the C binding has its Fortran
bindings, or is on genfortran.py's exclusion list with a reason.

The routines are those mpi.h declares (SMPI_DECL, read here independently of
the generator) and those libsmartmap.so exports under MPI_ names. Each must be
in the generator's manifest as bound or excluded (never unmapped); a bound one
must be exported as mpi_x_ and pmpi_x_ (and mpi_x_f08_, pmpi_x_f08_ unless it
has no mpi_f08 form) and have an interface in module mpi and mpi_f08. Every
constant of mpi.h must be bound or excluded too.

Usage: check_fortran_api.py mpi.h libsmartmap.so fortran_api.txt mpi.f90 mpi_f08.f90"""
import re
import subprocess
import sys

header, lib, manifest, mod, mod08 = sys.argv[1:6]
declared = set(re.findall(r'^SMPI_DECL\([^,]+,\s*(\w+),', open(header).read(), re.M))
out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
symbols = {l.split()[-1]: l.split()[-2] for l in out.splitlines() if l.strip()}
exported = {n[4:] for n, t in symbols.items() if n.startswith('MPI_') and t in 'TWi'}
routines = declared | exported

status = {}
for line in open(manifest):
    m = re.match(r'(routine|constant) (MPI_\w+) (bound|excluded|unmapped)(?:: (.*))?$', line.strip())
    if m:
        status[(m.group(1), m.group(2))] = (m.group(3), m.group(4) or '')
mtext, m08text = open(mod).read(), open(mod08).read()

bad, excluded, bound = [], {}, 0
for r in sorted(routines):
    st, why = status.get(('routine', 'MPI_' + r), (None, ''))
    if st is None:
        bad.append(f'MPI_{r} ({"declared in mpi.h" if r in declared else "exported"}) is not in the manifest')
    elif st == 'unmapped':
        bad.append(f'MPI_{r} has no Fortran binding: {why}')
    elif st == 'excluded':
        if not why:
            bad.append(f'MPI_{r} is excluded without a reason')
        excluded.setdefault(why, []).append('MPI_' + r)
    else:
        bound += 1
        low = r.lower()
        names = [f'mpi_{low}_', f'pmpi_{low}_']
        if 'mpi_f08' in why.split(' (')[0].split():   # the forms, before any note
            names += [f'mpi_{low}_f08_', f'pmpi_{low}_f08_']
            if not re.search(rf'^  INTERFACE MPI_{r}\n +(SUBROUTINE|FUNCTION) MPI_{r}_f08\(', m08text, re.M):
                bad.append(f'MPI_{r}: no generic interface in module mpi_f08')
        for n in names:
            if n not in symbols:
                bad.append(f'MPI_{r}: {n} is not exported by {lib}')
        if not re.search(rf'^ +(SUBROUTINE|FUNCTION) MPI_{r.upper()}\(', mtext, re.M):
            bad.append(f'MPI_{r}: no interface in module mpi')
for (kind, name), (st, why) in sorted(status.items()):
    if kind == 'constant' and st == 'unmapped':
        bad.append(f'{name} (constant) has no Fortran form: {why}')

for why, names in sorted(excluded.items()):
    print(f'check_fortran_api: excluded ({why}): {" ".join(names)}')
for b in bad:
    print('check_fortran_api: ' + b)
print(f'check_fortran_api: {len(routines)} routines, {bound} bound, '
      f'{sum(len(v) for v in excluded.values())} excluded, {len(bad)} problems')
sys.exit(1 if bad or not bound else 0)
