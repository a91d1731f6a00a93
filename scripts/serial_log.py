"""serial_log.py - reading tinyslab serial logs, shared by the scripts and tests.

    text = read_log("build/compare/slab.log")     # timestamps and CRs removed
    footprint(text)    # the replay report's footprint lines, to compare runs
    layout(text)       # the kernel's "replay-layout:" line, for bench_replay --layout
"""
import re

STAMP = re.compile(r"^\[\s*\d+\.\d+\] ", re.M)
FOOTPRINT = re.compile(r"^replay: (ops|peak live|Slab at the peak|overhead|MemFree|Slab after|"
                       r"allocation failures).*$", re.M)
FOOTPRINT_LINES = 7     # a complete replay report has this many


def strip(text):
    """Text of a serial log without printk timestamps and carriage returns."""
    return STAMP.sub("", text.replace("\r", ""))


def read_log(path):
    with open(path, errors="replace") as f:
        return strip(f.read())


def footprint(text):
    """The lines of a replay report that must agree between runs (not the cycles)."""
    return [m.group(0) for m in FOOTPRINT.finditer(text)]


def layout(text):
    """The memory layout a kernel replay printed, or None."""
    m = re.search(r"^replay-layout: (.*)$", text, re.M)
    return m.group(1).strip() if m else None
