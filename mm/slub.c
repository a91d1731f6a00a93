/* slub.c - SLUB, the unqueued slab allocator (CONFIG_SLUB): its bottom
 * layer, the slabs and the partial lists, which its three per-CPU layers
 * share.  SLUB's files read downward: mm/slub_caches.c (the entry points
 * and the caches: create, merge, destroy, shrink, accounting) calls its
 * per-CPU layer, mm/slub_sheaves.c (sheaves and barns, Linux 7.0),
 * mm/slub_cpu.c (CPU slabs, Linux 2.6.22 to 6.x) or mm/slub_tiny.c (none:
 * SLUB_TINY), with the per-CPU data of the first two in slub_percpu.c;
 * each of them calls this file, which calls the page allocator.  No call
 * goes back up (docs/design.md); the reports and the validator are in
 * slub_info.c.
 *
 * No queues.  A slab is 2^order pages of objects of one size and nothing
 * else: no descriptor, no colour.  A free object holds the address of the
 * next free one (its free pointer, at c->offset: mid-object as in Linux,
 * or after the object when a constructor's or destructor's state must
 * survive).  The slab's first struct page holds its state in one word:
 * the index of the first object of its free list, the objects out of
 * that list, and whether a CPU owns it (frozen).  Every page of a slab
 * points to the cache, and PG_min_order tells which of the cache's two
 * orders it has, so a free finds the slab's first byte, its size and the
 * object's index from the pointer, the flags word and the cache alone.
 *
 * The node.  The cache keeps one list of partial slabs (some objects
 * free, no CPU owning them) under list_lock, and keeps min_partial empty
 * slabs on it before it gives empty ones back.  Full slabs are on no list:
 * a free finds its slab from the pointer.  The slab, page and object
 * counts are counters (nr_slabs, nr_pages, total_objects); the objects in
 * use are counted per handle (per-CPU counts, or a count under the
 * target's list_lock), so that each cache's destroy knows its own.
 *
 * Slab order, as Linux chooses it (calculate_order()): the smallest
 * order that holds slub_min_objects objects (4 * (fls(CPUs) + 1), CPUs
 * being num_possible_cpus(), the firmware's list: Linux's nr_cpu_ids)
 * wasting at most 1/16 of the slab, then 1/8, then 1/4, then fewer
 * objects, up to slub_max_order (3; 1 for SLUB_TINY); both are boot
 * options.  So a machine of one CPU gets smaller slabs than one of eight,
 * as under Linux, and keeps fewer free objects in its CPU slabs.  The
 * fallback order is the smallest that holds one object: a slab is tried
 * at the preferred order without a warning, then at the fallback, so a
 * fragmented page allocator slows a cache down instead of failing it.
 *
 * Lock order:
 *   a cache's list_lock, one at a time (with interrupts off)
 *     the page allocator's zone_lock (a slab's pages get their flags)
 * Slabs are allocated and freed with no list_lock held.
 *
 * list_lock: the cache's partial list and nr_partial, and (SLUB_TINY) every
 * slab state and inuse.  With per-CPU slabs a slab's state changes by
 * compare-and-exchange, under list_lock only when the slab goes on or
 * off the partial list (slub_cpu.c says when).
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/string.h>
#include "slub.h"

atomic_long_t slub_slab_pages;

unsigned int slub_max_order = ~0u;		/* ~0u: the mode's default */
unsigned int slub_min_objects;			/* 0: from the CPU count */

/* ---- boot options -------------------------------------------------------------- */

static int slub_max_order_setup(const char *val)
{
	unsigned long v;
	int r = parse_ulong(val, 0, MAX_ORDER - 1, &v);

	if (!r)
		slub_max_order = (unsigned int)v;
	return r;
}
kernel_param("slub_max_order", slub_max_order_setup,
	     "=N: largest preferred slab order (SLUB: default 3, SLUB_TINY: 1)");

static int slub_min_objects_setup(const char *val)
{
	unsigned long v;
	int r = parse_ulong(val, 1, MAX_OBJS_PER_SLAB, &v);

	if (!r)
		slub_min_objects = (unsigned int)v;
	return r;
}
kernel_param("slub_min_objects", slub_min_objects_setup,
	     "=N: objects a slab should hold (default 4 * (fls(CPUs) + 1))");

/* ---- layout ------------------------------------------------------------------- */

/* Objects of size bytes in a slab of 2^order pages. */
static unsigned int order_objects(unsigned int order, size_t size)
{
	return (unsigned int)min_t(size_t, (PAGE_SIZE << order) / size, MAX_OBJS_PER_SLAB);
}

