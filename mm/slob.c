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
 * so kfree() and ksize() need no size.  Requests of about a page or more
 * are "bigblocks": pages straight from the page allocator, remembered on a
 * bigblock list under its own lock.  Caches are thin: they remember the
 * object size, alignment, constructor and destructor, and take objects
 * from the heap without a header (or whole pages for objects of a page or
 * more); the constructor runs on every allocation, the destructor on every
 * free.  A timer shrinks the heap once a second: it walks the free list
 * once and returns every whole free page to the page allocator.
 *
 * Bad frees (pointers the heap never handed out, overwritten headers,
 * double frees) are detected and reported instead of corrupting the heap.
 */
#include <tiny/kernel.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slob.h"

const char kmem_allocator_name[] = "SLOB";

slob_t slob_arena = { .units = 0, .next = &slob_arena };	/* the sentinel */
slob_t *slob_rover = &slob_arena;	/* the next search starts after it */
DEFINE_SPINLOCK(slob_lock);		/* free list, rover, heap counters */
unsigned long slob_heap_pages;		/* pages the heap holds */
unsigned long slob_free_units;		/* units on the free list */

struct bigblock *slob_bigblocks;
DEFINE_SPINLOCK(slob_block_lock);	/* slob_bigblocks, slob_bigblock_pages */
unsigned long slob_bigblock_pages;
atomic_long_t slob_cache_pages;		/* pages of page-sized cache objects */

LIST_HEAD(slob_caches);
DEFINE_SPINLOCK(slob_cache_lock);	/* slob_caches */

static struct timer_list slob_shrink_timer;

/* The canary in a kmalloc() header: tells a live block from anything else. */
static inline slob_t *slob_canary(const slob_t *m)
{
	return (slob_t *)((uintptr_t)m ^ 0x5106b10cUL);
}

/* ---- the heap -------------------------------------------------------- */

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

/* Adds one page from the page allocator to the heap.  slob_lock held;
 * the page allocator's lock nests inside it.  Returns 0 or -1. */
static int slob_grow(gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~__GFP_ZERO, 0);

	if (!page)
		return -1;
	page->flags |= PG_slab;
	slob_heap_pages++;
	kmem_mark_noaccess(page_address(page), PAGE_SIZE);
	slob_link(slob_insert_point(page_address(page), SLOB_PAGE_UNITS), page_address(page),
		  SLOB_PAGE_UNITS);
	return 0;
}

/* A block of size bytes (at most a page) at the given alignment (at most a
 * page); grows the heap if needed.  NULL if out of memory.  Any context. */
static void *slob_alloc(size_t size, gfp_t gfp, size_t align)
{
	int units = SLOB_UNITS(size);
	unsigned long flags;
	slob_t *b;

	spin_lock_irqsave(&slob_lock, flags);
	b = slob_find(units, align);
	if (!b && !slob_grow(gfp))
		b = slob_find(units, align);	/* a whole free page always fits */
	spin_unlock_irqrestore(&slob_lock, flags);
	return b;
}

/*
 * Returns a heap block of size bytes.  obj (objsize bytes) is the part a
 * caller held, for the memory checker; NULL for the allocator's own
 * blocks.  Returns -1, changing nothing, if the block overlaps free memory.
 * Any context; takes slob_lock.
 */
static int slob_free(void *block, size_t size, const void *obj, size_t objsize)
{
	int units = SLOB_UNITS(size);
	unsigned long flags;
	slob_t *cur;

	spin_lock_irqsave(&slob_lock, flags);
	cur = slob_insert_point(block, units);
	if (cur) {
		if (obj)
			kmem_mark_freed(obj, objsize);
		else
			kmem_mark_noaccess(block, size);
		slob_link(cur, block, units);
	}
	spin_unlock_irqrestore(&slob_lock, flags);
	return cur ? 0 : -1;
}

/* Is the heap block at b (size bytes) free already?  Takes slob_lock. */
static int slob_is_free(const void *b, size_t size)
{
	unsigned long flags;
	int is_free;

	spin_lock_irqsave(&slob_lock, flags);
	is_free = slob_insert_point(b, SLOB_UNITS(size)) == NULL;
	spin_unlock_irqrestore(&slob_lock, flags);
	return is_free;
}

