/* slab_common_info.c - the reports' part of what both allocators share:
 * counting and validating the large blocks of mm/slab_common.c, found by
 * their head pages in mem_map.  Kept apart, as the allocators' own reports
 * are (slab_info.c, slob_info.c), so that size(1) of the allocator
 * objects measures the allocators. */
#include <tiny/kernel.h>
#include "slab_common.h"

void large_blocks_count(unsigned long *blocks, unsigned long *pages)
{
	*blocks = page_flag_census(PG_large, pages);
}

int large_blocks_validate(void)
{
	unsigned long blocks, pages, counted = (unsigned long)atomic_long_read(&large_block_pages);

	large_blocks_count(&blocks, &pages);
	if (pages == counted)
		return 0;
	pr_err("kmem: validate: large blocks hold %lu pages, the counter says %lu\n", pages,
	       counted);
	return 1;
}
