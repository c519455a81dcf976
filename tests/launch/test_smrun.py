#!/usr/bin/env python3
"""test_smrun.py: tests of smrun, the launcher, through the helper ranks
lt_rank and lt_ctrl: identity, environment, MPMD, output forwarding, memfds,
ASLR, pinning, failures, signals, timeouts, bad arguments, and that no
process or file of a job survives it.

Run: python3 test_smrun.py --smrun build/bin/smrun --bindir build/bin
         [--preload-lib path/to/liblt_preload.so] [unittest args, e.g. -k Fail]
"""
import argparse
import ctypes
import fcntl
import os
import pty
import resource
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import termios
import time
import unittest

SMRUN = BINDIR = PRELOAD_LIB = None
LT_RANK = LT_CTRL = None

SM_HEAP_OFF = 4 << 30
SM_HEAP_ALIGN = 64 << 20
SM_HEAP_MIN = 64 << 20
SM_SYM_OFF = 32 << 30
SM_HEAP_MAX = SM_SYM_OFF - SM_HEAP_OFF
SM_NMAX = 256
# "Ends the job" (not: waits for the ranks, which hang for ever): smrun ends
# it in milliseconds, but a loaded CI machine under the sanitizers took 8 s.
# No timing is asserted; the bound only tells an ended job from a hung one.
ENDS_WITHIN = 30


def meminfo(field):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def memory_limit():
    """What smrun's default --mem-per-rank shares: MemTotal, or less where the
    memory cgroup (or an ancestor) limits it."""
    lim = meminfo("MemTotal")
    try:
        with open("/proc/self/cgroup") as f:
            groups = [l.rstrip("\n").split(":", 2) for l in f]
    except OSError:
        groups = []
    for hid, ctl, path in groups:
        if hid == "0" and not ctl:
            root = "/sys/fs/cgroup" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") else "/sys/fs/cgroup/unified"
            names = ("memory.max", "memory.high")
        elif "memory" in ctl.split(","):
            root, names = "/sys/fs/cgroup/memory", ("memory.limit_in_bytes",)
        else:
            continue
        d = (root + path).rstrip("/")
        while len(d) >= len(root):
            for n in names:
                try:
                    with open(os.path.join(d, n)) as f:
                        v = f.read().strip()
                    if v.isdigit() and int(v) < 1 << 62:
                        lim = min(lim, int(v))
                except OSError:
                    pass
            d = d.rsplit("/", 1)[0]
    return lim


def shm_entries():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def shm_in_use(names):
    """Those of names (entries of /dev/shm) that a live process has mapped or
    open: another program's, on a machine shared with other jobs (a job's
    leftover has nobody left to hold it)."""
    paths = {"/dev/shm/" + n: n for n in names}
    used = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/maps" % pid) as f:
                for line in f:
                    path = line.rstrip("\n").split(None, 5)[-1]
                    if path in paths:
                        used.add(paths[path])
            for fd in os.listdir("/proc/%s/fd" % pid):
                target = os.readlink("/proc/%s/fd/%s" % (pid, fd))
                if target in paths:
                    used.add(paths[target])
        except OSError:
            continue
    return used


class Result:
    def __init__(self, rc, out, err, elapsed):
        self.rc, self.out, self.err, self.elapsed = rc, out, err, elapsed

    def smrun_lines(self):
        return [l for l in self.err.splitlines() if l.startswith("smrun: ")]


class SmrunTest(unittest.TestCase):
    """Each test gets $LT_DIR, where the helpers record themselves; tearDown
    checks that none of the recorded processes, nor anything in their process
    groups, is still there, and that /dev/shm did not change."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="smrun-test-")
        self.shm_before = shm_entries()

    def tearDown(self):
        try:
            self.assert_nothing_left()
            new = shm_entries() - self.shm_before
            if new:
                time.sleep(0.5)                   # another job's may be gone by now
                new = shm_entries() - self.shm_before
                new -= shm_in_use(new)
            self.assertEqual(new, set(), "new files in /dev/shm")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ---- helpers ----

    def env(self, extra=None):
        e = dict(os.environ)
        e["LT_DIR"] = self.dir
        e.update(extra or {})
        return e

    def run_smrun(self, args, extra_env=None, stdin=subprocess.DEVNULL, timeout=60, smrun=None):
        t0 = time.monotonic()
        p = subprocess.run([smrun or SMRUN] + args, env=self.env(extra_env), stdin=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return Result(p.returncode, p.stdout.decode(errors="replace"),
                      p.stderr.decode(errors="replace"), time.monotonic() - t0)

    def records(self, kind="rank"):
        """{rank or pid: (pid, starttime, pgid, rank)} of what the helpers recorded."""
        recs = []
        for name in os.listdir(self.dir):
            if name.startswith(kind + "."):
                with open(os.path.join(self.dir, name)) as f:
                    pid, start, pgid, rank = (int(x) for x in f.read().split())
                    recs.append((pid, start, pgid, rank))
        return recs

    def wait_records(self, n, kind="rank", limit=20):
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            if len(self.records(kind)) >= n:
                return
            time.sleep(0.01)
        self.fail("only %d of %d %s records appeared" % (len(self.records(kind)), n, kind))

    def marked_processes(self):
        """Live processes with this test's LT_DIR in their environment: the
        job's, whether they recorded themselves or not."""
        mark = ("\0LT_DIR=%s\0" % self.dir).encode()
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/environ" % name, "rb") as f:
                    env = b"\0" + f.read()
            except OSError:
                continue
            if mark in env:
                found.append(int(name))
        return found

    def assert_nothing_left(self):
        self.assertEqual(self.marked_processes(), [], "processes of the job survived smrun")
        recs = self.records("rank") + self.records("grandchild")
        pgids = {r[2] for r in recs}
        alive = []
        for pid, start, pgid, rank in recs:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[19]) == start:   # field 22: the same process
                    alive.append((pid, fields[0]))
            except (OSError, IndexError):
                pass
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) in pgids:
                alive.append((int(name), fields[0] + " in pgid " + fields[2]))
        self.assertEqual(alive, [], "processes of the job survived smrun")

    def assert_one_cause(self, res, pattern, rc):
        lines = res.smrun_lines()
        self.assertEqual(res.rc, rc, res.err)
        self.assertEqual(len(lines), 1, "one message from smrun expected:\n" + res.err)
        m = re.fullmatch(pattern, lines[0])
        self.assertTrue(m, "%r does not match %r" % (lines[0], pattern))
        self.assertLess(res.elapsed, ENDS_WITHIN, "the job took %.2f s to end" % res.elapsed)
        return m

    def reap_orphans(self, t0, pids):
        """As subreaper after smrun was killed: reap until `pids` (and smrun's
        guardian, also our child now) are gone; return the pids that are not."""
        left = set(pids)
        while time.monotonic() - t0 < 10:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.01)
            left.discard(pid)
        return sorted(left)

    def fresh_dir(self):
        """Between two jobs of one test: check the first, forget its records."""
        self.assert_nothing_left()
        shutil.rmtree(self.dir)
        os.mkdir(self.dir)

    def pid_of(self, rank):
        pids = [r[0] for r in self.records() if r[3] == rank]
        self.assertEqual(len(pids), 1)
        return pids[0]


