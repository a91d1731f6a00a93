/* slob_info.c - SLOB's report, validator and heap map visit: the caches
 * and large blocks here, the heap's own part in slob_heap_info.c (or
 * slob_fast_info.c).
 *
 * Kept apart from slob.c and the heap so that the allocator proper can be
 * measured on its own (size(1) of its objects) against the 2005 SLOB,
 * which had neither.
 */
#include <tiny/kernel.h>
#include "slob.h"

/* Each live cache, one line, where the registry lists them (SLOB
 * without the debugging layer keeps no list of its caches). */
static void caches_report(void)
{
	struct kmem_cache *c;
	unsigned long flags;

	if (!IS_ENABLED(CONFIG_SLAB_REGISTRY)) {
		printk("SLOB: caches not listed (no registry in this build)\n");
		return;
	}
	printk("# name                 objsize  align  inuse\n");
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(c, &slab_caches, common.list)
		printk("%-22s %7zu %6zu %6lu\n", c->common.name, c->common.object_size,
		       c->common.align, cache_live_objects(c));
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

void kmem_report(void)
{
	struct kmem_stats st;
	unsigned long flags;

	kmem_get_stats(&st);
	spin_lock_irqsave(&slob_lock, flags);
	slob_heap_report();
	spin_unlock_irqrestore(&slob_lock, flags);
	printk("SLOB: %lu bytes in use, large blocks %lu pages (%lu kB)\n", st.bytes_used,
	       st.large_pages, st.large_pages * (PAGE_SIZE / 1024));
	caches_report();
}

unsigned long kmem_heap_largest_free(void)
{
	unsigned long flags, bytes;

	spin_lock_irqsave(&slob_lock, flags);
	bytes = slob_heap_largest_free();
	spin_unlock_irqrestore(&slob_lock, flags);
	return bytes;
}

int kmem_validate(void)
{
	unsigned long flags;
	int errors;

	spin_lock_irqsave(&slob_lock, flags);
	errors = slob_heap_validate();
	spin_unlock_irqrestore(&slob_lock, flags);
	return errors + large_blocks_validate();
}

void kmem_heap_visit(heap_visit_t visit, void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	slob_heap_visit(visit, arg);
	spin_unlock_irqrestore(&slob_lock, flags);
}