/* The smallest order from the one that holds min_objects up to max_order
 * whose leftover is at most 1/fract_leftover of the slab; max_order + 1
 * if none. */
static unsigned int calc_slab_order(size_t size, unsigned int min_objects,
				    unsigned int max_order, unsigned int fract_leftover)
{
	unsigned int order;

	for (order = get_order(min_objects * size); order <= max_order; order++) {
		size_t bytes = PAGE_SIZE << order;

		if (bytes / size > MAX_OBJS_PER_SLAB)
			return order ? order - 1 : 0;
		if (bytes % size <= bytes / fract_leftover)
			break;
	}
	return order;
}

static unsigned int fls_uint(unsigned int x)
{
	return x ? 32 - (unsigned int)__builtin_clz(x) : 0;
}

/* The objects a slab should hold: slub_min_objects=, or Linux's default
 * for the machine's CPUs. */
unsigned int min_objects_wanted(void)
{
	return slub_min_objects ? slub_min_objects : 4 * (fls_uint(num_possible_cpus()) + 1);
}

/* Linux's calculate_order(): the preferred order of objects of size bytes,
 * or MAX_ORDER if none holds one. */
static unsigned int calculate_order(size_t size)
{
	unsigned int max_order = min_t(unsigned int, slub_max_order, MAX_ORDER - 1);
	unsigned int min_objects = min_objects_wanted(), fraction, order;

	min_objects = min(min_objects, order_objects(max_order, size));
	for (; min_objects > 1; min_objects--)
		for (fraction = 16; fraction >= 4; fraction /= 2) {
			order = calc_slab_order(size, min_objects, max_order, fraction);
			if (order <= max_order)
				return order;
		}
	order = calc_slab_order(size, 1, max_order, 1);
	if (order <= max_order)
		return order;
	return calc_slab_order(size, 1, MAX_ORDER - 1, 1);
}

static void set_slab_order(struct slub_order *o, unsigned int order, size_t size)
{
	o->order = order;
	o->objects = order_objects(order, size);
	o->offset_mask = (PAGE_SIZE << order) - 1;
	o->objs_bytes = (size_t)o->objects * size;
}

/* Alignment of a cache's objects: as asked, a cache line for
 * SLAB_HWCACHE_ALIGN (halved while two objects fit one), a word at least. */
static size_t slub_align(unsigned long flags, size_t align, size_t size)
{
	size_t ralign = sizeof(void *);

	if (flags & SLAB_HWCACHE_ALIGN)
		for (ralign = L1_CACHE_BYTES; size <= ralign / 2 && ralign / 2 >= sizeof(void *);)
			ralign /= 2;
	return ALIGN(max(align, ralign), sizeof(void *));
}

/* The free pointer's place, the stride, the alignment and the two slab
 * orders of c (its common part filled in).  -1 if no slab holds one. */
int calculate_sizes(struct kmem_cache *c)
{
	const struct kmem_cache_common *cc = &c->common;
	size_t size = ALIGN(cc->object_size, sizeof(void *));
	unsigned int order;

	if (cc->ctor || cc->dtor) {	/* the constructed state stays whole */
		c->offset = size;
		size += sizeof(void *);
	} else {
		c->offset = ALIGN_DOWN(cc->object_size / 2, sizeof(void *));
	}
	c->align = slub_align(cc->flags, cc->align, cc->object_size);
	c->size = ALIGN(size, c->align);
	c->reciprocal_size = reciprocal_of(c->size);
	order = calculate_order(c->size);
	if (order >= MAX_ORDER || !order_objects(order, c->size))
		return -1;
	set_slab_order(&c->oo[0], order, c->size);
	set_slab_order(&c->oo[1], get_order(c->size), c->size);
	return 0;
}

unsigned int slab_objects(const struct kmem_cache *c, const struct page *page)
{
	return order_of(c, READ_ONCE(page->flags))->objects;
}

/* ---- slabs ------------------------------------------------------------------------- */

/* Points every page of the slab at c and gives them its flags (flags 0:
 * takes them back).  The flags change under zone_lock, set after the
 * pointer and cleared before it is, so a reader without a lock that sees
 * PG_slab reads the slab's cache or NULL. */
static void map_slab_pages(struct page *page, unsigned int order, struct kmem_cache *c,
			   unsigned int flags)
{
	unsigned long i, n = 1UL << order;

	if (!c)
		page_update_flags(page, n, 0, PG_slab | PG_kmalloc | PG_internal | PG_min_order);
	for (i = 0; i < n; i++)
		WRITE_ONCE(page[i].slab_cache, c);
	if (c)
		page_update_flags(page, n, flags, 0);
}

