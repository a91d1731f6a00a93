/* slob_heap.c - SLOB's small heap: best fit by page, first fit in the page
 * (the default;
 * CONFIG_SLOB_FAST_HEAP=n).
 *
 * Pages.  Each heap page keeps its free blocks on a list of its own, in
 * address order: page->first_free is the first, page->largest_free the
 * units of the largest.  Pages with a free block sit on slob_lists[] by
 * that largest block, one list per power of two; the others on slob_full,
 * so that nothing walks them.  A free block is at least one unit: its
 * size and the next free block of its page.
 *
 * Allocation.  n units are sought from the list of n's power of two,
 * upward, in the first page whose largest free block holds n: the
 * tightest lists are tried first (best fit by power-of-two list, first fit
 * within one), and a page tried
 * fits unless the alignment asked for does not.  In the page the first
 * block that fits is cut, its unaligned head and its tail staying free.
 * The tails of partly used pages so fill before the heap grows by a page.
 * A page's largest block is found again (a walk of its list) only when
 * the block cut was it.
 *
 * Free.  The block's page's list is walked to the block's place; a block
 * that overlaps a free one is refused (so a double free is seen as the
 * walk passes it), and the block merges with the free neighbours it
 * touches.
 *
 * Runs.  A block of more than a page, or aligned above a page (a cache
 * object), takes a run of heap pages, all of them but the rest of the
 * last: where the run freed last was, if its pages are still free, else
 * fresh pages; so an object freed and allocated again does not need a
 * block of contiguous pages the page allocator may no longer have.
 *
 * Cost.  An allocation walks the pages of its own list that are too
 * tight, then takes the first page of a higher one; a free walks one
 * page's free list (at most half a page of units).  The bound is printed
 * by make bench (the largest single-stepped call).
 *
 * Locking: every function here runs with slob_lock held (slob.c), and the
 * page allocator's lock nests inside it.
 */
#include <tiny/kernel.h>
#include <tiny/memcheck.h>
#include "slob_heap.h"

const char slob_heap_name[] = "best-fit";
/* what this heap cannot tell: a headerless object is just units */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~KMEM_CHECK(INSIDE_OBJECT) &
				  ~KMEM_CHECK(WRONG_CACHE) & ~KMEM_CHECK(WRONG_CACHE_SAME_SIZE) &
				  ~KMEM_CHECK(KMALLOC_TO_CACHE) & ~KMEM_CHECK(DESTROYED_CACHE);

struct list_head slob_lists[SLOB_LISTS];	/* heap pages by their largest free block */
LIST_HEAD(slob_full);			/* heap pages without a free block */

/* Finds page's largest free block again (a walk of its free list) and
 * puts the page on the list that says. */
static void page_relist(struct page *page)
{
	unsigned long largest = 0;
	slob_t *b;

	for (b = page->first_free; b; b = b->next)
		largest = max(largest, (unsigned long)b->units);
	page->largest_free = largest;
	list_move_tail(&page->lru, largest ? &slob_lists[list_of_units(largest)] : &slob_full);
}

/* Makes [b, b + units) a free block whose next is next. */
static void make_free_block(slob_t *b, int units, slob_t *next)
{
	kmem_mark_internal(b, SLOB_UNIT);
	b->units = units;
	b->next = next;
}

/* Cuts units units aligned to align (in units) from the free block *link
 * of page, if it has room; NULL if not. */
static slob_t *cut_block(struct page *page, slob_t **link, int units, int align)
{
	slob_t *b = *link, *after = b->next;
	int head = align > 1 ? (int)((ALIGN((uintptr_t)b, align * SLOB_UNIT) - (uintptr_t)b) /
				     SLOB_UNIT) : 0;
	int rest = b->units - head - units;

	if (rest < 0)
		return NULL;
	if (head) {			/* the unaligned head stays free */
		b->units = head;
		link = &b->next;
		b += head;
	}
	if (rest) {
		make_free_block(b + units, rest, after);
		after = b + units;
	}
	*link = after;
	slob_free_units -= (unsigned long)units;
	page_relist(page);
	return b;
}

/* The first block of page that fits, cut; NULL if none. */
static slob_t *page_first_fit(struct page *page, int units, int align)
{
	slob_t **link, *b;

	for (link = free_list_head(page); *link; link = &(*link)->next) {
		b = cut_block(page, link, units, align);
		if (b)
			return b;
	}
	return NULL;
}

