#!/usr/bin/python3
"""run.py - whole-system tests: the built kernels booted in QEMU, driven and judged.

usage: tests/system/run.py [--build DIR] [--summary-file FILE] [CASE...]

Expects build/slab/vmlinux, build/slob/vmlinux, build/tinyslab.iso and the
host benchmark binaries (scripts/test-all builds them first).  Covers what
the self-tests cannot see from inside: the GRUB menu on the serial line,
the interactive console, CPU exceptions reported and failing the run, the
replay on a machine too small for it and on a malformed module, the mem=
and unknown-parameter handling, and the host benchmark reproducing the
kernel replay's footprint exactly.  Reports in KTAP like tests/scripts.
"""
import argparse
import gzip
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from qemu_console import QemuConsole, EXIT_PASS  # noqa: E402
from serial_log import FOOTPRINT_LINES, footprint, layout, read_log, strip  # noqa: E402

PY = "/usr/bin/python3"
TRACE = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
BUILD = os.path.join(ROOT, "build")


def kernel(alloc):
    return os.path.join(BUILD, alloc, "vmlinux")


def work(name):
    d = os.path.join(BUILD, "system")
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


def expect_in(text, problems, *needles):
    for n in needles:
        if n not in text:
            problems.append(f"output lacks {n!r}")


# ---- the interactive console ------------------------------------------------

def console_case(alloc):
    report = "slabinfo - version: 2.1" if alloc == "slab" else "SLOB heap:"

    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--initrd", small_trace()], timeout=60) as q:
            q.expect(r"tinyslab> ")

            def cmd(line, *needles):
                q.send(line + "\r")
                out = strip(q.expect(r"tinyslab> ", timeout=120))
                for n in needles:
                    if n not in out:
                        problems.append(f"{line!r}: output lacks {n!r}")
                return out

            cmd("help", "meminfo", "slabinfo", "buddyinfo", "selftest", "shrink", "stress",
                "replay", "halt")
            cmd("meminfo", "MemTotal:", "MemFree:", "Slab:")
            cmd("buddyinfo", "Node 0, zone   Normal")
            cmd("slabinfo", report)
            cmd("stress 3000", "stress: 3000 operations, no corruption")
            cmd("stress", "usage: stress <n>")
            cmd("stress many", "usage: stress <n>")
            cmd("meminfo now", "usage: meminfo")
            cmd("frobnicate", 'unknown command "frobnicate"')
            cmd("memix\x7f\x7finfo", "MemTotal:")          # backspace editing
            cmd("shrink", "pages given back")
            cmd("validate", "validate: 0 inconsistencies found")
            cmd("selftest timer", "ok 1 timer", "selftest: PASS")
            cmd("replay", "replay: PASS", "allocation failures 0, corruptions 0")
            q.send("halt\r")
            status = q.wait_exit(30)
            if status != EXIT_PASS:
                problems.append(f"halt: QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"console_{alloc}"
    return case


# ---- the GRUB image ---------------------------------------------------------------

def iso_case(hotkey, alloc):
    def case():
        problems = []
        with QemuConsole(["--iso", os.path.join(BUILD, "tinyslab.iso")], timeout=60) as q:
            q.expect(r"SLOB allocator: self-tests, then power off")   # the menu, on serial
            q.send(hotkey)
            q.expect(r"tinyslab .*\(i386, %s allocator" % alloc.upper())
            q.expect(r"selftest: (PASS|FAIL)", timeout=180)
            status = q.wait_exit(30)
            expect_in(q.log, problems, "selftest: PASS", "boot loader: GRUB")
            if status != EXIT_PASS:
                problems.append(f"QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"iso_menu_selftest_{alloc}"
    return case


# ---- exceptions fail the run -----------------------------------------------------------

def fault_case(kind, name):
    def case():
        log = work(f"fault-{kind}.log")
        status, text = qemu_run(log, "--kernel", kernel("slob"), "--append",
                                f"fault={kind} selftest", timeout=60)
        problems = []
        if status != 1:
            problems.append(f"qemu-run status {status}, expected 1 (the kernel reports failure)")
        expect_in(text, problems, f"*** {name} (vector", "EIP:", "EAX:", "Kernel panic")
        r = subprocess.run([PY, os.path.join(ROOT, "scripts/ktap.py"), log],
                           capture_output=True, text=True)
        if r.returncode != 1 or f"CPU exception: {name}" not in r.stdout:
            problems.append("ktap.py does not fail the run naming the exception")
        return problems, text
    case.__name__ = f"fault_{kind}_reported"
    return case


# ---- replay corner cases -----------------------------------------------------------------

def replay_too_small():
    log = work("replay-12M.log")
    trace, _ = full_trace()
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--append", "replay poweroff",
                            "--initrd", trace, mem=12, timeout=300)
    problems = []
    if status != 1:
        problems.append(f"qemu-run status {status}, expected 1 (replay fails, no hang)")
    m = re.search(r"allocation failures (\d+)", text)
    if not m or int(m.group(1)) == 0:
        problems.append("no allocation failures counted on a 12 MiB machine")
    expect_in(text, problems, "too small for the trace", "replay: FAIL")
    return problems, text


def replay_malformed_module():
    """Malformed modules are refused before anything is allocated, with the first problem:
    a header of 0xff bytes, and the 48-byte module whose 0x15555556 slots once wrapped the
    slot table's size and crashed both kernels (SLOB here, SLAB in the next case)."""
    problems, texts = [], []
    wrapping = struct.pack("<4s7I", b"TSRP", 1, 0, 2, 0x15555556, 1, 1, 0) + \
        struct.pack("<4I", 0, 16, 2, 0)
    for name, alloc, data, phrase in (
            ("bad", "slab", b"TSRP\x01\x00\x00\x00" + b"\xff" * 40,
             "4294967295 caches, the format allows 65534"),
            ("wrapping", "slob", wrapping, "357913942 slots for 1 allocations"),
            ("wrapping", "slab", wrapping, "357913942 slots for 1 allocations")):
        log, path = work(f"replay-{name}-{alloc}.log"), work(f"{name}.replay")
        with open(path, "wb") as f:
            f.write(data)
        status, text = qemu_run(log, "--kernel", kernel(alloc), "--append", "replay poweroff",
                                "--initrd", path, timeout=60)
        texts.append(text)
        if status != 1:
            problems.append(f"{name} on {alloc}: qemu-run status {status}, expected 1")
        expect_in(text, problems, phrase, "replay: FAIL")
        if "***" in text:
            problems.append(f"{name} on {alloc}: a CPU exception")
    return problems, "\n".join(texts)


# ---- command line -----------------------------------------------------------------------

def mem_limit_and_unknown_parameter():
    log = work("cmdline.log")
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--append",
                            "mem=16M frobnicate=3 loglevel=9 selftest=buddy", timeout=120)
    problems = []
    if status != 0:
        problems.append(f"qemu-run status {status}, expected 0")
    expect_in(text, problems, "mem=16384K: using RAM below 0x1000000",
              'Unknown kernel command line parameter "frobnicate=3"',
              'Bad value for kernel parameter "loglevel=9"', "selftest: PASS")
    m = re.search(r"MemTotal:\s+(\d+) kB", text)
    if not m or not 14000 < int(m.group(1)) < 16384:
        problems.append("MemTotal does not reflect mem=16M")
    return problems, text


