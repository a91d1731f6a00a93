#!/usr/bin/python3
"""run.py - tests of the project's scripts, reported in KTAP.

Each case runs a script on known input and checks its verdict and the
key lines of its output: the KTAP parser on sample serial logs (passing,
failing, panicking, truncated ones, and ones with expected and unexpected
reports), and further scripts as they come.
usage: tests/scripts/run.py [--summary-file FILE] [--shard I/N] [CASE...]

--shard I/N runs every Nth of the chosen cases from the Ith, so that make
test runs a suite as N parts side by side.

A case that needs an i386 host program (the attribute needs_i386) is
skipped where none runs (scripts/i386_probe.py): "ok N NAME # SKIP
REASON" in KTAP, and in the summary file a line of its own,
"LABEL/NAME 0 0 1 SKIP REASON", which scripts/test-all counts and
explains as a whole check this host cannot run (the suite's own line
counts only what ran).
"""
import argparse
import functools
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from i386_probe import probe, skip_reason  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ktap_case(log, status, *phrases, args=(), name=None):
    """The parser (with options args) gives exit status `status` on logs/LOG and
    prints every phrase."""
    def case():
        r = run([PY, os.path.join(ROOT, "scripts/ktap.py")] + list(args) +
                [os.path.join(HERE, "logs", log)])
        problems = []
        if r.returncode != status:
            problems.append(f"exit status {r.returncode}, expected {status}")
        for p in phrases:
            if p not in r.stdout:
                problems.append(f"output lacks {p!r}")
        return problems, r.stdout
    case.__name__ = name or "ktap_" + log.replace(".log", "").replace("-", "_")
    return case


def survived_case(log, status, *phrases):
    """--cases-may-fail (boots under fault injection): failed cases pass, crashes fail."""
    return ktap_case(log, status, *phrases, args=["--cases-may-fail"],
                     name="ktap_survived_" + log.replace(".log", "").replace("-", "_"))


CASES = [
    ktap_case("pass.log", 0, "11 passed, 0 failed, 0 skipped: PASS"),
    ktap_case("skip.log", 0, "10 passed, 0 failed, 1 skipped: PASS"),
    ktap_case("case-failed.log", 1, "not ok printk.width_and_padding",
              "EXPECTATION FAILED at tests/kernel/test_printk.c:40", "1 failed"),
    ktap_case("short-plan.log", 1, "suite string: plan says 4 cases, 3 reported"),
    ktap_case("missing-plan.log", 1, "no plan line"),
    ktap_case("timeout.log", 1, "ERROR: timeout", "no '# Totals' line"),
    ktap_case("no-report.log", 1, "no KTAP report in the log"),
    ktap_case("divide.log", 1, "CPU exception: divide error (vector 0)",
              "kernel panic: Fatal exception: divide error"),
    ktap_case("null-deref.log", 1, "CPU exception: page fault (vector 14)"),
    ktap_case("stack-overflow.log", 1, "CPU exception: double fault (vector 8)"),
    ktap_case("spinlock-unexpected.log", 1,
              "16 unexpected 'BUG: spinlock already unlocked: lock slob_lock (0x...), caller "
              "0x..., last taken by 0x...' lines (first at log line 29)",
              "16 unexpected 'BUG: spinlock recursion: lock slob_block_lock", ": FAIL"),
    ktap_case("warning.log", 1,
              "1 unexpected 'WARNING: at mm/slab.c:795: c->num_slabs' line (log line 19)",
              "8 passed, 0 failed, 0 skipped: FAIL"),
    ktap_case("bad-free-unexpected.log", 1,
              "2 unexpected 'kfree: bad pointer 0x... from 0x...: not the start of an object; "
              "ignored' lines",
              "1 unexpected 'kmem_cache_free: bad pointer 0x...",
              "1 unexpected 'page_alloc: bad free of 0x... order 3 from 0x...", ": FAIL"),
    ktap_case("reports-miscounted.log", 1,
              "case bad_pointers_are_reported declared 6 report(s), the log shows 5",
              "1 unexpected 'page_alloc: bad free of 0x... order 2 from 0x...: double free"),
    ktap_case("reports-expected.log", 0, "6 passed, 0 failed, 0 skipped: PASS"),
    ktap_case("heap-inconsistent.log", 1, "ERROR: heap inconsistent after kmem_cache_alloc(0x0)",
              ": FAIL"),
    survived_case("case-failed.log", 0, "1 failed (allowed)", "the kernel survived: PASS"),
    survived_case("null-deref.log", 1, "CPU exception: page fault (vector 14)",
                  "the kernel did not survive: FAIL"),
    survived_case("timeout.log", 1, "ERROR: timeout", "did not survive: FAIL"),
    survived_case("short-plan.log", 1, "plan says 4 cases, 3 reported", ": FAIL"),
    survived_case("heap-inconsistent.log", 1, "ERROR: heap inconsistent", ": FAIL"),
    survived_case("reports-miscounted.log", 1,
                  "note: case bad_pointers_are_reported declared 6 report(s), the log shows 5",
                  "1 unexpected 'page_alloc: bad free of 0x... order 2 from 0x...: double free",
                  ": FAIL"),
]


