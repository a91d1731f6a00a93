/* slob_fast.c - SLOB's fast heap: segregated fit with start maps
 * (CONFIG_SLOB_FAST_HEAP).
 *
 * Classes.  Free blocks of two units or more sit on segregated lists, one
 * per size class (one class per size below 16 units, then 8 per power of
 * two), with a bitmap of the classes that have blocks: an allocation takes
 * the head of its own class if that block is large enough, else the first
 * block of the first non-empty class whose every block fits (two words of
 * bitmap to look at), and cuts it.  An aligned allocation asks for its
 * size plus the alignment's slack, which fits anywhere; if no block is
 * that large, the heads of the classes from its size up are tried where
 * they are (a freed block heads its class, so an aligned object freed is
 * there to be had again).  A one-unit free fragment is on no list: it
 * waits for a neighbour to be freed.  If nothing fits the heap grows by a
 * page.  No operation walks anything that grows with the heap.
 *
 * Start maps.  Every heap page has a start map, one bit per unit, in map
 * pages (1/64 of the heap on i386, nothing per object): the bit is set at
 * the first unit of every block, allocated or free, and at the second unit
 * of a free block (or, for a one-unit free block, at the next block's
 * start, which is set anyway).  Allocated blocks are two units or more and
 * free blocks are never adjacent, so a run of set bits is at most three
 * long and each position in it is known.  So in O(1), without reading a
 * caller's memory: whether a block starts at a unit, whether it is free,
 * where the block before it starts and whether the block after it is free
 * (TLSF's boundary tags, kept outside the blocks so cache objects carry
 * none).  Freeing merges with both neighbours at once, and every free is
 * checked against the map first: a cache object must be exactly one
 * allocated block of its cache's size, so an object freed to a cache of
 * another size, a pointer into a block or a double free is refused.
 *
 * Runs.  A block of more than a page, or aligned above a page, starts a
 * run of fresh heap pages whose last page's rest is free heap; the run
 * freed last is taken again if its pages are still free.
 *
 * Locking: every function here runs with slob_lock held; the page
 * allocator's lock nests inside it.
 */
#include <tiny/kernel.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include "slob_fast.h"

const char slob_heap_name[] = "segregated";
/* what the start maps cannot tell: objects of one size are alike */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~KMEM_CHECK(WRONG_CACHE_SAME_SIZE) &
				  ~KMEM_CHECK(DESTROYED_CACHE);

slob_t *slob_free_lists[SLOB_CLASSES];	/* free blocks of each size class */
unsigned long slob_class_map[SLOB_CLASS_WORDS];	/* the classes with blocks */
LIST_HEAD(slob_pages);			/* heap pages, through page->lru */
/* Hints: where the run freed last began ([1]) and the block freed last at a
 * page's start ([0]: it may be a run of one page, an object aligned above a
 * page). */
static slob_t *slob_last_hint[2];

/* ---- start maps -------------------------------------------------------- */

static LIST_HEAD(slob_map_partial);	/* map pages with a free map; slob_lock */
unsigned long slob_heap_meta_pages;	/* pages holding start maps; slob_lock */

/* A zeroed start map, or NULL if no page can be had.  slob_lock held; the
 * page allocator's lock nests inside it. */
static unsigned long *slob_map_alloc(gfp_t gfp)
{
	struct page *page;
	void **map;
	unsigned int i;

	assert_spin_held(&slob_lock);
	if (list_empty(&slob_map_partial)) {
		page = alloc_pages(gfp & ~__GFP_ZERO, 0);
		if (!page)
			return NULL;
		kmem_mark_internal(page_address(page), PAGE_SIZE);
		page->free_maps = NULL;
		page->maps_used = 0;
		for (i = 0; i < SLOB_MAPS_PER_PAGE; i++) {
			map = (void **)((char *)page_address(page) + i * SLOB_MAP_BYTES);
			*map = page->free_maps;
			page->free_maps = map;
		}
		list_add(&page->lru, &slob_map_partial);
		slob_heap_meta_pages++;
	}
	page = list_first_entry(&slob_map_partial, struct page, lru);
	map = page->free_maps;
	page->free_maps = *map;
	if (++page->maps_used == SLOB_MAPS_PER_PAGE)
		list_del(&page->lru);
	memset(map, 0, SLOB_MAP_BYTES);
	return (unsigned long *)map;
}

