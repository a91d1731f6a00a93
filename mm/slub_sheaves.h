/* slub_sheaves.h - SLUB's sheaves fast paths (CONFIG_SLUB_SHEAVES), inline
 * in the entry points of mm/slub_caches.c: take this CPU's flag, pop or push its
 * main sheaf, give the flag back.  The slow paths, the barn and the design
 * are in mm/slub_sheaves.c.  Included by mm/slub.h.
 */
#ifndef MM_SLUB_SHEAVES_H
#define MM_SLUB_SHEAVES_H

#define PCS_LOCKED	__builtin_offsetof(struct slub_pcs, locked)
#define PCS_MAIN	__builtin_offsetof(struct slub_pcs, main)

#define SHEAF_JUST_FREED "double free (the object was just freed: it tops this CPU's sheaf)"

/* The kmalloc() classes exist: caches get sheaves from now on. */
void slub_mode_kmalloc_ready(void);
/* Objects c's sheaves hold, on every CPU and in its barn: read racily,
 * approximate while other CPUs run (the rule: mm/slub_sheaves.c). */
unsigned long slub_sheaved_objects(struct kmem_cache *c);
/* Bytes of every cache's sheaves (kmalloc() blocks at their stride). */
unsigned long slub_sheaf_bytes(void);
/* When the page allocator has no slab, flush the cache's barn and this
 * CPU's spare and try once more (1, the default; the boot option
 * slub_pressure_flush=0 clears it, for make smallmem's comparison). */
extern int slub_pressure_flush;

static inline unsigned int slub_barn_full(const struct kmem_cache *c)
{
	return READ_ONCE(c->barn.nr_full);
}

static inline unsigned int slub_barn_empty(const struct kmem_cache *c)
{
	return READ_ONCE(c->barn.nr_empty);
}

/* The prefilled sheaves' raw entry points (<tiny/slab.h>'s names without
 * the debugging layer, which serves the API through mm/util_sheaf.c). */
struct slab_sheaf *__kmem_cache_prefill_sheaf(struct kmem_cache *cache, gfp_t flags,
					      unsigned int count);
void *__kmem_cache_alloc_from_sheaf(struct kmem_cache *cache, gfp_t flags,
				    struct slab_sheaf *sheaf);
int __kmem_cache_refill_sheaf(struct kmem_cache *cache, gfp_t flags,
			      struct slab_sheaf **sheafp, unsigned int count);
void __kmem_cache_return_sheaf(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf *sheaf);
unsigned int __kmem_cache_sheaf_size(const struct slab_sheaf *sheaf);

/* The validator's checks of c's sheaves and barn (mm/slub_sheaves_info.c). */
int slub_sheaves_validate(struct kmem_cache *c, unsigned long node_free);

/* The slow paths, entered with this CPU's flag of c held (they give it
 * back): main is empty (alloc) or full (free). */
void *sheaf_alloc_slow(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags);
const char *sheaf_free_slow(struct kmem_cache *c, struct kmem_cache *h, void *obj,
			    uintptr_t base, unsigned int idx);
/* The slab path, for code that found the flag taken: an interrupt of this
 * CPU's sheaves code (or a cache with no sheaves). */
void *slab_alloc_locked_out(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags);
const char *slab_free_locked_out(struct kmem_cache *c, struct kmem_cache *h, void *obj,
				 uintptr_t base, unsigned int idx);

/* Why the slab at base would refuse a free of its object idx now (it
 * heads the slab's free list, or the slab has no object in use): what
 * free_to_slab() refuses, read from the slab's state alone; NULL if
 * nothing.  An object in a sheaf is in use for its slab. */
static inline const char *sheaf_refusal(uintptr_t base, unsigned int idx)
{
	u32 s = slab_state(slab_page(base));

	return state_free(s) == idx ? JUST_FREED : !state_inuse(s) ? ALL_FREE : NULL;
}

/* With a memory checker watching: tells it of the free of obj unless its
 * slab would refuse it (a checker hears of a free only once the allocator
 * has checked it, and a sheaf reaches the slab later).  NULL if told, else
 * why refused. */
static inline const char *sheaf_tell_free(const struct kmem_cache *c, void *obj,
					  uintptr_t base, unsigned int idx)
{
	const char *why = sheaf_refusal(base, idx);

	if (!why)
		slub_mark_freed(c, obj);
	return why;
}

/* Takes this CPU's flag of the sheaves at p: 1, or 0 if code this
 * interrupted holds it.  A plain read, then a plain write: an interrupt in
 * between takes and gives it back whole.  No lock prefix. */
static __always_inline int pcs_trylock(percpu_off_t p)
{
	if (unlikely(arch_this_cpu_read(p + PCS_LOCKED)))
		return 0;
	arch_this_cpu_write(p + PCS_LOCKED, 1);
	barrier();
	return 1;
}

static __always_inline void pcs_unlock(percpu_off_t p)
{
	barrier();
	arch_this_cpu_write(p + PCS_LOCKED, 0);
}

static __always_inline void *slub_alloc(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	percpu_off_t p = c->cpu.sheaves;
	struct slub_sheaf *main;
	unsigned int size;
	void *obj;

	if (unlikely(!pcs_trylock(p)))
		return slab_alloc_locked_out(c, h, flags);
	main = (struct slub_sheaf *)arch_this_cpu_read(p + PCS_MAIN);
	size = READ_ONCE(main->size);
	if (unlikely(!size))
		return sheaf_alloc_slow(c, h, flags);
	obj = main->objects[--size];
	WRITE_ONCE(main->size, size);
	arch_this_cpu_add(h->cpu.count, 1);
	pcs_unlock(p);
	return slub_post_alloc(c, h, obj, flags);
}

static __always_inline const char *slub_free(struct kmem_cache *c, struct kmem_cache *h,
					      void *obj, uintptr_t base, unsigned int idx)
{
	percpu_off_t p = c->cpu.sheaves;
	struct slub_sheaf *main;
	unsigned int size;
	const char *why;

	if (unlikely(!pcs_trylock(p)))
		return slab_free_locked_out(c, h, obj, base, idx);
	main = (struct slub_sheaf *)arch_this_cpu_read(p + PCS_MAIN);
	size = READ_ONCE(main->size);
	if (unlikely(size && main->objects[size - 1] == obj)) {
		pcs_unlock(p);
		return SHEAF_JUST_FREED;
	}
	if (unlikely(size == main->capacity))
		return sheaf_free_slow(c, h, obj, base, idx);
	if (kmem_memcheck_watches() && (why = sheaf_tell_free(c, obj, base, idx))) {
		pcs_unlock(p);
		return why;
	}
	main->objects[size] = obj;
	WRITE_ONCE(main->size, size + 1);
	arch_this_cpu_add(h->cpu.count, -1);
	pcs_unlock(p);
	return NULL;
}

#endif /* MM_SLUB_SHEAVES_H */
