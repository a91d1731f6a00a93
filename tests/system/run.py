#!/usr/bin/python3
"""run.py - whole-system tests: the built kernels booted in QEMU, driven and judged.

usage: tests/system/run.py [--build DIR] [--summary-file FILE] [CASE...]

Expects build/slab/vmlinux, build/slob/vmlinux, build/tinyslab.iso and the
host benchmark binaries (scripts/test-all builds them first).  Covers what
the self-tests cannot see from inside: the GRUB menu on the serial line,
the interactive console (Ctrl-C, input limits, escape sequences, a large
paste), CPU exceptions reported and failing the run, the replay on a
machine too small for it and on a malformed module, the command line's
limits (overflowing numbers, flags given values, its length), the host
benchmark reproducing the kernel replay's footprint exactly, and SMP: four
CPUs online and listed by "cpus" with stress still clean, and CPUs left out
(maxcpus=, one that never answers its start-up IPIs) reported while the boot
goes on.  Reports in KTAP like tests/scripts.
"""
import argparse
import gzip
import importlib.util
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from qemu_console import QemuConsole, EXIT_FAIL, EXIT_PASS, Timeout  # noqa: E402
from qemu_console import qemu_arguments, qemu_command  # noqa: E402
from serial_log import FOOTPRINT_LINES, footprint, layout, read_log, strip  # noqa: E402

PY = "/usr/bin/python3"
TRACE = os.path.join(ROOT, "tests", "traces", "linux-6.1-boot-files.ftrace.gz")
BUILD = os.path.join(ROOT, "build")


def kernel(alloc):
    return os.path.join(BUILD, alloc, "vmlinux")


def work(name):
    d = os.path.join(BUILD, "system")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def small_trace():
    """A replay file of the first 6000 lines of the shipped trace (fast to replay)."""
    out = work("small.replay")
    if not os.path.exists(out):
        text = work("small.ftrace")
        with gzip.open(TRACE, "rt") as f, open(text, "w") as g:
            for i, line in enumerate(f):
                if i >= 6000:
                    break
                g.write(line)
        subprocess.run([PY, os.path.join(ROOT, "scripts/trace2replay"), "--quiet", "-o", out, text],
                       check=True, capture_output=True)
    return out


def full_trace():
    """The shipped trace as a replay file, with the converter's statistics."""
    out, stats = work("full.replay"), work("full.json")
    if not os.path.exists(out) or not os.path.exists(stats):
        subprocess.run([PY, os.path.join(ROOT, "scripts/trace2replay"), "--quiet",
                        "--stats-json", stats, "-o", out, TRACE], check=True, capture_output=True)
    with open(stats) as f:
        return out, json.load(f)


def qemu_run(log, *args, mem=32, timeout=120):
    r = subprocess.run([os.path.join(ROOT, "scripts/qemu-run"), "--quiet", "--mem", str(mem),
                        "--timeout", str(timeout), "--log", log] + list(args),
                       capture_output=True, text=True)
    return r.returncode, read_log(log)


def expect_in(text, problems, *needles):
    for n in needles:
        if n not in text:
            problems.append(f"output lacks {n!r}")


# ---- the interactive console ------------------------------------------------

def console_case(alloc):
    report = "slabinfo - version: 2.1" if alloc == "slab" else "SLOB heap ("

    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--initrd", small_trace()], timeout=60) as q:
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
            cmd("slabtest 0", "slabtest: 0 is out of range", "usage: slabtest [n]")
            cmd("stress", "usage: stress <n>")
            cmd("stress many", "usage: stress <n>")
            cmd("meminfo now", "usage: meminfo")
            cmd("frobnicate", 'unknown command "frobnicate"')
            cmd("memix\x7f\x7finfo", "MemTotal:")          # backspace editing
            cmd("shrink", "pages given back")
            cmd("validate", "validate: 0 inconsistencies found")
            cmd("selftest timer", "ok 1 timer", "selftest: PASS")
            cmd("replay", "replay: PASS", "allocation failures 0, corruptions 0")
            q.send("halt\r")
            status = q.wait_exit(30)
            if status != EXIT_PASS:
                problems.append(f"halt: QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"console_{alloc}"
    return case


def console_session(alloc, timeout=60, **kw):
    return QemuConsole(["--kernel", kernel(alloc)], timeout=timeout, **kw)


def memfree_after_shrink(q):
    """MemFree and Slab (kB) once every spare page is given back."""
    q.send("shrink\r")
    q.expect(r"tinyslab> ")
    q.send("meminfo\r")
    out = strip(q.expect(r"tinyslab> "))
    return tuple(int(m) for m in re.findall(r"^(?:MemFree|Slab):\s+(\d+) kB", out, re.M))


def console_ctrl_c():
    """Ctrl-C stops stress and selftest cleanly: "interrupted", the prompt
    back soon, every object freed (MemFree as before), the allocators
    consistent; what was typed before the Ctrl-C is discarded."""
    problems = []
    with console_session("slob") as q:
        q.expect(r"tinyslab> ")
        before = memfree_after_shrink(q)
        for line, wait, verdict in (("stress 1000000", 1.0, r"stress: interrupted after \d+ operations, "
                                     r"no corruption"),
                                    ("selftest", 1.5, r"selftest: interrupted after \d+ of \d+ runs")):
            q.send(line + "\r")
            time.sleep(wait)
            q.send("meminfo\r", delay=0)      # typed ahead: the Ctrl-C discards it
            q.send("\x03")
            start = time.monotonic()
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=8))
            except Timeout:
                problems.append(f"{line!r}: no prompt within 8 s of Ctrl-C")
                return problems, q.log
            if not re.search(verdict, out):
                problems.append(f"{line!r}: no {verdict!r} after Ctrl-C")
            if "MemTotal:" in out:
                problems.append(f"{line!r}: the line typed before Ctrl-C ran")
            if time.monotonic() - start > 5:
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


REPLAY_FIGURES = re.compile(r"^replay: (?:Slab at the peak|MemFree at the peak|allocation "
                            r"failures|peak live).*$", re.M)