/* Takes a start map back; a map page left empty goes back to the page
 * allocator.  slob_lock held. */
static void slob_map_free(unsigned long *map)
{
	struct page *page = virt_to_page(map);
	void **slot = (void **)map;

	assert_spin_held(&slob_lock);
	if (page->maps_used-- == SLOB_MAPS_PER_PAGE)
		list_add(&page->lru, &slob_map_partial);
	*slot = page->free_maps;
	page->free_maps = slot;
	if (!page->maps_used) {
		list_del(&page->lru);
		slob_heap_meta_pages--;
		page->free_maps = NULL;
		__free_pages(page, 0);
	}
}

/* Set or clear bit i of a start map.  slob_lock held. */
static void map_set(unsigned long *map, int i)
{
	assert_spin_held(&slob_lock);
	map[i / SLOB_MAP_BITS] |= 1UL << (i % SLOB_MAP_BITS);
}

static void map_clear(unsigned long *map, int i)
{
	assert_spin_held(&slob_lock);
	map[i / SLOB_MAP_BITS] &= ~(1UL << (i % SLOB_MAP_BITS));
}

/* The first set bit of map at or after unit i (0 <= i), or SLOB_PAGE_UNITS. */
static slob_hot int map_next(const unsigned long *map, int i)
{
	int w = i / (int)SLOB_MAP_BITS;
	unsigned long bits;

	if (i >= SLOB_PAGE_UNITS)
		return SLOB_PAGE_UNITS;
	bits = map[w] & (~0UL << (i % SLOB_MAP_BITS));
	while (!bits) {
		if (++w == SLOB_PAGE_UNITS / (int)SLOB_MAP_BITS)
			return SLOB_PAGE_UNITS;
		bits = map[w];
	}
	return w * (int)SLOB_MAP_BITS + __builtin_ctzl(bits);
}

/* The last set bit of map before unit i, or -1. */
static slob_hot int map_last_before(const unsigned long *map, int i)
{
	int w = (i - 1) / (int)SLOB_MAP_BITS;
	unsigned long bits;

	if (i <= 0)
		return -1;
	bits = map[w] & (~0UL >> (SLOB_MAP_BITS - 1 - (i - 1) % SLOB_MAP_BITS));
	while (!bits) {
		if (--w < 0)
			return -1;
		bits = map[w];
	}
	return w * (int)SLOB_MAP_BITS + (int)(SLOB_MAP_BITS - 1) - __builtin_clzl(bits);
}

/* Where the heap address b is: its page's map and base, its unit.  0 if b
 * is not on a heap page on a unit boundary. */
struct slob_at {
	unsigned long *map;
	slob_t *base;
	int i;
};

static slob_hot int slob_locate(const void *b, struct page *page, struct slob_at *at)
{
	if (!page || !(READ_ONCE(page->flags) & PG_slab) || !IS_ALIGNED((uintptr_t)b, SLOB_UNIT))
		return 0;
	at->map = page->start_map;
	at->base = (slob_t *)((uintptr_t)b & PAGE_MASK);
	at->i = slob_index(b);
	return 1;
}

/* ---- size classes --------------------------------------------------------- */

/* The first class at or above c that has a free block, or -1. */
static slob_hot int slob_first_class(int c)
{
	int w = c / (int)SLOB_MAP_BITS;
	unsigned long bits = slob_class_map[w] & (~0UL << (c % SLOB_MAP_BITS));

	while (!bits) {
		if (++w == (int)SLOB_CLASS_WORDS)
			return -1;
		bits = slob_class_map[w];
	}
	return w * (int)SLOB_MAP_BITS + __builtin_ctzl(bits);
}

/* Lists the free block b (units >= 2 units) at the head of its class. */
static slob_hot void slob_list_add(slob_t *b, int units)
{
	int c = slob_class(units);
	slob_t *head = slob_free_lists[c];

	b->next = head;
	b[1].next = NULL;
	if (head)
		head[1].next = b;
	else
		slob_class_map[c / SLOB_MAP_BITS] |= 1UL << (c % SLOB_MAP_BITS);
	slob_free_lists[c] = b;
}

