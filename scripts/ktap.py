#!/usr/bin/python3
"""ktap.py - read a tinyslab serial log and judge its KTAP self-test results.

usage: scripts/ktap.py [--label NAME] [--summary-file FILE] LOG

Finds the KTAP version 1 report in the log (printk timestamps are
stripped), checks it and prints one line per suite, the failed cases with
their diagnostics, and a last line "N passed, N failed, N skipped".

The run fails on any "not ok", on a plan that is missing or does not match
the number of results (too short: the kernel stopped part way), on a
kernel panic, a CPU exception or a BUG, on a timeout recorded by
scripts/qemu-run, and when no KTAP report is found at all.  Exit status 0
when the run passed, 1 when it failed, 2 on a usage error.

--summary-file appends "LABEL PASSED FAILED SKIPPED VERDICT" to FILE, for
scripts/test-all to add up.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serial_log import strip as strip_log  # noqa: E402

RESULT = re.compile(r"^(ok|not ok) (\d+) (\S+)(?: # (SKIP)(?: (.*))?)?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
FATAL = [
    (re.compile(r"Kernel panic - not syncing: (.*)"), "kernel panic: {0}"),
    (re.compile(r"^\*\*\* (.+) \(vector (\d+)\)"), "CPU exception: {0} (vector {1})"),
    (re.compile(r"kernel BUG at (.*)"), "kernel BUG at {0}"),
    (re.compile(r"^qemu-run: TIMEOUT(.*)"), "timeout{0}"),
]


class Suite:
    def __init__(self, name):
        self.name = name
        self.plan = None
        self.results = []          # (number, name, status, reason, diagnostics)
        self.result_line = None    # the parent's "ok N name" status


class Report:
    def __init__(self):
        self.found = False
        self.plan = None
        self.suites = []
        self.top_results = []
        self.errors = []           # problems with the run as a whole
        self.totals_line = None


def strip(line):
    return strip_log(line.rstrip("\r\n"))


def parse(lines):
    rep = Report()
    suite = None
    diags = []
    for raw in lines:
        line = strip(raw)
        for pattern, message in FATAL:
            m = pattern.search(line)
            if m:
                rep.errors.append(message.format(*m.groups()))
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped.startswith("KTAP version") and indent == 0:
            if rep.found:
                rep.errors.append("a second KTAP report starts (the kernel restarted?)")
            rep.found = True
            continue
        if not rep.found:
            continue
        if indent >= 4:
            if stripped.startswith("KTAP version"):
                continue
            if stripped.startswith("# Subtest:"):
                suite = Suite(stripped[len("# Subtest:"):].strip())
                rep.suites.append(suite)
                diags = []
                continue
            if suite is None:
                continue
            m = PLAN.match(stripped)
            if m:
                suite.plan = int(m.group(1))
                continue
            m = RESULT.match(stripped)
            if m:
                status = "skip" if m.group(4) else ("pass" if m.group(1) == "ok" else "fail")
                suite.results.append((int(m.group(2)), m.group(3), status, m.group(5) or "",
                                      diags))
                diags = []
                continue
            if stripped.startswith("#"):
                diags.append(stripped)
            continue
        m = PLAN.match(stripped)
        if m and rep.plan is None:
            rep.plan = int(m.group(1))
            continue
        m = RESULT.match(stripped)
        if m:
            status = "skip" if m.group(4) else ("pass" if m.group(1) == "ok" else "fail")
            rep.top_results.append((int(m.group(2)), m.group(3), status))
            if suite is not None and suite.name == m.group(3):
                suite.result_line = status
            suite = None
            continue
        if stripped.startswith("# Totals:"):
            rep.totals_line = stripped
    return rep


def check(rep):
    """Returns (passed, failed, skipped, problems)."""
    problems = list(rep.errors)
    passed = failed = skipped = 0
    if not rep.found:
        problems.append("no KTAP report in the log (did the kernel boot with 'selftest'?)")
        return passed, failed, skipped, problems
    if rep.plan is None:
        problems.append("the KTAP report has no plan line (1..N)")
    for s in rep.suites:
        for number, name, status, reason, diags in s.results:
            if status == "pass":
                passed += 1
            elif status == "skip":
                skipped += 1
            else:
                failed += 1
        numbers = [r[0] for r in s.results]
        if s.plan is None:
            problems.append(f"suite {s.name}: no plan line")
        elif len(s.results) != s.plan:
            problems.append(f"suite {s.name}: plan says {s.plan} cases, "
                            f"{len(s.results)} reported (stopped part way?)")
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"suite {s.name}: cases are not numbered 1..{len(numbers)}")
        if s.result_line is None:
            problems.append(f"suite {s.name}: no result line for the suite")
        elif (s.result_line == "fail") != any(r[2] == "fail" for r in s.results):
            problems.append(f"suite {s.name}: suite result '{s.result_line}' "
                            "contradicts its cases")
    if rep.plan is not None and len(rep.top_results) != rep.plan:
        problems.append(f"plan says {rep.plan} suites, {len(rep.top_results)} reported "
                        "(stopped part way?)")
    if rep.found and rep.totals_line is None:
        problems.append("no '# Totals' line: the run did not finish")
    return passed, failed, skipped, problems


def report(rep, label, out):
    passed, failed, skipped, problems = check(rep)
    prefix = f"[{label}] " if label else ""
    for s in rep.suites:
        counts = {"pass": 0, "fail": 0, "skip": 0}
        for r in s.results:
            counts[r[2]] += 1
        mark = "FAIL" if counts["fail"] else "ok"
        print(f"{prefix}{mark:4} {s.name}: {counts['pass']} passed, {counts['fail']} failed, "
              f"{counts['skip']} skipped", file=out)
        for number, name, status, reason, diags in s.results:
            if status == "fail":
                print(f"{prefix}  not ok {s.name}.{name}", file=out)
                for d in diags:
                    print(f"{prefix}      {d}", file=out)
    for p in problems:
        print(f"{prefix}ERROR: {p}", file=out)
    verdict = "PASS" if not failed and not problems else "FAIL"
    print(f"{prefix}{passed} passed, {failed} failed, {skipped} skipped: {verdict}", file=out)
    return passed, failed, skipped, problems, verdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--label", default="")
    ap.add_argument("--summary-file")
    args = ap.parse_args()
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            rep = parse(f)
    except OSError as e:
        print(f"ktap.py: {e}", file=sys.stderr)
        return 2
    passed, failed, skipped, problems, verdict = report(rep, args.label, sys.stdout)
    if args.summary_file:
        with open(args.summary_file, "a") as f:
            # A run-level problem counts as one more failure.
            f.write(f"{args.label or args.log} {passed} {failed + (1 if problems else 0)} "
                    f"{skipped} {verdict}\n")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