def console_replay_repeats_and_stops():
    """A console replay after the boot replay repeats it exactly (SLOB, whose figures depend
    on which pages it gets, at 16 MiB where allocations fail too); Ctrl-C stops a replay
    with "interrupted", every object freed and the allocator consistent."""
    problems = []
    trace, _ = full_trace()
    with QemuConsole(["--kernel", kernel("slob"), "--initrd", trace, "--append",
                      "replay console"], mem=16, timeout=120) as q:
        boot = strip(q.expect(r"tinyslab> ", timeout=300))
        first = REPLAY_FIGURES.findall(boot)
        before = memfree_after_shrink(q)
        q.send("replay\r")
        again = REPLAY_FIGURES.findall(strip(q.expect(r"tinyslab> ", timeout=300)))
        if len(first) != 4 or first != again:
            problems.append(f"the second replay differs: {first} then {again}")
        q.send("replay\r")
        q.expect(r"replay: replaying")
        time.sleep(0.3)
        q.send("\x03")
        out = strip(q.expect(r"tinyslab> ", timeout=60))
        if not re.search(r"replay: interrupted at op \d+ of \d+", out) or \
                "replay: interrupted\n" not in out:
            problems.append("no 'replay: interrupted' after Ctrl-C")
        if memfree_after_shrink(q) != before:
            problems.append("MemFree or Slab differ after the interrupted replay")
        q.send("validate\r")
        if "validate: 0 inconsistencies found" not in strip(q.expect(r"tinyslab> ")):
            problems.append("validate found inconsistencies after the interrupted replay")
        return problems, q.log


def console_input_limits():
    """Numbers that overflow, lines that are too long, escape sequences:
    refused or ignored as the README says, and Enter always ends a line."""
    problems = []
    with console_session("slab") as q:
        q.expect(r"tinyslab> ")

        def cmd(line, *needles, absent=(), timeout=10):
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


# ---- the GRUB image ---------------------------------------------------------------

def iso_case(hotkey, alloc):
    def case():
        problems = []
        with QemuConsole(["--iso", os.path.join(BUILD, "tinyslab.iso")], timeout=60) as q:
            q.expect(r"SLOB allocator: self-tests, then power off")   # the menu, on serial
            q.send(hotkey)
            q.expect(r"tinyslab .*\(i386, %s allocator" % alloc.upper())
            q.expect(r"selftest: (PASS|FAIL)", timeout=180)
            status = q.wait_exit(30)
            expect_in(q.log, problems, "selftest: PASS", "boot loader: GRUB")
            if status != EXIT_PASS:
                problems.append(f"QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"iso_menu_selftest_{alloc}"
    return case


# ---- exceptions fail the run -----------------------------------------------------------

def fault_case(kind, name, *needles, smp=1, alloc="slob", suffix="", append=""):
    """fault=KIND makes the kernel raise an exception on purpose: the report
    names it (and says what the needles say), the kernel panics and the
    run fails; with smp > 1 the other CPUs are stopped."""
    def case():
        log = work(f"fault-{kind}{suffix}-{alloc}-{smp}.log")
        status, text = qemu_run(log, "--kernel", kernel(alloc), "--smp", str(smp), "--append",
                                f"fault={kind} selftest {append}", timeout=60)
        problems = []
        if status != 1:
            problems.append(f"qemu-run status {status}, expected 1 (the kernel reports failure)")
        expect_in(text, problems, f"*** {name} (vector", "EIP:", "EAX:", "Kernel panic", *needles)
        r = subprocess.run([PY, os.path.join(ROOT, "scripts/ktap.py"), log],
                           capture_output=True, text=True)
        if r.returncode != 1 or f"CPU exception: {name}" not in r.stdout:
            problems.append("ktap.py does not fail the run naming the exception")
        return problems, text
    case.__name__ = f"fault_{kind.replace('-', '_')}_reported{suffix}"
    return case


class MonitoredConsole(QemuConsole):
    """A QemuConsole whose QEMU has its human monitor on a Unix socket, for
    monitor() commands (nmi, ...)."""
    def __init__(self, boot_args, mem=32, timeout=60):
        cmd = qemu_command(qemu_arguments().parse_args(list(boot_args) + ["--mem", str(mem)]))
        self.monitor_path = work(f"monitor-{os.getpid()}.sock")
        if os.path.exists(self.monitor_path):
            os.unlink(self.monitor_path)
        cmd[cmd.index("-monitor") + 1] = f"unix:{self.monitor_path},server=on,wait=off"
        self.timeout, self.log, self.pos = timeout, "", 0
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)

    def monitor(self, command, timeout=10):
        """Runs one monitor command; returns what the monitor answered."""
        with socket.socket(socket.AF_UNIX) as sk:
            sk.settimeout(timeout)
            end = time.monotonic() + timeout
            while True:
                try:
                    sk.connect(self.monitor_path)
                    break
                except (FileNotFoundError, ConnectionRefusedError):
                    if time.monotonic() > end:
                        raise Timeout(f"no QEMU monitor at {self.monitor_path}")
                    time.sleep(0.1)
            answer = b""
            for send in (None, command):
                if send:
                    sk.sendall(send.encode() + b"\n")
                while not answer.endswith(b"(qemu) "):
                    answer += sk.recv(4096)
                if send:
                    return answer.decode("utf-8", "replace")
                answer = b""

    def close(self):
        super().close()
        if os.path.exists(self.monitor_path):
            os.unlink(self.monitor_path)


def nmi_during_output_case(smp):
    """An NMI (QEMU monitor "nmi", which every CPU takes) while the console
    prints a long report: the NMI's report and the panic come out, and the
    run ends with the failure status, not a hang.  The NMI once stopped the
    output for good whenever it came inside printk.  Which it hit, inside a
    printk or between two, is printed."""
    def case():
        problems = []
        with MonitoredConsole(["--kernel", kernel("slab"), "--smp", str(smp), "--append",
                               "poweroff console"], timeout=120) as q:
            q.expect(r"tinyslab> ")
            q.send("slabinfo\r" * 8, delay=0)
            q.expect(r"slabinfo - version")
            q.monitor("nmi")
            try:
                status = q.wait_exit(60)
            except Timeout:
                status = None
            text = strip(q.log)
            if status != EXIT_FAIL:
                problems.append(f"QEMU exit status {status}, expected {EXIT_FAIL} (a panic)")
            expect_in(text, problems, "*** non-maskable interrupt (vector 2)", "EIP:",
                      "Kernel panic - not syncing: Fatal exception: non-maskable interrupt")
            inside = "it came inside a printk on this CPU" in text
            print(f"# nmi_during_output_smp{smp}: the NMI came "
                  f"{'inside a printk' if inside else 'between two printks'}")
            if smp > 1:
                expect_in(text, problems, "the other CPUs are stopped)")
            return problems, q.log[-4000:]
    case.__name__ = f"nmi_during_output_smp{smp}"
    return case


