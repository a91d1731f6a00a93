/* slab_common_args.c - kmem_cache_create_args() where a cache's per-CPU
 * capacity means something (CONFIG_SLAB_PERCPU_CAPACITY: SLAB's magazines,
 * SLUB's sheaves); <tiny/slab.h> has the others' version, which ignores
 * the capacity.  The cache is made by kmem_cache_create() (through the
 * debugging layer where there is one), never merged, and then its
 * allocator raises its capacity (cache_raise_percpu_capacity()) before
 * anyone can use it.  Process context. */
#include <tiny/kernel.h>
#include "slab_common.h"

struct kmem_cache *kmem_cache_create_args(const char *name, size_t size,
					  const struct kmem_cache_args *args, unsigned long flags)
{
	unsigned int n = args->sheaf_capacity;
	struct kmem_cache *c;

	c = kmem_cache_create(name, n > KMEM_SHEAF_CAPACITY_MAX ? 0 : size, args->align,
			      flags | (n ? SLAB_NO_MERGE : 0), args->ctor, args->dtor);
	if (!c || !n || !cache_raise_percpu_capacity(c, n))
		return c;
	kmem_cache_destroy(c);
	if (flags & SLAB_PANIC)
		panic("kmem_cache_create: cannot give cache %s a capacity of %u", name, n);
	return NULL;
}
