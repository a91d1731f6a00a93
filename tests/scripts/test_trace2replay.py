"""test_trace2replay.py - tests of scripts/trace2replay, collected by run.py.

Each case writes a small hand-made ftrace log to a temporary directory,
runs the converter on it as a subprocess and decodes the replay file here
with struct, independently of the script's own --dump.  Ops are compared
in a short notation: "K<slot>:<size>" kmalloc, "C<slot>:<cache>" cache
allocation, a trailing "z" for the ZERO flag, "F<slot>" free, "T<us>" time.
"""
import gzip
import heapq
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
SCRIPT = os.path.join(ROOT, "scripts", "trace2replay")
SHIPPED = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from replayfmt import (CACHE, CACHE_ALLOC, FLAG_ZERO, FREE, HEADER, MAGIC, OP, OP_MASK,  # noqa: E402
                       SLOT_SHIFT, TIME, VERSION)

HEADER_KEYS = ("magic", "version", "nr_caches", "nr_ops", "nr_slots", "nr_allocs",
               "nr_frees", "duration_us")
BASE_US = 1000000               # the hand-made traces start at 1.000000 s

CASES = []


def case(fn):
    fn.__name__ = "trace2replay_" + fn.__name__
    CASES.append(fn)
    return fn


# ---- writing traces -------------------------------------------------------------

def line(us, event, fields, task="sh-42"):
    """One ftrace line at us microseconds."""
    return f"{task:>16} [000] d..1. {us // 1000000:5d}.{us % 1000000:06d}: {event}: {fields}"


def km(us, ptr, req, alloc=None, gfp="GFP_KERNEL", site="do_thing+0x1a/0x60", **kw):
    return line(BASE_US + us, "kmalloc", f"call_site={site} ptr={ptr:016x} bytes_req={req} "
                f"bytes_alloc={alloc or req} gfp_flags={gfp} node=-1 accounted=false", **kw)


def ca(us, ptr, req, alloc=None, gfp="GFP_KERNEL", site="make_obj+0x2b/0x90", **kw):
    return line(BASE_US + us, "kmem_cache_alloc", f"call_site={site} ptr={ptr:016x} "
                f"bytes_req={req} bytes_alloc={alloc or req} gfp_flags={gfp} node=-1 "
                f"accounted=false", **kw)


def kf(us, ptr, site="put_thing+0x9/0x40", **kw):
    return line(BASE_US + us, "kfree", f"call_site={site} ptr={ptr:016x}", **kw)


def cf(us, ptr, name, site="drop_obj+0x11/0x50", **kw):
    return line(BASE_US + us, "kmem_cache_free", f"call_site={site} ptr={ptr:016x} name={name}",
                **kw)


def text(lines):
    return "# tracer: nop\n#\n" + "\n".join(lines) + "\n"


A, B, C, D, E, F, G, H = (0xffff8a83c5000000 + 0x100 * i for i in range(8))


# ---- running the script and decoding its output ------------------------------

class Run:
    """One run of the script: its result, the decoded replay file and the stats JSON."""

    def __init__(self, proc, replay=None, stats=None):
        self.proc, self.replay, self.stats = proc, replay, stats

    def output(self):
        out = [f"exit status {self.proc.returncode}", self.proc.stdout, self.proc.stderr]
        if self.replay:
            out.append(f"header {self.replay['header']}")
            out.append(f"caches {self.replay['caches']}")
            out.append("ops " + " ".join(self.replay["ops"][:60]))
        if self.stats:
            out.append(json.dumps(self.stats))
        return "\n".join(str(x) for x in out)


def run(args, **kw):
    return subprocess.run([PY, SCRIPT] + args, capture_output=True, **kw)