def console_stuck_taken_over_within_a_second():
    """fault=console-stuck at 4 CPUs (CPU 1 holds the console, hung): the crashing CPU
    takes the console over once nothing has been written for half a second by the TSC,
    and says how long it waited, by the TSC; at most a second.  The wait was a count
    of 2^24 pauses: the report came after 13 to 19 s of silence under TCG."""
    log = work("console-stuck-smp4.log")
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--smp", "4", "--append",
                            "fault=console-stuck selftest", timeout=60)
    problems = []
    if status != 1:
        problems.append(f"qemu-run status {status}, expected 1 (the kernel reports failure)")
    m = re.search(r"printk: CPU 1 holds the console without writing: taken over after (\d+) ms",
                  text)
    if not m:
        problems.append("no 'taken over after N ms' note")
    elif int(m.group(1)) > 1000:
        problems.append(f"the console was taken over after {m.group(1)} ms, not within a second")
    expect_in(text, problems, "*** page fault (vector", "Kernel panic")
    return problems, text


def old_cpu_refused_case(model):
    """A CPU without CMOV (QEMU -cpu 486, -cpu pentium): the kernel, built for i686,
    says so on the serial line and on the VGA text screen before any of its C code
    runs, and halts.  It once printed nothing: the first printk's CMOV faulted before
    the IDT existed, and the machine reset."""
    want = "tinyslab needs an i686 (Pentium Pro) or later CPU: CMOV missing"

    def case():
        problems = []
        with MonitoredConsole(["--kernel", kernel("slab"), "--cpu", model, "--append",
                               "selftest"], timeout=30) as q:
            try:
                q.expect(re.escape(want))
            except Timeout:
                problems.append(f"no {want!r} on the serial line")
                return problems, q.log
            q.wait_quiet(1.0, timeout=10)
            rows = re.findall(r"^[0-9a-f]+:((?: 0x[0-9a-f]{4})+)",
                              q.monitor(f"xp /{len(want)}hx 0xb8000"), re.M)
            screen = "".join(chr(int(c, 16) & 0xff) for row in rows for c in row.split())
            if screen != want:
                problems.append(f"the VGA screen's first row reads {screen!r}")
            if "tinyslab 0.1" in q.log or "selftest" in q.log:
                problems.append("the kernel went on after the refusal")
            if q.proc.poll() is not None:
                problems.append("QEMU stopped (the machine reset?) instead of the CPU halting")
            return problems, q.log
    case.__name__ = f"cpu_{model}_refused_on_serial_and_vga"
    return case


# ---- replay corner cases -----------------------------------------------------------------

def replay_too_small():
    log = work("replay-12M.log")
    trace, _ = full_trace()
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--append", "replay poweroff",
                            "--initrd", trace, mem=12, timeout=300)
    problems = []
    if status != 1:
        problems.append(f"qemu-run status {status}, expected 1 (replay fails, no hang)")
    m = re.search(r"allocation failures (\d+)", text)
    if not m or int(m.group(1)) == 0:
        problems.append("no allocation failures counted on a 12 MiB machine")
    expect_in(text, problems, "too small for the trace", "replay: FAIL")
    return problems, text


def replay_malformed_module():
    """Malformed modules are refused before anything is allocated, with the first problem:
    a header of 0xff bytes, and the 48-byte module whose 0x15555556 slots once wrapped the
    slot table's size and crashed both kernels (SLOB here, SLAB in the next case)."""
    problems, texts = [], []
    wrapping = struct.pack("<4s7I", b"TSRP", 1, 0, 2, 0x15555556, 1, 1, 0) + \
        struct.pack("<4I", 0, 16, 2, 0)
    for name, alloc, data, phrase in (
            ("bad", "slab", b"TSRP\x01\x00\x00\x00" + b"\xff" * 40,
             "4294967295 caches, the format allows 65534"),
            ("wrapping", "slob", wrapping, "357913942 slots for 1 allocations"),
            ("wrapping", "slab", wrapping, "357913942 slots for 1 allocations")):
        log, path = work(f"replay-{name}-{alloc}.log"), work(f"{name}.replay")
        with open(path, "wb") as f:
            f.write(data)
        status, text = qemu_run(log, "--kernel", kernel(alloc), "--append", "replay poweroff",
                                "--initrd", path, timeout=60)
        texts.append(text)
        if status != 1:
            problems.append(f"{name} on {alloc}: qemu-run status {status}, expected 1")
        expect_in(text, problems, phrase, "replay: FAIL")
        if "***" in text:
            problems.append(f"{name} on {alloc}: a CPU exception")
    return problems, "\n".join(texts)


def replay_without_a_peak():
    """A replay in which no allocation succeeds prints no figure it never measured: one
    kmalloc(0xffffffff), larger than any block the kernel allocates, is named as such
    (not "too small for the trace"); and the shipped trace's first 6000 lines under
    failslab=100 on SLOB, where every allocation fails.  Both once said "MemFree at the
    peak 0 kB" and "Slab at the peak 0 pages"."""
    problems, texts = [], []
    huge = work("huge.replay")
    with open(huge, "wb") as f:
        f.write(struct.pack("<4s7I", b"TSRP", 1, 0, 1, 1, 1, 0, 0) +
                struct.pack("<2I", 0, 0xffffffff))
    for name, alloc, module, append, phrases in (
            ("huge", "slab", huge, "replay poweroff",
             ["replay: no allocation succeeded; no peak", "replay: NOTE: 1 of the failures "
              "asked for more than any block this kernel allocates (4096 kB): they fail on "
              "every machine"]),
            ("huge", "slob", huge, "replay poweroff",
             ["replay: no allocation succeeded; no peak", "they fail on every machine"]),
            ("failslab", "slob_debug", small_trace(), "failslab=100,1,-1 replay poweroff",
             ["replay: no allocation succeeded; no peak", "of the failures were injected"])):
        log = work(f"replay-nopeak-{name}-{alloc}.log")
        status, text = qemu_run(log, "--kernel", kernel(alloc), "--append", append,
                                "--initrd", module, mem=32, timeout=120)
        texts.append(text)
        if status != 1:
            problems.append(f"{name} on {alloc}: qemu-run status {status}, expected 1")
        expect_in(text, problems, "replay: MemFree at the end", "replay: FAIL", *phrases)
        for wrong in ("at the peak", "overhead (held - live)", "too small for the trace"):
            if wrong in text:
                problems.append(f"{name} on {alloc}: the report says {wrong!r}")
    return problems, "\n".join(texts)


# ---- command line -----------------------------------------------------------------------

