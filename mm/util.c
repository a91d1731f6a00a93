/* util.c - allocation helpers built on the public API alone, shared by
 * every allocator: zeroing and array allocation, krealloc, string
 * duplication, prefilled sheaves, per-CPU allocation.  They sit above the API and call only
 * it (<tiny/slab.h>), never an allocator's internals. */
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

/* ---- prefilled sheaves -------------------------------------------------------- */

/* An array of objects taken with kmem_cache_alloc(): size of them, room
 * for capacity. */
struct slab_sheaf {
	unsigned int size, capacity;
	void *objects[];
};

/* Tops s up to count objects (count <= s->capacity): 0, or -1 with those
 * it took given back. */
static int sheaf_top_up(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf *s,
			unsigned int count)
{
	unsigned int had = s->size;

	while (s->size < count) {
		void *obj = kmem_cache_alloc(cache, flags & ~__GFP_ZERO);

		if (!obj) {
			while (s->size > had)
				kmem_cache_free(cache, s->objects[--s->size]);
			return -1;
		}
		s->objects[s->size++] = obj;
	}
	return 0;
}

/* An empty sheaf with room for capacity objects, or NULL. */
static struct slab_sheaf *sheaf_alloc(unsigned int capacity, gfp_t flags)
{
	struct slab_sheaf *s;
	size_t bytes;

	if (__builtin_mul_overflow((size_t)capacity, sizeof(void *), &bytes) ||
	    __builtin_add_overflow(bytes, sizeof(*s), &bytes))
		return NULL;
	s = kmalloc(bytes, flags & ~__GFP_ZERO);
	if (s)
		*s = (struct slab_sheaf){ .capacity = capacity };
	return s;
}

struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *cache, gfp_t flags,
					    unsigned int count)
{
	struct slab_sheaf *s = sheaf_alloc(count, flags);

	if (s && sheaf_top_up(cache, flags, s, count)) {
		kfree(s);
		s = NULL;
	}
	return s;
}

void *kmem_cache_alloc_from_sheaf(struct kmem_cache *cache, gfp_t flags,
				  struct slab_sheaf *sheaf)
{
	void *obj;

	if (!sheaf->size)
		return NULL;
	obj = sheaf->objects[--sheaf->size];
	if (flags & __GFP_ZERO)
		memset(obj, 0, kmem_cache_size(cache));
	return obj;
}

int kmem_cache_refill_sheaf(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf **sheafp,
			    unsigned int count)
{
	struct slab_sheaf *s = *sheafp, *bigger;

	if (count <= s->capacity)
		return sheaf_top_up(cache, flags, s, count);
	bigger = sheaf_alloc(count, flags);
	if (!bigger)
		return -1;
	memcpy(bigger->objects, s->objects, s->size * sizeof(void *));
	bigger->size = s->size;
	if (sheaf_top_up(cache, flags, bigger, count)) {
		kfree(bigger);
		return -1;
	}
	kfree(s);
	*sheafp = bigger;
	return 0;
}

void kmem_cache_return_sheaf(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf *sheaf)
{
	(void)flags;
	while (sheaf->size)
		kmem_cache_free(cache, sheaf->objects[--sheaf->size]);
	kfree(sheaf);
}

unsigned int kmem_cache_sheaf_size(const struct slab_sheaf *sheaf)
{
	return sheaf->size;
}