/* Takes the free block b off the list of its class c. */
static slob_hot void slob_list_del(slob_t *b, int c)
{
	slob_t *prev = b[1].next, *next = b->next;

	if (next)
		next[1].next = prev;
	if (prev) {
		prev->next = next;
	} else {
		slob_free_lists[c] = next;
		if (!next)
			slob_class_map[c / SLOB_MAP_BITS] &= ~(1UL << (c % SLOB_MAP_BITS));
	}
}

/* ---- the heap ------------------------------------------------------------ */

/* Makes [base + i, base + i + units) a free block: header, map bits, list.
 * The bits inside it must be clear.  slob_lock held. */
static slob_hot void slob_put_free(unsigned long *map, slob_t *base, int i, int units)
{
	slob_t *b = base + i;

	assert_spin_held(&slob_lock);
	kmem_mark_internal(b, units > 1 ? 2 * SLOB_UNIT : SLOB_UNIT);
	b->units = units;
	map_set(map, i);
	if (units > 1) {
		map_set(map, i + 1);
		slob_list_add(b, units);
	}
}

/* Takes the free block at base + i off its list and out of the map. */
static slob_hot int slob_take_free(unsigned long *map, slob_t *base, int i)
{
	int units = base[i].units;

	map_clear(map, i);
	if (units > 1) {
		slob_list_del(base + i, slob_class(units));
		map_clear(map, i + 1);
	}
	kmem_mark_noaccess(base + i, SLOB_UNIT);
	return units;
}

/*
 * Frees [base + i, base + i + units), units >= 1, whose first bit may be set
 * (a block being freed: the one before it may be free and merge) and whose
 * other bits are clear (a fresh piece has no bit at all), merging it with
 * the free blocks before and after it in the page.  slob_lock held.
 */
static slob_hot void slob_release(unsigned long *map, slob_t *base, int i, int units)
{
	int end = i + units, j = -1, size, c;
	slob_t *b;

	assert_spin_held(&slob_lock);
	if (map_test(map, i)) {
		j = map_last_before(map, i);
		if (j >= 0 && !slob_starts(map, base, j))
			j--;		/* j is a marker: its free block ends at i */
		else if (j != i - 1)
			j = -1;		/* the block before is allocated, or none */
	}			/* (a one-unit block right before i is free) */
	slob_free_units += (unsigned long)units;
	if (end < SLOB_PAGE_UNITS && slob_is_free(map, end))
		end += slob_take_free(map, base, end);
	if (j < 0) {
		slob_put_free(map, base, i, end - i);
		return;
	}
	b = base + j;		/* the free block before grows */
	size = b->units;
	if (j + 1 < i)
		map_clear(map, i);	/* else i's bit is now the marker */
	b->units = end - j;
	c = slob_class(end - j);
	if (size == 1) {
		kmem_mark_internal(b, 2 * SLOB_UNIT);
		slob_list_add(b, end - j);
	} else if (slob_class(size) != c) {
		slob_list_del(b, slob_class(size));
		slob_list_add(b, end - j);
	}
}

/*
 * Takes units units at alignment align (in units, a power of two; 0 or 1
 * for none) from the end of the listed free block base + i of class c; what
 * is left before and after stays free.  Returns the allocated block, its
 * start bit set.  slob_lock held.
 */
static slob_hot slob_t *slob_carve(unsigned long *map, slob_t *base, int i, int c, int units, int align)
{
	int size = base[i].units, end = i + size;
	int a = align > 1 ? ALIGN_DOWN(end - units, align) : end - units;

	assert_spin_held(&slob_lock);
	slob_free_units -= (unsigned long)units;
	if (a + units < end)		/* the aligned block leaves a tail */
		slob_put_free(map, base, a + units, end - a - units);
	if (a == i) {			/* all of the block from its start */
		slob_list_del(base + i, c);
		map_clear(map, i + 1);
		return base + i;
	}
	base[i].units = a - i;
	if (a - i == 1 || slob_class(a - i) != c) {
		slob_list_del(base + i, c);
		if (a - i > 1)
			slob_list_add(base + i, a - i);
	}
	map_set(map, a);
	return base + a;
}

/* The class of a free block of at least need units, or -1: need's own
 * class c if its head is large enough, else the first class above whose
 * every block is.  slob_lock held. */