def convert(tmp, trace, name="trace.ftrace", args=(), compress=False):
    """Writes trace (text) to tmp/name, converts it and decodes the result."""
    path = os.path.join(tmp, name)
    data = trace.encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if compress else data)
    out = os.path.join(tmp, "out.replay")
    stats_path = os.path.join(tmp, "stats.json")
    proc = run(["-o", out, "--stats-json", stats_path] + list(args) + [path], text=True)
    if proc.returncode != 0 or not os.path.exists(out):
        return Run(proc)
    with open(out, "rb") as f, open(stats_path) as s:
        return Run(proc, decode(f.read()), json.load(s))


def decode(data):
    """The replay file as {'header', 'caches', 'ops', 'raw_ops', 'size'}."""
    header = dict(zip(HEADER_KEYS, HEADER.unpack_from(data)))
    caches, ops = [], []
    off = HEADER.size
    for _ in range(header["nr_caches"]):
        size, align, name = CACHE.unpack_from(data, off)
        caches.append((size, align, name))
        off += CACHE.size
    raw_ops = [OP.unpack_from(data, off + OP.size * i) for i in range(header["nr_ops"])]
    for code, arg in raw_ops:
        opcode, zero, slot = code & OP_MASK, "z" if code & FLAG_ZERO else "", code >> SLOT_SHIFT
        ops.append([f"K{slot}:{arg}{zero}", f"C{slot}:{arg}{zero}", f"F{slot}", f"T{arg}"][opcode])
    return {"header": header, "caches": caches, "ops": ops, "raw_ops": raw_ops, "size": len(data)}


def cache_names(rep):
    return [name.split(b"\0")[0].decode() for _, _, name in rep["caches"]]


class LowestFree:
    """The free slots below the highest one taken, lowest first (a heap with
    lazy removal): the lowest free slot in O(log n), where recomputing it from
    the live set took minutes on the shipped trace's 50751 slots."""

    def __init__(self):
        self.heap, self.free = [], set()

    def add(self, slot):
        self.free.add(slot)
        heapq.heappush(self.heap, slot)

    def lowest(self, highest):
        while self.heap and self.heap[0] not in self.free:
            heapq.heappop(self.heap)
        return self.heap[0] if self.heap else highest + 1

    def take(self, slot, highest):
        self.free.discard(slot)
        for skipped in range(highest + 1, slot):  # slots passed over stay free
            self.add(skipped)


def check_file(rep, stats=None):
    """Problems with a decoded replay file: the format's rules, checked here independently."""
    h, problems = rep["header"], []
    if h["magic"] != MAGIC or h["version"] != VERSION:
        problems.append(f"magic {h['magic']!r} version {h['version']}")
    want = HEADER.size + CACHE.size * h["nr_caches"] + OP.size * h["nr_ops"]
    if rep["size"] != want:
        problems.append(f"file is {rep['size']} bytes, header says {want}")
    for i, (size, align, name) in enumerate(rep["caches"]):
        if not size or align or b"\0" not in name:
            problems.append(f"cache {i} malformed: {size} {align} {name!r}")
    if len(set(cache_names(rep))) != len(rep["caches"]):
        problems.append("cache names are not unique")
    live, allocs, frees, highest, last_time = set(), 0, 0, -1, 0
    free_slots = LowestFree()
    for n, (code, arg) in enumerate(rep["raw_ops"]):
        opcode, slot = code & OP_MASK, code >> SLOT_SHIFT
        if code & 0xf8:
            problems.append(f"op {n}: reserved bits set in {code:#x}")
        if opcode == TIME:
            if slot or code & FLAG_ZERO or arg < last_time + 1000:
                problems.append(f"op {n}: bad TIME op {code:#x} {arg} (last {last_time})")
            last_time = arg
        elif opcode == FREE:
            if slot not in live or arg or code & FLAG_ZERO:
                problems.append(f"op {n}: bad FREE of slot {slot}")
            if slot in live:
                free_slots.add(slot)
            live.discard(slot)
            frees += 1
        else:
            if slot in live or (opcode == CACHE_ALLOC and arg >= h["nr_caches"]):
                problems.append(f"op {n}: bad allocation into slot {slot} (arg {arg})")
            if free_slots.lowest(highest) != slot:
                problems.append(f"op {n}: slot {slot} is not the lowest free one")
            free_slots.take(slot, highest)
            live.add(slot)
            allocs += 1
            highest = max(highest, slot)
    if (allocs, frees, highest + 1) != (h["nr_allocs"], h["nr_frees"], h["nr_slots"]):
        problems.append(f"ops have {allocs} allocs, {frees} frees, {highest + 1} slots; header "
                        f"{h['nr_allocs']}, {h['nr_frees']}, {h['nr_slots']}")
    if last_time > h["duration_us"]:
        problems.append(f"TIME {last_time} beyond duration {h['duration_us']}")
    if stats is not None:
        pairs = [("ops", "nr_ops"), ("allocs", "nr_allocs"), ("frees", "nr_frees"),
                 ("caches", "nr_caches"), ("peak_live_objects", "nr_slots"),
                 ("duration_us", "duration_us")]
        for skey, hkey in pairs:
            if stats.get(skey) != h[hkey]:
                problems.append(f"stats {skey}={stats.get(skey)}, header {hkey}={h[hkey]}")
    return problems


