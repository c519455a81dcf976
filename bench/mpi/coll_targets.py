#!/usr/bin/env python3
"""coll_targets.py: issue 12's collective targets checked on an smbench run
(tools/smbench --suite coll --ranks 2,4 ...; its results.json):
  2 ranks: smartmap against the better of Open MPI and MPICH, per size, and
  the geometric mean over Bcast, Reduce, Allreduce, Allgather, Alltoall at
  4 KiB, 64 KiB and 1 MiB (target: at least 2x); every case from 8 B
  (target: none slower);
  4 ranks: smartmap against Open MPI at 4 B (smbench's sizes go by 4: its
  8 B), 4 KiB and 64 KiB (target: none slower).
Medians of the run's samples (--best: the fastest sample, which on a loaded
machine says more about what the code can do than about what a user gets);
a factor is baseline time / smartmap time.
  coll_targets.py [--best] RESULTS.json"""
import json, math, statistics, sys

OPS = ("bcast", "reduce", "allreduce", "allgather", "alltoall")


def main():
    args = sys.argv[1:]
    best = "--best" in args
    args = [a for a in args if a != "--best"]
    if len(args) != 1:
        sys.exit(__doc__)
    with open(args[0]) as f:
        data = json.load(f)
    samples = data["samples"] if isinstance(data, dict) else data
    med = {}
    for s in samples:
        if s.get("suite") == "coll":
            med.setdefault((s["metric"], s["ranks"], s["size"], s["impl"]), []).append(s["value"])
    med = {k: (min(v) if best else statistics.median(v)) for k, v in med.items()}
    print("statistic: " + ("the fastest sample" if best else "the median") + " of each implementation's samples")
    sizes = sorted({k[2] for k in med})

    def t(metric, n, size, impl):
        return med.get(("coll_" + metric, n, size, impl))

    print("2 ranks: factor = the better of Open MPI and MPICH / smartmap (above 1: smartmap faster)")
    print("%-10s" % "bytes" + "".join("%10s" % o for o in ("barrier",) + OPS))
    geo, slower = [], []
    for size in sizes:
        row = []
        for o in ("barrier",) + OPS:
            sm, base = t(o, 2, size, "smartmap"), [t(o, 2, size, b) for b in ("openmpi", "mpich")]
            base = [b for b in base if b]
            if not sm or not base:
                row.append("%10s" % "-")
                continue
            fac = min(base) / sm
            row.append("%10.2f" % fac)
            if o in OPS and size in (4096, 65536, 1 << 20):
                geo.append(fac)
            if fac < 1:
                slower.append("%s %d B: %.2f" % (o, size, fac))
        print("%-10d" % size + "".join(row))
    if geo:
        print("geometric mean at 4 KiB, 64 KiB, 1 MiB over %d cases: %.2f (target 2)" %
              (len(geo), math.exp(sum(map(math.log, geo)) / len(geo))))
    print("slower than the better baseline: " + (", ".join(slower) if slower else "none"))

    print("\n4 ranks on 2 cores: factor = Open MPI / smartmap")
    slower = []
    for size in sizes:
        row = []
        for o in ("barrier",) + OPS:
            sm, base = t(o, 4, size, "smartmap"), t(o, 4, size, "openmpi")
            if not sm or not base:
                row.append("%10s" % "-")
                continue
            row.append("%10.2f" % (base / sm))
            if base < sm and (o == "barrier" or size in (4, 4096, 65536)):
                slower.append("%s %d B: %.2f" % (o, size, base / sm))
        print("%-10d" % size + "".join(row))
    print("slower than Open MPI (4 B, 4 KiB, 64 KiB, barrier): " + (", ".join(slower) if slower else "none"))


if __name__ == "__main__":
    main()