static slob_hot int slob_find(int need, int c)
{
	slob_t *b = slob_free_lists[c];

	assert_spin_held(&slob_lock);
	if (b && b->units >= need)
		return c;
	return slob_first_class(min(c + 1, SLOB_CLASSES - 1));
}

/* Adds nr fresh pages at page, in one run, to the heap, each with its own
 * start map; their units are left without bits.  slob_lock held (the page
 * allocator's lock nests inside it).  Returns 0 or -1, adding nothing. */
static int slob_add_pages(struct page *page, unsigned long nr, gfp_t gfp)
{
	unsigned long i;

	assert_spin_held(&slob_lock);
	for (i = 0; i < nr; i++) {
		page[i].start_map = slob_map_alloc(gfp);
		if (!page[i].start_map) {
			while (i--) {
				slob_map_free(page[i].start_map);
				page[i].start_map = NULL;
			}
			return -1;
		}
	}
	page_update_flags(page, nr, PG_slab, 0);
	for (i = 0; i < nr; i++) {
		list_add(&page[i].lru, &slob_pages);
		kmem_mark_noaccess(page_address(page + i), PAGE_SIZE);
	}
	slob_heap_pages += nr;
	return 0;
}

/* Grows the heap by one page, a free block.  slob_lock held.  0 or -1. */
static int slob_grow(gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~__GFP_ZERO, 0);

	assert_spin_held(&slob_lock);
	call_path(CALL_PATH_NEW_SLAB);
	if (!page || slob_add_pages(page, 1, gfp)) {
		if (page)
			__free_pages(page, 0);
		return -1;
	}
	slob_release(page->start_map, page_address(page), 0, SLOB_PAGE_UNITS);
	return 0;
}

/* Does a free block of at least units units begin the heap page at base?
 * 0 if base is not on a heap page.  slob_lock held. */
static int slob_page_starts_free(const slob_t *base, int units)
{
	struct page *page = virt_to_page(base);
	const unsigned long *map;

	assert_spin_held(&slob_lock);
	if (!page || !(READ_ONCE(page->flags) & PG_slab))
		return 0;
	map = page->start_map;
	return map_test(map, 0) && slob_is_free(map, 0) && base->units >= units;
}

/*
 * A run of units units (more than a page) where the run freed last was, if
 * its pages are still free heap: a whole free page each, and a free block
 * at the start of the last page as long as the run's rest.  Cache objects
 * of more than a page come from fresh pages, which a fragmented page
 * allocator may not have; without this, an object freed and allocated
 * again could fail for want of pages it had just given up.  O(the run's
 * pages).  NULL if not.  slob_lock held.
 */
static slob_t *slob_reuse_run(int units, int align)
{
	slob_t **hint = &slob_last_hint[units > SLOB_PAGE_UNITS], *base = *hint, *p;
	int nr = DIV_ROUND_UP(units, SLOB_PAGE_UNITS), rest = units - (nr - 1) * SLOB_PAGE_UNITS, k;

	assert_spin_held(&slob_lock);
	*hint = NULL;
	if (!base || (align > 1 && !IS_ALIGNED((uintptr_t)base, (uintptr_t)align * SLOB_UNIT)))
		return NULL;
	for (k = 0, p = base; k < nr; k++, p += SLOB_PAGE_UNITS)
		if (!slob_page_starts_free(p, k < nr - 1 ? SLOB_PAGE_UNITS : rest))
			return NULL;
	for (k = 0, p = base; k < nr; k++, p += SLOB_PAGE_UNITS) {
		unsigned long *map = slob_map_of(p);
		int size = slob_take_free(map, p, 0);
		int used = k < nr - 1 ? SLOB_PAGE_UNITS : rest;

		if (size > used)
			slob_put_free(map, p, used, size - used);
		slob_free_units -= (unsigned long)used;
	}
	map_set(slob_map_of(base), 0);
	return base;
}

/*
 * A block of units units (more than a page, or aligned to align units
 * above a page) at the start of a run of heap pages: where the run freed
 * last was if that is free, else fresh pages; the rest of the last page is
 * free heap.  The pages after the first have no start bit.  NULL if out of
 * memory.  slob_lock held.
 */