def converted(r, problems):
    """Checks that a conversion succeeded and its file is well formed; False if not."""
    if r.proc.returncode != 0 or r.replay is None:
        problems.append(f"conversion failed with status {r.proc.returncode}")
        return False
    problems += check_file(r.replay, r.stats)
    return True


def expect(problems, what, got, want):
    if got != want:
        problems.append(f"{what}: got {got!r}, expected {want!r}")


def expect_stats(problems, stats, **want):
    for key, value in want.items():
        expect(problems, f"stats {key}", stats.get(key), value)


# ---- conversions ------------------------------------------------------------------

@case
def pairing_address_reused():
    """A free ends the latest allocation at its address, not an earlier one."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, A, 64), km(1, B, 32), kf(2, A), km(3, C, 16),
                               km(4, A, 128), kf(5, A), kf(6, A), kf(7, C), kf(8, B)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["K0:64", "K1:32", "F0", "K0:16", "K2:128", "F2", "F0", "F1"])
            expect_stats(problems, r.stats, frees_skipped=1, implicit_frees=0, allocs=4, frees=4,
                         peak_live_objects=3)
    return problems, r.output()


@case
def frees_without_allocation_skipped():
    """Frees of objects allocated before the trace began leave no op and no cache."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([kf(0, D), cf(1, E, "dentry"), km(2, A, 40), kf(3, A)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"], ["K0:40", "F0"])
            expect(problems, "caches", r.replay["caches"], [])
            expect_stats(problems, r.stats, frees_skipped=2, null_frees=0, kfree=2,
                         kmem_cache_free=1, frees=1)
    return problems, r.output()


@case
def null_free_and_failed_allocation_skipped():
    """kfree(NULL) and allocations that returned NULL leave no op."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([kf(0, 0), km(1, 0, 4096), ca(2, 0, 200), km(3, A, 8),
                               kf(4, 0)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"], ["K0:8"])
            expect(problems, "caches", r.replay["caches"], [])
            expect_stats(problems, r.stats, frees_skipped=2, null_frees=2, failed_allocs=2,
                         allocs=1, frees=0, kmalloc=2, kmem_cache_alloc=1)
    return problems, r.output()


@case
def implicit_free_of_reallocated_address():
    """An allocation at a live address ends the old object with an implicit FREE."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, B, 32), km(1, A, 64), km(2, C, 8), kf(3, B),
                               km(4, A, 96), kf(5, A), kf(6, A)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["K0:32", "K1:64", "K2:8", "F0", "F1", "K0:96", "F0"])
            expect_stats(problems, r.stats, implicit_frees=1, frees=3, frees_skipped=1)
    return problems, r.output()


