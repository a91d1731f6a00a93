#!/usr/bin/python3
"""allocators.py - the one list of allocators the comparisons run.

Every script that compares allocators (compare, bench, soak, sizes, the
small-machine table, the microbenchmark, smpbench) takes its list from
here, so that a new allocator is one line.  Each entry is the defconfig
name (arch/x86/configs/NAME_defconfig, build/NAME) and the label the
tables print.  An entry whose defconfig does not exist in this tree is
left out by present(), so a script never names a kernel it cannot build.

    from allocators import present, label
    for name in present(): ...

As a command it prints the names of present() one per line (for make and
shell scripts): scripts/allocators.py [--labels]
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (defconfig name, label), in the order the tables print them
ALLOCATORS = (
    ("slab", "SLAB"),
    ("slub", "SLUB"),
    ("slub_sheaves", "SLUB-sheaves"),
    ("slub_tiny", "SLUB_TINY"),
    ("slob", "SLOB"),
    ("slob_fast", "SLOB-fast"),
)


def exists(name):
    return os.path.isfile(os.path.join(ROOT, "arch", "x86", "configs", f"{name}_defconfig"))


def present():
    """The names of the allocators whose defconfig this tree has, in table order."""
    return [name for name, _ in ALLOCATORS if exists(name)]


def label(name):
    return dict(ALLOCATORS).get(name, name.upper())


if __name__ == "__main__":
    labels = "--labels" in sys.argv[1:]
    for name in present():
        print(f"{name} {label(name)}" if labels else name)
