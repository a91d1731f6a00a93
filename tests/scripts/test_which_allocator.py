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
bench-smp: SLAB  test-and-set   2 threads     30.10 M allocs+frees/s  x1.95  median    29.00 M  x1.91
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
        if scaling != {"SLUB": 1.93, "SLAB": 1.91}:
            problems.append(f"bench-smp scaling: {scaling!r}")
        text = "\n".join(mod.section_memory(c))
        if "| fork-exec | 20.0% | 13.9% | - | - | 1.5% |" not in text:
            problems.append("memory table: SLUB_TINY's missing column is not '-'")
        if "SLUB_TINY leaves more MemFree at the peak than SLUB on 0 of 0" not in text:
            problems.append("a verdict counts a missing column")
    return problems, ""


# ---- the verdicts: made-up results that turn each verdict round -----------------
#
# The results files are written with the make targets' own table functions
# (scripts/smallmem's trace_table, scripts/compare's trace_table), so that a
# format change in a target that the page's reader does not follow fails here.

def load_script(name):
    path = os.path.join(ROOT, "scripts", name)
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_") + "_script", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def smallmem_file(path, ends, refused=None):
    """A smallmem results file: 8 and 16 MiB, traces "a" and "b"; ends:
    {(trace, label): free pages at the end}; refused: {(mib, trace, label): n}."""
    sm = load_script("smallmem")
    refused = refused or {}
    out = ["smallmem: made up", ""]
    for mib in (8, 16):
        out.append(f"=== {mib} MiB (qemu -m {mib}) ===")
        for trace in ("a", "b"):
            results = []
            for lab in ("SLOB", "SLUB_TINY"):
                n = refused.get((mib, trace, lab), 0)
                end = ends[(trace, lab)] + (mib - 8) * 256
                results.append((lab, {"MemFree": (end + 100) * 4, "free_peak": end * 4 - 40,
                                      "free_end": end * 4, "slab_peak": 400, "slab_end": 40,
                                      "slab_freed": 0, "peak_live": 300 * 1024,
                                      "why": f"does not fit: {n} of 1000 allocations failed"
                                      if n else None}))
            out += sm.trace_table(mib, trace, {"allocs": 1000, "peak_kb": 300, "module_kb": 10},
                                  results)
        out.append("")
    open(path, "w").write("\n".join(out) + "\n")


def compare_file(path, runs):
    """A compare results file: runs {trace: {name: {key: value}}}, every
    other figure made up alike."""
    cm = load_script("compare")
    base = {k: 0 for _, k, _ in cm.ROWS}
    names = list(next(iter(runs.values())))
    out = []
    for trace, by_name in runs.items():
        t = {"name": trace, "origin": "made up", "runs": {},
             "stats": {"allocs": 1000, "frees": 1000, "duration_us": 1e6}}
        for n in names:
            r = dict(base)
            r.update(by_name[n])
            t["runs"][n] = r
        out += cm.trace_table(t, names) + [""]
    open(path, "w").write("\n".join(out) + "\n")


def mem(peak, over, avg=None, avg_over=None, top=None):
    return {"pages_peak": peak, "overhead": over, "pages_avg": avg, "overhead_avg": avg_over,
            "pages_max": top if top is not None else peak}


SLABTEST = """\
slabtest: made up

On the host (64-bit build of mm/):
  single CPU: kmalloc (N kmalloc, then their kfree)
    bytes             SLAB             SLUB        SLUB_TINY             SLOB
        8         10 x1.00         12 x1.20         16 x1.60         30 x3.00
  single CPU: kfree
    bytes             SLAB             SLUB        SLUB_TINY             SLOB
        8         10 x1.00         12 x1.20         15 x1.50         30 x3.00
  single CPU: kmalloc+kfree pair
    bytes             SLAB             SLUB        SLUB_TINY             SLOB
        8         10 x1.00      {pair:7d} x{ratio:.2f}        300 x30.00         60 x6.00
  pair at 8-256 bytes, single, mean ratio to SLAB: SLAB x1.00, SLUB x{ratio:.2f}, \
SLUB_TINY x30.00, SLOB x6.00{sheaves}

"""


def slabtest_file(path, slub_ratio, sheaves=None):
    open(path, "w").write(SLABTEST.format(
        pair=int(10 * slub_ratio), ratio=slub_ratio,
        sheaves=", SLUB-sheaves x%.2f" % sheaves if sheaves else ""))


def verdicts_from(mod, d):
    mod.RESULTS = d
    return mod.generate_verdicts()


def expect(problems, text, *phrases, absent=()):
    for p in phrases:
        if p not in text:
            problems.append(f"no {p!r} in:\n{text}")
    for p in absent:
        if p in text:
            problems.append(f"{p!r} where it should not be, in:\n{text}")


