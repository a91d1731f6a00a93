#!/usr/bin/python3
"""kernel_cost.py - what each allocator's kernel fast path executes, and what
the host build charges for it (make fastpath, make bench).

The fast path of an entry point (kmalloc, kfree, kmem_cache_alloc,
kmem_cache_free: the raw __ names of mm/, which the kernel's API names
alias) is read from vmlinux itself (objdump -d of the i686 kernel), by
this definition: the instructions executed when every test on the way
comes out the way the compiler laid out as the straight line.  From the
function's entry, each instruction is taken in address order; a
conditional branch is not taken (the fall-through is the path: the
allocators mark their slow cases unlikely(), which GCC moves out of line);
an unconditional jmp is followed (into another function too, a tail
call); a direct call is followed into its callee, whose own fast path
counts, and the walk resumes after the call when the callee returns; it
ends at the entry function's ret.  A jmp back to an instruction already on
the path ends it too (a loop the straight line would not leave: marked
"loop").  Indirect calls and jumps are counted, not followed.  The listing
of every path is printed (make fastpath), so that a reader can check the
path is the common case.

Each instruction is classified: loads and stores (a memory operand read,
written or both; push and pop count as stores and loads), lock-prefixed
instructions (and xchg with memory, locked without a prefix),
cmpxchg/cmpxchg8b, pushf, popf, cli, sti, %fs- or %gs-relative accesses,
calls; any other privileged instruction is its own class.

The host glue says what it does of each class (tests/host/include/arch/*.h:
HOST_EXECUTED_INSNS, HOST_CHARGED_INSNS): executed the same or charged at
a cost.  check() fails for a class of a kernel fast path that the host
neither executes nor charges (tests/scripts/test_kernel_cost.py runs it on
the newest docs/results/fastpath-*.txt).

Costs per instruction class: measured on this CPU in user mode by
bench-insns (tests/host/bench_insns.c) where the instruction is legal
there; cli and sti are not (they fault at CPL 3), see CHARGED_COST.
"""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJDUMP = os.environ.get("OBJDUMP", "i686-linux-gnu-objdump")
NM = os.environ.get("NM", "i686-linux-gnu-nm")
ENTRIES = (("kmalloc", "__kmalloc"), ("kfree", "__kfree"),
           ("kmem_cache_alloc", "__kmem_cache_alloc"), ("kmem_cache_free", "__kmem_cache_free"))
# The classes the table counts, in its column order (insns, loads and stores first)
CLASSES = ("lock", "cmpxchg", "cmpxchg8b", "pushf", "popf", "cli", "sti", "seg", "call",
           "privileged")
# Classes the host must execute or charge (the others are ordinary
# instructions, which the host build executes as compiled C)
SPECIAL = ("lock", "cmpxchg", "cmpxchg8b", "pushf", "popf", "cli", "sti", "seg",
           "privileged")
PRIVILEGED = re.compile(r"^(hlt|in[bwl]?|out[bwl]?|ins[bwl]|outs[bwl]|lgdt|lidt|ltr|lldt|"
                        r"invlpg|wbinvd|invd|rdmsr|wrmsr|iret[lwd]?|clts|sysexit|sysret|"
                        r"swapgs|lmsw)$")
HOST_HEADERS = ("irqflags.h", "percpu.h", "spinlock.h")
# The bench-insns figure (TSC cycles) that costs one instruction of a class
# on this CPU, in user mode.
MEASURED = {"pushf": "pushf_pop", "popf": "push_popf", "cmpxchg8b": "cmpxchg8b",
            "lock": "lock_add_mem"}
# cli and sti cannot run in user mode, so they are charged from a published
# table: the vendor's own for the kernel's target CPU, the Intel 80386
# Programmer's Reference Manual (1986), chapter 17, gives CLI 3 clocks, STI
# 3 and POPF 5.  Each is charged that fraction of one popf measured on this
# CPU (bench-insns push_popf), so the charge is in this CPU's cycles and
# keeps the vendor's ratio (docs/benchmarks.md, "What the host executes").
# (class: (bench-insns figure, factor, what the charge rests on))
CHARGED_COST = {
    "cli": ("push_popf", 3 / 5, "3/5 of a measured popf (Intel 80386 PRM ch. 17: CLI 3, "
                                "POPF 5 clocks)"),
    "sti": ("push_popf", 3 / 5, "3/5 of a measured popf (Intel 80386 PRM ch. 17: STI 3, "
                                "POPF 5 clocks)"),
}


