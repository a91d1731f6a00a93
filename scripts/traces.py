#!/usr/bin/python3
"""traces.py - the one list of shipped traces the comparisons replay.

make compare, make bench and make soak replay every trace listed here; a
new trace is a file, not a code change: every traces/*.ftrace.gz (made by
scripts/capture-trace from traces/workloads/NAME.sh) joins the list after
the default trace, tests/traces/linux-6.1-boot-files.ftrace.gz (the TRACE
the other targets replay), in name order.

    from traces import shipped, name, origin, workload
    for path in shipped(): ...

As a command it prints the paths one per line (scripts/traces.py), or
with --shapes the shape of each, as JSON, as Markdown (--markdown), or
written into FILE between its trace-shapes markers (--doc FILE: make
trace-shapes does so for docs/benchmarks.md).
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replayfmt import CACHE, CACHE_ALLOC, HEADER, KMALLOC, OP, OP_MASK, SLOT_SHIFT, TIME  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
TRACES = os.path.join(ROOT, "traces")
SUFFIX = ".ftrace.gz"
# The default trace was captured before scripts/capture-trace existed
# (tests/traces/README.md says how).
DEFAULT_ORIGIN = ("kernel linux-image-6.1.0-57-amd64 (Debian, 64-bit), workload "
                  "linux-6.1-boot-files.init.sh, 256 MiB, from boot")


def shipped():
    """The paths of the shipped traces: the default first, then traces/*.ftrace.gz."""
    found = sorted(f for f in os.listdir(TRACES) if f.endswith(SUFFIX)) \
        if os.path.isdir(TRACES) else []
    return [DEFAULT] + [os.path.join(TRACES, f) for f in found]


def name(path):
    """A trace's short name: its file name without .ftrace.gz (or .gz, .ftrace)."""
    base = os.path.basename(path)
    for suffix in (SUFFIX, ".gz", ".ftrace", ".txt"):
        if base.endswith(suffix):
            return base[:-len(suffix)]
    return base


def origin(path):
    """What made the trace: its "# capture-trace:" first line, else the default's."""
    try:
        with gzip.open(path, "rt", errors="replace") as f:
            first = f.readline()
    except OSError:
        first = ""
    prefix = "# capture-trace: "
    if first.startswith(prefix):
        return first[len(prefix):].strip()
    return DEFAULT_ORIGIN if os.path.abspath(path) == DEFAULT else "unknown"


def workload(path):
    """The workload script that made a shipped trace, relative to the repository."""
    if os.path.abspath(path) == DEFAULT:
        return "tests/traces/linux-6.1-boot-files.init.sh"
    return os.path.join("traces", "workloads", name(path) + ".sh")


# SLAB's kmalloc() size classes (mm/slab.c), for page_floor()
SLAB_CLASSES = (8, 16, 24, 32, 40, 48, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512,
                576, 640, 768, 1024, 1344, 2048, 4096, 8192)
PAGE = 4096


def numbered_ops(replay):
    """The allocations and frees of a replay file, in order, with their numbers in the
    file (time ops counted, as the kernel's replay counts them): (number, op, slot, size,
    cache) with op 0 a kmalloc() of size bytes, 1 an object of cache number cache (size
    its object size), 2 a free (size 0)."""
    with open(replay, "rb") as f:
        data = f.read()
    _, _, nr_caches, nr_ops = HEADER.unpack_from(data)[:4]
    sizes = [CACHE.unpack_from(data, HEADER.size + CACHE.size * i)[0] for i in range(nr_caches)]
    base = HEADER.size + CACHE.size * nr_caches
    for n in range(nr_ops):
        code, arg = OP.unpack_from(data, base + OP.size * n)
        op, slot = code & OP_MASK, code >> SLOT_SHIFT
        if op != TIME:
            yield n, op, slot, arg if op == KMALLOC else sizes[arg] if op == CACHE_ALLOC else 0, arg


def replay_ops(replay):
    """numbered_ops() without the numbers: (op, slot, size, cache)."""
    for _, op, slot, size, cache in numbered_ops(replay):
        yield op, slot, size, cache


def peak_op(replay):
    """The number of the operation after which the live requested bytes first reach
    their highest (the kernel's replay measures its "peak" there, when no allocation
    fails): the operation scripts/compare asks the kernel to draw its heap map after
    (the replay_map_at= boot option).  None for a trace with no allocation."""
    live = peak = 0
    at, sizes = None, {}
    for n, op, slot, size, _ in numbered_ops(replay):
        if op == 2:
            live -= sizes.pop(slot)
            continue
        sizes[slot] = size
        live += size
        if live > peak:
            peak, at = live, n
    return at


def page_floor(replay):
    """The fewest pages an allocator can hold at the trace's peak of live bytes if it
    gives every cache and every kmalloc() size class (SLAB's) pages of its own: each
    one's live objects packed end to end, no descriptor, no partly used slab but the
    last page, nothing cached; larger kmalloc()s take whole pages.  Returns (pages,
    peak live bytes, caches and classes live there).  SLAB cannot go below it; SLOB,
    whose heap pages mix every cache, can."""
    slots, count = {}, {}
    live = peak = 0
    at_peak = {}
    for op, slot, size, cache in replay_ops(replay):
        if op == 2:
            key, size = slots.pop(slot)
            live -= size
            count[key] -= 1
            continue
        if op == 0:
            cls = next((c for c in SLAB_CLASSES if c >= size), None)
            key = ("kmalloc", cls) if cls else ("pages", -(-size // PAGE) * PAGE)
        else:
            key = ("cache", size, cache)
        slots[slot] = (key, size)
        count[key] = count.get(key, 0) + 1
        live += size
        if live > peak:
            peak, at_peak = live, dict(count)
    pages = 0
    for key, n in at_peak.items():
        if n > 0:
            pages += n * key[1] // PAGE if key[0] == "pages" else -(-n * key[1] // PAGE)
    return pages, peak, sum(1 for n in at_peak.values() if n > 0)


def heap_floor(replay, unit=8, header=1):
    """The fewest pages SLOB's heap can hold at the trace's peak of live bytes: every
    live object end to end in units of unit bytes (a cache object of at least two
    units, a kmalloc() with its one-unit header), the kmalloc()s of a page less a unit
    or more in whole pages of their own.  Returns pages."""
    slots = {}
    live = peak = units = large = 0
    at_peak = (0, 0)
    for op, slot, size, cache in replay_ops(replay):
        if op == 2:
            size, u, pages = slots.pop(slot)
            live, units, large = live - size, units - u, large - pages
            continue
        u = pages = 0
        if op == 0 and size >= PAGE - unit:
            pages = -(-size // PAGE)
        elif op == 0:
            u = (size + unit - 1) // unit + header if size else 0
        else:
            u = max((size + unit - 1) // unit, 2)
        slots[slot] = (size, u, pages)
        live, units, large = live + size, units + u, large + pages
        if live > peak:
            peak, at_peak = live, (units, large)
    return -(-at_peak[0] * unit // PAGE) + at_peak[1]


def stats(path):
    """scripts/trace2replay --stats-json of a trace (converted into a temporary file)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stats.json")
        r = subprocess.run([sys.executable, os.path.join(HERE, "trace2replay"), "--quiet",
                            "--stats-json", out, "-o", os.path.join(tmp, "t.replay"), path],
                           capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"traces.py: {path}: {r.stderr.strip()}")
        with open(out) as f:
            return json.load(f)


def shape_rows(paths):
    """One dict per trace: its name, origin, workload and figures."""
    rows = []
    for p in paths:
        s = stats(p)
        rows.append({"name": name(p), "file": os.path.relpath(p, ROOT), "origin": origin(p),
                     "workload": workload(p), "gz_bytes": os.path.getsize(p), **s})
    return rows


def markdown(rows):
    """The shapes as docs/benchmarks.md shows them."""
    out = ["| trace | events | allocations (kmalloc / cache) | frees | peak live bytes "
           "(objects) | live at the end | caches | duration | gzipped |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| `{r['name']}` | {r['events']:,} | {r['allocs']:,} ({r['kmalloc']:,} / "
                   f"{r['kmem_cache_alloc']:,}) | {r['frees']:,} | {r['peak_live_bytes']:,} "
                   f"({r['peak_live_objects']:,}) | {r['live_at_end_bytes']:,} | {r['caches']} | "
                   f"{r['duration_us'] / 1e6:.1f} s | {r['gz_bytes'] / 1024:.0f} KiB |")
    out += ["", "Allocations by size (bytes as replayed):", ""]
    keys = list(rows[0]["size_histogram"]) if rows else []
    out.append("| trace | " + " | ".join(keys) + " |")
    out.append("|---|" + "---:|" * len(keys))
    for r in rows:
        h = r["size_histogram"]
        out.append(f"| `{r['name']}` | " + " | ".join(f"{h[k]:,}" for k in keys) + " |")
    out += ["", "Where each came from:", ""]
    out.append("| trace | workload | captured from |")
    out.append("|---|---|---|")
    for r in rows:
        out.append(f"| `{r['name']}` | `{r['workload']}` | {r['origin']} |")
    return "\n".join(out)


BEGIN, END = "<!-- trace-shapes:begin -->", "<!-- trace-shapes:end -->"


def write_doc(path, text):
    """Replaces what lies between the trace-shapes markers of path with text."""
    with open(path) as f:
        doc = f.read()
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"traces.py: {path} has no {BEGIN} ... {END} block")
    doc = doc[:start + len(BEGIN)] + "\n" + text + "\n" + doc[end:]
    with open(path, "w") as f:
        f.write(doc)


def main(argv):
    if "--shapes" not in argv:
        print("\n".join(shipped()))
        return 0
    rows = shape_rows(shipped())
    if "--doc" in argv:
        path = argv[argv.index("--doc") + 1]
        write_doc(path, markdown(rows))
        print(f"traces.py: the shapes of {len(rows)} traces written to {path}")
    elif "--markdown" in argv:
        print(markdown(rows))
    else:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
