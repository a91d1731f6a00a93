#!/usr/bin/python3
"""run.py - whole-system tests: the built kernels booted in QEMU, driven and judged.

usage: tests/system/run.py [--build DIR] [--summary-file FILE] [--shard I/N] [CASE...]

The runner of the system tests; the cases live by concern in test_boot.py
(GRUB menu, command line), test_console.py, test_faults.py (exceptions,
NMI, fault injection), test_replay.py, test_debug.py (kmem_debug=, gdb
helpers) and test_smp.py, each listing its cases in CASES, with what they
share in common.py.

Expects build/<allocator>/vmlinux (slab, slub, slub_tiny, slob and the
debug ones), build/tinyslab.iso and the host benchmark binaries
(scripts/test-all builds them first).  Covers what
the self-tests cannot see from inside: the GRUB menu on the serial line,
the interactive console (Ctrl-C, input limits, escape sequences, a large
paste), CPU exceptions reported and failing the run, the replay on a
machine too small for it and on a malformed module, the command line's
limits (overflowing numbers, flags given values, its length), the host
benchmark reproducing the kernel replay's footprint exactly, and SMP: four
CPUs online and listed by "cpus" with stress still clean, and CPUs left out
(maxcpus=, one that never answers its start-up IPIs) reported while the boot
goes on.  Reports in KTAP like tests/scripts, whose runner it uses.
"""

import argparse
import importlib.util
import os
import sys

import common
import test_boot
import test_console
import test_debug
import test_faults
import test_replay
import test_smp

CASES = (test_console.CASES + test_boot.CASES + test_faults.CASES + test_replay.CASES +
         test_debug.CASES + test_smp.CASES)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=common.BUILD)
    ap.add_argument("--summary-file")
    spec = importlib.util.spec_from_file_location(
        "runner", os.path.join(common.ROOT, "tests/scripts/run.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    runner.add_selection_args(ap)
    args = ap.parse_args()
    common.BUILD = os.path.abspath(args.build)
    return runner.run_cases(runner.select(ap, args, CASES), "system", args.summary_file)


if __name__ == "__main__":
    sys.exit(main())
