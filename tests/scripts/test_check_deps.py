"""test_check_deps.py - tests of scripts/check-deps.

Each case writes a small build directory (a dependency file and a link
map, as the compilers and linkers write them) that names system files,
and checks the verdict: packaged files pass, while a hand-made link into
packaged headers (the /usr/include/asm that broke fresh machines), a file
no package has, a package that install-deps does not install, and an
empty build all fail.  Loaded by run.py.
"""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = "/usr/bin/python3"
# libc6-dev: the 64-bit glibc headers; linux-libc-dev: the kernel's.
HEADERS = ["/usr/include/stdio.h", "/usr/include/x86_64-linux-gnu/asm/errno.h"]


def check_deps(tmp, headers, loads=(), extra=()):
    """Runs check-deps on a build dir in tmp whose one .d file and .map name these."""
    build = os.path.join(tmp, "build")
    os.makedirs(build, exist_ok=True)
    with open(os.path.join(build, "x.d"), "w") as f:
        f.write(f"{build}/x.o: {ROOT}/mm/slob.c \\\n  " + " \\\n  ".join(headers) + "\n")
        f.writelines(f"{h}:\n" for h in headers)
    with open(os.path.join(build, "x.map"), "w") as f:
        f.write("Archive member included to satisfy reference by file (symbol)\n\n")
        f.writelines(f"LOAD {p}\n" for p in loads)
    return subprocess.run([PY, os.path.join(ROOT, "scripts/check-deps"), "--build", build] +
                          list(extra), capture_output=True, text=True)


def verdict(r, status, *phrases):
    problems = [] if r.returncode == status else [f"exit status {r.returncode}, expected {status}"]
    problems += [f"output lacks {p!r}" for p in phrases if p not in r.stdout + r.stderr]
    return problems, r.stdout + r.stderr


def check_deps_accepts_packaged_files():
    """Headers and a link map's libraries from the packages named pass,
    with /usr/bin/.. in the path and the merged /usr's /lib spelling."""
    with tempfile.TemporaryDirectory() as tmp:
        r = check_deps(tmp, HEADERS, ["/usr/bin/../lib/x86_64-linux-gnu/crti.o",
                                      "/lib/x86_64-linux-gnu/libc.so.6"],
                       ["--roots", "libc6-dev,linux-libc-dev", "--no-base"])
    return verdict(r, 0, "0 problems: ok")


def check_deps_rejects_hand_made_link():
    """An asm/ link to the 64-bit headers, as a hand fix would make it: the
    header behind it is packaged, the link is not."""
    with tempfile.TemporaryDirectory() as tmp:
        inc = os.path.join(tmp, "include")
        os.makedirs(inc)
        os.symlink("/usr/include/x86_64-linux-gnu/asm", os.path.join(inc, "asm"))
        r = check_deps(tmp, HEADERS + [os.path.join(inc, "asm", "errno.h")], (),
                       ["--roots", "libc6-dev,linux-libc-dev", "--no-base"])
    return verdict(r, 1, "asm -> /usr/include/x86_64-linux-gnu/asm belongs to no Debian package",
                   "FAIL")


def check_deps_rejects_unpackaged_file():
    """A library that no package installed (a file copied in by hand)."""
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "libfake.a")
        with open(lib, "w") as f:
            f.write("!<arch>\n")
        r = check_deps(tmp, HEADERS, [lib], ["--roots", "libc6-dev,linux-libc-dev", "--no-base"])
    return verdict(r, 1, f"{lib} belongs to no Debian package", "1 problem: FAIL")


def check_deps_rejects_package_not_installed_by_install_deps():
    """A packaged header whose package install-deps would not install."""
    with tempfile.TemporaryDirectory() as tmp:
        r = check_deps(tmp, HEADERS, (), ["--roots", "linux-libc-dev", "--no-base"])
    return verdict(r, 1, "/usr/include/stdio.h comes from libc6-dev, which scripts/install-deps "
                   "does not install")


def check_deps_needs_a_build():
    """No dependency files at all is a failure, not an empty pass."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([PY, os.path.join(ROOT, "scripts/check-deps"), "--build", tmp],
                           capture_output=True, text=True)
    return verdict(r, 1, "nothing was built to check")


CASES = [check_deps_accepts_packaged_files, check_deps_rejects_hand_made_link,
         check_deps_rejects_unpackaged_file, check_deps_rejects_package_not_installed_by_install_deps,
         check_deps_needs_a_build]