/* Is obj inside a heap page, on a unit boundary? */
static int slob_on_heap(const void *obj)
{
	struct page *page = virt_to_page(obj);

	return page && (page->flags & PG_slab) && IS_ALIGNED((uintptr_t)obj, SLOB_UNIT);
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

/* Returns every entirely free heap page to the page allocator; returns how
 * many.  Never grows the heap.  Any context. */
static unsigned long slob_shrink(void)
{
	unsigned long flags, count = 0;
	void **pages;

	spin_lock_irqsave(&slob_lock, flags);
	pages = slob_carve_free_pages(&count);
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
	struct bigblock *bb = slob_alloc(sizeof(*bb), gfp, 0);
	unsigned long flags;

	if (!bb)
		return NULL;
	kmem_mark_internal(bb, sizeof(*bb));
	bb->order = (int)get_order(size);
	bb->pages = (void *)__get_free_pages(gfp, bb->order);
	if (!bb->pages) {
		slob_free(bb, sizeof(*bb), NULL, 0);
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

/* The header of a heap kmalloc() block, or NULL if obj is not one. */
static slob_t *kmalloc_header(const void *obj)
{
	slob_t *m = (slob_t *)obj - 1;

	if (!slob_on_heap(obj) || m->next != slob_canary(m) ||
	    m->units < 2 || m->units > SLOB_PAGE_UNITS)
		return NULL;
	return m;
}

void *kmalloc(size_t size, gfp_t gfp)
{
	slob_t *m;

	if (!size)
		return ZERO_SIZE_PTR;
	if (size >= PAGE_SIZE - SLOB_UNIT)
		m = bigblock_alloc(size, gfp);
	else if ((m = slob_alloc(size + SLOB_UNIT, gfp, 0)) != NULL) {
		kmem_mark_internal(m, SLOB_UNIT);
		m->next = slob_canary(m);
		kmem_mark_allocated(m + 1, (m->units - 1) * SLOB_UNIT, (gfp & __GFP_ZERO) != 0);
		m++;
		if (gfp & __GFP_ZERO)
			memset(m, 0, size);
	}
	kmem_debug_validate("kmalloc", m);
	return m;
}

void kfree(const void *obj)
{
	struct bigblock *bb;
	slob_t *m;

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
		slob_free(bb, sizeof(*bb), NULL, 0);
	} else if ((m = kmalloc_header(obj)) != NULL) {
		m->next = NULL;		/* a second kfree() will not find the canary */
		if (slob_free(m, m->units * SLOB_UNIT, obj, (m->units - 1) * SLOB_UNIT)) {
			kmem_bad_free("kfree", obj, "block overlaps free memory (double free?)",
				      __builtin_return_address(0));
			return;
		}
	} else {
		kmem_bad_free("kfree", obj, "not a live kmalloc() block (freed already, "
			      "never allocated, or its header was overwritten)",
			      __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", obj);
}

size_t ksize(const void *obj)
{
	struct bigblock *bb;
	slob_t *m;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	if (is_bigblock(obj)) {
		bb = bigblock_find(obj, 0);
		return bb ? PAGE_SIZE << bb->order : 0;
	}
	m = kmalloc_header(obj);
	return m ? (m->units - 1) * SLOB_UNIT : 0;
}

/* ---- caches ------------------------------------------------------------- */

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor)
{
	struct kmem_cache *c = NULL;
	unsigned long irqflags;

	if (flags & SLAB_MUST_HWCACHE_ALIGN)
		align = max_t(size_t, align, L1_CACHE_BYTES);
	if (name && size && (align == 0 || is_power_of_2(align)) &&
	    get_order(max(size, align)) < MAX_ORDER)
		c = slob_alloc(sizeof(*c), GFP_KERNEL, 0);
	if (c)
		kmem_mark_internal(c, sizeof(*c));
	if (!c) {
		if (flags & SLAB_PANIC)
			panic("kmem_cache_create: cannot create cache %s", name ? name : "(null)");
		return NULL;
	}
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
	list_add_tail(&c->list, &slob_caches);
	spin_unlock_irqrestore(&slob_cache_lock, irqflags);
	return c;
}

int kmem_cache_destroy(struct kmem_cache *c)
{
	unsigned long flags;
	long inuse = atomic_long_read(&c->inuse);

	if (inuse) {
		pr_err("kmem_cache_destroy: cache %s still has %ld objects in use; not destroyed\n",
		       c->name, inuse);
		return -1;
	}
	spin_lock_irqsave(&slob_cache_lock, flags);
	list_del(&c->list);
	spin_unlock_irqrestore(&slob_cache_lock, flags);
	slob_free(c, sizeof(*c), NULL, 0);
	return 0;
}

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *b;

	if (c->on_heap) {
		b = slob_alloc(c->size, gfp, c->align);
	} else {
		b = (void *)__get_free_pages(gfp, c->order);
		if (b)
			atomic_long_add(1L << c->order, &slob_cache_pages);
	}
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

/* Could b be an object of c that is allocated now? */
static int cache_object_valid(struct kmem_cache *c, const void *b)
{
	struct page *page;

	if (c->on_heap)
		return slob_on_heap(b);
	page = virt_to_page(b);
	return page && IS_ALIGNED((uintptr_t)b, PAGE_SIZE) && (page->flags & PG_head) &&
	       page->order == c->order;
}

void kmem_cache_free(struct kmem_cache *c, void *b)
{
	if (!b)
		return;
	if (!cache_object_valid(c, b) || (c->on_heap && c->dtor && slob_is_free(b, c->size))) {
		kmem_bad_free("kmem_cache_free", b, "not an object of this cache, or freed already",
			      __builtin_return_address(0));
		return;
	}
	if (c->dtor)
		c->dtor(b);
	if (!c->on_heap) {
		kmem_mark_freed(b, c->size);
		free_pages((unsigned long)(uintptr_t)b, c->order);
		atomic_long_add(-(1L << c->order), &slob_cache_pages);
	} else if (slob_free(b, c->size, b, c->size)) {
		kmem_bad_free("kmem_cache_free", b, "double free", __builtin_return_address(0));
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
	st->slab_pages = slob_heap_pages;
	st->bytes_used = slob_heap_pages * PAGE_SIZE - slob_free_units * SLOB_UNIT;
	spin_unlock_irqrestore(&slob_lock, flags);
	spin_lock_irqsave(&slob_block_lock, flags);
	st->large_pages = slob_bigblock_pages;
	spin_unlock_irqrestore(&slob_block_lock, flags);
	st->large_pages += (unsigned long)atomic_long_read(&slob_cache_pages);
}