def load_more_cases():
    """Other test modules in this folder add their cases through CASES lists."""
    more = []
    for name in sorted(os.listdir(HERE)):
        if name.startswith("test_") and name.endswith(".py"):
            scope = {"__file__": os.path.join(HERE, name), "__name__": name[:-3]}
            with open(os.path.join(HERE, name)) as f:
                exec(compile(f.read(), name, "exec"), scope)
            more += scope.get("CASES", [])
    return more


@functools.lru_cache(maxsize=None)
def i386_runs():
    return probe()


def host_skip(case):
    """The reason this host cannot run case, or None."""
    if not getattr(case, "needs_i386", False):
        return None
    runs, why = i386_runs()
    return None if runs else skip_reason(why)


def print_slowest(took, count=6):
    """One diagnostic line: the slowest cases and their seconds, and all of them."""
    if not took:
        return
    slow = ", ".join(f"{name} {secs:.0f} s" for secs, name in sorted(took, reverse=True)[:count])
    print(f"# slowest: {slow} (all {len(took)}: {sum(s for s, _ in took):.0f} s)")


def run_cases(cases, label, summary_file=None):
    """Runs cases, prints KTAP, appends summary lines; returns the exit status."""
    print("KTAP version 1")
    print(f"1..{len(cases)}")
    failed = 0
    skipped = []
    took = []
    for i, case in enumerate(cases, 1):
        reason = host_skip(case)
        if reason:
            print(f"ok {i} {case.__name__} # SKIP {reason}")
            skipped.append((case.__name__, reason))
            continue
        start = time.monotonic()
        try:
            problems, output = case()
        except Exception as e:  # a crashing case is a failing case
            problems, output = [f"raised {type(e).__name__}: {e}"], ""
        took.append((time.monotonic() - start, case.__name__))
        if problems:
            failed += 1
            for p in problems:
                print(f"# {case.__name__}: {p}")
            for line in output.splitlines()[-15:]:
                print(f"#   | {line}")
        print(f"{'not ok' if problems else 'ok'} {i} {case.__name__}")
    passed = len(cases) - failed - len(skipped)
    print_slowest(took)
    print(f"# Totals: pass:{passed} fail:{failed} skip:{len(skipped)} total:{len(cases)}")
    if summary_file:
        with open(summary_file, "a") as f:
            f.write(f"{label} {passed} {failed} 0 {'PASS' if not failed else 'FAIL'}\n")
            for name, reason in skipped:
                f.write(f"{label}/{name} 0 0 1 SKIP {reason}\n")
    return 1 if failed else 0


def shard(text):
    """--shard I/N: the argument as (I, N), 1 <= I <= N."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: I must be 1 to N")
    return i, n


def add_selection_args(ap):
    """The options that choose cases, shared by the script and system runners."""
    ap.add_argument("--shard", type=shard, default=(1, 1), metavar="I/N",
                    help="run every Nth case from the Ith (a part of make test)")
    ap.add_argument("cases", nargs="*", help="run only these (default: all)")


def select(ap, args, cases):
    """The cases args name (all by default), of its shard."""
    unknown = set(args.cases) - {c.__name__ for c in cases}
    if unknown:
        ap.error(f"no case {sorted(unknown)[0]}")
    i, n = args.shard
    return [c for c in cases if not args.cases or c.__name__ in args.cases][i - 1::n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--summary-file")
    add_selection_args(ap)
    args = ap.parse_args()
    return run_cases(select(ap, args, CASES + load_more_cases()), "scripts", args.summary_file)


if __name__ == "__main__":
    sys.exit(main())