def mem_limit_and_unknown_parameter():
    log = work("cmdline.log")
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--append",
                            "mem=16M frobnicate=3 loglevel=9 selftest=buddy", timeout=120)
    problems = []
    if status != 0:
        problems.append(f"qemu-run status {status}, expected 0")
    expect_in(text, problems, "mem=16384K: using RAM below 0x1000000",
              'Unknown kernel command line parameter "frobnicate=3"',
              'Bad value for kernel parameter "loglevel=9"', "selftest: PASS")
    m = re.search(r"MemTotal:\s+(\d+) kB", text)
    if not m or not 14000 < int(m.group(1)) < 16384:
        problems.append("MemTotal does not reflect mem=16M")
    return problems, text


def slabtest_at_boot():
    """slabtest=N runs the console's slabtest after boot (what make slabtest's
    -icount run uses, so that nothing typed moves its figures), on every online
    CPU; slabtest=0 is refused and runs nothing."""
    problems = []
    status, text = qemu_run(work("slabtest-boot.log"), "--kernel", kernel("slab"), "--smp", "2",
                            "--append", "slabtest=3 poweroff", timeout=120)
    if status != 0:
        problems.append(f"slabtest=3: qemu-run status {status}, expected 0")
    expect_in(text, problems, "slabtest: SLAB, 3 calls per test, size and CPU, 2 CPU(s) online",
              "slabtest: single 8 bytes, 1 CPU, batches of 3: kmalloc ",
              "slabtest: one_alloc 16384 bytes, 2 CPUs", "slabtest: done, 0 allocations failed")
    status, bad = qemu_run(work("slabtest-boot-0.log"), "--kernel", kernel("slab"), "--append",
                           "slabtest=0 poweroff", timeout=120)
    expect_in(bad, problems, 'Bad value for kernel parameter "slabtest=0", ignored: out of range')
    if status != 0 or "slabtest: SLAB" in bad:
        problems.append(f"slabtest=0: status {status}, or a report ran")
    return problems, text + bad


def cmdline_limits():
    """Numbers that overflow, flags given values, control bytes (in a word
    and in a module's name): each word is refused with a message and
    changes nothing, and no control byte reaches the terminal."""
    log = work("cmdline-limits.log")
    words = ["mem=4098M", "mem=5G", "mem=99999999999G", "mem=4096M", "mem", "loglevel=99999999999",
             "loglevel=4294967296", "console=ttyS0", "poweroff=now", "quiet=5", "replay=foo",
             "x=\x1b[2J\x07", "poweroff", "soak=0"]
    module = work("module.bin")
    with open(module, "wb") as f:
        f.write(b"not a trace")
    status, text = qemu_run(log, "--kernel", kernel("slob"), "--append", " ".join(words),
                            "--initrd", module + " \x1b[31mred", timeout=20)
    problems = []
    if status != 0:
        problems.append(f"qemu-run status {status}, expected 0 (poweroff; the console not started)")
    for w in words[:4] + words[5:7]:
        expect_in(text, problems, f'Bad value for kernel parameter "{w}", ignored: out of range')
    expect_in(text, problems, 'Kernel parameter "mem" ignored: it needs a value')
    for w in words[7:10]:
        expect_in(text, problems, f'Kernel parameter "{w}" ignored: {w.split("=")[0]} is a flag '
                  'and takes no value')
    expect_in(text, problems, 'Bad value for kernel parameter "replay=foo", ignored (replay',
              'Bad value for kernel parameter "soak=0", ignored: out of range (soak')
    expect_in(text, problems, 'Unknown kernel command line parameter "x=\\x1b[2J\\x07"',
              'bytes "' + module + ' \\x1b[31mred"',   # the module's name
              "Kernel command line: ")       # an info message: quiet=5 did not hide it
    if "\x1b" in text or "\x07" in text:
        problems.append("control bytes from the command line reached the terminal")
    if "using RAM below" in text or "Console ready" in text or \
            re.search(r"^replay: (replaying|no trace)|^soak: ", strip(text), re.M):
        problems.append("a refused parameter took effect")
    m = re.search(r"MemTotal:\s+(\d+) kB", text)
    if not m or int(m.group(1)) < 30000:
        problems.append("MemTotal does not show all 32 MiB")
    for size, limit in (("4294967295", "0xffffffff"), ("4194303K", "0xfffffc00"),
                        ("4095M", "0xfff00000"), ("3G", "0xc0000000")):
        status, text2 = qemu_run(work("cmdline-mem.log"), "--kernel", kernel("slob"), "--append",
                                 f"mem={size} poweroff", timeout=20)
        if status != 0 or f"using RAM below {limit} only" not in text2:
            problems.append(f"mem={size} is not taken exactly as {limit}")
        text += text2
    return problems, text


