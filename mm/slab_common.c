/* slab_common.c - what the object allocators share: kmem_cache_create()
 * and kmem_cache_destroy() around each allocator's own hooks (and the
 * registry of live caches, mm/slab_registry.c, where one is built), and
 * large kmalloc() blocks of whole pages.
 *
 * Create and destroy.  A cache is set up by the allocator, then listed
 * in the registry (which refuses a name a live cache has); a destroy
 * refuses a pointer that is no live cache (kmem_cache_listed(): the
 * registry's list, or without one the allocator's own word) and a cache
 * with objects in use.
 *
 * Large blocks.  A kmalloc() block larger than the allocator's own blocks
 * is whole pages, only those it needs (the rest of the power-of-two block
 * goes back at once, as Linux's alloc_pages_exact()).  Its head page is
 * marked PG_large and keeps the page count in page->nr_pages, so kfree() and
 * ksize() find it in O(1) from the pointer; clearing the mark claims the
 * block, so of two CPUs freeing it one wins and the other is refused.
 *
 * Lock order: the registry's slab_caches_lock (slab_registry.c), then an
 * allocator's locks, then the page allocator's zone_lock.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include "slab_common.h"

atomic_long_t large_block_pages;

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
	unsigned long live;

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
	kmem_cache_unregister(c);
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
	call_path(CALL_PATH_LARGE);
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
	call_path(CALL_PATH_LARGE);
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
