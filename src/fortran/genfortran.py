#!/usr/bin/env python3
"""genfortran.py: smartmap's Fortran bindings, generated from include/mpi.h.

The C API is read from mpi.h at build time: every SMPI_DECL(ret, name, args)
routine, the handle types (typedef struct smpi_x *MPI_X), the callback
typedefs, and every MPI_ constant (its value and C type come from a small
probe program compiled against mpi.h). Each C parameter is mapped by rules on
its type and name (the PARAMETER RULES below), never by routine, except for
the few families a rule names (attributes, keyvals, MPI-1 integer addresses).
A routine no rule can map is reported as unmapped in the manifest, and the
test tests/fortran/check_fortran_api.py fails naming it; the routines Fortran
does not get are in EXCLUDED, each with its reason.

Outputs (in --out):
  fortran_mpi.c    the entry points with gfortran's calling convention
                   (mpi_send_, pmpi_send_, mpi_send_f08_, ...): convert, call
                   the C MPI_/PMPI_ routine, convert back
  mpif.h           constants, COMMON sentinels, function types (fixed and
                   free form alike: columns 7-72, no continuation lines)
  mpi.f90          module mpi: the same constants, explicit interfaces
  mpi_f08.f90      module mpi_f08: handle types, MPI_Status, typed constants,
                   generic interfaces MPI_X -> MPI_X_f08 (and PMPI_)
  fortran_api.txt  the manifest: every routine and constant of mpi.h and what
                   Fortran got (bound / excluded: reason / unmapped: why), and
                   every name the entry points export

Usage: genfortran.py --mpi-h include/mpi.h --cc cc --out DIR
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# ---------------------------------------------------------------- exclusions
# Routines of mpi.h that Fortran does not get, and why.
EXCLUDED = [
    (r'^(\w+)_(f2c|c2f|f082c|c2f08)$', 'a C-only conversion routine (MPI 3.1 §17.2.4-5: C has them, Fortran not)'),
    (r'^T_', 'the tool information interface is defined for C only (MPI 3.1 §14.3)'),
]
# The MPI-1 routines deprecated or removed since MPI-2 have no mpi_f08
# binding (MPI 3.1 §15, §16); mpif.h and module mpi keep them.
MPI1 = {'Address', 'Type_extent', 'Type_lb', 'Type_ub', 'Type_struct', 'Type_hvector', 'Type_hindexed',
        'Errhandler_create', 'Errhandler_get', 'Errhandler_set', 'Keyval_create', 'Keyval_free',
        'Attr_put', 'Attr_get', 'Attr_delete'}
# Their Fortran forms take addresses and displacements as default INTEGERs.
MPI1_INT_AINT = {'Address', 'Type_extent', 'Type_lb', 'Type_ub', 'Type_struct', 'Type_hvector', 'Type_hindexed'}

# ---------------------------------------------------------------- parameter rules
LOGICAL_NAMES = {'flag', 'commute', 'reorder', 'periods', 'remain_dims', 'weighted', 'complete'}
# Pointer constants of mpi.h Fortran has as COMMON blocks, and the parameters
# each may stand for (by C parameter name; 'choice' is every choice buffer).
SENTINELS = {
    'MPI_BOTTOM': ('integer', 'choice'),
    'MPI_IN_PLACE': ('integer', 'choice'),
    'MPI_STATUS_IGNORE': ('status', None),
    'MPI_STATUSES_IGNORE': ('statuses', None),
    'MPI_UNWEIGHTED': ('integer', r'.*weights$'),
    'MPI_WEIGHTS_EMPTY': ('integer', r'.*weights$'),
    'MPI_ERRCODES_IGNORE': ('integer', r'^array_of_errcodes$'),
    'MPI_ARGV_NULL': ('character', r'^argv$'),
    'MPI_ARGVS_NULL': ('character', r'^array_of_argv$'),
}
# C pointer constants that are C's names for Fortran things.
C_ONLY_CONSTANTS = {
    'MPI_F_STATUS_IGNORE': "C's name for Fortran's MPI_STATUS_IGNORE",
    'MPI_F_STATUSES_IGNORE': "C's name for Fortran's MPI_STATUSES_IGNORE",
    'MPI_F08_STATUS_IGNORE': "C's name for mpi_f08's MPI_STATUS_IGNORE",
    'MPI_F08_STATUSES_IGNORE': "C's name for mpi_f08's MPI_STATUSES_IGNORE",
}
# Lengths of arrays that must be converted element by element (handles,
# statuses, strings, MPI-1 addresses): the first of these parameters the
# routine has, or a computed length.
LENGTHS = {
    'array_of_requests': ['count', 'incount'],
    'array_of_statuses': ['count', 'incount'],
    'array_of_types': ['count'],
    'array_of_datatypes': ['max_datatypes'],
    'array_of_displacements': ['count'],
    'array_of_info': ['count'],
    'array_of_commands': ['count'],
    'array_of_argv': ['count'],
    'sendtypes': ['@ntypes'],
    'recvtypes': ['@ntypes'],
}
# Fortran's own datatypes (MPI 3.1 §3.2.2, §17.2.6), mapped onto C types of
# the same representation (gfortran: INTEGER and LOGICAL are C int, .TRUE. is
# 1). A name mpi.h defines itself wins; None: not supported here, so
# MPI_DATATYPE_NULL, as the standard allows for the optional ones.
FORTRAN_TYPES = [
    ('MPI_INTEGER', 'MPI_INT'), ('MPI_REAL', 'MPI_FLOAT'), ('MPI_DOUBLE_PRECISION', 'MPI_DOUBLE'),
    ('MPI_COMPLEX', 'MPI_C_FLOAT_COMPLEX'), ('MPI_DOUBLE_COMPLEX', 'MPI_C_DOUBLE_COMPLEX'),
    ('MPI_LOGICAL', 'MPI_INT'), ('MPI_CHARACTER', 'MPI_CHAR'),
    ('MPI_2INTEGER', 'MPI_2INT'), ('MPI_2REAL', None), ('MPI_2DOUBLE_PRECISION', None),
    ('MPI_INTEGER1', 'MPI_INT8_T'), ('MPI_INTEGER2', 'MPI_INT16_T'), ('MPI_INTEGER4', 'MPI_INT32_T'),
    ('MPI_INTEGER8', 'MPI_INT64_T'), ('MPI_INTEGER16', None),
    ('MPI_REAL2', None), ('MPI_REAL4', 'MPI_FLOAT'), ('MPI_REAL8', 'MPI_DOUBLE'), ('MPI_REAL16', None),
    ('MPI_COMPLEX4', None), ('MPI_COMPLEX8', 'MPI_C_FLOAT_COMPLEX'), ('MPI_COMPLEX16', 'MPI_C_DOUBLE_COMPLEX'),
    ('MPI_COMPLEX32', None),
]
FORTRAN_TYPE_WHY = {
    'MPI_2REAL': 'the C layer has no (float, float) pair type for MINLOC/MAXLOC',
    'MPI_2DOUBLE_PRECISION': 'the C layer has no (double, double) pair type for MINLOC/MAXLOC',
    'MPI_INTEGER16': 'optional; no 16-byte integer type in the C layer',
    'MPI_REAL2': 'optional; no half-precision type in the C layer',
    'MPI_REAL16': "optional; gfortran's REAL(16) is binary128, which the C layer has not",
    'MPI_COMPLEX4': 'optional; no half-precision type in the C layer',
    'MPI_COMPLEX32': "optional; gfortran's COMPLEX(16) is binary128, which the C layer has not",
}
# Predefined attribute keys whose C value points at the value Fortran gets
# (MPI 3.1 §17.2.7): (key, what the C pointer points to; None: the pointer itself).
ATTR_KEYS = {
    'comm': [('MPI_TAG_UB', 'int'), ('MPI_HOST', 'int'), ('MPI_IO', 'int'), ('MPI_WTIME_IS_GLOBAL', 'int'),
             ('MPI_APPNUM', 'int'), ('MPI_UNIVERSE_SIZE', 'int'), ('MPI_LASTUSEDCODE', 'int')],
    'win': [('MPI_WIN_BASE', None), ('MPI_WIN_SIZE', 'MPI_Aint'), ('MPI_WIN_DISP_UNIT', 'int'),
            ('MPI_WIN_CREATE_FLAVOR', 'int'), ('MPI_WIN_MODEL', 'int')],
    'type': [],
}
SCALARS = {  # C scalar type -> its Fortran type
    'int': 'INTEGER', 'MPI_Fint': 'INTEGER', 'MPI_Aint': 'INTEGER(KIND=MPI_ADDRESS_KIND)',
    'MPI_Offset': 'INTEGER(KIND=MPI_OFFSET_KIND)', 'MPI_Count': 'INTEGER(KIND=MPI_COUNT_KIND)',
    'double': 'DOUBLE PRECISION',
}
# MPI_SIZEOF (MPI 3.1 §17.1.9) takes variables of numeric intrinsic types: these kinds (gfortran, x86-64).
SIZEOF_KINDS = [('INTEGER', [1, 2, 4, 8, 16]), ('REAL', [4, 8, 10, 16]), ('COMPLEX', [4, 8, 10, 16])]
NFN = 32   # C trampolines per callback kind with no state of its own (user ops, error handlers)


class Unmapped(Exception):
    pass


# ---------------------------------------------------------------- parsing mpi.h
def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def code_lines(text):
    """The text without comments and preprocessor lines."""
    text = strip_comments(text).replace('\\\n', ' ')
    return '\n'.join(l for l in text.splitlines() if not l.lstrip().startswith('#'))


def split_top(s, sep=','):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


class Param:
    def __init__(self, text, routine):
        self.text = ' '.join(text.split())
        self.routine = routine
        if self.text == '...':
            self.base, self.name, self.ptr, self.arr, self.dims, self.const = '...', '', 0, False, [], False
            return
        m = re.match(r'^(.*?)(\w+)\s*((?:\[[^\]]*\]\s*)*)$', self.text)
        if not m:
            raise Unmapped(f'cannot parse parameter "{self.text}"')
        typ, self.name, arrs = m.group(1), m.group(2), m.group(3)
        dims = re.findall(r'\[([^\]]*)\]', arrs)
        self.arr = bool(dims)
        self.dims = [d.strip() for d in dims[1:]]
        self.const = bool(re.search(r'\bconst\b', typ))
        self.ptr = typ.count('*') + (1 if dims else 0)
        self.base = ' '.join(re.sub(r'\bconst\b|\*', ' ', typ).split())
        if not self.base:       # "(MPI_Comm)": Fortran needs the names (keywords, dummies)
            raise Unmapped(f'parameter "{self.text}" has no name')


class Routine:
    def __init__(self, ret, name, args):
        self.ret, self.name = ' '.join(ret.split()), name
        args = args.strip()[1:-1].strip()
        self.params = [] if args in ('', 'void') else [Param(a, self) for a in split_top(args)]

    def has(self, name):
        return any(p.name == name for p in self.params)

    def cname(self):
        return 'MPI_' + self.name


def parse_routines(text):
    body = code_lines(text)
    out, pos = [], 0
    while True:
        i = body.find('SMPI_DECL(', pos)
        if i < 0:
            return out
        j, depth = i + len('SMPI_DECL'), 0
        for k in range(j, len(body)):
            depth += {'(': 1, ')': -1}.get(body[k], 0)
            if depth == 0:
                break
        inner = body[j + 1:k]
        ret, name, args = split_top(inner)
        out.append((ret, name, args))
        pos = k + 1


def parse_types(text):
    """Handle types {C type: f2c prefix} and callback typedefs {name: (ret, params)}."""
    body = code_lines(text)
    handles = {}
    for m in re.finditer(r'typedef\s+struct\s+\w+\s*\*\s*(MPI_\w+)\s*;', body):
        t = m.group(1)
        handles[t] = 'Type' if t == 'MPI_Datatype' else t[4:]
    callbacks = {}
    for m in re.finditer(r'typedef\s+(\w+)\s+(MPI_\w+)\s*(\((?:[^()]|\([^()]*\))*\))\s*;', body):
        callbacks[m.group(2)] = (m.group(1), m.group(3))
    for m in re.finditer(r'typedef\s+(MPI_\w+)\s+(MPI_\w+)\s*;', body):
        if m.group(1) in callbacks:
            callbacks[m.group(2)] = callbacks[m.group(1)]
    return handles, callbacks


def parse_constant_names(text):
    names = []
    src = strip_comments(text).replace('\\\n', ' ')
    for m in re.finditer(r'^\s*#\s*define\s+(MPI_\w+)(?!\()\s+(\S.*)$', src, re.M):
        names.append(m.group(1))
    for m in re.finditer(r'\benum\b[^{;]*\{(.*?)\}', code_lines(text), re.S):
        for item in split_top(m.group(1)):
            mm = re.match(r'(MPI_\w+)', item)
            if mm:
                names.append(mm.group(1))
    seen, out = set(), []
    for n in names:
        if n not in seen:
            seen.add(n)
            out.append(n)
    return out


def probe(cc, mpi_h, names, handles):
    """Each constant's C type class and value, and the sizes Fortran needs."""
    src = ['#include <stdio.h>', '#include <stddef.h>', '#include <stdint.h>', '#include "mpi.h"',
           'static void p_int(const char *n, long long v) { printf("%s int %lld\\n", n, v); }',
           'static void p_ptr(const char *n, const void *v) { printf("%s ptr %lld\\n", n, (long long)(intptr_t)v); }',
           'static void p_other(const char *n, ...) { printf("%s other 0\\n", n); }']
    for t in handles:
        src.append(f'static void p_{t}(const char *n, {t} v) {{ printf("%s handle:{t} %lld\\n", n, (long long)(intptr_t)v); }}')
    # _Generic picks the printer by the constant's C type.
    src.append('#define P(n) _Generic((n), ' + ''.join(f'{t}: p_{t}, ' for t in handles) +
               'char: p_int, signed char: p_int, unsigned char: p_int, short: p_int, unsigned short: p_int, '
               'int: p_int, unsigned: p_int, long: p_int, unsigned long: p_int, long long: p_int, '
               'unsigned long long: p_int, void *: p_ptr, int *: p_ptr, char *: p_ptr, char **: p_ptr, '
               'char ***: p_ptr, MPI_Status *: p_ptr, default: p_other)(#n, (n))')
    src.append('int main(void) {')
    for n in names:
        src.append(f'  P({n});')
    src.append('  printf("@sizeof MPI_Status %zu\\n", sizeof(MPI_Status));')
    for t in ('MPI_Aint', 'MPI_Offset', 'MPI_Count', 'MPI_Fint', 'int', 'size_t'):
        src.append(f'  printf("@sizeof {t} %zu\\n", sizeof({t}));')
    src.append('  return 0; }')
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, 'probe.c'), os.path.join(d, 'probe')
        open(c, 'w').write('\n'.join(src) + '\n')
        # The library is not linked: constants that are addresses of its objects
        # (MPI_F_STATUS_IGNORE ...) print as 0, and nothing reads them.
        r = subprocess.run([cc, '-std=gnu11', '-w', '-no-pie', '-Wl,--unresolved-symbols=ignore-all',
                            '-I', os.path.dirname(os.path.abspath(mpi_h)), '-o', exe, c],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f'genfortran: the constants probe does not compile against {mpi_h}:\n{r.stderr}')
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    consts, sizes = {}, {}
    for line in out.splitlines():
        a, b, c = line.split()
        if a == '@sizeof':
            sizes[b] = int(c)
        else:
            consts[a] = (b, int(c))
    return consts, sizes


