#!/usr/bin/python3
"""test_debug.py - system tests of the debugging tools: heap debugging
(kmem_debug=ZPU over a replay, T lines during smpbench) and the gdb
helpers (scripts/gdb) printing what the kernel's own reports print.
"""
import os
import re
import subprocess

from common import ROOT, QemuConsole, build_tweaked, expect_in, kernel, small_trace, strip
from qemu_console import EXIT_PASS

def kmem_debug_console_case(alloc):
    """A *_debug kernel booted with kmem_debug=ZPU replays the shipped trace's first 6000
    lines without a single report, then kmem_check finds nothing damaged and kmem_leaks nothing live (the replay frees
    every object; the kmem_debug suite checks the sites a leak report names)."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc + "_debug"), "--initrd", small_trace(),
                          "--append", "kmem_debug=ZPU replay console"], mem=64,
                         timeout=300) as q:
            boot = strip(q.expect(r"tinyslab> ", timeout=300))
            expect_in(boot, problems, "replay: PASS")
            for bad in ("BUG:", "WARNING:", "bad pointer", "kmem_debug: "):
                if bad in boot:
                    problems.append(f"the replay with kmem_debug=ZPU printed {bad!r}")
            q.send("kmem_check\r")
            out = strip(q.expect(r"tinyslab> ", timeout=120))
            if not re.search(r"kmem_check: \d+ objects checked, 0 damaged", out):
                problems.append("kmem_check: expected '... objects checked, 0 damaged'")
            q.send("kmem_leaks\r")
            out = strip(q.expect(r"tinyslab> ", timeout=120))
            sites = re.findall(r"objects\s+\d+ bytes\s+\S+\s+allocated by (\S+)", out)
            if "kmem_leaks: 0 live objects" not in out or sites:
                problems.append("kmem_leaks: the replay freed every object, yet some are live")
            if any(not re.match(r"[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+$", x)
                   for x in sites):
                problems.append(f"kmem_leaks: a site is not resolved to a function: {sites}")
            q.send("kmem_debug\r")
            out = strip(q.expect(r"tinyslab> "))
            expect_in(out, problems, "kmem_debug: letters ZPU", ", 0 damage reports")
            q.send("halt\r")
            if q.wait_exit(120) != EXIT_PASS:
                problems.append("halt: QEMU did not exit with the pass status")
            return problems, q.log
    case.__name__ = f"kmem_debug_console_{alloc}"
    return case


TRACE_LINE = re.compile(r"kmem_debug: (alloc|free) (\S+) (\d+) bytes (?:= )?(0x[0-9a-f]+) by (\S+)$")


def kmem_debug_trace_case(alloc):
    """A *_debug kernel booted with kmem_debug=T,kstress_640 prints one line per
    allocation and free of that cache during smpbench (which also allocates
    from kstress_192 and kmalloc): the operation, the cache, 640 bytes, the
    object and the caller by name (a function of kernel/kmem_stress.c); every
    object allocated is freed; no line for any other cache or kmalloc()."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc + "_debug"),
                          "--append", "kmem_debug=T,kstress_640 console"], timeout=120) as q:
            q.expect(r"tinyslab> ")
            q.send("smpbench 300\r")
            out = strip(q.expect(r"tinyslab> ", timeout=120))
            q.send("halt\r")
            q.wait_exit(120)
            lines = [x.strip() for x in out.splitlines() if "kmem_debug: " in x]
            live, allocs = set(), 0
            for x in lines:
                m = TRACE_LINE.search(x)
                if not m:
                    problems.append(f"not a T line: {x!r}")
                    continue
                op, cache, size, obj, site = m.groups()
                if cache != "kstress_640" or size != "640":
                    problems.append(f"a line for another cache or size: {x!r}")
                if not re.match(r"(kmem_)?stress_\w+\+0x[0-9a-f]+/0x[0-9a-f]+$", site):
                    problems.append(f"the caller is not a function of kmem_stress.c: {x!r}")
                if op == "alloc":
                    allocs += 1
                    live.add(obj)
                elif obj in live:
                    live.remove(obj)
                else:
                    problems.append(f"a free of an object not allocated: {x!r}")
            if allocs < 5:
                problems.append(f"only {allocs} allocation lines for kstress_640")
            if live:
                problems.append(f"{len(live)} objects allocated and never freed")
            return problems[:10], q.log[-3000:]
    case.__name__ = f"kmem_debug_trace_{alloc}"
    return case