@case
def small_machine_verdict_flips_with_the_figures():
    mod = load()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "smallmem-2030-01-01.txt")
        # SLOB ends 20 pages ahead on a, SLUB_TINY 5 ahead on b: SLOB, by 15
        smallmem_file(f, {("a", "SLOB"): 500, ("a", "SLUB_TINY"): 480,
                          ("b", "SLOB"): 600, ("b", "SLUB_TINY"): 605})
        v = verdicts_from(mod, d)
        expect(problems, v, "small machine: SLOB.**", "SLOB's lead over the traces both run "
               "is +15 pages", "SLOB ends with 15 more free pages than SLUB_TINY",
               absent=["small machine: SLUB_TINY.**"])
        # the same, SLUB_TINY 30 ahead on b: the verdict turns
        smallmem_file(f, {("a", "SLOB"): 500, ("a", "SLUB_TINY"): 480,
                          ("b", "SLOB"): 600, ("b", "SLUB_TINY"): 630})
        v = verdicts_from(mod, d)
        expect(problems, v, "small machine: SLUB_TINY.**", "It would flip to SLOB",
               absent=["small machine: SLOB.**"])
        # SLOB ahead on both: the flip names its narrowest lead
        smallmem_file(f, {("a", "SLOB"): 500, ("a", "SLUB_TINY"): 480,
                          ("b", "SLOB"): 600, ("b", "SLUB_TINY"): 590})
        v = verdicts_from(mod, d)
        expect(problems, v, "small machine: SLOB.**", "lead over the traces both run is +30 "
               "pages; its narrowest lead is 10 pages, on b")
        # SLOB ahead on free pages, but SLUB_TINY alone runs trace b without a refusal
        smallmem_file(f, {("a", "SLOB"): 500, ("a", "SLUB_TINY"): 480,
                          ("b", "SLOB"): 600, ("b", "SLUB_TINY"): 605},
                      refused={(8, "b", "SLOB"): 7, (16, "b", "SLOB"): 3})
        v = verdicts_from(mod, d)
        expect(problems, v, "small machine: SLUB_TINY.**",
               "b refuses 7 allocations under SLOB, 0 under SLUB_TINY")
    return problems, ""


def large_machine_results(d, slub_over, slab_over, pair):
    compare_file(os.path.join(d, "compare-2030-01-01.txt"),
                 {t: {"slab": mem(300, slab_over), "slub": mem(300, slub_over)}
                  for t in ("a", "b", "c")})
    slabtest_file(os.path.join(d, "slabtest-2030-01-01.txt"), pair)


@case
def large_machine_verdict_flips_with_the_figures():
    mod = load()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        # SLUB holds less, SLAB's pair is cheaper: neither outright
        large_machine_results(d, 10.0, 20.0, 2.5)
        v = verdicts_from(mod, d)
        expect(problems, v, "large machine: neither outright.**", "SLUB's costs x2.50 SLAB's",
               "SLUB's overhead is lower on 3 of 3 traces (mean 10.0% against 20.0%)",
               "Choose SLUB if memory held matters most; SLAB if your workload is dominated "
               "by kmalloc+kfree pairs of one size")
        # SLUB's pair cheaper too: SLUB, and what would turn it
        large_machine_results(d, 10.0, 20.0, 0.5)
        v = verdicts_from(mod, d)
        expect(problems, v, "large machine: SLUB.**", "It would flip to SLAB if a measure not "
               "taken here mattered most, or if 2 more of the measures above went SLAB's way")
        # the overheads the other way round and SLAB's pair cheaper: SLAB
        large_machine_results(d, 20.0, 10.0, 2.5)
        v = verdicts_from(mod, d)
        expect(problems, v, "large machine: SLAB.**", absent=["large machine: SLUB.**"])
        # a pair within the noise decides nothing
        large_machine_results(d, 20.0, 10.0, 1.03)
        v = verdicts_from(mod, d)
        expect(problems, v, "large machine: SLAB.**", "SLAB wins memory held at the peak; "
               "the rest", absent=["SLAB wins memory held at the peak, the kmalloc"])
    return problems, ""


@case
def sheaves_verdict_names_the_target_a_file_lacks():
    mod = load()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        compare_file(os.path.join(d, "compare-2030-01-01.txt"),
                     {t: {"slab": mem(300, 20.0), "slub": mem(300, 12.0),
                          "slub_sheaves": mem(300, 11.0)} for t in ("a", "b")})
        slabtest_file(os.path.join(d, "slabtest-2030-01-01.txt"), 2.5)
        v = verdicts_from(mod, d)
        expect(problems, v, "SLAB 20.0%, SLUB 12.0%, SLUB-sheaves 11.0%",
               "memory at the peak, SLUB-sheaves",
               "slabtest-2030-01-01.txt` has no SLUB-sheaves column: run `make slabtest`",
               "there are no `make bench` results: run `make bench`",
               "there are no `make sizes` results: run `make sizes`")
        slabtest_file(os.path.join(d, "slabtest-2030-01-01.txt"), 2.5, sheaves=0.8)
        v = verdicts_from(mod, d)
        expect(problems, v, "SLUB-sheaves x0.80", "the kmalloc+kfree pair, SLUB-sheaves",
               absent=["run `make slabtest`"])
        slabtest_file(os.path.join(d, "slabtest-2030-01-01.txt"), 2.5, sheaves=3.0)
        v = verdicts_from(mod, d)
        expect(problems, v, "the kmalloc+kfree pair, SLAB")
    return problems, ""


