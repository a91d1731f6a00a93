"""docblock.py - the generated blocks of the docs, and the plots.

replace_block() rewrites what lies between "<!-- TAG:begin -->" and
"<!-- TAG:end -->" in a Markdown file (README.md's sizes block,
docs/design.md's slub-fastpath block) with the lines given, fenced as
code.  gnuplot() runs a gnuplot script (compare's and soak's plots) and
says why when it cannot.
"""
import re
import shutil
import subprocess
import sys


def replace_block(path, tag, lines, who):
    """Puts lines, fenced as code, between path's TAG:begin and TAG:end
    markers; exits naming who if path has no such block."""
    with open(path) as f:
        text = f.read()
    new, n = re.subn(rf"(<!-- {re.escape(tag)}:begin -->\n).*?(<!-- {re.escape(tag)}:end -->)",
                     lambda m: m.group(1) + "```\n" + "\n".join(lines) + "\n```\n" + m.group(2),
                     text, flags=re.S)
    if n != 1:
        raise SystemExit(f"{who}: {path} has no {tag}:begin/end block")
    with open(path, "w") as f:
        f.write(new)


def have_gnuplot(who):
    """Is gnuplot installed?  Says so on stderr if not."""
    if shutil.which("gnuplot"):
        return True
    print(f"{who}: gnuplot not found: no plot (scripts/install-deps plot)", file=sys.stderr)
    return False


def gnuplot(script, png, who):
    """Runs the gnuplot script (a list of lines); png, or None (said on
    stderr) if gnuplot failed."""
    r = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
    if r.returncode:
        print(f"{who}: gnuplot failed:\n{r.stderr}", file=sys.stderr)
        return None
    return png
