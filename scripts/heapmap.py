"""heapmap.py - the kernel's heap map (kmem_heap_map(), the console's
"heapmap"), read from a serial log and drawn as a picture.

The kernel prints, for each group of pages (a cache's slabs, a SLOB heap
list, the large blocks), rows of HEAP_MAP_WIDTH cells, one cell a page,
shaded by how full the page is:

    heap map (SLUB): .=empty -=<1/3 +=<2/3 *=<full #=full page
    kmalloc-64        ##*
    task_struct       ########################################
                      ####
    heap map: 152 pages in 30 groups

parse() returns the groups, plot() draws one panel per allocator in the
kernel's own layout (each group from a new row, the same cells), so the
picture and the console's text show the same thing.  scripts/compare
draws the map at the peak of live bytes of each trace.
"""
import os

from docblock import gnuplot
from palette import SHADES

NAME_FIELD = 18         # a row's group name (17 characters) and a blank
WIDTH = 40              # cells a row (HEAP_MAP_WIDTH, mm/slab_common.h)
LEVELS = ".-+*#"        # the shades, empty to full


def parse(lines):
    """The first heap map in lines (log lines, timestamps stripped): (groups, pages)
    with groups a list of (name, [level of each cell, 0 empty .. 4 full]) in the
    kernel's order and pages the total its last line states; (None, None) if the log
    has no whole map."""
    groups, inside = [], False
    for line in lines:
        if line.startswith("heap map (") and not inside:
            inside = True
        elif inside and line.startswith("heap map: "):
            pages = int(line.split()[2])
            if pages != sum(len(cells) for _, cells in groups):
                raise ValueError(f"heap map: {pages} pages said, "
                                 f"{sum(len(c) for _, c in groups)} cells drawn")
            return groups, pages
        elif inside:
            name, cells = line[:NAME_FIELD].strip(), line[NAME_FIELD:]
            if any(c not in LEVELS for c in cells) or not cells:
                raise ValueError(f"heap map: not a row: {line!r}")
            levels = [LEVELS.index(c) for c in cells]
            if name:
                groups.append((name, levels))
            elif groups:
                groups[-1][1].extend(levels)
            else:
                raise ValueError(f"heap map: a continued row before any group: {line!r}")
    return None, None


def group_rows(levels):
    """The rows of WIDTH cells a group of these cells takes (one at least)."""
    return max(1, -(-len(levels) // WIDTH))


def layout(groups):
    """The cells of groups as (column, row, level), each group from a new row of
    WIDTH cells, and the row of each group's first cell: (cells, [(row, name, pages)])."""
    cells, starts, row = [], [], 0
    for name, levels in groups:
        starts.append((row, name, len(levels)))
        for i, level in enumerate(levels):
            cells.append((i % WIDTH, row + i // WIDTH, level))
        row += group_rows(levels)
    return cells, starts


def rows(groups):
    return sum(group_rows(levels) for _, levels in groups)


def plot(title, maps, png, workdir, per_row=3):
    """Draws maps (a list of (label, groups)) in png, one panel each, per_row panels a
    row, all to one scale so that a larger heap is a taller panel; the groups with
    room for a label are named on the left.  Returns png, or None if gnuplot failed."""
    most = max(rows(groups) for _, groups in maps)
    cell = max(3, min(8, 700 // max(most, 1)))
    margin, head, top = 130, 40, 50
    panel_w, panel_h = WIDTH * cell, most * cell
    gap = max(20, 330 - margin - panel_w)    # room for the panel's title
    ncols = min(per_row, len(maps))
    nrows = -(-len(maps) // ncols)
    width = ncols * (margin + panel_w + gap)
    height = top + nrows * (head + panel_h + gap)
    script = [f'set terminal png size {width},{height} font ",8"', f'set output "{png}"',
              "set termoption noenhanced",
              f'set multiplot title "{title}\\neach cell a page of the heap, shaded by how '
              'much of it is in use: lightest empty, darkest full; each group (a cache, a '
              'SLOB list) from a new row of 40"',
              "unset key", "unset colorbox", "set border 0", "unset xtics",
              f"set xrange [-0.5:{WIDTH - 0.5}]", f"set yrange [{most - 0.5}:-0.5]",
              "set ytics nomirror scale 0 font \",7\""]
    shade_of = " : ".join(f"$3 == {i} ? 0x{SHADES[i][1:]}" for i in range(len(SHADES) - 1))
    for n, (label, groups) in enumerate(maps):
        cells, starts = layout(groups)
        data = os.path.join(workdir, f"heapmap-{n}.dat")
        with open(data, "w") as f:
            for x, y, level in cells:
                f.write(f"{x} {y} {level}\n")
        tics, last = [], -100
        for row, name, pages in starts:
            if (row - last) * cell >= 10:
                tics.append(f'"{name} ({pages})" {row}')
                last = row
        left = (n % ncols) * (margin + panel_w + gap) + margin
        top_px = top + (n // ncols) * (head + panel_h + gap) + head
        script += [f"set lmargin at screen {left / width:.5f}",
                   f"set rmargin at screen {(left + panel_w) / width:.5f}",
                   f"set tmargin at screen {1 - top_px / height:.5f}",
                   f"set bmargin at screen {1 - (top_px + panel_h) / height:.5f}",
                   f"set ytics ({', '.join(tics) if tics else '0'})",
                   f'set title "{label}: {len(cells)} pages in {len(groups)} groups"',
                   f'plot "{data}" using 1:2:(0.42):(0.42):({shade_of} : 0x{SHADES[-1][1:]}) '
                   "with boxxy fs solid 1.0 noborder lc rgb variable"]
    script.append("unset multiplot")
    return gnuplot(script, png, "heapmap")