static slob_t *slob_alloc_run(int units, int align, gfp_t gfp)
{
	unsigned long nr = DIV_ROUND_UP((unsigned long)units, SLOB_PAGE_UNITS);
	unsigned int order = get_order(max(units, align) * SLOB_UNIT);
	struct page *page;
	slob_t *last;
	int rest;

	assert_spin_held(&slob_lock);
	last = slob_reuse_run(units, align);
	if (last)
		return last;
	page = alloc_pages(gfp & ~__GFP_ZERO, order);
	if (!page)
		return NULL;
	split_page_block(page, order, nr);
	if (slob_add_pages(page, nr, gfp)) {
		while (nr--)
			__free_pages(page + nr, 0);
		return NULL;
	}
	map_set(page->start_map, 0);
	last = page_address(page + nr - 1);
	rest = (int)(nr * SLOB_PAGE_UNITS) - units;
	if (rest) {
		slob_free_units += (unsigned long)rest;
		slob_put_free(page[nr - 1].start_map, last, SLOB_PAGE_UNITS - rest, rest);
	}
	return page_address(page);
}

/* The units to look for to cut units units at the alignment al (in units,
 * a power of two; 0 or 1 for none) from a block: a whole page is aligned. */
static int slob_need(int units, int al)
{
	return min(units + (al > 1 ? al - 1 : 0), SLOB_PAGE_UNITS);
}

/*
 * The class of a free block that holds units units at the alignment al
 * where it is, among the heads of the classes from units' own up to need's
 * (slob_find() asks for need units, which hold them anywhere), or -1.  A
 * freed block heads its class, so an aligned object freed and allocated
 * again is never refused for want of a page: the block it left may be
 * shorter than need.  O(classes), and only before the heap grows.
 * slob_lock held.
 */
static int slob_find_aligned_head(int units, int al, int need)
{
	int c, last = slob_class(need);
	slob_t *b;

	assert_spin_held(&slob_lock);
	for (c = slob_class(units); c <= last; c++) {
		b = slob_free_lists[c];
		if (b && b->units >= units &&
		    ALIGN_DOWN(slob_index(b) + b->units - units, al) >= slob_index(b))
			return c;
	}
	return -1;
}

/*
 * A block of units units (two or more) at the alignment al, growing the
 * heap if needed; need is slob_need(units, al), c its class.  Its start is
 * marked in the map.  NULL if out of memory.  slob_lock held.
 */
static slob_hot slob_t *slob_take(int units, int al, int need, int c, gfp_t gfp)
{
	slob_t *b;

	assert_spin_held(&slob_lock);
	c = slob_find(need, c);
	if (c < 0 && al > 1)
		c = slob_find_aligned_head(units, al, need);
	if (c < 0 && !slob_grow(gfp))
		c = slob_find(need, slob_class(need));
	b = c < 0 ? NULL : slob_free_lists[c];
	if (!b)
		return NULL;
	return slob_carve(slob_map_of(b), (slob_t *)((uintptr_t)b & PAGE_MASK), slob_index(b), c,
			  units, al);
}

/* Is the run of pages holding the block at, units units from a page's
 * start, heap pages with no bit after at->i up to the block's end? */
static int slob_is_run(struct slob_at *at, int units)
{
	const slob_t *p = at->base;
	const unsigned long *map = at->map;
	int i = 1, end = units;

	for (; end > SLOB_PAGE_UNITS; i = 0, end -= SLOB_PAGE_UNITS) {
		struct page *page;

		if (map_next(map, i) != SLOB_PAGE_UNITS)
			return 0;
		p += SLOB_PAGE_UNITS;
		page = virt_to_page(p);
		if (!page || !(READ_ONCE(page->flags) & PG_slab))
			return 0;
		map = page->start_map;
	}
	return map_next(map, i) == end;
}

/*
 * Is the block at "at", units units long, exactly one allocated block: (for
 * slob_is_block()) a block starts there; no bit inside (so it is not free),
 * and a block or the page's end follows?  A block of more than a page starts a page, and
 * its run of pages are heap pages without a bit up to its end.  O(1): a
 * page of map at most.  slob_lock held.
 */
static slob_hot int slob_extent_ok(struct slob_at *at, int units)
{
	assert_spin_held(&slob_lock);
	if (units < 2)
		return 0;
	if (at->i + units > SLOB_PAGE_UNITS)
		return !at->i && slob_is_run(at, units);
	return map_next(at->map, at->i + 1) == at->i + units;
}

