#!/usr/bin/env python3
"""check_core_deps.py: calls between the files of src/core flow one way
(sm_core.h says the order). From each object file's defined and undefined
symbols (nm), build the graph "file A uses a symbol file B defines" and fail
on any cycle, except the one documented upcall: the first malloc (alloc.c)
initialises the core (sm_core_init, init.c).

Usage: check_core_deps.py "a.o;b.o;..." (CMake's $<TARGET_OBJECTS:sm_core>)"""
import os
import subprocess
import sys

ALLOWED = {('alloc', 'init', 'sm_core_init')}

objs = [o for arg in sys.argv[1:] for o in arg.split(';') if o]
name = lambda o: os.path.basename(o).split('.')[0]
defined, uses = {}, {}
for o in objs:
    out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
    uses[name(o)] = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            uses[name(o)].add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRVW':
            defined[f[2]] = name(o)

edges = {}
for a, syms in uses.items():
    for s in syms:
        b = defined.get(s)
        if b and b != a and (a, b, s) not in ALLOWED:
            edges.setdefault(a, {}).setdefault(b, s)

# Depth-first search for a cycle; report it as a path of files and symbols.
state, stack, cycle = {}, [], None
def visit(a):
    global cycle
    state[a] = 1
    stack.append(a)
    for b in sorted(edges.get(a, {})):
        if cycle:
            return
        if state.get(b) == 1:
            cycle = stack[stack.index(b):] + [b]
        elif not state.get(b):
            visit(b)
    stack.pop()
    state[a] = 2
for a in sorted(uses):
    if not state.get(a) and not cycle:
        visit(a)

for a in sorted(edges):
    print(f'{a}.c -> ' + ', '.join(f'{b}.c ({s})' for b, s in sorted(edges[a].items())))
if cycle:
    path = ' -> '.join(f'{a}.c [{edges[a][b]}]' for a, b in zip(cycle, cycle[1:])) + f' -> {cycle[-1]}.c'
    print(f'check_core_deps: cycle: {path}')
    sys.exit(1)
print(f'check_core_deps: {len(uses)} files, no cycle besides the lazy-init upcall')
sys.exit(0 if len(uses) > 1 else 1)
