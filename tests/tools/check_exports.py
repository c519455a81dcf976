#!/usr/bin/env python3
"""check_exports.py: libsmartmap.so exports its public API and nothing else.
Every name in its dynamic symbol table must be declared by a public header
(include/*.h, preprocessed: the generated shmem_/pshmem_ names count) or be
listed by name in the version script (glibc's names it interposes) or, for
the Fortran bindings, in genfortran.py's manifest (its "symbol" lines); every
name listed there must be exported; and the internal names the layers share
(sm_core, sm_fail, p2p_init ...) must not be. Every data object it exports has the size fixed below: a
program linked against the library holds a copy of it (a copy relocation)
of the size it had at the program's link, so a size change breaks programs
already built.

Usage: check_exports.py CC INCLUDE_DIR VERSION_SCRIPT libsmartmap.so [fortran_api.txt]"""
import os
import re
import subprocess
import sys
import tempfile

cc, incdir, mapfile, lib = sys.argv[1:5]
incdir = os.path.realpath(incdir)

out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True).stdout
# (AddressSanitizer adds an __odr_asan.NAME beside each exported variable.)
exported = {line.split()[-1] for line in out.splitlines() if line.strip() and '__odr_asan' not in line}

# Identifiers of the public headers, after preprocessing, from their own lines only.
with tempfile.NamedTemporaryFile('w', suffix='.c') as src:
    src.write(''.join(f'#include <{h}>\n' for h in ('smartmap.h', 'mpi.h', 'shmem.h', 'pshmem.h', 'armci.h')))
    src.flush()
    pre = subprocess.run([cc, '-E', '-I', incdir, src.name], capture_output=True, text=True, check=True).stdout
declared, ours = set(), False
for line in pre.splitlines():
    m = re.match(r'# \d+ "([^"]+)"', line)
    if m:
        ours = os.path.realpath(m.group(1)).startswith(incdir + os.sep)
    elif ours:
        declared.update(re.findall(r'[A-Za-z_]\w*', line))

text = re.sub(r'/\*.*?\*/', '', open(mapfile).read(), flags=re.S)
listed = set(re.findall(r'([A-Za-z_]\w*)\s*;', text.split('global:', 1)[1].split('local:', 1)[0]))
if len(sys.argv) > 5:
    listed |= {l.split()[1] for l in open(sys.argv[5]) if l.startswith('symbol ')}

# The exported data objects and their sizes (bytes), which must not change.
DATA_SIZES = {
    'shmem_team_world_s': 512, 'shmem_team_shared_s': 512, 'shmem_ctx_default_s': 64,   # shmem_internal.h's *_ABI_SIZE
    'mpi_fortran_argv_null_': 1, 'mpi_fortran_argvs_null_': 1, 'mpi_fortran_bottom_': 4,
    'mpi_fortran_errcodes_ignore_': 4, 'mpi_fortran_in_place_': 4, 'mpi_fortran_unweighted_': 4,
    'mpi_fortran_weights_empty_': 4, 'mpi_fortran_status_ignore_': 24, 'mpi_fortran_statuses_ignore_': 24,
}
syms = subprocess.run(['readelf', '-W', '--dyn-syms', lib], capture_output=True, text=True, check=True).stdout
objects = {}
for line in syms.splitlines():
    f = line.split()
    if len(f) >= 8 and f[3] == 'OBJECT' and f[6] != 'UND' and not f[7].startswith('__odr_asan'):
        objects[f[7].split('@')[0]] = int(f[2], 0)

bad = []
for name, size in sorted(objects.items()):
    if name not in DATA_SIZES:
        bad.append(f'{name} is an exported data object of {size} bytes with no fixed size in DATA_SIZES')
    elif size != DATA_SIZES[name]:
        bad.append(f'{name} is exported with {size} bytes, programs linked before hold {DATA_SIZES[name]}')
for name in sorted(exported - declared - listed):
    bad.append(f'{name} is exported but declared by no public header and not listed in {mapfile}')
for name in sorted(listed - exported):
    bad.append(f'{name} is listed in {mapfile} but not exported')
for name in ('sm_core', 'sm_core_init', 'sm_fail', 'sm_say', 'sm_copy', 'sm_settings', 'p2p_init', 'coll_barrier'):
    if name in exported:
        bad.append(f'{name} (internal) is exported')
for b in bad:
    print('check_exports: ' + b)
print(f'check_exports: {len(exported)} names exported, {len(bad)} problems')
sys.exit(1 if bad or not exported else 0)
