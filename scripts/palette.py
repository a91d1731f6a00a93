"""palette.py - the one set of plot colours, shared by every plotting script.

Each allocator (by its label in scripts/allocators.py) has a colour of the
Okabe-Ito palette, which stays distinct under the common colour-vision
deficiencies; yellow is left out (it does not show on white).  A debug
configuration takes its allocator's colour; malloc() peers (make bench) and
anything else are greys, told apart by dash type where a plot needs it.
Black is kept for the reference lines (the live requested bytes).

    from palette import lc
    f'... with lines {lc("SLOB")} title "SLOB" noenhanced'

Titles and keys name allocators as they are: gnuplot's enhanced text would
turn SLUB_TINY into SLUB with a subscript T, so every title that holds a
label is given "noenhanced".
"""

COLOURS = {
    "SLAB": "#0072B2",          # blue
    "SLUB": "#D55E00",          # vermillion
    "SLUB-sheaves": "#CC79A7",  # reddish purple
    "SLUB_TINY": "#009E73",     # bluish green
    "SLOB": "#E69F00",          # orange
    "SLOB-fast": "#56B4E9",     # sky blue
}
GREYS = ("#404040", "#808080", "#A0A0A0", "#606060")
REFERENCE = "#000000"


def colour(label, index=0):
    """The colour of an allocator's label (a debug configuration's is its
    allocator's); a grey for anything else (index picks among them)."""
    base = label[:-len(" debug")] if label.endswith(" debug") else label
    return COLOURS.get(base, GREYS[index % len(GREYS)])


def lc(label, index=0):
    """gnuplot's line colour clause for label."""
    return f'lc rgb "{colour(label, index)}"'

# The heap map's five shades, empty to full ('.', '-', '+', '*', '#' in
# the kernel's text map): one hue, light to dark (ColorBrewer's Blues,
# which reads in grey as well); a cell with no page is left white.
SHADES = ("#DEEBF7", "#9ECAE1", "#6BAED6", "#3182BD", "#08306B")