@case
def lowest_free_slot():
    """Each allocation takes the lowest free slot; nr_slots is the peak of live objects."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, A, 1), km(1, B, 2), km(2, C, 3), km(3, D, 4), kf(4, B),
                               kf(5, A), km(6, E, 5), km(7, F, 6), km(8, G, 7), kf(9, D),
                               km(10, H, 8)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["K0:1", "K1:2", "K2:3", "K3:4", "F1", "F0", "K0:5", "K1:6", "K4:7", "F3",
                    "K3:8"])
            expect(problems, "nr_slots", r.replay["header"]["nr_slots"], 5)
            expect_stats(problems, r.stats, peak_live_objects=5, peak_live_bytes=3 + 5 + 6 + 7 + 8)
    return problems, r.output()


@case
def zero_flag():
    """__GFP_ZERO in gfp_flags sets the ZERO flag on the allocation only."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, A, 64, gfp="GFP_KERNEL|__GFP_ZERO"),
                               km(1, B, 64, gfp="GFP_KERNEL|__GFP_NOWARN"),
                               ca(2, C, 56, gfp="GFP_NOFS|__GFP_ZERO"), cf(3, C, "foo"),
                               kf(4, A), kf(5, B)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["K0:64z", "K1:64", "C2:0z", "F2", "F0", "F1"])
    return problems, r.output()


@case
def cache_naming():
    """Cache names come from the object's free, else its call_site, else anon-<bytes_alloc>;
    caches are numbered by first use; frees pair by address whatever freed them."""
    problems = []
    x, y, z = "d_alloc+0x2a/0x1d0", "new_thing+0x5/0x40", "other+0x1/0x2"
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([
            ca(0, B, 192, site=x),              # never freed: named by its call_site
            ca(1, C, 100, alloc=104, site=y),   # never freed, unknown site: anon-104
            ca(2, A, 192, site=x),
            ca(3, D, 40, site=z),               # freed by kfree: no name, anon-40
            km(4, E, 24),
            cf(5, A, "dentry"),
            kf(6, D),
            cf(7, E, "kmalloc-32"),             # a kmalloc object: FREE, no cache
        ]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["C0:0", "C1:1", "C2:0", "C3:2", "K4:24", "F2", "F3", "F4"])
            expect(problems, "cache names", cache_names(r.replay), ["dentry", "anon-104", "anon-40"])
            expect(problems, "object sizes", [c[0] for c in r.replay["caches"]], [192, 100, 40])
            expect(problems, "align", [c[1] for c in r.replay["caches"]], [0, 0, 0])
    return problems, r.output()


@case
def cache_size_is_the_largest():
    """Objects of one cache with different bytes_req: the largest, and a warning."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([ca(0, A, 56), ca(1, B, 64), cf(2, A, "foo_cache"),
                               cf(3, B, "foo_cache")]))
        if converted(r, problems):
            expect(problems, "caches", [(c[0], n) for c, n in
                                        zip(r.replay["caches"], cache_names(r.replay))],
                   [(64, "foo_cache")])
            expect_stats(problems, r.stats, peak_live_bytes=128, peak_live_bytes_req=120)
            if "warning" not in r.proc.stderr or "foo_cache" not in r.proc.stderr:
                problems.append("no warning about the sizes of foo_cache")
    return problems, r.output()


@case
def long_cache_names_cut_unique():
    """Names longer than 23 characters are cut, stay unique and NUL-terminated."""
    problems = []
    one, two = "a_rather_long_cache_name_one", "a_rather_long_cache_name_two"
    exact = "a_rather_long_cache_n~1"       # a real name that looks like a cut one
    fits = "b" * 23
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([ca(0, A, 8), ca(1, B, 8), ca(2, C, 8), ca(3, D, 8),
                               cf(4, A, one), cf(5, B, two), cf(6, C, exact), cf(7, D, fits)]))
        if converted(r, problems):
            names = cache_names(r.replay)
            expect(problems, "number of caches", len(names), 4)
            if len(names) == 4:
                expect(problems, "names that fit", names[2:], [exact, fits])
                for cut, full in zip(names[:2], (one, two)):
                    if len(cut) > 23 or not full.startswith(cut.split("~")[0]) or "~" not in cut:
                        problems.append(f"{full} stored as {cut!r}")
            for _, _, raw in r.replay["caches"]:
                if b"\0" not in raw:
                    problems.append(f"name {raw!r} is not NUL-terminated")
    return problems, r.output()


@case
def time_ops():
    """A TIME op before an op once 1000 us have passed since the last one; none at first;
    duration from the first to the last of the four events."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(4000000, A, 8), km(4000500, B, 8), km(4001000, C, 8),
                               kf(4001999, A), kf(4002000, B),
                               line(BASE_US + 4010000, "sched_switch", "prev_comm=sh"),
                               kf(4002500, C), kf(4500000, 0)]))
        if converted(r, problems):
            expect(problems, "ops", r.replay["ops"],
                   ["K0:8", "K1:8", "T1000", "K2:8", "F0", "T2000", "F1", "F2"])
            expect(problems, "duration_us", r.replay["header"]["duration_us"], 500000)
            expect_stats(problems, r.stats, time_ops=2, other_events=1, events=8)
    return problems, r.output()


