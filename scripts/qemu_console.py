"""qemu_console.py - drive a QEMU machine's serial console from a script.

    with QemuConsole(["--kernel", "build/slab/vmlinux"], mem=32) as q:
        q.expect(r"tinyslab> ")
        q.send("meminfo\\r")
        out = q.expect(r"tinyslab> ")      # text up to and including the match

Builds the QEMU command line exactly as scripts/qemu-run does (the two
share qemu_arguments() and qemu_command() below), starts it headless with
the serial line on a pipe (and the isa-debug-exit device, so "halt" or a
finished self-test ends it), keeps
everything the machine printed in .log, and raises Timeout with the last
lines of output when an expected pattern does not come.
"""
import argparse
import os
import re
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# QEMU exit statuses: the kernel writes 0x10 (pass) or 0x11 (fail) to the
# isa-debug-exit device, which exits with (value << 1) | 1.
EXIT_PASS, EXIT_FAIL = (0x10 << 1) | 1, (0x11 << 1) | 1


def qemu_arguments(description=None):
    """The options of scripts/qemu-run, which QemuConsole takes too."""
    p = argparse.ArgumentParser(description=description)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", help="Multiboot ELF kernel (booted by QEMU itself)")
    what.add_argument("--iso", help="bootable ISO image (booted by GRUB)")
    p.add_argument("--append", default="", help="kernel command line (with --kernel)")
    p.add_argument("--initrd", action="append", default=[],
                   help="file to pass as a Multiboot module (repeatable)")
    p.add_argument("--mem", type=int, default=int(os.environ.get("MEM", 32)),
                   help="RAM in MiB (default 32, or $MEM)")
    p.add_argument("--timeout", type=int, default=300, help="seconds before giving up")
    p.add_argument("--log", help="also write the serial output here")
    p.add_argument("--quiet", action="store_true", help="do not echo the serial output")
    p.add_argument("--interactive", action="store_true", help="run on this terminal")
    p.add_argument("--kvm", action="store_true", default=os.environ.get("KVM") == "1",
                   help="use KVM (default: TCG; also KVM=1)")
    p.add_argument("--icount", action="store_true", help="deterministic instruction counting")
    p.add_argument("--gdb", type=int, metavar="PORT",
                   help="QEMU's gdb stub on localhost:PORT (target remote :PORT)")
    p.add_argument("--gdb-stop", action="store_true",
                   help="with --gdb: stop at the first instruction until gdb continues")
    p.add_argument("--cpu", metavar="MODEL",
                   help="QEMU's CPU model (-cpu MODEL, e.g. 486 or pentium; default QEMU's)")
    p.add_argument("--smp", type=int, default=int(os.environ.get("CPUS", 1)),
                   help="number of CPUs (default 1, or $CPUS); more than one runs "
                        "multi-threaded TCG, one host thread per CPU")
    p.add_argument("--tcg-single", action="store_true",
                   help="with --smp: one host thread runs every CPU in turn (round-robin "
                        "TCG), and a CPU's pause hands the turn on")
    return p


