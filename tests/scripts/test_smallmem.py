"""test_smallmem.py - tests of scripts/smallmem's log parsing and tables, collected
by run.py.

No kernel is booted: the parsers get serial logs shaped as the kernel prints
them (timestamps included), and the verdicts must come out right: a clean
boot's figures, a trace that does not fit (its failures counted, its
figures kept), a panic for want of memory, a crash, a timeout, the
replay's tables not fitting, a boot option the kernel does not know.  The
tables must show a failed row with '-' and its reason and the differences
to SLOB; the row list must take "ALLOC ARGS; ..." and add SLUB_TINY's
slub_max_order=1 variant only where SLUB_TINY exists.  Bad arguments must
exit 2 before anything boots.
"""
import importlib.machinery
import importlib.util
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "smallmem")
PY = "/usr/bin/python3"

CASES = []


def case(fn):
    fn.__name__ = "smallmem_" + fn.__name__
    CASES.append(fn)
    return fn


def load():
    loader = importlib.machinery.SourceFileLoader("smallmem_script", SCRIPT)
    spec = importlib.util.spec_from_loader("smallmem_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


BOOT = """\
[    0.000000] tinyslab 0.1 (i386, SLAB allocator, HZ=100)
[    0.000000] reserved: [mem 0x00000000-0x000fffff] first MiB (BIOS, VGA)
[    0.000000] reserved: [mem 0x00100000-0x0011efff] kernel image
[    0.000000] Memory: 6864K/7676K available (812K reserved, of which 48K mem_map at 0x120000)
[    0.000000] MemTotal:         6864 kB
[    0.000000] MemFree:          6836 kB
[    0.000000] Slab:               28 kB
[    0.000000] Reserved:          812 kB
"""

REPLAY = BOOT.replace("6836", "5968") + """\
[    0.000000] replay: replaying trace.replay (887680 bytes)
[   10.120000] replay: trace trace.replay, allocator SLAB
[   10.120000] replay: ops 110748 (allocations 79773, frees 21637)
[   10.120000] replay: peak live 4483522 bytes in 19436 objects at most
[   10.120000] replay: Slab at the peak 1234 pages (4936 kB); highest sampled 1234 pages
[   10.120000] replay: overhead (held - live) / live = 12.7%
[   10.120000] replay: MemFree at the peak 32 kB, at the end 36 kB (Slab 4932 kB) after 3 s of timers
[   10.120000] replay: Slab after freeing every object 320 kB
[   10.120000] replay: allocation failures 38810, corruptions 0
[   10.220000] replay: FAIL
"""


def check(problems, what, got, want):
    if got != want:
        problems.append(f"{what}: {got!r}, expected {want!r}")


@case
def parses_a_boot():
    sm, problems = load(), []
    f = sm.parse_boot(0, sm.strip(BOOT))
    for key, want in (("MemTotal", 6864), ("MemFree", 6836), ("Slab", 28), ("Reserved", 812),
                      ("image", 124), ("kind", None)):
        check(problems, key, f[key], want)
    return problems, repr(f)


@case
def a_trace_that_does_not_fit_keeps_its_figures():
    sm, problems = load(), []
    f = sm.parse_replay(1, sm.strip(REPLAY))
    for key, want in (("MemFree", 5968), ("free_peak", 32), ("free_end", 36), ("slab_peak", 4936),
                      ("slab_end", 4932), ("slab_freed", 320), ("failures", 38810),
                      ("peak_live", 4483522), ("kind", "memory"),
                      ("why", "does not fit: 38810 of 79773 allocations failed")):
        check(problems, key, f[key], want)
    clean = sm.parse_replay(0, sm.strip(REPLAY.replace("failures 38810", "failures 0")))
    check(problems, "a clean replay's verdict", clean["kind"], None)
    return problems, repr(f)


@case
def failures_are_named():
    sm, problems = load(), []
    head = "[    0.000000] reserved: [mem 0x00100000-0x0011efff] kernel image\n"
    for status, text, kind, why in (
            (1, head + "[    0.000000] Kernel panic - not syncing: mm: no usable memory\n",
             "memory", "panic: mm: no usable memory"),
            (1, BOOT + "[    0.5] CPU exception: page fault (vector 14) at 0x0\n", "crash",
             "CPU exception: page fault (vector 14) at 0x0"),
            (124, head + "\nqemu-run: TIMEOUT after 120 s\n", "crash", "no end in time (timeout)"),
            (2, "qemu-system-i386: cannot set up guest memory 'pc.ram': Cannot allocate memory\n",
             "memory", "QEMU: cannot set up guest memory 'pc.ram': Cannot allocate memory"),
            (3, "", "crash", "QEMU could not start"),
            (2, head, "crash", "no meminfo in the log (qemu-run status 2)"),
            (0, BOOT + '[    0.0] Unknown kernel command line parameter "slub_max_order=1", '
             'ignored\n', "option", "the kernel does not know the option slub_max_order=1 "
             "(ignored)")):
        f = sm.parse_boot(status, sm.strip(text))
        check(problems, f"{why}: kind", f["kind"], kind)
        check(problems, f"{why}: reason", f["why"], why)
    tables = REPLAY.split("[    0.000000] replay: replaying")[0] + \
        "[    0.0] replay: no memory for the tables of 50751 live objects and 52 caches\n" \
        "[    0.0] replay: FAIL\n"
    f = sm.parse_replay(1, sm.strip(tables))
    check(problems, "replay tables: kind", f["kind"], "memory")
    if not (f["why"] or "").startswith("the replay's own tables do not fit"):
        problems.append(f"replay tables: reason {f['why']!r}")
    bad = sm.parse_replay(1, sm.strip(REPLAY.replace("corruptions 0", "corruptions 3")))
    check(problems, "corruption: kind", bad["kind"], "crash")
    return problems, ""


@case
def tables_show_failed_rows_and_differences():
    sm, problems = load(), []
    ok = sm.parse_boot(0, sm.strip(BOOT))
    slob_log = BOOT.replace("6836", "6868").replace("Slab:               28",
                                                    "Slab:                0")
    slob = sm.parse_boot(0, sm.strip(slob_log))
    dead = sm.parse_boot(1, "Kernel panic - not syncing: mm: no usable memory\n")
    lines = sm.boot_table(8, [("SLAB", ok), ("SLOB", slob), ("SLUB_TINY", dead)])
    text = "\n".join(lines)
    rows = {l.split()[0]: l for l in lines[2:]}
    if "-8" not in rows.get("SLAB", "").split():
        problems.append("SLAB's row lacks -8 pages against SLOB (1709 - 1717)")
    if "1709" not in rows.get("SLAB", ""):
        problems.append("SLAB's free pages (6836 kB / 4) are not 1709")
    dead_row = rows.get("SLUB_TINY", "")
    if "panic: mm: no usable memory" not in dead_row or dead_row.split()[1] != "-":
        problems.append("the failed row lacks its '-' cells or its reason")
    fits = sm.parse_replay(0, sm.strip(REPLAY.replace("failures 38810", "failures 0")))
    lines = sm.trace_table(8, "t", {"allocs": 79773, "peak_kb": 13394, "module_kb": 867},
                           [("SLAB", fits), ("SLOB", fits)])
    text += "\n" + "\n".join(lines)
    if "+0" not in lines[-1] or "4378" not in lines[-1]:
        problems.append("the trace table lacks the difference or the live kB at the peak")
    return problems, text


@case
def rows_and_variants():
    sm, problems = load(), []
    check(problems, "parse_rows", sm.parse_rows("slab; slub_tiny slub_max_order=1 ;; slob a b"),
          [("slab", ""), ("slub_tiny", "slub_max_order=1"), ("slob", "a b")])
    check(problems, "default rows without SLUB_TINY", sm.default_rows(["slab", "slob"]),
          [("slab", ""), ("slob", "")])
    check(problems, "default rows with SLUB_TINY", sm.default_rows(["slab", "slub_tiny"]),
          [("slab", ""), ("slub_tiny", ""), ("slub_tiny", "slub_max_order=1")])
    return problems, ""


@case
def refuses_bad_arguments():
    problems, log = [], ""
    for args, want in ((["--mem", "1"], "sizes of 2 MiB or more"),
                       (["--mem", "8,x"], "sizes in MiB"),
                       (["--rows", "frobnicator"], "no allocator 'frobnicator'"),
                       (["--trace", "/nonexistent.ftrace.gz"], "cannot read the trace"),
                       (["--build", "/nonexistent"], "is missing: make smallmem builds it")):
        r = subprocess.run([PY, SCRIPT] + args, capture_output=True, text=True)
        log += f"$ smallmem {' '.join(args)}\n{r.stdout}{r.stderr}"
        if r.returncode != 2:
            problems.append(f"{args}: exit status {r.returncode}, expected 2")
        if want not in r.stderr:
            problems.append(f"{args}: stderr lacks {want!r}")
        if "Traceback" in r.stderr:
            problems.append(f"{args}: a Python traceback")
    return problems, log