@case
def header_counts_and_odd_lines():
    """Header counts and file size; comments, blank lines, other events and task names
    with spaces and dashes."""
    problems = []
    trace = "\n".join([
        "# tracer: nop", "#", "",
        km(0, A, 100, task="kworker/u2:0-mm-9"),
        ca(1, B, 48, task="my task-with-dashes-1234", gfp="GFP_KERNEL|__GFP_ZERO"),
        line(BASE_US + 2, "sched_wakeup", "comm=foo pid=3 prio=120 target_cpu=000"),
        "   ", km(3, C, 7, task="a b c-5"), cf(4, B, "small_cache", task="(sd-pam)-77"),
        ca(5, D, 48, task="x-1-2"), kf(2000, A), ""]) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, trace)
        if converted(r, problems):
            h = r.replay["header"]
            expect(problems, "header", [h[k] for k in HEADER_KEYS],
                   [b"TSRP", 1, 1, 7, 3, 4, 2, 2000])
            expect(problems, "file size", r.replay["size"], HEADER.size + CACHE.size * 1 + OP.size * 7)
            expect(problems, "ops", r.replay["ops"],
                   ["K0:100", "C1:0z", "K2:7", "F1", "C1:0", "T2000", "F0"])
            expect_stats(problems, r.stats, events=7, other_events=1, kmalloc=2,
                         kmem_cache_alloc=2, kfree=1, kmem_cache_free=1, peak_live_bytes=155,
                         time_ops=1)
    return problems, r.output()


@case
def gzip_input_and_stdin():
    """Gzip is recognised by its magic, not the name; "-" reads stdin; the same file results."""
    problems, outputs = [], []
    trace = text([km(0, A, 64), ca(1, B, 32), kf(1500, A), cf(1600, B, "thing")])
    with tempfile.TemporaryDirectory() as tmp:
        plain = convert(tmp, trace)
        zipped = convert(tmp, trace, name="trace.log", compress=True)
        outputs += [plain.output(), zipped.output()]
        out = os.path.join(tmp, "stdin.replay")
        piped = run(["--quiet", "-o", out, "-"], input=gzip.compress(trace.encode()))
        outputs.append(piped.stderr.decode())
        if converted(plain, problems) and converted(zipped, problems):
            expect(problems, "gzip ops", zipped.replay, plain.replay)
            expect(problems, "stdin status", piped.returncode, 0)
            if piped.returncode == 0:
                with open(out, "rb") as f:
                    expect(problems, "stdin ops", decode(f.read()), plain.replay)
            if piped.stderr:
                problems.append("--quiet printed something")
    return problems, "\n".join(outputs)