def qemu_command(args):
    """The qemu-system-i386 command line for parsed qemu_arguments()."""
    cmd = ["qemu-system-i386", "-m", f"{args.mem}M", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-net", "none"]
    if args.kvm:
        if os.access("/dev/kvm", os.R_OK | os.W_OK):
            cmd += ["-accel", "kvm", "-cpu", "host"]
        else:
            print("qemu-run: /dev/kvm is not usable; using TCG", file=sys.stderr)
    if args.cpu:
        cmd += ["-cpu", args.cpu]
    if args.smp > 1:
        cmd += ["-smp", str(args.smp)]
        if not args.kvm:
            # One host thread per virtual CPU, so that they truly run at once;
            # or one for all, in turn (icount needs that round-robin TCG).
            # QEMU's pause ends a CPU's turn ("let another CPU run"), so a
            # fair lock's queue moves at the guest's pace, not at the pace at
            # which a busy host schedules one thread per CPU.
            single = args.icount or args.tcg_single
            cmd += ["-accel", "tcg,thread=" + ("single" if single else "multi")]
    if args.icount:
        # Instruction counting: virtual time, timer interrupts and the TSC
        # follow the instructions executed, so a run repeats exactly.
        cmd += ["-icount", "shift=4,sleep=off"]
    if args.gdb:
        cmd += ["-gdb", f"tcp:127.0.0.1:{args.gdb}"] + (["-S"] if args.gdb_stop else [])
    if args.iso:
        cmd += ["-cdrom", args.iso, "-boot", "d"]
    else:
        cmd += ["-kernel", args.kernel]
        if args.append:
            cmd += ["-append", args.append]
        if args.initrd:
            cmd += ["-initrd", ",".join(args.initrd)]
    if args.interactive:
        cmd += ["-nographic"]
    else:
        cmd += ["-display", "none", "-serial", "stdio", "-monitor", "none"]
    return cmd


class Timeout(Exception):
    pass


class QemuConsole:
    def __init__(self, boot_args, mem=32, timeout=60):
        """boot_args: qemu-run options, e.g. ["--kernel", PATH, "--append", ARGS]."""
        cmd = qemu_command(qemu_arguments().parse_args(list(boot_args) + ["--mem", str(mem)]))
        self.timeout = timeout
        self.log = ""
        self.pos = 0
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self, wait):
        ready, _, _ = select.select([self.proc.stdout], [], [], wait)
        if not ready:
            return False
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            return None
        self.log += data.decode("utf-8", "replace").replace("\r", "")
        return True

    def expect(self, pattern, timeout=None):
        """Waits for pattern after the previous match; returns the text up to its end."""
        rx = re.compile(pattern)
        end = time.monotonic() + (timeout or self.timeout)
        while True:
            m = rx.search(self.log, self.pos)
            if m:
                text = self.log[self.pos:m.end()]
                self.pos = m.end()
                return text
            left = end - time.monotonic()
            if left <= 0 or self._read(min(left, 0.2)) is None and not rx.search(self.log, self.pos):
                if left > 0 and self.proc.poll() is None:
                    continue
                tail = "\n".join(self.log.splitlines()[-15:])
                raise Timeout(f"did not see {pattern!r}; last output:\n{tail}")

    def send(self, text, delay=0.01):
        """Types text (slowly: the UART has a small FIFO)."""
        for ch in text:
            self.proc.stdin.write(ch.encode())
            self.proc.stdin.flush()
            time.sleep(delay)

    def paste(self, text, timeout=None):
        """Sends text at once, as a terminal pastes it: as fast as QEMU takes it,
        reading the machine's output meanwhile so that neither side stalls."""
        data = memoryview(text.encode())
        fd = self.proc.stdin.fileno()
        os.set_blocking(fd, False)
        end = time.monotonic() + (timeout or self.timeout)
        try:
            while data:
                if time.monotonic() > end:
                    raise Timeout(f"QEMU did not take the paste; {len(data)} bytes left")
                readable, writable, _ = select.select([self.proc.stdout], [fd], [], 0.2)
                if readable and self._read(0) is None:
                    raise Timeout("QEMU ended during the paste")
                if writable:
                    try:
                        data = data[os.write(fd, data[:4096]):]
                    except BlockingIOError:
                        pass
        finally:
            os.set_blocking(fd, True)

    def wait_quiet(self, seconds=1.0, timeout=None):
        """Waits until the machine has printed nothing for seconds."""
        end = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < end:
            if not self._read(seconds):
                return
        raise Timeout(f"the machine did not fall quiet for {seconds} s")

    def wait_exit(self, timeout=None):
        """Waits for QEMU to end; returns its exit status."""
        end = time.monotonic() + (timeout or self.timeout)
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0):
            pass
        if self.proc.poll() is None:
            raise Timeout("QEMU did not exit")
        return self.proc.returncode

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
