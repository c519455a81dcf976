#!/usr/bin/env python3
"""Tests of tools/smbench: test_smbench.py quick|failure|compare SMBENCH BUILD_DIR WORK_DIR.
Checks files, rows, messages and exit codes; never timings."""
import json, os, shutil, subprocess, sys

test, smbench, build, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what)


def run(*args):
    r = subprocess.run([sys.executable, smbench] + list(args), capture_output=True, text=True, timeout=170)
    print("$ smbench %s -> exit %d\n%s" % (" ".join(args), r.returncode, r.stderr[-3000:]))
    return r


def mpis():
    """The MPI implementations smbench should have found on this machine."""
    return [n for n, cc, run in (("openmpi", "mpicc.openmpi", "mpirun.openmpi"), ("mpich", "mpicc.mpich", "mpiexec.mpich"))
            if shutil.which(cc) and shutil.which(run)]


def results(out):
    try:
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, "results.json: %s" % e)
        print("FAILED")
        sys.exit(1)


if test == "quick":
    out = os.path.join(work, "out")
    r = run("--quick", "--suite", "substrate,p2p,coll,shmem", "--sizes", "8,1K,16K", "--reps", "2", "--build-dir", build, "--out", out)
    check(r.returncode == 0, "exit 0")
    data = results(out)
    impls = {s["impl"] for s in data["samples"]}
    want = {"smartmap", "smartmap-cma", "smartmap-copy", "raw-memfd", "store-limit", "memcpy"} | set(mpis())
    check(impls == want, "implementations in results.json: %s, want %s" % (sorted(impls), sorted(want)))
    check({s["size"] for s in data["samples"] if s["metric"] == "pp_lat"} == {8, 1024, 16384}, "--sizes kept 8, 1K, 16K")
    put = {s["impl"] for s in data["samples"] if s["metric"] == "put_lat"}
    check(put == {"smartmap"} | set(mpis()), "put latency for smartmap and every MPI: %s" % sorted(put))
    check(set(data["machine"]["libraries"]) == {"smartmap", "cc"} | set(mpis()), "a version for every library")
    report = open(os.path.join(out, "report.md")).read()
    for i in want:
        check("| %s " % i in report or " %s |" % i in report, "report.md has a column for " + i)
    coll = {(s["metric"], s["size"]) for s in data["samples"] if s["impl"] == "smartmap" and s["suite"] == "coll"}
    want_coll = {("coll_barrier", 0)} | {("coll_" + c, n) for c in ("bcast", "reduce", "allreduce", "allgather", "alltoall")
                                        for n in (1024, 16384)}
    check(coll == want_coll, "collectives measured at the sizes kept: %s" % sorted(coll ^ want_coll))
    for m in ("pp_lat", "pp_bw", "msgrate", "sendrecv", "exchange", "flag_pingpong", "put_quiet", "get_bw", "put_lat", "put_pingpong",
              "coll_barrier", "coll_bcast", "coll_allreduce", "coll_alltoall"):
        png = os.path.join(out, "%s_2ranks.png" % m)
        check(os.path.getsize(png) > 10000 if os.path.exists(png) else False, "plot " + png)
        check("(%s_2ranks.png)" % m in report, "report.md shows " + m)
    check("### PingPong latency, 2 ranks" in r.stdout, "terminal tables")
    check("CPU:" in report and "kernel:" in report, "machine described")
elif test == "failure":
    # a competitor that crashes, smartmap-copy that hangs: both reported, the rest measured, exit 1
    victim = (mpis() or ["smartmap-cma"])[0]
    out = os.path.join(work, "out")
    r = run("--quick", "--suite", "p2p,coll", "--sizes", "1K", "--reps", "2", "--timeout", "3", "--build-dir", build,
            "--out", out, "--inject-fail", victim, "--inject-hang", "smartmap-copy")
    check(r.returncode == 1, "exit 1 when smartmap failed")
    data = results(out)
    failed = {(f["impl"], f["benchmark"]) for f in data["failures"]}
    for b in ("PingPong", "IMB Sendrecv/Exchange", "Collectives"):
        check((victim, b) in failed, "crash of %s in %s reported" % (victim, b))
        check(("smartmap-copy", b) in failed, "hang of smartmap-copy in %s reported" % b)
    check(any("injected crash" in f["stderr"] and "signal" in f["reason"] for f in data["failures"]), "stderr and signal kept")
    check(any("timeout" in f["reason"] for f in data["failures"]), "hang reported as such")
    impls = {s["impl"] for s in data["samples"]}
    check({"smartmap", "smartmap-cma"} <= impls and victim not in impls and "smartmap-copy" not in impls,
          "the others were measured: %s" % sorted(impls))
    report = open(os.path.join(out, "report.md")).read()
    check("## Failures" in report and "injected crash" in report, "report.md lists the failures")
    check("smartmap failed" in r.stderr, "says smartmap failed")
    r = run("--quick", "--suite", "rma", "--build-dir", build, "--out", os.path.join(work, "out3"))
    check("suite rma is not yet available" in r.stderr, "rma listed as not yet available")
    # a failing competitor alone does not make the run fail; a missing MPI is reported and skipped
    os.environ["SMBENCH_MPICC_MPICH"] = "no-such-mpicc"
    r = run("--quick", "--suite", "p2p", "--sizes", "1K", "--reps", "1", "--build-dir", build,
            "--out", os.path.join(work, "out2"), "--inject-fail", "openmpi")
    check(r.returncode == 0, "exit 0 when only a competitor failed")
    check("no-such-mpicc not found: mpich skipped" in r.stderr, "missing MPI reported")
    data = results(os.path.join(work, "out2"))
    check("mpich" in data["skipped"] and "mpich" not in {s["impl"] for s in data["samples"]}, "missing MPI skipped")
    check("- mpich: skipped" in open(os.path.join(work, "out2", "report.md")).read(), "report.md lists the skipped MPI")
elif test == "compare":
    def sample(impl, v):
        return {"suite": "p2p", "metric": "pp_lat", "ranks": 2, "impl": impl, "size": 8, "rep": 0, "value": v}
    for name, v in (("old", 1.0), ("new", 0.5)):
        with open(os.path.join(work, name + ".json"), "w") as f:
            json.dump({"format": 1, "samples": [sample("smartmap", v), sample("mpich", 2.0)]}, f)
    r = run("compare", os.path.join(work, "old.json"), os.path.join(work, "new.json"))
    check(r.returncode == 0, "compare exit 0")
    check("| pp_lat | 2 | smartmap | 8 | 1 | 0.5 | +100% better |" in r.stdout, "smartmap 2x faster shown:\n" + r.stdout)
    check("| pp_lat | 2 | mpich | 8 | 2 | 2 | same |" in r.stdout, "unchanged mpich shown")
    r = run("compare", os.path.join(work, "old.json"), os.path.join(work, "missing.json"))
    check(r.returncode == 2 and "cannot read" in r.stderr and "missing.json" in r.stderr, "missing file: message, exit 2")
    r = run("--suite", "p2p,bogus")
    check(r.returncode == 2 and "unknown suite bogus" in r.stderr, "bad suite: message, exit 2")
    r = run("--ranks", "1")
    check(r.returncode == 2 and "ranks must be 2..256" in r.stderr, "bad ranks: message, exit 2")
    r = run("--sizes", "8,lots")
    check(r.returncode == 2 and "bad size 'lots'" in r.stderr, "bad size: message, exit 2")
else:
    sys.exit("test_smbench.py: unknown test %r" % test)
print("FAILED: %d check(s)" % len(fails) if fails else "ok")
sys.exit(1 if fails else 0)
