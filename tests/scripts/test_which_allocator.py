"""test_which_allocator.py - tests of scripts/which-allocator, collected by run.py.

docs/which-allocator.md's tables must be what the committed docs/results
files give (--check); a page whose figures were edited by hand must be
refused; the parsers must read the formats the make targets write (a
compare table and a bench summary made up here, with a missing column).
"""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "which-allocator")
PAGE = os.path.join(ROOT, "docs", "which-allocator.md")
PY = "/usr/bin/python3"

CASES = []


def case(fn):
    fn.__name__ = "which_allocator_" + fn.__name__
    CASES.append(fn)
    return fn


def load():
    loader = importlib.machinery.SourceFileLoader("which_allocator_script", SCRIPT)
    spec = importlib.util.spec_from_loader("which_allocator_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@case
def page_matches_the_results():
    r = subprocess.run([PY, SCRIPT, "--check"], capture_output=True, text=True)
    return ([] if r.returncode == 0 else [f"--check exit {r.returncode}: {r.stderr.strip()}"]), \
        r.stdout + r.stderr


@case
def a_hand_edited_figure_is_refused():
    mod = load()
    block = mod.generate()
    problems = []
    if "| SLOB |" not in block:
        problems.append("no SLOB row in the generated block")
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "page.md")
        shutil.copy(PAGE, page)
        text = open(page).read()
        # change the first figure of the first table row by one
        head, rest = text.split("| SLAB | ", 1)
        figure = rest.split(" ", 1)[0]
        if not figure.isdigit():
            return [f"first SLAB cell {figure!r} is not a number"], ""
        open(page, "w").write(head + "| SLAB | " + str(int(figure) + 1) + rest[len(figure):])
        r = subprocess.run([PY, SCRIPT, "--check", "--page", page], capture_output=True,
                           text=True)
        if r.returncode != 1 or "not what docs/results gives" not in r.stderr:
            problems.append(f"edited page: exit {r.returncode}, {r.stderr.strip()!r}")
        r = subprocess.run([PY, SCRIPT, "--page", page], capture_output=True, text=True)
        if r.returncode != 0 or open(page).read() != open(PAGE).read():
            problems.append("rewriting the edited page did not restore the figures")
    return problems, ""


COMPARE = """\
fork-exec: 48613 allocations, 48573 frees over 13.12 s (kernel x, workload y)
                                              SLAB        SLUB        SLOB
  peak live requested bytes                1153648     1153648     1153648
  overhead (held - live) / live              20.0%       13.9%        1.5%
  MemFree at the peak                     28836 kB    28916 kB    29080 kB

"""

BENCH = """\
summary over 2 traces: ns per operation (allocations and frees weighted), best-of mean
                                SLAB      SLUB      SLOB     glibc
  fork-exec                     11.1      10.0      33.9      19.3
  tmpfs-files                   11.1      12.0     115.2      14.3
host page faults in the timed replay
bench-smp: SLUB  test-and-set   2 threads     27.78 M allocs+frees/s  x1.93
"""


@case
def parses_compare_and_bench():
    mod = load()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "compare.txt")
        b = os.path.join(d, "bench.txt")
        open(c, "w").write(COMPARE)
        open(b, "w").write(BENCH)
        traces = mod.read_compare(c)
        got = traces[0][1]["overhead (held - live) / live"] if traces else {}
        if got != {"SLAB": "20.0%", "SLUB": "13.9%", "SLOB": "1.5%"}:
            problems.append(f"compare overhead row: {got!r}")
        ns, instr, scaling = mod.read_bench(b)
        if ns.get("tmpfs-files", {}).get("SLOB") != 115.2 or len(ns) != 2:
            problems.append(f"bench ns/op: {ns!r}")
        if scaling != {"SLUB": 1.93}:
            problems.append(f"bench-smp scaling: {scaling!r}")
        text = "\n".join(mod.section_memory(c))
        if "| fork-exec | 20.0% | 13.9% | - | 1.5% |" not in text:
            problems.append("memory table: SLUB_TINY's missing column is not '-'")
        if "SLUB_TINY leaves more MemFree at the peak than SLUB on 0 of 0" not in text:
            problems.append("a verdict counts a missing column")
    return problems, ""
