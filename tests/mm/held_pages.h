/* held_pages.h - memory a self-test runs out of on purpose: the free pages
 * taken from the page allocator and given back, shared by the suites that
 * meet an empty page allocator (kmem_api, slob).
 *
 * hold_free_pages(keep, min_order) takes every free page but about keep,
 * in blocks of 1 << min_order pages or more, largest first, chained
 * through their first words (the order in the second); keep 0 with
 * min_order 0 takes them all.  release_held_pages() gives the chain back.
 */
#ifndef TESTS_MM_HELD_PAGES_H
#define TESTS_MM_HELD_PAGES_H

#include <tiny/gfp.h>
#include <tiny/mm.h>

static inline void **hold_free_pages(unsigned long keep, int min_order)
{
	void **chain = NULL, **p;
	int order;

	for (order = MAX_ORDER - 1; order >= min_order; order--)
		while (nr_free_pages() >= keep + (1UL << order) &&
		       (p = (void **)(uintptr_t)__get_free_pages(GFP_ATOMIC | __GFP_NOWARN,
								 (unsigned int)order))) {
			p[0] = chain;
			p[1] = (void *)(uintptr_t)order;
			chain = p;
		}
	return chain;
}

static inline void release_held_pages(void **chain)
{
	while (chain) {
		void **next = chain[0];

		free_pages((unsigned long)(uintptr_t)chain,
			   (unsigned int)(uintptr_t)chain[1]);
		chain = next;
	}
}

#endif /* TESTS_MM_HELD_PAGES_H */
