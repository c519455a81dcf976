#!/usr/bin/env python3
"""Run a command and check its exit code and how often patterns appear in
its combined output. Used by CTest for checks a program cannot make itself.

  expect.py [--rc N]... [--count REGEX N]... [--some REGEX]... [--absent REGEX]... -- CMD ARGS...

--rc given more than once: any of them (a race with two right endings);
--some: the pattern appears at least once.
"""
import argparse, re, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--rc", type=int, action="append", default=[])
ap.add_argument("--count", nargs=2, action="append", default=[], metavar=("REGEX", "N"))
ap.add_argument("--absent", action="append", default=[])
ap.add_argument("--some", action="append", default=[])
ap.add_argument("--timeout", type=float, default=120)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=a.timeout)
out = p.stdout
sys.stdout.write(out)
bad = []
rcs = a.rc or [0]
if p.returncode not in rcs:
    bad.append(f"exit code {p.returncode}, expected {' or '.join(map(str, rcs))}")
for rx, n in a.count:
    got = len(re.findall(rx, out, re.M))
    if got != int(n):
        bad.append(f"/{rx}/ appears {got} times, expected {n}")
for rx in a.some:
    if not re.search(rx, out, re.M):
        bad.append(f"/{rx}/ does not appear")
for rx in a.absent:
    if re.search(rx, out, re.M):
        bad.append(f"/{rx}/ must not appear")
for b in bad:
    print("expect.py: " + b)
sys.exit(1 if bad else 0)
