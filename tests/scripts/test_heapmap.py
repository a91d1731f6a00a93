"""test_heapmap.py - tests of the heap pictures of make compare, collected by
run.py: scripts/heapmap.py reads the kernel's heap map from a serial log
(groups, their continued rows, the page count checked against the map's
last line, anything else refused), lays it out as the console does, and
draws a PNG; scripts/traces.py peak_op() finds the operation after which
the live bytes peak, counting time ops as the kernel does; scripts/compare
takes the map and the bytes cached per CPU from the kernel's line there.
No kernel is booted: the logs are shaped as the kernel prints them.
"""
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import heapmap  # noqa: E402
import traces  # noqa: E402
from replayfmt import CACHE, CACHE_ALLOC, FREE, HEADER, KMALLOC, MAGIC, OP, SLOT_SHIFT, \
    TIME, VERSION  # noqa: E402

CASES = []


def case(fn):
    fn.__name__ = "heapmap_" + fn.__name__
    CASES.append(fn)
    return fn


def row(name, cells):
    return f"{name:<17.17s} {cells}"


MAP = ["replay: at op 41: Slab 47 pages, live 9000 bytes, cached by the per-CPU layers 2048 bytes",
       "heap map (SLUB): .=empty -=<1/3 +=<2/3 *=<full #=full page",
       row("kmalloc-64", "#*"),
       row("task_struct", "#" * 40),
       row("", "+-."),
       row("per-CPU structs", "#" * 2),
       "heap map: 47 pages in 3 groups"]


@case
def map_is_read_with_continued_rows():
    """A group's continued rows join it; the levels run . - + * # as 0 to 4."""
    problems = []
    groups, pages = heapmap.parse(["boot line"] + MAP + ["after"])
    if pages != 47 or [g[0] for g in groups or []] != ["kmalloc-64", "task_struct",
                                                       "per-CPU structs"]:
        problems.append(f"parsed {pages} pages, groups {groups and [g[0] for g in groups]}")
    elif groups[1][1][-3:] != [2, 1, 0] or len(groups[1][1]) != 43 or groups[0][1] != [4, 3]:
        problems.append(f"levels {groups[0][1]}, {groups[1][1][-3:]} of {len(groups[1][1])}")
    cells, starts = heapmap.layout(groups)
    if [s[0] for s in starts] != [0, 1, 3] or heapmap.rows(groups) != 4 or len(cells) != 47:
        problems.append(f"layout: starts {starts}, rows {heapmap.rows(groups)}, {len(cells)} cells")
    if (0, 2, 2) not in cells or (2, 2, 0) not in cells:
        problems.append("task_struct's 41st to 43rd pages are not on its second row")
    return problems, ""


@case
def a_damaged_map_is_refused():
    """A count that is not the cells drawn, a cell that is no shade, a continued row
    before any group: refused, not drawn wrong; a log without a map gives None."""
    problems = []
    for label, lines in (("count", MAP[:-1] + ["heap map: 48 pages in 3 groups"]),
                         ("shade", MAP[:2] + [row("x", "#?")] + MAP[2:]),
                         ("orphan", MAP[:2] + [row("", "##")] + MAP[2:])):
        try:
            heapmap.parse(lines)
            problems.append(f"{label}: accepted")
        except ValueError:
            pass
    if heapmap.parse(MAP[:-1]) != (None, None) or heapmap.parse(["replay: PASS"]) != (None, None):
        problems.append("a log with no whole map did not give (None, None)")
    return problems, ""


def replay_file(path, caches, ops):
    """A replay file of caches (object sizes) and ops ((op, slot, arg))."""
    allocs = sum(op in (KMALLOC, CACHE_ALLOC) for op, _, _ in ops)
    frees = sum(op == FREE for op, _, _ in ops)
    data = HEADER.pack(MAGIC, VERSION, len(caches), len(ops), 4, allocs, frees, 100)
    for i, size in enumerate(caches):
        data += CACHE.pack(size, 0, f"c{i}".encode())
    for op, slot, arg in ops:
        data += OP.pack(op | slot << SLOT_SHIFT, arg)
    with open(path, "wb") as f:
        f.write(data)


