/* slob.c - SLOB, the simple list-of-blocks allocator (CONFIG_SLOB).
 *
 * The heap is a K&R-style first-fit allocator.  Memory is counted in units
 * of one block header (a size and a next pointer: 8 bytes on i386).  The
 * free blocks form one circular list in address order, closed by a
 * zero-sized sentinel that no request can fit; a roving pointer remembers
 * where the last search ended, so each search starts there (next fit).  A
 * request takes the front of the first block large enough, splitting off
 * the rest; an aligned request first splits off a head fragment so that
 * the block starts on the boundary.  If no block fits, the heap grows by
 * one page from the page allocator and the search runs again.  A free
 * block is put back in address order and merged with both neighbours.
 * slob_lock, taken with interrupts saved, guards the heap: it is used
 * from interrupt context (the shrinker, GFP_ATOMIC callers).
 *
 * kmalloc() puts a one-unit header (size, canary) in front of heap blocks,
 * so kfree() and ksize() need no size; the allocator's own blocks (cache
 * descriptors, bigblock descriptors) carry a header too, with another
 * canary.  Requests of about a page or more are "bigblocks": pages
 * straight from the page allocator, remembered on a bigblock list under
 * its own lock.  Caches are thin: they remember the object size,
 * alignment, constructor and destructor, and take objects from the heap
 * without a header (or whole pages, owned through struct page, for
 * objects of a page or more); the constructor runs on every allocation,
 * the destructor on every free.  A timer shrinks the heap once a second:
 * it walks the free list once and returns every whole free page to the
 * page allocator.
 *
 * Every heap page has a start map: one bit per unit, set where an
 * allocated block begins (kept in map pages, 1/64 of the heap on i386).
 * It costs nothing per object and lets every free be checked before it
 * changes anything: a cache object must be exactly one live headerless
 * block of the cache's size (a block starts there, none inside, the next
 * one right after it), so an object freed to the wrong cache, a kmalloc()
 * block freed to a cache, a pointer into an object, or a double free is
 * reported instead of corrupting the heap; a kmalloc() header is read only
 * once the map shows a block of two units begins there, and a cache free
 * refuses a block that begins with a header's canary.  Objects of two
 * caches of the same size in units cannot be told apart: such a free is
 * accepted, and only the caches' counts are wrong.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slob.h"
#include "kmem_raw.h"

const char kmem_allocator_name[] = "SLOB";

slob_t slob_arena = { .units = 0, .next = &slob_arena };	/* the sentinel */
slob_t *slob_rover = &slob_arena;	/* the next search starts after it */
DEFINE_SPINLOCK(slob_lock);		/* free list, rover, heap counters */
unsigned long slob_heap_pages;		/* pages the heap holds */
unsigned long slob_free_units;		/* units on the free list */
unsigned long slob_internal_units;	/* units of the allocator's own blocks */

struct bigblock *slob_bigblocks;
DEFINE_SPINLOCK(slob_block_lock);	/* slob_bigblocks, slob_bigblock_pages */
unsigned long slob_bigblock_pages;
atomic_long_t slob_cache_pages;		/* pages of page-sized cache objects */

LIST_HEAD(slob_caches);
DEFINE_SPINLOCK(slob_cache_lock);	/* slob_caches */

static struct timer_list slob_shrink_timer;

/* The canary in the header m of a live block tagged tag (SLOB_TAG_*). */
static inline slob_t *slob_canary(const slob_t *m, uintptr_t tag)
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

/* The start map of heap address b, and b's bit in it. */
static unsigned long *unit_map(const slob_t *b, unsigned int *bit)
{
	*bit = (unsigned int)(((uintptr_t)b & ~PAGE_MASK) / SLOB_UNIT);
	return virt_to_page(b)->slab;
}

static void map_set(const slob_t *b)
{
	unsigned int i;
	unsigned long *map = unit_map(b, &i);

	map[i / SLOB_MAP_BITS] |= 1UL << (i % SLOB_MAP_BITS);
}

static void map_clear(const slob_t *b)
{
	unsigned int i;
	unsigned long *map = unit_map(b, &i);

	map[i / SLOB_MAP_BITS] &= ~(1UL << (i % SLOB_MAP_BITS));
}

