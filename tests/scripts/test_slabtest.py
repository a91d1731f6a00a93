"""test_slabtest.py - tests of scripts/slabtest's report parsing and tables,
collected by run.py.

No kernel or host benchmark runs: the parser gets "slabtest" reports as the
kernel prints them (timestamps, a console echo and escape sequences
around them) and as the host prints them.  A complete report must give
every figure and the failures; an interrupted one (no "done" line) must
not count; the best of three reports must give each figure's lowest; the
tables must show each cell's ratio to SLAB and '-' where an allocator has
no figure, and the section must say which allocator gave no result.  Bad
arguments and a missing build must exit 2 before anything runs.
"""
import importlib.machinery
import importlib.util
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "slabtest")
PY = "/usr/bin/python3"

CASES = []


def case(fn):
    fn.__name__ = "slabtest_" + fn.__name__
    CASES.append(fn)
    return fn


def load():
    loader = importlib.machinery.SourceFileLoader("slabtest_script", SCRIPT)
    spec = importlib.util.spec_from_loader("slabtest_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def report(alloc="SLAB", k8=49, f8=62, p8=68, done=True, stamp="[   13.900000] "):
    lines = [
        "tinyslab> slabtest 10000\r",
        f"{stamp}slabtest: {alloc}, 10000 calls per test, size and CPU, 2 CPU(s) online; "
        "cycles per call (TSC)",
        f"{stamp}slabtest: single 8 bytes, 1 CPU, batches of 10000: kmalloc {k8} kfree {f8} "
        f"pair {p8}",
        f"{stamp}slabtest: single 16384 bytes, 1 CPU, batches of 256: kmalloc 700 kfree 500 "
        "pair 510 failed 4",
        f"{stamp}slabtest: remote 64 bytes, 2 CPUs, batches of 10000: kmalloc 80 kfree 95; "
        "per CPU kmalloc/kfree/pair: 0:78/90/- 1:82/100/-",
        f"{stamp}slabtest: one_alloc 8 bytes, 2 CPUs, batches of 10000: kmalloc 30 kfree 40; "
        "per CPU kmalloc/kfree/pair: 0:30/-/- 1:-/40/-",
    ]
    if done:
        lines.append(f"{stamp}slabtest: done, 4 allocations failed")
    else:
        lines.append(f"{stamp}slabtest: interrupted in the remote test at 128 bytes, after 12 "
                     "calls on CPU 0")
    return "\x1b[0m" + "\n".join(lines) + "\ntinyslab> "


@case
def parses_a_kernel_report():
    st, problems = load(), []
    reps = st.parse_reports(report())
    if len(reps) != 1:
        return [f"{len(reps)} reports, expected 1"], repr(reps)
    r = reps[0]
    want = {("single", 8): {"kmalloc": 49, "kfree": 62, "pair": 68, "batch": 10000, "cpus": 1},
            ("single", 16384): {"kmalloc": 700, "kfree": 500, "pair": 510, "failed": 4,
                                "batch": 256, "cpus": 1},
            ("remote", 64): {"kmalloc": 80, "kfree": 95, "batch": 10000, "cpus": 2},
            ("one_alloc", 8): {"kmalloc": 30, "kfree": 40, "batch": 10000, "cpus": 2}}
    if r["results"] != want:
        problems.append(f"results {r['results']!r}")
    if (r["allocator"], r["calls"], r["complete"], r["failed"]) != ("SLAB", 10000, True, 4):
        problems.append(f"header or end: {r['allocator']}, {r['calls']}, {r['complete']}, "
                        f"{r['failed']}")
    host = st.parse_reports(report(stamp=""))
    if not host or host[0]["results"] != want:
        problems.append("the host's report (no timestamps) is not read the same")
    return problems, repr(reps)


@case
def an_interrupted_report_does_not_count():
    st, problems = load(), []
    reps = st.parse_reports(report(done=False) + report(k8=51))
    if [r["complete"] for r in reps] != [False, True]:
        problems.append(f"complete: {[r['complete'] for r in reps]}, expected [False, True]")
    if not reps[0]["problems"] or "interrupted in the remote test" not in reps[0]["problems"][0]:
        problems.append("the interruption is not kept as the report's problem")
    med = st.best_report(reps)
    if med is None or med["runs"] != 1 or med["results"][("single", 8)]["kmalloc"] != 51:
        problems.append(f"the best report took the interrupted one: {med!r}")
    if st.best_report(st.parse_reports(report(done=False))) is not None:
        problems.append("a best report came of interrupted reports only")
    return problems, ""


@case
def best_of_three():
    st, problems = load(), []
    text = report(k8=40, f8=90, p8=30) + report(k8=60, f8=70, p8=10) + report(k8=50, f8=80, p8=20)
    med = st.best_report(st.parse_reports(text))
    got = med["results"][("single", 8)]
    if (got["kmalloc"], got["kfree"], got["pair"]) != (40, 70, 10):
        problems.append(f"figures {got!r}, expected each the lowest: kmalloc 40 kfree 70 pair 10")
    if med["failed"] != 12:
        problems.append(f"failures {med['failed']}, expected 12 (4 in each run)")
    return problems, repr(med)


@case
def tables_give_ratios_to_slab():
    st, problems = load(), []
    slab = st.best_report(st.parse_reports(report(k8=100, f8=200, p8=50)))
    slob = st.best_report(st.parse_reports(report(alloc="SLOB", k8=250, f8=100, p8=150)))
    lines = st.section("Place:", None, [("SLAB", slab, None), ("SLOB", slob, None),
                                        ("SLOB-fast", None, "no answer within 900 s")])
    text = "\n".join(lines)
    row8 = [l for l in lines if l.split()[:1] == ["8"]]
    if not row8 or row8[0].split() != ["8", "100", "x1.00", "250", "x2.50", "-"]:
        problems.append(f"the 8-byte kmalloc row reads {row8[:1]!r}")
    if "SLOB-fast: NO RESULT: no answer within 900 s" not in text:
        problems.append("the allocator without a result is not named")
    if "pair at 8-256 bytes, single, mean ratio to SLAB: SLAB x1.00, SLOB x3.00" not in text:
        problems.append("the pair summary is not SLOB x3.00 (150 / 50)")
    if "concurrent" in text:
        problems.append("a table for a test nobody ran")
    return problems, text


@case
def pair_goals_follow_the_figures():
    """Goals G8 and G11 (docs/goals.md) in the host's section only: met at
    SLUB x0.50 of SLAB and SLUB-sheaves x0.60 of SLUB, NOT met a cycle
    above either bound."""
    st, problems = load(), []

    def rep(alloc, p8):
        return st.best_report(st.parse_reports(report(alloc=alloc, p8=p8)))

    def goals(slub, sheaves, host=True):
        runs = [("SLAB", rep("SLAB", 100), None), ("SLUB", rep("SLUB", slub), None),
                ("SLUB-sheaves", rep("SLUB", sheaves), None)]
        return [l.strip() for l in st.section("Place:", None, runs, goals=host)
                if "Goal G" in l]
    met, above, cpu = goals(50, 30), goals(51, 31), goals(50, 30, host=False)
    if met != ["Goal G8 (docs/goals.md): SLUB's pair at most 0.5 times SLAB's: met (x0.50)",
               "Goal G11 (docs/goals.md): SLUB-sheaves' pair at most 0.6 times SLUB's and at "
               "most SLAB's: met (x0.60 SLUB's, x0.30 SLAB's)"]:
        problems.append(f"at the bounds: {met!r}")
    if len(above) != 2 or not all(": NOT met (" in l for l in above):
        problems.append(f"above the bounds: {above!r}")
    if goals(50, 101)[1:] != ["Goal G11 (docs/goals.md): SLUB-sheaves' pair at most 0.6 times "
                              "SLUB's and at most SLAB's: NOT met (x2.02 SLUB's, x1.01 SLAB's)"]:
        problems.append(f"above SLAB's: {goals(50, 101)!r}")
    if cpu:
        problems.append(f"goal lines outside the host's section: {cpu!r}")
    return problems, "\n".join(met + above)


@case
def refuses_bad_arguments():
    problems, log = [], ""
    with tempfile.TemporaryDirectory() as tmp:
        for args, want in ((["--calls", "0"], "--calls, --runs and --host-runs at least 1"),
                           (["--cpus", "1"], "--cpus at least 2"),
                           (["--build", tmp], "is missing: make slabtest builds it")):
            r = subprocess.run([PY, SCRIPT] + args, capture_output=True, text=True)
            log += f"$ slabtest {' '.join(args)}\n{r.stdout}{r.stderr}"
            if r.returncode != 2:
                problems.append(f"{args}: exit status {r.returncode}, expected 2")
            if want not in r.stderr:
                problems.append(f"{args}: stderr lacks {want!r}")
            if "Traceback" in r.stderr:
                problems.append(f"{args}: a Python traceback")
    return problems, log
