/* util_sheaf.c - prefilled sheaves (<tiny/slab.h>) built on the public
 * API alone: an array of objects taken with kmem_cache_alloc() and given
 * back with kmem_cache_free().  Every allocator uses it
 * (CONFIG_SLAB_PREFILL_GENERIC) but SLUB with sheaves, whose own sheaves
 * and barn serve the API (mm/slub_sheaves.c), unless the debugging layer
 * is built: then every object must pass through its public entry points,
 * as Linux gives a cache it debugs no sheaves. */
#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/string.h>

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