@case
def peak_op_counts_time_ops():
    """The peak is the first operation after which the live bytes are highest, a cache's
    object counted at its cache's size, time ops numbered as the kernel numbers them."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.replay")
        replay_file(path, [120], [(KMALLOC, 0, 100), (TIME, 0, 50), (CACHE_ALLOC, 1, 0),
                                  (FREE, 0, 0), (KMALLOC, 0, 100), (TIME, 0, 10),
                                  (KMALLOC, 2, 1), (FREE, 2, 0), (KMALLOC, 2, 1)])
        at = traces.peak_op(path)
        if at != 6:  # 100 + 120 + 1 = 221 first after op 6; op 8 only equals it
            problems.append(f"peak_op {at}, want 6")
        replay_file(path, [], [(TIME, 0, 5)])
        if traces.peak_op(path) is not None:
            problems.append("a trace with no allocation has a peak")
    return problems, ""


def load_compare():
    loader = importlib.machinery.SourceFileLoader("compare_script",
                                                  os.path.join(ROOT, "scripts", "compare"))
    spec = importlib.util.spec_from_loader("compare_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@case
def compare_reads_the_cached_bytes_and_the_map():
    """compare's parse() takes the bytes cached per CPU and the map from the kernel's
    lines after the peak's operation; a log without them has neither."""
    problems = []
    compare = load_compare()
    f = compare.parse(MAP + ["replay: PASS"])
    if f["cached_kb"] != 2.0 or not f["map"] or len(f["map"]) != 3:
        problems.append(f"cached {f['cached_kb']} kB, map {f['map'] and len(f['map'])} groups")
    f = compare.parse(["replay: PASS"])
    if f["cached_kb"] is not None or f["map"] is not None:
        problems.append("a log without the peak's lines gave figures")
    return problems, ""


@case
def the_picture_is_drawn():
    """plot() writes a PNG with a panel per allocator (gnuplot, which make test's
    packages install)."""
    if not shutil.which("gnuplot"):
        return ["gnuplot is not installed (scripts/install-deps plot)"], ""
    problems = []
    groups, _ = heapmap.parse(MAP)
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "map.png")
        if heapmap.plot("test", [("SLUB", groups), ("SLAB", groups[:1])], png, tmp) != png:
            problems.append("plot() failed")
        else:
            with open(png, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    problems.append("not a PNG")
    return problems, ""


@case
def compare_sheaves_memory_goal_follows_the_pages():
    """scripts/compare's goal G13 (docs/goals.md): met with SLUB-sheaves
    at 5% above SLUB's pages at the peak, NOT met a page above, naming the
    trace, with the kB its sheaves and barn held; nothing without both."""
    compare = load_compare()

    def results(sheaves_pages):
        return [{"name": "t1", "runs": {"slub": {"pages_peak": 100},
                                        "slub_sheaves": {"pages_peak": 104, "cached_kb": 12.0}}},
                {"name": "t2", "runs": {"slub": {"pages_peak": 1000},
                                        "slub_sheaves": {"pages_peak": sheaves_pages,
                                                         "cached_kb": 300.0}}}]
    names = ("slab", "slub", "slub_sheaves")
    met, above = compare.sheaves_goal(results(1050), names), compare.sheaves_goal(results(1051), names)
    problems = []
    if not met or not met[0].endswith("above SLUB's: met"):
        problems.append(f"at 5% above: {met!r}")
    if not above or not above[0].endswith("above SLUB's: NOT met on t2"):
        problems.append(f"a page above 5%: {above!r}")
    if len(above) < 2 or "t2 1051 against 1000, x1.051, 300 kB in sheaves and barn" not in above[1]:
        problems.append(f"the figures beside the verdict: {above!r}")
    if compare.sheaves_goal(results(1050), ("slab", "slub")):
        problems.append("a G13 verdict without SLUB-sheaves")
    return problems, "\n".join(met + above)