def cmdline_length():
    """A command line of exactly 511 characters is whole; a longer one is cut
    before its first word that does not fit whole, and that is reported."""
    problems, text = [], ""
    path = kernel("slob")
    for total in (511, 512, 600):
        head, last = path + " poweroff ", "mem=16M"
        pad = total - len(head) - len(last)
        words = "loglevel=7 " * (pad // 11) + ("x" * (pad % 11 - 1) + " " if pad % 11 else "")
        append = "poweroff " + words + last
        assert len(path + " " + append) == total
        status, out = qemu_run(work("cmdline-length.log"), "--kernel", path, "--append", append,
                               timeout=20)
        text += out
        warned = "Kernel command line longer than 511 characters" in out
        applied = "mem=16384K: using RAM below 0x1000000" in out
        if status != 0:
            problems.append(f"{total} characters: qemu-run status {status}")
        if total == 511 and (warned or not applied):
            problems.append("511 characters: warned about as cut, or its last word not applied")
        if total > 511 and (not warned or applied or 'parameter "mem=' in out):
            problems.append(f"{total} characters: the cut is not reported, or a cut word was used")
    return problems, text


# ---- the host benchmark reproduces the kernel replay ------------------------------------------

def agreement_case(alloc):
    def case():
        trace, stats = full_trace()
        log = work(f"replay-{alloc}.log")
        status, ktext = qemu_run(log, "--kernel", kernel(alloc), "--append",
                                 "replay=data poweroff", "--initrd", trace, timeout=300)
        problems = []
        if status != 0:
            problems.append(f"kernel replay: qemu-run status {status}")
        mem_layout = layout(ktext)
        if not mem_layout:
            return problems + ["no replay-layout line"], ktext
        bench = os.path.join(BUILD, "host", alloc, "bench")
        r = subprocess.run([bench, "--layout", mem_layout, trace],
                           capture_output=True, text=True)
        klines, hlines = footprint(ktext), footprint(r.stdout)
        if r.returncode != 0:
            problems.append(f"host bench exit status {r.returncode}")
        if len(klines) != FOOTPRINT_LINES or klines != hlines:
            problems.append("the host figures differ from the kernel's")
        peak = re.search(r"peak live (\d+) bytes", ktext)
        if not peak or int(peak.group(1)) != stats["peak_live_bytes"]:
            problems.append("peak live bytes differ from the converter's count")
        return problems, "kernel:\n" + "\n".join(klines) + "\nhost:\n" + "\n".join(hlines)
    case.__name__ = f"replay_host_agrees_with_kernel_{alloc}"
    # Its host build is -m32 (bench): at 64 bits the allocator's own
    # structures, units and headers are larger, so the figures cannot agree.
    case.needs_i386 = True
    return case


# ---- the comparison tool ---------------------------------------------------------------

# ---- SMP ---------------------------------------------------------------------------------

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
            if q.wait_exit(30) != EXIT_PASS:
                problems.append("halt: QEMU did not exit with the pass status")
            return problems, q.log
    case.__name__ = f"kmem_debug_console_{alloc}"
    return case


def fault_injection_console_case(alloc):
    """A *_debug kernel booted with failslab=100,1,-1: stress says how many of its
    allocations failed (all but SLAB's large blocks, which come from the page
    allocator: as many as were injected) and that nothing was corrupted, the replay says its failures were injected (not that
    the machine is too small), size filters that are not MIN-MAX are refused, and
    "fault off" turns both settings off, after which stress allocates again."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc + "_debug"), "--initrd", small_trace(),
                          "--append", "failslab=100,1,-1 console"], mem=64, timeout=300) as q:
            q.expect(r"tinyslab> ", timeout=120)

            def cmd(line, timeout=120):
                q.send(line + "\r")
                return strip(q.expect(r"tinyslab> ", timeout=timeout))
            out = cmd("stress 3000") + cmd("fault")
            m = re.search(r"stress: 3000 operations, no corruption, (\d+) of (\d+) allocations "
                          r"failed", out)
            injected = re.search(r"failslab: probability 100%.*injected (\d+)", out)
            if not m or not injected or int(m.group(1)) == 0 or \
                    int(m.group(1)) > int(m.group(2)) or m.group(1) != injected.group(1):
                problems.append("stress under failslab=100 does not say that its allocations "
                                "failed, as many as were injected")
            out = cmd("replay", timeout=300)
            m = re.search(r"replay: NOTE: (\d+) of the failures were injected", out)
            if not m or int(m.group(1)) == 0:
                problems.append("the replay does not count its failures as injected")
            if "too small for the trace" in out:
                problems.append("the replay blames the machine's size for injected failures")
            for spec in ("100,1,-1,--", "100,1,-1,-5-"):
                expect_in(cmd(f"fault failslab {spec}"), problems, f'fault: bad setting "{spec}"')
            out = cmd("fault off")
            expect_in(out, problems, "failslab: off", "fail_page_alloc: off")
            out = cmd("stress 3000")
            expect_in(out, problems, "stress: 3000 operations, no corruption")
            if "allocations failed" in out:
                problems.append("stress still fails allocations after 'fault off'")
            q.send("halt\r")
            q.wait_exit(30)
            return problems, q.log
    case.__name__ = f"fault_injection_console_{alloc}"
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
            q.wait_exit(30)
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


def smp_console_case(alloc):
    """-smp 4: every CPU online in the boot log and in "cpus", stress still clean."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--smp", "4"], timeout=120) as q:
            boot = strip(q.expect(r"tinyslab> "))
            expect_in(boot, problems, "smp: ACPI MADT: 4 local APIC(s), 4 enabled",
                      "smp: 4 of 4 CPUs online")
            q.send("cpus\r")
            out = strip(q.expect(r"tinyslab> "))
            online = re.findall(r"^\s*(\d+)\s+(\d+)\s+online\s+(\d+)", out, re.M)
            if sorted(int(c) for c, _, _ in online) != [0, 1, 2, 3]:
                problems.append(f"cpus: expected CPUs 0-3 online, got {online}")
            if len({a for _, a, _ in online}) != len(online):
                problems.append("cpus: two CPUs share an APIC id")
            if any(int(t) == 0 for _, _, t in online):
                problems.append("cpus: a CPU has not ticked")
            expect_in(out, problems, "4 of 8 CPUs online")
            q.send("stress 20000\r")
            out = strip(q.expect(r"tinyslab> ", timeout=240))
            expect_in(out, problems, "stress: 20000 operations, no corruption")
            q.send("validate\r")
            expect_in(strip(q.expect(r"tinyslab> ")), problems, "validate: 0 inconsistencies found")
            q.send("halt\r")
            status = q.wait_exit(30)
            if status != EXIT_PASS:
                problems.append(f"halt: QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"smp_console_{alloc}"
    return case


def smp_cpus_left_out():
    """maxcpus=2 leaves a CPU out, smp_skip_sipi=1 makes one never answer: both are
    reported, the boot goes on with the rest, and the self-tests expect that many."""
    log = work("smp-left-out.log")
    status, text = qemu_run(log, "--kernel", kernel("slab"), "--smp", "4", "--append",
                            "maxcpus=2 smp_skip_sipi=1 selftest=smp_arch", timeout=180)
    problems = []
    if status != 0:
        problems.append(f"qemu-run status {status}, expected 0")
    expect_in(text, problems, "smp: CPU 1 (APIC id 1) did not answer in",
              "smp: CPU 2 (APIC id 2) online", "smp: CPU 3 (APIC id 3) left out: maxcpus=2",
              "smp: 2 of 4 CPUs online", "selftest: PASS")
    return problems, text


def smp_late_ap():
    """The boot CPU and a late AP both claim the AP's state by compare-and-swap,
    and exactly one wins: an AP that answers after the 2 s wait (smp_delay_ap=1,3000)
    finds itself claimed failed and parks, uncounted, and the self-tests run on the
    other three; one that is slow but in time (smp_delay_ap=1,500) is online.  (The
    AP once counted itself online after the boot CPU had given it up.)"""
    problems, texts = [], []
    for delay, needles in (
            (3000, ["smp: CPU 1 (APIC id 1) did not answer in 2000 ms: left out",
                    "smp: CPU 1 answered after that and parked itself", "smp: 3 of 4 CPUs online"]),
            (500, ["smp: CPU 1 (APIC id 1) online", "smp: 4 of 4 CPUs online"])):
        log = work(f"smp-late-ap-{delay}.log")
        status, text = qemu_run(log, "--kernel", kernel("slab"), "--smp", "4", "--append",
                                f"smp_delay_ap=1,{delay} selftest=smp_arch", timeout=240)
        texts.append(text)
        if status != 0:
            problems.append(f"smp_delay_ap=1,{delay}: qemu-run status {status}, expected 0")
        expect_in(text, problems, *needles, "selftest: PASS")
    return problems, "\n".join(texts)


def smp_cpu_hole_case(alloc, skip):
    """-smp 4 with CPU skip held back (smp_skip_sipi=): CPU numbers with a hole.
    smpbench runs on 1, 2 and 3 CPUs (it once hung after the 1-CPU line),
    stress stays clean, the smp suites pass (they once panicked in mod_timer),
    an out-of-range smpbench count is refused, and halt ends the run."""
    def case():
        problems = []
        with QemuConsole(["--kernel", kernel(alloc), "--smp", "4", "--append",
                          f"smp_skip_sipi={skip} console"], timeout=120) as q:
            boot = strip(q.expect(r"tinyslab> ", timeout=180))
            expect_in(boot, problems, f"smp: CPU {skip} (APIC id {skip}) did not answer in",
                      "smp: 3 of 4 CPUs online")

            def cmd(line, timeout, *needles):
                q.send(line + "\r")
                try:
                    out = strip(q.expect(r"tinyslab> ", timeout=timeout))
                except Timeout:
                    problems.append(f"{line!r}: no prompt within {timeout} s")
                    return ""
                expect_in(out, problems, *needles)
                return out

            out = cmd("smpbench 2000", 300, "smpbench:  1 CPU(s):", "smpbench:  2 CPU(s):",
                      "smpbench:  3 CPU(s):", "allocs+frees per million cycles, x")
            cpus = re.findall(r"smpbench:  3 CPU\(s\):.*cycles/op on CPU((?: \d+:\d+)+)", out)
            if cpus and sorted(int(c.split(":")[0]) for c in cpus[0].split()) != \
                    sorted({0, 1, 2, 3} - {skip}):
                problems.append(f"smpbench ran on CPUs {cpus[0]}, not the online ones")
            cmd("stress 20000", 300, "stress: 20000 operations, no corruption")
            cmd("selftest smp_arch,smp", 900, "selftest: PASS")
            cmd("smpbench 4294967296", 30, "smpbench: 4294967296 is out of range (1 to 4294967295)",
                "usage: smpbench")
            cmd("validate", 60, "validate: 0 inconsistencies found")
            q.send("halt\r")
            if q.wait_exit(30) != EXIT_PASS:
                problems.append("halt: QEMU did not exit with the pass status")
            return problems, q.log
    case.__name__ = f"smp_cpu_hole_{alloc}"
    return case


def smpbench_ctrl_c():
    """Ctrl-C stops smpbench within a second of its arrival (at -smp 4, SLOB, whose
    operations are slowest there): during the 1-CPU run of 4294967295 operations
    (which once locked the console out) and during a run on 2 or more CPUs; it says how far
    it got, every object is freed and the allocator stays consistent."""
    problems = []
    with QemuConsole(["--kernel", kernel("slob"), "--smp", "4"], timeout=120) as q:
        q.expect(r"tinyslab> ", timeout=180)
        before = memfree_after_shrink(q)
        # the second run is stopped after its 1-CPU line: in the 2-CPU run, or in
        # the 4-CPU one where the 2-CPU run ended within the second waited
        for line, wait_for, ncpus in (("smpbench 4294967295", r"smpbench: 4294967295 alloc", "1"),
                                      ("smpbench 4000000", r"smpbench:  1 CPU\(s\):.*\n",
                                       "[24]")):
            q.send(line + "\r")
            q.expect(wait_for, timeout=600)
            time.sleep(1.0)
            q.send("\x03")
            start = time.monotonic()
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=30))
            except Timeout:
                problems.append(f"{line!r}: no prompt within 30 s of Ctrl-C")
                return problems, q.log
            took = time.monotonic() - start
            print(f"# smpbench_ctrl_c: {line!r}: the prompt came {took:.2f} s after Ctrl-C")
            if took > 5:
                problems.append(f"{line!r}: Ctrl-C took {took:.1f} s")
            # (the first case may stop in the 20000-operation warm-up run on a slow host)
            if not re.search(rf"smpbench: interrupted in the (warm-up )?run on {ncpus} CPU\(s\), "
                             r"after \d+ of its \d+ operations", out):
                problems.append(f"{line!r}: no 'interrupted in the run on {ncpus} CPU(s)' after "
                                "Ctrl-C")
            after = memfree_after_shrink(q)
            if after != before:
                problems.append(f"{line!r}: MemFree, Slab {after} kB after Ctrl-C, {before} before")
        q.send("validate\r")
        expect_in(strip(q.expect(r"tinyslab> ")), problems, "validate: 0 inconsistencies found")
        return problems, q.log