def unit_cost(k, costs):
    """Cycles one instruction of class k costs on this CPU: measured, or
    charged from CHARGED_COST; None where bench-insns lacks the figure."""
    figure, factor, _ = CHARGED_COST.get(k, (MEASURED.get(k), 1, ""))
    return costs[figure] * factor if figure in costs else None


def host_glue(root=ROOT):
    """(executed, charged): the instruction classes the host glue executes
    as the kernel does and those it charges, from its headers."""
    executed, charged = set(), set()
    for h in HOST_HEADERS:
        path = os.path.join(root, "tests", "host", "include", "arch", h)
        text = open(path).read()
        for kind, dest in (("EXECUTED", executed), ("CHARGED", charged)):
            for m in re.finditer(rf"#define\s+HOST_{kind}_INSNS\w*\s+\"([^\"]*)\"", text):
                dest.update(m.group(1).split())
    return executed, charged


# ---- reading vmlinux --------------------------------------------------------------------

def symbols(vmlinux):
    """({name: (address, size)}, {address: name}) of the text symbols."""
    out = subprocess.run([NM, "-S", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    syms, by_addr = {}, {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
            by_addr.setdefault(int(f[0], 16), f[3])
    return syms, by_addr


def disassemble(vmlinux):
    """{address: (instruction text, next address)} of the whole text."""
    out = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", "-j", ".text", vmlinux],
                         capture_output=True, text=True, check=True).stdout
    insns, prev = {}, None
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*\S)\s*$", line)
        if not m:
            continue
        a = int(m.group(1), 16)
        text = re.sub(r"\s+", " ", m.group(2))
        text = re.sub(r"\s*<.*?>", "", text)
        insns[a] = [text, None]
        if prev is not None:
            insns[prev][1] = a
        prev = a
    return {a: tuple(v) for a, v in insns.items()}


def split(text):
    """(prefixes, mnemonic, operands)."""
    words = text.split(" ", 1)
    prefixes = []
    while words[0] in ("lock", "rep", "repz", "repnz", "repe", "repne", "data16", "cs",
                       "ds", "notrack", "bnd"):
        prefixes.append(words[0])
        words = words[1].split(" ", 1) if len(words) > 1 else [""]
    return prefixes, words[0], words[1] if len(words) > 1 else ""


def classify(text):
    """{class: 1} of one instruction (AT&T syntax, as objdump prints)."""
    prefixes, mn, ops = split(text)
    c = {"insns": 1}
    if PRIVILEGED.match(mn) or re.search(r"%(cr|dr)\d", ops):
        c["privileged"] = 1
        return c
    mem = "(" in ops or re.search(r"%[fg]s:", ops) or re.match(r"0x[0-9a-f]+$", ops.split(",")[-1])
    operands = [o for o in re.split(r",(?![^(]*\))", ops) if o]
    if mn.startswith(("push",)) and not mn.startswith("pushf"):
        c["stores"] = 1
        if mem:
            c["loads"] = 1
    elif mn.startswith("pop") and not mn.startswith("popf"):
        c["loads"] = 1
        if mem:
            c["stores"] = 1
    elif mn.startswith("pushf"):
        c["pushf"] = c["stores"] = 1
    elif mn.startswith("popf"):
        c["popf"] = c["loads"] = 1
    elif mem and not mn.startswith(("lea", "nop", "j", "call")):
        dest = operands[-1] if operands else ""
        dest_mem = "(" in dest or ":" in dest
        read_only = mn.startswith(("cmp", "test", "bt")) and not mn.startswith("cmpxchg")
        if not dest_mem or read_only or len(operands) == 1 and mn.startswith(("mul", "imul", "div", "idiv")):
            c["loads"] = 1
        elif mn.startswith("mov") or mn.startswith("set") or mn.startswith("stos"):
            c["stores"] = 1
        else:
            c["loads"] = c["stores"] = 1
    if mn.startswith("call"):
        c["call"] = 1
        if mem:
            c["loads"] = 1
    if "lock" in prefixes or (mn.startswith("xchg") and mem):
        c["lock"] = 1
    if mn.startswith("cmpxchg8b"):
        c["cmpxchg8b"] = 1
    elif mn.startswith("cmpxchg"):
        c["cmpxchg"] = 1
    if mn in ("cli", "sti"):
        c[mn] = 1
    if re.search(r"%[fg]s:", ops):
        c["seg"] = 1
    return c


# ---- the fast path ------------------------------------------------------------------------

# Functions a fast path does not call: the slow paths, the page
# allocator, warnings, and the zeroing (memset, which the host build runs
# the same, __GFP_ZERO only).
SLOW = re.compile(r"slow|refill|grow|bad|warn|printk|panic|flush|oom|pages|shrink|"
                  r"new_slab|discard|reap|drain|memset|memcpy|bug|fail|deactivate|unfreeze|"
                  r"partial|heap_walk|more|extend|not_an|invalid|report|refuse|oops|die|abort|tas_step|wait|relax|contend|page_update|"
                  r"locked_out")


def walk(insns, by_addr, start):
    """[(address, text, depth, note)] of the fast path from start to its ret
    (see the top comment), or [] if no path qualifies."""
    memo, active = {}, set()

    def best(a):
        if a in memo:
            return memo[a]
        if a in active or a not in insns:
            return None
        active.add(a)
        r = step(a)
        active.discard(a)
        memo[a] = r
        return r

    def score(path):
        special = calls = 0
        for _, text, _, _ in path:
            c = classify(text)
            special += sum(c.get(k, 0) for k in SPECIAL)
            calls += c.get("call", 0)
        return (special, -calls, len(path))

    def longer(*paths):
        paths = [p for p in paths if p is not None]
        return max(paths, key=score) if paths else None

    def step(a):
        text, nxt = insns[a]
        _, mn, ops = split(text)
        m = re.match(r"([0-9a-f]+)$", ops)
        target = int(m.group(1), 16) if m else None
        here = (a, text, 0, "")
        if mn.startswith("ret"):
            return [here]
        if mn in ("ud2", "hlt", "int3") or mn.startswith(("ljmp", "lcall", "iret")):
            return None
        if mn.startswith("jmp"):
            if target is None:
                return None
            rest = best(target)
            return None if rest is None else [here] + rest
        if mn.startswith("j") or mn.startswith("loop"):
            taken = best(target) if target is not None else None
            rest = longer(best(nxt) if nxt else None, taken)
            return None if rest is None else [here] + rest
        if mn.startswith("call"):
            name = by_addr.get(target, "") if target is not None else ""
            if target is not None and (SLOW.search(name) or target not in insns):
                return None
            rest = best(nxt) if nxt else None
            if rest is None:
                return None
            if target is None:      # a cache's constructor or destructor: not the fast path
                return None
            sub = walk(insns, by_addr, target)
            if not sub:
                return None
            return [(a, text, 0, name)] + [(x, t, d + 1, n) for x, t, d, n in sub] + rest
        rest = best(nxt) if nxt else None
        return None if rest is None else [here] + rest

    return best(start) or []


def fast_paths(vmlinux):
    """{entry: path} for the four entry points; a missing one is absent."""
    syms, by_addr = symbols(vmlinux)
    insns = disassemble(vmlinux)
    out = {}
    for api, raw in ENTRIES:
        name = raw if raw in syms else api if api in syms else None
        if name:
            out[api] = walk(insns, by_addr, syms[name][0])
    return out


def count(path):
    """{class: count} of a path."""
    total = {}
    for _, text, _, _ in path:
        for k, v in classify(text).items():
            total[k] = total.get(k, 0) + v
    return total


def check(counts, executed, charged):
    """The special classes in counts that the host neither executes nor charges."""
    return sorted(k for k in SPECIAL if counts.get(k) and k not in executed | charged)


# ---- costs ----------------------------------------------------------------------------------

def read_insn_costs(text):
    """{figure name: cycles} of bench-insns' output."""
    return {m.group(1): float(m.group(2)) for m in
            re.finditer(r"^bench-insns: (\w+)\s+([\d.]+)\s", text, re.M)}


def charge(counts, charged, costs):
    """Cycles the host charges for one call of this path: each charged
    class's count times its cost (None where a cost is missing)."""
    total = 0.0
    for k in charged:
        n = counts.get(k, 0)
        if not n:
            continue
        cost = unit_cost(k, costs)
        if cost is None:
            return None
        total += n * cost
    return total


def table(results, executed, charged, costs=None):
    """The lines of the table: results is [(allocator label, build, {entry: path})]."""
    cols = ("insns", "loads", "stores") + CLASSES
    head = f"{'allocator':12s} {'build':5s} {'entry':17s}" + "".join(f"{c:>11s}" for c in cols)
    if costs:
        head += f"{'charged':>11s}"
    lines = [head]
    for label, build, paths in results:
        for api, _ in ENTRIES:
            if api not in paths:
                lines.append(f"{label:12s} {build:5s} {api:17s}  (no such function)")
                continue
            c = count(paths[api])
            row = f"{label:12s} {build:5s} {api:17s}" + "".join(f"{c.get(k, 0):>11d}" for k in cols)
            if costs:
                ch = charge(c, charged, costs)
                row += f"{ch:>11.1f}" if ch is not None else f"{'-':>11s}"
            missing = check(c, executed, charged)
            if missing:
                row += "  NOT ON THE HOST: " + ", ".join(missing)
            lines.append(row)
    return lines


def read_table(text):
    """[(allocator, build, entry, {class: count})] from a table's lines."""
    cols = None
    rows = []
    for line in text.splitlines():
        f = line.split()
        if f[:3] == ["allocator", "build", "entry"]:
            cols = f[3:]
            continue
        if cols and len(f) >= 3 + len(CLASSES) + 3 and all(x.isdigit() for x in f[3:3 + len(cols) - (1 if cols[-1] == "charged" else 0)]):
            names = [c for c in cols if c != "charged"]
            rows.append((f[0], f[1], f[2], dict(zip(names, (int(x) for x in f[3:3 + len(names)])))))
    return rows


# ---- make bench: the host figures beside the kernel's fast paths ---------------------------

# What one call of the host build executes differently from the kernel's
# fast path, in cycles, by class (docs/benchmarks.md lists them): the host's
# double-word exchange is cmpxchg16b at 64 bits where the kernel's is
# cmpxchg8b, and its per-CPU address is one more add through %fs.
def host_extra(counts, costs, bits):
    """Cycles the host executes beyond the kernel for one call of this path."""
    extra = 0.0
    if bits == 64 and counts.get("cmpxchg8b"):
        extra += counts["cmpxchg8b"] * (costs.get("cmpxchg16b", 0) - costs.get("cmpxchg8b", 0))
    extra += counts.get("seg", 0) * costs.get("seg_add", 0)
    return extra


def newest_table(root=ROOT):
    """(file name, rows of read_table) of the newest docs/results/fastpath-*.txt."""
    import glob
    files = sorted(glob.glob(os.path.join(root, "docs", "results", "fastpath-*.txt")))
    if not files:
        return None, []
    with open(files[-1]) as f:
        return os.path.basename(files[-1]), read_table(f.read())


def estimate_lines(labels, host, costs, bits, build="smp"):
    """The lines of make bench's kernel-cost table.  labels: the allocators'
    labels in table order; host: {label: (best ns/op, GHz, instructions per
    allocation, per free, allocations, frees)} from the default trace."""
    name, rows = newest_table()
    executed, charged = host_glue()
    if not rows:
        return ["kernel fast paths: no docs/results/fastpath-*.txt (make fastpath)"]
    by = {(a, b, e): c for a, b, e, c in rows}
    lines = [f"kernel cost estimate per operation ({name}, {build} kernel; cycles from "
             f"bench-insns on this CPU; cli, sti: {CHARGED_COST['cli'][2]})",
             f"{'':14s}{'host ns/op':>11s}{'host insns':>11s}{'kernel insns':>13s}"
             f"{'charged cyc':>12s}{'host extra':>11s}{'kernel ns/op':>13s}"]
    for label in labels:
        if label not in host:
            continue
        ns, ghz, ir_a, ir_f, n_a, n_f = host[label]
        per = {}
        for kind, entries in (("alloc", ("kmalloc", "kmem_cache_alloc")),
                              ("free", ("kfree", "kmem_cache_free"))):
            got = [by[(label, build, e)] for e in entries if (label, build, e) in by]
            if not got:
                per = None
                break
            n = len(got)
            per[kind] = (sum(c["insns"] for c in got) / n,
                         sum(charge(c, charged, costs) or 0 for c in got) / n,
                         sum(host_extra(c, costs, bits) for c in got) / n)
        if per is None or ns is None or not (n_a + n_f):
            lines.append(f"  {label:12s}  (no figures)")
            continue
        w = lambda i: (per["alloc"][i] * n_a + per["free"][i] * n_f) / (n_a + n_f)  # noqa: E731
        host_ir = ((ir_a or 0) * n_a + (ir_f or 0) * n_f) / (n_a + n_f) if ir_a else None
        est = ns + (w(1) - w(2)) / ghz
        lines.append(f"  {label:12s}{ns:>11.1f}" +
                     (f"{host_ir:>11.0f}" if host_ir is not None else f"{'-':>11s}") +
                     f"{w(0):>13.0f}{w(1):>12.1f}{w(2):>11.1f}{est:>13.1f}")
    lines.append("  host insns: callgrind, per operation (allocations and frees weighted); "
                 "kernel insns: the fast\n  paths' mean of kmalloc and kmem_cache_alloc, of "
                 "kfree and kmem_cache_free, weighted alike;\n  charged: cycles of the "
                 "instructions the host does not execute (cli, sti); host extra: cycles\n"
                 "  the host executes beyond the kernel (cmpxchg16b for cmpxchg8b, the "
                 "per-CPU add);\n  kernel ns/op = host ns/op + (charged - host extra) / GHz")
    return lines


def differences_lines(costs, rows, date):
    """The list of what the host build executes differently from the kernel's
    fast paths, each with its size in cycles on this CPU (docs/benchmarks.md's
    block, written by make fastpath)."""
    c = lambda k: costs.get(k)  # noqa: E731
    fmt = lambda v: f"{v:.1f}" if v is not None else "?"  # noqa: E731
    has = lambda k: sorted({a for a, _, _, n in rows if n.get(k)})  # noqa: E731
    diff16 = (c("cmpxchg16b") - c("cmpxchg8b")) if c("cmpxchg16b") is not None and \
        c("cmpxchg8b") is not None else None
    return [
        f"Figures: docs/results/fastpath-{date}.txt (bench-insns, TSC cycles on the machine "
        "that ran make fastpath).",
        "",
        "| kernel fast path executes | the host build | size per instruction, cycles | "
        "allocators |",
        "|---|---|---|---|",
        f"| pushf; pop (local_irq_save) | the same, executed | {fmt(c('pushf_pop'))} | "
        f"{', '.join(has('pushf')) or '-'} |",
        f"| push; popf (local_irq_restore) | the same, executed (at CPL 3 popf leaves IF "
        f"alone; at CPL 0 it writes IF and may cost more: not measurable here) | "
        f"{fmt(c('push_popf'))} | {', '.join(has('popf')) or '-'} |",
        f"| cli | not executed (faults at CPL 3); charged: {CHARGED_COST['cli'][2]} | "
        f"{fmt(unit_cost('cli', costs))} | {', '.join(has('cli')) or '-'} |",
        f"| sti | not executed; charged: {CHARGED_COST['sti'][2]} | "
        f"{fmt(unit_cost('sti', costs))} | {', '.join(has('sti')) or '-'} |",
        f"| cmpxchg8b %fs:(...), no lock | cmpxchg16b at 64 bits (cmpxchg8b at -m32); "
        f"host extra = cmpxchg16b - cmpxchg8b | {fmt(diff16)} | "
        f"{', '.join(has('cmpxchg8b')) or '-'} |",
        f"| a per-CPU access with a %fs prefix | the access plus an add of the "
        f"thread-local offset through %fs (host extra) | {fmt(c('seg_add'))} | "
        f"{', '.join(has('seg')) or '-'} |",
        f"| lock-prefixed instructions (spinlocks, counters) | the same C, executed | "
        f"{fmt(c('lock_add_mem'))} | {', '.join(has('lock')) or '-'} |",
        "| the emulated interrupt flag | a thread-local store at each disable and restore, "
        "a load and a test of the pending word at each restore (host extra, not "
        "subtracted) | about 1 | every allocator that saves and restores |",
        "| the code itself | clang -O2 for x86-64 (or -m32) against GCC -Os for i686: "
        "instruction counts differ (make bench prints both) | - | all |",
    ]
