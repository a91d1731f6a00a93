"""test_i386_fallback.py - make test on a host that runs no i386 program, tried here.

Some hosts do not run i386 user programs (hypervisors, sandboxes, Linux
booted with ia32_emulation=false), and there every -m32 host program
fails with "Exec format error".  TINYSLAB_I386=no makes the probe
(scripts/i386_probe.py) answer as such a host would, so this runs, on any
host, what make test runs with an i386 program, as a host without them
runs it: scripts/test-all --i386-checks for the slob configuration (its
ktest-32, the replay-module corpus, the kmem_debug=ZPU trace replay, the
system test of the host benchmark agreeing with the kernel, and the bench
verdict test).  It must end with no failure; ktest-32 and the agreement
test must be skipped with the reason, and the corpus and the trace replay
run on their 64-bit builds (labels ending in -64) and pass.  The bench
verdict test checks itself that bench ran its 64-bit builds.
"""
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CASES = []
REASON = "i386 user programs do not run here: TINYSLAB_I386=no"


def case(fn):
    fn.__name__ = "i386_fallback_" + fn.__name__
    CASES.append(fn)
    return fn


def lines_of(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


@case
def host_checks_skip_or_run_64_bit():
    env = dict(os.environ, TINYSLAB_I386="no")
    env.pop("TINYSLAB_I386_WHY", None)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results.txt")
        r = subprocess.run([os.path.join(ROOT, "scripts", "test-all"), "--i386-checks",
                            "--configs", "slob", "--results", results],
                           capture_output=True, text=True, env=env)
        recorded = lines_of(results)
        summary = lines_of(os.path.join(tmp, "test-summary.txt"))
    out = r.stdout.splitlines()
    if r.returncode != 0:
        problems.append(f"exit status {r.returncode}, expected 0")
    if not out or out[0] != "=== i386 user programs: do not run here (TINYSLAB_I386=no)":
        problems.append(f"the first line does not say what the probe found: {out[:1]}")
    for want in (f"host-slob-32 0 0 1 SKIP {REASON}",
                 f"system/replay_host_agrees_with_kernel_slob 0 0 1 SKIP {REASON}",
                 "host-slob-replay-corpus-64 1 0 0 PASS",
                 "host-slob-trace-kmem-debug-ZPU-64 1 0 0 PASS",
                 "scripts 1 0 0 PASS"):
        if want not in recorded:
            problems.append(f"the results lack {want!r}")
    for line in recorded:
        fields = line.split()
        if len(fields) < 5 or fields[4] not in ("PASS", "SKIP") or fields[2] != "0":
            problems.append(f"a result that is no pass or skip: {line!r}")
    totals = re.compile(r"^(\d+) passed, 0 failed, 2 skipped \(2 checks: " + re.escape(REASON)
                        + r"\)$")
    if not out or not totals.match(out[-2] if out[-1].startswith("(summary") else out[-1]):
        problems.append("the totals line does not count 2 skipped checks with the reason")
    if "i386 user programs: do not run here (TINYSLAB_I386=no)" not in summary or \
            not any(totals.match(s) for s in summary):
        problems.append("the summary file lacks the probe's answer or the totals")
    return problems, r.stdout + r.stderr