def slabtest_ctrl_c():
    """Ctrl-C stops slabtest (SLAB, -smp 2) within seconds: in its single-CPU test,
    and in one of its tests on both CPUs, where every CPU must leave at the same
    barrier (with the other CPU left to go on alone, it waited at the next barrier
    for ever and the console hung); it says where, every object is freed and the
    allocator stays consistent."""
    problems = []
    with QemuConsole(["--kernel", kernel("slab"), "--smp", "2"], timeout=120) as q:
        q.expect(r"tinyslab> ", timeout=180)
        q.send("slabtest 3\r")         # every size on both CPUs once: SLAB's per-CPU
        q.expect(r"tinyslab> ", timeout=120)  # arrays of each cache exist before the count
        before = memfree_after_shrink(q)
        for line, wait_for, where in (
                ("slabtest 4294967295", r"slabtest: SLAB, 4294967295 calls.*\n", "single"),
                # after the 4096-byte line: where batches are many, so that the
                # stop lands where more barriers follow
                ("slabtest 20000", r"slabtest: concurrent 4096 bytes, 2 CPUs.*\n",
                 "(concurrent|remote|one_alloc)")):
            q.send(line + "\r")
            q.expect(wait_for, timeout=300)
            time.sleep(0.5)
            q.send("\x03")
            start = time.monotonic()
            try:
                out = strip(q.expect(r"tinyslab> ", timeout=30))
            except Timeout:
                problems.append(f"{line!r}: no prompt within 30 s of Ctrl-C")
                return problems, q.log
            if time.monotonic() - start > 5:
                problems.append(f"{line!r}: Ctrl-C took {time.monotonic() - start:.1f} s")
            if not re.search(rf"slabtest: interrupted in the {where} test at \d+ bytes, after "
                             r"\d+ calls on CPU 0", out):
                problems.append(f"{line!r}: no 'interrupted in the {where} test' after Ctrl-C")
            after = memfree_after_shrink(q)
            if after != before:
                problems.append(f"{line!r}: MemFree, Slab {after} kB after Ctrl-C, {before} before")
        q.send("validate\r")
        expect_in(strip(q.expect(r"tinyslab> ")), problems, "validate: 0 inconsistencies found")
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


