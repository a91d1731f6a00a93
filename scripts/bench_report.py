"""bench_report - the tables scripts/bench prints: one per trace (print_report),
the summary over the traces (print_summary), the speed goals' verdicts
(print_speed_goal, print_sheaves_goals) and the kernel cost estimate (print_kernel_cost).

scripts/bench measures and checks (see its top comment for what each row
means); this module only lays out what it measured: res maps a column's
name to its figures (summarise() in scripts/bench), or None where the
column has none.
"""
import os
import statistics
import subprocess

from i386_probe import skip_reason
import allocators
import kernel_cost
import traces

KERNELS = tuple(allocators.present())
# the ratio columns' short names, to fit their width
SHORT = {"slub_tiny": "TINY", "slob_fast": "fast"}
# the ratio columns, (allocator, against, title): each kernel column but
# SLAB against SLAB, and SLUB_TINY against SLUB
RATIOS = tuple((k, "slab", SHORT.get(k, allocators.label(k)) + "/SLAB")
               for k in KERNELS if k != "slab") + (("slub_tiny", "slub", "TINY/SLUB"),)
# the parts of bench-timed --breakdown's line, and their rows' labels
BREAKDOWN_PARTS = (("rounding", "rounding to classes and pages"), ("tail", "slab tails"),
                   ("descriptors", "descriptors; SLUB: per-CPU data"),
                   ("free in slabs", "free objects on slab lists"),
                   ("magazines", "in magazines; SLUB: CPUs' slabs"),
                   ("own objects", "own objects (caches, magazines)"))


def col_width(cols):
    """Each column's width: 10, or the longest label and two spaces (so
    "SLUB-sheaves" never runs into the label before it)."""
    return max([10] + [len(c.label) + 2 for c in cols])


def print_report(cols, res, args, stats):
    """One trace's table: a row per figure, a column per allocator and peer,
    then the ratio columns."""
    n, nf = stats["allocs"], stats["frees"]
    peers = [c for c in cols if not c.kernel]
    print(f"tinyslab bench: trace {traces.name(args.trace)}: {stats['events']} events, "
          f"{n} allocations ({stats['zeroed']} zeroed), {nf} frees; peak live "
          f"{stats['peak_live_bytes']} bytes in {stats['peak_live_objects']} objects; "
          f"{stats['duration_us'] / 1e6:.2f} s")
    where = (f"the layout of a {args.mem} MiB QEMU machine" if args.kernel
             else f"{args.mem} MiB of plain memory (--no-kernel)")
    flags = "-m32 -O2 -fno-pie" if args.kernel_bits == 32 else "64-bit, -O2 -fno-pie"
    print(f"{', '.join(c.label for c in cols if c.kernel)}: host build of mm/ ({flags}) on {where}"
          + ("; peers: the same replay on malloc()" if peers else ""))
    if args.kernel_bits == 64:
        print(f"  64-bit, because {skip_reason(args.i386_why)}; glibc -m32 left out")
    width = col_width(cols)
    names = {c.name for c in cols}
    ratios = [(k, base, t) for k, base, t in RATIOS if base in names and k in names]
    print(f"{'':38s}" + "".join(f"{c.label:>{width}s}" for c in cols)
          + "".join(f"{t:>{width + 1}s}" for _, _, t in ratios))

    def row(label, key, fmt="{:.0f}", compare=True):
        values = []
        for c in cols:
            s = res.get(c.name)
            values.append(s.get(key) if s else None)
        cells = "".join(f"{fmt.format(v) if v is not None else '-':>{width}s}" for v in values)
        tail = ""
        for k, base, _ in ratios if compare else ():
            a, b = (res.get(base) or {}).get(key), (res.get(k) or {}).get(key)
            tail += f"{b / a:>{width}.2f}x" if a and b is not None else f"{'-':>{width + 1}s}"
        print(f"  {label:36s}{cells}{tail}")

    print(f"  {'word size':36s}" + "".join(f"{str(c.bits) + '-bit':>{width}s}" for c in cols))
    print(f"time, ns (TSC at {statistics.median(s['ghz'] for s in res.values() if s):.2f} GHz)")
    runs = f"{args.runs} run" + ("s" if args.runs > 1 else "")
    row(f"per allocation, median of {runs}", "ns_alloc", "{:.1f}")
    row(f"per free, median of {runs}", "ns_free", "{:.1f}")
    row(f"per allocation, best-of-{args.runs} mean", "best_alloc", "{:.1f}")
    row(f"per free, best-of-{args.runs} mean", "best_free", "{:.1f}")
    row(f"per operation, median of {runs}", "ns_op", "{:.1f}")
    row(f"per operation, best-of-{args.runs} mean", "best_op", "{:.1f}")
    print(f"cycles per call (TSC ticks, not instructions; each call's best of {runs})")
    for kind, what in (("alloc", "allocation"), ("free", "free")):
        for q in ("p50", "p99", "p99.9", "max"):
            row(f"{what} {q}", f"{q.replace('.', '')}_{kind}")
    row("empty call, same TSC reads (floor)", "floor", compare=False)
    row("host page faults in the timed replay", "faults", compare=False)
    if args.callgrind:
        print("instructions (callgrind; inside the allocator's call only)")
        row("per allocation", "ir_alloc")
        row("per free", "ir_free")
        row("harness per allocation (apart)", "harness_alloc", compare=False)
        row("harness per free (apart)", "harness_free", compare=False)
        if args.step:
            row(f"allocation median, stepped (1 in {args.step})", "step_alloc_median")
            row(f"free median, stepped (1 in {args.step})", "step_free_median")
            row(f"allocation max, stepped (1 in {args.step})", "step_alloc_max")
            row(f"free max, stepped (1 in {args.step})", "step_free_max")
    else:
        print("instructions: valgrind not installed, or --no-callgrind: not counted")
    print("memory at the trace's peak of live bytes")
    row("held (kB)", "held_kb")
    row("overhead (held - live) / live, %", "overhead", "{:.1f}")
    if peers:
        row("resident growth, highest (kB)", "rss_growth")
    row("allocation failures", "failures", compare=False)
    row("corruptions", "corruptions", compare=False)
    if any(c.breakdown for c in cols):
        print("overhead at the peak, part by part, % of live bytes (bench-timed --breakdown)")
        for key, label in (("total", "held - live"),) + BREAKDOWN_PARTS:
            cells = "".join(f"{c.breakdown[key]:>{width}.2f}" if c.breakdown and key in
                            c.breakdown else f"{'-':>{width}s}" for c in cols)
            print(f"  {label:36s}{cells}")


