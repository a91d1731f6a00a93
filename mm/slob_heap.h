/* slob_heap.h - the small first-fit heap's internals (the default heap,
 * CONFIG_SLOB_FAST_HEAP=n), shared by slob_heap.c and its report and
 * validator, slob_heap_info.c. */
#ifndef MM_SLOB_HEAP_H
#define MM_SLOB_HEAP_H

#include "slob.h"

/* The page lists: slob_lists[k] holds the heap pages whose free blocks
 * hold, in all, from 2^f units (k = 2f) or from 1.5 * 2^f units (k = 2f + 1)
 * up to the next list's bound: two lists per power of two.  The last,
 * k = 2 * (PAGE_SHIFT - SLOB_UNIT_SHIFT), holds the entirely free pages
 * (2^f = SLOB_PAGE_UNITS); slob_full the pages without a free block. */
#define SLOB_LISTS		(2 * (PAGE_SHIFT - SLOB_UNIT_SHIFT) + 1)

extern struct list_head slob_lists[SLOB_LISTS];
extern struct list_head slob_full;

/* The list of the pages whose free blocks hold units units.  Its domain is
 * 1 <= units <= SLOB_PAGE_UNITS (the count leading zeros of 0 is
 * undefined), asserted. */
static inline int list_of_units(unsigned long units)
{
	int f;

	DEBUG_ASSERT(units >= 1 && units <= SLOB_PAGE_UNITS);
	f = 31 - __builtin_clz((unsigned int)units);
	return 2 * f + (int)(((units << 1) >> f) & 1);
}

/* The first list whose every page has units free units or more (1 <=
 * units <= SLOB_PAGE_UNITS): units' own list if units is its lower bound,
 * else the next.  1 is the lower bound of list 0. */
static inline int first_list_fitting(unsigned long units)
{
	int k = list_of_units(units);

	return units > 1 && list_of_units(units - 1) == k ? k + 1 : k;
}

/* The link to the first free block of a heap page: its free list's head,
 * page->first_free, the blocks following in address order. */
static inline slob_t **free_list_head(struct page *page)
{
	return (slob_t **)&page->first_free;
}

#endif /* MM_SLOB_HEAP_H */
