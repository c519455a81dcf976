#!/usr/bin/env python3
"""mpi4py's own test suite against smartmap, as a new user would run it.

  mpi4py_suite.py build BUILD_DIR CACHE_DIR
      Build mpi4py from the source distribution scripts/setup.sh downloaded
      into CACHE_DIR (with the wheels its build needs, so no network here)
      into a virtual environment under BUILD_DIR/mpi4py, with
      MPICC=BUILD_DIR/bin/smcc and -O0 (lean: the suite exercises MPI, not
      mpi4py's speed). Done once: done again only when the sdist or
      include/mpi.h changes (mpi4py's configure probes which routines
      exist). Exit 77 (ctest: skipped) when the sdist is not there.
  mpi4py_suite.py run BUILD_DIR CACHE_DIR EXCLUDE_FILE [main.py args...]
      Run the suite's test/main.py in that environment (under smrun: the
      caller's command line), leaving out what EXCLUDE_FILE lists.

EXCLUDE_FILE: one entry a line, '#' starts a comment. "module test_x" leaves
out a whole module (main.py -e); any other entry is a test name pattern
(main.py -x: a substring of "module.Class.test", or a glob).
"""
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import venv

VERSION = "4.1.2"
SKIP = 77


def sdist(cache):
    return pathlib.Path(cache) / f"mpi4py-{VERSION}.tar.gz"


def stamp_of(build, cache):
    h = hashlib.sha256(sdist(cache).read_bytes())
    src = pathlib.Path(__file__).resolve().parents[2]
    h.update((src / "include" / "mpi.h").read_bytes())
    return h.hexdigest()


def build(build_dir, cache):
    build_dir = pathlib.Path(build_dir).resolve()
    tgz = sdist(cache)
    if not tgz.exists():
        print(f"skipped: {tgz} not found (scripts/setup.sh downloads it when PyPI is reachable)")
        return SKIP
    top = pathlib.Path(build_dir) / "mpi4py"
    stamp = top / "stamp"
    want = stamp_of(build_dir, cache)
    if stamp.exists() and stamp.read_text() == want:
        print(f"mpi4py {VERSION}: already built in {top}")
        return 0
    shutil.rmtree(top, ignore_errors=True)
    top.mkdir(parents=True)
    with tarfile.open(tgz) as t:   # the suite: test/ of the sdist
        members = [m for m in t.getmembers() if m.name.startswith(f"mpi4py-{VERSION}/test/")]
        t.extractall(top, members=members, filter="data") if hasattr(tarfile, "data_filter") \
            else t.extractall(top, members=members)
    venv.create(top / "venv", with_pip=True)
    pip = [str(top / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index",
           "--find-links", str(cache)]
    env = dict(os.environ, MPICC=str(pathlib.Path(build_dir) / "bin" / "smcc"), CFLAGS="-O0",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run(pip + ["cython", "setuptools", "wheel"], check=True, env=env)
    subprocess.run(pip + ["--no-build-isolation", "--no-binary", "mpi4py", "--no-deps", str(tgz)], check=True,
                   env=env)
    stamp.write_text(want)
    print(f"mpi4py {VERSION}: built in {top}")
    return 0


def run(build_dir, cache, exclude_file, rest):
    top = pathlib.Path(build_dir).resolve() / "mpi4py"
    if not sdist(cache).exists():
        print(f"skipped: {sdist(cache)} not found (scripts/setup.sh downloads it when PyPI is reachable)")
        return SKIP
    args = []
    for line in pathlib.Path(exclude_file).read_text().splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry.startswith("module "):
            args += ["-e", r"(^|/)" + entry.split()[1] + r"\.py$"]
        elif entry:
            args += ["-x", entry]
    test = top / f"mpi4py-{VERSION}" / "test"
    py = top / "venv" / "bin" / "python"
    os.chdir(test)   # exec, not a child: smrun's rank is the process that calls MPI_Init
    os.execv(str(py), [str(py), "main.py", "--no-builddir"] + args + rest)


def main(argv):
    if len(argv) >= 3 and argv[0] == "build":
        return build(argv[1], argv[2])
    if len(argv) >= 4 and argv[0] == "run":
        return run(argv[1], argv[2], argv[3], argv[4:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
