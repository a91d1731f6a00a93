/* slob.c - SLOB, the simple list-of-blocks allocator (CONFIG_SLOB).
 *
 * One heap of blocks under one lock.  Memory is counted in units of one
 * block header (a size and a pointer: 8 bytes on i386).  The heap is a set
 * of pages from the page allocator; a free block never crosses a page
 * boundary, so a page is entirely free exactly when one free block covers
 * it.  Free blocks of two units or more sit on segregated lists, one per
 * size class (one class per size below 16 units, then 8 per power of two),
 * with a bitmap of the classes that have blocks: an allocation takes the
 * head of its own class if that block is large enough, else the first
 * block of the first non-empty class whose every block fits (two words of
 * bitmap to look at), and splits it.  A one-unit free fragment is on no
 * list: it waits for a neighbour to be freed.  If nothing fits, the heap
 * grows by a page.  slob_lock, taken with interrupts saved, guards it all:
 * it is used from interrupt context (the shrinker, GFP_ATOMIC callers).
 *
 * Every heap page has a start map, one bit per unit, and it says
 * everything about the page's blocks without a header on cache objects:
 * the bit is set at the first unit of every block, allocated or free, and
 * also at the second unit of a free block (or, for a one-unit free block,
 * at the next block's start, which is set anyway).  Allocated blocks are
 * two units or more and free blocks are never adjacent, so a run of set
 * bits is at most three long and each position in it is known (the only
 * doubt, a run of two, is settled by the free block's own size).  So in
 * O(1), without reading a caller's memory: whether a block starts at a
 * unit, whether it is free, where the block before it starts (the last set
 * bit before it, at most a page of map away) and whether the block after
 * it is free.  Freeing merges with both neighbours at once.  The map costs
 * nothing per object (1/64 of the heap on i386, in map pages) and checks
 * every free before it changes anything: a cache object must be exactly
 * one allocated block of the cache's size (a block starts there, no bit
 * inside, a block or the page's end right after), so an object freed to
 * the wrong cache, a kmalloc() block freed to a cache, a pointer into an
 * object, or a double free is reported instead of corrupting the heap; a
 * kmalloc() header is read only once the map shows an allocated block
 * there, and must end where the map says the block ends.  Objects of two
 * caches of the same size in units cannot be told apart: such a free is
 * accepted, and only the caches' counts are wrong.
 *
 * kmalloc() puts a one-unit header (size, canary) in front of heap blocks,
 * so kfree() and ksize() need no size; the allocator's own blocks (cache
 * descriptors, bigblock descriptors) carry a header too, with another
 * canary.  Requests of about a page or more are "bigblocks": exactly the
 * pages they need straight from the page allocator (the rest of the
 * power-of-two block given back), remembered on a bigblock list and found
 * from their first page in O(1).  Caches are thin: they remember the
 * object size, alignment, constructor and destructor, and take objects
 * from the heap without a header (objects of more than a page from a run
 * of fresh heap pages, whose last page's rest is free heap, or from the
 * run freed last if its pages are still free), or whole
 * pages, owned through struct page, for objects whose size is a multiple
 * of a page or whose alignment is above a page; the constructor runs on
 * every allocation, the destructor on every free.  A cache's live-object
 * count is kept under slob_lock, and a small memo of caches found live
 * spares the common call the check of its cache pointer.  A timer shrinks the
 * heap once a second: it returns every entirely free page, one page per
 * time it takes the lock.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slob.h"

const char kmem_allocator_name[] = "SLOB";
/* every bad call of <tiny/slab.h> but one */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~KMEM_CHECK(WRONG_CACHE_SAME_SIZE);
const int kmem_ctor_every_alloc = 1;

DEFINE_SPINLOCK(slob_lock);		/* everything about the heap below */
slob_t *slob_free_lists[SLOB_CLASSES];	/* free blocks of each size class */
unsigned long slob_class_map[SLOB_CLASS_WORDS];	/* the classes with blocks */
LIST_HEAD(slob_pages);			/* heap pages, through page->lru */
unsigned long slob_heap_pages;		/* pages the heap holds */
unsigned long slob_free_units;		/* units in free blocks */
unsigned long slob_internal_units;	/* units of the allocator's own blocks */
static slob_t *slob_last_run;		/* where the run freed last began: a hint */

