/* slob_heap.h - the small heap's internals (the default heap,
 * CONFIG_SLOB_FAST_HEAP=n), shared by slob_heap.c and its report and
 * validator, slob_heap_info.c. */
#ifndef MM_SLOB_HEAP_H
#define MM_SLOB_HEAP_H

#include "slob.h"

/* The page lists: slob_lists[k] holds the heap pages whose largest free
 * block has from 2^k units up to 2^(k+1) - 1: one list per power of two.
 * The last, k = PAGE_SHIFT - SLOB_UNIT_SHIFT, holds the entirely free
 * pages (2^k = SLOB_PAGE_UNITS); slob_full the pages without a free block. */
#define SLOB_LISTS		(PAGE_SHIFT - SLOB_UNIT_SHIFT + 1)

extern struct list_head slob_lists[SLOB_LISTS];
extern struct list_head slob_full;

/* The list of the pages whose largest free block is of units units: the
 * power of two at or below it.  Its domain is 1 <= units <=
 * SLOB_PAGE_UNITS (the count leading zeros of 0 is undefined), asserted. */
static inline int list_of_units(unsigned long units)
{
	DEBUG_ASSERT(units >= 1 && units <= SLOB_PAGE_UNITS);
	return 31 - __builtin_clz((unsigned int)units);
}

/* The link to the first free block of a heap page: its free list's head,
 * page->first_free, the blocks following in address order. */
static inline slob_t **free_list_head(struct page *page)
{
	return (slob_t **)&page->first_free;
}

#endif /* MM_SLOB_HEAP_H */