/* Gives [b, b + units) of page back, merging it with the free blocks it
 * touches; link is where it goes in the page's list, prev the free block
 * before it (NULL if none).  Built once (noinline), not into both of its
 * callers, heap_grow() and slob_heap_block(). */
static noinline void free_and_merge(struct page *page, slob_t **link, slob_t *prev, slob_t *b,
				    int units)
{
	slob_t *next = *link;
	int merged = units;

	if (next && b + units == next) {
		merged += next->units;
		next = next->next;
	}
	if (prev && prev + prev->units == b) {
		prev->units += merged;
		prev->next = next;
	} else {
		make_free_block(b, merged, next);
		*link = b;
	}
	slob_free_units += (unsigned long)units;
	page_relist(page);
}

/* The page of b if [b, b + units) may be freed there: a heap page, b on a
 * unit boundary, the block inside the page and overlapping no free block;
 * *link and *prev get its place.  NULL if not. */
static struct page *find_free_place(slob_t *b, int units, slob_t ***link, slob_t **prev)
{
	struct page *page = virt_to_page(b);
	int i = (int)(((uintptr_t)b & ~PAGE_MASK) / SLOB_UNIT);
	slob_t **l;

	if (!page || !(READ_ONCE(page->flags) & PG_slab) || !IS_ALIGNED((uintptr_t)b, SLOB_UNIT) ||
	    units < 1 || i + units > SLOB_PAGE_UNITS)
		return NULL;
	*prev = NULL;
	for (l = free_list_head(page); *l && *l < b; l = &(*l)->next)
		*prev = *l;
	if ((*prev && *prev + (*prev)->units > b) || (*l && b + units > *l))
		return NULL;
	*link = l;
	return page;
}

/* Grows the heap by nr fresh pages from a block of 2^order (the rest
 * given back), each one free block; the first's address, NULL if none. */
static slob_t *heap_grow(unsigned long nr, unsigned int order, gfp_t gfp)
{
	struct page *page = alloc_pages(gfp & ~__GFP_ZERO, order);
	slob_t *first, *b;

	call_path(CALL_PATH_NEW_SLAB);
	if (!page)
		return NULL;
	split_page_block(page, order, nr);
	page_update_flags(page, nr, PG_slab, 0);
	slob_heap_pages += nr;
	first = page_address(page);
	for (b = first; b < first + nr * SLOB_PAGE_UNITS; b += SLOB_PAGE_UNITS, page++) {
		page->first_free = NULL;
		INIT_LIST_HEAD(&page->lru);	/* page_relist() lists it */
		kmem_mark_noaccess(b, PAGE_SIZE);
		free_and_merge(page, free_list_head(page), NULL, b, SLOB_PAGE_UNITS);
	}
	return first;
}

/* ---- runs ---------------------------------------------------------------------- */

/* Where the run freed last begins ([1]), and the block freed last at a
 * page's start ([0]: it may be a run of one page, an object aligned above
 * a page). */
static slob_t *slob_last_hint[2];

/* Can the heap cut a run of units units at b again: each of its pages a
 * heap page whose first free block starts it, long enough for its part? */
static int run_is_free(slob_t *b, int units)
{
	for (; units > 0; units -= SLOB_PAGE_UNITS, b += SLOB_PAGE_UNITS) {
		struct page *page = virt_to_page(b);

		if (!page || !(READ_ONCE(page->flags) & PG_slab) || page->first_free != b ||
		    b->units < min(units, SLOB_PAGE_UNITS))
			return 0;
	}
	return 1;
}

/* A run of units units aligned to align units: where the run freed last
 * was if its pages are still free, else fresh pages; each page's block
 * cut from its start (a whole page, the last the rest).  NULL if out of
 * memory. */
static slob_t *run_alloc(int units, int align, gfp_t gfp)
{
	slob_t **hint = &slob_last_hint[units > SLOB_PAGE_UNITS], *b = *hint;
	struct page *page;

	*hint = NULL;
	if (!b || (align > SLOB_PAGE_UNITS && !IS_ALIGNED((uintptr_t)b, (uintptr_t)align * SLOB_UNIT)) ||
	    !run_is_free(b, units))	/* a run starts a page: aligned to one */
		b = heap_grow(DIV_ROUND_UP((unsigned long)units, SLOB_PAGE_UNITS),
			      get_order(max(units, align) * SLOB_UNIT), gfp);
	page = b ? virt_to_page(b) : NULL;
	for (; page && units > 0; units -= SLOB_PAGE_UNITS, page++)
		cut_block(page, free_list_head(page), min(units, SLOB_PAGE_UNITS), 0);
	return b;
}

