#!/usr/bin/python3
"""ktap.py - read a tinyslab serial log and judge its KTAP self-test results.

usage: scripts/ktap.py [--label NAME] [--summary-file FILE] [--cases-may-fail] LOG

Finds the KTAP version 1 report in the log (printk timestamps are
stripped), checks it and prints one line per suite, the failed cases with
their diagnostics, and a last line "N passed, N failed, N skipped".

The run fails on any "not ok", on a plan that is missing or does not match
the number of results (too short: the kernel stopped part way), on a
kernel panic, a CPU exception or a "kernel BUG at", on a timeout recorded
by scripts/qemu-run, on an unexpected report (below), and when no KTAP
report is found at all.  Exit status 0 when the run passed, 1 when it
failed, 2 on a usage error.

Reports.  Every line of the log counts, before, inside and after the KTAP
report.  A report line is one that, timestamp stripped,
  - contains "BUG:" or "WARNING:" (lock debugging prints "BUG: spinlock ..."),
  - or contains "NAME: bad pointer P from C: WHY; ignored" (kmem_bad_free(),
    for kfree() and kmem_cache_free()),
  - or contains "page_alloc: bad free of " (the page allocator).
A case that provokes reports on purpose declares them; each declaration
prints "# CASE: expecting N report(s)" (at any indentation).  The first
one opens a window, later ones add their N to it, and the next result line
("ok ..." or "not ok ...", any indentation) closes it.  Report lines inside
a window are expected, up to the total declared so far.  Every other
report line is unexpected and fails the run; they are listed by their text
with hex numbers masked, counted ("322 unexpected 'BUG: spinlock ...'
lines").  A window that closes with fewer report lines than declared fails
the run too.  (The kernel's runner applies the same rules to its own count
and fails the case; this is the check that also sees boot and teardown.)

--summary-file appends "LABEL PASSED FAILED SKIPPED VERDICT" to FILE, for
scripts/test-all to add up.

--cases-may-fail judges whether the kernel survived, not its cases (a boot
under fault injection, where cases fail by design): failed cases, and
cases whose declared reports did not all come, are counted and listed but
fail nothing; everything else above still fails the run (a panic, an
exception, a timeout, a plan not met, no "# Totals", an unexpected report).
The summary line then counts the run as one check: "LABEL 1 0 0 PASS" or
"LABEL 0 1 0 FAIL".
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
    (re.compile(r"kmem: heap inconsistent after (.*)"), "heap inconsistent after {0}"),
]
REPORT = re.compile(r"BUG:|WARNING:|\S+: bad pointer \S+ from \S+: .*; ignored|"
                    r"page_alloc: bad free of ")
EXPECTING = re.compile(r"^# (\S+): expecting (\d+) report\(s\)$")
HEX = re.compile(r"0x[0-9a-fA-F]+")
MAX_REPORT_KINDS = 10      # unexpected report kinds listed one by one


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
        self.case_errors = []      # problems of single cases (declared reports missing)
        self.totals_line = None
        self.unexpected = {}       # masked report text: [count, first line number]


class Window:
    """The reports a case declared, from its first declaration to its result."""
    def __init__(self, case):
        self.case = case
        self.declared = 0
        self.seen = 0


def strip(line):
    return strip_log(line.rstrip("\r\n"))


def judge_reports(rep, window, line, stripped, number):
    """Applies the report rules of the docstring to one line; returns the
    expectation window open after it."""
    m = EXPECTING.match(stripped)
    if m:
        window = window or Window(m.group(1))
        window.declared += int(m.group(2))
    elif REPORT.search(line):
        if window and window.seen < window.declared:
            window.seen += 1
        else:
            entry = rep.unexpected.setdefault(HEX.sub("0x...", line.strip()), [0, number])
            entry[0] += 1
    elif window and RESULT.match(stripped):
        if window.seen < window.declared:
            rep.case_errors.append(f"case {window.case} declared {window.declared} report(s), "
                                   f"the log shows {window.seen}")
        window = None
    return window


def parse(lines):
    rep = Report()
    suite = None
    window = None
    diags = []
    for number, raw in enumerate(lines, 1):
        line = strip(raw)
        for pattern, message in FATAL:
            m = pattern.search(line)
            if m:
                rep.errors.append(message.format(*m.groups()))
        stripped = line.lstrip(" ")
        window = judge_reports(rep, window, line, stripped, number)
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


def unexpected_reports(rep):
    """One problem line per kind of unexpected report line, most frequent first."""
    kinds = sorted(rep.unexpected.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    problems = []
    for text, (count, first) in kinds[:MAX_REPORT_KINDS]:
        where = f"first at log line {first}" if count > 1 else f"log line {first}"
        problems.append(f"{count} unexpected '{text}' line{'s' if count > 1 else ''} "
                        f"({where})")
    if len(kinds) > MAX_REPORT_KINDS:
        rest = sum(c for c, _ in dict(kinds[MAX_REPORT_KINDS:]).values())
        problems.append(f"{rest} more unexpected report lines of "
                        f"{len(kinds) - MAX_REPORT_KINDS} other kinds")
    return problems


def check(rep, cases_may_fail=False):
    """Returns (passed, failed, skipped, problems)."""
    problems = list(rep.errors) + unexpected_reports(rep)
    if not cases_may_fail:
        problems += rep.case_errors
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


def report(rep, label, out, cases_may_fail=False):
    passed, failed, skipped, problems = check(rep, cases_may_fail)
    prefix = f"[{label}] " if label else ""
    for s in rep.suites:
        counts = {"pass": 0, "fail": 0, "skip": 0}
        for r in s.results:
            counts[r[2]] += 1
        mark = "FAIL" if counts["fail"] else "ok"
        print(f"{prefix}{mark:4} {s.name}: {counts['pass']} passed, {counts['fail']} failed, "
              f"{counts['skip']} skipped", file=out)
        for number, name, status, reason, diags in s.results:
            if status == "fail" and not cases_may_fail:     # those are expected then
                print(f"{prefix}  not ok {s.name}.{name}", file=out)
                for d in diags:
                    print(f"{prefix}      {d}", file=out)
    for p in problems:
        print(f"{prefix}ERROR: {p}", file=out)
    if cases_may_fail:
        for p in rep.case_errors:
            print(f"{prefix}note: {p}", file=out)
        verdict = "PASS" if not problems else "FAIL"
        print(f"{prefix}{passed} passed, {failed} failed (allowed), {skipped} skipped: the "
              f"kernel {'survived' if not problems else 'did not survive'}: {verdict}", file=out)
        return passed, failed, skipped, problems, verdict
    verdict = "PASS" if not failed and not problems else "FAIL"
    print(f"{prefix}{passed} passed, {failed} failed, {skipped} skipped: {verdict}", file=out)
    return passed, failed, skipped, problems, verdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--label", default="")
    ap.add_argument("--summary-file")
    ap.add_argument("--cases-may-fail", action="store_true",
                    help="judge only whether the kernel survived (fault injection)")
    args = ap.parse_args()
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            rep = parse(f)
    except OSError as e:
        print(f"ktap.py: {e}", file=sys.stderr)
        return 2
    passed, failed, skipped, problems, verdict = report(rep, args.label, sys.stdout,
                                                        args.cases_may_fail)
    if args.summary_file:
        with open(args.summary_file, "a") as f:
            if args.cases_may_fail:     # one check: did the kernel survive?
                f.write(f"{args.label or args.log} {int(not problems)} {int(bool(problems))} 0 "
                        f"{verdict}\n")
            else:                       # a run-level problem counts as one more failure
                f.write(f"{args.label or args.log} {passed} {failed + (1 if problems else 0)} "
                        f"{skipped} {verdict}\n")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