# Goal G7 in docs/goals.md: SLOB's ns per operation at most this many times SLAB's
SLOB_SPEED_BOUND = 4.0


def print_speed_goal(results, cols):
    """SLOB's ns per operation against SLAB's on each trace, and the goal's verdict."""
    if not {"slab", "slob"} <= {c.name for c in cols}:
        return
    ratios = [(name, res["slob"]["best_op"] / res["slab"]["best_op"]) for name, res in results
              if res.get("slab") and res.get("slob") and res["slab"].get("best_op") and
              res["slob"].get("best_op") is not None]
    missed = [f"{n} x{r:.2f}" for n, r in ratios if r > SLOB_SPEED_BOUND]
    print(f"Speed goal G7 (docs/goals.md): SLOB at most {SLOB_SPEED_BOUND:g} times SLAB's ns per operation: "
          + ("met" if not missed else "NOT met: " + ", ".join(missed))
          + " (" + ", ".join(f"{n} x{r:.2f}" for n, r in ratios) + ")")


# Goal G10 in docs/goals.md: SLUB-sheaves' instructions per allocation at
# least this much below every other column's, on every trace
SHEAVES_ALLOC_MARGIN = 0.05


def figure(res, name, key):
    """res[name][key], or None where the column or the figure is missing."""
    return (res.get(name) or {}).get(key)


def sheaves_goal_lines(results, cols):
    """Goals G10 (instructions) and G11 (ns per operation against SLAB's)
    of SLUB-sheaves over the traces, with their verdicts (a trace without
    the figures counts as not met); [] without a SLUB-sheaves column."""
    names = [c.name for c in cols]
    if "slub_sheaves" not in names:
        return []
    label = {c.name: c.label for c in cols}
    margin = f"{SHEAVES_ALLOC_MARGIN * 100:g}%"
    # (the goal, the figure, the columns it is held against, whether SLUB-sheaves'
    # figure own meets it against their lowest, low, and how a trace is shown)
    goals = (("Goal G10 (docs/goals.md): SLUB-sheaves' instructions per allocation at least "
              f"{margin} fewer than every other column's", "ir_alloc",
              [n for n in names if n != "slub_sheaves"],
              lambda own, low: own <= (1 - SHEAVES_ALLOC_MARGIN) * low,
              lambda own, low, who: f"{own:.0f} against {who}'s {low:.0f}"),
             ("Goal G10 (docs/goals.md): SLUB-sheaves' instructions per free fewer than SLAB's "
              "and SLUB's", "ir_free", ["slab", "slub"], lambda own, low: own < low,
              lambda own, low, who: f"{own:.0f} against {who}'s {low:.0f}"),
             ("Goal G11 (docs/goals.md): SLUB-sheaves' ns per operation (best-of mean) at most "
              "SLAB's", "best_op", ["slab"], lambda own, low: own <= low,
              lambda own, low, who: f"x{own / low:.2f}"))
    lines = []
    for title, key, rivals, meets, show in goals:
        missed, shown = [], []
        for trace, res in results:
            own = figure(res, "slub_sheaves", key)
            held = [(figure(res, n, key), n) for n in rivals if figure(res, n, key)]
            if own is None or not held:
                missed.append(f"{trace} (not measured)")
                continue
            low, who = min(held)
            shown.append(f"{trace} " + show(own, low, label[who]))
            if not meets(own, low):
                missed.append(trace)
        verdict = "not measured" if not shown else \
            ("met" if not missed else "NOT met on " + ", ".join(missed)) + \
            " (" + "; ".join(shown) + ")"
        lines.append(f"{title}: {verdict}")
    return lines