@case
def default_output_name():
    """Without -o the output is TRACE minus .gz/.txt/.ftrace, plus .replay; stdin needs -o."""
    problems, outputs = [], []
    trace = gzip.compress(text([km(0, A, 64)]).encode())
    with tempfile.TemporaryDirectory() as tmp:
        for name, want in (("boot.ftrace.gz", "boot.replay"), ("log.txt", "log.replay"),
                           ("run.trace", "run.trace.replay")):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(trace)
            r = run(["--quiet", path], text=True)
            outputs.append(r.stderr)
            if r.returncode or not os.path.exists(os.path.join(tmp, want)):
                problems.append(f"{name}: status {r.returncode}, no {want}")
        r = run(["-"], input=trace)
        if r.returncode != 2:
            problems.append(f"stdin without -o: status {r.returncode}, expected 2")
    return problems, "\n".join(outputs)


def malformed_case(label, lines, lineno, phrase):
    """The converter rejects lines[lineno - 1] with FILE:LINE and writes no file."""
    def check():
        problems = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.ftrace")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            r = run([path], text=True)
            if r.returncode != 1:
                problems.append(f"exit status {r.returncode}, expected 1")
            where = f"trace2replay: {path}:{lineno}: "
            if where not in r.stderr:
                problems.append(f"stderr lacks {where!r}")
            if phrase not in r.stderr:
                problems.append(f"stderr lacks {phrase!r}")
            left = sorted(os.listdir(tmp))
            if left != ["bad.ftrace"]:
                problems.append(f"files left behind: {left}")
        return problems, r.stdout + r.stderr
    check.__name__ = "trace2replay_malformed_" + label
    CASES.append(check)


GOOD = [km(0, A, 64), kf(1, A)]
malformed_case("bad_ptr", ["# tracer: nop", GOOD[0], GOOD[1],
                           km(2, B, 8).replace(f"ptr={B:016x}", "ptr=notahexvalue")], 4, "ptr")
malformed_case("missing_bytes_req", [GOOD[0], "", ca(2, B, 8).replace(" bytes_req=8", "")],
               3, "bytes_req")
malformed_case("garbage_line", ["#", "this is not an ftrace line at all", GOOD[0]], 2,
               "not an ftrace event line")
malformed_case("cache_free_without_name", [GOOD[0], cf(1, A, "x").replace(" name=x", "")], 2,
               "name")
malformed_case("bad_gfp_flags", [km(0, A, 8, gfp="GFP_KERNEL||")], 1, "gfp_flags")


@case
def nothing_to_replay_is_refused():
    """An empty trace, a comment-only one, and one with only frees: refused, no file."""
    problems, outputs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, lines in (("empty", []), ("comments", ["# tracer: nop", "#", "# entries"]),
                             ("frees-only", [kf(1, A), kf(2, B)])):
            path, out = os.path.join(tmp, label + ".ftrace"), os.path.join(tmp, label + ".replay")
            with open(path, "w") as f:
                f.write("".join(ln + "\n" for ln in lines))
            r = run(["-o", out, path], text=True)
            outputs.append(r.stderr)
            if r.returncode != 1 or "nothing to replay" not in r.stderr:
                problems.append(f"{label}: exit status {r.returncode}, stderr {r.stderr!r}")
            if os.path.exists(out):
                problems.append(f"{label}: a replay file was written")
    return problems, "\n".join(outputs)


