#!/usr/bin/python3
"""common.py - what the system test files share: where the build is, the
kernels and traces they boot, QEMU runs and sessions, and the checks of
their output.  tests/system/run.py is the runner; each test_*.py file
holds the cases of one concern and lists them in its CASES.
"""
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from qemu_console import QemuConsole  # noqa: E402
from serial_log import read_log, strip  # noqa: E402

PY = "/usr/bin/python3"
TRACE = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
BUILD = os.path.join(ROOT, "build")    # run.py --build changes it


def build_path(*parts):
    """A path under the build directory (run.py --build)."""
    return os.path.join(BUILD, *parts)


def kernel(alloc):
    return build_path(alloc, "vmlinux")


def work(name):
    d = build_path("system")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def small_trace():
    """A replay file of the first 6000 lines of the shipped trace (fast to replay)."""
    out = work("small.replay")
    if not os.path.exists(out):
        text = work("small.ftrace")
        with gzip.open(TRACE, "rt") as f, open(text, "w") as g:
            for i, line in enumerate(f):
                if i >= 6000:
                    break
                g.write(line)
        subprocess.run([PY, os.path.join(ROOT, "scripts/trace2replay"), "--quiet", "-o", out, text],
                       check=True, capture_output=True)
    return out


def full_trace():
    """The shipped trace as a replay file, with the converter's statistics."""
    out, stats = work("full.replay"), work("full.json")
    if not os.path.exists(out) or not os.path.exists(stats):
        subprocess.run([PY, os.path.join(ROOT, "scripts/trace2replay"), "--quiet",
                        "--stats-json", stats, "-o", out, TRACE], check=True, capture_output=True)
    with open(stats) as f:
        return out, json.load(f)


def qemu_run(log, *args, mem=32, timeout=120):
    r = subprocess.run([os.path.join(ROOT, "scripts/qemu-run"), "--quiet", "--mem", str(mem),
                        "--timeout", str(timeout), "--log", log] + list(args),
                       capture_output=True, text=True)
    return r.returncode, read_log(log)


# How long a command may take to stop after Ctrl-C reaches it.  Each stops at
# its next check (a batch, an operation, a case), a fraction of a second on an
# idle host; the bound is generous because QEMU's TCG shares 2 host cores with
# the builds and tests that scripts/test-all runs beside it.  A command that
# does not stop at all (the console hung) fails the wait for its prompt.
STOP_WITHIN = 30


def expect_in(text, problems, *needles):
    for n in needles:
        if n not in text:
            problems.append(f"output lacks {n!r}")


def console_session(alloc, timeout=120, **kw):
    return QemuConsole(["--kernel", kernel(alloc)], timeout=timeout, **kw)


def memfree_after_shrink(q):
    """MemFree and Slab (kB) once every spare page is given back."""
    q.send("shrink\r")
    q.expect(r"tinyslab> ")
    q.send("meminfo\r")
    out = strip(q.expect(r"tinyslab> "))
    return tuple(int(m) for m in re.findall(r"^(?:MemFree|Slab):\s+(\d+) kB", out, re.M))


def build_tweaked(name, alloc, *tweaks):
    """build/system/<name>/vmlinux: <alloc>_defconfig with kconfig-tweak's
    arguments tweaks, built (-j2); returns its path."""
    out = work(name)
    make = ["make", "-s", "-C", ROOT, f"O={out}"]
    subprocess.run(make + [f"{alloc}_defconfig"], check=True)
    subprocess.run(["kconfig-tweak", "--file", os.path.join(out, ".config")] + list(tweaks),
                   check=True)
    subprocess.run(make + ["olddefconfig"], check=True)
    subprocess.run(make + ["-j2"], check=True)
    return os.path.join(out, "vmlinux")