@case
def shrinker_and_tiny_pair_sentences_read_their_figures():
    mod = load()
    problems = []
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "compare-2030-01-01.txt")
        compare_file(c, {"a": {"slob": mem(100, 1.0), "slub_tiny": mem(125, 20.0)}})
        slabtest_file(os.path.join(d, "slabtest-2030-01-01.txt"), 2.5)
        v = verdicts_from(mod, d)
        expect(problems, v, "compare-2030-01-01.txt` has no mean over the replay: run "
               "`make compare`", "at 8-256 bytes it costs x30.00 SLAB's (300 cycles against "
               "10 at 8 bytes), while its kmalloc alone costs x1.60 and its kfree alone x1.50")
        compare_file(c, {"a": {"slob": mem(100, 1.0, 60.0, 50.0, 130),
                               "slub_tiny": mem(125, 20.0, 40.0, 10.0)}})
        v = verdicts_from(mod, d)
        expect(problems, v, "at the peak of live bytes it holds x0.80 SLUB_TINY's pages, over "
               "the whole replay x1.50", "its overhead is 1.0% at the peak and 50.0% over the "
               "replay", "exceeds its pages at the peak by 30 on a",
               "SLOB's kmalloc+kfree pair costs x6.00 SLAB's against SLUB_TINY's x30.00")
    return problems, ""


@case
def compare_means_its_samples_by_operations():
    """scripts/compare's mean over the replay: the trapezoid rule over the
    samples' operations (the last interval shorter), not a plain mean."""
    cm = load_script("compare")
    problems = []
    lines = ["replay: ops 100 (allocations 50, frees 50)", "replay-sample: 0 10 0",
             "replay-sample: 40 20 40960", "replay-sample: 80 20 40960",
             "replay-sample: 100 10 0"]
    f = cm.parse(lines)
    # (15 * 40 + 20 * 40 + 15 * 20) / 100 = 17 pages; live (20 * 40 + 40 * 40 + 20 * 20) kB / 100
    if f["pages_avg"] != 17.0 or f["live_avg"] != 28672.0:
        problems.append(f"means {f['pages_avg']!r} pages, {f['live_avg']!r} bytes; "
                        "expected 17.0 and 28672.0")
    if f["overhead_avg"] is None or abs(f["overhead_avg"] - 142.857) > 0.01:
        problems.append(f"overhead over the replay {f['overhead_avg']!r}, expected 142.857")
    if cm.parse(lines[:2])["pages_avg"] is not None:
        problems.append("one sample gave a mean")
    return problems, ""


@case
def percpu_verdict_reads_instructions_and_scaling():
    """The magazines, CPU slabs or sheaves verdict quotes each one's
    instructions per allocation and free and its median 2-thread ratio,
    and names the best of each."""
    mod = load()
    bench = """\
tinyslab bench: trace t1: 10 events
                                SLAB      SLUB  SLUB-sheaves     glibc
instructions (callgrind; inside the allocator's call only)
  per allocation                 107       100           105       233
  per free                       105       116           102       116
summary over 1 traces: ns per operation (allocations and frees weighted), best-of mean
                                SLAB      SLUB  SLUB-sheaves     glibc
  t1                            21.6      21.4          18.8      17.5
host page faults in the timed replay
bench-smp: SLAB  test-and-set   2 threads     62.89 M allocs+frees/s  x1.67  median    60.45 M  x1.62
bench-smp: SLUB  test-and-set   2 threads     68.86 M allocs+frees/s  x1.50  median    66.24 M  x1.46
bench-smp: SLUB-sheaves  test-and-set   2 threads     89.58 M allocs+frees/s  x2.01  median    87.24 M  x1.98
"""
    problems = []
    with tempfile.TemporaryDirectory() as d:
        b = os.path.join(d, "bench-2026-01-01.txt")
        open(b, "w").write(bench)
        text = "\n".join(mod.verdict_percpu(None, b, None, None))
    for want in ("instructions per allocation and per free on the file's first trace: "
                 "SLAB 107 and 105, SLUB 100 and 116, SLUB-sheaves 105 and 102",
                 "1 to 2 threads (`bench-smp`, the median): SLAB x1.62, SLUB x1.46, "
                 "SLUB-sheaves x1.98",
                 "instructions per call, even within 5%: SLAB, SLUB and SLUB-sheaves",
                 "scaling to 2 threads, SLUB-sheaves", "speed, SLUB-sheaves"):
        if want not in text:
            problems.append(f"the verdict lacks {want!r}")
    return problems, text