/* Constructs the objects of a new slab, then chains them in address
 * order: a store and an add for each (most slabs are made as the heap
 * grows, so this runs for about every allocation). */
static void init_objects(struct kmem_cache *c, uintptr_t base, unsigned int objects)
{
	size_t size = c->size, offset = c->offset;
	char *obj, *last = (char *)base + (objects - 1) * size;

	for (obj = (char *)base; c->common.ctor && obj <= last; obj += size) {
		kmem_mark_internal(obj, c->common.object_size);
		c->common.ctor(obj);
		kmem_mark_noaccess(obj, c->common.object_size);
	}
	for (obj = (char *)base; obj < last; obj += size) {
		kmem_mark_internal(obj + offset, sizeof(void *));
		*(void **)(obj + offset) = obj + size;
	}
	kmem_mark_internal(last + offset, sizeof(void *));
	*(void **)(last + offset) = NULL;
}

struct page *new_slab(struct kmem_cache *c, gfp_t flags)
{
	unsigned int which = 0, has_fallback = c->oo[1].order < c->oo[0].order;
	gfp_t gfp = flags & ~__GFP_ZERO;
	const struct slub_order *o;
	struct page *page;

	assert_spin_not_held(&c->list_lock);
	call_path(CALL_PATH_NEW_SLAB);
	page = alloc_pages(gfp | (has_fallback ? __GFP_NOWARN : 0), c->oo[0].order);
	if (!page && has_fallback) {
		which = 1;
		page = alloc_pages(gfp, c->oo[1].order);
	}
	if (!page)
		return NULL;
	o = &c->oo[which];
	kmem_mark_noaccess((void *)slab_base(page), PAGE_SIZE << o->order);
	init_objects(c, slab_base(page), o->objects);
	slab_state_set(page, make_state(0, 0, 0));
	map_slab_pages(page, o->order, c, PG_slab | c->page_flags | (which ? PG_min_order : 0));
	atomic_long_inc(&c->nr_slabs);
	atomic_long_add(1L << o->order, &c->nr_pages);
	atomic_long_add(1L << o->order, &slub_slab_pages);
	atomic_long_add((long)o->objects, &c->total_objects);
	return page;
}

void discard_slab(struct kmem_cache *c, struct page *page)
{
	const struct slub_order *o = order_of(c, READ_ONCE(page->flags));
	uintptr_t base = slab_base(page);
	unsigned int i;

	assert_spin_not_held(&c->list_lock);
	call_path(CALL_PATH_SLAB_FREED);
	/* back to the page allocator as it gave them: ours to touch */
	kmem_mark_internal((void *)base, PAGE_SIZE << o->order);
	for (i = 0; c->common.dtor && i < o->objects; i++)
		c->common.dtor(slab_obj(c, base, i));
	map_slab_pages(page, o->order, NULL, 0);
	atomic_long_dec(&c->nr_slabs);
	atomic_long_add(-(1L << o->order), &c->nr_pages);
	atomic_long_add(-(1L << o->order), &slub_slab_pages);
	atomic_long_add(-(long)o->objects, &c->total_objects);
	__free_pages(page, o->order);
}

void add_partial(struct kmem_cache *c, struct page *page, int tail)
{
	assert_spin_held(&c->list_lock);
	if (tail)
		list_add_tail(&page->lru, &c->partial);
	else
		list_add(&page->lru, &c->partial);
	WRITE_ONCE(c->nr_partial, c->nr_partial + 1);
}

void remove_partial(struct kmem_cache *c, struct page *page)
{
	assert_spin_held(&c->list_lock);
	list_del(&page->lru);
	WRITE_ONCE(c->nr_partial, c->nr_partial - 1);
}

/* Gives every empty slab on c's partial list back; returns the pages. */
unsigned long discard_empty_partials(struct kmem_cache *c)
{
	struct page *page, *n;
	unsigned long save, pages = 0;
	LIST_HEAD(empty);

	spin_lock_irqsave(&c->list_lock, save);
	list_for_each_entry_safe(page, n, &c->partial, lru)
		if (!state_inuse(slab_state(page))) {
			remove_partial(c, page);
			list_add(&page->lru, &empty);
		}
	spin_unlock_irqrestore(&c->list_lock, save);
	list_for_each_entry_safe(page, n, &empty, lru) {
		pages += 1UL << order_of(c, READ_ONCE(page->flags))->order;
		discard_slab(c, page);
	}
	return pages;
}
