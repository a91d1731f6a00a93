"""tinyslab.py - gdb helpers for a stopped tinyslab kernel (make gdb).

Load with "source scripts/gdb/tinyslab.py" in a gdb (gdb-multiarch) that
has vmlinux's symbols.  The commands, in the spirit of Linux's scripts/gdb:

  ts-dmesg       the printk log buffer (log_buf), oldest line first
  ts-buddyinfo   free blocks per order, as the console's "buddyinfo"
                 prints them; each free list is walked and checked
                 against its count
  ts-slabinfo    SLAB: every cache as the console's "slabinfo" prints it,
                 counted by walking each cache's slab lists, with each
                 online CPU's magazine (avail/limit), and the large kmalloc
                 blocks; SLOB: kmem_report()'s lines: the heap (the
                 small heap: its page lists and each page's free list
                 walked; the segregated heap: its pages parsed by their
                 start maps for the bytes in use, its class lists walked
                 for blocks, bytes, largest; "ts-slabinfo -v" lists each
                 free block and large block), the large blocks (their head
                 pages, marked PG_large, found in mem_map) and the caches
                 (where a registry is built);
                 SLUB and SLUB_TINY: every cache that holds slabs,
                 counted from its slabs found in mem_map (their states) less
                 the objects on the CPUs' free lists (walked), its partial
                 list walked, its aliases, the large blocks
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


def has_type(name):
    try:
        gdb.lookup_type(name)
    except gdb.error:
        return False
    return True


def _member(t, name):
    """(offset, type) of the member name of struct type t, looking into
    anonymous unions and structs; None if it has none."""
    for f in t.strip_typedefs().fields():
        if f.name == name:
            return f.bitpos // 8, f.type
        if f.name is None:
            inner = _member(f.type, name)
            if inner:
                return f.bitpos // 8 + inner[0], inner[1]
    return None


def field_offset(type_name, member):
    """Byte offset of member (a dotted path such as "common.list") in type_name."""
    t, offset = gdb.lookup_type(type_name), 0
    for part in member.split("."):
        found = _member(t, part)
        if not found:
            raise HelperError(f"{type_name} has no member {member}")
        offset += found[0]
        t = found[1]
    return offset


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
            raise HelperError("this kernel has no log buffer (built with LOG_BUF_SHIFT=0): "
                              "the log is only what the console showed")
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
    """ts-slabinfo [-v]: SLAB caches, or SLOB's heap, large blocks and caches."""

    _name = "ts-slabinfo"

    def __init__(self):
        super().__init__(self._name)

    def run(self, arg):
        if has_symbol("slab_reap_passes"):
            self.slab()
        elif has_symbol("slub_targets"):
            self.slub()
        elif has_symbol("slob_lock"):
            self.slob(arg.strip() == "-v")
        else:
            raise HelperError("none of SLAB's slab_reap_passes, SLUB's slub_targets or SLOB's "
                              "slob_lock is here")

    # SLAB: the counts come from walking the slabs, not from the cache's
    # counters; a slab's shape (the cache's own or its fallback's) from the
    # order of its block, kept in its head page, as slab_shape() reads it.
    @staticmethod
    def slab_order(slab):
        mem_map, first = sym("mem_map"), int(sym("first_pfn"))
        start = int(slab["s_mem"]) - int(slab["colouroff"])
        return int((mem_map + (start // PAGE_SIZE - first)).dereference()["order"])

    def slab_counts(self, c):
        """(slabs, fallback slabs, objects, objects in use, free slabs) of c."""
        fallback = c["fallback"]
        has_fallback = int(fallback["order"]) < int(c["gfporder"])
        num_slabs = fallback_slabs = objs = active = free_slabs = 0
        for which in ("slabs_full", "slabs_partial", "slabs_free"):
            for s in list_entries(c[which], "struct slab", "list"):
                is_fallback = has_fallback and self.slab_order(s) == int(fallback["order"])
                num_slabs += 1
                fallback_slabs += is_fallback
                objs += int(fallback["num"] if is_fallback else c["num"])
                active += int(s["inuse"])
                free_slabs += which == "slabs_free"
        return num_slabs, fallback_slabs, objs, active, free_slabs

    @staticmethod
    def magazines(c):
        """Each online CPU's magazine of c, as slabinfo's " cpu:avail/limit"."""
        out = ""
        for cpu in online_cpus():
            ac = c["array"][cpu]
            if int(ac) == 0:
                raise HelperError(f"{cstring(c['common']['name'])}: CPU {cpu} is online but has no "
                                  "magazine")
            out += f" {cpu}:{int(ac['avail'])}/{int(ac['limit'])}"
        return out

    def slab(self):
        self.out("slabinfo - version: 2.1")
        self.out("# name            <active_objs> <num_objs> <objsize> <objperslab> "
                 "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
                 "slabdata <active_slabs> <num_slabs> <sharedavail> : fallback <num_slabs> "
                 "<objperslab> <pagesperslab> : cpu avail/limit <cpu>:<avail>/<limit> ...")
        for c in list_entries(sym("slab_caches"), "struct kmem_cache", "common.list"):
            num_slabs, fallback_slabs, objs, active, free_slabs = self.slab_counts(c)
            num, fallback = int(c["num"]), c["fallback"]
            self.out(f"{cstring(c['common']['name']):<17s} {active:6d} {objs:6d} "
                     f"{int(c['buffer_size']):6d} {num:4d} {1 << int(c['gfporder']):4d} : "
                     f"tunables {int(c['limit']):4d} {int(c['batchcount']):4d} {0:4d} : "
                     f"slabdata {num_slabs - free_slabs:6d} {num_slabs:6d} {0:6d} : "
                     f"fallback {fallback_slabs:6d} {int(fallback['num']):4d} "
                     f"{1 << int(fallback['order']):4d}"
                     f" : cpu avail/limit{self.magazines(c)}")
        blocks, pages = large_blocks()
        self.out(f"# large kmalloc blocks: {blocks} blocks, {pages} pages "
                 f"({pages * PAGE_SIZE // 1024} kB)")

    # SLUB: the slabs found in mem_map by their first pages (PG_slab and
    # PG_head, pointing at the cache), each one's objects by its order and
    # its objects in use by its state word; less the objects each CPU holds
    # on its free list (walked through the free pointers).  The kernel
    # counts them per CPU instead (slub_objects_in_use()).
    def slub(self):
        # SLUB_TINY: no per-CPU partial lists, nor any per-CPU state;
        # sheaves: no per-CPU partial lists, objects held in sheaves
        sheaves = has_type("struct slub_pcs")
        tiny = not sheaves and gdb.lookup_type("struct slub_cpu_partial").sizeof == 0
        self.out("slabinfo - version: 2.1")
        self.out("# name            <active_objs> <num_objs> <objsize> <objperslab> "
                 "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
                 "slabdata <active_slabs> <num_slabs> <sharedavail> : partial <slabs> "
                 "min <min_partial> cpu <cpu_partial_slabs> aliases <n>" +
                 (" sheaves <objects> barn <full>/<empty>" if sheaves else ""))
        slabs = slub_slabs()
        handles = list(list_entries(sym("slab_caches"), "struct kmem_cache", "common.list"))
        for c in list_entries(sym("slub_targets"), "struct kmem_cache", "target_list"):
            addr = int(c.address)
            mine = slabs.get(addr, [])
            objects = sum(o for o, _ in mine)
            held = sheaved_objects(c) if sheaves else 0 if tiny else cpu_free_objects(c)
            active = sum(u for _, u in mine) - held
            aliases = sum(1 for h in handles if int(h["target"]) == addr and
                          int(h.address) != addr)
            oo = c["oo"][0]
            self.out(f"{cstring(c['common']['name']):<17s} {max(active, 0):6d} {objects:6d} "
                     f"{int(c['size']):6d} {int(oo['objects']):4d} {1 << int(oo['order']):4d} : "
                     f"tunables {0:4d} {0:4d} {0:4d} : slabdata {len(mine):6d} {len(mine):6d} "
                     f"{0:6d} : partial {list_length(c['partial'])} min "
                     f"{int(c['min_partial'])} cpu "
                     f"{0 if tiny or sheaves else int(c['cpu_partial']['limit'])} "
                     f"aliases {aliases}" +
                     (f" sheaves ~{held} barn {int(c['barn']['nr_full'])}/"
                      f"{int(c['barn']['nr_empty'])}" if sheaves else ""))
        for h in handles:
            if int(h["target"]) != int(h.address):
                self.out(f"# alias {cstring(h['common']['name'])} -> "
                         f"{cstring(h['target']['common']['name'])} (object size "
                         f"{int(h['common']['object_size'])})")
        percpu = sym("percpu_pages")
        self.out(f"# per-CPU data: {list_length(percpu) if percpu is not None else 0} pages")
        blocks, pages = large_blocks()
        self.out(f"# large kmalloc blocks: {blocks} blocks, {pages} pages "
                 f"({pages * PAGE_SIZE // 1024} kB)")

    # SLOB: the heap walked (the small heap's page lists and each page's
    # free list, or the segregated heap's class lists and start maps), the
    # large blocks found in mem_map by their head pages, the cache list; only
    # the counters of what no walk can see (the allocator's own blocks in the
    # small heap) are read as they are.
    def slob(self, verbose):
        heap = SlobFastHeap() if has_symbol("slob_free_lists") else SlobSmallHeap()
        say = verbose and self.out
        line, pages, free_units, internal_units = heap.report(say)
        heap_pages = int(sym("slob_heap_pages"))
        if pages != heap_pages:
            self.out(f"ts-slabinfo: MISMATCH {pages} heap pages listed, "
                     f"slob_heap_pages says {heap_pages}")
        self.out(line)
        in_use = pages * PAGE_SIZE - (free_units + internal_units) * heap.unit
        large = large_blocks(say)[1]
        self.out(f"SLOB: {in_use} bytes in use, large blocks {large} pages "
                 f"({large * PAGE_SIZE // 1024} kB)")
        if not has_symbol("slab_caches"):
            self.out("SLOB: caches not listed (no registry in this build)")
            return
        self.out("# name                 objsize  align  inuse")
        for c in list_entries(sym("slab_caches"), "struct kmem_cache", "common.list"):
            self.out(f"{cstring(c['common']['name']):<22s} {int(c['common']['object_size']):7d} "
                     f"{int(c['common']['align']):6d} {int(c['live']):6d}")


PG_LARGE = 0x10                 # PG_large in mm/page_alloc.h
PG_HEAD, PG_SLAB, PG_MIN_ORDER = 0x04, 0x08, 0x80


def slub_slabs():
    """{cache address: [(objects, objects in use)] of each of its slabs}: the
    first pages of SLUB's slabs in mem_map, read in one piece."""
    mem_map, first, end = sym("mem_map"), int(sym("first_pfn")), int(sym("end_pfn"))
    page_t = gdb.lookup_type("struct page")
    size = page_t.sizeof
    flags_at = field_offset("struct page", "flags")
    cache_at = field_offset("struct page", "slab_cache")
    state_at = field_offset("struct page", "counters")
    word = gdb.lookup_type("unsigned long").sizeof
    raw = bytes(gdb.selected_inferior().read_memory(int(mem_map), (end - first) * size))
    objects_of = {}
    found = {}
    for pfn in range(first, end):
        at = (pfn - first) * size
        flags = int.from_bytes(raw[at + flags_at:at + flags_at + 4], "little")
        if flags & (PG_SLAB | PG_HEAD) != PG_SLAB | PG_HEAD:
            continue
        cache = int.from_bytes(raw[at + cache_at:at + cache_at + word], "little")
        state = int.from_bytes(raw[at + state_at:at + state_at + 4], "little")
        which = 1 if flags & PG_MIN_ORDER else 0
        if (cache, which) not in objects_of:
            c = gdb.Value(cache).cast(gdb.lookup_type("struct kmem_cache").pointer())
            objects_of[(cache, which)] = int(c["oo"][which]["objects"])
        found.setdefault(cache, []).append((objects_of[(cache, which)], (state >> 16) & 0x7fff))
    return found


def percpu_copies(off, type_name):
    """(cpu, value) of every CPU's copy of a per-CPU object at offset off,
    as a pointer to type_name: one copy a stride from CPU to CPU
    (<arch/percpu.h>); CPU 0's alone without SMP (no x86_cpus)."""
    ptr_t = gdb.lookup_type(type_name).pointer()
    cpus = sym("x86_cpus")
    for cpu in range(cpus.type.range()[1] + 1 if cpus is not None else 1):
        base = (int(cpus[cpu].address) + off) & 0xffffffff if cpus is not None else off
        yield cpu, gdb.Value(base).cast(ptr_t)


def cpu_free_objects(c):
    """The objects on every CPU's free list of c (struct kmem_cache_cpu,
    one copy a stride from CPU to CPU: <arch/percpu.h>)."""
    n = 0
    for cpu, kcc in percpu_copies(int(c["cpu"]["slab"]), "struct kmem_cache_cpu"):
        p, steps = int(kcc["freelist"]), 0
        while p:
            steps += 1
            if steps > WALK_LIMIT:
                raise HelperError(f"{cstring(c['common']['name'])}: CPU {cpu}'s free list loops")
            n += 1
            p = int(gdb.Value(p + int(c["offset"])).cast(
                gdb.lookup_type("unsigned long").pointer()).dereference())
    return n


def sheaved_objects(c):
    """The objects held in c's sheaves, as slub_sheaved_objects() counts
    them: every CPU's main and spare (struct slub_pcs at c->cpu.sheaves,
    one copy a stride from CPU to CPU) and the barn's full sheaves."""
    n = 0
    for _, pcs in percpu_copies(int(c["cpu"]["sheaves"]), "struct slub_pcs"):
        for which in ("main", "spare"):
            if int(pcs[which]):
                n += int(pcs[which]["size"])
    for s in list_entries(c["barn"]["full"], "struct slub_sheaf", "barn_list"):
        n += int(s["size"])
    return n


def large_blocks(say=None):
    """The large kmalloc() blocks and their pages: every head page marked
    PG_large in mem_map, read in one piece."""
    mem_map, first, end = sym("mem_map"), int(sym("first_pfn")), int(sym("end_pfn"))
    page_t = gdb.lookup_type("struct page")
    size, flags_at = page_t.sizeof, field_offset("struct page", "flags")
    pages_at = field_offset("struct page", "nr_pages")
    word = gdb.lookup_type("unsigned long").sizeof
    raw = bytes(gdb.selected_inferior().read_memory(int(mem_map), (end - first) * size))
    blocks = pages = 0
    for pfn in range(first, end):
        at = (pfn - first) * size
        if int.from_bytes(raw[at + flags_at:at + flags_at + 4], "little") & PG_LARGE:
            n = int.from_bytes(raw[at + pages_at:at + pages_at + word], "little")
            blocks += 1
            pages += n
            if say:
                say(f"  large block {pfn * PAGE_SIZE:#010x}: {n} pages")
    return blocks, pages


CPU_ONLINE_FALLBACK = 3         # enum cpu_state's CPU_ONLINE, if gdb cannot name it


def online_cpus():
    """The online CPUs as cpu_online() decides: x86_cpus[i].state ==
    CPU_ONLINE; a kernel without CONFIG_SMP (no x86_cpus) has CPU 0 only."""
    cpus = sym("x86_cpus")
    if cpus is None:
        return [0]
    online = sym("CPU_ONLINE")
    online = CPU_ONLINE_FALLBACK if online is None else int(online)
    lo, hi = cpus.type.range()
    return [i for i in range(lo, hi + 1) if int(cpus[i]["state"]) == online]


class SlobFastHeap:
    """SLOB's segregated heap as slob_fast.h lays it out: slob_t units, a
    start map per heap page (page->start_map), free blocks on slob_free_lists[]
    by class."""

    TAG_INTERNAL = 0x1e7e2a11   # SLOB_TAG_INTERNAL: the allocator's own blocks

    def __init__(self):
        self.slob_t = gdb.lookup_type("slob_t")
        self.unit = self.slob_t.sizeof
        self.page_units = PAGE_SIZE // self.unit
        self.word = gdb.lookup_type("unsigned long").sizeof
        self.inferior = gdb.selected_inferior()
        self.mem_map, self.first_pfn = sym("mem_map"), int(sym("first_pfn"))

    def walk_free_lists(self, say=None):
        """Listed free blocks: (count, bytes, largest bytes)."""
        lists = sym("slob_free_lists")
        lo, hi = lists.type.range()
        blocks = free = largest = 0
        for c in range(lo, hi + 1):
            b = lists[c]
            while int(b):
                blocks += 1
                if blocks > WALK_LIMIT:
                    raise HelperError(f"the SLOB free list of class {c} is corrupt")
                size = int(b["units"]) * self.unit
                free += size
                largest = max(largest, size)
                if say:
                    say(f"  free block {int(b):#010x}: {size} bytes (class {c})")
                b = b["next"]
        return blocks, free, largest

    def page_address(self, page):
        return (int(page.address) - int(self.mem_map)) // page.type.sizeof * PAGE_SIZE + \
            self.first_pfn * PAGE_SIZE

    def report(self, say=None):
        """slob_heap_report()'s line, the heap pages, free units and internal units."""
        blocks, free, largest = self.walk_free_lists(say)
        pages, free_units, internal_units = self.walk_pages()
        maps = int(sym("slob_heap_meta_pages"))
        line = (f"SLOB heap (segregated): {pages} pages ({pages * PAGE_SIZE // 1024} kB) and "
                f"{maps} of start maps, {free} bytes free in {blocks} listed blocks "
                f"(largest {largest})")
        return line, pages, free_units, internal_units

    def walk_pages(self):
        """Every heap page parsed by its start map: (pages, units in free
        blocks, units of the allocator's own blocks)."""
        pages = free_units = internal_units = 0
        for page in list_entries(sym("slob_pages"), "struct page", "lru"):
            pages += 1
            f, i = self.parse_page(page)
            free_units += f
            internal_units += i
        return pages, free_units, internal_units

    def parse_page(self, page):
        base, map_addr = self.page_address(page), int(page["start_map"])
        if map_addr == 0:
            raise HelperError(f"heap page {base:#x} has no start map")
        mem = bytes(self.inferior.read_memory(map_addr, self.page_units // 8))
        bits = int.from_bytes(mem, "little")
        data = bytes(self.inferior.read_memory(base, PAGE_SIZE))
        n, w = self.page_units, self.word

        def bit(i):
            return 0 <= i < n and (bits >> i) & 1

        def units_at(i):
            return int.from_bytes(data[i * self.unit:i * self.unit + 4], "little", signed=True)

        def next_at(i):
            return int.from_bytes(data[i * self.unit + w:i * self.unit + 2 * w], "little")

        def starts(i):          # slob_starts()
            if not bit(i):
                return False
            if not bit(i - 1):
                return True
            if not bit(i - 2):
                return units_at(i - 1) == 1
            return True

        free = internal = 0
        i = 0
        while i < n and not bit(i):
            i += 1              # the tail of an object begun on an earlier page
        while i < n:
            start = i
            if not starts(i):
                raise HelperError(f"heap page {base:#x}: unit {i} has a bit but starts "
                                  "no block")
            is_free = i + 1 == n or bit(i + 1)
            i += 1
            while i < n and not starts(i):
                i += 1
            if is_free:
                free += i - start
            elif next_at(start) == (base + start * self.unit) ^ self.TAG_INTERNAL:
                internal += units_at(start)
        return free, internal


class SlobSmallHeap:
    """SLOB's small heap as slob_heap.c lays it out: heap pages on
    slob_lists[] by their largest free block and on slob_full, each with its free
    blocks from page->first_free in address order."""

    def __init__(self):
        self.unit = gdb.lookup_type("slob_t").sizeof
        self.mem_map, self.first_pfn = sym("mem_map"), int(sym("first_pfn"))

    def page_address(self, page):
        return (int(page.address) - int(self.mem_map)) // page.type.sizeof * PAGE_SIZE + \
            self.first_pfn * PAGE_SIZE

    def report(self, say=None):
        lists = sym("slob_lists")
        lo, hi = lists.type.range()
        heads = [sym("slob_full")] + [lists[k] for k in range(lo, hi + 1)]
        pages = partial = blocks = free_units = largest = 0
        for head in heads:
            for page in list_entries(head, "struct page", "lru"):
                pages += 1
                b, n = page["first_free"].cast(gdb.lookup_type("slob_t").pointer()), 0
                partial += int(b) != 0
                while int(b):
                    n += 1
                    if n > PAGE_SIZE:
                        raise HelperError(f"heap page {self.page_address(page):#x}: "
                                          "free list corrupt")
                    units = int(b["units"])
                    free_units += units
                    largest = max(largest, units)
                    if say:
                        say(f"  free block {int(b):#010x}: {units * self.unit} bytes")
                    b = b["next"]
                blocks += n
        line = (f"SLOB heap (best-fit): {pages} pages ({pages * PAGE_SIZE // 1024} kB), "
                f"{free_units * self.unit} bytes free in {blocks} blocks on {partial} pages "
                f"(largest {largest * self.unit})")
        return line, pages, free_units, int(sym("slob_internal_units"))


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