class TestBasics(SmrunTest):
    def hello(self, n, *extra):
        res = self.run_smrun(list(extra) + ["-n", str(n), LT_RANK, "hello"])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.err, "")
        ranks = []
        for line in res.out.splitlines():
            m = re.fullmatch(r"hello rank=(\d+) size=(\d+) pidmatch=1 pages=4k "
                             r"launcher=smrun \d+\.\d+\.\d+ args=0", line)
            self.assertTrue(m, line)
            self.assertEqual(int(m.group(2)), n)
            ranks.append(int(m.group(1)))
        self.assertEqual(sorted(ranks), list(range(n)))
        return res

    def test_ranks_2_4_8(self):
        for n in (2, 4, 8):
            res = self.hello(n)
            if n == 8:
                self.assertLess(res.elapsed, 5, "8 ranks on few cores must start fast")
            self.fresh_dir()

    def test_256_ranks(self):
        self.hello(256)

    def test_process_group(self):
        self.hello(4)
        recs = self.records()
        pgids = {r[2] for r in recs}
        self.assertEqual(len(pgids), 1, "all ranks in one process group")
        self.assertEqual(pgids.pop(), self.pid_of(0), "rank 0 leads the group")
        self.assertNotIn(os.getpgrp(), {r[2] for r in recs}, "not smrun's group")

    def test_np_forms(self):
        for form in (["-np", "3"], ["--np", "3"], ["-n=3"], ["--np=3"], ["-n3"], ["--n", "3"],
                     ["--oversubscribe", "--allow-run-as-root", "-n", "3"]):
            res = self.run_smrun(form + [LT_RANK, "hello"])
            self.assertEqual(res.rc, 0, "%s: %s" % (form, res.err))
            self.assertEqual(len(res.out.splitlines()), 3, form)
        # Single-dash long options, as mpirun takes them.
        res = self.run_smrun(["-np", "2", "-tag-output", LT_RANK, "hello"])
        self.assertEqual(res.rc, 0, res.err)
        self.assertTrue(all(l.startswith("[") for l in res.out.splitlines()), res.out)

    def test_program_args_are_the_programs(self):
        args = ["a b", "-n", "5", "--timeout", "", "--help"]
        res = self.run_smrun(["-n", "2", LT_RANK, "hello"] + args)
        self.assertEqual(res.rc, 0, res.err)
        got = [l[4:] for l in res.out.splitlines() if l.startswith("arg ")]
        self.assertEqual(got, args * 2)
        self.assertEqual(res.out.count("size=2 "), 2)

    def test_program_found_in_path(self):
        path = BINDIR + os.pathsep + os.environ.get("PATH", "")
        res = self.run_smrun(["-n", "2", "lt_rank", "hello"], extra_env={"PATH": path})
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out.count("hello rank="), 2)

    def test_environment(self):
        res = self.run_smrun(["-n", "2", "-x", "LT_SET=from-x", "-x", "LT_OVR=new", "-x", "LT_KEEP",
                              LT_RANK, "env", "LT_SET", "LT_OVR", "LT_KEEP", "LT_PASS",
                              "SMARTMAP_RANK", "SMARTMAP_SIZE", "SMARTMAP_FD0", "SMARTMAP_PAGES",
                              "SMARTMAP_LAUNCHER", "SMARTMAP_JOB"],
                             extra_env={"LT_OVR": "old", "LT_KEEP": "kept", "LT_PASS": "passed"})
        self.assertEqual(res.rc, 0, res.err)
        for r in (0, 1):
            for kv in ("LT_SET=from-x", "LT_OVR=new", "LT_KEEP=kept", "LT_PASS=passed",
                       "SMARTMAP_RANK=%d" % r, "SMARTMAP_SIZE=2", "SMARTMAP_PAGES=4k"):
                self.assertIn("rank %d: %s\n" % (r, kv), res.out)
            self.assertRegex(res.out, r"rank %d: SMARTMAP_FD0=\d+\n" % r)
            self.assertRegex(res.out, r"rank %d: SMARTMAP_LAUNCHER=smrun \d+\.\d+\.\d+\n" % r)
            self.assertRegex(res.out, r"rank %d: SMARTMAP_JOB=\d+\.[0-9a-f]{16}\n" % r)

    def test_mpmd(self):
        # The middle context runs another executable (a copy of lt_rank: a
        # job of plain programs; lt_ctrl would fake a smartmap rank that the
        # others never wait for, which no real job has).
        other = os.path.join(self.dir, "lt_other")
        shutil.copy(LT_RANK, other)
        vars_ = ["SMARTMAP_RANK", "SMARTMAP_SIZE", "LT_CTX", "LT_ALL"]
        res = self.run_smrun(["-x", "LT_ALL=all", "-n", "2", LT_RANK, "env"] + vars_ +
                             [":", "-n", "3", "-x", "LT_CTX=second", other, "hello", "a", "b",
                              ":", "-np", "1", LT_RANK, "env"] + vars_)
        self.assertEqual(res.rc, 0, res.err)
        for r in (0, 1, 5):
            self.assertIn("rank %d: SMARTMAP_RANK=%d\n" % (r, r), res.out)
            self.assertIn("rank %d: SMARTMAP_SIZE=6\n" % r, res.out)
            self.assertIn("rank %d: LT_CTX=(unset)\n" % r, res.out)
            self.assertIn("rank %d: LT_ALL=all\n" % r, res.out)
        for r in (2, 3, 4):
            self.assertIn("hello rank=%d size=6 pidmatch=1 pages=4k launcher=smrun " % r, res.out)
        for line in ("args=2\n", "arg a\n", "arg b\n"):
            self.assertEqual(res.out.count(line), 3, line)
        self.assertEqual(sorted(r[3] for r in self.records()), list(range(6)))

    def test_stdin(self):
        data = b"x" * 100000
        p = subprocess.run([SMRUN, "-n", "3", LT_RANK, "stdin"], input=data, env=self.env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("rank 0: stdin bytes=100000\n", out)
        self.assertIn("rank 1: stdin bytes=0\n", out)
        self.assertIn("rank 2: stdin bytes=0\n", out)

    def test_terminal_stdin_is_relayed(self):
        # smrun on a terminal, in its foreground group: the ranks are in a group
        # of their own, so rank 0 must get the input through smrun (reading the
        # terminal itself would stop it with SIGTTIN).
        master, slave = pty.openpty()

        def controlling_tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        p = subprocess.Popen([SMRUN, "-n", "2", LT_RANK, "stdin"], env=self.env(), stdin=slave,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=controlling_tty)
        os.close(slave)
        try:
            self.wait_records(2)
            os.write(master, b"hello\nworld\n")
            time.sleep(0.2)
            os.write(master, b"\x04")                # ^D: end of input
            out, err = p.communicate(timeout=10)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            os.close(master)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn(b"rank 0: stdin bytes=12\n", out)
        self.assertIn(b"rank 1: stdin bytes=0\n", out)

    def test_fd_limit(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and hard < 2048:
            self.skipTest("hard RLIMIT_NOFILE below 2048")
        # The soft limit is raised to the hard one when the job needs it...
        p = subprocess.run([SMRUN, "-n", "250", LT_RANK, "hello"], env=self.env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count(b"hello rank="), 250)
        self.fresh_dir()
        # ... and a hard limit too low for the job is a usage error.
        p = subprocess.run([SMRUN, "-n", "250", LT_RANK, "hello"], env=self.env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertRegex(p.stderr.decode(), r"^smrun: -n: 250 ranks need \d+ file descriptors, .*\n$")
        self.assertEqual(self.records(), [])

    def test_no_stray_fds(self):
        res = self.run_smrun(["-n", "3", LT_RANK, "fds"])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(sorted(res.out.splitlines()), ["rank %d: extra fds:" % r for r in range(3)])

    def test_help_and_version(self):
        res = self.run_smrun(["--help"])
        self.assertEqual(res.rc, 0)
        self.assertEqual(res.err, "")
        for word in ("Usage:", "-n N", "-np", "-x VAR", "--mem-per-rank", "--pages", "--bind-to",
                     "--tag-output", "--timeout", "--preload", "--verbose", "--version",
                     "SMARTMAP_RANK", "SMARTMAP_SIZE", "SMARTMAP_PID", "SMARTMAP_FD0",
                     "SMARTMAP_PAGES", "Exit status", "124", "Examples"):
            self.assertIn(word, res.out)
        self.assertEqual(self.run_smrun(["-h"]).rc, 0)
        res = self.run_smrun(["--version"])
        self.assertEqual(res.rc, 0)
        self.assertRegex(res.out, r"^smrun \(smartmap\) \d+\.\d+\.\d+\n$")


class TestOutput(SmrunTest):
    def check_lines(self, text, nranks, count, length, stream, tag):
        seen = set()
        for line in text.splitlines():
            if tag:
                m = re.match(r"\[(\d+)\] ", line)
                self.assertTrue(m, "untagged line %r" % line[:80])
                line = line[m.end():]
                tag_rank = int(m.group(1))
            m = re.fullmatch(r"L (\d+) (\d+) ([a-z]+) E", line)
            self.assertTrue(m, "broken line %r" % line[:120])
            r, i, payload = int(m.group(1)), int(m.group(2)), m.group(3)
            if tag:
                self.assertEqual(tag_rank, r)
            self.assertEqual(payload, chr(ord("a") + (r + i) % 26) * length, "mixed line")
            self.assertEqual((i % 3 == 2), stream == "err", "line on the wrong stream")
            self.assertNotIn((r, i), seen)
            seen.add((r, i))
        want = {(r, i) for r in range(nranks) for i in range(count) if (i % 3 == 2) == (stream == "err")}
        self.assertEqual(seen, want, "lines lost")

    def test_lines_never_interleave(self):
        n, count, length = 6, 3000, 1500
        res = self.run_smrun(["-n", str(n), LT_RANK, "lines", str(count), str(length)], timeout=120)
        self.assertEqual(res.rc, 0, res.err[:500])
        self.check_lines(res.out, n, count, length, "out", False)
        self.check_lines(res.err, n, count, length, "err", False)

    def test_unfinished_lines_do_not_mix(self):
        # Each rank's last line has no newline: another rank's output starts
        # on a line of its own; the very last line stays unfinished, as the
        # program wrote it.
        res = self.run_smrun(["-n", "4", LT_RANK, "partial"])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(sorted(res.out.split("\n")), ["rank %d: no newline" % r for r in range(4)])
        self.assertFalse(res.out.endswith("\n"))

    def test_tag_output(self):
        n, count, length = 4, 500, 5000
        res = self.run_smrun(["--tag-output", "-n", str(n), LT_RANK, "lines", str(count), str(length)])
        self.assertEqual(res.rc, 0, res.err[:500])
        self.check_lines(res.out, n, count, length, "out", True)
        self.check_lines(res.err, n, count, length, "err", True)
        res = self.run_smrun(["--tag-output", "-n", "3", LT_RANK, "hello"])
        for line in res.out.splitlines():
            self.assertRegex(line, r"^\[(\d)\] hello rank=\1 ")


class TestRankSetup(SmrunTest):
    def test_memfds(self):
        res = self.run_smrun(["-n", "3", "--mem-per-rank", "128M", LT_RANK, "memfd", str(128 << 20)])
        self.assertEqual(res.rc, 0, res.err)
        for r in range(3):
            self.assertIn("rank %d: memfds ok cloexec=0 size=%d\n" % (r, SM_SYM_OFF), res.out)

    def test_mem_per_rank_forms(self):
        for arg, heap in (("1073741824", 1 << 30), ("1GiB", 1 << 30), ("1.5G", 3 << 29),
                          ("100M", 128 << 20), ("65536K", 64 << 20), ("256mb", 256 << 20)):
            res = self.run_smrun(["-n", "2", "--mem-per-rank", arg, LT_RANK, "memfd", str(heap)])
            self.assertEqual(res.rc, 0, arg + ": " + res.err)
            self.assertEqual(res.out.count("memfds ok"), 2, arg + ": " + res.out)

    def test_mem_beyond_the_machine(self):
        # Heaps are address space until touched: more in all than the
        # machine has is no reason to refuse a job.
        big = (meminfo("MemTotal") >> 30) // 8 + 1
        res = self.run_smrun(["-n", "16", "--mem-per-rank", "%dG" % big, LT_RANK, "memfd", str(big << 30)])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out.count("memfds ok"), 16, res.out)

    def test_mem_per_rank_per_context(self):
        # MPMD: before the first ':' every context's default, after it the context's own.
        res = self.run_smrun(["-n", "1", "--mem-per-rank", "128M", LT_RANK, "env", "SMARTMAP_HEAP_BYTES", ":",
                              "-n", "2", "--mem-per-rank", "256M", LT_RANK, "env", "SMARTMAP_HEAP_BYTES", ":",
                              "-n", "1", LT_RANK, "env", "SMARTMAP_HEAP_BYTES"])
        self.assertEqual(res.rc, 0, res.err)
        got = sorted(res.out.splitlines())
        self.assertEqual(got, ["rank %d: SMARTMAP_HEAP_BYTES=%d" % (r, h) for r, h in
                               ((0, 128 << 20), (1, 256 << 20), (2, 256 << 20), (3, 128 << 20))])

    def test_default_mem_is_a_fair_share(self):
        n = 2
        share = int(memory_limit() * 0.9 / n) // SM_HEAP_ALIGN * SM_HEAP_ALIGN
        share = min(max(share, SM_HEAP_MIN), SM_HEAP_MAX)
        res = self.run_smrun(["-n", str(n), LT_RANK, "memfd", str(share)])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(res.out.count("memfds ok"), n, res.out)

    def test_aslr_off(self):
        outs = []
        for _ in range(2):
            res = self.run_smrun(["-n", "2", LT_RANK, "aslr"])
            self.assertEqual(res.rc, 0, res.err)
            for line in res.out.splitlines():
                m = re.fullmatch(r"rank \d: personality=([0-9a-f]+) stack=(\S+) heap=(\S+)", line)
                self.assertTrue(m, line)
                self.assertTrue(int(m.group(1), 16) & 0x0040000, "ADDR_NO_RANDOMIZE not set")
            outs.append(sorted(l.split(" ", 2)[2] for l in res.out.splitlines()))
        self.assertEqual(outs[0], outs[1], "addresses differ between runs")

    def affinity(self, *opts):
        res = self.run_smrun(list(opts) + ["-n", "5", LT_RANK, "affinity"])
        self.assertEqual(res.rc, 0, res.err)
        got = {}
        for line in res.out.splitlines():
            m = re.fullmatch(r"rank (\d+): ncpus=(\d+) cpus=([\d,]*)", line)
            self.assertTrue(m, line)
            got[int(m.group(1))] = [int(c) for c in m.group(3).split(",") if c]
        return got

    def test_bind_to_core(self):
        mine = sorted(os.sched_getaffinity(0))
        for opts in ((), ("--bind-to", "core")):
            got = self.affinity(*opts)
            for r in range(5):
                self.assertEqual(got[r], [mine[r % len(mine)]], "rank %d" % r)

    def test_bind_to_none(self):
        mine = sorted(os.sched_getaffinity(0))
        got = self.affinity("--bind-to", "none")
        for r in range(5):
            self.assertEqual(got[r], mine)

    def test_pages(self):
        try:
            with open("/sys/kernel/mm/transparent_hugepage/shmem_enabled") as f:
                sel = re.search(r"\[(\w+)\]", f.read()).group(1)
        except (OSError, AttributeError):
            sel = "unavailable"
        ok = sel in ("always", "within_size", "advise", "force")
        res = self.run_smrun(["-n", "2", "--pages", "2m", LT_RANK, "env", "SMARTMAP_PAGES"])
        self.assertEqual(res.rc, 0, res.err)
        if ok:
            self.assertEqual(res.err, "")
            self.assertEqual(res.out.count("SMARTMAP_PAGES=2m"), 2)
        else:
            self.assertEqual(res.err, "smrun: warning: 2 MiB pages are not available for shared "
                             "memory here (shmem_enabled=%s); using 4 KiB pages\n" % sel)
            self.assertEqual(res.out.count("SMARTMAP_PAGES=4k"), 2)
        res = self.run_smrun(["-n", "1", "--pages", "4k", LT_RANK, "env", "SMARTMAP_PAGES"])
        self.assertEqual((res.rc, res.err, res.out), (0, "", "rank 0: SMARTMAP_PAGES=4k\n"))

    def test_preload(self):
        if not PRELOAD_LIB:
            self.skipTest("no --preload-lib given")
        # An install tree: <prefix>/bin/smrun and <prefix>/lib/libsmartmap.so.
        prefix = os.path.join(self.dir, "prefix")
        os.makedirs(os.path.join(prefix, "bin"))
        smrun = os.path.join(prefix, "bin", "smrun")
        shutil.copy2(SMRUN, smrun)
        res = self.run_smrun(["--preload", "-n", "1", LT_RANK, "hello"], smrun=smrun)
        self.assertEqual(res.rc, 2)
        self.assertRegex(res.err, r"^smrun: --preload: .*libsmartmap\.so: no such file\n$")
        os.makedirs(os.path.join(prefix, "lib"))
        lib = os.path.join(prefix, "lib", "libsmartmap.so")
        shutil.copy2(PRELOAD_LIB, lib)
        res = self.run_smrun(["--preload", "-n", "2", LT_RANK, "env", "LD_PRELOAD", "LT_PRELOADED"],
                             smrun=smrun)
        self.assertEqual(res.rc, 0, res.err)
        for r in (0, 1):
            self.assertIn("rank %d: LD_PRELOAD=%s\n" % (r, os.path.join(os.path.realpath(os.path.dirname(lib)),
                                                                      "libsmartmap.so")), res.out)
            self.assertIn("rank %d: LT_PRELOADED=yes\n" % r, res.out)
        res = self.run_smrun(["-n", "1", LT_RANK, "env", "LT_PRELOADED"], smrun=smrun)
        self.assertEqual(res.out, "rank 0: LT_PRELOADED=(unset)\n")


class TestFailure(SmrunTest):
    def test_segfault(self):
        res = self.run_smrun(["-n", "4", LT_RANK, "die", "2", "segv"])
        m = self.assert_one_cause(res, r"smrun: rank 2 \(pid (\d+)\) killed by SIGSEGV( \(core dumped\))?", 139)
        self.assertEqual(int(m.group(1)), self.pid_of(2))
        # Its output is not lost, the unfinished last line included.
        self.assertIn("rank 2: last words on stdout\npartial line without newline", res.out)

    def test_exit_code(self):
        res = self.run_smrun(["-n", "4", LT_RANK, "die", "1", "exit", "3"])
        m = self.assert_one_cause(res, r"smrun: rank 1 \(pid (\d+)\) exited with code 3", 3)
        self.assertEqual(int(m.group(1)), self.pid_of(1))

    def test_abort(self):
        res = self.run_smrun(["-n", "3", LT_RANK, "die", "0", "abort"])
        self.assert_one_cause(res, r"smrun: rank 0 \(pid \d+\) killed by SIGABRT( \(core dumped\))?", 134)

    def test_only_the_first_failure_is_reported(self):
        res = self.run_smrun(["-n", "6", LT_RANK, "die", "-1", "exit", "4"])
        self.assert_one_cause(res, r"smrun: rank \d \(pid \d+\) exited with code 4", 4)

    def kill_smrun_and_reap(self, argv, until_ready, kinds):
        """Start smrun with argv, wait for until_ready(), SIGKILL smrun, and
        return the processes of the job (records of each kind) still alive,
        killed now so as not to be left to the next test, and the seconds the
        rest took to go. This test process is their subreaper, to reap them
        and see them gone."""
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_CHILD_SUBREAPER = 36
        self.assertEqual(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0)
        p = None
        try:
            p = subprocess.Popen([SMRUN] + argv, env=self.env(), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            until_ready()
            t0 = time.monotonic()
            p.kill()
            p.wait()
            pids = {r[0] for kind in kinds for r in self.records(kind)}
            survivors = self.reap_orphans(t0, pids)
            took = time.monotonic() - t0
            for pid in survivors:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
            return survivors, took
        finally:
            if p and p.poll() is None:           # failed before the kill: end the job
                p.kill()
                p.wait()
                self.reap_orphans(time.monotonic() - 8, ())
            libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)

    def test_ranks_die_with_a_killed_smrun(self):
        # SIGKILL cannot be forwarded: the ranks go by PR_SET_PDEATHSIG.
        left, took = self.kill_smrun_and_reap(["-n", "4", LT_RANK, "hang"], lambda: self.wait_records(4), ["rank"])
        self.assertEqual(left, [], "ranks survived smrun")
        self.assertLess(took, ENDS_WITHIN + 1)

    def test_grandchildren_die_with_a_killed_smrun(self):
        # What the ranks started, in their process group or gone off with
        # setsid(), has no PR_SET_PDEATHSIG: smrun's guardian kills it when
        # smrun dies. Rank 1 exits 0 once the grandchildren are up (its own
        # are orphans of smrun then); ranks 0 and 2 wait forever.
        def ready():
            self.wait_records(6, "grandchild")
            self.wait_records(3)
            time.sleep(0.2)                       # rank 1 has exited by now
        left, took = self.kill_smrun_and_reap(["-n", "3", LT_RANK, "grandchild", "1"], ready,
                                              ["rank", "grandchild"])
        self.assertEqual(left, [], "processes of the job survived a killed smrun")
        self.assertLess(took, ENDS_WITHIN + 1)

    def test_smartmap_grandchildren_die_with_a_killed_smrun(self):
        # The same, the grandchildren being smartmap programs: their stacks
        # are exposed, and their environment (the job's mark) must still
        # read in /proc for the guardian to find the one that left with setsid.
        prog = os.path.join(BINDIR, "test_claim")
        if not os.access(prog, os.X_OK):
            self.skipTest("no test_claim in " + BINDIR)
        def ready():
            self.wait_records(6, "grandchild")
            self.wait_records(3)
            time.sleep(0.5)                       # exec'd and initialised by now
        left, took = self.kill_smrun_and_reap(["-n", "3", "-x", "LT_GRANDCHILD_EXEC=" + prog, LT_RANK,
                                               "grandchild", "1"], ready, ["rank", "grandchild"])
        self.assertEqual(left, [], "smartmap processes of the job survived a killed smrun")
        self.assertLess(took, ENDS_WITHIN + 1)

    def test_exec_failure(self):
        bad = os.path.join(self.dir, "badinterp")
        with open(bad, "w") as f:
            f.write("#!/nonexistent/interpreter\n")
        os.chmod(bad, 0o755)
        res = self.run_smrun(["-n", "2", bad])
        self.assertEqual(res.rc, 127, res.err)
        self.assertIn("cannot execute", res.err)
        self.assertRegex(res.err, r"smrun: rank \d \(pid \d+\) exited with code 127\n")

    def test_timeout(self):
        res = self.run_smrun(["-n", "4", "--timeout", "1", LT_RANK, "hang"])
        self.assertEqual(res.rc, 124, res.err)
        self.assertEqual(res.smrun_lines(), ["smrun: job exceeded --timeout 1 s; killing 4 ranks"])
        self.assertGreaterEqual(res.elapsed, 1.0)
        self.assertLess(res.elapsed, 1 + ENDS_WITHIN)
        self.assertEqual(res.out.count("hanging"), 4)

    def signal_job(self, sig, mode, n=4):
        p = subprocess.Popen([SMRUN, "-n", str(n), LT_RANK, mode], env=self.env(),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            self.wait_records(n)
            t0 = time.monotonic()
            p.send_signal(sig)
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return Result(p.returncode, out.decode(), err.decode(), time.monotonic() - t0)

    def test_sigint(self):
        res = self.signal_job(signal.SIGINT, "hang")
        self.assert_one_cause(res, r"smrun: received SIGINT; ending the job", 130)

    def test_sigterm_to_ranks_that_ignore_it(self):
        res = self.signal_job(signal.SIGTERM, "ignore-int")
        self.assert_one_cause(res, r"smrun: received SIGTERM; ending the job", 143)
        self.assertGreaterEqual(res.elapsed, 0.9, "SIGKILL only after 1 s of grace")

    def test_sighup_and_sigquit(self):
        res = self.signal_job(signal.SIGHUP, "hang", n=2)
        self.assert_one_cause(res, r"smrun: received SIGHUP; ending the job", 129)
        self.fresh_dir()
        res = self.signal_job(signal.SIGQUIT, "hang", n=2)
        self.assert_one_cause(res, r"smrun: received SIGQUIT; ending the job", 131)

    def test_sigusr1_is_forwarded(self):
        res = self.signal_job(signal.SIGUSR1, "hang", n=3)
        self.assert_one_cause(res, r"smrun: rank \d \(pid \d+\) killed by SIGUSR1", 128 + signal.SIGUSR1)

    def test_stop_and_continue(self):
        def state_of(pid):
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0]

        def states():
            return [state_of(r[0]) for r in self.records()]

        def wait_state(want):
            t0 = time.monotonic()
            while time.monotonic() - t0 < 10 and set(states()) != {want}:
                time.sleep(0.01)
            self.assertEqual(set(states()), {want})

        p = subprocess.Popen([SMRUN, "-n", "3", LT_RANK, "hang"], env=self.env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            self.wait_records(3)
            p.send_signal(signal.SIGTSTP)
            wait_state("T")
            # smrun stops its ranks, then itself: as a shell would (it
            # waits for smrun to stop), continue it only once it has, or
            # the SIGCONT lands between the two and smrun stops after it
            t0 = time.monotonic()
            while time.monotonic() - t0 < 10 and state_of(p.pid) != "T":
                time.sleep(0.01)
            self.assertEqual(state_of(p.pid), "T")
            p.send_signal(signal.SIGCONT)
            wait_state("S")
            p.send_signal(signal.SIGTERM)
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 143, err)

    def test_exit_without_finalize(self):
        res = self.run_smrun(["-n", "3", LT_CTRL, "nofinalize", "1"])
        m = self.assert_one_cause(res, r"smrun: rank 1 \(pid (\d+)\) exited without calling MPI_Finalize", 1)
        self.assertEqual(int(m.group(1)), self.pid_of(1))

    def test_exit_without_one_of_two_finalizes(self):
        # MPI and SHMEM in one rank: each is a client of its own; the report
        # names the finalize routines still owed, whichever were called.
        res = self.run_smrun(["-n", "3", LT_CTRL, "mpi_only", "1"])
        self.assert_one_cause(res, r"smrun: rank 1 \(pid \d+\) exited without calling shmem_finalize", 1)
        res = self.run_smrun(["-n", "3", LT_CTRL, "neither", "2"])
        self.assert_one_cause(res, r"smrun: rank 2 \(pid \d+\) exited without calling MPI_Finalize "
                              r"and shmem_finalize", 1)

    def test_abort_note(self):
        res = self.run_smrun(["-n", "3", LT_CTRL, "note", "2", "7", "called MPI_Abort(MPI_COMM_WORLD, 7)"])
        m = self.assert_one_cause(res, r"smrun: rank 2 \(pid (\d+)\) called MPI_Abort\(MPI_COMM_WORLD, 7\)", 7)
        self.assertEqual(int(m.group(1)), self.pid_of(2))
        self.assertIn("rank 2: aborting\n", res.err)

    def test_finalized_ranks_succeed(self):
        res = self.run_smrun(["-n", "3", LT_CTRL, "finalize", "0"])
        self.assertEqual((res.rc, res.err), (0, ""))
        self.assertEqual(res.out.count("finalized"), 3)

    def test_untrusted_control_blocks(self):
        # A block without the magic, or of another pid, is not the rank's.
        for mode in ("badmagic", "badpid"):
            res = self.run_smrun(["-n", "3", LT_CTRL, mode, "-1"])
            self.assertEqual((res.rc, res.err), (0, ""), mode)

    def test_grandchildren_are_killed(self):
        res = self.run_smrun(["-n", "3", LT_RANK, "grandchild", "-1"])
        self.assertEqual(res.rc, 0, res.err)
        self.assertEqual(len(self.records("grandchild")), 6)
        self.assertLess(res.elapsed, 10)

    def test_grandchildren_of_a_failed_job_are_killed(self):
        res = self.run_smrun(["-n", "3", LT_RANK, "grandchild", "1", "fail"])
        self.assert_one_cause(res, r"smrun: rank 1 \(pid \d+\) exited with code 5", 5)
        self.assertGreaterEqual(len(self.records("grandchild")), 2)


class TestSubstrateFailure(SmrunTest):
    """The failure tests of the substrate, with ranks linked with libsmartmap
    (test_die) that wait for the failed one in sm_barrier: each ends the job
    within 2 s with the right message and code, leaving no process of the job
    and nothing new in /dev/shm (tearDown)."""

    def setUp(self):
        super().setUp()
        self.prog = os.path.join(BINDIR, "test_die")
        if not os.access(self.prog, os.X_OK):
            self.skipTest("no test_die in " + BINDIR)

    @staticmethod
    def session(sid):
        """Live processes of session sid (smrun runs as a session leader here,
        and the ranks and their children stay in its session)."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] not in "ZX":
                found.append(int(name))
        return found

    def job(self, args, sig=None, nranks=4):
        p = subprocess.Popen([SMRUN] + args, env=self.env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        t0 = time.monotonic()
        if sig:
            # smrun, its guardian and the ranks, then a moment to fall asleep in sm_barrier.
            while len(self.session(p.pid)) < nranks + 2 and time.monotonic() - t0 < 20:
                time.sleep(0.01)
            time.sleep(0.2)
            t0 = time.monotonic()
            p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)        # smrun takes the ranks with it
            p.communicate()
            raise
        res = Result(p.returncode, out.decode(errors="replace"), err.decode(errors="replace"),
                     time.monotonic() - t0)
        self.assertEqual(self.session(p.pid), [], "processes of the job survived smrun")
        return res

    def test_segfault(self):
        for n in ("2", "8"):
            res = self.job(["-n", n, self.prog, "segv"])
            self.assert_one_cause(res, r"smrun: rank 1 \(pid \d+\) killed by SIGSEGV( \(core dumped\))?", 139)

    def test_early_exit(self):
        res = self.job(["-n", "4", self.prog, "exit3"])
        self.assert_one_cause(res, r"smrun: rank 1 \(pid \d+\) exited with code 3", 3)

    def test_exit_without_finalize(self):
        res = self.job(["-n", "4", self.prog, "nofinalize"])
        self.assert_one_cause(res, r"smrun: rank 1 \(pid \d+\) exited without calling MPI_Finalize", 1)

    def test_hang_past_timeout(self):
        res = self.job(["-n", "4", "--timeout", "0.5", self.prog, "hang"])
        self.assertEqual(res.rc, 124, res.err)
        self.assertEqual(res.smrun_lines(), ["smrun: job exceeded --timeout 0.5 s; killing 4 ranks"], res.err)
        self.assertLess(res.elapsed, 0.5 + ENDS_WITHIN)

    def test_rank_without_smartmap(self):
        # A rank that never initialises smartmap strands those waiting for it
        # before main(): the job ends at once and says why, whichever starts first.
        for args in ([self.prog, "ok", ":", "-n", "1", "/bin/true"],
                     ["/bin/true", ":", "-n", "1", self.prog, "ok"]):
            res = self.job(["-n", "2"] + args)
            self.assert_one_cause(res, r"smrun: rank \d \(pid \d+\) exited without initialising smartmap, "
                                  r"and rank \d waits for it at start-up: .*-lsmartmap.*", 1)
        # A rank run through a shell that starts a smartmap program is fine.
        res = self.job(["-n", "3", "/bin/sh", "-c", self.prog + " ok; true"])
        self.assertEqual((res.rc, res.err), (0, ""))

    def test_sigint_and_sigterm(self):
        for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
            res = self.job(["-n", "4", self.prog, "hang"], sig=sig)
            self.assertEqual(res.rc, 128 + sig, res.err)
            self.assertEqual(res.err.splitlines(), ["smrun: received %s; ending the job" % name])
            self.assertLess(res.elapsed, ENDS_WITHIN)


class TestBadArguments(SmrunTest):
    def check(self, args, pattern):
        res = self.run_smrun(args)
        self.assertEqual(res.rc, 2, "%s: %s" % (args, res.err))
        self.assertEqual(res.out, "", args)
        lines = res.err.splitlines()
        self.assertEqual(len(lines), 1, "%s: one line expected: %r" % (args, res.err))
        self.assertRegex(lines[0], "^smrun: " + pattern, args)
        self.assertEqual(self.records(), [], "%s: a rank was started" % args)

    def test_bad_arguments(self):
        data = os.path.join(self.dir, "data.txt")
        with open(data, "w") as f:
            f.write("not a program\n")
        os.chmod(data, 0o644)
        cases = [
            (["-n", "0", LT_RANK], r"-n: '0' is not a positive integer$"),
            (["-n", "abc", LT_RANK], r"-n: 'abc' is not a positive integer$"),
            (["-n", "-3", LT_RANK], r"-n: '-3' is not a positive integer$"),
            (["-n", "2x", LT_RANK], r"-n: '2x' is not a positive integer$"),
            (["-n", str(SM_NMAX + 1), LT_RANK], r"-n: %d .*%d" % (SM_NMAX + 1, SM_NMAX)),
            (["-n", "200", LT_RANK, ":", "-n", "200", LT_RANK], r"-n: 400 .*%d" % SM_NMAX),
            ([], r"no program"),
            (["-n", "2"], r"no program"),
            (["-n", "2", LT_RANK, "hello", ":"], r".*no program"),
            (["-n", "2", "./nope"], r"\./nope: no such file$"),
            (["-n", "2", data], re.escape(data) + r": not executable$"),
            (["-n", "2", self.dir], re.escape(self.dir) + r": is a directory$"),
            (["-n", "2", "no-such-command-smrun-test"], r"no-such-command-smrun-test: command not found"),
            (["--bogus", LT_RANK], r"unknown option '--bogus'"),
            (["-q", LT_RANK], r"unknown option '-q'"),
            (["--mem-per-rank", "lots", LT_RANK], r"--mem-per-rank: 'lots' is not a size"),
            (["--mem-per-rank", "1.5Q", LT_RANK], r"--mem-per-rank: '1.5Q' is not a size"),
            (["--mem-per-rank", "-1G", LT_RANK], r"--mem-per-rank: '-1G' is not a size"),
            (["--mem-per-rank", "32M", LT_RANK], r"--mem-per-rank: '32M' is below the minimum"),
            (["--mem-per-rank", "1T", LT_RANK], r"--mem-per-rank: '1T' is above the maximum"),
            (["--pages", "1g", LT_RANK], r"--pages: '1g' is not 4k or 2m$"),
            (["--bind-to", "socket", LT_RANK], r"--bind-to: 'socket' is not core or none$"),
            (["--timeout", "abc", LT_RANK], r"--timeout: 'abc' is not a positive number"),
            (["--timeout", "0", LT_RANK], r"--timeout: '0' is not a positive number"),
            (["--timeout", "-5", LT_RANK], r"--timeout: '-5' is not a positive number"),
            (["--timeout", "99999999999", LT_RANK], r"--timeout: '99999999999' is too large \(at most 100000000 "),
            (["-n", "3", "-n", "4", LT_RANK], r"-n: given twice in app context 1 \(3 and 4\)$"),
            (["-n", "1", LT_RANK, ":", "-np", "2", "-n", "1", LT_RANK], r"-n: given twice in app context 2 \(2 and 1\)$"),
            (["--mem-per-rank", "1G", "--mem-per-rank", "2G", LT_RANK],
             r"--mem-per-rank: given twice in app context 1 \('1G' and '2G'\)$"),
            # The job's options belong before the first program, not after ':'.
            (["-n", "1", LT_RANK, ":", "--timeout", "5", LT_RANK],
             r"--timeout is an option of the whole job: give it before the first program, not in app context 2"),
            (["-n", "1", LT_RANK, ":", "-n", "1", "-tag-output", LT_RANK], r"--tag-output is an option of the whole job"),
            (["-n", "1", LT_RANK, ":", "-v", LT_RANK], r"-v is an option of the whole job"),
            (["-n", "1", LT_RANK, ":", "--preload", LT_RANK], r"--preload is an option of the whole job"),
            (["-n", "2", "--timeout"], r"--timeout: needs a value$"),
            (["-x", "1BAD=x", LT_RANK], r"-x: '1BAD=x'"),
        ]
        for args, pattern in cases:
            with self.subTest(args=args):
                self.check(args, pattern)


def main():
    global SMRUN, BINDIR, PRELOAD_LIB, LT_RANK, LT_CTRL
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smrun", required=True)
    ap.add_argument("--bindir", required=True, help="where lt_rank and lt_ctrl are")
    ap.add_argument("--preload-lib", help="a shared library to stand in for libsmartmap.so")
    opts, rest = ap.parse_known_args()
    SMRUN = os.path.abspath(opts.smrun)
    BINDIR = os.path.abspath(opts.bindir)
    PRELOAD_LIB = opts.preload_lib and os.path.abspath(opts.preload_lib)
    LT_RANK = os.path.join(BINDIR, "lt_rank")
    LT_CTRL = os.path.join(BINDIR, "lt_ctrl")
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