# ---------------------------------------------------------------- the model
class Ctx:
    def __init__(self, handles, callbacks, consts, sizes, routines):
        self.handles, self.callbacks, self.consts, self.sizes = handles, callbacks, consts, sizes
        self.routine_names = {r.name for r in routines}
        self.sentinels = [s for s in SENTINELS if consts.get(s, ('',))[0] == 'ptr']
        self.str_max = max([v for n, (k, v) in consts.items() if n.startswith('MPI_MAX_') and k == 'int'] + [256])
        self.helpers = {}      # C templates the generated code needs, by key
        self.status_size = sizes['MPI_Status'] // sizes['MPI_Fint']


class Arg:
    """One C parameter as Fortran passes it: the C entry's parameters, the
    code around the call, the call's argument, and the Fortran declarations."""
    def __init__(self, p):
        self.p, self.name = p, p.name
        self.cparams = []        # the entry point's parameters (C declarations)
        self.hidden = []         # hidden string lengths (after all others)
        self.pre, self.pre2, self.post, self.cleanup = [], [], [], []
        self.fail = None         # C condition: the conversion failed (no memory)
        self.call = None         # the C argument expression, or None: not passed
        self.fdecl = {}          # style ('mpi'/'f08') -> list of declaration lines ({} = not a Fortran argument)
        self.post_old = None     # post for mpif.h and module mpi, when it differs from mpi_f08's
        self.failmsg = 'SMPI_F_NOMEMMSG'
        self.group = None        # (callback family, key) the argument belongs to
        self.f08_differs = False
        self.cptr = False        # an address out that module mpi also offers as TYPE(C_PTR)


def cbfamily(ctx, tname):
    if tname not in ctx.callbacks:
        return None
    if tname == 'MPI_User_function':
        return ('op', None)
    if tname.endswith('_errhandler_function') or tname == 'MPI_Handler_function':
        return ('errh', first_handle(ctx, tname))
    if tname.endswith('_copy_attr_function') or tname == 'MPI_Copy_function':
        return ('kvcopy', first_handle(ctx, tname))
    if tname.endswith('_delete_attr_function') or tname == 'MPI_Delete_function':
        return ('kvdel', first_handle(ctx, tname))
    m = re.match(r'MPI_Grequest_(query|free|cancel)_function$', tname)
    if m:
        return ('greq', m.group(1))
    return None


def first_handle(ctx, tname):
    ret, params = ctx.callbacks[tname]
    first = split_top(params.strip()[1:-1])[0]
    for t in ctx.handles:
        if re.search(r'\b' + t + r'\b', first):
            return t
    raise Unmapped(f'callback type {tname}: no handle in its first parameter')


