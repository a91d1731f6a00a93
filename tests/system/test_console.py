#!/usr/bin/python3
"""test_console.py - system tests of the interactive console: every
command, editing and bad arguments, Ctrl-C during stress and selftest,
input limits and escape sequences, a 10 KiB paste.
"""
import re
import time

from common import (STOP_WITHIN, QemuConsole, console_session, expect_in, kernel,
                    memfree_after_shrink, small_trace, strip)
from qemu_console import EXIT_PASS, Timeout

def console_case(alloc):
    report = "SLOB heap (" if alloc.startswith("slob") else "slabinfo - version: 2.1"

    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--initrd", small_trace()], timeout=120) as q:
            q.expect(r"tinyslab> ")

            def cmd(line, *needles):
                q.send(line + "\r")
                out = strip(q.expect(r"tinyslab> ", timeout=120))
                for n in needles:
                    if n not in out:
                        problems.append(f"{line!r}: output lacks {n!r}")
                return out

            cmd("help", "meminfo", "slabinfo", "buddyinfo", "selftest", "shrink", "stress",
                "replay", "halt")
            cmd("meminfo", "MemTotal:", "MemFree:", "Slab:")
            cmd("buddyinfo", "Node 0, zone   Normal")
            cmd("slabinfo", report)
            cmd("stress 3000", "stress: 3000 operations, no corruption")
            cmd("slabtest 20", "slabtest: single 8 bytes, 1 CPU, batches of 20: kmalloc ",
                "slabtest: single 16384 bytes", "slabtest: the tests on several CPUs need 2 or more "
                "online (1 here)", "slabtest: done, 0 allocations failed")
            cmd("slabtest 0", "slabtest: 0 is out of range", "usage: slabtest [n [test]]")
            cmd("stress", "usage: stress <n>")
            cmd("stress many", "usage: stress <n>")
            cmd("meminfo now", "usage: meminfo")
            cmd("frobnicate", 'unknown command "frobnicate"')
            cmd("memix\x7f\x7finfo", "MemTotal:")          # backspace editing
            cmd("shrink", "pages given back")
            cmd("validate", "validate: 0 inconsistencies found")
            cmd("selftest timer", "ok 1 timer", "selftest: PASS")
            if cmd("selftest timer 2", "selftest: PASS").count("ok 1 timer") != 2:
                problems.append("'selftest timer 2' did not run the suite twice")
            cmd("replay", "replay: PASS", "allocation failures 0, corruptions 0")
            q.send("halt\r")
            status = q.wait_exit(120)
            if status != EXIT_PASS:
                problems.append(f"halt: QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"console_{alloc}"
    return case


def check_map_width(out, problems, what):
    """No row of a heap map in out is wider than its name and 40 cells."""
    wide = [l for l in out.splitlines() if re.fullmatch(r".{18}[.\-+*#]+", l) and len(l) > 18 + 40]
    if wide:
        problems.append(f"{what}: rows wider than 58 columns: {wide[:2]!r}")


def heapmap_case(alloc, row):
    """The heapmap command: the legend and the summary, rows of 18 + 40
    columns at most (73 with the timestamp), the prompt back without
    Ctrl-C; "replay map" draws the map at each progress step, with rows
    named row (a kmalloc class, a heap list), and plain "replay" does not."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--initrd", small_trace()], timeout=120) as q:
            q.expect(r"tinyslab> ")
            q.send("heapmap\r")
            out = strip(q.expect(r"tinyslab> ", timeout=30))
            expect_in(out, problems, "heap map (", "): .=empty -=<1/3 +=<2/3 *=<full #=full page")
            if not re.search(r"^heap map: \d+ pages in \d+ groups$", out, re.M):
                problems.append("heapmap: no summary line")
            check_map_width(out, problems, "heapmap")
            q.send("replay\r")
            out = strip(q.expect(r"tinyslab> ", timeout=120))
            expect_in(out, problems, "replay: PASS")
            if "heap map (" in out:
                problems.append("plain replay drew the heap map")
            q.send("replay map\r")
            out = strip(q.expect(r"tinyslab> ", timeout=120))
            expect_in(out, problems, "replay: PASS")
            if not re.search(r"^" + re.escape(row) + r"\S* *[.\-+*#]+$", out, re.M):
                problems.append(f"replay map: no {row!r} row")
            check_map_width(out, problems, "replay map")
            if out.count("heap map (") < 10:
                problems.append(f"replay map drew {out.count('heap map (')} maps, expected "
                                "one a step (10 and the end)")
            return problems, q.log
    case.__name__ = f"heapmap_{alloc}"
    return case


def console_ctrl_c():
    """Ctrl-C stops stress and selftest cleanly: "interrupted", the prompt
    back soon, every object freed (MemFree as before), the allocators
    consistent; what was typed before the Ctrl-C is discarded.  Neither can
    end before the Ctrl-C: stress of 4294967295 operations and every suite run
    4294967295 rounds over take years.  (One round of every suite, which this
    used to stop 1.5 s in, takes a few seconds on SLOB: 8 s on a busy host.)"""
    problems = []
    with console_session("slob") as q:
        q.expect(r"tinyslab> ")
        before = memfree_after_shrink(q)
        for line, started, verdict in (
                ("stress 4294967295", None, r"stress: interrupted after \d+ operations, "
                 r"no corruption"),
                ("selftest all 4294967295", r"ok 1 \w+",
                 r"selftest: interrupted after \d+ of \d+ runs")):
            q.send(line + "\r")
            if started:
                q.expect(started, timeout=120)
            else:
                time.sleep(1.0)        # stress prints nothing until it ends: let it start
            q.send("meminfo\r", delay=0)      # typed ahead: the Ctrl-C discards it
            q.send("\x03")
            start = time.monotonic()
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=STOP_WITHIN + 60))
            except Timeout:
                problems.append(f"{line!r}: no prompt after Ctrl-C")
                return problems, q.log
            if not re.search(verdict, out):
                problems.append(f"{line!r}: no {verdict!r} after Ctrl-C")
            if "MemTotal:" in out:
                problems.append(f"{line!r}: the line typed before Ctrl-C ran")
            if time.monotonic() - start > STOP_WITHIN:
                problems.append(f"{line!r}: Ctrl-C took {time.monotonic() - start:.1f} s")
            after = memfree_after_shrink(q)
            if after != before:
                problems.append(f"{line!r}: MemFree, Slab {after} kB after Ctrl-C, {before} before")
        q.send("validate\r")
        out = strip(q.expect(r"tinyslab> "))
        if "validate: 0 inconsistencies found" not in out:
            problems.append("validate found inconsistencies after Ctrl-C")
        q.send("abc\x03meminfo\r")              # at the prompt: cancels the line
        out = strip(q.expect(r"MemTotal:|unknown command"))
        if not out.endswith("MemTotal:") or "abc^C\n" not in out:
            problems.append("Ctrl-C at the prompt did not cancel the line")
        return problems, q.log


def console_input_limits():
    """Numbers that overflow, lines that are too long, escape sequences:
    refused or ignored as the README says, and Enter always ends a line."""
    problems = []
    with console_session("slab") as q:
        q.expect(r"tinyslab> ")

        def cmd(line, *needles, absent=(), timeout=60):
            q.send(line)
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=timeout))
            except Timeout:
                problems.append(f"{line!r}: no prompt within {timeout} s")
                q.send("\x03\r")
                q.expect(r"tinyslab> ", timeout=60)
                return ""
            for n in needles:
                if n not in out:
                    problems.append(f"{line!r}: output lacks {n!r}")
            for n in absent:
                if n in out:
                    problems.append(f"{line!r}: output has {n!r}")
            return out

        usage = "usage: stress <n>"
        cmd("stress 99999999999999999999\r", "out of range (1 to 4294967295)", usage)
        cmd("stress 4294967296\r", "out of range", usage)
        cmd("stress 0x100000000\r", "out of range", usage)
        cmd("stress 0\r", "out of range", usage)
        too_long = "console: line longer than 127 characters refused; nothing run"
        cmd("stress 1" + "0" * 150 + "\r", too_long, absent=["stress:"])
        cmd("meminfo" + " " * 120 + "\r", "MemTotal:")              # 127 characters: runs
        cmd("meminfo" + " " * 121 + "\r", too_long, absent=["MemTotal:"])
        cmd("meminfo" + " " * 125 + "\x7f" * 5 + "\r", "MemTotal:")  # back under the limit
        for keys in ("mem\x1b[Ainfo", "mem\x1bOAinfo", "mem\x1b[1;5Cinfo", "meminfo\x1b",
                     "meminfo\x1b[", "meminfo\x1bO", "\x1bmeminfo"):
            cmd(keys + "\r", "MemTotal:", absent=["unknown command"])
        return problems, q.log


def paste_lines(q, lines, before="", wait_for=None):
    """Pastes lines (CR-terminated) after before; then, once wait_for has
    shown and the machine is quiet, ends any dropped line and runs help.
    Returns all the output."""
    start = q.pos
    q.paste(before + "".join(line + "\r" for line in lines))
    if wait_for:
        q.expect(wait_for, timeout=120)
    q.wait_quiet(1.0, timeout=120)
    q.send("\r")
    q.send("help\r")
    q.expect(r"Kernel command-line parameters", timeout=120)
    q.expect(r"tinyslab> ")
    return strip(q.log[start:q.pos])


def check_paste(out, lines, problems, what):
    """Every pasted line ran exactly or was reported dropped; none ran spliced."""
    prompts = re.findall(r"^tinyslab> (.*)$", out, re.M)
    bad = [p for p in prompts if p.strip() not in ("", "meminfo", "help", "stress 100000")]
    if bad:
        problems.append(f"{what}: {len(bad)} command lines were not typed as such, e.g. {bad[0]!r}")
    unknown = re.findall(r"^unknown command.*$", out, re.M)
    if unknown:
        problems.append(f"{what}: {len(unknown)} spliced commands ran, e.g. {unknown[0]!r}")
    ran = out.count("MemTotal:")
    lost = [int(n) for n in re.findall(r"^console: (\d+) characters of input lost", out, re.M)]
    sent = sum(len(line) + 1 for line in lines)
    unaccounted = sent - 8 * ran - sum(lost)
    # each loss also drops the parts of the lines around it that did arrive
    if ran > len(lines) or not 0 <= unaccounted <= 14 * len(lost):
        problems.append(f"{what}: {ran} of {len(lines)} lines ran and {sum(lost)} characters "
                        f"were reported lost: {unaccounted} characters unaccounted for")
    return ran, sum(lost)


def console_paste():
    """A 10 KiB paste, at the prompt and into a running command: every line
    runs exactly or is reported dropped, and no spliced command ever runs."""
    problems = []
    lines = ["meminfo"] * 1280
    with console_session("slab", timeout=120) as q:
        q.expect(r"tinyslab> ")
        ran, lost = check_paste(paste_lines(q, lines), lines, problems, "at the prompt")
        if ran != len(lines):      # QEMU waits for the kernel to take input: nothing need be lost
            problems.append(f"at the prompt: {ran} of {len(lines)} lines ran ({lost} lost)")
        out = paste_lines(q, lines, before="stress 100000\r", wait_for=r"stress: .*\n")
        check_paste(out, lines, problems, "during stress")
        if "stress: 100000 operations, no corruption" not in out:
            problems.append("during stress: stress did not finish as asked")
        return problems, q.log


def selftest_ctrl_c_between_cases():
    """Ctrl-C during a suite (smp at -smp 2, right after its first case) stops the
    selftest command after the case that runs: the rest of the suite is reported
    skipped, the verdict says interrupted, and the prompt comes back.  (It used to
    stop only between suites, after the whole smp suite.)"""
    problems = []
    with QemuConsole(["--kernel", kernel("slab"), "--smp", "2"], timeout=120) as q:
        q.expect(r"tinyslab> ", timeout=180)
        q.send("selftest smp\r")
        q.expect(r"ok 1 trylock_takes_only_a_free_lock", timeout=120)
        q.send("\x03")
        try:
            out = strip(q.expect(r"tinyslab> ", timeout=120))
        except Timeout:
            return problems + ["no prompt within 120 s of Ctrl-C"], q.log
        skipped = re.findall(r"ok \d+ (\w+) # SKIP interrupted \(Ctrl-C\)", out)
        if not skipped or "stress_on_every_cpu" not in skipped:
            problems.append(f"the cases after Ctrl-C were not skipped: {skipped}")
        expect_in(out, problems, "selftest: interrupted after 1 of 1 runs")
        return problems, q.log


def slabtest_ctrl_c():
    """Ctrl-C stops slabtest (SLAB, -smp 2) within seconds: in its single-CPU test,
    and in each of its tests on both CPUs, where every CPU must leave at the same
    barrier (with the other CPU left to go on alone, it waited at the next barrier
    for ever and the console hung); it says where, every object is freed and the
    allocator stays consistent.  Each run is of 4294967295 calls per size: hours
    under QEMU, so the Ctrl-C, sent once the test has begun, always lands in it with
    more batches and barriers to follow (a run of 20000 calls, stopped 0.5 s after
    its 4096-byte line, sometimes ended first)."""
    problems = []
    with QemuConsole(["--kernel", kernel("slab"), "--smp", "2"], timeout=120) as q:
        q.expect(r"tinyslab> ", timeout=180)
        q.send("slabtest 3\r")         # every size on both CPUs once: SLAB's per-CPU
        q.expect(r"tinyslab> ", timeout=120)  # arrays of each cache exist before the count
        before = memfree_after_shrink(q)
        for test in ("", "concurrent", "remote", "one_alloc"):
            line = f"slabtest 4294967295 {test}".strip()
            where = test or "single"
            q.send(line + "\r")
            q.expect(r"slabtest: SLAB, 4294967295 calls.*\n", timeout=120)
            time.sleep(0.5)            # into the run: it cannot end meanwhile
            q.send("\x03")
            start = time.monotonic()
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=STOP_WITHIN + 60))
            except Timeout:
                problems.append(f"{line!r}: no prompt after Ctrl-C")
                return problems, q.log
            if time.monotonic() - start > STOP_WITHIN:
                problems.append(f"{line!r}: Ctrl-C took {time.monotonic() - start:.1f} s")
            if not re.search(rf"slabtest: interrupted in the {where} test at 8 bytes, after "
                             r"\d+ calls on CPU 0", out):
                problems.append(f"{line!r}: no 'interrupted in the {where} test' after Ctrl-C")
            after = memfree_after_shrink(q)
            if after != before:
                problems.append(f"{line!r}: MemFree, Slab {after} kB after Ctrl-C, {before} before")
        q.send("slabtest 1 sideways\r")
        expect_in(strip(q.expect(r"tinyslab> ")), problems, "slabtest: sideways: not a test")
        q.send("validate\r")
        expect_in(strip(q.expect(r"tinyslab> ")), problems, "validate: 0 inconsistencies found")
        return problems, q.log


CASES = [
    console_case("slab"),
    console_case("slob"),
    console_case("slub"),
    console_case("slub_tiny"),
    heapmap_case("slub", "kmalloc-"),
    heapmap_case("slob", "heap "),
    console_ctrl_c,
    console_input_limits,
    console_paste,
    selftest_ctrl_c_between_cases,
    slabtest_ctrl_c,
]
