#!/usr/bin/python3
"""test_replay.py - system tests of the trace replay: a console replay
repeating the boot's and stopped by Ctrl-C, a machine too small for the
trace, malformed modules refused, the host benchmark reproducing the
kernel replay's footprint, and scripts/compare end to end.
"""
import os
import re
import struct
import subprocess

from common import (PY, ROOT, QemuConsole, build_path, expect_in, full_trace, kernel,
                    memfree_after_shrink, qemu_run, small_trace, strip, work)
from serial_log import FOOTPRINT_LINES, footprint, layout
import allocators

REPLAY_FIGURES = re.compile(r"^replay: (?:Slab at the peak|MemFree at the peak|allocation "
                            r"failures|peak live).*$", re.M)


def console_replay_repeats_and_stops():
    """A console replay after the boot replay repeats it exactly (SLOB, whose figures depend
    on which pages it gets, at 16 MiB where allocations fail too); Ctrl-C stops a replay
    with "interrupted", every object freed and the allocator consistent.  The Ctrl-C goes
    to the SLOB debug kernel, which validates the whole heap after every operation: its
    replay runs for over a minute (73 s here, where SLOB's takes a fraction of a second),
    so the Ctrl-C, sent as the replay starts, cannot come after its end."""
    problems = []
    trace, _ = full_trace()
    with QemuConsole(["--kernel", kernel("slob"), "--initrd", trace, "--append",
                      "replay console"], mem=16, timeout=120) as q:
        boot = strip(q.expect(r"tinyslab> ", timeout=300))
        first = REPLAY_FIGURES.findall(boot)
        memfree_after_shrink(q)
        q.send("replay\r")
        again = REPLAY_FIGURES.findall(strip(q.expect(r"tinyslab> ", timeout=300)))
        if len(first) != 4 or first != again:
            problems.append(f"the second replay differs: {first} then {again}")
        log = q.log
    with QemuConsole(["--kernel", kernel("slob_debug"), "--initrd", trace, "--append",
                      "console"], mem=16, timeout=120) as q:
        q.expect(r"tinyslab> ", timeout=300)
        before = memfree_after_shrink(q)
        q.send("replay\r")
        q.expect(r"replay: replaying")
        q.send("\x03")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
        if not re.search(r"replay: interrupted at op \d+ of \d+", out) or \
                "replay: interrupted\n" not in out:
            problems.append("no 'replay: interrupted' after Ctrl-C")
        if memfree_after_shrink(q) != before:
            problems.append("MemFree or Slab differ after the interrupted replay")
        q.send("validate\r")
        if "validate: 0 inconsistencies found" not in strip(q.expect(r"tinyslab> ")):
            problems.append("validate found inconsistencies after the interrupted replay")
        return problems, log + q.log


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
                                "--initrd", path, timeout=120)
        texts.append(text)
        if status != 1:
            problems.append(f"{name} on {alloc}: qemu-run status {status}, expected 1")
        expect_in(text, problems, phrase, "replay: FAIL")
        if "***" in text:
            problems.append(f"{name} on {alloc}: a CPU exception")
    return problems, "\n".join(texts)


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
        bench = build_path("host", alloc, "bench")
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


def compare_tool():
    small_trace()
    out = work("compare")
    r = subprocess.run([PY, os.path.join(ROOT, "scripts/compare"), "--trace", work("small.ftrace"),
                        "--build", build_path(), "--out", out], capture_output=True, text=True)
    problems = []
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}")
    expect_in(r.stdout, problems, "After boot (kB), as in the 2005 table:", "MemTotal:",
              "Slab at that peak", "overhead (held - live) / live", "slabinfo - version: 2.1",
              "Footprint plot:", "objects cached per CPU there", "Heap maps at the peak")
    for png in ("footprint.png", "heapmap-small.png"):
        path = os.path.join(out, png)
        if not os.path.exists(path) or os.path.getsize(path) < 2000:
            problems.append(f"no {png}")
        elif open(path, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
            problems.append(f"{png} is not a PNG")
    peak_map_agrees(os.path.join(out, "small"), problems)
    return problems, r.stdout + r.stderr


def peak_map_agrees(logs, problems):
    """In each allocator's log of compare: the heap map after the peak's operation has a
    cell for every page the allocator holds there, and those are the pages at the peak
    the summary gives (so the map is drawn at the peak, and misses no page)."""
    for alloc in allocators.present():
        path = os.path.join(logs, f"{alloc}.log")
        if not os.path.exists(path):
            continue
        text = strip(open(path, errors="replace").read())
        at = re.search(r"^replay: at op \d+: Slab (\d+) pages", text, re.M)
        drawn = re.search(r"^heap map: (\d+) pages in", text, re.M)
        peak = re.search(r"^replay: Slab at the peak (\d+) pages", text, re.M)
        if not (at and drawn and peak):
            problems.append(f"{alloc}: no state at the peak, map or summary in its log")
        elif not at.group(1) == drawn.group(1) == peak.group(1):
            problems.append(f"{alloc}: {at.group(1)} pages at the peak's op, {drawn.group(1)} "
                            f"drawn, {peak.group(1)} in the summary")


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
        for noise in ("replay-sample:", "replay-layout:", "allocator report at the end",
                      "replay-calls:", "replay-hist:", "replay-slowest:"):
            if noise in out:
                problems.append(f"the plain replay printed {noise!r}")
        q.send("replay data\r")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
        samples = len(re.findall(r"^replay-sample: \d+ \d+ \d+$", out, re.M))
        if samples < 100:
            problems.append(f"'replay data' printed {samples} samples")
        expect_in(out, problems, "replay-layout: ram=", "replay: allocator report at the end",
                  "slabinfo - version: 2.1", "replay: PASS")
        # the calls' distribution scripts/bench reads (kernel/replay.c)
        for kind in ("alloc", "free"):
            if not re.search(rf"^replay-calls: {kind} \d+ unit 16 cycles$", out, re.M) or \
                    not re.search(rf"^replay-hist: {kind} \d+ \d+$", out, re.M) or \
                    not re.search(rf"^replay-slowest: {kind} \d+ \d+$", out, re.M):
                problems.append(f"'replay data' printed no distribution of the {kind} calls")
        q.send("replay junk\r")
        out = strip(q.expect(r"tinyslab> ", timeout=120))
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
        out = strip(q.expect(r"tinyslab> ", timeout=120))
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
    console_replay_repeats_and_stops,
    replay_malformed_module,
    replay_too_small,
] + [agreement_case(a) for a in allocators.present(("allocator",))] + [
    compare_tool,
    replay_without_a_peak,
    console_replay_summary,
    soak_console_stops,
]
