/* slab_common_info.c - the reports' part of what both allocators share:
 * counting and validating the large blocks of mm/slab_common.c, found by
 * their head pages in mem_map.  Kept apart, as the allocators' own reports
 * are (slab_info.c, slob_info.c), so that size(1) of the allocator
 * objects measures the allocators. */
#include <tiny/kernel.h>
#include "slab_common.h"

void large_blocks_count(unsigned long *blocks, unsigned long *pages)
{
	*blocks = page_flag_census(PG_large, pages, NULL, NULL);
}

/* The pages of the blocks marked PG_large against large_block_pages, both
 * read in one hold of zone_lock, under which both change. */
int large_blocks_validate(void)
{
	unsigned long pages;
	long counted;

	page_flag_census(PG_large, &pages, &large_block_pages, &counted);
	if ((long)pages == counted)
		return 0;
	pr_err("kmem: validate: large blocks hold %lu pages, the counter says %ld\n", pages,
	       counted);
	return 1;
}
