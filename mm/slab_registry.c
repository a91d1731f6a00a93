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
 * Lookups by hash.  Creating a cache, destroying one and every operation
 * of kmem_debug= on a cache it does not debug ask the registry, so neither
 * question walks the list: each live cache is also on two hash chains,
 * one by its name and one by its address, in one table of as many buckets
 * as caches at least (a power of two; it doubles from the page allocator
 * as caches come, and halves as they go, down to the static table of
 * REGISTRY_MIN buckets).  A lookup follows one chain, of about one cache,
 * however many caches live; registry_steps counts the links followed, for
 * the tests (an allocation refused leaves the table as it is: chains
 * grow longer, lookups stay right).
 *
 * Lock order: slab_caches_lock, then an allocator's locks (SLAB walks the
 * registry and takes each cache's lock inside it), then the page
 * allocator's zone_lock (the table's pages).  slab_caches_lock guards
 * slab_caches and the table, and is taken with interrupts saved (SLAB's
 * reaper walks it from its timer).
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include "slab_common.h"

LIST_HEAD(slab_caches);
DEFINE_SPINLOCK(slab_caches_lock);

#define REGISTRY_MIN_BITS	6

struct registry_bucket {
	struct kmem_cache_common *by_name, *by_addr;	/* chains through name_next, addr_next */
};

static struct registry_bucket registry_min[1 << REGISTRY_MIN_BITS];
static struct registry_bucket *registry = registry_min;
static unsigned int registry_bits = REGISTRY_MIN_BITS;
static unsigned long registry_count;	/* caches listed */
unsigned long registry_steps;		/* chain links followed by lookups */

static unsigned int hash_word(unsigned long v)
{
	return (unsigned int)(((u32)v ^ (u32)((u64)v >> 32)) * 0x9e3779b1u) >> (32 - registry_bits);
}

static struct registry_bucket *name_bucket(const char *name)
{
	unsigned long h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return &registry[hash_word(h)];
}

static struct registry_bucket *addr_bucket(const struct kmem_cache_common *cc)
{
	return &registry[hash_word((uintptr_t)cc / sizeof(long))];
}

static void registry_link(struct kmem_cache_common *cc)
{
	struct registry_bucket *bn = name_bucket(cc->name), *ba = addr_bucket(cc);

	cc->name_next = bn->by_name;
	bn->by_name = cc;
	cc->addr_next = ba->by_addr;
	ba->by_addr = cc;
}

/* The link to cc on the chain that starts at *pos (next: the chain's link
 * field); cc is on it. */
static struct kmem_cache_common **chain_link(struct kmem_cache_common **pos,
					     struct kmem_cache_common *cc, size_t next)
{
	while (*pos != cc)
		pos = (struct kmem_cache_common **)((char *)*pos + next);
	return pos;
}

static void registry_unlink(struct kmem_cache_common *cc)
{
	size_t nn = __builtin_offsetof(struct kmem_cache_common, name_next);
	size_t na = __builtin_offsetof(struct kmem_cache_common, addr_next);

	*chain_link(&name_bucket(cc->name)->by_name, cc, nn) = cc->name_next;
	*chain_link(&addr_bucket(cc)->by_addr, cc, na) = cc->addr_next;
}

/* Makes the table 2^bits buckets, if the page allocator has them (the
 * static table below REGISTRY_MIN_BITS + 1).  slab_caches_lock held. */
static void registry_resize(unsigned int bits)
{
	size_t bytes = sizeof(*registry) << bits;
	struct registry_bucket *old = registry, *table = registry_min;
	unsigned int old_bits = registry_bits;
	struct kmem_cache_common *cc;

	assert_spin_held(&slab_caches_lock);
	if (bits > REGISTRY_MIN_BITS)
		table = (void *)__get_free_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_ZERO,
						 get_order(bytes));
	else
		memset(registry_min, 0, sizeof(registry_min));
	if (!table)
		return;
	registry = table;
	registry_bits = bits;
	list_for_each_entry(cc, &slab_caches, list)
		registry_link(cc);
	if (old != registry_min)
		free_pages((unsigned long)(uintptr_t)old,
			   get_order(sizeof(*registry) << old_bits));
}

/* The live cache named name; NULL if none.  slab_caches_lock held. */
static struct kmem_cache_common *lookup_name(const char *name)
{
	struct kmem_cache_common *cc;

	assert_spin_held(&slab_caches_lock);
	for (cc = name_bucket(name)->by_name; cc; cc = cc->name_next) {
		registry_steps++;
		if (!strcmp(cc->name, name))
			break;
	}
	return cc;
}

int kmem_cache_listed(const struct kmem_cache *c)
{
	struct kmem_cache_common *cc = NULL;
	unsigned long flags;

	if (!c)
		return 0;
	spin_lock_irqsave(&slab_caches_lock, flags);
	for (cc = addr_bucket(cache_common(c))->by_addr; cc && cc != cache_common(c);
	     cc = cc->addr_next)
		registry_steps++;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return cc != NULL;
}

int kmem_cache_register(struct kmem_cache *c)
{
	struct kmem_cache_common *cc = cache_common(c);
	unsigned long flags;
	int taken;

	spin_lock_irqsave(&slab_caches_lock, flags);
	taken = lookup_name(cc->name) != NULL;
	if (!taken) {
		list_add_tail(&cc->list, &slab_caches);
		registry_link(cc);
		if (++registry_count > 1UL << registry_bits)
			registry_resize(registry_bits + 1);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	if (taken)
		pr_err("kmem_cache_create: cache %s exists already; not created\n", cc->name);
	return -taken;
}

void kmem_cache_unregister(struct kmem_cache *c)
{
	struct kmem_cache_common *cc = cache_common(c);
	unsigned long flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	registry_unlink(cc);
	list_del(&cc->list);
	if (--registry_count < 1UL << (registry_bits - 2) && registry_bits > REGISTRY_MIN_BITS)
		registry_resize(registry_bits - 1);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