def smp_mp_table_without_acpi():
    """Without ACPI the CPUs come from SeaBIOS's MP table, which lists the first
    logical CPU of each package: -smp 4,sockets=4 gives 4 CPUs online, -smp 4 (one
    package of 4 cores) 1, -smp 4,sockets=2 2 (APIC ids 0 and 2)."""
    problems, texts = [], []
    for smp, listed, online in (("4,sockets=4", 4, "smp: 4 of 4 CPUs online"),
                                ("4", 1, None), ("4,sockets=2", 2, "smp: 2 of 2 CPUs online")):
        cmd = ["qemu-system-i386", "-m", "32M", "-machine", "pc,acpi=off", "-smp", smp,
               "-no-reboot", "-net", "none", "-display", "none", "-serial", "stdio",
               "-monitor", "none", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
               "-kernel", kernel("slab"), "-append", "selftest=smp_arch"]
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=120)
            text = strip(r.stdout.decode(errors="replace"))
        except subprocess.TimeoutExpired as e:
            text = strip((e.stdout or b"").decode(errors="replace")) + "\nTIMEOUT\n"
        texts.append(f"-smp {smp}:\n{text}")
        expect_in(text, problems, f"smp: MP table: {listed} CPU(s) enabled", "selftest: PASS")
        if online:
            expect_in(text, problems, online)
    return problems, "\n".join(texts)


