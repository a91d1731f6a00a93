#!/usr/bin/python3
"""test_boot.py - system tests of booting: the GRUB menu on the serial
line choosing each allocator's self-tests, and the kernel command line at
its limits (mem=, unknown parameters, overflowing numbers, flags given
values, control bytes, its length).
"""
import re

from common import QemuConsole, build_path, expect_in, kernel, qemu_run, strip, work
from qemu_console import EXIT_PASS

def iso_case(hotkey, alloc):
    def case():
        problems = []
        with QemuConsole(["--iso", build_path("tinyslab.iso")], timeout=120) as q:
            q.expect(r"SLAB allocator: the console")   # the menu, on serial (its first entry)
            q.send(hotkey)
            q.expect(r"tinyslab .*\(i386, %s allocator" % alloc.upper())
            q.expect(r"selftest: (PASS|FAIL)", timeout=180)
            status = q.wait_exit(120)
            expect_in(q.log, problems, "selftest: PASS", "boot loader: GRUB")
            if status != EXIT_PASS:
                problems.append(f"QEMU exit status {status}, expected {EXIT_PASS}")
            return problems, q.log
    case.__name__ = f"iso_menu_selftest_{alloc}"
    return case


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
                            "--initrd", module + " \x1b[31mred", timeout=120)
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
                                 f"mem={size} poweroff", timeout=120)
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
                               timeout=120)
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


CASES = [
    iso_case("t", "slab"),
    iso_case("s", "slob"),
    iso_case("b", "slub"),
    iso_case("n", "slub_tiny"),
    mem_limit_and_unknown_parameter,
    cmdline_limits,
    cmdline_length,
    slabtest_at_boot,
]
