/* slob_fast_info.c - the segregated heap's part of SLOB's report,
 * validator and heap map (see slob_fast.c for the maps and lists they
 * check). */
#include <tiny/kernel.h>
#include "slob_fast.h"

struct heap_walk {
	unsigned long blocks, free_bytes, largest;
};

/* Counts the listed free blocks.  Bounded by the heap: report only.
 * slob_lock held. */
static void walk_free_lists(struct heap_walk *w)
{
	const slob_t *b;
	int c;

	assert_spin_held(&slob_lock);
	w->blocks = w->free_bytes = w->largest = 0;
	for (c = 0; c < SLOB_CLASSES; c++) {
		for (b = slob_free_lists[c]; b; b = b->next) {
			unsigned long bytes = (unsigned long)b->units * SLOB_UNIT;

			w->blocks++;
			w->free_bytes += bytes;
			w->largest = max(w->largest, bytes);
		}
	}
}

unsigned long slob_heap_largest_free(void)
{
	struct heap_walk w;

	walk_free_lists(&w);
	return w.largest;
}

void slob_heap_report(void)
{
	struct heap_walk w;

	assert_spin_held(&slob_lock);
	walk_free_lists(&w);
	printk("SLOB heap (%s): %lu pages (%lu kB) and %lu of start maps, %lu bytes free in %lu "
	       "listed blocks (largest %lu)\n", slob_heap_name, slob_heap_pages,
	       slob_heap_pages * (PAGE_SIZE / 1024), slob_heap_meta_pages, w.free_bytes, w.blocks,
	       w.largest);
}

#define bad(...) do { errors++; pr_err("slob: validate: " __VA_ARGS__); } while (0)

struct heap_count {
	unsigned long free_units, listed, pages;
};

/*
 * Parses one heap page block by block from its start map: every run of set
 * bits as slob_starts() reads it, free blocks with their right size (a
 * header that agrees with the map), no two free blocks side by side, a free
 * block of two units or more on its class's list (checked by counting).
 * A page after the first of a multi-page object starts without a bit.
 * slob_lock held.
 */
static int validate_page(struct page *page, struct heap_count *n)
{
	const unsigned long *map = page->start_map;
	slob_t *base = page_address(page);
	int i = 0, errors = 0, prev_free = 0;

	assert_spin_held(&slob_lock);
	if (!(page->flags & PG_slab) || !map)
		bad("heap page %p: flags %#x, map %p\n", (void *)base, page->flags, (void *)map);
	if (!map)
		return errors;
	while (i < SLOB_PAGE_UNITS && !slob_bit(map, i))
		i++;			/* the tail of an object begun on an earlier page */
	while (i < SLOB_PAGE_UNITS) {
		int start = i, is_free = slob_is_free(map, i), units;

		if (!slob_starts(map, base, i)) {
			bad("page %p: unit %d has a bit but starts no block\n", (void *)base, i);
			return errors;
		}
		for (i++; i < SLOB_PAGE_UNITS && (!slob_bit(map, i) || !slob_starts(map, base, i)); i++)
			;
		units = i - start;
		if (is_free) {
			if (base[start].units != units)
				bad("page %p: free block at unit %d holds %d units, its header says %d\n",
				    (void *)base, start, units, base[start].units);
			if (prev_free)
				bad("page %p: free blocks side by side at unit %d\n", (void *)base, start);
			n->free_units += (unsigned long)units;
			n->listed += units > 1;
		} else if (units < 2 && i < SLOB_PAGE_UNITS) {
			bad("page %p: allocated block of one unit at %d\n", (void *)base, start);
		}
		prev_free = is_free;
	}
	return errors;
}

/* Checks the free lists: every block a free block of its class, on a heap
 * page, back links right; and the class bitmap.  slob_lock held. */
static int validate_lists(unsigned long *listed)
{
	unsigned long limit = slob_heap_pages * SLOB_PAGE_UNITS;
	int c, errors = 0;

	assert_spin_held(&slob_lock);
	for (c = 0; c < SLOB_CLASSES; c++) {
		const slob_t *b, *prev = NULL;
		int has = (slob_class_map[c / SLOB_MAP_BITS] >> (c % SLOB_MAP_BITS)) & 1;

		if (has != (slob_free_lists[c] != NULL))
			bad("class %d: bitmap says %d, list %p\n", c, has, (void *)slob_free_lists[c]);
		for (b = slob_free_lists[c]; b; prev = b, b = b->next) {
			struct page *page = virt_to_page(b);

			if (++*listed > limit || !page || !(page->flags & PG_slab) ||
			    !IS_ALIGNED((uintptr_t)b, SLOB_UNIT)) {
				bad("class %d: block %p is off the heap or the list is corrupt\n", c,
				    (const void *)b);
				return errors;
			}
			if (b->units < 2 || slob_class(b->units) != c ||
			    slob_index(b) + b->units > SLOB_PAGE_UNITS ||
			    !slob_starts(page->start_map, page_address(page), slob_index(b)) ||
			    !slob_is_free(page->start_map, slob_index(b)) || b[1].next != prev)
				bad("class %d: block %p (%d units) is not a free block of this class\n",
				    c, (const void *)b, b->units);
		}
	}
	return errors;
}

/* Checks every heap page, the lists against them, and the counters.
 * slob_lock held. */
int slob_heap_validate(void)
{
	struct heap_count n = { 0, 0, 0 };
	unsigned long listed = 0;
	struct page *page;
	int errors = validate_lists(&listed);

	assert_spin_held(&slob_lock);
	list_for_each_entry(page, &slob_pages, lru) {
		if (++n.pages > slob_heap_pages) {
			bad("the heap page list is longer than its counter (%lu)\n", slob_heap_pages);
			return errors;
		}
		errors += validate_page(page, &n);
	}
	if (n.pages != slob_heap_pages)
		bad("%lu heap pages listed, counter says %lu\n", n.pages, slob_heap_pages);
	if (n.listed != listed)
		bad("%lu free blocks of two units or more in the pages, %lu on the lists\n",
		    n.listed, listed);
	if (n.free_units != slob_free_units)
		bad("free blocks hold %lu units, counter says %lu\n", n.free_units, slob_free_units);
	return errors;
}


/* The heap map's visit: each heap page as the validator parses it (its
 * free blocks' units), in the order of slob_pages, then the pages of
 * start maps (metadata: drawn full).  slob_lock held. */
void slob_heap_visit(heap_visit_t visit, void *arg)
{
	unsigned long pages = 0;
	struct page *page;

	assert_spin_held(&slob_lock);
	list_for_each_entry(page, &slob_pages, lru) {
		struct heap_count n = { 0, 0, 0 };

		if (++pages > slob_heap_pages)
			return;
		validate_page(page, &n);
		visit(arg, "heap pages", 1, SLOB_PAGE_UNITS - n.free_units, SLOB_PAGE_UNITS);
	}
	if (slob_heap_meta_pages)
		visit(arg, "start maps", slob_heap_meta_pages, 1, 1);
}