# ---- the host benchmark reproduces the kernel replay ------------------------------------------

def agreement_case(alloc):
    def case():
        trace, stats = full_trace()
        log = work(f"replay-{alloc}.log")
        status, ktext = qemu_run(log, "--kernel", kernel(alloc), "--append", "replay poweroff",
                                 "--initrd", trace, timeout=300)
        problems = []
        if status != 0:
            problems.append(f"kernel replay: qemu-run status {status}")
        mem_layout = layout(ktext)
        if not mem_layout:
            return problems + ["no replay-layout line"], ktext
        bench = os.path.join(BUILD, "host", alloc, "bench")
        r = subprocess.run([bench, "--layout", mem_layout, trace],
                           capture_output=True, text=True)
        klines, hlines = footprint(ktext), footprint(r.stdout)
        if r.returncode != 0:
            problems.append(f"host bench exit status {r.returncode}")
        if len(klines) != FOOTPRINT_LINES or klines != hlines:
            problems.append("the host figures differ from the kernel's")
        peak = re.search(r"peak live (\d+) bytes", ktext)
        if not peak or int(peak.group(1)) != stats["peak_live_bytes"]:
            problems.append("peak live bytes differ from the converter's count")
        return problems, "kernel:\n" + "\n".join(klines) + "\nhost:\n" + "\n".join(hlines)
    case.__name__ = f"replay_host_agrees_with_kernel_{alloc}"
    return case


# ---- the comparison tool ---------------------------------------------------------------

def compare_tool():
    small_trace()
    out = work("compare")
    r = subprocess.run([PY, os.path.join(ROOT, "scripts/compare"), "--trace", work("small.ftrace"),
                        "--build", BUILD, "--out", out], capture_output=True, text=True)
    problems = []
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    expect_in(r.stdout, problems, "After boot (kB), as in the 2005 table:", "MemTotal:",
              "Slab at that peak", "overhead (held - live) / live", "slabinfo - version: 2.1",
              "Footprint plot:")
    png = os.path.join(out, "footprint.png")
    if not os.path.exists(png) or os.path.getsize(png) < 2000:
        problems.append("no footprint plot")
    elif open(png, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
        problems.append("footprint.png is not a PNG")
    return problems, r.stdout + r.stderr


CASES = [
    console_case("slab"),
    console_case("slob"),
    iso_case("t", "slab"),
    iso_case("s", "slob"),
    fault_case("divide", "divide error"),
    fault_case("null", "page fault"),
    fault_case("stack", "double fault"),
    mem_limit_and_unknown_parameter,
    replay_malformed_module,
    replay_too_small,
    agreement_case("slab"),
    agreement_case("slob"),
    compare_tool,
]


def main():
    global BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=BUILD)
    ap.add_argument("--summary-file")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    spec = importlib.util.spec_from_file_location("runner", os.path.join(ROOT, "tests/scripts/run.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    cases = [c for c in CASES if not args.cases or c.__name__ in args.cases]
    return runner.run_cases(cases, "system", args.summary_file)


if __name__ == "__main__":
    sys.exit(main())