atomic_long_t slob_cache_pages;		/* pages of page-sized cache objects */


static struct timer_list slob_shrink_timer;

/* Caches found live lately, by address: a direct-mapped memo of
 * cache_is_live(), so that the common kmem_cache_alloc() and
 * kmem_cache_free() skip its checks.  An entry is set (after the check,
 * the canary read again) and cleared (when the block is freed) only under
 * slob_lock, so an entry always names a live cache; it is read without the
 * lock, one word. */
#define SLOB_LIVE_SLOTS	32
static const struct kmem_cache *slob_live[SLOB_LIVE_SLOTS];

static unsigned int slob_live_slot(const void *c)
{
	return (unsigned int)((uintptr_t)c / SLOB_UNIT) % SLOB_LIVE_SLOTS;
}

/* Forgets obj, an internal block being freed, if the memo names it.
 * slob_lock held. */
static void slob_live_forget(const void *obj)
{
	const struct kmem_cache **e = &slob_live[slob_live_slot(obj)];

	if (*e == obj)
		__atomic_store_n(e, NULL, __ATOMIC_RELAXED);
}

/* The canary in the header m of a live block tagged tag (SLOB_TAG_*). */
static slob_t *slob_canary(const slob_t *m, uintptr_t tag)
{
	return (slob_t *)((uintptr_t)m ^ tag);
}

/* ---- start maps -------------------------------------------------------- */

static LIST_HEAD(slob_map_partial);	/* map pages with a free map; slob_lock */
unsigned long slob_map_pages;		/* pages holding start maps; slob_lock */

/* A zeroed start map, or NULL if no page can be had.  slob_lock held; the
 * page allocator's lock nests inside it. */
static unsigned long *slob_map_alloc(gfp_t gfp)
{
	struct page *page;
	void **map;
	unsigned int i;

	if (list_empty(&slob_map_partial)) {
		page = alloc_pages(gfp & ~__GFP_ZERO, 0);
		if (!page)
			return NULL;
		kmem_mark_internal(page_address(page), PAGE_SIZE);
		page->slab = NULL;
		page->inuse = 0;
		for (i = 0; i < SLOB_MAPS_PER_PAGE; i++) {
			map = (void **)((char *)page_address(page) + i * SLOB_MAP_BYTES);
			*map = page->slab;
			page->slab = map;
		}
		list_add(&page->lru, &slob_map_partial);
		slob_map_pages++;
	}
	page = list_first_entry(&slob_map_partial, struct page, lru);
	map = page->slab;
	page->slab = *map;
	if (++page->inuse == SLOB_MAPS_PER_PAGE)
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

	if (page->inuse-- == SLOB_MAPS_PER_PAGE)
		list_add(&page->lru, &slob_map_partial);
	*slot = page->slab;
	page->slab = slot;
	if (!page->inuse) {
		list_del(&page->lru);
		slob_map_pages--;
		page->slab = NULL;
		__free_pages(page, 0);
	}
}

/* Set or clear bit i of a start map.  slob_lock held; the store is one
 * relaxed word store for the unlocked reader (map_test()). */
static void map_set(unsigned long *map, int i)
{
	unsigned long *w = &map[i / SLOB_MAP_BITS];

	__atomic_store_n(w, *w | 1UL << (i % SLOB_MAP_BITS), __ATOMIC_RELAXED);
}

static void map_clear(unsigned long *map, int i)
{
	unsigned long *w = &map[i / SLOB_MAP_BITS];

	__atomic_store_n(w, *w & ~(1UL << (i % SLOB_MAP_BITS)), __ATOMIC_RELAXED);
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
	if (!page || !(page->flags & PG_slab) || !IS_ALIGNED((uintptr_t)b, SLOB_UNIT))
		return 0;
	at->map = page->slab;
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

	if (b && b->units >= need)
		return c;
	return slob_first_class(min(c + 1, SLOB_CLASSES - 1));
}

