/* slab_common_info.c - the reports' part of what both allocators share:
 * counting and validating the large blocks of mm/slab_common.c.  Kept
 * apart, as the allocators' own reports are (slab_info.c, slob_info.c),
 * so that size(1) of the allocator objects measures the allocators. */
#include <tiny/kernel.h>
#include "slab_common.h"

void large_blocks_count(unsigned long *blocks, unsigned long *pages)
{
	struct list_head *pos;
	unsigned long save;

	*blocks = 0;
	spin_lock_irqsave(&large_block_lock, save);
	list_for_each(pos, &large_blocks)
		++*blocks;
	*pages = large_block_pages;
	spin_unlock_irqrestore(&large_block_lock, save);
}

#define bad(...) do { errors++; pr_err("kmem: validate: " __VA_ARGS__); } while (0)

/* The list against the page flags and the counter.  large_block_lock held. */
static int validate_large_blocks(void)
{
	unsigned long pages = 0, n = 0;
	struct list_head *pos;
	int errors = 0;

	assert_spin_held(&large_block_lock);
	for (pos = large_blocks.next; pos != &large_blocks; pos = pos->next) {
		const struct page *page = list_entry(pos, struct page, lru);

		if (++n > large_block_pages) {
			bad("large block list is corrupt at %p\n", (void *)page);
			return errors;
		}
		if ((page->flags & (PG_large | PG_head | PG_slab)) != (PG_large | PG_head))
			bad("large block %p has page flags %#x\n", page_address(page), page->flags);
		pages += page->inuse;
	}
	if (pages != large_block_pages)
		bad("large blocks hold %lu pages, counter says %lu\n", pages, large_block_pages);
	return errors;
}

int large_blocks_validate(void)
{
	unsigned long save;
	int errors;

	spin_lock_irqsave(&large_block_lock, save);
	errors = validate_large_blocks();
	spin_unlock_irqrestore(&large_block_lock, save);
	return errors;
}
