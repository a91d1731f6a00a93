"""qemu_console.py - drive a QEMU machine's serial console from a script.

    with QemuConsole(["--kernel", "build/slab/vmlinux"], mem=32) as q:
        q.expect(r"tinyslab> ")
        q.send("meminfo\\r")
        out = q.expect(r"tinyslab> ")      # text up to and including the match

Starts qemu-system-i386 headless with the serial line on a pipe (and the
isa-debug-exit device, so "halt" or a finished self-test ends it), keeps
everything the machine printed in .log, and raises Timeout with the last
lines of output when an expected pattern does not come.
"""
import os
import re
import select
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_PASS, EXIT_FAIL = 33, 35


class Timeout(Exception):
    pass


class QemuConsole:
    def __init__(self, boot_args, mem=32, timeout=60):
        """boot_args: ["--kernel", PATH, "--append", ARGS, "--initrd", FILE] or ["--iso", PATH]."""
        cmd = ["qemu-system-i386", "-m", f"{mem}M", "-no-reboot", "-net", "none",
               "-display", "none", "-serial", "stdio", "-monitor", "none",
               "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        args = list(boot_args)
        while args:
            opt, val = args.pop(0), args.pop(0)
            if opt == "--kernel":
                cmd += ["-kernel", val]
            elif opt == "--append":
                cmd += ["-append", val]
            elif opt == "--initrd":
                cmd += ["-initrd", val]
            elif opt == "--iso":
                cmd += ["-cdrom", val, "-boot", "d"]
            else:
                raise ValueError(opt)
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