def print_sheaves_goals(results, cols):
    for line in sheaves_goal_lines(results, cols):
        print(line)


def summary_rows(results, cols, key, spec, width):
    """A row per trace of the summary: each column's figure key, "-" where
    it has none."""
    for name, res in results:
        cells = "".join(f"{res[c.name][key]:>{width}{spec}}" if res.get(c.name) and
                        res[c.name].get(key) is not None else f"{'-':>{width}s}"
                        for c in cols)
        print(f"  {name:24s}{cells}")


def print_summary(results, cols):
    """Per trace and column: ns per operation (best-of mean) and the overhead at the peak."""
    width = col_width(cols)
    print(f"\nsummary over {len(results)} traces: ns per operation (allocations and frees "
          "weighted), best-of mean, timed pass after a warm-up")
    print(f"{'':26s}" + "".join(f"{c.label:>{width}s}" for c in cols))
    summary_rows(results, cols, "best_op", ".1f", width)
    print("host page faults in the timed replay")
    summary_rows(results, cols, "faults", ".0f", width)
    print("overhead at the peak of live bytes, % (the allocators: pages held; peers: their "
          "footprint)")
    summary_rows(results, cols, "overhead", ".1f", width)


def print_summary_worst(results, cols):
    """Per trace and column: instructions per operation (callgrind) and the
    kernel's worst cases (instructions per call under -icount)."""
    width = col_width(cols)
    print("instructions per operation (callgrind, inside the allocator's call; allocations "
          "and frees weighted)")
    summary_rows(results, cols, "ir_op", ".1f", width)
    for key, what in (("k_p999_alloc", "allocation p99.9"), ("k_max_alloc", "allocation max"),
                      ("k_p999_free", "free p99.9"), ("k_max_free", "free max")):
        print(f"kernel instructions per call, {what} (QEMU -icount)")
        summary_rows(results, cols, key, ".0f", width)


def print_load(when):
    """The machine's load average, which the host's times depend on (a
    shared machine's figures are noisier: docs/benchmarks.md)."""
    try:
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
    except OSError:
        return
    print(f"bench: load average {load} {when} ({os.cpu_count()} CPUs)")


def print_kernel_cost(args, results, cols):
    """This CPU's cost of the kernel fast paths' instructions (bench-insns), and
    per allocator the host's ns/op and instructions beside the kernel's fast
    path and the estimate of its cost (scripts/kernel_cost.py), on the first
    trace.  Returns the problems."""
    binary = os.path.join(args.build, "host", "slab",
                          "bench-insns" + ("-64" if args.kernel_bits == 64 else ""))
    if not os.access(binary, os.X_OK):
        print(f"\nkernel cost estimate: {binary} is missing (make bench builds it)")
        return []
    r = subprocess.run([binary], capture_output=True, text=True)
    print("\n" + r.stdout.rstrip())
    if r.returncode:
        return [f"{binary} failed (status {r.returncode})"]
    costs = kernel_cost.read_insn_costs(r.stdout)
    name, res = results[0]
    host = {}
    for c in cols:
        s = res.get(c.name)
        if c.kernel and s:
            host[c.label] = (s.get("best_op"), s["ghz"], s.get("ir_alloc"), s.get("ir_free"),
                             s["allocs"], s["frees"])
    print(f"trace {name}:")
    for line in kernel_cost.estimate_lines([c.label for c in cols if c.kernel], host, costs,
                                           args.kernel_bits):
        print(line)
    return []