def length_expr(ctx, r, p):
    for cand in LENGTHS.get(p.name, []):
        if cand == '@ntypes':
            comm = next((q.name for q in r.params if q.base == 'MPI_Comm' and q.ptr == 0), None)
            if not comm:
                raise Unmapped(f'{p.name}: no communicator to size it by')
            neighbor = 'Neighbor' in r.name
            send = p.name.startswith('send')
            ctx.helpers['ntypes'] = ntypes_helper(ctx)
            n = f'smpi_f_ntypes({comm}_c, {int(neighbor)}, {int(send)})'
            if send and r.has('sendbuf'):    # with MPI_IN_PLACE, sendtypes is not read (nor need it be an array)
                n = f'smpi_f_buf(sendbuf) == MPI_IN_PLACE ? 0 : {n}'
            return n
        if r.has(cand):
            q = next(q for q in r.params if q.name == cand)
            if q.base == 'int' and q.ptr == 0:
                return f'smpi_f_len(*{cand})'
    raise Unmapped(f'array parameter "{p.text}": no rule gives its length')


def sentinel_for(ctx, pname):
    return [s for s in ctx.sentinels
            if SENTINELS[s][1] not in (None, 'choice') and re.match(SENTINELS[s][1], pname)]


def fsent(s):
    return 'mpi_fortran_' + s[4:].lower() + '_'


def classify(ctx, r, p, mpi1):
    """The Arg for parameter p of routine r (raises Unmapped)."""
    a = Arg(p)
    n = p.name
    b, ptr = p.base, p.ptr
    fint, intent_in = 'MPI_Fint', ', INTENT(IN)'
    def both(line, f08=None):
        a.fdecl = {'mpi': [line], 'f08': [f08 or line]}

    if b == '...':
        return a                                  # varargs (MPI_Pcontrol): Fortran passes none
    # MPI_Init's argc/argv: Fortran has none (MPI 3.1 §17.2.x: MPI_INIT(IERROR)).
    if r.name in ('Init', 'Init_thread') and n in ('argc', 'argv'):
        a.call = 'NULL'
        return a
    # Callbacks.
    fam = cbfamily(ctx, b) if ptr == 1 else None
    if fam:
        return callback_arg(ctx, r, p, a, fam)
    if b in ctx.callbacks:
        raise Unmapped(f'callback parameter "{p.text}": no rule for {b}')
    # Handles.
    if b in ctx.handles:
        f2c, c2f = f'MPI_{ctx.handles[b]}_f2c', f'MPI_{ctx.handles[b]}_c2f'
        if f'{ctx.handles[b]}_f2c' not in ctx.routine_names:
            raise Unmapped(f'{b}: mpi.h declares no MPI_{ctx.handles[b]}_f2c')
        if ptr == 0:
            a.cparams = [f'const {fint} *{n}']
            a.pre = [f'{b} {n}_c = {f2c}(*{n});']
            a.call = f'{n}_c'
            a.fdecl = {'mpi': [f'INTEGER{intent_in} :: {n}'], 'f08': [f'TYPE({b}){intent_in} :: {n}']}
            return a
        if ptr == 1 and not p.arr:
            a.cparams = [f'{fint} *{n}']
            a.pre = [f'{b} {n}_c = {f2c}(*{n});']
            a.call = f'&{n}_c'
            if not p.const:
                a.post = [f'*{n} = {c2f}({n}_c);']
            i = intent_in if p.const else ''
            a.fdecl = {'mpi': [f'INTEGER{i} :: {n}'], 'f08': [f'TYPE({b}){i} :: {n}']}
            return a
        if ptr == 1 and p.arr:
            ln = length_expr(ctx, r, p)
            a.cparams = [f'{fint} *{n}']
            a.pre2 = [f'int {n}_n = {ln};',
                      f'{b} {n}_s[SMPI_F_SMALL], *{n}_c = smpi_f_tmp({n}_s, sizeof {n}_s, {n}_n, sizeof *{n}_c);',
                      f'if ({n}_c) for (int i = 0; i < {n}_n; i++) {n}_c[i] = {f2c}({n}[i]);']
            a.fail = f'!{n}_c'
            a.call = f'{n}_c'
            if not p.const:
                a.post = [f'for (int i = 0; i < {n}_n; i++) {n}[i] = {c2f}({n}_c[i]);']
            a.cleanup = [f'if ({n}_c != {n}_s) free({n}_c);']
            i = intent_in if p.const else ''
            a.fdecl = {'mpi': [f'INTEGER{i} :: {n}(*)'], 'f08': [f'TYPE({b}){i} :: {n}(*)']}
            return a
        raise Unmapped(f'handle parameter "{p.text}"')
    # Statuses.
    if b == 'MPI_Status' and ptr == 1:
        a.cparams = [f'{fint} *{n}']
        if not p.arr:
            a.pre = [f'MPI_Status {n}_s, *{n}_c = smpi_f_status({n}, &{n}_s);']
            a.call = f'{n}_c'
            if not p.const:
                a.post = [f'smpi_f_status_back({n}, {n}_c);']
            i = intent_in if p.const else ''
            a.fdecl = {'mpi': [f'INTEGER{i} :: {n}(MPI_STATUS_SIZE)'], 'f08': [f'TYPE(MPI_Status){i} :: {n}']}
            return a
        ln = length_expr(ctx, r, p)
        a.pre2 = [f'int {n}_n = {ln};',
                  f'MPI_Status {n}_s[SMPI_F_SMALL], *{n}_c = smpi_f_statuses({n}, {n}_s, sizeof {n}_s, {n}_n);']
        a.fail = f'{n}_c == SMPI_F_NOMEM'
        a.call = f'{n}_c'
        a.cleanup = [f'smpi_f_statuses_back({n}, {n}_c, {n}_s, {n}_n);']   # copies back and frees
        a.fdecl = {'mpi': [f'INTEGER :: {n}(MPI_STATUS_SIZE,*)'], 'f08': [f'TYPE(MPI_Status) :: {n}(*)']}
        return a
    if b == 'MPI_F08_status' and ptr == 1 and not p.arr:
        a.cparams = [f'MPI_F08_status *{n}']
        a.call = n
        both(f'TYPE(MPI_Status){intent_in if p.const else ""} :: {n}')
        return a
    if b == 'MPI_Fint' and ptr == 1 and not p.arr and 'status' in n:
        a.cparams = [f'MPI_Fint *{n}']
        a.call = n
        both(f'INTEGER{intent_in if p.const else ""} :: {n}(MPI_STATUS_SIZE)')
        return a
    # Strings.
    if b == 'char':
        return string_arg(ctx, r, p, a)
    # void *: choice buffers, and the named exceptions.
    if b == 'void' and ptr == 1:
        return void_arg(ctx, r, p, a)
    # Plain scalars and arrays of them.
    if b in SCALARS:
        ftype = SCALARS[b]
        int_aint = mpi1 and r.name in MPI1_INT_AINT and b == 'MPI_Aint'
        if int_aint:
            return mpi1_aint(ctx, r, p, a)
        if b == 'int' and n in LOGICAL_NAMES:
            ftype = 'LOGICAL'
        ctype = 'MPI_Fint' if b == 'int' else b
        if ptr == 0:
            a.cparams = [f'const {ctype} *{n}']
            a.call = f'*{n}'
            if n == 'valuelen':               # MPI_Info_get: no more than the Fortran string holds
                out = next((q for q in r.params if q.base == 'char' and q.ptr == 1 and not q.const), None)
                if out:
                    a.call = f'smpi_f_clamp(*{n}, {out.name}_len, SMPI_F_STR - 1)'
            both(f'{ftype}{intent_in} :: {n}')
            return a
        if ptr == 1:
            a.cparams = [f'{ctype} *{n}']
            sents = sentinel_for(ctx, n)
            if sents:
                expr = f'(void *){n}'
                for s in reversed(sents):
                    expr = f'(void *){n} == (void *){fsent(s)} ? (void *){s} : {expr}'
                a.call = f'({b} *)({expr})'
            else:
                a.call = f'({b} *){n}' if len(p.dims) == 0 else f'({b} (*){"".join(f"[{d}]" for d in p.dims)}){n}'
            if ftype == 'LOGICAL' and not p.arr and not p.const:
                a.post = [f'*{n} = *{n} != 0;']   # Fortran's .TRUE. is 1
            # Fortran counts request indices from 1 (MPI_WAITANY, MPI_WAITSOME ...).
            if n == 'index' and not p.arr and not p.const:
                a.post = [f'if (rc == MPI_SUCCESS && *{n} >= 0) ++*{n};']
            if n == 'array_of_indices' and not p.const and r.has('outcount'):
                a.post = [f'if (rc == MPI_SUCCESS) for (int i = 0; i < *outcount; i++) {n}[i]++;']
            i = intent_in if p.const else ''
            shape = ''
            if p.arr:
                shape = '(' + ','.join(p.dims + ['*']) + ')'
            both(f'{ftype}{i} :: {n}{shape}')
            return a
    raise Unmapped(f'parameter "{p.text}": no rule for this type')