static int map_test(const slob_t *b)
{
	unsigned int i;
	unsigned long *map = unit_map(b, &i);

	return (map[i / SLOB_MAP_BITS] >> (i % SLOB_MAP_BITS)) & 1;
}

/* Is b inside a heap page, on a unit boundary? */
static int slob_on_heap(const void *b)
{
	struct page *page = virt_to_page(b);

	return page && (page->flags & PG_slab) && IS_ALIGNED((uintptr_t)b, SLOB_UNIT);
}

int slob_any_start(const slob_t *b, int units)
{
	while (units > 0) {
		unsigned int i, n;
		unsigned long *map;

		if (!slob_on_heap(b))
			return -1;
		map = unit_map(b, &i);
		n = min_t(unsigned int, units, SLOB_PAGE_UNITS - i);
		b += n;
		units -= (int)n;
		while (n) {
			unsigned int k = min_t(unsigned int, n, SLOB_MAP_BITS - i % SLOB_MAP_BITS);
			unsigned long mask = k == SLOB_MAP_BITS ? ~0UL : (1UL << k) - 1;

			if (map[i / SLOB_MAP_BITS] & (mask << (i % SLOB_MAP_BITS)))
				return 1;
			i += k;
			n -= k;
		}
	}
	return 0;
}

/* ---- the heap ---------------------------------------------------------- */

/*
 * Where the block b (units long) belongs in the free list: the free block
 * after which it is linked.  NULL if b overlaps a free block (a double
 * free, or a bad size).  Reads only free-list headers.  slob_lock held.
 */
static slob_t *slob_insert_point(const slob_t *b, int units)
{
	slob_t *cur;

	for (cur = slob_rover; !(b > cur && b < cur->next); cur = cur->next) {
		if (cur == b)
			return NULL;
		if (cur >= cur->next && (b > cur || b < cur->next))
			break;		/* b goes at the wrap-around point */
	}
	if ((b > cur && b < cur + cur->units) ||
	    (b < cur->next && b + units > cur->next))
		return NULL;
	return cur;
}

/* Links b (units long) after the free block cur, merging it with free
 * neighbours.  slob_lock held. */
static void slob_link(slob_t *cur, slob_t *b, int units)
{
	kmem_mark_internal(b, SLOB_UNIT);
	b->units = units;
	if (cur->next != &slob_arena && b + units == cur->next) {
		b->units += cur->next->units;
		b->next = cur->next->next;
	} else {
		b->next = cur->next;
	}
	if (cur != &slob_arena && cur + cur->units == b) {
		cur->units += b->units;
		cur->next = b->next;
	} else {
		cur->next = b;
	}
	slob_rover = cur;
	slob_free_units += units;
}

/*
 * Finds the first free block after the rover that holds units units at
 * the given alignment (0 = unit aligned), unlinks or splits it and returns
 * it, or NULL.  slob_lock held.
 */
static slob_t *slob_find(int units, size_t align)
{
	slob_t *prev = slob_rover, *cur, *aligned;
	int delta;

	for (cur = prev->next;; prev = cur, cur = cur->next) {
		aligned = align ? PTR_ALIGN(cur, align) : cur;
		delta = (int)(aligned - cur);
		if (cur->units >= units + delta) {
			if (delta) {	/* free the head fragment before the boundary */
				kmem_mark_internal(aligned, SLOB_UNIT);
				aligned->units = cur->units - delta;
				aligned->next = cur->next;
				cur->next = aligned;
				cur->units = delta;
				prev = cur;
				cur = aligned;
			}
			if (cur->units == units) {
				prev->next = cur->next;
			} else {
				kmem_mark_internal(cur + units, SLOB_UNIT);
				prev->next = cur + units;
				prev->next->units = cur->units - units;
				prev->next->next = cur->next;
				cur->units = units;
			}
			slob_rover = prev;
			slob_free_units -= units;
			return cur;
		}
		if (cur == slob_rover)
			return NULL;
	}
}

/* Adds one page, with its start map, to the heap.  slob_lock held; the
 * page allocator's lock nests inside it.  Returns 0 or -1. */