def compare_tool():
    small_trace()
    out = work("compare")
    r = subprocess.run([PY, os.path.join(ROOT, "scripts/compare"), "--trace", work("small.ftrace"),
                        "--build", BUILD, "--out", out], capture_output=True, text=True)
    problems = []
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    expect_in(r.stdout, problems, "After boot (kB), as in the 2005 table:", "MemTotal:",
              "Slab at that peak", "overhead (held - live) / live", "slabinfo - version: 2.1",
              "Footprint plot:")
    png = os.path.join(out, "footprint.png")
    if not os.path.exists(png) or os.path.getsize(png) < 2000:
        problems.append("no footprint plot")
    elif open(png, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
        problems.append("footprint.png is not a PNG")
    return problems, r.stdout + r.stderr


# ---- the gdb helpers (scripts/gdb) against the kernel's own reports --------------

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
    kernel print its reports of the very state the helpers read."""
    def case():
        problems, port = [], free_port()
        with QemuConsole(["--kernel", kernel(alloc), "--gdb", str(port)], timeout=60) as q:
            q.expect(r"tinyslab> ")
            q.send("buddyinfo\r")
            own = q.expect(r"tinyslab> ")
            q.send("slabinfo\r")
            own += q.expect(r"tinyslab> ")
            out = run_gdb(kernel(alloc), port, ["ts-buddyinfo", "ts-slabinfo", "echo ---\\n",
                                                "ts-cpus", "ts-dmesg"])
            compare_reports(own, out.split("---")[0], alloc, problems, "at the prompt")
            expect_in(out, problems, "CPU 0: EIP", "in arch_idle", "Console ready: type",
                      "tinyslab " , "Node 0, zone")
            if "MISMATCH" in out:
                problems.append("ts-buddyinfo found a free list that disagrees with its count")
            q.send("stress 400000\r")
            busy = run_gdb(kernel(alloc), port, [
                "break kfree", "ignore 1 3000", "continue", "delete",
                "set $eflags = $eflags & ~0x200",       # no timer inside the calls below
                "ts-buddyinfo", "ts-slabinfo", "echo ---\\n",
                "call show_buddyinfo()", "call kmem_report()"], timeout=300)
            said = strip(q.expect(r"stress: .*\n.*tinyslab> ", timeout=600))
            helpers = busy.split("---")[0]
            figures = compare_reports(said, helpers, alloc, problems, "stopped in stress")
            if alloc.startswith("slob") and not re.search(r"SLOB heap \(\S+\): [1-9]", helpers):
                problems.append("stopped in stress, yet the SLOB heap was empty")
            if alloc == "slab" and not any(x.startswith("size-") and x.split()[1] != "0"
                                           for x in figures):
                problems.append("stopped in stress, yet no size-N cache had objects")
            q.send("halt\r")
            q.wait_exit()
        return problems, busy[-3000:] + "\n" + out[-1500:]
    case.__name__ = f"gdb_helpers_{alloc}"
    return case


def build_tweaked(name, alloc, *tweaks):
    """build/system/<name>/vmlinux: <alloc>_defconfig with kconfig-tweak's
    arguments tweaks, built (-j2); returns its path."""
    out = work(name)
    make = ["make", "-s", "-C", ROOT, f"O={out}"]
    subprocess.run(make + [f"{alloc}_defconfig"], check=True)
    subprocess.run(["kconfig-tweak", "--file", os.path.join(out, ".config")] + list(tweaks),
                   check=True)
    subprocess.run(make + ["olddefconfig"], check=True)
    subprocess.run(make + ["-j2"], check=True)
    return os.path.join(out, "vmlinux")


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
    with QemuConsole(["--kernel", vmlinux, "--gdb", str(port)], timeout=60) as q:
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


# ---- issue 32: the replay's summary, the soak -------------------------------------------

def console_replay_summary():
    """A person at the console sees a replay as a progress line and a short summary;
    "replay data" adds what the scripts parse (the layout, the allocator's report,
    256 samples); "replay junk" is refused.  SLAB, the first 6000 lines of the trace."""
    problems = []
    with QemuConsole(["--kernel", kernel("slab"), "--initrd", small_trace(), "--append",
                      "console"], mem=32, timeout=120) as q:
        q.expect(r"tinyslab> ")
        q.send("replay\r")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
        lines = [l for l in out.splitlines() if l.startswith("replay")]
        if not re.search(r"^replay: running 10% 20% .* 90% done$", out, re.M):
            problems.append("no progress line 'replay: running 10% 20% ... done'")
        if "replay: PASS" not in out or "overhead (held - live) / live" not in out:
            problems.append("no summary (overhead, PASS)")
        if len(lines) > 14:
            problems.append(f"the replay printed {len(lines)} lines; a summary is a few")
        for noise in ("replay-sample:", "replay-layout:", "allocator report at the end"):
            if noise in out:
                problems.append(f"the plain replay printed {noise!r}")
        q.send("replay data\r")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
        samples = len(re.findall(r"^replay-sample: \d+ \d+ \d+$", out, re.M))
        if samples < 100:
            problems.append(f"'replay data' printed {samples} samples")
        expect_in(out, problems, "replay-layout: ram=", "replay: allocator report at the end",
                  "slabinfo - version: 2.1", "replay: PASS")
        q.send("replay junk\r")
        out = strip(q.expect(r"tinyslab> ", timeout=30))
        if "unknown argument" not in out or "replay: replaying" in out:
            problems.append("'replay junk' was not refused")
        return problems, q.log


def soak_console_stops():
    """The console's soak: two rounds of two traces print three soak-round lines, validate
    clean and PASS with every page back; Ctrl-C stops a long one ("soak: interrupted"),
    every object kept from earlier rounds freed (MemFree and Slab as before), validate
    clean.  SLOB, the small trace twice (under two names)."""
    problems = []
    small = small_trace()
    twin = work("small-twin.replay")
    if not os.path.exists(twin):
        with open(small, "rb") as f, open(twin, "wb") as g:
            g.write(f.read())
    with QemuConsole(["--kernel", kernel("slob"), "--initrd", small, "--initrd", twin,
                      "--append", "console"], mem=32, timeout=120) as q:
        q.expect(r"tinyslab> ")
        before = memfree_after_shrink(q)
        q.send("soak 2\r")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
        rounds = re.findall(r"^soak-round: (\d+) held \d+ .* validate (\d+) failures (\d+) "
                            r"corruptions (\d+)$", out, re.M)
        if [r[0] for r in rounds] != ["0", "1", "2"]:
            problems.append(f"soak 2 printed rounds {[r[0] for r in rounds]}")
        if any(r[1:] != ("0", "0", "0") for r in rounds):
            problems.append(f"a round was not clean: {rounds}")
        expect_in(out, problems, "soak: PASS", "what each leaves live kept 3 rounds")
        q.send("soak 1000000\r")
        q.expect(r"soak-round: 1 ", timeout=120)
        q.send("\x03")
        out = strip(q.expect(r"tinyslab> ", timeout=60))
        if not re.search(r"replay: interrupted at op \d+ of \d+", out) or \
                "soak: interrupted" not in out:
            problems.append("no 'soak: interrupted' after Ctrl-C")
        if memfree_after_shrink(q) != before:
            problems.append("MemFree or Slab differ after the interrupted soak")
        q.send("validate\r")
        if "validate: 0 inconsistencies found" not in strip(q.expect(r"tinyslab> ")):
            problems.append("validate found inconsistencies after the interrupted soak")
        return problems, q.log


CASES = [
    console_case("slab"),
    console_case("slob"),
    iso_case("t", "slab"),
    iso_case("s", "slob"),
    fault_case("divide", "divide error"),
    fault_case("null", "page fault"),
    fault_case("stack", "double fault", "is in the guard page below CPU 0's stack"),
    fault_case("stack-ap", "double fault", "on CPU 1:", "is in the guard page below CPU 1's stack",
               "(on CPU 1; the other CPUs are stopped)", smp=2),
    # a fault inside printk: the report still comes out (it once hung with SMP=y, and
    # recursed through the debug lock's report into a triple fault in slab_debug)
    *[fault_case("printk", "page fault", "it came inside a printk on this CPU",
                 "(NULL pointer dereference)", "vsnprintf+",
                 smp=n, alloc=a, suffix=f"_{a}_smp{n}") for a in ("slab", "slab_debug")
      for n in (1, 4)],
    # a CPU hung holding the console: the crashing CPU waits while nothing is written,
    # then takes the console over
    fault_case("console-stuck", "page fault", "printk: CPU 1 holds the console without writing: "
               "taken over", "(on CPU 0; the other CPUs are stopped)", smp=2),
    # panic() waits for the other CPUs to stop before it prints over the console (CPU 2
    # made slow to stop), and not for ever
    fault_case("null", "page fault", "(on CPU 0; the other CPUs are stopped)", smp=4,
               suffix="_smp4", append="smp_delay_stop=2,100"),
    fault_case("null", "page fault", "(on CPU 0; 1 other CPU(s) did not stop within 3000 ms)",
               smp=4, suffix="_smp4_cpu_never_stops", append="smp_delay_stop=2,30000"),
    console_stuck_taken_over_within_a_second,
    nmi_during_output_case(1),
    nmi_during_output_case(4),
    old_cpu_refused_case("486"),
    old_cpu_refused_case("pentium"),
    console_ctrl_c,
    console_input_limits,
    console_paste,
    console_replay_repeats_and_stops,
    mem_limit_and_unknown_parameter,
    slabtest_at_boot,
    cmdline_limits,
    cmdline_length,
    replay_malformed_module,
    replay_too_small,
    replay_without_a_peak,
    agreement_case("slab"),
    agreement_case("slob"),
    compare_tool,
    gdb_helpers_case("slab"),
    gdb_helpers_case("slob"),
    gdb_helpers_case("slob_fast"),
    gdb_dmesg_without_log_buf,
    smp_console_case("slab"),
    smp_console_case("slob"),
    smp_cpus_left_out,
    smp_late_ap,
    smp_cpu_hole_case("slab", 1),
    smp_cpu_hole_case("slob", 2),
    smpbench_ctrl_c,
    slabtest_ctrl_c,
    selftest_ctrl_c_between_cases,
    smp_mp_table_without_acpi,
    kmem_debug_console_case("slab"),
    kmem_debug_console_case("slob"),
    kmem_debug_trace_case("slab"),
    kmem_debug_trace_case("slob"),
    fault_injection_console_case("slab"),
    fault_injection_console_case("slob"),
    console_replay_summary,
    soak_console_stops,
]


def main():
    global BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=BUILD)
    ap.add_argument("--summary-file")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    spec = importlib.util.spec_from_file_location("runner", os.path.join(ROOT, "tests/scripts/run.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    unknown = set(args.cases) - {c.__name__ for c in CASES}
    if unknown:
        ap.error(f"no case {sorted(unknown)[0]}")
    cases = [c for c in CASES if not args.cases or c.__name__ in args.cases]
    return runner.run_cases(cases, "system", args.summary_file)


if __name__ == "__main__":
    sys.exit(main())