def mpi1_aint(ctx, r, p, a):
    """MPI-1 routines: addresses and displacements are default INTEGERs in Fortran."""
    n = p.name
    if p.ptr == 0:
        a.cparams = [f'const MPI_Fint *{n}']
        a.call = f'(MPI_Aint)*{n}'
        a.fdecl = {'mpi': [f'INTEGER, INTENT(IN) :: {n}']}
        return a
    if p.arr:
        ln = length_expr(ctx, r, p)
        a.cparams = [f'const MPI_Fint *{n}']
        a.pre2 = [f'int {n}_n = {ln};',
                  f'MPI_Aint {n}_s[SMPI_F_SMALL], *{n}_c = smpi_f_tmp({n}_s, sizeof {n}_s, {n}_n, sizeof *{n}_c);',
                  f'if ({n}_c) for (int i = 0; i < {n}_n; i++) {n}_c[i] = {n}[i];']
        a.fail = f'!{n}_c'
        a.call = f'{n}_c'
        a.cleanup = [f'if ({n}_c != {n}_s) free({n}_c);']
        a.fdecl = {'mpi': [f'INTEGER, INTENT(IN) :: {n}(*)']}
        return a
    a.cparams = [f'MPI_Fint *{n}']
    a.pre = [f'MPI_Aint {n}_c = 0;']
    a.call = f'&{n}_c'
    a.post = [f'if (rc == MPI_SUCCESS) rc = smpi_f_aint_to_fint({n}_c, {n}, "{r.cname()}", "{n}");']
    a.fdecl = {'mpi': [f'INTEGER :: {n}']}
    return a


def string_arg(ctx, r, p, a):
    n = p.name
    a.hidden = [f'size_t {n}_len']
    if p.ptr == 1 and p.const:            # an input string
        a.cparams = [f'const char *{n}']
        a.pre = [f'char {n}_s[SMPI_F_STR], *{n}_c = smpi_f_cstr({n}, {n}_len, {n}_s, sizeof {n}_s);']
        a.fail = f'!{n}_c'
        a.call = f'{n}_c'
        a.cleanup = [f'if ({n}_c != {n}_s) free({n}_c);']
        a.fdecl = {'mpi': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}'], 'f08': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}']}
        return a
    if p.ptr == 1:                          # an output string: the C routine writes at most MPI_MAX_* + 1
        a.cparams = [f'char *{n}']
        a.pre = [f'char {n}_c[SMPI_F_STR] = "";']
        a.call = f'{n}_c'
        # Only when the routine wrote it (MPI_Info_get leaves value as it was when flag is false).
        when = ' && *flag' if r.has('flag') else ''
        a.post = [f'if (rc == MPI_SUCCESS{when}) smpi_f_fstr({n}, {n}_len, {n}_c);']
        a.fdecl = {'mpi': [f'CHARACTER(LEN=*) :: {n}'], 'f08': [f'CHARACTER(LEN=*) :: {n}']}
        return a
    if p.ptr == 2 and n == 'argv':           # MPI_Comm_spawn: blank-terminated list, or MPI_ARGV_NULL
        null = argv_null(ctx, 'MPI_ARGV_NULL')
        a.cparams = [f'const char *{n}']
        a.pre = [f'char **{n}_c = smpi_f_argv({n}, {n}_len, {null}, 0, 1);']
        a.fail = f'{n}_c == SMPI_F_NOMEM'
        a.call = f'{n}_c'
        a.cleanup = [f'smpi_f_argv_free({n}_c);']
        a.fdecl = {'mpi': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)'], 'f08': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)']}
        return a
    if p.ptr == 2 and p.arr:                 # an array of strings, one per count
        ln = length_expr(ctx, r, p)
        a.cparams = [f'const char *{n}']
        a.pre2 = [f'char **{n}_c = smpi_f_argv({n}, {n}_len, NULL, {ln}, 0);']
        a.fail = f'{n}_c == SMPI_F_NOMEM'
        a.call = f'{n}_c'
        a.cleanup = [f'smpi_f_argv_free({n}_c);']
        a.fdecl = {'mpi': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)'], 'f08': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)']}
        return a
    if p.ptr == 3 and p.arr:                 # MPI_Comm_spawn_multiple: argv(count, *), or MPI_ARGVS_NULL
        ln = length_expr(ctx, r, p)
        null = argv_null(ctx, 'MPI_ARGVS_NULL')
        a.cparams = [f'const char *{n}']
        a.pre2 = [f'char ***{n}_c = smpi_f_argvs({n}, {n}_len, {null}, {ln});']
        a.fail = f'{n}_c == SMPI_F_NOMEM'
        a.call = f'{n}_c'
        a.cleanup = [f'smpi_f_argvs_free({n}_c, {ln});']
        cnt = LENGTHS[n][0]
        a.fdecl = {'mpi': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}({cnt},*)'],
                   'f08': [f'CHARACTER(LEN=*), INTENT(IN) :: {n}({cnt},*)']}
        return a
    raise Unmapped(f'string parameter "{p.text}"')


def argv_null(ctx, s):
    """The Fortran sentinel for C's MPI_ARGV(S)_NULL, which must be NULL (the helpers return it)."""
    if s not in ctx.sentinels:
        return 'NULL'
    if ctx.consts[s][1] != 0:
        raise Unmapped(f'{s} is not NULL in C')
    return fsent(s)


def attr_family(r):
    m = re.match(r'(Comm|Type|Win)_(get|set)_attr$', r.name)
    if m:
        return m.group(1).lower(), m.group(2), False
    m = re.match(r'Attr_(get|put)$', r.name)
    if m:
        return 'comm', 'get' if m.group(1) == 'get' else 'set', True
    return None


def void_arg(ctx, r, p, a):
    n = p.name
    fam = attr_family(r)
    if n == 'attribute_val' and fam:
        family, op, old = fam
        key = next(q.name for q in r.params if q.name.endswith('keyval'))
        ftype = 'INTEGER' if old else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        ctype = 'MPI_Fint' if old else 'MPI_Aint'
        if op == 'set':
            a.cparams = [f'const {ctype} *{n}']
            a.call = f'(void *)(intptr_t)*{n}'
            a.fdecl = {'mpi': [f'{ftype}, INTENT(IN) :: {n}'], 'f08': [f'{ftype}, INTENT(IN) :: {n}']}
            return a
        ctx.helpers['attr'] = attr_helper(ctx)
        a.cparams = [f'{ctype} *{n}']
        a.pre = [f'void *{n}_c = NULL;']
        a.call = f'&{n}_c'
        a.post = [f'if (rc == MPI_SUCCESS && *flag) *{n} = ({ctype})smpi_f_attr_value("{family}", *{key}, {n}_c);']
        a.fdecl = {'mpi': [f'{ftype} :: {n}'], 'f08': [f'{ftype} :: {n}']}
        return a
    if n == 'extra_state':
        # Consumed by the callback family of the routine (keyvals, generalized requests).
        ftype = 'INTEGER' if r.name in MPI1 else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        ctype = 'MPI_Fint' if r.name in MPI1 else 'MPI_Aint'
        a.cparams = [f'const {ctype} *{n}']
        a.call = '@extra'                   # replaced by the family's state
        a.fdecl = {'mpi': [f'{ftype}, INTENT(IN) :: {n}'], 'f08': [f'{ftype}, INTENT(IN) :: {n}']}
        return a
    if n in ('baseptr', 'buffer_addr') and not p.const:
        # C stores an address through it. Fortran: INTEGER(KIND=MPI_ADDRESS_KIND)
        # or TYPE(C_PTR); MPI_BUFFER_DETACH's old form is a choice buffer that
        # gets nothing (8 bytes stored into it could overrun a small variable).
        a.cparams = [f'MPI_Aint *{n}']
        a.pre = [f'void *{n}_c = NULL;']
        a.call = f'&{n}_c'
        a.post = [f'if (rc == MPI_SUCCESS) *{n} = (MPI_Aint){n}_c;']
        a.fdecl = {'mpi': [f'INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}'], 'f08': [f'TYPE(C_PTR) :: {n}']}
        if n == 'buffer_addr':
            a.f08_differs = True
            a.post_old = [f'(void){n};']
            a.fdecl['mpi'] = ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: ' + n, f'TYPE(*), DIMENSION(*) :: {n}']
        else:
            a.cptr = True
        return a
    # A choice buffer: MPI_BOTTOM and MPI_IN_PLACE are Fortran COMMON blocks.
    a.cparams = [f'{"const " if p.const else ""}void *{n}']
    a.call = f'smpi_f_buf({n})'
    i = ', INTENT(IN)' if p.const else ''
    d = ['!GCC$ ATTRIBUTES NO_ARG_CHECK :: ' + n, f'TYPE(*), DIMENSION(*){i} :: {n}']
    a.fdecl = {'mpi': d, 'f08': d}
    return a