@case
def stats_json_failure_leaves_no_replay():
    """If --stats-json cannot be written, no replay file is left either (and none was
    half-written): both are written, or neither."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        path, out = os.path.join(tmp, "t.ftrace"), os.path.join(tmp, "t.replay")
        with open(path, "w") as f:
            f.write(text([km(0, A, 64), kf(1, A)]))
        r = run(["-o", out, "--stats-json", os.path.join(tmp, "no", "such", "dir.json"), path],
                text=True)
        if r.returncode != 1 or "No such file or directory" not in r.stderr:
            problems.append(f"exit status {r.returncode}, stderr {r.stderr!r}")
        if os.path.exists(out):
            problems.append("the replay file was written although the statistics failed")
    return problems, r.stderr


# ---- --dump -------------------------------------------------------------------------

@case
def dump_valid_file():
    """--dump prints a summary, the caches and one line per op."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, A, 64, gfp="GFP_KERNEL|__GFP_ZERO"), ca(1, B, 32),
                               kf(1500, A), cf(1600, B, "thing")]))
        d = run(["--dump", os.path.join(tmp, "out.replay")], text=True)
        if converted(r, problems):
            expect(problems, "dump status", d.returncode, 0)
            lines = d.stdout.splitlines()
            ops = [ln for ln in lines if ln[:1].isdigit()]
            expect(problems, "op lines", len(ops), r.replay["header"]["nr_ops"])
            for phrase in ("ops 5", "slots 2", "allocations 2", "frees 2", "duration 1600 us",
                           "name=thing object_size=32", "kmalloc slot=0 size=64 zero",
                           "cache_alloc slot=1 cache=0 (thing)", "time us=1500", "free slot=1"):
                if phrase not in d.stdout:
                    problems.append(f"dump lacks {phrase!r}")
    return problems, d.stdout + d.stderr


def header(nr_caches, nr_ops, nr_slots, nr_allocs, nr_frees, duration=0):
    return HEADER.pack(MAGIC, VERSION, nr_caches, nr_ops, nr_slots, nr_allocs, nr_frees,
                       duration)


@case
def dump_malformed_files():
    """--dump rejects a truncated file, a wrong magic, a free of an empty slot, and headers
    whose sizes overflow or exceed the format (as the kernel does, before sizing anything
    from them: the 48-byte file with 0x15555556 slots once crashed both kernels)."""
    problems, outputs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, text([km(0, A, 64), ca(1, B, 32), kf(2, A), cf(3, B, "thing")]))
        if not converted(r, problems):
            return problems, r.output()
        with open(os.path.join(tmp, "out.replay"), "rb") as f:
            good = f.read()
        bad_free = header(0, 2, 1, 1, 1) + OP.pack(2, 0) + OP.pack(0, 16)
        wrapping = header(0, 2, 0x15555556, 1, 1) + OP.pack(0, 16) + OP.pack(2, 0)
        all_slots = header(0, 2, 0xffffffff, 1, 1) + OP.pack(0, 16) + OP.pack(2, 0)
        caches = header(0xffff, 0, 0, 0, 0) + bytes(CACHE.size * 0xffff)
        name = header(1, 0, 0, 0, 0) + CACHE.pack(8, 0, b"evil\x1b[2J")
        for label, data, phrase in (("truncated", good[:-3], "truncated"),
                                    ("magic", b"XXXX" + good[4:], "not a replay file"),
                                    ("empty-slot", bad_free, "op 0"),
                                    ("wrapping-slots", wrapping, "357913942 slots for 1 alloc"),
                                    ("all-slots", all_slots, "the format allows at most 16777216"),
                                    ("65535-caches", caches, "65535 caches, the format allows"),
                                    ("escape-name", name, "cache 0 is malformed")):
            path = os.path.join(tmp, label + ".replay")
            with open(path, "wb") as f:
                f.write(data)
            t0 = time.monotonic()
            d = run(["--dump", path], text=True)
            if time.monotonic() - t0 > 60:
                problems.append(f"{label}: took {time.monotonic() - t0:.1f} s")
            outputs.append(d.stderr)
            if d.returncode != 1:
                problems.append(f"{label}: exit status {d.returncode}, expected 1")
            if f"trace2replay: {path}: " not in d.stderr or phrase not in d.stderr:
                problems.append(f"{label}: stderr lacks the file name or {phrase!r}")
    return problems, "\n".join(outputs)


# ---- the shipped trace ------------------------------------------------------------

