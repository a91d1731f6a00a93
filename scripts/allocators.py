"""allocators.py - the one list of configurations: every allocator, the
variants, and the debug configurations.

Every script and make target that builds or compares allocators (compare,
bench, soak, sizes, the small-machine table, the microbenchmarks,
smpbench, bench-smp, test-all, the ISO, the fuzzer, coverage) takes its
list from here, so that a new allocator is one line.  Each entry is the
defconfig name (arch/x86/configs/NAME_defconfig, build/NAME, the host
build's CONFIG=NAME), the label the tables print, and its kind:

    allocator  an object allocator of its own (SLAB, SLUB, SLUB_TINY, SLOB)
    variant    an allocator with another part swapped in (SLOB with its
               fast heap): compared beside the allocators, left out where
               one kernel per allocator is wanted (the ISO, sizes' tables,
               the fuzzer, coverage, bench-smp)
    debug      an allocator under the debugging options (kmem_debug=,
               the validator, fault injection): tested, never compared

An entry whose defconfig does not exist in this tree is left out by
present(), so a script never names a kernel it cannot build.

    from allocators import present, label
    for name in present(): ...

As a command it prints names one per line (for make and shell scripts):

    scripts/allocators.py [--labels] [--kinds KIND,... | --debugged]

--kinds picks the kinds (allocator, variant, debug, or all; default
allocator,variant: what the comparisons run); --debugged prints the
allocators a debug configuration exists for (what debug-costs measures).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (defconfig name, label, kind), in the order the tables print them
CONFIGS = (
    ("slab", "SLAB", "allocator"),
    ("slub", "SLUB", "allocator"),
    ("slub_sheaves", "SLUB-sheaves", "allocator"),
    ("slub_tiny", "SLUB_TINY", "allocator"),
    ("slob", "SLOB", "allocator"),
    ("slob_fast", "SLOB-fast", "variant"),
    ("slab_debug", "SLAB debug", "debug"),
    ("slob_debug", "SLOB debug", "debug"),
    ("slub_debug", "SLUB debug", "debug"),
    ("slub_sheaves_debug", "SLUB-sheaves debug", "debug"),
)
KINDS = ("allocator", "variant", "debug")
COMPARED = ("allocator", "variant")
# (defconfig name, label) of what the comparisons run
ALLOCATORS = tuple((name, lab) for name, lab, kind in CONFIGS if kind in COMPARED)


def exists(name):
    return os.path.isfile(os.path.join(ROOT, "arch", "x86", "configs", f"{name}_defconfig"))


def present(kinds=COMPARED):
    """The names of the configurations of those kinds whose defconfig this
    tree has, in table order."""
    return [name for name, _, kind in CONFIGS if kind in kinds and exists(name)]


def debugged():
    """The allocators that a debug configuration of this tree debugs
    (NAME for each NAME_debug), in table order."""
    names = {n[:-len("_debug")] for n in present(("debug",))}
    return [name for name in present(("allocator",)) if name in names]


def label(name):
    return {n: lab for n, lab, _ in CONFIGS}.get(name, name.upper())


def main(argv):
    labels, kinds, names = False, COMPARED, None
    while argv:
        arg = argv.pop(0)
        if arg == "--labels":
            labels = True
        elif arg == "--debugged":
            names = debugged()
        elif arg == "--kinds" and argv:
            kinds = tuple(argv.pop(0).split(","))
            if "all" in kinds:
                kinds = KINDS
            bad = [k for k in kinds if k not in KINDS]
            if bad:
                sys.exit(f"allocators.py: no kind {', '.join(bad)} (kinds: {', '.join(KINDS)}, all)")
        else:
            sys.exit("usage: scripts/allocators.py [--labels] [--kinds KIND,... | --debugged]")
    for name in names if names is not None else present(kinds):
        print(f"{name} {label(name)}" if labels else name)


if __name__ == "__main__":
    main(sys.argv[1:])
