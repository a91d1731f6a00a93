"""tinyslab.py - gdb helpers for a stopped tinyslab kernel (make gdb).

Load with "source scripts/gdb/tinyslab.py" in a gdb (gdb-multiarch) that
has vmlinux's symbols.  The commands, in the spirit of Linux's scripts/gdb:

  ts-dmesg       the printk log buffer (log_buf), oldest line first
  ts-buddyinfo   free blocks per order, as the console's "buddyinfo"
                 prints them; each free list is walked and checked
                 against its count
  ts-slabinfo    SLAB: every cache as the console's "slabinfo" prints it,
                 counted by walking each cache's slab lists, and the large
                 kmalloc blocks; SLOB: the heap (the free list walked:
                 blocks, bytes, largest; "ts-slabinfo -v" lists each free
                 block), the bigblocks and the caches
  ts-cpus        each CPU (QEMU vCPU thread) and the function it is in

Everything is read through the kernel's own types (struct page,
struct kmem_cache, ...) as the debug information describes them, so the
helpers follow the source; only the page size (4096, i386) is assumed.
"""
import gdb

PAGE_SIZE = 4096
WALK_LIMIT = 1 << 20            # no list in a healthy kernel is longer


class HelperError(Exception):
    pass


def sym(name):
    """The value of a kernel symbol, or None if the kernel has none."""
    try:
        return gdb.parse_and_eval(name)
    except gdb.error:
        return None


def has_symbol(name):
    return gdb.lookup_global_symbol(name) is not None or \
        gdb.lookup_static_symbol(name) is not None


def field_offset(type_name, member):
    t = gdb.lookup_type(type_name)
    for f in t.fields():
        if f.name == member:
            return f.bitpos // 8
    raise HelperError(f"{type_name} has no member {member}")


def list_entries(head, type_name, member):
    """The entries of a struct list_head list, as values of type_name."""
    ptr_type = gdb.lookup_type(type_name).pointer()
    offset = field_offset(type_name, member)
    head_addr = int(head.address)
    node = head["next"]
    n = 0
    while int(node) != head_addr:
        n += 1
        if n > WALK_LIMIT or int(node) == 0:
            raise HelperError(f"list at {head_addr:#x} is corrupt (no way back to its head)")
        yield gdb.Value(int(node) - offset).cast(ptr_type).dereference()
        node = node["next"]


def list_length(head):
    head_addr, node, n = int(head.address), head["next"], 0
    if int(node) == 0:
        raise HelperError(f"list at {head_addr:#x} is not set up yet (the kernel has not "
                          "initialised it)")
    while int(node) != head_addr:
        n += 1
        if n > WALK_LIMIT or int(node) == 0:
            raise HelperError(f"list at {head_addr:#x} is corrupt")
        node = node["next"]
    return n


def cstring(value):
    return value.string() if int(value) else "(null)"