# ---------------------------------------------------------------- callbacks
F08_ABSTRACT = {
    'MPI_User_function': ('invec, inoutvec, len, datatype', [
        'TYPE(C_PTR), VALUE :: invec, inoutvec', 'INTEGER :: len', 'TYPE(MPI_Datatype) :: datatype']),
    'errh': ('{h}, error_code', ['TYPE({T}) :: {h}', 'INTEGER :: error_code']),
    'kvcopy': ('old{h}, {h}_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror', [
        'TYPE({T}) :: old{h}', 'INTEGER :: {h}_keyval, ierror',
        'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out', 'LOGICAL :: flag']),
    'kvdel': ('{h}, {h}_keyval, attribute_val, extra_state, ierror', [
        'TYPE({T}) :: {h}', 'INTEGER :: {h}_keyval, ierror',
        'INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state']),
    'MPI_Grequest_query_function': ('extra_state, status, ierror', [
        'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'TYPE(MPI_Status) :: status', 'INTEGER :: ierror']),
    'MPI_Grequest_free_function': ('extra_state, ierror', [
        'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'INTEGER :: ierror']),
    'MPI_Grequest_cancel_function': ('extra_state, complete, ierror', [
        'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'LOGICAL :: complete', 'INTEGER :: ierror']),
}


def hshort(t):
    return {'MPI_Datatype': 'type'}.get(t, t[4:].lower())


def callback_arg(ctx, r, p, a, fam):
    kind, what = fam
    n = p.name
    a.cparams = [f'smpi_f_fn *{n}']
    a.fdecl = {'mpi': [f'EXTERNAL :: {n}'], 'f08': [f'PROCEDURE({p.base}) :: {n}']}
    if kind in ('op', 'errh'):
        pool = 'op' if kind == 'op' else 'errh_' + hshort(what)
        ctx.helpers['pool_' + pool] = pool_helper(ctx, kind, what, pool)
        a.pre = [f'{p.base} *{n}_c = ({p.base} *)smpi_f_tramp({pool}_fn, {pool}_tramp, SMPI_F_NFN, {n});']
        a.fail = f'!{n}_c'
        a.failmsg = 'SMPI_F_POOLFULL'
        a.call = f'{n}_c'
        return a
    if kind in ('kvcopy', 'kvdel'):
        old = p.base in ('MPI_Copy_function', 'MPI_Delete_function')
        fam_key = ('mpi1_' if old else '') + hshort(what)
        ctx.helpers['kv_' + fam_key] = keyval_helper(ctx, what, old, fam_key)
        a.group = ('kv', fam_key)
        a.call = f'{"smpi_f_kvcopy_" if kind == "kvcopy" else "smpi_f_kvdel_"}{fam_key}'
        return a
    if kind == 'greq':
        ctx.helpers['greq'] = greq_helper(ctx)
        a.group = ('greq', None)
        a.call = f'smpi_f_greq_{what}'
        return a
    raise Unmapped(f'callback parameter "{p.text}"')


def pool_helper(ctx, kind, what, pool):
    tr = []
    if kind == 'op':
        tr.append('/* Fortran reduction functions take the datatype as an INTEGER (C: an\n'
                  ' * MPI_Datatype); C gives the function no state, so each distinct Fortran\n'
                  ' * function gets one of a fixed set of C trampolines. */')
        tr.append('typedef void smpi_f_user_fn(void *, void *, MPI_Fint *, MPI_Fint *);')
        tr.append(f'static smpi_f_fn *_Atomic {pool}_fn[SMPI_F_NFN];')
        tr.append(f'static inline void {pool}_call(int i, void *in, void *io, int *len, MPI_Datatype *t)\n'
                  '{\n    MPI_Fint ft = MPI_Type_c2f(*t), n = *len;\n'
                  f'    ((smpi_f_user_fn *){pool}_fn[i])(in, io, &n, &ft);\n}}')
        for i in range(NFN):
            tr.append(f'static void {pool}_t{i}(void *in, void *io, int *len, MPI_Datatype *t) {{ {pool}_call({i}, in, io, len, t); }}')
    else:
        c2f = f'MPI_{ctx.handles[what]}_c2f'
        tr.append(f'/* Fortran error handlers for {what}: the handle as an INTEGER; a fixed set\n'
                  ' * of C trampolines, one per distinct Fortran function. */')
        tr.append(f'static smpi_f_fn *_Atomic {pool}_fn[SMPI_F_NFN];')
        tr.append(f'static inline void {pool}_call(int i, {what} *h, int *code)\n'
                  f'{{\n    MPI_Fint fh = {c2f}(*h), fc = *code;\n'
                  f'    ((void (*)(MPI_Fint *, MPI_Fint *)){pool}_fn[i])(&fh, &fc);\n}}')
        for i in range(NFN):
            tr.append(f'static void {pool}_t{i}({what} *h, int *code, ...) {{ {pool}_call({i}, h, code); }}')
    tr.append(f'static smpi_f_fn *const {pool}_tramp[SMPI_F_NFN] = {{' +
              ', '.join(f'(smpi_f_fn *){pool}_t{i}' for i in range(NFN)) + '};')
    return '\n'.join(tr)


def keyval_helper(ctx, what, old, key):
    c2f = f'MPI_{ctx.handles[what]}_c2f'
    v = 'MPI_Fint' if old else 'MPI_Aint'
    return f'''/* Keyval callbacks ({"MPI-1, INTEGER values" if old else what}): the Fortran functions and
 * extra state ride in the C extra state; values cross as {v}. */
static int smpi_f_kvcopy_{key}({what} h, int key, void *es, void *in, void *out, int *flag)
{{
    struct smpi_f_kv *k = es;
    MPI_Fint fh = {c2f}(h), fk = key, fflag = 0, ierr = MPI_SUCCESS;
    {v} vin = ({v})(intptr_t)in, vout = 0, extra = ({v})k->extra;
    ((void (*)(MPI_Fint *, MPI_Fint *, {v} *, {v} *, {v} *, MPI_Fint *, MPI_Fint *))k->copy)(
        &fh, &fk, &extra, &vin, &vout, &fflag, &ierr);
    *flag = fflag != 0;
    *(void **)out = (void *)(intptr_t)vout;
    return ierr;
}}
static int smpi_f_kvdel_{key}({what} h, int key, void *val, void *es)
{{
    struct smpi_f_kv *k = es;
    MPI_Fint fh = {c2f}(h), fk = key, ierr = MPI_SUCCESS;
    {v} v = ({v})(intptr_t)val, extra = ({v})k->extra;
    ((void (*)(MPI_Fint *, MPI_Fint *, {v} *, {v} *, MPI_Fint *))k->del)(&fh, &fk, &v, &extra, &ierr);
    return ierr;
}}'''


def greq_helper(ctx):
    return '''/* Generalized requests: the Fortran functions and extra state ride in the C
 * extra state, which the free function releases. */
struct smpi_f_greq { smpi_f_fn *query, *free, *cancel; MPI_Aint extra; };
static int smpi_f_greq_query(void *es, MPI_Status *st)
{
    struct smpi_f_greq *g = es;
    MPI_Fint fst[sizeof(MPI_Status) / sizeof(MPI_Fint)], ierr = MPI_SUCCESS;
    memcpy(fst, st, sizeof fst);
    ((void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))g->query)(&g->extra, fst, &ierr);
    memcpy(st, fst, sizeof fst);
    return ierr;
}
static int smpi_f_greq_free(void *es)
{
    struct smpi_f_greq *g = es;
    MPI_Fint ierr = MPI_SUCCESS;
    ((void (*)(MPI_Aint *, MPI_Fint *))g->free)(&g->extra, &ierr);
    free(g);
    return ierr;
}
static int smpi_f_greq_cancel(void *es, int complete)
{
    struct smpi_f_greq *g = es;
    MPI_Fint fc = complete != 0, ierr = MPI_SUCCESS;
    ((void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))g->cancel)(&g->extra, &fc, &ierr);
    return ierr;
}'''


def ntypes_helper(ctx):
    have = ctx.routine_names
    lines = ['/* The number of datatypes an alltoallw names: one per process of the',
             ' * communicator (the remote group of an intercommunicator), or per neighbour. */',
             'static int smpi_f_ntypes(MPI_Comm c, int neighbor, int send)', '{', '    int n = 0, flag = 0;',
             '    (void)send;']
    if {'Topo_test', 'Cartdim_get', 'Graph_neighbors_count', 'Dist_graph_neighbors_count', 'Comm_rank'} <= have:
        lines += ['    if (neighbor) {', '        int topo = MPI_UNDEFINED, in = 0, out = 0, w = 0, r = 0;',
                  '        MPI_Topo_test(c, &topo);',
                  '        if (topo == MPI_CART) { MPI_Cartdim_get(c, &n); return 2 * n; }',
                  '        if (topo == MPI_GRAPH) { MPI_Comm_rank(c, &r); MPI_Graph_neighbors_count(c, r, &n); return n; }',
                  '        if (topo == MPI_DIST_GRAPH) { MPI_Dist_graph_neighbors_count(c, &in, &out, &w); return send ? out : in; }',
                  '        return 0;', '    }']
    else:
        lines += ['    (void)neighbor;']
    if 'Comm_remote_size' in have:
        lines += ['    if (MPI_Comm_test_inter(c, &flag) == MPI_SUCCESS && flag) MPI_Comm_remote_size(c, &n);',
                  '    else MPI_Comm_size(c, &n);']
    else:
        lines += ['    (void)flag;', '    MPI_Comm_size(c, &n);']
    lines += ['    return n;', '}']
    return '\n'.join(lines)


def attr_helper(ctx):
    lines = ['/* The value Fortran gets for an attribute: what C stored, except for the',
             ' * predefined keys, whose C value points to it (MPI 3.1 §17.2.7). */',
             'static MPI_Aint smpi_f_attr_value(const char *family, int key, void *v)', '{']
    for fam, keys in ATTR_KEYS.items():
        cases = [(k, t) for k, t in keys if ctx.consts.get(k, ('',))[0] == 'int']
        if not cases:
            continue
        lines.append(f'    if (family[0] == \'{fam[0]}\') switch (key) {{')
        for k, t in cases:
            if t is None:
                lines.append(f'    case {k}: return (MPI_Aint)v;')
            else:
                lines.append(f'    case {k}: return (MPI_Aint)*({t} *)v;')
        lines.append('    }')
    lines += ['    (void)family; (void)key;', '    return (MPI_Aint)v;', '}']
    return '\n'.join(lines)


# ---------------------------------------------------------------- routines
class Binding:
    def __init__(self, ctx, r):
        self.r = r
        self.mpi1 = r.name in MPI1
        self.args = [classify(ctx, r, p, self.mpi1) for p in r.params]
        if r.ret == 'int':
            self.kind = 'sub'
        elif r.ret in ('double', 'MPI_Aint'):
            self.kind = 'fun'
            if any(a.pre or a.pre2 or a.post or a.cleanup or a.hidden for a in self.args):
                raise Unmapped('a function whose arguments need converting')
        else:
            raise Unmapped(f'returns {r.ret}')
        groups = {a.group for a in self.args} - {None}
        if len(groups) > 1:
            raise Unmapped('more than one callback family')
        self.group = groups.pop() if groups else None
        if any(a.call == '@extra' for a in self.args) and not self.group:
            raise Unmapped('extra_state without callbacks')
        self.f08 = not self.mpi1
        self.f08_differs = any(a.f08_differs for a in self.args)
        self.cptr = any(a.cptr for a in self.args)

    def fname(self, prefix='MPI_'):
        return prefix + self.r.name

    def entry(self, prefix, suffix=''):
        return (prefix + self.r.name).lower() + suffix + '_'


def emit_c_body(ctx, b, f08):
    r = b.r
    args = b.args
    cps = [c for a in args for c in a.cparams]
    hidden = [h for a in args for h in a.hidden]
    if b.kind == 'sub':
        cps.append('MPI_Fint *ierror')
    sig = ', '.join(cps + hidden) or 'void'
    rtype = 'void' if b.kind == 'sub' else r.ret
    body = [f'static {rtype} f_{r.name}{"_f08" if f08 else ""}(__typeof__(&MPI_{r.name}) fn{", " if cps or hidden else ""}{", ".join(cps + hidden)})', '{']
    if b.kind == 'fun':
        body.append(f'    return fn({", ".join(a.call for a in args if a.call is not None)});')
        body.append('}')
        return '\n'.join(body), sig
    body.append('    int rc = MPI_SUCCESS;')
    for a in args:
        body += ['    ' + l for l in a.pre]
    for a in args:
        body += ['    ' + l for l in a.pre2]
    fails = [(a.fail, a.failmsg) for a in args if a.fail]
    calls = []
    for a in args:
        if a.call is None:
            continue
        calls.append(a.call)
    extra = None
    if b.group:
        g, key = b.group
        es = next(a for a in args if a.call == '@extra')
        if g == 'kv':
            cp = next(a for a in args if a.group and a.call.startswith('smpi_f_kvcopy'))
            de = next(a for a in args if a.group and a.call.startswith('smpi_f_kvdel'))
            body.append(f'    struct smpi_f_kv *st = smpi_f_kv_new({cp.name}, {de.name}, (MPI_Aint)*{es.name});')
        else:
            q = {a.call[len('smpi_f_greq_'):]: a.name for a in args if a.group}
            body.append(f'    struct smpi_f_greq *st = malloc(sizeof *st);')
            body.append(f'    if (st) *st = (struct smpi_f_greq){{{q["query"]}, {q["free"]}, {q["cancel"]}, *{es.name}}};')
        fails.append(('!st', 'SMPI_F_NOMEMMSG'))
        calls = ['st' if c == '@extra' else c for c in calls]
    if fails:
        for cond, msg in fails:
            body.append(f'    if ({cond}) {{ rc = smpi_f_fail("{r.cname()}", {msg}); goto out; }}')
    body.append(f'    rc = fn({", ".join(calls)});')
    for a in args:
        post = a.post if f08 or a.post_old is None else a.post_old
        body += ['    ' + l for l in post]
    if fails:
        body.append('out:')
    for a in args:
        body += ['    ' + l for l in a.cleanup]
    if b.group and b.group[0] == 'kv':
        body.append('    if (rc != MPI_SUCCESS) free(st);')
    elif b.group:
        body.append('    if (rc != MPI_SUCCESS) free(st);')
    body.append('    if (ierror) *ierror = rc;')
    body.append('}')
    return '\n'.join(body), sig


def emit_c(ctx, bindings, out):
    lines = ['/* fortran_mpi.c: GENERATED by src/fortran/genfortran.py from include/mpi.h; do not edit.',
             ' * The Fortran entry points (gfortran: lower case and one underscore): each',
             ' * converts its arguments, calls the C routine (MPI_ or PMPI_) and converts back. */',
             '#include "fortran.h"', '',
             f'#define SMPI_F_STR {ctx.str_max + 1}   /* the longest string a C routine writes (MPI_MAX_*), and its NUL */',
             f'#define SMPI_F_NFN {NFN}', '']
    for s in ctx.sentinels:
        if s not in ('MPI_BOTTOM', 'MPI_IN_PLACE', 'MPI_STATUS_IGNORE', 'MPI_STATUSES_IGNORE'):
            lines.append(f'extern {sentinel_ctype(s)} {fsent(s)}[];')
    lines.append('')
    for k in sorted(ctx.helpers):
        lines.append(ctx.helpers[k])
        lines.append('')
    exported = []
    for b in bindings:
        r = b.r
        body, sig = emit_c_body(ctx, b, False)
        lines.append(body)
        names = [('MPI_', 'mpi_'), ('PMPI_', 'pmpi_')]
        callargs = ', '.join(x.split()[-1].lstrip('*') for x in sig.split(', ')) if sig != 'void' else ''
        rtype = 'void' if b.kind == 'sub' else r.ret
        for cpre, fpre in names:
            e = b.entry(fpre)
            ret = '' if b.kind == 'sub' else 'return '
            lines.append(f'SMPI_F_ENTRY {rtype} {e}({sig}) {{ {ret}f_{r.name}({cpre}{r.name}{", " if callargs else ""}{callargs}); }}')
            exported.append(e)
        if b.f08:
            if b.f08_differs:
                body8, sig8 = emit_c_body(ctx, b, True)
                lines.append(body8)
            for cpre, fpre in names:
                e8 = b.entry(fpre, '_f08')
                if b.f08_differs:
                    ret = '' if b.kind == 'sub' else 'return '
                    lines.append(f'SMPI_F_ENTRY {rtype} {e8}({sig}) {{ {ret}f_{r.name}_f08({cpre}{r.name}{", " if callargs else ""}{callargs}); }}')
                else:
                    lines.append(f'SMPI_F_ENTRY {rtype} {e8}({sig}) __attribute__((alias("{b.entry(fpre)}")));')
                exported.append(e8)
        if b.cptr:
            for cpre, fpre in names:
                ec = b.entry(fpre, '_cptr')
                lines.append(f'SMPI_F_ENTRY {rtype} {ec}({sig}) __attribute__((alias("{b.entry(fpre)}")));')
                exported.append(ec)
        lines.append('')
    # The predefined callbacks (MPI_COMM_DUP_FN ...) as Fortran procedures.
    for name, (kind, h, old) in callback_constants(ctx):
        e = name.lower() + '_'
        v = 'MPI_Fint' if old else 'MPI_Aint'
        if kind == 'delete':
            lines.append(f'SMPI_F_ENTRY void {e}(MPI_Fint *h, MPI_Fint *key, {v} *val, {v} *extra, MPI_Fint *ierror)\n'
                         '{ (void)h; (void)key; (void)val; (void)extra; *ierror = MPI_SUCCESS; }')
        else:
            dup = kind == 'dup'
            lines.append(f'SMPI_F_ENTRY void {e}(MPI_Fint *h, MPI_Fint *key, {v} *extra, {v} *in, {v} *out, MPI_Fint *flag, MPI_Fint *ierror)\n'
                         f'{{ (void)h; (void)key; (void)extra; {"*out = *in; *flag = 1;" if dup else "(void)in; (void)out; *flag = 0;"} *ierror = MPI_SUCCESS; }}')
        exported.append(e)
    # MPI_SIZEOF's specifics: the size of one element of x.
    for n, size in sizeof_specifics():
        lines.append(f'SMPI_F_ENTRY void {n}_(const void *x, MPI_Fint *size, MPI_Fint *ierror)\n'
                     f'{{ (void)x; *size = {size}; if (ierror) *ierror = MPI_SUCCESS; }}')
        exported.append(n + '_')
    # mpi_f08's == and /= on handles: one function for every handle type.
    lines.append('SMPI_F_ENTRY int smpi_f_eq_(const MPI_Fint *a, const MPI_Fint *b) { return *a == *b; }')
    lines.append('SMPI_F_ENTRY int smpi_f_ne_(const MPI_Fint *a, const MPI_Fint *b) { return *a != *b; }')
    exported += ['smpi_f_eq_', 'smpi_f_ne_']
    for t in f08_handles(ctx):
        for op in ('eq', 'ne'):
            lines.append(f'SMPI_F_ENTRY int smpi_f_{op}_{hshort(t)}_(const MPI_Fint *a, const MPI_Fint *b) __attribute__((alias("smpi_f_{op}_")));')
            exported.append(f'smpi_f_{op}_{hshort(t)}_')
    open(os.path.join(out, 'fortran_mpi.c'), 'w').write('\n'.join(lines) + '\n')
    return exported


def sentinel_ctype(s):
    return 'char' if SENTINELS[s][0] == 'character' else 'MPI_Fint'


def emit_common(ctx, out):
    """The storage of the COMMON blocks (the statuses' is src/mpi/fint.c's)."""
    lines = ['/* fortran_common.c: GENERATED by src/fortran/genfortran.py; do not edit.',
             ' * The COMMON blocks of the Fortran sentinels, as a C program sees them; a',
             ' * Fortran program has its own copy, which preempts these (the entry points',
             ' * compare addresses through the GOT, from another file). */',
             '#include "fortran.h"', '']
    for s in ctx.sentinels:
        if s in ('MPI_STATUS_IGNORE', 'MPI_STATUSES_IGNORE'):
            continue
        lines.append(f'SMPI_F_ENTRY {sentinel_ctype(s)} {fsent(s)}[1];')
    open(os.path.join(out, 'fortran_common.c'), 'w').write('\n'.join(lines) + '\n')


def sizeof_specifics():
    out = []
    for t, ks in SIZEOF_KINDS:
        for k in ks:
            size = {'INTEGER': k, 'REAL': 16 if k == 10 else k, 'COMPLEX': 32 if k == 10 else 2 * k}[t]
            out.append((f'smpi_f_sizeof_{t[0].lower()}{k}', size))
    return out


def callback_constants(ctx):
    out = []
    for n, (k, v) in ctx.consts.items():
        if not n.endswith('_FN') or k != 'other':
            continue
        m = re.match(r'MPI_(?:(COMM|TYPE|WIN)_)?(NULL_COPY|DUP|NULL_DELETE)_FN$', n)
        if not m:
            continue
        h = {'COMM': 'MPI_Comm', 'TYPE': 'MPI_Datatype', 'WIN': 'MPI_Win', None: 'MPI_Comm'}[m.group(1)]
        if h not in ctx.handles:
            continue
        kind = {'NULL_COPY': 'copy', 'DUP': 'dup', 'NULL_DELETE': 'delete'}[m.group(2)]
        out.append((n, (kind, h, m.group(1) is None)))
    return out


def f08_handles(ctx):
    return [t for t in ctx.handles if f'{ctx.handles[t]}_f2c' in ctx.routine_names]


# ---------------------------------------------------------------- Fortran text
def wrap(line, indent, width=132):
    """A free-form line split with & continuations."""
    if len(line) <= width:
        return [line]
    out, cur = [], line
    while len(cur) > width:
        cut = cur.rfind(', ', 0, width - 2)
        if cut < 0:
            cut = cur.rfind(' ', 0, width - 2)
        out.append(cur[:cut + 1] + ' &')
        cur = ' ' * (indent + 4) + cur[cut + 1:].lstrip()
    out.append(cur)
    return out


def constant_table(ctx):
    """[(name, ftype, value, kind)] of what Fortran gets, and {name: why} of what it does not."""
    out, excluded = [], {}
    for n, (k, v) in ctx.consts.items():
        if n in C_ONLY_CONSTANTS:
            excluded[n] = C_ONLY_CONSTANTS[n]
        elif k == 'int':
            out.append((n, 'INTEGER', v, 'int'))
        elif k.startswith('handle:'):
            out.append((n, 'INTEGER', v, k[7:]))
        elif k == 'ptr':
            if n in SENTINELS:
                continue          # a COMMON block, below
            excluded[n] = C_ONLY_CONSTANTS.get(n, 'a C pointer constant with no Fortran form')
        elif n in dict(callback_constants(ctx)):
            continue
        else:
            excluded[n] = 'no Fortran form (a C function or callback constant)'
    for f, c in FORTRAN_TYPES:
        if f in ctx.consts:
            continue
        if c and c in ctx.consts:
            out.append((f, 'INTEGER', ctx.consts[c][1], 'MPI_Datatype'))
        else:
            out.append((f, 'INTEGER', ctx.consts['MPI_DATATYPE_NULL'][1], 'MPI_Datatype'))
    st = ctx.status_size
    out += [('MPI_STATUS_SIZE', 'INTEGER', st, 'int'), ('MPI_SOURCE', 'INTEGER', 1, 'int'),
            ('MPI_TAG', 'INTEGER', 2, 'int'), ('MPI_ERROR', 'INTEGER', 3, 'int'),
            ('MPI_ADDRESS_KIND', 'INTEGER', ctx.sizes['MPI_Aint'], 'int'),
            ('MPI_OFFSET_KIND', 'INTEGER', ctx.sizes['MPI_Offset'], 'int'),
            ('MPI_COUNT_KIND', 'INTEGER', ctx.sizes['MPI_Count'], 'int'),
            ('MPI_INTEGER_KIND', 'INTEGER', ctx.sizes['MPI_Fint'], 'int'),
            ('MPI_SUBARRAYS_SUPPORTED', 'LOGICAL', '.FALSE.', 'logical'),
            ('MPI_ASYNC_PROTECTS_NONBLOCKING', 'LOGICAL', '.FALSE.', 'logical')]
    seen = {}
    for n, *_ in out:
        if n.upper() in seen:
            sys.exit(f'genfortran: {n} and {seen[n.upper()]} are one name in Fortran')
        seen[n.upper()] = n
    return out, excluded


def sentinel_decls(ctx, f08):
    """(declaration, COMMON) pairs of the sentinels."""
    out = []
    for s in ctx.sentinels:
        ty = SENTINELS[s][0]
        block = fsent(s)[:-1].upper()
        if ty == 'integer':
            d = f'INTEGER {s}(1)' if 'weights' in SENTINELS[s][1] or 'errcodes' in SENTINELS[s][1] else f'INTEGER {s}'
        elif ty == 'character':
            d = f'CHARACTER*1 {s}(1)' if s == 'MPI_ARGV_NULL' else f'CHARACTER*1 {s}(1,1)'
        elif ty == 'status':
            d = f'TYPE(MPI_Status) {s}' if f08 else f'INTEGER {s}(MPI_STATUS_SIZE)'
        else:
            d = f'TYPE(MPI_Status) {s}(1)' if f08 else f'INTEGER {s}(MPI_STATUS_SIZE,1)'
        out.append((d, f'COMMON /{block}/ {s}'))
    return out


def emit_mpif(ctx, bindings, consts, out):
    L = ['! mpif.h: MPI for Fortran programs that INCLUDE it (smartmap).',
         '! GENERATED by src/fortran/genfortran.py from mpi.h; do not edit.',
         '! Fixed and free form alike. No explicit interfaces: prefer USE mpi_f08',
         '! or USE mpi; with gfortran 10 and later, a routine called with',
         '! buffers of two types in one file needs -fallow-argument-mismatch',
         '! (smfort adds it).']
    for n, ft, v, k in consts:
        L.append(f'      {ft} {n}')
        L.append(f'      PARAMETER ({n}={v})')
    for d, c in sentinel_decls(ctx, False):
        L.append('      ' + d)
        L.append('      ' + c)
    funs = [b for b in bindings if b.kind == 'fun']
    for b in funs:
        ft = SCALARS[b.r.ret]
        for pre in ('MPI_', 'PMPI_'):
            L.append(f'      {ft} {b.fname(pre).upper()}')
            L.append(f'      EXTERNAL {b.fname(pre).upper()}')
    for n, _ in callback_constants(ctx):
        L.append(f'      EXTERNAL {n}')
    for l in L:
        if len(l) > 72:
            sys.exit(f'genfortran: mpif.h line longer than 72 columns: {l}')
    open(os.path.join(out, 'mpif.h'), 'w').write('\n'.join(L) + '\n')


def fortran_iface(b, style, name, cptr=False):
    """An interface body for binding b."""
    r = b.r
    dummies, decls, directives = [], [], []
    for a in b.args:
        d = a.fdecl.get(style)
        if not d:
            continue
        dummies.append(a.name)
        for line in d:
            if cptr and line.startswith('INTEGER(KIND=MPI_ADDRESS_KIND) :: ' + a.name) and a.cptr:
                line = f'TYPE(C_PTR) :: {a.name}'
            (directives if line.startswith('!GCC$') else decls).append(line)
    if b.kind == 'sub':
        dummies.append('ierror')
        decls.append('INTEGER, OPTIONAL, INTENT(OUT) :: ierror' if style == 'f08' else 'INTEGER :: ierror')
        head = f'SUBROUTINE {name}({", ".join(dummies)})'
        tail = f'END SUBROUTINE {name}'
    else:
        head = f'FUNCTION {name}({", ".join(dummies)})'
        decls.append(f'{SCALARS[r.ret]} :: {name}')
        tail = f'END FUNCTION {name}'
    body = wrap('    ' + head, 4)
    body += ['      IMPORT', '      IMPLICIT NONE']
    body += ['      ' + d for d in directives]
    for d in decls:
        body += wrap('      ' + d, 6)
    body.append('    ' + tail)
    return body


def emit_module_mpi(ctx, bindings, consts, out):
    L = ['! mpi.f90: module mpi (smartmap). GENERATED by src/fortran/genfortran.py', '! from mpi.h; do not edit.',
         'MODULE mpi', '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR', '  IMPLICIT NONE', '  PRIVATE :: C_PTR']
    for n, ft, v, k in consts:
        L.append(f'  {ft}, PARAMETER :: {n} = {v}')
    L += status_type()
    for d, c in sentinel_decls(ctx, False):
        L += ['  ' + d, '  ' + c]
    for n, _ in callback_constants(ctx):
        L.append(f'  EXTERNAL :: {n}')
    L += sizeof_ifaces('mpi')
    for b in bindings:
        for pre in ('MPI_', 'PMPI_'):
            nm = b.fname(pre).upper()
            if b.cptr:
                L.append(f'  INTERFACE {nm}')
                L += fortran_iface(b, 'mpi', nm)
                L += fortran_iface(b, 'mpi', nm + '_CPTR', cptr=True)
                L.append(f'  END INTERFACE {nm}')
            else:
                L.append('  INTERFACE')
                L += fortran_iface(b, 'mpi', nm)
                L.append('  END INTERFACE')
    L.append('END MODULE mpi')
    open(os.path.join(out, 'mpi.f90'), 'w').write('\n'.join(L) + '\n')


def status_type():
    return ['  TYPE, BIND(C) :: MPI_Status', '    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '    INTEGER :: smpi_hidden(MPI_STATUS_SIZE - 3)', '  END TYPE MPI_Status']


def sizeof_ifaces(style):
    """MPI_SIZEOF (MPI 3.1 §17.1.9): a generic over the intrinsic types; each
    specific is a C function that knows the size."""
    ierr = 'INTEGER, OPTIONAL, INTENT(OUT) :: ierror' if style == 'f08' else 'INTEGER :: ierror'
    L = ['  INTERFACE MPI_SIZEOF']
    for t, ks in SIZEOF_KINDS:
        for k in ks:
            n = f'smpi_f_sizeof_{t[0].lower()}{k}'
            L += [f'    SUBROUTINE {n}(x, size, ierror)', f'      {t}(KIND={k}), DIMENSION(..), INTENT(IN) :: x',
                  '      INTEGER, INTENT(OUT) :: size', f'      {ierr}', f'    END SUBROUTINE {n}']
    L.append('  END INTERFACE MPI_SIZEOF')
    name = 'MPI_F_sync_reg_f08' if style == 'f08' else 'MPI_F_SYNC_REG'
    L += ['  INTERFACE MPI_F_SYNC_REG' if style == 'f08' else '  INTERFACE',
          f'    SUBROUTINE {name}(buf)', '!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf', '      TYPE(*), DIMENSION(*) :: buf',
          f'    END SUBROUTINE {name}', '  END INTERFACE']
    return L


def emit_module_f08(ctx, bindings, consts, out):
    handles = f08_handles(ctx)
    L = ['! mpi_f08.f90: module mpi_f08 (smartmap). GENERATED by src/fortran/genfortran.py',
         '! from mpi.h; do not edit.', 'MODULE mpi_f08', '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR',
         '  IMPLICIT NONE', '  PRIVATE :: C_PTR']
    for t in handles:
        L += [f'  TYPE, BIND(C) :: {t}', '    INTEGER :: MPI_VAL', f'  END TYPE {t}']
    for n, ft, v, k in consts:
        if k in handles:
            L.append(f'  TYPE({k}), PARAMETER :: {n} = {k}({v})')
        else:
            L.append(f'  {ft}, PARAMETER :: {n} = {v}')
    L += status_type()
    for d, c in sentinel_decls(ctx, True):
        L += ['  ' + d, '  ' + c]
    for op, fn in (('==', 'eq'), ('/=', 'ne')):
        L.append(f'  INTERFACE OPERATOR({op})')
        for t in handles:
            f = f'smpi_f_{fn}_{hshort(t)}'
            L += [f'    ELEMENTAL LOGICAL FUNCTION {f}(a, b)', '      IMPORT', f'      TYPE({t}), INTENT(IN) :: a, b',
                  f'    END FUNCTION {f}']
        L.append('  END INTERFACE')
    # Callback interfaces (MPI 3.1 §17.2.?: PROCEDURE(MPI_Comm_copy_attr_function) ...).
    cbs = []
    for tname in ctx.callbacks:
        fam = cbfamily(ctx, tname)
        if not fam or tname in ('MPI_Copy_function', 'MPI_Delete_function', 'MPI_Handler_function'):
            continue
        key = tname if tname in F08_ABSTRACT else fam[0]
        if key not in F08_ABSTRACT:
            continue
        args, decls = F08_ABSTRACT[key]
        h = hshort(fam[1]) if fam[1] and fam[1].startswith('MPI_') else ''
        T = fam[1] if fam[1] and fam[1].startswith('MPI_') else ''
        cbs += [f'    SUBROUTINE {tname}({args.format(h=h)})', '      IMPORT', '      IMPLICIT NONE']
        cbs += ['      ' + d.format(h=h, T=T) for d in decls]
        cbs.append(f'    END SUBROUTINE {tname}')
    if cbs:
        L += ['  ABSTRACT INTERFACE'] + cbs + ['  END INTERFACE']
    for n, (kind, h, old) in callback_constants(ctx):
        if old:
            continue
        t = {'MPI_Comm': 'MPI_Comm', 'MPI_Datatype': 'MPI_Type', 'MPI_Win': 'MPI_Win'}[h]
        L.append(f'  PROCEDURE({t}_{"delete" if kind == "delete" else "copy"}_attr_function) :: {n}')
    L += sizeof_ifaces('f08')
    for b in bindings:
        if not b.f08:
            continue
        for pre in ('MPI_', 'PMPI_'):
            nm = b.fname(pre)
            L.append(f'  INTERFACE {nm}')
            L += fortran_iface(b, 'f08', nm + '_f08')
            L.append(f'  END INTERFACE {nm}')
    L.append('END MODULE mpi_f08')
    open(os.path.join(out, 'mpi_f08.f90'), 'w').write('\n'.join(L) + '\n')


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mpi-h', required=True)
    ap.add_argument('--cc', required=True)
    ap.add_argument('--out', required=True)
    o = ap.parse_args()
    text = open(o.mpi_h).read()
    handles, callbacks = parse_types(text)
    raw = parse_routines(text)
    routines, manifest = [], []
    for ret, name, args in raw:
        try:
            routines.append(Routine(ret, name, args))
        except Unmapped as e:
            manifest.append(f'routine MPI_{name} unmapped: {e}')
    names = parse_constant_names(text)
    consts, sizes = probe(o.cc, o.mpi_h, names, handles)
    ctx = Ctx(handles, callbacks, consts, sizes, routines)
    bindings = []
    for r in routines:
        why = next((w for pat, w in EXCLUDED if re.match(pat, r.name)), None)
        if why:
            manifest.append(f'routine {r.cname()} excluded: {why}')
            continue
        try:
            b = Binding(ctx, r)
        except Unmapped as e:
            manifest.append(f'routine {r.cname()} unmapped: {e}')
            continue
        bindings.append(b)
        forms = 'mpif.h mpi' + (' mpi_f08' if b.f08 else '')
        note = '' if b.f08 else ' (no mpi_f08 binding: MPI-1 routine deprecated or removed since MPI-2)'
        manifest.append(f'routine {r.cname()} bound: {forms}{note}')
    os.makedirs(o.out, exist_ok=True)
    table, cexcluded = constant_table(ctx)
    exported = emit_c(ctx, bindings, o.out)
    emit_common(ctx, o.out)
    emit_mpif(ctx, bindings, table, o.out)
    emit_module_mpi(ctx, bindings, table, o.out)
    emit_module_f08(ctx, bindings, table, o.out)
    fixed = {n for n, *_ in table}
    for n in consts:
        if n in cexcluded:
            manifest.append(f'constant {n} excluded: {cexcluded[n]}')
        elif n in fixed or n in SENTINELS or n in dict(callback_constants(ctx)):
            manifest.append(f'constant {n} bound')
        else:
            manifest.append(f'constant {n} unmapped: no rule')
    for f, c in FORTRAN_TYPES:
        if f not in consts and not (c and c in consts):
            manifest.append(f'fortran-type {f} MPI_DATATYPE_NULL: {FORTRAN_TYPE_WHY.get(f, "no C type")}')
        elif f not in consts:
            manifest.append(f'fortran-type {f} = {c}')
    for s in ctx.sentinels:
        exported.append(fsent(s))
    # The Fortran-only routines (MPI_SIZEOF's specifics are above; fortran.c has these).
    exported += ['mpi_f_sync_reg_', 'pmpi_f_sync_reg_', 'mpi_f_sync_reg_f08_', 'pmpi_f_sync_reg_f08_']
    manifest += ['fortran-only MPI_SIZEOF bound: mpi mpi_f08', 'fortran-only MPI_F_SYNC_REG bound: mpi mpi_f08']
    manifest += [f'symbol {e}' for e in exported]
    open(os.path.join(o.out, 'fortran_api.txt'), 'w').write('\n'.join(manifest) + '\n')
    unm = [m for m in manifest if ' unmapped: ' in m]
    print(f'genfortran: {len(bindings)} routines bound, {len(unm)} unmapped', file=sys.stderr)


if __name__ == '__main__':
    main()
