/* slab_common.c - what SLAB and SLOB share: the registry of live caches,
 * kmem_cache_create() and kmem_cache_destroy() around each allocator's
 * own hooks, and large kmalloc() blocks of whole pages.
 *
 * Registry.  Every live cache is on slab_caches, so that names are unique
 * and a pointer that is no live cache (a second destroy) is refused.
 *
 * Large blocks.  A kmalloc() block larger than the allocator's own blocks
 * is whole pages, only those it needs (the rest of the power-of-two block
 * goes back at once, as Linux's alloc_pages_exact()).  Its head page is
 * marked PG_large and keeps the page count in page->nr_pages, so kfree() and
 * ksize() find it in O(1) from the pointer; clearing the mark claims the
 * block, so of two CPUs freeing it one wins and the other is refused.
 *
 * Lock order: slab_caches_lock, then an allocator's locks (SLAB walks the
 * registry and takes each cache's lock inside it), then the page
 * allocator's zone_lock.  slab_caches_lock guards slab_caches and is
 * taken with interrupts saved (SLAB's reaper walks it from its timer).
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include "slab_common.h"

LIST_HEAD(slab_caches);
DEFINE_SPINLOCK(slab_caches_lock);
atomic_long_t large_block_pages;

/* ---- the registry ------------------------------------------------------------- */

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

/* ---- create and destroy ---------------------------------------------------------- */

/* A new cache, set up by the allocator but not listed; NULL if the
 * arguments are bad or it cannot be made. */
static struct kmem_cache *cache_new(const char *name, size_t size, size_t align,
				    unsigned long flags, kmem_cache_ctor_t ctor,
				    kmem_cache_ctor_t dtor)
{
	struct kmem_cache_common *cc;
	struct kmem_cache *c;

	if (flags & SLAB_MUST_HWCACHE_ALIGN)
		align = max_t(size_t, align, L1_CACHE_BYTES);
	if (!name || !size || (align & (align - 1)) ||
	    max(size, align) > PAGE_SIZE << (MAX_ORDER - 1))
		return NULL;
	c = cache_struct_alloc();
	if (!c)
		return NULL;
	cc = cache_common(c);
	cc->name = name;
	cc->object_size = size;
	cc->align = align;
	cc->flags = flags;
	cc->ctor = ctor;
	cc->dtor = dtor;
	if (cache_open(c)) {
		cache_struct_free(c);
		return NULL;
	}
	if (kmem_cache_register(c)) {
		cache_close(c);
		cache_struct_free(c);
		return NULL;
	}
	return c;
}

struct kmem_cache *__kmem_cache_create(const char *name, size_t size, size_t align,
				       unsigned long flags, kmem_cache_ctor_t ctor,
				       kmem_cache_ctor_t dtor)
{
	struct kmem_cache *c = cache_new(name, size, align, flags, ctor, dtor);

	if (!c && (flags & SLAB_PANIC))
		panic("kmem_cache_create: cannot create cache %s", name);
	kmem_debug_validate("kmem_cache_create", c);
	return c;
}

int __kmem_cache_destroy(struct kmem_cache *c)
{
	unsigned long flags, live;

	if (!kmem_cache_listed(c)) {
		kmem_bad_free("kmem_cache_destroy", c, KMEM_NOT_CACHE, __builtin_return_address(0));
		return -1;
	}
	live = cache_live_objects(c);
	if (live) {
		pr_err("kmem_cache_destroy: cache %s has %lu objects in use; not destroyed\n",
		       cache_common(c)->name, live);
		return -1;
	}
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_del(&cache_common(c)->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	cache_close(c);
	cache_struct_free(c);
	kmem_debug_validate("kmem_cache_destroy", NULL);
	return 0;
}

size_t __kmem_cache_size(struct kmem_cache *c)
{
	return cache_common(c)->object_size;
}

const char *__kmem_cache_name(struct kmem_cache *c)
{
	return cache_common(c)->name;
}

/* ---- large blocks ------------------------------------------------------------------ */

void *kmalloc_large(size_t size, gfp_t flags)
{
	unsigned long nr = PAGE_ALIGN(size) >> PAGE_SHIFT;
	struct page *page;
	void *addr;

	if (should_failslab("kmalloc", size, flags))
		return NULL;
	page = alloc_pages(flags & ~__GFP_ZERO, get_order(size));
	if (!page)
		return NULL;
	split_page_block(page, get_order(size), nr);
	addr = page_address(page);
	if (flags & __GFP_ZERO)
		memset(addr, 0, nr << PAGE_SHIFT);
	page->nr_pages = nr;
	page_update_counted(page, PG_large, 0, &large_block_pages);
	kmem_mark_allocated(addr, nr << PAGE_SHIFT, (flags & __GFP_ZERO) != 0);
	return addr;
}

int kfree_large(const void *obj, struct page *page)
{
	unsigned long nr, i;

	if (!page || obj != page_address(page) || !(READ_ONCE(page->flags) & PG_large) ||
	    !(page_update_counted(page, 0, PG_large, &large_block_pages) & PG_large))
		return -1;
	nr = page->nr_pages;
	kmem_mark_freed(obj, nr << PAGE_SHIFT);
	kmem_mark_internal(obj, nr << PAGE_SHIFT);	/* as the page allocator gave it */
	for (i = 0; i < nr; i++)
		__free_pages(page + i, 0);
	return 0;
}

size_t ksize_large(const void *obj, const struct page *page)
{
	return page && obj == page_address(page) && (READ_ONCE(page->flags) & PG_large) ?
	       page->nr_pages << PAGE_SHIFT : 0;
}

KMEM_PUBLIC(kmem_cache_create)
KMEM_PUBLIC(kmem_cache_destroy)
KMEM_PUBLIC(kmem_cache_size)
KMEM_PUBLIC(kmem_cache_name)