class Command(gdb.Command):
    """A ts-* command: HelperError becomes a one-line message."""

    def __init__(self, name):
        super().__init__(name, gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        try:
            self.run(arg)
        except HelperError as e:
            raise gdb.GdbError(f"{self._name}: {e}")

    def out(self, text):
        gdb.write(text + "\n")


class Dmesg(Command):
    """ts-dmesg: print the kernel log buffer (log_buf), oldest first."""

    _name = "ts-dmesg"

    def __init__(self):
        super().__init__(self._name)

    def run(self, arg):
        buf, end = sym("log_buf"), sym("log_end")
        if buf is None or end is None:
            raise HelperError("this kernel has no log_buf")
        size = buf.type.sizeof
        end = int(end)
        start = max(0, end - size)
        data = bytes(gdb.selected_inferior().read_memory(buf.address, size))
        text = bytes(data[i % size] for i in range(start, end))
        gdb.write(text.decode("utf-8", "replace").replace("\r", ""))
        if end and not text.endswith(b"\n"):
            gdb.write("\n")


class Buddyinfo(Command):
    """ts-buddyinfo: free blocks per order; each free list walked and checked."""

    _name = "ts-buddyinfo"

    def __init__(self):
        super().__init__(self._name)

    def run(self, arg):
        areas = sym("free_area")
        if areas is None:
            raise HelperError("no free_area symbol (not a tinyslab vmlinux?)")
        lo, hi = areas.type.range()
        counts, problems = [], []
        for order in range(lo, hi + 1):
            area = areas[order]
            walked = list_length(area["free_list"])
            counts.append(int(area["nr_free"]))
            if walked != counts[-1]:
                problems.append(f"order {order}: nr_free is {counts[-1]}, "
                                f"the free list holds {walked}")
        self.out("Node 0, zone   Normal" + "".join(f" {n:6d}" for n in counts))
        free_pages = sum(n << o for o, n in enumerate(counts))
        self.out(f"free pages: {free_pages} ({free_pages * PAGE_SIZE // 1024} kB)")
        for p in problems:
            self.out("ts-buddyinfo: MISMATCH " + p)


class Slabinfo(Command):
    """ts-slabinfo [-v]: SLAB caches, or SLOB's heap, bigblocks and caches."""

    _name = "ts-slabinfo"

    def __init__(self):
        super().__init__(self._name)

    def run(self, arg):
        if has_symbol("cache_chain"):
            self.slab()
        elif has_symbol("slob_arena"):
            self.slob(arg.strip() == "-v")
        else:
            raise HelperError("neither SLAB's cache_chain nor SLOB's slob_arena is here")

    # SLAB: the counts come from walking the slabs, not from the cache's counters.
    def slab_counts(self, c):
        slabs = {}
        for which in ("slabs_full", "slabs_partial", "slabs_free"):
            slabs[which] = [int(s["inuse"]) for s in list_entries(c[which], "struct slab", "list")]
        num_slabs = sum(len(v) for v in slabs.values())
        active = sum(sum(v) for v in slabs.values())
        return num_slabs, active, len(slabs["slabs_free"])

    def slab(self):
        self.out("slabinfo - version: 2.1")
        self.out("# name            <active_objs> <num_objs> <objsize> <objperslab> "
                 "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
                 "slabdata <active_slabs> <num_slabs> <sharedavail>")
        for c in list_entries(sym("cache_chain"), "struct kmem_cache", "next"):
            num_slabs, active, free_slabs = self.slab_counts(c)
            num = int(c["num"])
            self.out(f"{cstring(c['name']):<17s} {active:6d} {num_slabs * num:6d} "
                     f"{int(c['buffer_size']):6d} {num:4d} {1 << int(c['gfporder']):4d} : "
                     f"tunables {int(c['limit']):4d} {int(c['batchcount']):4d} {0:4d} : "
                     f"slabdata {num_slabs - free_slabs:6d} {num_slabs:6d} {0:6d}")
        blocks = list_length(sym("large_blocks"))
        pages = int(sym("large_block_pages"))
        self.out(f"# large kmalloc blocks: {blocks} blocks, {pages} pages "
                 f"({pages * PAGE_SIZE // 1024} kB)")

    def slob(self, verbose):
        unit = gdb.lookup_type("slob_t").sizeof
        arena = sym("slob_arena")
        head = int(arena.address)
        blocks = free = largest = 0
        cur = arena["next"]
        while int(cur) != head:
            blocks += 1
            if blocks > WALK_LIMIT or int(cur) == 0:
                raise HelperError("the SLOB free list is corrupt")
            size = int(cur["units"]) * unit
            free += size
            largest = max(largest, size)
            if verbose:
                self.out(f"  free block {int(cur):#010x}: {size} bytes")
            cur = cur["next"]
        heap_pages, map_pages = int(sym("slob_heap_pages")), int(sym("slob_map_pages"))
        self.out(f"SLOB heap: {heap_pages} pages ({heap_pages * PAGE_SIZE // 1024} kB) and "
                 f"{map_pages} of start maps, {free} bytes free in {blocks} blocks "
                 f"(largest {largest})")
        nbig = big_pages = 0
        bb = sym("slob_bigblocks")
        while int(bb):
            nbig += 1
            if nbig > WALK_LIMIT:
                raise HelperError("the bigblock list is corrupt")
            big_pages += 1 << int(bb["order"])
            if verbose:
                self.out(f"  bigblock {int(bb['pages']):#010x}: order {int(bb['order'])}")
            bb = bb["next"]
        cache_pages = int(sym("slob_cache_pages")["counter"])
        large = big_pages + cache_pages
        self.out(f"SLOB large blocks: {large} pages ({large * PAGE_SIZE // 1024} kB): "
                 f"{nbig} bigblocks of {big_pages} pages, {cache_pages} pages of page-sized "
                 f"cache objects")
        self.out("# name                 objsize  align  inuse")
        for c in list_entries(sym("slob_caches"), "struct kmem_cache", "list"):
            self.out(f"{cstring(c['name']):<22s} {int(c['size']):7d} {int(c['align']):6d} "
                     f"{int(c['inuse']['counter']):6d}")


class Cpus(Command):
    """ts-cpus: each CPU (a QEMU vCPU) and where it is."""

    _name = "ts-cpus"

    def __init__(self):
        super().__init__(self._name)

    def run(self, arg):
        selected = gdb.selected_thread()
        try:
            for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                t.switch()
                frame = gdb.newest_frame()
                pc = frame.pc()
                self.out(f"CPU {t.num - 1}: EIP {pc:#010x} in {frame.name() or '??'}")
        finally:
            if selected:
                selected.switch()


Dmesg()
Buddyinfo()
Slabinfo()
Cpus()
