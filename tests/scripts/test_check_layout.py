"""test_check_layout.py - tests of scripts/check-layout on small trees.

A tree of a header and two C files, laid out as the project is: the
check passes on it as written, and fails, naming each, when it gains a
static inline function nothing calls, a macro nothing uses, a macro a .c
file defines and never uses, inline asm in mm/, or an <arch/...> header
the host build does not provide.  Loaded by run.py.
"""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = "/usr/bin/python3"
HEADER = """#ifndef TINY_A_H
#define TINY_A_H
#define PASTE(x) pasted_##x
#define USED_MACRO 3
static inline int used_inline(int x)
{
	return x + USED_MACRO;
}
#endif /* TINY_A_H */
"""
MM = """#define _GNU_SOURCE
#include <tiny/a.h>
#include <arch/page.h>
#define LOCAL_USED 1
int f(void)
{
	return used_inline(LOCAL_USED) + PASTE(one);
}
"""


def make_tree(tmp, header=HEADER, mm=MM):
    for d in ("include/tiny", "mm", "kernel", "init", "tests", "arch/x86/include/arch",
              "tests/host/include/arch"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    for d in ("arch/x86/include/arch", "tests/host/include/arch"):
        open(os.path.join(tmp, d, "page.h"), "w").close()
    with open(os.path.join(tmp, "include/tiny/a.h"), "w") as f:
        f.write(header)
    with open(os.path.join(tmp, "mm/a.c"), "w") as f:
        f.write(mm)
    with open(os.path.join(tmp, "kernel/b.c"), "w") as f:
        f.write("int pasted_one;\n")


def run_on(header=HEADER, mm=MM):
    with tempfile.TemporaryDirectory() as tmp:
        make_tree(tmp, header, mm)
        return subprocess.run([PY, os.path.join(ROOT, "scripts/check-layout"), tmp],
                              capture_output=True, text=True)


def check_layout_passes_a_clean_tree():
    r = run_on()
    problems = [] if r.returncode == 0 and "check-layout: ok" in r.stdout else \
        [f"exit status {r.returncode} on a clean tree"]
    return problems, r.stdout


def check_layout_finds_unused_code():
    header = HEADER.replace("#endif", "#define DEAD_MACRO 4\n"
                            "static inline void dead_inline(void)\n{\n}\n#endif")
    mm = MM.replace("int f(void)", "#define LOCAL_DEAD 2\n__asm__(\"nop\");\nint f(void)") \
        .replace("<arch/page.h>", "<arch/x86only.h>")
    r = run_on(header, mm)
    problems = []
    if r.returncode != 1:
        problems.append(f"exit status {r.returncode}, expected 1")
    for w in ("include/tiny/a.h:9: macro DEAD_MACRO is used nowhere",
              "include/tiny/a.h:10: static inline function dead_inline is used nowhere",
              "mm/a.c:5: macro LOCAL_DEAD is used nowhere", "mm/a.c:6: inline asm in mm/",
              "<arch/x86only.h> is not a glue header", "check-layout: 5 problem(s)"):
        if w not in r.stdout:
            problems.append(f"output lacks {w!r}")
    if "USED_MACRO" in r.stdout or "used_inline" in r.stdout or "PASTE" in r.stdout:
        problems.append("a used name is reported")
    return problems, r.stdout


CASES = [check_layout_passes_a_clean_tree, check_layout_finds_unused_code]
