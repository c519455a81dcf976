#!/usr/bin/env python3
"""check_symbols.py: every routine mpi.h declares is exported by the library
under its MPI_ name and its PMPI_ profiling name (so a program links and a
profiling tool can wrap it). Usage: check_symbols.py mpi.h libsmartmap.so"""
import re
import subprocess
import sys

header, lib = sys.argv[1], sys.argv[2]
names = re.findall(r'^SMPI_DECL\([^,]+,\s*(\w+),', open(header).read(), re.M)
out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
missing = [p + n for n in names for p in ('MPI_', 'PMPI_') if p + n not in exported]
for m in missing:
    print(f'check_symbols: {m} is declared in {header} but not exported by {lib}')
print(f'check_symbols: {len(names)} routines declared, {len(missing)} names missing')
sys.exit(1 if missing or not names else 0)
