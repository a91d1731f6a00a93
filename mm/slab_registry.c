/* slab_registry.c - the registry of live caches (CONFIG_SLAB_REGISTRY,
 * selected by what needs it: SLAB, SLUB, and the heap debugging layer).
 *
 * Registry.  Every live cache is on slab_caches, so that names are unique
 * (a second cache of a name a live cache has is refused) and a pointer
 * that is no live cache (a second destroy) is told apart.  SLAB and SLUB walk
 * it (reaper, kmem_reclaim(), reports); the debugging layer asks it whether a
 * cache it is given is still live.  A build without it (SLOB without the
 * layer) keeps no list: see kmem_cache_listed() in slab_common.h.
 *
 * Lock order: slab_caches_lock, then an allocator's locks (SLAB walks the
 * registry and takes each cache's lock inside it), then the page
 * allocator's zone_lock.  slab_caches_lock guards slab_caches and is
 * taken with interrupts saved (SLAB's reaper walks it from its timer).
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include "slab_common.h"

LIST_HEAD(slab_caches);
DEFINE_SPINLOCK(slab_caches_lock);

/* The live cache that is c, or (c NULL) is named name; NULL if none.
 * slab_caches_lock held. */
static struct kmem_cache_common *cache_lookup(const struct kmem_cache *c, const char *name)
{
	struct kmem_cache_common *cc;

	assert_spin_held(&slab_caches_lock);
	list_for_each_entry(cc, &slab_caches, list)
		if (c ? cc == cache_common(c) : !strcmp(cc->name, name))
			return cc;
	return NULL;
}

int kmem_cache_listed(const struct kmem_cache *c)
{
	unsigned long flags;
	int found;

	spin_lock_irqsave(&slab_caches_lock, flags);
	found = c && cache_lookup(c, NULL);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return found;
}

int kmem_cache_register(struct kmem_cache *c)
{
	struct kmem_cache_common *cc = cache_common(c);
	unsigned long flags;
	int taken;

	spin_lock_irqsave(&slab_caches_lock, flags);
	taken = cache_lookup(NULL, cc->name) != NULL;
	if (!taken)
		list_add_tail(&cc->list, &slab_caches);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	if (taken)
		pr_err("kmem_cache_create: cache %s exists already; not created\n", cc->name);
	return -taken;
}

void kmem_cache_unregister(struct kmem_cache *c)
{
	unsigned long flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_del(&cache_common(c)->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