GDB_HELPERS = os.path.join(ROOT, "scripts", "gdb", "tinyslab.py")


def free_port():
    import socket
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return sk.getsockname()[1]


def run_gdb(vmlinux, port, commands, timeout=120):
    """gdb-multiarch in batch mode attached to QEMU's stub; returns its output."""
    cmd = ["gdb-multiarch", "-q", "-batch", "-nx", "-ex", f"source {GDB_HELPERS}",
           "-ex", f"target remote 127.0.0.1:{port}"]
    for c in commands:
        cmd += ["-ex", c]
    r = subprocess.run(cmd + [vmlinux], capture_output=True, text=True, timeout=timeout)
    return r.stdout + r.stderr


def report_lines(text):
    """The buddyinfo line and the allocator report's lines of text, normalised."""
    keep = re.compile(r"^(Node 0, zone|slabinfo - version|# name|# large kmalloc|SLOB heap|"
                      r"SLOB: |\S+\s+\d+\s+\d+\s+\d+)")
    return [" ".join(line.split()) for line in strip(text).splitlines() if keep.match(line)]


SLOB_HEAP = re.compile(r"SLOB heap \((\S+)\): (\d+) pages \(\d+ kB\)(?: and (\d+) of start maps)?, "
                       r"(\d+) bytes free in (\d+) (?:listed )?blocks(?: on (\d+) pages)? "
                       r"\(largest (\d+)\)")


SLOB_LARGE = re.compile(r"SLOB: (\d+) bytes in use, large blocks (\d+) pages")


def compare_reports(kernel_text, gdb_text, alloc, problems, what):
    """The helpers' figures must be the kernel's: every line for SLAB and
    buddyinfo; for SLOB the heap's figures, the large pages and the caches."""
    k, g = report_lines(kernel_text), report_lines(gdb_text)
    if alloc.startswith("slob"):
        for rx in (SLOB_HEAP, SLOB_LARGE):
            km = [rx.search(x).groups() for x in k if rx.search(x)]
            gm = [rx.search(x).groups() for x in g if rx.search(x)]
            if not km or km != gm:
                problems.append(f"{what}: kernel {km} but gdb {gm} ({rx.pattern[:20]}...)")
        k = [x for x in k if not x.startswith("SLOB")]
        g = [x for x in g if not x.startswith("SLOB")]
    if not k or k != g:
        problems.append(f"{what}: the kernel printed {k}, the helpers {g}")
    return k


