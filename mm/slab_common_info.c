/* slab_common_info.c - the reports' part of what the allocators share:
 * the report of a bad pointer, the validator run after each operation
 * (CONFIG_DEBUG_KMEM_VALIDATE), and counting and validating the large
 * blocks of mm/slab_common.c, found by their head pages in mem_map.  Kept
 * apart, as the allocators' own reports are (slab_info.c, slob_info.c),
 * so that size(1) of the allocator objects measures the allocators. */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include "slab_common.h"

unsigned long kmem_bad_free_count;	/* any CPU adds to it: atomically */

void kmem_bad_free(const char *fn, const void *obj, const char *why, void *caller)
{
	const char *mark;

	counter_inc(&kmem_bad_free_count);
	mark = count_report();
	caller = kmem_debug_bad_free(obj, caller);
	pr_err("%s: bad pointer %p from %pS: %s; ignored%s\n", fn, obj, caller, why, mark);
}

static atomic_t validate_held;
static atomic_t validating;	/* a CPU is in kmem_validate() for an operation */

void kmem_debug_validate_hold(int hold)
{
	atomic_add(hold ? 1 : -1, &validate_held);
}

/* One CPU validates at a time; an operation that ends while another CPU
 * validates is not followed by a validation of its own (the next one sees
 * what it did).  Every CPU validating after every operation would queue
 * them all on the validator's walk of every cache: with ticket locks at
 * -smp 4 a self-test crawled for minutes, printing nothing. */
void __kmem_debug_validate(const char *op, const void *obj)
{
	static atomic_t reported;

	if (atomic_read(&reported) || atomic_read(&validate_held) || atomic_xchg(&validating, 1))
		return;
	if (kmem_validate() && !atomic_xchg(&reported, 1))
		pr_err("kmem: heap inconsistent after %s(%p); further checks off\n", op, obj);
	atomic_set(&validating, 0);
}

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
