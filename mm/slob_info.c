/* slob_info.c - SLOB's heap report and its validator.
 *
 * Kept apart from slob.c so that the allocator proper can be measured on
 * its own (size mm/slob.o) against the 2005 SLOB, which had neither.
 */
#include <tiny/kernel.h>
#include "slob.h"

/* ---- report ------------------------------------------------------------ */

struct heap_walk {
	unsigned long blocks, free_bytes, largest;
};

static void walk_free_list(struct heap_walk *w)
{
	unsigned long flags;
	slob_t *cur;

	w->blocks = w->free_bytes = w->largest = 0;
	spin_lock_irqsave(&slob_lock, flags);
	for (cur = slob_arena.next; cur != &slob_arena; cur = cur->next) {
		unsigned long bytes = (unsigned long)cur->units * SLOB_UNIT;

		w->blocks++;
		w->free_bytes += bytes;
		w->largest = max(w->largest, bytes);
	}
	spin_unlock_irqrestore(&slob_lock, flags);
}

void kmem_report(void)
{
	struct kmem_stats st;
	struct heap_walk w;
	struct kmem_cache *c;
	unsigned long flags;

	kmem_get_stats(&st);
	walk_free_list(&w);
	printk("SLOB heap: %lu pages (%lu kB) and %lu of start maps, %lu bytes in use, %lu bytes "
	       "free in %lu blocks (largest %lu)\n", slob_heap_pages,
	       slob_heap_pages * (PAGE_SIZE / 1024), slob_map_pages, st.bytes_used,
	       w.free_bytes, w.blocks, w.largest);
	printk("SLOB large blocks: %lu pages (%lu kB)\n", st.large_pages,
	       st.large_pages * (PAGE_SIZE / 1024));
	printk("# name                 objsize  align  inuse\n");
	spin_lock_irqsave(&slob_cache_lock, flags);
	list_for_each_entry(c, &slob_caches, list)
		printk("%-22s %7u %6u %6ld\n", c->name, c->size, c->align,
		       atomic_long_read(&c->inuse));
	spin_unlock_irqrestore(&slob_cache_lock, flags);
}

/* ---- validator ------------------------------------------------------------ */

#define bad(...) do { errors++; pr_err("slob: validate: " __VA_ARGS__); } while (0)

/* Is every page under [b, b + bytes) a heap page? */
static int block_on_heap(const slob_t *b, unsigned long bytes)
{
	uintptr_t p = ALIGN_DOWN((uintptr_t)b, PAGE_SIZE), end = (uintptr_t)b + bytes;

	for (; p < end; p += PAGE_SIZE) {
		struct page *page = virt_to_page((void *)p);

		if (!page || !(page->flags & PG_slab))
			return 0;
	}
	return 1;
}

/* Checks the free list: address order with one wrap, no overlap, no
 * unmerged neighbours, blocks inside heap pages and marked free in the
 * start maps, counters.  slob_lock held. */
static int validate_heap(void)
{
	unsigned long n = 0, units = 0, limit = slob_heap_pages * SLOB_PAGE_UNITS + 1;
	const slob_t *prev = &slob_arena, *cur;
	int errors = 0, descents = 0, rover_seen = slob_rover == &slob_arena;

	for (cur = slob_arena.next; cur != &slob_arena; prev = cur, cur = cur->next) {
		unsigned long bytes = (unsigned long)cur->units * SLOB_UNIT;

		if (++n > limit || cur->units <= 0 || !block_on_heap(cur, bytes)) {
			bad("free block %p (%d units) is outside the heap or the list is corrupt\n",
			    (const void *)cur, cur->units);
			return errors;
		}
		if (slob_any_start(cur, cur->units))
			bad("free block %p (%d units) holds the start of an allocated block\n",
			    (const void *)cur, cur->units);
		if (cur < prev)
			descents++;
		else if (prev != &slob_arena && cur < prev + prev->units)
			bad("free blocks %p and %p overlap\n", (const void *)prev, (const void *)cur);
		else if (prev != &slob_arena && cur == prev + prev->units)
			bad("free blocks %p and %p are adjacent but not merged\n",
			    (const void *)prev, (const void *)cur);
		rover_seen |= cur == slob_rover;
		units += (unsigned long)cur->units;
	}
	if (prev > &slob_arena)
		descents++;
	if (descents != (n ? 1 : 0))
		bad("free list is not in address order (%d wrap-arounds)\n", descents);
	if (!rover_seen)
		bad("roving pointer %p is not on the free list\n", (const void *)slob_rover);
	if (units != slob_free_units)
		bad("free list holds %lu units, counter says %lu\n", units, slob_free_units);
	if (units > slob_heap_pages * SLOB_PAGE_UNITS)
		bad("%lu free units in a heap of %lu pages\n", units, slob_heap_pages);
	return errors;
}

/* Checks the bigblock list against page flags and its counter.
 * slob_block_lock held. */
static int validate_bigblocks(void)
{
	unsigned long pages = 0, n = 0;
	const struct bigblock *bb;
	int errors = 0;

	for (bb = slob_bigblocks; bb; bb = bb->next) {
		struct page *page = virt_to_page(bb->pages);

		if (++n > slob_bigblock_pages + 1 || !page) {
			bad("bigblock list is corrupt at %p\n", (const void *)bb);
			return errors;
		}
		if ((page->flags & (PG_bigblock | PG_head)) != (PG_bigblock | PG_head) ||
		    page->order != (unsigned int)bb->order)
			bad("bigblock %p: page flags %#x order %u, expected order %d\n",
			    bb->pages, page->flags, page->order, bb->order);
		pages += 1UL << bb->order;
	}
	if (pages != slob_bigblock_pages)
		bad("bigblocks hold %lu pages, counter says %lu\n", pages, slob_bigblock_pages);
	return errors;
}

int kmem_validate(void)
{
	unsigned long flags;
	int errors;

	spin_lock_irqsave(&slob_lock, flags);
	errors = validate_heap();
	spin_unlock_irqrestore(&slob_lock, flags);
	spin_lock_irqsave(&slob_block_lock, flags);
	errors += validate_bigblocks();
	spin_unlock_irqrestore(&slob_block_lock, flags);
	return errors;
}
