"""test_bench.py - tests of scripts/bench, collected by run.py.

The argument checks run no allocator: each bad call must exit with status
2 and say what is wrong, before anything is booted or timed.  The verdict
cases run the real host builds (make bench's binaries, built here if
missing) without QEMU (--no-kernel), without callgrind and with one peer,
on the first lines of the shipped trace, which takes seconds: on 2 MiB the
allocators run out of memory and bench must count the failures and exit
1; on 32 MiB the same run is clean and exits 0, the allocators take next
to no host page fault (their RAM is backed before the replay), and
neither does glibc in its timed pass (it is timed after a warm-up pass).
The allocators run are ALLOCATORS (--allocators): every one of
scripts/allocators.py.
Where the host runs no i386 program (scripts/i386_probe.py), the same
runs use the 64-bit builds (bench-timed-64), and the word-size row must
say so.
"""
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
SCRIPT = os.path.join(ROOT, "scripts", "bench")
SHIPPED = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
BUILD = os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from i386_probe import probe  # noqa: E402
import allocators  # noqa: E402

CASES = []
ALLOCATORS = tuple(allocators.present())


def case(fn):
    fn.__name__ = "bench_" + fn.__name__
    CASES.append(fn)
    return fn


def bench(*args):
    return subprocess.run([PY, SCRIPT] + list(args), capture_output=True, text=True)


def first_lines(path, n):
    with gzip.open(SHIPPED, "rt") as src, open(path, "w") as dst:
        for i, text in enumerate(src):
            if i == n:
                break
            dst.write(text)


@case
def refuses_bad_arguments():
    problems, log = [], ""
    with tempfile.TemporaryDirectory() as tmp:
        bad_trace = os.path.join(tmp, "bad.ftrace")
        with open(bad_trace, "w") as f:
            f.write("this is no ftrace line\n")
        small = os.path.join(tmp, "small.ftrace")
        first_lines(small, 200)
        out = os.path.join(tmp, "out")
        for args, want in (
                (["--runs", "0"], "at least one run"),
                (["--mem", "1"], "at least 2 MiB"),
                (["--trace", os.path.join(tmp, "none.ftrace")], "cannot read the trace"),
                (["--peers", "glibc,tcmalloc"], "unknown peer 'tcmalloc'"),
                (["--trace", bad_trace, "--out", out], "bad.ftrace:1:"),
                (["--trace", small, "--out", out, "--build", tmp], "is missing: build it"),
                (["--frobnicate"], "unrecognized arguments")):
            r = bench(*args)
            log += f"$ bench {' '.join(args)}\n{r.stdout}{r.stderr}"
            if r.returncode != 2:
                problems.append(f"{args}: exit status {r.returncode}, expected 2")
            if want not in r.stderr:
                problems.append(f"{args}: stderr lacks {want!r}")
            if "Traceback" in r.stderr:
                problems.append(f"{args}: a Python traceback")
    return problems, log


def host_builds(twin):
    """Builds the host binaries small_run uses (nothing if they are up to date)."""
    host = os.path.join(BUILD, "host")
    for config in ALLOCATORS:
        programs = [f"bench-timed{twin}"] + (["peer-glibc"] if config == "slab" else [])
        r = subprocess.run(["make", "-s", "-f", os.path.join(ROOT, "tests/host/Makefile"),
                            f"CONFIG={config}"] + [os.path.join(host, config, p) for p in programs],
                           capture_output=True, text=True)
        if r.returncode:
            return r.stdout + r.stderr
    return None


def small_run(tmp, mem):
    trace = os.path.join(tmp, "small.ftrace")
    if not os.path.exists(trace):
        first_lines(trace, 60000)
    return bench("--no-kernel", "--no-callgrind", "--mem", str(mem), "--runs", "2",
                 "--peers", "glibc", "--allocators", ",".join(ALLOCATORS), "--trace", trace,
                 "--build", BUILD,
                 "--out", os.path.join(tmp, f"out-{mem}"))


def row(text, label):
    """The cells of the table row that starts with label."""
    for line in text.splitlines():
        if line.strip().startswith(label):
            return line.strip()[len(label):].split()
    return None


@case
def verdict_counts_failures():
    bits = 32 if probe()[0] else 64
    err = host_builds("" if bits == 32 else "-64")
    if err:
        return ["the host build failed"], err
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        small, clean = small_run(tmp, 2), small_run(tmp, 32)
    width = row(clean.stdout, "word size")
    if not width or width[:len(ALLOCATORS)] != [f"{bits}-bit"] * len(ALLOCATORS):
        problems.append(f"the allocators should run their {bits}-bit builds here, "
                        f"the word-size row reads {width}")
    failures = row(small.stdout, "allocation failures")
    if small.returncode != 1:
        problems.append(f"2 MiB: exit status {small.returncode}, expected 1")
    if not failures or "0" in failures[:len(ALLOCATORS)]:
        problems.append(f"2 MiB: the allocators should count failures, the row reads {failures}")
    for name in ("SLAB", "SLUB", "SLOB"):
        if f"bench: FAILED: {name}: " not in small.stdout:
            problems.append(f"2 MiB: no FAILED line for {name}")
    if clean.returncode != 0:
        problems.append(f"32 MiB: exit status {clean.returncode}, expected 0")
    for label in ("allocation failures", "corruptions"):
        if row(clean.stdout, label) != ["0"] * (len(ALLOCATORS) + 1):	# and glibc
            problems.append(f"32 MiB: {label} row reads {row(clean.stdout, label)}")
    for label in ("per allocation, median of 2 runs", "allocation p99", "held (kB)"):
        cells = row(clean.stdout, label)
        if not cells or len(cells) < len(ALLOCATORS) + 1 or "-" in cells[:len(ALLOCATORS) + 1]:
            problems.append(f"32 MiB: row {label!r} incomplete: {cells}")
    if "FAILED" in clean.stdout:
        problems.append("32 MiB: a FAILED line")
    faults = row(clean.stdout, "host page faults in the timed replay")
    if not faults or not all(f.isdigit() and int(f) < 100 for f in faults[:len(ALLOCATORS)]):
        problems.append(f"32 MiB: the allocators took host page faults in the replay "
                        f"(is the RAM not backed beforehand?): {faults}")
    # glibc is timed on a second pass, its heap kept from the first (docs/goals.md):
    # without the warm-up it took about 1,700 faults on this trace, 140 with it
    glibc = len(ALLOCATORS)
    if not faults or len(faults) <= glibc or not faults[glibc].isdigit() or int(faults[glibc]) > 600:
        problems.append(f"32 MiB: glibc took host page faults in its timed replay (was it not "
                        f"warmed up first?): {faults}")
    return problems, small.stdout + small.stderr + clean.stdout + clean.stderr
