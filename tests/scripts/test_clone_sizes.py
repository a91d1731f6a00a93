"""test_clone_sizes.py - an object has the same size in any clone.

make sizes quotes size(1) figures that a reader compares with their own
clone's: the kernel's sources are copied into two folders whose paths
differ in length, mm/slub.o (which names its file in WARN_ON()'s reports)
is built in each, and size(1) must agree.  Loaded by run.py.
"""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ["Makefile", "Kconfig", "arch", "include", "mm", "kernel", "init", "tests/Kbuild",
           "tests/mm", "tests/kernel", "scripts"]
OBJECT = "mm/slub.o"


def build_in(folder):
    """Copies the sources into folder, builds OBJECT there; its size(1) line."""
    os.makedirs(folder)
    tar = subprocess.Popen(["tar", "cf", "-"] + SOURCES, cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "xf", "-"], cwd=folder, stdin=tar.stdout, check=True)
    tar.wait()
    out = os.path.join(folder, "out")
    for goal in ("slub_defconfig", os.path.join(out, OBJECT)):
        r = subprocess.run(["make", "-s", "O=" + out, goal], cwd=folder, capture_output=True,
                           text=True)
        if r.returncode:
            return None, r.stdout + r.stderr
    r = subprocess.run(["i686-linux-gnu-size", os.path.join(out, OBJECT)], capture_output=True,
                       text=True)
    fields = r.stdout.splitlines()[-1].split()[:4] if r.returncode == 0 else None
    return fields, r.stdout + r.stderr


def object_size_is_the_same_in_any_clone():
    with tempfile.TemporaryDirectory() as tmp:
        a, log_a = build_in(os.path.join(tmp, "a"))
        b, log_b = build_in(os.path.join(tmp, "a-clone-in-a-folder-with-a-longer-name"))
    log = log_a + log_b
    if a is None or b is None:
        return ["the object did not build"], log
    if a != b:
        return [f"{OBJECT}: text, data, bss, dec {a} in one clone, {b} in the other"], log
    return [], log


CASES = [object_size_is_the_same_in_any_clone]
