#!/usr/bin/env python3
"""universe.py: two separately started smrun jobs in one universe (smrun
--universe NAME / --join NAME) running mpi_universe (test_universe.c), one
case per run, and afterwards nothing of either job left: no process, no
abstract socket.

Run: python3 universe.py --smrun build/bin/smrun --prog build/tests/mpi/mpi_universe CASE [N M]
CASE: ok N M (server ranks, client ranks), client_die N M, server_die N M,
stale N M, pending, nobody, noslots, spawn N M."""
import argparse
import os
import re
import subprocess
import sys
import threading
import time

A = None
MARK = "SMTEST_UNIVERSE_MARK"
LIMIT = 90              # seconds a job may take here before it counts as hung


class Job:
    """An smrun in the background; its stdout and stderr read as they come."""

    def __init__(self, name, args, stdin=False):
        self.name = name
        env = dict(os.environ)
        env[MARK] = A.mark
        self.p = subprocess.Popen([A.smrun, "--timeout", str(LIMIT)] + args, env=env,
                                  stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.cv = threading.Condition()
        self.threads = [threading.Thread(target=self.read, args=(self.p.stdout, self.out), daemon=True),
                        threading.Thread(target=self.read, args=(self.p.stderr, self.err), daemon=True)]
        for t in self.threads:
            t.start()

    def read(self, f, into):
        for line in f:
            with self.cv:
                into.append(line.rstrip("\n"))
                self.cv.notify_all()

    def wait_line(self, text):
        t0 = time.monotonic()
        with self.cv:
            while text not in self.out:
                if self.p.poll() is not None and not any(t.is_alive() for t in self.threads):
                    break
                self.cv.wait(0.1)
                if time.monotonic() - t0 > LIMIT:
                    break
        if text not in self.out:
            fail("%s never printed %r" % (self.name, text), self)

    def close_stdin(self):
        self.p.stdin.close()

    def finish(self):
        try:
            rc = self.p.wait(LIMIT + 30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        for t in self.threads:
            t.join(10)
        self.rc = rc
        return rc

    def text(self):
        return "--- %s rc %s\nstdout:\n%s\nstderr:\n%s\n" % (self.name, getattr(self, "rc", "?"),
                                                            "\n".join(self.out), "\n".join(self.err))


def fail(why, *jobs):
    sys.stderr.write("FAIL: %s\n" % why)
    for j in jobs:
        sys.stderr.write(j.text())
    sys.exit(1)


def smrun_lines(job):
    return [l for l in job.err if l.startswith("smrun: ")]


def expect(job, rc, *patterns):
    """rc (an int, or a set of them) and exactly one smrun line per pattern
    given (none if no pattern), each matching it."""
    job.finish()
    if (job.rc not in rc) if isinstance(rc, set) else job.rc != rc:
        fail("%s exited %d, want %s" % (job.name, job.rc, rc), job)
    lines = smrun_lines(job)
    if len(lines) != len(patterns) or not all(re.fullmatch(p, l) for p, l in zip(patterns, lines)):
        fail("%s's smrun lines %r do not match %r" % (job.name, lines, patterns), job)


def nothing_left(name):
    """No process carries the mark, no abstract socket of the universe (or of
    the test's join) is bound: both jobs cleaned up. Ended jobs' processes
    may take a moment to be reaped by their smrun's guardian."""
    t0 = time.monotonic()
    while True:
        procs, socks = [], []
        mark = ("\0%s=%s\0" % (MARK, A.mark)).encode()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as f:
                    if mark in b"\0" + f.read():
                        procs.append(pid)
            except OSError:
                pass
        with open("/proc/net/unix") as f:
            for line in f:
                if ("@smartmap-universe.%d.%s" % (os.getuid(), name)) in line or \
                   ("@smartmap-test-join.%s" % name) in line:
                    socks.append(line.split()[-1])
        if not procs and not socks:
            return
        if time.monotonic() - t0 > 10:
            fail("left behind: processes %s, sockets %s" % (procs, socks))
        time.sleep(0.05)


def server(name, n, size, role="server"):
    return Job("server", ["--universe", name, "--universe-size", str(size), "-n", str(n), A.prog, role, name],
               stdin=role == "server_wait")


def client(name, m, role="client", stdin=False):
    return Job("client", ["--join", name, "-n", str(m), A.prog, role, name], stdin=stdin)


DIED = r"smrun: rank %d \(pid \d+\) killed by SIGKILL"
LINKED = (r"smrun: rank \d+ \(pid \d+\) is connected to process \d+ of another job in the universe \(slot \d+\), "
          r"which exited without calling MPI_Finalize; ending this job")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--smrun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("case")
    ap.add_argument("n", type=int, nargs="?", default=1)
    ap.add_argument("m", type=int, nargs="?", default=1)
    A = ap.parse_args()
    name = "t%d-%s" % (os.getpid(), A.case)
    A.mark = name
    n, m = A.n, A.m

    if A.case == "ok":
        s = server(name, n, n + m)
        s.wait_line("ready")
        c = client(name, m)
        expect(c, 0)
        expect(s, 0)
        for j, done in ((s, "server done"), (c, "client done")):
            if done not in j.out:
                fail("%s did not say %r" % (j.name, done), j)
    elif A.case == "client_die":
        s = server(name, n, n + m)
        s.wait_line("ready")
        c = client(name, m, "client_die")
        expect(c, 137, DIED % (m - 1))
        expect(s, 1, LINKED)
    elif A.case == "server_die":
        s = server(name, n, n + m, "server_die")
        s.wait_line("ready")
        c = client(name, m)
        expect(s, 137, DIED % (n - 1))
        expect(c, 1, LINKED)
    elif A.case == "stale":
        # The first job ends while the second runs: the second goes on, its
        # stale name and port are errors, the name service still works.
        s = server(name, n, n + m, "server_wait")
        s.wait_line("ready")
        c = client(name, m, "client_stale", stdin=True)
        c.wait_line("joined")
        s.close_stdin()
        expect(s, 0)
        c.close_stdin()
        expect(c, 0)
        if "stale ok" not in c.out:
            fail("the client did not say 'stale ok'", c)
        # and nobody serves the universe any more
        late = client(name, 1)
        expect(late, 1, r"smrun: --join %s: no smrun of this user serves universe '%s' .*" % (name, name))
    elif A.case == "pending":
        # A connect under way when the server's job ends (it never accepts):
        # the client's job ends; if the server ended before the connect
        # began, the connect fails instead (its port's owner has exited).
        s = server(name, 1, 2, "server_wait")
        s.wait_line("ready")
        c = client(name, 1, "client_connect")
        c.wait_line("connecting")
        time.sleep(1)                            # (not timed: either ending is right)
        s.close_stdin()
        expect(s, 0)
        c.finish()
        lines = smrun_lines(c)
        handshake = (r"smrun: rank 0 \(pid \d+\) waits for a connection with process \d+ of another job in the "
                     r"universe \(slot 0\), which has exited; ending this job")
        refused = r"smrun: rank 0 \(pid \d+\) MPI_ERRORS_ARE_FATAL in MPI_Comm_connect.*"
        if c.rc == 0 or len(lines) != 1 or not (re.fullmatch(handshake, lines[0]) or re.fullmatch(refused, lines[0])):
            fail("the pending connect did not end the client's job with one line", c)
        if re.fullmatch(refused, lines[0]) and not any("its owner has exited" in l for l in c.err):
            fail("the refused connect does not say why", c)
    elif A.case == "spawn":
        # A joined job spawns: the slots come from the first job's smrun,
        # the children belong to the joined job (its output, its end).
        s = server(name, n, n + m + 2, "server_wait")
        s.wait_line("ready")
        c = client(name, m, "client_spawn")
        expect(c, 0)
        for done in ("spawner done", "spawned done"):
            if done not in c.out:
                fail("the joined job did not say %r" % done, c)
        s.close_stdin()
        expect(s, 0)
        if "spawned done" in s.out:
            fail("the spawned processes' output went to the first job", s)
    elif A.case == "nobody":
        c = client(name, 2)
        expect(c, 1, r"smrun: --join %s: no smrun of this user serves universe '%s' \(start the first job with "
                     r"smrun --universe %s --universe-size U\)" % (name, name, name))
        if c.err != smrun_lines(c):
            fail("more than the one line", c)
    elif A.case == "noslots":
        s = server(name, 2, 3, "server_wait")
        s.wait_line("ready")
        c = client(name, 2)
        expect(c, 1, r"smrun: --join %s: 2 processes asked for, but 1 of the universe's 3 slots is free "
                     r"\(smrun --universe-size; each slot is used once\)" % name)
        if c.err != smrun_lines(c):
            fail("more than the one line", c)
        # the same name served twice
        twice = Job("second server", ["--universe", name, "-n", "1", A.prog, "server", name])
        expect(twice, 1, r"smrun: --universe %s: another smrun of this user serves that universe already" % name)
        # the free slot is still there
        c1 = client(name, 1, "client_stale", stdin=True)
        c1.wait_line("joined")
        s.close_stdin()
        expect(s, 0)
        c1.close_stdin()
        expect(c1, 0)
    else:
        fail("unknown case %s" % A.case)
    nothing_left(name)
    print("ok: %s %d %d" % (A.case, n, m))


if __name__ == "__main__":
    main()