/* Checks (free 0) or frees (free 1) the block of units units at b, page
 * by page if it is a run (which starts a page): each part a block of the
 * page it lies in that overlaps no free block.  A run freed is remembered
 * for run_alloc(), and apart from it a block freed at a page's start (it
 * may be a run of one page: an object aligned above a page): in one hint,
 * such blocks took the place of a run's, whose pages then stayed in the
 * heap unused while a run took fresh ones (make compare: net-loopback's
 * highest sampled pages 176 -> 257), and a run's kept such an object from
 * being had again at once, once the page allocator was empty (fuzzer).
 * 0, or -1 (nothing changed). */
int slob_heap_block(slob_t *b, int units, int free)
{
	int run = units > SLOB_PAGE_UNITS, k, n, left;
	slob_t **link, *prev;
	struct page *page;

	assert_spin_held(&slob_lock);
	if (run && !IS_ALIGNED((uintptr_t)b, PAGE_SIZE))
		return -1;
	for (k = run ? 0 : free; k <= free; k++) {	/* a run is checked whole first */
		for (left = units; left > 0; left -= n) {
			slob_t *p = b + (units - left);

			n = min(left, SLOB_PAGE_UNITS);
			page = find_free_place(p, n, &link, &prev);
			if (!page)
				return -1;
			if (k)
				free_and_merge(page, link, prev, p, n);
		}
	}
	if (free)				/* a hint: run_alloc() checks it */
		slob_last_hint[run] = b;
	return 0;
}

/* ---- the interface (slob.h) -------------------------------------------------------- */

void slob_heap_init(void)
{
	int k;

	for (k = 0; k < SLOB_LISTS; k++)
		INIT_LIST_HEAD(&slob_lists[k]);
}

slob_t *slob_heap_alloc(int units, int align, gfp_t gfp)
{
	struct page *page;
	slob_t *b;
	int k;

	assert_spin_held(&slob_lock);
	if (units > SLOB_PAGE_UNITS || align > SLOB_PAGE_UNITS)
		return run_alloc(units, align, gfp);
	do {
		for (k = list_of_units((unsigned long)units); k < SLOB_LISTS; k++) {
			list_for_each_entry(page, &slob_lists[k], lru) {
				call_path_walked();
				b = page->largest_free >= (unsigned long)units ?
					    page_first_fit(page, units, align) : NULL;
				if (b)
					return b;
			}
		}
	} while (heap_grow(1, 0, gfp));	/* a fresh page fits any block of a page */
	return NULL;
}

slob_t *slob_heap_header(const void *obj, uintptr_t tag)
{
	struct page *page = virt_to_page(obj);
	int i = (int)(((uintptr_t)obj & ~PAGE_MASK) / SLOB_UNIT);
	slob_t *m;

	assert_spin_held(&slob_lock);
	if (!page || !(READ_ONCE(page->flags) & PG_slab) || !IS_ALIGNED((uintptr_t)obj, SLOB_UNIT) || !i)
		return NULL;
	m = (slob_t *)obj - 1;
	kmem_mark_internal(m, SLOB_UNIT);	/* read as the allocator's */
	if (m->next != slob_tag(m, tag) || m->units < 2 || i - 1 + m->units > SLOB_PAGE_UNITS)
		return NULL;
	return m;
}

unsigned long slob_heap_release_page(void)
{
	struct list_head *free = &slob_lists[SLOB_LISTS - 1];
	struct page *page;

	assert_spin_held(&slob_lock);
	if (list_empty(free))
		return 0;
	page = list_first_entry(free, struct page, lru);
	list_del(&page->lru);
	/* its first_free and largest_free mean nothing once it is not PG_slab */
	page_update_flags(page, 1, 0, PG_slab);
	slob_heap_pages--;
	slob_free_units -= SLOB_PAGE_UNITS;
	call_path(CALL_PATH_SLAB_FREED);
	__free_pages(page, 0);
	return 1;
}
