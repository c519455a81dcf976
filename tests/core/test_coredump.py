#!/usr/bin/env python3
"""test_coredump.py: a rank's core dump, for real. A 2-rank job (slots of
tens of GiB each) whose rank 0 crashes (test_core MODE) with a core limit
of 1 GiB (unlimited, for a right core; a bound, should the slots ever be
written whole again): the core must hold the rank's own touched memory only (its 64 MiB
of heap, globals, stack: well under 256 MiB, where every slot written whole
was 66 GiB), and gdb must open it: the backtrace down to main (the exposed
main stack is in it), a heap value, a global.

Usage: test_coredump.py SMRUN TEST_CORE MODE [smrun options...]
Exits 77 (skipped) without gdb, or when cores do not go to the crashing
process's directory (kernel.core_pattern is a pipe or a path elsewhere)."""
import glob
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

MiB = 1 << 20


def skip(why):
    print(f"test_coredump: skipped: {why}")
    sys.exit(77)


def fail(why, out=""):
    sys.stdout.write(out)
    print(f"test_coredump: FAILED: {why}")
    sys.exit(1)


smrun, prog, mode, *opts = sys.argv[1:]
if not shutil.which("gdb"):
    skip("gdb is not installed (scripts/setup.sh installs it)")
with open("/proc/sys/kernel/core_pattern") as f:
    pattern = f.read().strip()
if pattern.startswith("|") or "/" in pattern:
    skip(f"kernel.core_pattern is '{pattern}': cores are not written where the rank runs")
if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
    skip("the hard core-size limit is 0")


def core_limit():
    hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
    want = 1 << 30 if hard == resource.RLIM_INFINITY else min(hard, 1 << 30)
    resource.setrlimit(resource.RLIMIT_CORE, (want, hard))


with tempfile.TemporaryDirectory(prefix="smartmap-core-") as d:
    p = subprocess.run([smrun, "-n", "2", *opts, prog, mode], cwd=d, preexec_fn=core_limit,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    signame = {"segv": "SIGSEGV", "abort": "SIGABRT"}[mode]
    if not re.search(rf"^smrun: rank 0 \(pid \d+\) killed by {signame} \(core dumped\)$", out, re.M):
        fail(f"rank 0 was not reported killed by {signame} with a core (exit code {p.returncode})", out)
    cores = glob.glob(os.path.join(d, "core*"))
    if len(cores) != 1:
        fail(f"expected one core file in the rank's directory, found {cores}", out)
    st = os.stat(cores[0])
    print(f"test_coredump: {mode}: core of {st.st_size / MiB:.0f} MiB ({st.st_blocks * 512 / MiB:.0f} MiB allocated)")
    if st.st_size > 256 * MiB:
        fail(f"the core is {st.st_size / MiB:.0f} MiB: more than the rank's own touched memory", out)
    if st.st_size < 64 * MiB:
        fail(f"the core is {st.st_size / MiB:.0f} MiB: the rank's 64 MiB of heap are not in it", out)
    g = subprocess.run(["gdb", "-nx", "-batch", "-ex", "bt", "-ex", "print heap_words[12345]",
                        "-ex", "print heap_words[8388607]", "-ex", "print marker_global", prog, cores[0]],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    out += g.stdout
    want = [r"^#\d+ .*\bmain \(", r"^\$1 = 37036$", r"^\$2 = 25165822$", r"^\$3 = 24301$"]
    if mode == "segv":
        want.append(r"^#0 .*crash_here \(")
    missing = [w for w in want if not re.search(w, g.stdout, re.M)]
    if missing or "Cannot access memory" in g.stdout:
        fail(f"gdb cannot read the core as it should (missing {missing})", out)
print("test_coredump: ok")