static slob_hot int slob_is_block(struct slob_at *at, int units)
{
	return slob_starts(at->map, at->base, at->i) && slob_extent_ok(at, units);
}

/* Frees the allocated block "at" of units units (already checked), page by
 * page; a run (more than a page) is remembered as the run freed last, and
 * apart from it a block at a page's start (it may be a run of one page: an
 * object aligned above a page): in one hint, each kind took the other's
 * place (slob_heap.c says what that cost).  slob_reuse_run() checks that
 * the hint fits.  slob_lock held. */
static slob_hot void slob_free_block(struct slob_at *at, int units)
{
	slob_t *base = at->base;
	int i = at->i;

	assert_spin_held(&slob_lock);
	if (units > SLOB_PAGE_UNITS || !i)
		slob_last_hint[units > SLOB_PAGE_UNITS] = base;
	while (units > 0) {
		int n = min(units, SLOB_PAGE_UNITS - i);

		slob_release(base == at->base ? at->map : slob_map_of(base), base, i, n);
		base += SLOB_PAGE_UNITS;
		units -= n;
		i = 0;
	}
}

/*
 * The header of the live block tagged tag whose body is obj (on the heap
 * page page), or NULL if obj is no such body; *at gets where the header
 * is.  Reads the unit before obj only once the start map shows that an
 * allocated block begins there, and checks the size it finds against the
 * map.  O(1).  slob_lock held.
 */
static slob_hot slob_t *slob_header(const void *obj, struct page *page, uintptr_t tag, struct slob_at *at)
{
	slob_t *m;

	assert_spin_held(&slob_lock);
	if (!slob_locate(obj, page, at) || !at->i--)
		return NULL;
	if (!slob_starts(at->map, at->base, at->i) || map_test(at->map, at->i + 1))
		return NULL;
	m = at->base + at->i;
	if (m->next != slob_tag(m, tag) || at->i + m->units > SLOB_PAGE_UNITS ||
	    !slob_extent_ok(at, m->units))
		return NULL;
	return m;
}

/* Takes one entirely free heap page out of the heap, or returns NULL.
 * slob_lock held. */
static void *slob_take_free_page(void)
{
	slob_t *b = slob_free_lists[slob_class(SLOB_PAGE_UNITS)];
	struct page *page;

	assert_spin_held(&slob_lock);
	if (!b)
		return NULL;
	page = virt_to_page(b);
	slob_list_del(b, slob_class(SLOB_PAGE_UNITS));
	list_del(&page->lru);
	slob_map_free(page->start_map);
	page->start_map = NULL;
	page_update_flags(page, 1, 0, PG_slab);
	slob_free_units -= SLOB_PAGE_UNITS;
	slob_heap_pages--;
	return b;
}

/* ---- the interface (slob.h) -------------------------------------------------------- */

void slob_heap_init(void)
{
}

slob_t *slob_heap_alloc(int units, int align, gfp_t gfp)
{
	int need = slob_need(units, align);

	assert_spin_held(&slob_lock);
	if (units > SLOB_PAGE_UNITS || align > SLOB_PAGE_UNITS)
		return slob_alloc_run(units, align, gfp);
	return slob_take(units, align, need, slob_class(need), gfp);
}

/* Where b is, if it is exactly one allocated block of units units. */
static int slob_block_at(const slob_t *b, int units, struct slob_at *at)
{
	return slob_locate(b, virt_to_page(b), at) && slob_is_block(at, units);
}

int slob_heap_block(slob_t *b, int units, int free)
{
	struct slob_at at;

	assert_spin_held(&slob_lock);
	if (!slob_block_at(b, units, &at))
		return -1;
	if (free)
		slob_free_block(&at, units);
	return 0;
}

slob_t *slob_heap_header(const void *obj, uintptr_t tag)
{
	struct slob_at at;

	assert_spin_held(&slob_lock);
	return slob_header(obj, virt_to_page(obj), tag, &at);
}

unsigned long slob_heap_release_page(void)
{
	unsigned long maps = slob_heap_meta_pages;
	void *page;

	assert_spin_held(&slob_lock);
	page = slob_take_free_page();
	if (!page)
		return 0;
	call_path(CALL_PATH_SLAB_FREED);
	free_page((unsigned long)(uintptr_t)page);
	return 1 + maps - slob_heap_meta_pages;
}
