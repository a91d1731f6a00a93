#!/usr/bin/python3
"""i386_probe.py - do i386 (32-bit x86) user programs run on this host?

usage: scripts/i386_probe.py [--export | --skip-reason]

The host programs built with clang -m32 (ktest-32, replay-fuzz-replay,
bench, bench-timed, bench-kdbg-*, peer-glibc-32, ...) run only where the
kernel runs i386 user programs.  Some hypervisors and sandboxes do not,
nor does a Linux 6.7+ booted with ia32_emulation=false: there execve()
of such a program fails with ENOEXEC ("Exec format error").  This probe
builds a trivial program with clang -m32 and runs it; any failure (it
cannot be built, it cannot be executed, it exits wrongly) means "no".

TINYSLAB_I386 in the environment answers without probing:
  no   i386 programs are not run, as if the host could not run them (to
       test the 64-bit fallback anywhere); TINYSLAB_I386_WHY, if set,
       says why, else the reason is "TINYSLAB_I386=no";
  yes  they run (the answer of a probe already made: scripts/test-all and
       the make targets probe once and pass the answer down this way).
Unset or empty, the probe runs.

Prints one line, "i386 user programs: run here" or "i386 user programs: do
not run here (REASON)"; exit status 0 for yes, 1 for no, 2 for a bad
TINYSLAB_I386.  With --export it prints shell assignments instead
(export TINYSLAB_I386=yes|no and TINYSLAB_I386_WHY) for eval, so that a
script probes once and everything it starts gets the same answer.
With --skip-reason it prints the reason a check that needs an i386
program gives for its skip (nothing where they run).
Python scripts import probe() from here.
"""
import os
import shlex
import subprocess
import sys
import tempfile

PROGRAM = "int main(void) { return sizeof(void *) == 4 && sizeof(long) == 4 ? 0 : 3; }\n"


class BadSetting(Exception):
    pass


def run_probe():
    """(True, "") if a clang -m32 program runs here, else (False, why)."""
    cc = os.environ.get("HOSTCC", "clang")
    with tempfile.TemporaryDirectory(prefix="tinyslab-i386-") as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write(PROGRAM)
        try:
            r = subprocess.run([cc, "-m32", "-o", exe, src], capture_output=True, text=True)
        except OSError as e:
            return False, f"{cc} -m32 cannot be run: {e.strerror}"
        if r.returncode:
            first = (r.stderr.strip().splitlines() or ["no message"])[0]
            return False, f"{cc} -m32 cannot build a program: {first}"
        try:
            r = subprocess.run([exe], capture_output=True)
        except OSError as e:
            return False, f"execve: {e.strerror}"
        if r.returncode:
            return False, f"a {cc} -m32 test program exited with status {r.returncode}"
    return True, ""


def probe():
    """(runs, why): TINYSLAB_I386's answer if set, else the probe's."""
    told = os.environ.get("TINYSLAB_I386", "")
    if told == "no":
        return False, os.environ.get("TINYSLAB_I386_WHY") or "TINYSLAB_I386=no"
    if told == "yes":
        return True, ""
    if told:
        raise BadSetting(f"TINYSLAB_I386={told!r}: give yes, no, or leave it unset")
    return run_probe()


def describe(runs, why):
    """The line the make targets print first."""
    return "i386 user programs: run here" if runs else \
        f"i386 user programs: do not run here ({why})"


def skip_reason(why):
    """The reason a check that needs an i386 program gives for its skip."""
    return f"i386 user programs do not run here: {why}"


def main():
    args = sys.argv[1:]
    if args not in ([], ["--export"], ["--skip-reason"]):
        print("usage: i386_probe.py [--export | --skip-reason]", file=sys.stderr)
        return 2
    try:
        runs, why = probe()
    except BadSetting as e:
        print(f"i386_probe.py: {e}", file=sys.stderr)
        return 2
    if args == ["--skip-reason"]:
        print("" if runs else skip_reason(why))
        return 0
    if args:
        print(f"export TINYSLAB_I386={'yes' if runs else 'no'} "
              f"TINYSLAB_I386_WHY={shlex.quote(why)}")
        return 0
    print(describe(runs, why))
    return 0 if runs else 1


if __name__ == "__main__":
    sys.exit(main())
