/* slab_common_kmalloc.c - the kmalloc front end that SLAB and SLUB share
 * (CONFIG_KMALLOC_CLASSES; SLOB's heap has no classes): the kmalloc
 * classes made at boot from the allocator's kmalloc_classes[], the table
 * by size that kmalloc_class() reads (mm/slab_common.h), and the slow
 * paths of kfree() and kmem_cache_alloc() that both take alike.
 *
 * The table.  One load finds the class of a size: kmalloc_small[] has a
 * slot per 8 bytes up to KMALLOC_SMALL_MAX, kmalloc_big[] one per 64
 * above, each pointing at the smallest class that holds the slot's
 * largest size (the classes' sizes are multiples of the steps).  Written
 * once at boot, smallest class first, then only read.
 *
 * Each allocator keeps its __kmalloc(), __kfree() and __ksize(), a few
 * lines around its own inline fast path and these lookups.  Lock order:
 * none taken here.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include "slab_common.h"

struct kmem_cache *kmalloc_small[KMALLOC_SMALL_MAX >> 3];
struct kmem_cache *kmalloc_big[KMALLOC_MAX_CACHE_SIZE >> 6];
size_t kmalloc_max_size;
atomic_long_t kmem_zero_ctor_refusals;

/* The table slot of size, 0 < size <= KMALLOC_MAX_CACHE_SIZE. */
static struct kmem_cache **kmalloc_slot(size_t size)
{
	return size <= KMALLOC_SMALL_MAX ? &kmalloc_small[(size - 1) >> 3] :
					   &kmalloc_big[(size - 1) >> 6];
}

void kmalloc_classes_init(void)
{
	size_t made = 0, size;
	unsigned int i;

	for (i = 0; i < nr_kmalloc_classes && kmalloc_classes[i].cs_size <= KMALLOC_MAX_CACHE_SIZE; i++) {
		struct cache_sizes *cs = &kmalloc_classes[i];

		cs->cs_cachep = __kmem_cache_create(cs->cs_name, cs->cs_size, cs->cs_size & -cs->cs_size,
						    CFLGS_KMALLOC, NULL, NULL);
		if (!cs->cs_cachep)
			break;		/* larger than any slab */
		for (size = made + 8; size <= cs->cs_size; size += 8)
			*kmalloc_slot(size) = cs->cs_cachep;
		made = cs->cs_size;
	}
	if (!made)
		panic("%s: cannot create the kmalloc classes", kmem_allocator_name);
	kmalloc_max_size = made;
}

/* Why kfree() or ksize() refuses a pointer on a page whose flags are flags
 * and that is on no slab of a kmalloc class. */
static const char *not_kmalloc(unsigned int flags)
{
	if ((flags & (PG_slab | PG_kmalloc)) != PG_slab)	/* or one being given back */
		return KMEM_NOT_KMALLOC;
	return flags & PG_internal ? "the allocator's own object, not a kmalloc() block" :
				     "an object of a cache, not a kmalloc() block";
}

noinline void kfree_not_kmalloc_slab(const void *obj, struct page *page, unsigned int flags,
				     void *caller)
{
	if (!(flags & PG_slab) && !kfree_large(obj, page))
		kmem_debug_validate("kfree", obj);
	else
		kmem_bad_free("kfree", obj, not_kmalloc(flags), caller);
}

noinline void refuse_zero_with_ctor(struct kmem_cache *c)
{
	atomic_long_inc(&kmem_zero_ctor_refusals);
	pr_err("kmem_cache_alloc: __GFP_ZERO on cache %s, which has a constructor: refused\n",
	       cache_common(c)->name);
}