def count_events(path):
    """The four events in a gzipped trace, counted here (as zcat | grep -c would)."""
    counts = dict.fromkeys(("kmalloc", "kmem_cache_alloc", "kfree", "kmem_cache_free"), 0)
    with gzip.open(path, "rt") as f:
        for ln in f:
            for event in counts:
                if f": {event}: " in ln:
                    counts[event] += 1
    return counts


@case
def shipped_trace():
    """The real boot trace converts; its counts are those of the trace (the
    conversion's time is printed, not judged: a busy host takes longer)."""
    problems = []
    if not os.path.exists(SHIPPED):
        return [f"{SHIPPED} is missing"], ""
    counts = count_events(SHIPPED)
    # checked with zcat | grep -c: 18174 + 61599 allocations, 14710 + 18237 frees
    expect(problems, "counted events", counts, {"kmalloc": 18174, "kmem_cache_alloc": 61599,
                                                "kfree": 14710, "kmem_cache_free": 18237})
    with tempfile.TemporaryDirectory() as tmp:
        out, stats_path = os.path.join(tmp, "boot.replay"), os.path.join(tmp, "stats.json")
        t0 = time.monotonic()
        proc = run(["-o", out, "--stats-json", stats_path, SHIPPED], text=True)
        elapsed = time.monotonic() - t0
        r = Run(proc)
        if proc.returncode == 0:
            with open(out, "rb") as f, open(stats_path) as s:
                r = Run(proc, decode(f.read()), json.load(s))
        if converted(r, problems):
            h, s = r.replay["header"], r.stats
            expect(problems, "allocations + failed", h["nr_allocs"] + s["failed_allocs"],
                   counts["kmalloc"] + counts["kmem_cache_alloc"])
            expect(problems, "allocations + failed", h["nr_allocs"] + s["failed_allocs"], 79773)
            expect(problems, "frees - implicit + skipped",
                   h["nr_frees"] - s["implicit_frees"] + s["frees_skipped"],
                   counts["kfree"] + counts["kmem_cache_free"])
            expect_stats(problems, s, events=112720, other_events=0, **counts)
            # tests/traces/README.md: 13,711,692 bytes at the peak, by each object's bytes_req
            expect_stats(problems, s, peak_live_bytes_req=13711692)
            if s.get("peak_live_bytes", 0) < s.get("peak_live_bytes_req", 0):
                problems.append("the replay's peak is below the trace's")
    return problems, r.output() + f"\nconversion took {elapsed:.2f} s"


@case
def stats_sizes_live_at_end_and_page_floor():
    """The size histogram counts every allocation in its class, live_at_end_* what is
    never freed, and scripts/traces.py page_floor() packs each cache and kmalloc class
    on pages of its own at the peak: three 100-byte kmallocs (class 128: one page) and
    two 3000-byte objects of one cache (6000 bytes: two pages) make 3 pages."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import traces
    problems = []
    trace = text([km(0, 0xa0, 100), km(1, 0xa1, 100), km(2, 0xa2, 100),
                  ca(3, 0xb0, 3000), ca(4, 0xb1, 3000),
                  kf(5, 0xa0), cf(6, 0xb0, "big"), cf(7, 0xb1, "big"), km(8, 0xc0, 5000)])
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(tmp, trace)
        if converted(r, problems):
            expect_stats(problems, r.stats, live_at_end_objects=3,
                         live_at_end_bytes=200 + 5000)
            h = r.stats.get("size_histogram", {})
            expect(problems, "<=128", h.get("<=128"), 3)
            expect(problems, "<=4096", h.get("<=4096"), 2)
            expect(problems, ">4096", h.get(">4096"), 1)
            expect(problems, "histogram total", sum(h.values()), r.stats["allocs"])
            pages, peak, nr = traces.page_floor(os.path.join(tmp, "out.replay"))
            expect(problems, "floor pages", pages, 3)
            expect(problems, "floor peak", peak, 6300)
            expect(problems, "floor caches and classes", nr, 2)
    return problems, r.output()
