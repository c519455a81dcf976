#!/usr/bin/env python3
"""test_cgroup.py: in a memory cgroup of 700 MiB, the default heaps come
from the cgroup's limit, not the machine's memory: ranks (and a program run
without smrun) that fill their heaps, touching every page, get NULL/ENOMEM
from malloc with the message, not the kernel's OOM killer. Heaps asked for
beyond the limit are allowed (address space), and when the OOM killer then
strikes, smrun says what likely happened.

Usage: test_cgroup.py SMRUN TEST_OOM
Exits 77 (skipped) where no memory cgroup can be made (not root, no memory
controller, cgroup v2 without it delegated)."""
import os
import re
import subprocess
import sys
import time

LIMIT = 700 << 20
smrun, prog = sys.argv[1:3]


def skip(why):
    print(f"test_cgroup: skipped: {why}")
    sys.exit(77)


def own_group():
    """(directory of this process's memory cgroup, name of the limit file)."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            hid, ctl, path = line.rstrip("\n").split(":", 2)
            if "memory" in ctl.split(","):
                return "/sys/fs/cgroup/memory" + path.rstrip("/"), "memory.limit_in_bytes"
            if hid == "0" and not ctl and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
                d = "/sys/fs/cgroup" + path.rstrip("/")
                with open(os.path.join(d, "cgroup.subtree_control")) as s:
                    if "memory" in s.read().split():
                        return d, "memory.max"
    return None, None


parent, limit_file = own_group()
if not parent:
    skip("no memory cgroup this process may divide")
group = os.path.join(parent, "smartmap-test-%d" % os.getpid())
try:
    os.mkdir(group)
    with open(os.path.join(group, limit_file), "w") as f:
        f.write(str(LIMIT))
except OSError as e:
    try:
        os.rmdir(group)
    except OSError:
        pass
    skip(f"cannot make a memory cgroup under {parent}: {e}")


def enter():
    with open(os.path.join(group, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


bad = []
try:
    for name, cmd, ranks in (("2 ranks", [smrun, "-n", "2", prog, "touch"], 2), ("no smrun", [prog, "touch"], 1)):
        p = subprocess.run(cmd, preexec_fn=enter, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            bad.append(f"{name}: exit code {p.returncode} (the OOM killer?)")
        if len(re.findall(r"raise smrun --mem-per-rank", p.stdout)) != ranks:
            bad.append(f"{name}: malloc did not fail with the message in each of {ranks} ranks")
        for m in re.finditer(r"filled (\d+) MiB of (\d+) MiB", p.stdout):
            if int(m.group(2)) << 20 > LIMIT * 0.9 / ranks:
                bad.append(f"{name}: a heap of {m.group(2)} MiB in a cgroup of {LIMIT >> 20} MiB for {ranks} rank(s)")
    p = subprocess.run([smrun, "-n", "2", "--mem-per-rank", "1G", prog, "touch"], preexec_fn=enter,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    sys.stdout.write(p.stdout)
    if p.returncode != 137 or not re.search(r"^smrun: rank \d \(pid \d+\) killed by SIGKILL \(out of memory\? the "
                                            r"ranks' heaps, 2 GiB in all, can outgrow the 700 MiB this job may use\)$",
                                            p.stdout, re.M):
        bad.append(f"heaps beyond the limit: exit code {p.returncode}, without the out-of-memory hint")
finally:
    for _ in range(50):
        try:
            os.rmdir(group)
            break
        except OSError:
            time.sleep(0.1)
for b in bad:
    print("test_cgroup: FAILED: " + b)
if not bad:
    print("test_cgroup: ok")
sys.exit(1 if bad else 0)
