/* slob_heap_info.c - the small heap's part of SLOB's report, validator
 * and heap map (see slob_heap.c for the layout they check). */
#include <tiny/kernel.h>
#include "slob_heap.h"

#define bad(...) do { errors++; pr_err("slob: validate: " __VA_ARGS__); } while (0)

/* What a walk of the heap found; visit (if not NULL) is told of each page
 * (the heap map), page_units holds the free units of the page just checked. */
struct heap_walk {
	unsigned long pages, partial, blocks, free_units, largest, page_units;
	heap_visit_t visit;
	void *arg;
};

/* Checks one heap page's free list: blocks inside the page, in address
 * order, never touching (they would have merged), the largest of
 * page->largest_free units; and the page on the list that size says (list: -1 for
 * slob_full, else k for slob_lists[k]).  slob_lock held. */
static int validate_page(struct page *page, int list, struct heap_walk *w)
{
	slob_t *base = page_address(page), *b, *end = base + SLOB_PAGE_UNITS, *prev = NULL;
	unsigned long units = 0, n = 0, largest = 0;
	int errors = 0;

	assert_spin_held(&slob_lock);
	if (!(page->flags & PG_slab))
		bad("heap page %p: flags %#x\n", (void *)base, page->flags);
	for (b = page->first_free; b; prev = b, b = b->next) {
		if (++n > SLOB_PAGE_UNITS || b < base || b >= end ||
		    !IS_ALIGNED((uintptr_t)b, SLOB_UNIT) || (prev && b <= prev)) {
			bad("page %p: free list broken at %p\n", (void *)base, (void *)b);
			return errors;
		}
		if (b->units < 1 || b + b->units > end)
			bad("page %p: free block %p of %d units\n", (void *)base, (void *)b, b->units);
		if (prev && prev + prev->units >= b)
			bad("page %p: free blocks %p and %p touch or overlap\n", (void *)base,
			    (void *)prev, (void *)b);
		units += (unsigned long)b->units;
		largest = max(largest, (unsigned long)b->units);
	}
	w->largest = max(w->largest, largest);
	if (largest != page->largest_free)
		bad("page %p: largest free block %lu units, the page says %lu\n", (void *)base,
		    largest, page->largest_free);
	if (largest ? list < 0 || (1UL << list) > largest || largest >= (2UL << list) : list >= 0)
		bad("page %p: largest free block %lu units, on list %d\n", (void *)base, largest, list);
	w->pages++;
	w->partial += units != 0;
	w->blocks += n;
	w->free_units += units;
	w->page_units = units;
	return errors;
}

/* The heap map's name of list l (-1: slob_full), into name. */
static void list_name(int l, char *name, size_t size)
{
	if (l < 0)
		snprintf(name, size, "heap full");
	else if (l == SLOB_LISTS - 1)
		snprintf(name, size, "heap free pages");
	else
		snprintf(name, size, "heap free>=%lu", (1UL << l) * SLOB_UNIT);
}

/* Walks both page lists (bounded by the heap's page count); with
 * w->visit set, tells it of each page. */
static int walk_heap(struct heap_walk *w)
{
	struct page *page;
	int errors = 0, l;
	char name[24];

	*w = (struct heap_walk){ .visit = w->visit, .arg = w->arg };
	for (l = -1; l < SLOB_LISTS; l++) {
		list_name(l, name, sizeof(name));
		list_for_each_entry(page, l < 0 ? &slob_full : &slob_lists[l], lru) {
			if (w->pages >= slob_heap_pages) {
				bad("more heap pages listed than the %lu counted\n", slob_heap_pages);
				return errors;
			}
			errors += validate_page(page, l, w);
			if (w->visit)
				w->visit(w->arg, name, 1, SLOB_PAGE_UNITS - w->page_units,
					 SLOB_PAGE_UNITS);
		}
	}
	return errors;
}

int slob_heap_validate(void)
{
	struct heap_walk w = { .visit = NULL };
	int errors = walk_heap(&w);

	assert_spin_held(&slob_lock);
	if (w.pages != slob_heap_pages)
		bad("%lu heap pages listed, counter says %lu\n", w.pages, slob_heap_pages);
	if (w.free_units != slob_free_units)
		bad("free blocks hold %lu units, counter says %lu\n", w.free_units, slob_free_units);
	return errors;
}

unsigned long slob_heap_largest_free(void)
{
	struct heap_walk w = { .visit = NULL };

	walk_heap(&w);
	return w.largest * SLOB_UNIT;
}

void slob_heap_report(void)
{
	struct heap_walk w = { .visit = NULL };

	assert_spin_held(&slob_lock);
	walk_heap(&w);
	printk("SLOB heap (%s): %lu pages (%lu kB), %lu bytes free in %lu blocks on %lu pages "
	       "(largest %lu)\n", slob_heap_name, slob_heap_pages, slob_heap_pages * (PAGE_SIZE / 1024),
	       w.free_units * SLOB_UNIT, w.blocks, w.partial, w.largest * SLOB_UNIT);
}

void slob_heap_visit(heap_visit_t visit, void *arg)
{
	struct heap_walk w = { .visit = visit, .arg = arg };

	assert_spin_held(&slob_lock);
	walk_heap(&w);
}