def gdb_helpers_case(alloc):
    """ts-buddyinfo, ts-slabinfo, ts-dmesg and ts-cpus in batch gdb against the
    kernel's own buddyinfo and slabinfo: at the idle prompt, and stopped in
    the middle of a stress run (many live objects), where gdb makes the
    kernel print its reports of the very state the helpers read.  The stress
    is one no machine finishes (Ctrl-C ends it once gdb is done), so gdb's
    breakpoint never waits on a run that ended before gdb attached."""
    def case():
        problems, port = [], free_port()
        with QemuConsole(["--kernel", kernel(alloc), "--gdb", str(port)], timeout=120) as q:
            q.expect(r"tinyslab> ")
            q.send("buddyinfo\r")
            own = q.expect(r"tinyslab> ")
            q.send("slabinfo\r")
            own += q.expect(r"tinyslab> ")
            out = run_gdb(kernel(alloc), port, ["ts-buddyinfo", "ts-slabinfo", "echo ---\\n",
                                                "ts-cpus", "ts-dmesg"])
            compare_reports(own, out.split("---")[0], alloc, problems, "at the prompt")
            # where CPU 0 stopped is the machine's timing (idle, a tick, the
            # prompt's last bytes): the helper must name the function, any one
            if not re.search(r"CPU 0: EIP 0x[0-9a-f]+ in [A-Za-z_]\w*", out):
                problems.append("ts-cpus did not name CPU 0's function")
            expect_in(out, problems, "Console ready: type", "tinyslab ", "Node 0, zone")
            if "MISMATCH" in out:
                problems.append("ts-buddyinfo found a free list that disagrees with its count")
            # a stress that cannot end before gdb has stopped it: the helpers
            # read a heap in use however fast the machine; Ctrl-C ends it after
            q.send("stress 4294967295\r")
            busy = run_gdb(kernel(alloc), port, [
                "break kfree", "ignore 1 3000", "continue", "delete",
                "set $eflags = $eflags & ~0x200",       # no timer inside the calls below
                "ts-buddyinfo", "ts-slabinfo", "echo ---\\n",
                "call show_buddyinfo()", "call kmem_report()"], timeout=300)
            q.send("\x03")
            said = strip(q.expect(r"stress: interrupted .*\n.*tinyslab> ", timeout=600))
            helpers = busy.split("---")[0]
            figures = compare_reports(said, helpers, alloc, problems, "stopped in stress")
            if alloc.startswith("slob") and not re.search(r"SLOB heap \(\S+\): [1-9]", helpers):
                problems.append("stopped in stress, yet the SLOB heap was empty")
            classes = {"slab": "size-", "slub": "kmalloc-", "slub_tiny": "kmalloc-"}
            if alloc in classes and not any(x.startswith(classes[alloc]) and
                                            x.split()[1] != "0" for x in figures):
                problems.append(f"stopped in stress, yet no {classes[alloc]}N cache had "
                                f"objects")
            q.send("halt\r")
            q.wait_exit()
        return problems, busy[-3000:] + "\n" + out[-1500:]
    case.__name__ = f"gdb_helpers_{alloc}"
    return case


def gdb_dmesg_without_log_buf():
    """A kernel built with LOG_BUF_SHIFT=0 has no log_buf: it boots to its
    console all the same, and ts-dmesg says there is no log buffer (the
    other helpers still work)."""
    problems, port = [], free_port()
    vmlinux = build_tweaked("nolog-slab", "slab", "--set-val", "LOG_BUF_SHIFT", "0",
                            "--disable", "SELFTEST", "--disable", "SMP")
    syms = subprocess.run(["i686-linux-gnu-nm", vmlinux], capture_output=True, text=True,
                          check=True).stdout
    if re.search(r" log_(buf|end)$", syms, re.M):
        problems.append("LOG_BUF_SHIFT=0, yet the kernel has log_buf or log_end")
    with QemuConsole(["--kernel", vmlinux, "--gdb", str(port)], timeout=120) as q:
        q.expect(r"tinyslab> ")
        q.send("buddyinfo\r")
        own = q.expect(r"tinyslab> ")
        out = run_gdb(vmlinux, port, ["ts-dmesg", "ts-buddyinfo"])
        expect_in(out, problems, "ts-dmesg: this kernel has no log buffer (built with "
                  "LOG_BUF_SHIFT=0)", "Node 0, zone")
        if "Node 0, zone" in own and report_lines(own)[:1] != report_lines(out)[:1]:
            problems.append(f"ts-buddyinfo {report_lines(out)[:1]} is not the kernel's "
                            f"{report_lines(own)[:1]}")
        q.send("halt\r")
        q.wait_exit()
    return problems, out[-1500:]


CASES = [
    kmem_debug_console_case("slab"),
    kmem_debug_console_case("slob"),
    kmem_debug_console_case("slub"),
    kmem_debug_trace_case("slab"),
    kmem_debug_trace_case("slob"),
    kmem_debug_trace_case("slub"),
    gdb_helpers_case("slab"),
    gdb_helpers_case("slob"),
    gdb_helpers_case("slob_fast"),
    gdb_helpers_case("slub"),
    gdb_helpers_case("slub_tiny"),
    gdb_helpers_case("slub_sheaves"),
    gdb_dmesg_without_log_buf,
]
