"""replayfmt.py - the trace replay file's format: its record layout, its
constants and the reader that checks a file the way the kernel does
(kernel/replay.c; docs/replay-format.md describes the format).

scripts/trace2replay writes the files and its --dump reads them through
decode(); the script tests (tests/scripts/test_trace2replay.py) take the
layout from here instead of spelling it again.
"""
import struct
from collections import Counter

MAGIC = b"TSRP"
VERSION = 1
HEADER = struct.Struct("<4s7I")
CACHE = struct.Struct("<II24s")
OP = struct.Struct("<II")
KMALLOC, CACHE_ALLOC, FREE, TIME = range(4)
OP_MASK = 0x3
FLAG_ZERO = 0x4
SLOT_SHIFT = 8
MAX_CACHES = 0xfffe             # the kernel reserves 0xffff
MAX_SLOTS = 1 << 24             # the op's slot field is 24 bits
NAME_SIZE = 24                  # with the NUL


class Failure(Exception):
    """An error that stops the run; the text is printed after "trace2replay: "."""


def decode(data):
    """Checks a replay file the way the kernel does; returns (header, caches, ops) or
    raises Failure."""
    if len(data) < HEADER.size:
        raise Failure(f"{len(data)} bytes, too short for a header; truncated?")
    magic, version, nr_caches, nr_ops, nr_slots, nr_allocs, nr_frees, duration = \
        HEADER.unpack_from(data)
    if magic != MAGIC:
        raise Failure(f"not a replay file (magic {magic!r})")
    if version != VERSION:
        raise Failure(f"format version {version}, this script reads version {VERSION}")
    # The header is bounded before anything is sized from it, with the kernel's rules in
    # the kernel's order (kernel/replay.c, check_header).
    if nr_caches > MAX_CACHES:
        raise Failure(f"{nr_caches} caches, the format allows {MAX_CACHES}")
    if nr_slots > MAX_SLOTS or nr_slots > nr_allocs:
        raise Failure(f"{nr_slots} slots for {nr_allocs} allocations; the format allows at "
                      f"most {MAX_SLOTS}, and no more than the allocations")
    need = HEADER.size + nr_caches * CACHE.size + nr_ops * OP.size
    if need != len(data):
        raise Failure(f"file is {len(data)} bytes, its header describes {need} ({nr_caches} "
                      f"caches, {nr_ops} ops); truncated?")
    caches = [CACHE.unpack_from(data, HEADER.size + i * CACHE.size) for i in range(nr_caches)]
    for i, (size, align, name) in enumerate(caches):
        if not size or not printable_name(name) or (align & (align - 1)):
            raise Failure(f"cache {i} is malformed (object_size {size}, align {align}, "
                          f"name {name!r})")
    start = HEADER.size + nr_caches * CACHE.size
    ops = list(OP.iter_unpack(data[start:]))
    header = dict(nr_caches=nr_caches, nr_ops=nr_ops, nr_slots=nr_slots, nr_allocs=nr_allocs,
                  nr_frees=nr_frees, duration_us=duration)
    check_ops(header, ops)
    return header, caches, ops


def printable_name(name):
    """A NUL-terminated, non-empty run of printable ASCII (as the kernel wants)."""
    text = name.split(b"\0", 1)[0]
    return b"\0" in name and text and all(0x20 <= c <= 0x7e for c in text)


def check_op(n, code, arg, header, live):
    """Checks op n against the slots in use (live[slot]) and updates them; returns its
    opcode."""
    opcode, slot = code & OP_MASK, code >> SLOT_SHIFT
    if code & 0xf8 or (code & FLAG_ZERO and opcode not in (KMALLOC, CACHE_ALLOC)):
        raise Failure(f"op {n}: bad flags in code {code:#x}")
    if opcode == TIME:
        if slot:
            raise Failure(f"op {n}: TIME op with slot {slot}")
        return opcode
    if slot >= header["nr_slots"]:
        raise Failure(f"op {n}: slot {slot}, the header has {header['nr_slots']} slots")
    if opcode == FREE:
        if not live[slot]:
            raise Failure(f"op {n}: FREE of empty slot {slot}")
        if arg:
            raise Failure(f"op {n}: FREE with arg {arg}")
        live[slot] = False
        return opcode
    if live[slot]:
        raise Failure(f"op {n}: allocation into slot {slot}, which is in use")
    if opcode == CACHE_ALLOC and arg >= header["nr_caches"]:
        raise Failure(f"op {n}: cache {arg}, the file has {header['nr_caches']}")
    live[slot] = True
    return opcode


def check_ops(header, ops):
    """Checks every op and the header's counts of allocations and frees."""
    live = [False] * header["nr_slots"]
    counts = Counter()
    last_time = 0
    for n, (code, arg) in enumerate(ops):
        opcode = check_op(n, code, arg, header, live)
        counts[opcode] += 1
        if opcode == TIME:
            if arg < last_time or arg > header["duration_us"]:
                raise Failure(f"op {n}: TIME {arg} us out of order (previous {last_time}, "
                              f"duration {header['duration_us']})")
            last_time = arg
    allocs = counts[KMALLOC] + counts[CACHE_ALLOC]
    if allocs != header["nr_allocs"] or counts[FREE] != header["nr_frees"]:
        raise Failure(f"the header counts {header['nr_allocs']} allocations and "
                      f"{header['nr_frees']} frees, the ops {allocs} and {counts[FREE]}")


def cache_label(name):
    return name.split(b"\0", 1)[0].decode("utf-8", "replace")


def format_op(n, code, arg, caches):
    """One line of the dump."""
    opcode, slot = code & OP_MASK, code >> SLOT_SHIFT
    zero = " zero" if code & FLAG_ZERO else ""
    if opcode == KMALLOC:
        return f"{n} kmalloc slot={slot} size={arg}{zero}"
    if opcode == CACHE_ALLOC:
        return f"{n} cache_alloc slot={slot} cache={arg} ({cache_label(caches[arg][2])}){zero}"
    if opcode == FREE:
        return f"{n} free slot={slot}"
    return f"{n} time us={arg}"
