"""test_kernel_cost.py - the kernel's fast paths against the host glue
(scripts/kernel_cost.py), collected by run.py.

The goal: no instruction class of a kernel fast path is charged zero on
the host.  fast_paths_on_host reads the newest docs/results/fastpath-*.txt
(make fastpath: every allocator's kmalloc, kfree, kmem_cache_alloc and
kmem_cache_free, SMP and uniprocessor, from vmlinux) and fails if a path
holds a class (lock, cmpxchg, cmpxchg8b, pushf, popf, cli, sti,
segment-relative, privileged) that tests/host/include/arch/*.h neither
executes (HOST_EXECUTED_INSNS) nor charges (HOST_CHARGED_INSNS).  The
other cases check the classifier, the walker and the check on small
made-up inputs, so that the goal's case cannot pass by reading nothing.
"""
import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import kernel_cost  # noqa: E402

CASES = []


def case(fn):
    fn.__name__ = "kernel_cost_" + fn.__name__
    CASES.append(fn)
    return fn


@case
def classes():
    want = {
        "pushfl": {"pushf", "stores"},
        "popfl": {"popf", "loads"},
        "cli": {"cli"},
        "sti": {"sti"},
        "lock cmpxchg %ecx,(%edx)": {"lock", "cmpxchg", "loads", "stores"},
        "cmpxchg8b %fs:(%esi)": {"cmpxchg8b", "seg", "loads", "stores"},
        "mov %fs:0x10,%eax": {"seg", "loads"},
        "mov %eax,0x8(%ebx)": {"stores"},
        "addl $0x1,%fs:(%eax)": {"seg", "loads", "stores"},
        "cmp 0x4(%eax),%edx": {"loads"},
        "xchg %eax,(%edx)": {"lock", "loads", "stores"},
        "call 12345": {"call"},
        "outb %al,(%dx)": {"privileged"},
        "mov %eax,%cr3": {"privileged"},
        "lea 0x4(%eax),%edx": set(),
    }
    problems = []
    for text, classes in want.items():
        got = set(kernel_cost.classify(text)) - {"insns"}
        if got != classes:
            problems.append(f"{text!r}: {sorted(got)}, expected {sorted(classes)}")
    return problems, ""


@case
def walk_straight_line():
    """Branches not taken, jmp and call followed, ends at the entry's ret."""
    insns = {0x10: ("pushfl", 0x11), 0x11: ("pop %eax", 0x12), 0x12: ("cli", 0x13),
             0x13: ("test %eax,%eax", 0x14), 0x14: ("je 40", 0x15),
             0x15: ("call 30", 0x16), 0x16: ("jmp 20", 0x17), 0x17: ("ud2", None),
             0x20: ("push %eax", 0x21), 0x21: ("popfl", 0x22), 0x22: ("ret", 0x23),
             0x30: ("mov (%eax),%edx", 0x31), 0x31: ("ret", None),
             0x40: ("hlt", None)}
    path = kernel_cost.walk(insns, {0x30: "helper"}, 0x10)
    got = [a for a, _, _, _ in path]
    want = [0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x30, 0x31, 0x16, 0x20, 0x21, 0x22]
    problems = [] if got == want else [f"path {[hex(a) for a in got]}"]
    c = kernel_cost.count(path)
    for k, n in (("pushf", 1), ("popf", 1), ("cli", 1), ("call", 1), ("insns", 12)):
        if c.get(k) != n:
            problems.append(f"{k}: {c.get(k)}, expected {n}")
    return problems, ""


@case
def check_needs_execute_or_charge():
    """A class the glue neither executes nor charges is reported; the real
    glue (its headers) both executes pushf/popf and charges cli/sti."""
    problems = []
    counts = {"pushf": 1, "popf": 1, "cli": 1, "insns": 9}
    if kernel_cost.check(counts, {"pushf", "popf"}, set()) != ["cli"]:
        problems.append("cli neither executed nor charged was not reported")
    executed, charged = kernel_cost.host_glue()
    if kernel_cost.check(counts, executed, charged):
        problems.append(f"the host glue leaves out {kernel_cost.check(counts, executed, charged)}")
    # A copy of the glue without the charge of cli and sti: reported.
    with tempfile.TemporaryDirectory() as tmp:
        arch = os.path.join(tmp, "tests", "host", "include", "arch")
        shutil.copytree(os.path.join(ROOT, "tests", "host", "include", "arch"), arch)
        path = os.path.join(arch, "irqflags.h")
        text = open(path).read().replace('"cli sti"', '""')
        with open(path, "w") as f:
            f.write(text)
        ex, ch = kernel_cost.host_glue(tmp)
        if kernel_cost.check(counts, ex, ch) != ["cli"]:
            problems.append("glue without the cli charge not reported")
    return problems, ""


@case
def cli_sti_charged_by_the_cited_ratio():
    """cli and sti are charged 3/5 of a measured popf (the 80386 manual's
    CLI 3 / STI 3 / POPF 5 clocks), and the charge names its source."""
    problems = []
    costs = {"push_popf": 10.0, "pushf_pop": 3.0}
    got = kernel_cost.charge({"cli": 1, "sti": 1, "pushf": 1}, {"cli", "sti"}, costs)
    if got is None or abs(got - 12.0) > 1e-9:
        problems.append(f"cli + sti with popf at 10 cycles charged {got}, not 12")
    if kernel_cost.charge({"cli": 1}, {"cli"}, {"pushf_pop": 3.0}) is not None:
        problems.append("a charge was made without the popf figure it rests on")
    for k in ("cli", "sti"):
        if "80386" not in kernel_cost.CHARGED_COST[k][2]:
            problems.append(f"the {k} charge does not cite its table")
    return problems, ""


@case
def fast_paths_on_host():
    """The goal, on the newest make fastpath table."""
    files = sorted(glob.glob(os.path.join(ROOT, "docs", "results", "fastpath-*.txt")))
    if not files:
        return ["no docs/results/fastpath-*.txt (make fastpath)"], ""
    text = open(files[-1]).read()
    rows = kernel_cost.read_table(text)
    executed, charged = kernel_cost.host_glue()
    problems = []
    if len(rows) < 8:
        problems.append(f"{os.path.basename(files[-1])}: {len(rows)} fast paths read")
    for alloc, build, entry, counts in rows:
        missing = kernel_cost.check(counts, executed, charged)
        if missing:
            problems.append(f"{alloc} {build} {entry}: {', '.join(missing)} neither executed "
                            f"nor charged by the host glue")
    return problems, f"{len(rows)} fast paths in {os.path.basename(files[-1])}\n"
