/* util.c - allocation helpers built on the public API alone, shared by
 * every allocator: zeroing and array allocation, krealloc, string
 * duplication, per-CPU allocation.  They sit above the API and call only
 * it (<tiny/slab.h>), never an allocator's internals.  The prefilled
 * sheaves built the same way are mm/util_sheaf.c. */
#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/string.h>

/* The helpers allocate on behalf of their caller: each passes its own
 * return address down (<tiny/slab.h>, kmalloc_track_caller), so that the
 * debugging layer names the driver's function, not the helper.  Without
 * the layer no site is recorded, and kcalloc and kstrdup call kzalloc and
 * kmemdup as they always did: the kernel is as small as before. */

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc_track_caller(size, flags | __GFP_ZERO, __builtin_return_address(0));
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	if (!IS_ENABLED(CONFIG_DEBUG_KMEM))
		return kzalloc(n * size, flags);
	return kmalloc_track_caller(n * size, flags | __GFP_ZERO, __builtin_return_address(0));
}

void *krealloc(const void *obj, size_t new_size, gfp_t flags)
{
	void *caller = __builtin_return_address(0);
	size_t old_size;
	void *p;

	if (ZERO_OR_NULL_PTR(obj))
		return kmalloc_track_caller(new_size, flags, caller);
	if (!new_size) {
		kfree_track_caller(obj, caller);
		return ZERO_SIZE_PTR;
	}
	old_size = ksize_track_caller(obj, caller);
	if (!old_size)
		return NULL;		/* not a kmalloc() block: ksize() reported it */
	if (new_size <= old_size)
		return (void *)obj;
	p = kmalloc_track_caller(new_size, flags, caller);
	if (p) {
		memcpy(p, obj, old_size);
		kfree_track_caller(obj, caller);
	}
	return p;
}

/* kmemdup() for caller; NULL if out of memory. */
static void *kmemdup_caller(const void *src, size_t len, gfp_t flags, void *caller)
{
	void *p = kmalloc_track_caller(len, flags, caller);

	if (p && len)
		memcpy(p, src, len);
	return p;
}

void *kmemdup(const void *src, size_t len, gfp_t flags)
{
	return kmemdup_caller(src, len, flags, __builtin_return_address(0));
}

char *kstrdup(const char *s, gfp_t flags)
{
	if (!s)
		return NULL;
	if (!IS_ENABLED(CONFIG_DEBUG_KMEM))
		return kmemdup(s, strlen(s) + 1, flags);
	return kmemdup_caller(s, strlen(s) + 1, flags, __builtin_return_address(0));
}

/*
 * Per-CPU data: a descriptor with one pointer per possible CPU, each to a
 * zeroed copy.  Copies needing more than kmalloc()'s alignment are cut
 * from a larger block; raw[] keeps what to free.
 */
struct percpu_data {
	void *ptrs[NR_CPUS];
	void *raw[NR_CPUS];
};

void free_percpu(void *ptr)
{
	void *caller = __builtin_return_address(0);
	struct percpu_data *pd = ptr;
	int cpu;

	if (!pd)
		return;
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		kfree_track_caller(pd->raw[cpu], caller);
	kfree_track_caller(pd, caller);
}

void *__alloc_percpu(size_t size, size_t align)
{
	size_t extra = align > KMALLOC_MIN_ALIGN ? align - 1 : 0;
	void *caller = __builtin_return_address(0);
	struct percpu_data *pd;
	int cpu;

	if (!size || (align && !is_power_of_2(align)) || align > PAGE_SIZE ||
	    size > (size_t)-1 - extra)
		return NULL;
	pd = kmalloc_track_caller(sizeof(*pd), GFP_KERNEL | __GFP_ZERO, caller);
	if (!pd)
		return NULL;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		pd->raw[cpu] = kmalloc_track_caller(size + extra, GFP_KERNEL | __GFP_ZERO, caller);
		if (!pd->raw[cpu]) {
			free_percpu(pd);
			return NULL;
		}
		pd->ptrs[cpu] = extra ? PTR_ALIGN(pd->raw[cpu], align) : pd->raw[cpu];
	}
	return pd;
}

void *per_cpu_ptr(void *ptr, unsigned int cpu)
{
	struct percpu_data *pd = ptr;

	return cpu < NR_CPUS ? pd->ptrs[cpu] : NULL;
}