/* Adds nr fresh pages at page, in one run, to the heap, each with its own
 * start map; their units are left without bits.  slob_lock held (the page
 * allocator's lock nests inside it).  Returns 0 or -1, adding nothing. */
static int slob_add_pages(struct page *page, unsigned long nr, gfp_t gfp)
{
	unsigned long *maps[8];
	unsigned long i;

	for (i = 0; i < nr; i++) {
		maps[i] = slob_map_alloc(gfp);
		if (!maps[i]) {
			while (i--)
				slob_map_free(maps[i]);
			return -1;
		}
	}
	page_update_flags(page, nr, PG_slab, 0);
	for (i = 0; i < nr; i++) {
		page[i].slab = maps[i];
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

	if (!page || slob_add_pages(page, 1, gfp)) {
		if (page)
			__free_pages(page, 0);
		return -1;
	}
	slob_release(page->slab, page_address(page), 0, SLOB_PAGE_UNITS);
	return 0;
}

/* Most pages one heap object may span (a cache object of more than a page:
 * objects of SLOB_RUN_PAGES pages or more are taken as whole pages). */
#define SLOB_RUN_PAGES	8

/* Does a free block of at least units units begin the heap page at base?
 * 0 if base is not on a heap page.  slob_lock held. */
static int slob_page_starts_free(const slob_t *base, int units)
{
	struct page *page = virt_to_page(base);
	const unsigned long *map;

	if (!page || !(page->flags & PG_slab))
		return 0;
	map = page->slab;
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
static slob_t *slob_reuse_run(int units)
{
	slob_t *base = slob_last_run, *p;
	int nr = DIV_ROUND_UP(units, SLOB_PAGE_UNITS), rest = units - (nr - 1) * SLOB_PAGE_UNITS, k;

	slob_last_run = NULL;
	if (!base)
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
 * A block of units units (more than a page) at the start of a run of heap
 * pages: where the run freed last was if that is free, else fresh pages;
 * the rest of the last page is free heap.  The pages after the first have
 * no start bit.  NULL if out of memory.  slob_lock held.
 */
static slob_t *slob_alloc_run(int units, gfp_t gfp)
{
	unsigned long nr = DIV_ROUND_UP((unsigned long)units, SLOB_PAGE_UNITS);
	unsigned int order = get_order(nr * PAGE_SIZE);
	struct page *page;
	slob_t *last;
	int rest;

	last = slob_reuse_run(units);
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
	map_set(page->slab, 0);
	last = page_address(page + nr - 1);
	rest = (int)(nr * SLOB_PAGE_UNITS) - units;
	if (rest) {
		slob_free_units += (unsigned long)rest;
		slob_put_free(page[nr - 1].slab, last, SLOB_PAGE_UNITS - rest, rest);
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
 * A block of units units (two or more) at the alignment al, growing the
 * heap if needed; need is slob_need(units, al), c its class.  Its start is
 * marked in the map.  NULL if out of memory.  slob_lock held.
 */
static slob_hot slob_t *slob_take(int units, int al, int need, int c, gfp_t gfp)
{
	slob_t *b;

	if (units > SLOB_PAGE_UNITS)
		return slob_alloc_run(units, gfp);
	c = slob_find(need, c);
	if (c < 0 && !slob_grow(gfp))
		c = slob_find(need, slob_class(need));
	b = c < 0 ? NULL : slob_free_lists[c];
	if (!b)
		return NULL;
	return slob_carve(slob_map_of(b), (slob_t *)((uintptr_t)b & PAGE_MASK), slob_index(b), c,
			  units, al);
}

/*
 * A block of size bytes that begins with a header carrying tag; returns
 * the body after the header.  NULL if out of memory.  Any context; takes
 * slob_lock.
 */
static void *slob_alloc(size_t size, gfp_t gfp, uintptr_t tag)
{
	int units = max(SLOB_UNITS(size) + 1, 2), need = min(units, SLOB_PAGE_UNITS);
	unsigned long flags;
	slob_t *b;

	spin_lock_irqsave(&slob_lock, flags);
	b = slob_take(units, 0, need, slob_class(need), gfp);
	if (b) {
		kmem_mark_internal(b, SLOB_UNIT);
		b->units = units;
		b->next = slob_canary(b, tag);
		if (tag == SLOB_TAG_INTERNAL)
			slob_internal_units += (unsigned long)units;
		b++;
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return b;
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
		if (!page || !(page->flags & PG_slab))
			return 0;
		map = page->slab;
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
 * page; a block of more than a page (a run) is remembered as the run freed
 * last (see slob_reuse_run()).  slob_lock held. */
static slob_hot void slob_free_block(struct slob_at *at, int units)
{
	slob_t *base = at->base;
	int i = at->i;

	if (units > SLOB_PAGE_UNITS)
		slob_last_run = base;
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
	slob_t *m = (slob_t *)obj - 1;

	if (!slob_locate(obj, page, at) || !at->i--)
		return NULL;
	if (!slob_starts(at->map, at->base, at->i) || map_test(at->map, at->i + 1))
		return NULL;
	if (m->next != slob_canary(m, tag) || at->i + m->units > SLOB_PAGE_UNITS ||
	    !slob_extent_ok(at, m->units))
		return NULL;
	return m;
}

/* Frees the live block tagged tag whose body is obj (page: its page).
 * Returns -1, changing nothing, if obj is not one.  Any context; takes
 * slob_lock. */
static int slob_free_tagged(const void *obj, struct page *page, uintptr_t tag)
{
	struct slob_at at;
	unsigned long flags;
	slob_t *m;
	int units = 0;

	spin_lock_irqsave(&slob_lock, flags);
	m = slob_header(obj, page, tag, &at);
	if (m) {
		units = m->units;
		m->next = NULL;		/* a second free will not find the canary */
		if (tag == SLOB_TAG_INTERNAL) {
			slob_internal_units -= (unsigned long)units;
			slob_live_forget(obj);
		}
		if (tag == SLOB_TAG_KMALLOC)
			kmem_mark_freed(obj, (units - 1) * SLOB_UNIT);
		else
			kmem_mark_noaccess(obj, (units - 1) * SLOB_UNIT);
		slob_free_block(&at, units);
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return m ? 0 : -1;
}

/* The same for the allocator's own blocks. */
static int slob_free_internal(const void *obj)
{
	return slob_free_tagged(obj, virt_to_page(obj), SLOB_TAG_INTERNAL);
}

/* Is b, the start of a live block of two units or more, a header (of a
 * kmalloc() block or an internal one) rather than a cache object?  Reads
 * b's first unit, which is then inside the object if it is one: told to
 * the memory checker as read by the allocator. */
static int slob_looks_like_header(const slob_t *b)
{
	kmem_mark_internal(b, SLOB_UNIT);
	return b->next == slob_canary(b, SLOB_TAG_KMALLOC) ||
	       b->next == slob_canary(b, SLOB_TAG_INTERNAL);
}

/* Frees b, an object of the heap cache c, after running c's destructor on
 * it (without slob_lock), and counts it out.  Returns -1, changing nothing
 * and running no destructor, if b is not exactly one live headerless block
 * of c's size.  Any context; takes slob_lock. */
static int slob_free_object(struct kmem_cache *c, void *b)
{
	int units = c->units;
	struct slob_at at;
	unsigned long flags;
	int ok;
	struct page *page = virt_to_page(b);

	spin_lock_irqsave(&slob_lock, flags);	/* the page stays a heap page */
	ok = slob_locate(b, page, &at) && slob_is_block(&at, units) && !slob_looks_like_header(b);
	if (ok && c->common.dtor) {
		spin_unlock_irqrestore(&slob_lock, flags);
		c->common.dtor(b);
		spin_lock_irqsave(&slob_lock, flags);
		ok = slob_locate(b, page, &at) && slob_is_block(&at, units);
	}
	if (ok) {
		kmem_mark_freed(b, c->common.object_size);
		slob_free_block(&at, units);
		c->inuse--;
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return ok ? 0 : -1;
}

/* Takes one entirely free heap page out of the heap, or returns NULL.
 * slob_lock held. */
static void *slob_take_free_page(void)
{
	slob_t *b = slob_free_lists[slob_class(SLOB_PAGE_UNITS)];
	struct page *page;

	if (!b)
		return NULL;
	page = virt_to_page(b);
	slob_list_del(b, slob_class(SLOB_PAGE_UNITS));
	list_del(&page->lru);
	slob_map_free(page->slab);
	page->slab = NULL;
	page_update_flags(page, 1, 0, PG_slab);
	slob_free_units -= SLOB_PAGE_UNITS;
	slob_heap_pages--;
	return b;
}

/* Returns every entirely free heap page, and the map pages left empty, to
 * the page allocator, one page per hold of slob_lock; returns how many
 * pages.  Never grows the heap.  Any context; takes slob_lock. */
static unsigned long slob_shrink(void)
{
	unsigned long flags, count = 0, maps;
	void *page;

	do {
		spin_lock_irqsave(&slob_lock, flags);
		maps = slob_map_pages;
		page = slob_take_free_page();
		count += maps - slob_map_pages;
		spin_unlock_irqrestore(&slob_lock, flags);
		if (page) {
			free_page((unsigned long)(uintptr_t)page);
			count++;
		}
	} while (page);
	return count;
}

static void slob_shrink_timer_fn(unsigned long data)
{
	slob_shrink();
	mod_timer(&slob_shrink_timer, round_jiffies_period(jiffies, HZ));
}

/* ---- kmalloc ------------------------------------------------------------ */

/* Is obj page-aligned, so that it can only be a large block? */
static int page_aligned(const void *obj, struct page *page)
{
	return page && IS_ALIGNED((uintptr_t)obj, PAGE_SIZE);
}

/* kmalloc()'s usable size of obj (on page), or 0 if obj is not a live
 * kmalloc() heap block.  O(1).  Takes slob_lock. */
static size_t kmalloc_heap_size(const void *obj, struct page *page)
{
	struct slob_at at;
	unsigned long flags;
	slob_t *m;
	size_t size;

	spin_lock_irqsave(&slob_lock, flags);
	m = slob_header(obj, page, SLOB_TAG_KMALLOC, &at);
	size = m ? (size_t)(m->units - 1) * SLOB_UNIT : 0;
	spin_unlock_irqrestore(&slob_lock, flags);
	return size;
}

void *__kmalloc(size_t size, gfp_t gfp)
{
	slob_t *m;
	size_t usable;

	if (!size)
		return ZERO_SIZE_PTR;
	if (size >= PAGE_SIZE - SLOB_UNIT)
		return kmalloc_large(size, gfp);
	if (should_failslab("kmalloc", size, gfp))
		return NULL;
	m = slob_alloc(size, gfp, SLOB_TAG_KMALLOC);
	if (m) {
		usable = (size_t)(m[-1].units - 1) * SLOB_UNIT;
		kmem_mark_allocated(m, usable, (gfp & __GFP_ZERO) != 0);
		if (gfp & __GFP_ZERO)
			memset(m, 0, usable);	/* ksize() bytes: callers may use them */
	}
	kmem_debug_validate("kmalloc", m);
	return m;
}

void __kfree(const void *obj)
{
	struct page *page = virt_to_page(obj);

	if (ZERO_OR_NULL_PTR(obj))
		return;
	if ((!page_aligned(obj, page) || kfree_large(obj, page)) &&
	    slob_free_tagged(obj, page, SLOB_TAG_KMALLOC)) {
		kmem_bad_free("kfree", obj, KMEM_NOT_KMALLOC, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", obj);
}

size_t __ksize(const void *obj)
{
	struct page *page = virt_to_page(obj);
	size_t size = 0;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	if (page_aligned(obj, page))
		size = ksize_large(obj, page);
	if (!size)
		size = kmalloc_heap_size(obj, page);
	if (!size)
		kmem_bad_free("ksize", obj, KMEM_NOT_KMALLOC, __builtin_return_address(0));
	return size;
}

/* ---- caches ------------------------------------------------------------- */

/* Is c a cache that kmem_cache_create() made and nobody destroyed?  O(1):
 * the header's canary, cleared when the cache is destroyed. */
static int cache_checks_live(const struct kmem_cache *c)
{
	const slob_t *m = (const slob_t *)c - 1;
	struct page *page = virt_to_page(m);

	return c && page && (page->flags & PG_slab) && IS_ALIGNED((uintptr_t)c, SLOB_UNIT) &&
	       slob_index(c) && map_test(page->slab, slob_index(m)) &&
	       m->next == slob_canary(m, SLOB_TAG_INTERNAL) &&
	       m->units == SLOB_UNITS(sizeof(*c)) + 1;
}

/* Remembers c, found live, in the memo if it is still live (not freed
 * since the check).  Takes slob_lock. */
static void cache_remember(const struct kmem_cache *c)
{
	const slob_t *m = (const slob_t *)c - 1;
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	if (m->next == slob_canary(m, SLOB_TAG_INTERNAL))
		__atomic_store_n(&slob_live[slob_live_slot(c)], c, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&slob_lock, flags);
}

/* cache_checks_live(), answered from the memo when it names c. */
static slob_hot int cache_is_live(const struct kmem_cache *c)
{
	if (c && __atomic_load_n(&slob_live[slob_live_slot(c)], __ATOMIC_RELAXED) == c)
		return 1;
	if (!cache_checks_live(c))
		return 0;
	cache_remember(c);
	return 1;
}

struct kmem_cache *cache_struct_alloc(void)
{
	struct kmem_cache *c;

	if (should_failslab("kmem_cache", sizeof(*c), GFP_KERNEL))
		return NULL;
	c = slob_alloc(sizeof(*c), GFP_KERNEL, SLOB_TAG_INTERNAL);
	if (c) {
		kmem_mark_internal(c, sizeof(*c));
		memset(c, 0, sizeof(*c));
	}
	return c;
}

void cache_struct_free(struct kmem_cache *c)
{
	slob_free_internal(c);
}

/* Works out where c's objects come from: the heap unless their size is a
 * whole number of pages, they span SLOB_RUN_PAGES pages or more, or they
 * are aligned above a page; and what an allocation looks for. */
int cache_open(struct kmem_cache *c)
{
	size_t size = c->common.object_size, align = c->common.align;

	c->on_heap = (size % PAGE_SIZE) && size < SLOB_RUN_PAGES * PAGE_SIZE && align <= PAGE_SIZE;
	if (c->on_heap) {
		c->units = (unsigned short)max(SLOB_UNITS(size), 2);
		c->align_units = (unsigned short)(align > SLOB_UNIT ? align / SLOB_UNIT : 0);
		c->need = (unsigned short)slob_need(c->units, c->align_units);
		c->need_class = (unsigned char)slob_class(c->need);
	}
	c->order = (unsigned char)get_order(max(size, align));
	return 0;
}

unsigned long cache_in_use(struct kmem_cache *c)
{
	return slob_cache_inuse(c);
}

void cache_close(struct kmem_cache *c)
{
}

unsigned long slob_cache_inuse(struct kmem_cache *c)
{
	unsigned long flags, inuse;

	spin_lock_irqsave(&slob_lock, flags);
	inuse = c->inuse;
	spin_unlock_irqrestore(&slob_lock, flags);
	return inuse;
}

/* Counts n objects into (1) or out of (-1) c.  Takes slob_lock. */
static void cache_count(struct kmem_cache *c, long n)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	c->inuse += (unsigned long)n;
	spin_unlock_irqrestore(&slob_lock, flags);
}

/* One page-sized object (whole pages) for c, owned by c and counted.  NULL
 * if none. */
static void *cache_alloc_pages(struct kmem_cache *c, gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~__GFP_ZERO, c->order);

	if (!page)
		return NULL;
	page->slab_cache = c;
	atomic_long_add(1L << c->order, &slob_cache_pages);
	cache_count(c, 1);
	return page_address(page);
}

/* One heap object for c, counted.  NULL if out of memory.  Takes slob_lock. */
static void *cache_alloc_heap(struct kmem_cache *c, gfp_t gfp)
{
	unsigned long flags;
	slob_t *b;

	spin_lock_irqsave(&slob_lock, flags);
	b = slob_take(c->units, c->align_units, c->need, c->need_class, gfp);
	if (b)
		c->inuse++;
	spin_unlock_irqrestore(&slob_lock, flags);
	return b;
}

void *__kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *b;

	if (!cache_is_live(c)) {
		kmem_bad_free("kmem_cache_alloc", c, KMEM_NOT_CACHE, __builtin_return_address(0));
		return NULL;
	}
	if (should_failslab(c->common.name, c->common.object_size, gfp))
		return NULL;
	if (c->on_heap)
		b = cache_alloc_heap(c, gfp);
	else
		b = cache_alloc_pages(c, gfp);
	if (!b)
		return NULL;
	kmem_mark_allocated(b, c->common.object_size, (gfp & __GFP_ZERO) || c->common.ctor);
	if (gfp & __GFP_ZERO)
		memset(b, 0, c->common.object_size);
	if (c->common.ctor)
		c->common.ctor(b);
	kmem_debug_validate("kmem_cache_alloc", b);
	return b;
}

/* Is b a page-sized object of c that is allocated now? */
static int cache_owns_pages(struct kmem_cache *c, const void *b)
{
	struct page *page = virt_to_page(b);

	return page && IS_ALIGNED((uintptr_t)b, PAGE_SIZE) &&
	       (page->flags & (PG_head | PG_slab | PG_large)) == PG_head &&
	       page->order == c->order && page->slab_cache == c;
}

/* Frees the page-sized object b of c; -1, changing nothing, if it is not
 * one.  Runs the destructor only once b is known good. */
static int cache_free_pages(struct kmem_cache *c, void *b)
{
	if (!cache_owns_pages(c, b))
		return -1;
	if (c->common.dtor)
		c->common.dtor(b);
	virt_to_page(b)->slab_cache = NULL;
	kmem_mark_freed(b, c->common.object_size);
	free_pages((unsigned long)(uintptr_t)b, c->order);
	atomic_long_add(-(1L << c->order), &slob_cache_pages);
	cache_count(c, -1);
	return 0;
}

void __kmem_cache_free(struct kmem_cache *c, void *b)
{
	int bad;

	if (!b)
		return;
	if (!cache_is_live(c)) {
		kmem_bad_free("kmem_cache_free", c, KMEM_NOT_CACHE, __builtin_return_address(0));
		return;
	}
	if (c->on_heap)
		bad = slob_free_object(c, b);
	else
		bad = cache_free_pages(c, b);
	if (bad) {
		kmem_bad_free("kmem_cache_free", b, KMEM_NOT_CACHE_OBJECT, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kmem_cache_free", b);
}

/* The cache's objects live in the shared heap: shrinking it shrinks the heap. */
int __kmem_cache_shrink(struct kmem_cache *c)
{
	return (int)slob_shrink();
}

unsigned long __kmem_reclaim(void)
{
	return slob_shrink();
}

/* ---- setup and accounting ------------------------------------------------ */

void kmem_cache_init(void)
{
	pr_info("SLOB: %zu-byte units, %d size classes, bigblocks from %lu bytes\n", SLOB_UNIT,
		SLOB_CLASSES, PAGE_SIZE - SLOB_UNIT);
}

void kmem_cache_init_late(void)
{
	setup_timer(&slob_shrink_timer, slob_shrink_timer_fn, 0);
	mod_timer(&slob_shrink_timer, round_jiffies_period(jiffies, HZ));
}

void __kmem_get_stats(struct kmem_stats *st)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	st->slab_pages = slob_heap_pages + slob_map_pages;
	st->bytes_used = slob_heap_pages * PAGE_SIZE -
			 (slob_free_units + slob_internal_units) * SLOB_UNIT;
	spin_unlock_irqrestore(&slob_lock, flags);
	st->large_pages = large_blocks_held() + (unsigned long)atomic_long_read(&slob_cache_pages);
}

KMEM_PUBLIC(kmalloc)
KMEM_PUBLIC(kfree)
KMEM_PUBLIC(ksize)
KMEM_PUBLIC(kmem_cache_alloc)
KMEM_PUBLIC(kmem_cache_free)
KMEM_PUBLIC(kmem_cache_shrink)
KMEM_PUBLIC(kmem_reclaim)
KMEM_PUBLIC(kmem_get_stats)
