/* slab_common.c - what SLAB and SLOB share: the registry of live caches,
 * kmem_cache_create() and kmem_cache_destroy() around each allocator's
 * own hooks, large kmalloc() blocks of whole pages, and the texts of the
 * bad-pointer reports.
 *
 * Registry.  Every live cache is on slab_caches, so that names are unique
 * and a pointer that is no live cache (a second destroy) is refused.
 *
 * Large blocks.  A kmalloc() block larger than the allocator's own blocks
 * is whole pages, only those it needs, found from its head page (PG_large)
 * in O(1); the list is for the reports.
 *
 * Lock order: slab_caches_lock, then an allocator's locks (SLAB walks the
 * registry and takes each cache's lock inside it); large_block_lock, then
 * the page allocator's zone_lock (page_update_flags()).
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include "slab_common.h"

LIST_HEAD(slab_caches);
DEFINE_SPINLOCK(slab_caches_lock);

LIST_HEAD(large_blocks);
DEFINE_SPINLOCK(large_block_lock);
unsigned long large_block_pages;

/* ---- the registry ------------------------------------------------------------- */

/* The live cache named name, or NULL.  slab_caches_lock held. */
static struct kmem_cache_common *cache_named(const char *name)
{
	struct kmem_cache_common *cc;

	assert_spin_held(&slab_caches_lock);
	list_for_each_entry(cc, &slab_caches, list)
		if (!strcmp(cc->name, name))
			return cc;
	return NULL;
}

int kmem_cache_listed(const struct kmem_cache *c)
{
	struct kmem_cache_common *cc;
	unsigned long flags;
	int found = 0;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(cc, &slab_caches, list)
		found |= cc == cache_common(c);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return found;
}

int kmem_cache_register(struct kmem_cache *c)
{
	struct kmem_cache_common *cc = cache_common(c);
	unsigned long flags;
	int taken;

	spin_lock_irqsave(&slab_caches_lock, flags);
	taken = cache_named(cc->name) != NULL;
	if (!taken)
		list_add_tail(&cc->list, &slab_caches);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	if (taken)
		pr_err("kmem_cache_create: a cache named %s exists already; not created\n", cc->name);
	return taken ? -1 : 0;
}

static void cache_unregister(struct kmem_cache *c)
{
	unsigned long flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_del(&cache_common(c)->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* ---- create and destroy ---------------------------------------------------------- */

/* Can a cache of objects of size bytes aligned to align be asked for? */
static int cache_args_ok(const char *name, size_t size, size_t align)
{
	return name && size && (!align || is_power_of_2(align)) &&
	       get_order(max(size, align)) < MAX_ORDER;
}

/* A new cache, set up by the allocator but not listed; NULL if it cannot. */
static struct kmem_cache *cache_new(const char *name, size_t size, size_t align,
				    unsigned long flags, kmem_cache_ctor_t ctor,
				    kmem_cache_ctor_t dtor)
{
	struct kmem_cache *c;

	if (flags & SLAB_MUST_HWCACHE_ALIGN)
		align = max_t(size_t, align, L1_CACHE_BYTES);
	if (!cache_args_ok(name, size, align))
		return NULL;
	c = cache_struct_alloc();
	if (!c)
		return NULL;
	*cache_common(c) = (struct kmem_cache_common){ .name = name, .object_size = size,
						      .align = align, .flags = flags,
						      .ctor = ctor, .dtor = dtor };
	if (cache_open(c)) {
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

	if (c && kmem_cache_register(c)) {
		cache_close(c);
		cache_struct_free(c);
		c = NULL;
	}
	if (!c && (flags & SLAB_PANIC))
		panic("kmem_cache_create: cannot create cache %s", name ? name : "(null)");
	if (c)
		kmem_debug_validate("kmem_cache_create", c);
	return c;
}

int __kmem_cache_destroy(struct kmem_cache *c)
{
	unsigned long in_use;

	if (!kmem_cache_listed(c)) {
		kmem_bad_free("kmem_cache_destroy", c, KMEM_NOT_CACHE, __builtin_return_address(0));
		return -1;
	}
	in_use = cache_in_use(c);
	if (in_use) {
		pr_err("kmem_cache_destroy: cache %s still has %lu objects in use; not destroyed\n",
		       cache_common(c)->name, in_use);
		return -1;
	}
	cache_unregister(c);
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
	unsigned int order = get_order(size);
	unsigned long nr = PAGE_ALIGN(size) >> PAGE_SHIFT, save;
	struct page *page;
	void *addr;

	if (should_failslab("kmalloc", size, flags))
		return NULL;
	page = alloc_pages(flags & ~__GFP_ZERO, order);
	if (!page)
		return NULL;
	if (nr < 1UL << order)
		split_page_block(page, order, nr);
	addr = page_address(page);
	if (flags & __GFP_ZERO)
		memset(addr, 0, nr << PAGE_SHIFT);
	spin_lock_irqsave(&large_block_lock, save);
	page->inuse = nr;
	page_update_flags(page, 1, PG_large, 0);
	list_add(&page->lru, &large_blocks);
	large_block_pages += nr;
	spin_unlock_irqrestore(&large_block_lock, save);
	kmem_mark_allocated(addr, nr << PAGE_SHIFT, (flags & __GFP_ZERO) != 0);
	return addr;
}

/* Gives the nr pages of a large block back: as the block alloc_pages()
 * made if it was not split, else page by page. */
static void large_block_release(struct page *page, unsigned long nr)
{
	unsigned long i;

	if (nr == 1UL << page->order) {
		__free_pages(page, page->order);
		return;
	}
	for (i = 0; i < nr; i++)
		__free_pages(page + i, 0);
}

/* Is obj the start of the large block whose head page is page?
 * large_block_lock held (PG_large changes under it). */
static int is_large_block(const void *obj, const struct page *page)
{
	assert_spin_held(&large_block_lock);
	return page && (page->flags & PG_large) && obj == page_address(page);
}

int kfree_large(const void *obj, struct page *page)
{
	unsigned long save, nr = 0;
	int ok;

	spin_lock_irqsave(&large_block_lock, save);
	ok = is_large_block(obj, page);
	if (ok) {
		page_update_flags(page, 1, 0, PG_large);
		list_del_init(&page->lru);
		nr = page->inuse;
		large_block_pages -= nr;
	}
	spin_unlock_irqrestore(&large_block_lock, save);
	if (!ok)
		return -1;
	kmem_mark_freed(obj, nr << PAGE_SHIFT);
	kmem_mark_internal(obj, nr << PAGE_SHIFT);	/* as the page allocator gave it */
	large_block_release(page, nr);
	return 0;
}

size_t ksize_large(const void *obj, const struct page *page)
{
	unsigned long save;
	size_t size = 0;

	spin_lock_irqsave(&large_block_lock, save);
	if (is_large_block(obj, page))
		size = page->inuse << PAGE_SHIFT;
	spin_unlock_irqrestore(&large_block_lock, save);
	return size;
}

unsigned long large_blocks_held(void)
{
	unsigned long save, pages;

	spin_lock_irqsave(&large_block_lock, save);
	pages = large_block_pages;
	spin_unlock_irqrestore(&large_block_lock, save);
	return pages;
}

KMEM_PUBLIC(kmem_cache_create)
KMEM_PUBLIC(kmem_cache_destroy)
KMEM_PUBLIC(kmem_cache_size)
KMEM_PUBLIC(kmem_cache_name)