static int slob_grow(gfp_t gfp)
{
	unsigned long *map = slob_map_alloc(gfp);
	struct page *page = map ? alloc_pages(gfp & ~__GFP_ZERO, 0) : NULL;

	if (!page) {
		if (map)
			slob_map_free(map);
		return -1;
	}
	page->flags |= PG_slab;
	page->slab = map;
	slob_heap_pages++;
	kmem_mark_noaccess(page_address(page), PAGE_SIZE);
	slob_link(slob_insert_point(page_address(page), SLOB_PAGE_UNITS), page_address(page),
		  SLOB_PAGE_UNITS);
	return 0;
}

/*
 * A block of size bytes (at most a page) at the given alignment (at most a
 * page), growing the heap if needed; its start is marked in the map.  With
 * a tag, the block begins with a header carrying it and the body after the
 * header is returned.  NULL if out of memory.  Any context; takes slob_lock.
 */
static void *slob_alloc(size_t size, gfp_t gfp, size_t align, uintptr_t tag)
{
	int units = SLOB_UNITS(size) + (tag ? 1 : 0);
	unsigned long flags;
	slob_t *b;

	spin_lock_irqsave(&slob_lock, flags);
	b = slob_find(units, align);
	if (!b && !slob_grow(gfp))
		b = slob_find(units, align);	/* a whole free page always fits */
	if (b) {
		map_set(b);
		if (tag) {
			kmem_mark_internal(b, SLOB_UNIT);
			b->next = slob_canary(b, tag);
			if (tag == SLOB_TAG_INTERNAL)
				slob_internal_units += (unsigned long)units;
			b++;
		}
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return b;
}

/*
 * The header of the live block tagged tag whose body is obj, or NULL if
 * obj is no such body.  Reads the unit before obj only once the start map
 * shows that a block of two units or more begins there, so a bad pointer
 * is reported rather than read out of bounds.  *at gets the free block
 * after which the block would be linked.  slob_lock held.
 */
static slob_t *slob_header(const void *obj, uintptr_t tag, slob_t **at)
{
	slob_t *m = (slob_t *)obj - 1;

	if (!slob_on_heap(m) || !slob_on_heap(obj) || !map_test(m) || map_test(obj))
		return NULL;
	*at = slob_insert_point(m, 1);
	if (!*at || (*at)->next == obj)		/* a one-unit block */
		return NULL;
	if (m->next != slob_canary(m, tag) || m->units < 2 || m->units > SLOB_PAGE_UNITS)
		return NULL;
	if (m < (*at)->next && m + m->units > (*at)->next)
		return NULL;			/* the size was overwritten */
	return m;
}

/* Frees the live block tagged tag whose body is obj.  Returns -1, changing
 * nothing, if obj is not one.  Any context; takes slob_lock. */
static int slob_free_tagged(const void *obj, uintptr_t tag)
{
	unsigned long flags;
	slob_t *m, *cur;
	int units = 0;

	spin_lock_irqsave(&slob_lock, flags);
	m = slob_header(obj, tag, &cur);
	if (m) {
		units = m->units;
		m->next = NULL;		/* a second free will not find the canary */
		if (tag == SLOB_TAG_INTERNAL)
			slob_internal_units -= (unsigned long)units;
		map_clear(m);
		if (tag == SLOB_TAG_KMALLOC)
			kmem_mark_freed(obj, (units - 1) * SLOB_UNIT);
		else
			kmem_mark_noaccess(obj, (units - 1) * SLOB_UNIT);
		slob_link(cur, m, units);
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return m ? 0 : -1;
}

/* Does a block (or the heap's end, or the free block next_free) begin at e? */
static int slob_block_ends_at(const slob_t *e, const slob_t *next_free)
{
	return e == next_free || !slob_on_heap(e) || map_test(e);
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

/*
 * Is [b, b + units) exactly one live headerless block: it overlaps no free
 * block, starts at a marked start, no other block starts inside it, one
 * starts right after it (or the heap ends there), and it does not begin
 * with a header's canary?  Returns the free block after which it would be
 * linked, or NULL.  slob_lock held.
 */
static slob_t *slob_object_check(const slob_t *b, int units)
{
	slob_t *cur;

	if (!slob_on_heap(b) || !map_test(b))
		return NULL;
	cur = slob_insert_point(b, units);
	if (!cur || slob_any_start(b + 1, units - 1) != 0 ||
	    !slob_block_ends_at(b + units, cur->next) ||
	    (units >= 2 && slob_looks_like_header(b)))
		return NULL;
	return cur;
}

/* Frees the cache object b (size bytes) after running dtor on it (without
 * slob_lock).  Returns -1, changing nothing and running no dtor, if b is
 * not exactly one live headerless block of that size.  Any context. */
static int slob_free_object(void *b, size_t size, kmem_cache_ctor_t dtor)
{
	int units = SLOB_UNITS(size);
	unsigned long flags;
	slob_t *cur;

	spin_lock_irqsave(&slob_lock, flags);
	cur = slob_object_check(b, units);
	if (cur && dtor) {
		spin_unlock_irqrestore(&slob_lock, flags);
		dtor(b);
		spin_lock_irqsave(&slob_lock, flags);
		cur = slob_insert_point(b, units);
	}
	if (cur) {
		map_clear(b);
		kmem_mark_freed(b, size);
		slob_link(cur, b, units);
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return cur ? 0 : -1;
}

/*
 * The shrinker's pass: takes every whole page-aligned page out of the free
 * blocks (keeping the fragments before and after it on the list) and
 * chains the pages through their first word.  Returns the chain.
 * slob_lock held.
 */
static void **slob_carve_free_pages(unsigned long *count)
{
	slob_t *prev = &slob_arena, *cur = slob_arena.next, *next;
	void **pages = NULL;

	while (cur != &slob_arena) {
		uintptr_t start = (uintptr_t)cur, end = start + cur->units * SLOB_UNIT;
		uintptr_t p = ALIGN(start, PAGE_SIZE);

		if (p + PAGE_SIZE > end) {
			prev = cur;
			cur = cur->next;
			continue;
		}
		next = cur->next;
		if (p > start) {	/* keep the head fragment */
			cur->units = (int)((p - start) / SLOB_UNIT);
			prev = cur;
		}
		if (p + PAGE_SIZE < end) {	/* keep the tail and look in it again */
			cur = (slob_t *)(p + PAGE_SIZE);
			kmem_mark_internal(cur, SLOB_UNIT);
			cur->units = (int)((end - (p + PAGE_SIZE)) / SLOB_UNIT);
			cur->next = next;
		} else {
			cur = next;
		}
		prev->next = cur;
		kmem_mark_internal((void *)p, sizeof(void *));
		*(void **)p = pages;
		pages = (void **)p;
		(*count)++;
	}
	slob_rover = &slob_arena;
	slob_free_units -= *count * SLOB_PAGE_UNITS;
	slob_heap_pages -= *count;
	return pages;
}

/* Returns every entirely free heap page, and the map pages left empty, to
 * the page allocator; returns how many pages.  Never grows the heap.  Any
 * context; takes slob_lock. */
static unsigned long slob_shrink(void)
{
	unsigned long flags, count = 0, map_pages;
	void **pages, **p;

	spin_lock_irqsave(&slob_lock, flags);
	map_pages = slob_map_pages;
	pages = slob_carve_free_pages(&count);
	for (p = pages; p; p = *p) {
		slob_map_free(virt_to_page(p)->slab);
		virt_to_page(p)->slab = NULL;
	}
	count += map_pages - slob_map_pages;
	spin_unlock_irqrestore(&slob_lock, flags);
	while (pages) {
		void **next = *pages;

		virt_to_page(pages)->flags &= ~PG_slab;
		free_page((unsigned long)(uintptr_t)pages);
		pages = next;
	}
	return count;
}

static void slob_shrink_timer_fn(unsigned long data)
{
	slob_shrink();
	mod_timer(&slob_shrink_timer, round_jiffies_period(jiffies, HZ));
}

/* ---- kmalloc ------------------------------------------------------------ */

static void *bigblock_alloc(size_t size, gfp_t gfp)
{
	struct bigblock *bb = slob_alloc(sizeof(*bb), gfp, 0, SLOB_TAG_INTERNAL);
	unsigned long flags;

	if (!bb)
		return NULL;
	kmem_mark_internal(bb, sizeof(*bb));
	bb->order = (int)get_order(size);
	bb->pages = (void *)__get_free_pages(gfp, bb->order);
	if (!bb->pages) {
		slob_free_tagged(bb, SLOB_TAG_INTERNAL);
		return NULL;
	}
	virt_to_page(bb->pages)->flags |= PG_bigblock;
	kmem_mark_allocated(bb->pages, PAGE_SIZE << bb->order, (gfp & __GFP_ZERO) != 0);
	spin_lock_irqsave(&slob_block_lock, flags);
	bb->next = slob_bigblocks;
	slob_bigblocks = bb;
	slob_bigblock_pages += 1UL << bb->order;
	spin_unlock_irqrestore(&slob_block_lock, flags);
	return bb->pages;
}

/* Finds the bigblock starting at obj; with unlink, takes it off the list.
 * NULL if there is none.  Takes slob_block_lock. */
static struct bigblock *bigblock_find(const void *obj, int unlink)
{
	struct bigblock **p, *bb = NULL;
	unsigned long flags;

	spin_lock_irqsave(&slob_block_lock, flags);
	for (p = &slob_bigblocks; *p; p = &(*p)->next) {
		if ((*p)->pages != obj)
			continue;
		bb = *p;
		if (unlink) {
			*p = bb->next;
			slob_bigblock_pages -= 1UL << bb->order;
		}
		break;
	}
	spin_unlock_irqrestore(&slob_block_lock, flags);
	return bb;
}

static int is_bigblock(const void *obj)
{
	struct page *page = virt_to_page(obj);

	return page && (page->flags & PG_bigblock) && IS_ALIGNED((uintptr_t)obj, PAGE_SIZE);
}

/* kmalloc()'s usable size of obj, or 0 if obj is not a live kmalloc() heap
 * block.  Takes slob_lock. */
static size_t kmalloc_heap_size(const void *obj)
{
	unsigned long flags;
	slob_t *m, *cur;
	size_t size;

	spin_lock_irqsave(&slob_lock, flags);
	m = slob_header(obj, SLOB_TAG_KMALLOC, &cur);
	size = m ? (size_t)(m->units - 1) * SLOB_UNIT : 0;
	spin_unlock_irqrestore(&slob_lock, flags);
	return size;
}

void *kmalloc(size_t size, gfp_t gfp)
{
	slob_t *m;
	size_t usable;

	if (!size)
		return ZERO_SIZE_PTR;
	if (should_failslab("kmalloc", size, gfp))
		return NULL;
	if (size >= PAGE_SIZE - SLOB_UNIT)
		return bigblock_alloc(size, gfp);
	m = slob_alloc(size, gfp, 0, SLOB_TAG_KMALLOC);
	if (m) {
		usable = (size_t)(m[-1].units - 1) * SLOB_UNIT;
		kmem_mark_allocated(m, usable, (gfp & __GFP_ZERO) != 0);
		if (gfp & __GFP_ZERO)
			memset(m, 0, usable);	/* ksize() bytes: callers may use them */
	}
	kmem_debug_validate("kmalloc", m);
	return m;
}

static const char kfree_not_live[] = "not a live kmalloc() block (freed already, never "
				     "allocated, or its header was overwritten)";

void kfree(const void *obj)
{
	struct bigblock *bb;

	if (ZERO_OR_NULL_PTR(obj))
		return;
	if (is_bigblock(obj)) {
		bb = bigblock_find(obj, 1);
		if (!bb) {
			kmem_bad_free("kfree", obj, "not on the bigblock list", __builtin_return_address(0));
			return;
		}
		virt_to_page(obj)->flags &= ~PG_bigblock;
		kmem_mark_freed(obj, PAGE_SIZE << bb->order);
		free_pages((unsigned long)(uintptr_t)obj, bb->order);
		slob_free_tagged(bb, SLOB_TAG_INTERNAL);
	} else if (slob_free_tagged(obj, SLOB_TAG_KMALLOC)) {
		kmem_bad_free("kfree", obj, kfree_not_live, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", obj);
}

size_t ksize(const void *obj)
{
	struct bigblock *bb;
	size_t size;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	if (is_bigblock(obj)) {
		bb = bigblock_find(obj, 0);
		size = bb ? PAGE_SIZE << bb->order : 0;
	} else {
		size = kmalloc_heap_size(obj);
	}
	if (!size)
		kmem_bad_free("ksize", obj, kfree_not_live, __builtin_return_address(0));
	return size;
}

/* ---- caches ------------------------------------------------------------- */

/* Is c a cache that kmem_cache_create() made and nobody destroyed?  O(1):
 * the header's canary, cleared when the cache is destroyed. */
static int cache_is_live(const struct kmem_cache *c)
{
	const slob_t *m = (const slob_t *)c - 1;

	return c && slob_on_heap(m) && map_test(m) && m->next == slob_canary(m, SLOB_TAG_INTERNAL);
}

/* The live cache named name, or NULL.  slob_cache_lock held. */
static struct kmem_cache *cache_find(const char *name)
{
	struct kmem_cache *c;

	list_for_each_entry(c, &slob_caches, list)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Is c on the cache list?  Takes slob_cache_lock. */
static int cache_listed(const struct kmem_cache *c)
{
	struct kmem_cache *cur;
	unsigned long flags;
	int found = 0;

	spin_lock_irqsave(&slob_cache_lock, flags);
	list_for_each_entry(cur, &slob_caches, list)
		found |= cur == c;
	spin_unlock_irqrestore(&slob_cache_lock, flags);
	return found;
}

/* Fills in a new cache and lists it; -1 (c unlisted) if the name is taken. */
static int cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align,
		       unsigned long flags, kmem_cache_ctor_t ctor, kmem_cache_ctor_t dtor)
{
	unsigned long irqflags;
	int taken;

	kmem_mark_internal(c, sizeof(*c));
	c->name = name;
	c->size = (unsigned int)size;
	c->align = align > SLOB_UNIT ? (unsigned int)align : 0;
	c->on_heap = size < PAGE_SIZE && align <= PAGE_SIZE;
	c->order = get_order(max(size, align));
	c->flags = flags;
	c->ctor = ctor;
	c->dtor = dtor;
	atomic_long_set(&c->inuse, 0);
	spin_lock_irqsave(&slob_cache_lock, irqflags);
	taken = cache_find(name) != NULL;
	if (!taken)
		list_add_tail(&c->list, &slob_caches);
	spin_unlock_irqrestore(&slob_cache_lock, irqflags);
	if (taken)
		pr_err("kmem_cache_create: a cache named %s exists already; not created\n", name);
	return taken ? -1 : 0;
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor)
{
	struct kmem_cache *c = NULL;

	if (flags & SLAB_MUST_HWCACHE_ALIGN)
		align = max_t(size_t, align, L1_CACHE_BYTES);
	if (name && size && (align == 0 || is_power_of_2(align)) &&
	    get_order(max(size, align)) < MAX_ORDER && !should_failslab("kmem_cache", sizeof(*c), GFP_KERNEL))
		c = slob_alloc(sizeof(*c), GFP_KERNEL, 0, SLOB_TAG_INTERNAL);
	if (c && cache_setup(c, name, size, align, flags, ctor, dtor)) {
		slob_free_tagged(c, SLOB_TAG_INTERNAL);
		c = NULL;
	}
	if (!c && (flags & SLAB_PANIC))
		panic("kmem_cache_create: cannot create cache %s", name ? name : "(null)");
	return c;
}

int kmem_cache_destroy(struct kmem_cache *c)
{
	unsigned long flags;
	long inuse;

	if (!cache_listed(c)) {
		kmem_bad_free("kmem_cache_destroy", c, "not a live cache (destroyed already?)",
			      __builtin_return_address(0));
		return -1;
	}
	inuse = atomic_long_read(&c->inuse);
	if (inuse) {
		pr_err("kmem_cache_destroy: cache %s still has %ld objects in use; not destroyed\n",
		       c->name, inuse);
		return -1;
	}
	spin_lock_irqsave(&slob_cache_lock, flags);
	list_del(&c->list);
	spin_unlock_irqrestore(&slob_cache_lock, flags);
	slob_free_tagged(c, SLOB_TAG_INTERNAL);
	return 0;
}

/* One page-sized object (whole pages) for c, owned by c.  NULL if none. */
static void *cache_alloc_pages(struct kmem_cache *c, gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~__GFP_ZERO, c->order);

	if (!page)
		return NULL;
	page->slab_cache = c;
	atomic_long_add(1L << c->order, &slob_cache_pages);
	return page_address(page);
}

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *b;

	if (!cache_is_live(c)) {
		kmem_bad_free("kmem_cache_alloc", c, "not a live cache", __builtin_return_address(0));
		return NULL;
	}
	if (should_failslab(c->name, c->size, gfp))
		return NULL;
	if (c->on_heap)
		b = slob_alloc(c->size, gfp, c->align, 0);
	else
		b = cache_alloc_pages(c, gfp);
	if (!b)
		return NULL;
	kmem_mark_allocated(b, c->size, (gfp & __GFP_ZERO) || c->ctor);
	if (gfp & __GFP_ZERO)
		memset(b, 0, c->size);
	if (c->ctor)
		c->ctor(b);
	atomic_long_inc(&c->inuse);
	kmem_debug_validate("kmem_cache_alloc", b);
	return b;
}

/* Is b a page-sized object of c that is allocated now? */
static int cache_owns_pages(struct kmem_cache *c, const void *b)
{
	struct page *page = virt_to_page(b);

	return page && IS_ALIGNED((uintptr_t)b, PAGE_SIZE) &&
	       (page->flags & (PG_head | PG_slab | PG_bigblock)) == PG_head &&
	       page->order == c->order && page->slab_cache == c;
}

/* Frees the page-sized object b of c; -1, changing nothing, if it is not
 * one.  Runs the destructor only once b is known good. */
static int cache_free_pages(struct kmem_cache *c, void *b)
{
	if (!cache_owns_pages(c, b))
		return -1;
	if (c->dtor)
		c->dtor(b);
	virt_to_page(b)->slab_cache = NULL;
	kmem_mark_freed(b, c->size);
	free_pages((unsigned long)(uintptr_t)b, c->order);
	atomic_long_add(-(1L << c->order), &slob_cache_pages);
	return 0;
}

void kmem_cache_free(struct kmem_cache *c, void *b)
{
	int bad;

	if (!b)
		return;
	if (!cache_is_live(c)) {
		kmem_bad_free("kmem_cache_free", c, "not a live cache", __builtin_return_address(0));
		return;
	}
	if (c->on_heap)
		bad = slob_free_object(b, c->size, c->dtor);
	else
		bad = cache_free_pages(c, b);
	if (bad) {
		kmem_bad_free("kmem_cache_free", b, "not a live object of this cache (freed already, "
			      "another cache's, or a kmalloc() block)", __builtin_return_address(0));
		return;
	}
	atomic_long_dec(&c->inuse);
	kmem_debug_validate("kmem_cache_free", b);
}

size_t kmem_cache_size(struct kmem_cache *c)
{
	return c->size;
}

const char *kmem_cache_name(struct kmem_cache *c)
{
	return c->name;
}

/* The cache's objects live in the shared heap: shrinking it shrinks the heap. */
int kmem_cache_shrink(struct kmem_cache *c)
{
	return (int)slob_shrink();
}

unsigned long kmem_reclaim(void)
{
	return slob_shrink();
}

/* ---- setup and accounting ------------------------------------------------ */

void kmem_cache_init(void)
{
	pr_info("SLOB: %zu-byte units, bigblocks from %lu bytes\n", SLOB_UNIT,
		PAGE_SIZE - SLOB_UNIT);
}

void kmem_cache_init_late(void)
{
	setup_timer(&slob_shrink_timer, slob_shrink_timer_fn, 0);
	mod_timer(&slob_shrink_timer, round_jiffies_period(jiffies, HZ));
}

void kmem_get_stats(struct kmem_stats *st)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	st->slab_pages = slob_heap_pages + slob_map_pages;
	st->bytes_used = slob_heap_pages * PAGE_SIZE -
			 (slob_free_units + slob_internal_units) * SLOB_UNIT;
	spin_unlock_irqrestore(&slob_lock, flags);
	spin_lock_irqsave(&slob_block_lock, flags);
	st->large_pages = slob_bigblock_pages;
	spin_unlock_irqrestore(&slob_block_lock, flags);
	st->large_pages += (unsigned long)atomic_long_read(&slob_cache_pages);
}
