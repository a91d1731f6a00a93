/* slab.h - the object allocator API, implemented by SLAB or by SLOB.
 *
 * Exactly one of mm/slab.c (CONFIG_SLAB) and mm/slob.c (CONFIG_SLOB) is
 * built; callers use only this header and never know which one they have.
 * Helpers built on the API alone (krealloc, kstrdup, the per-CPU
 * allocator) live in mm/util.c and serve both.
 *
 * Every call here may be made from interrupt context and never sleeps.
 * Allocation failure returns NULL; freeing NULL is a no-op.
 */
#ifndef TINY_SLAB_H
#define TINY_SLAB_H

#include <tiny/types.h>
#include <tiny/kconfig.h>
#include <tiny/smp.h>
#include <tiny/gfp.h>
#include <arch/cache.h>

/* kmem_cache_create() flags */
#define SLAB_HWCACHE_ALIGN	0x00002000UL	/* align objects on a cache line (a hint) */
#define SLAB_MUST_HWCACHE_ALIGN	0x00008000UL	/* ... and really do it */
#define SLAB_PANIC		0x00040000UL	/* panic if creation fails */

/* kmalloc(0) returns this: not NULL, not usable, and faulting if touched
 * (page 0 is unmapped).  kfree() and ksize() accept it. */
#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(p)	((uintptr_t)(p) <= (uintptr_t)ZERO_SIZE_PTR)

/* Alignment of every kmalloc() result. */
#define KMALLOC_MIN_ALIGN	__alignof__(unsigned long long)
#define L1_CACHE_BYTES		ARCH_L1_CACHE_BYTES

struct kmem_cache;

/* Object constructor or destructor: gets the object's address.  SLAB runs
 * the constructor when a slab is created and the destructor when it is
 * destroyed; SLOB runs them on every allocation and every free. */
typedef void (*kmem_cache_ctor_t)(void *obj);

/*
 * Creates a cache of objects of size bytes aligned to align (0 = default,
 * otherwise a power of two).  Names are unique: a name that a live cache
 * has is refused (reported).  Returns NULL on failure, or panics naming
 * the cache when flags has SLAB_PANIC.  Process context.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor);
/* Destroys an empty cache and returns 0; a cache that still has objects in
 * use is reported (name and count) and kept, returning -1, and so is a
 * pointer that is no live cache (a second destroy).  The caller makes sure
 * nobody allocates from or frees to the cache while it is destroyed, nor
 * uses it afterwards (that is a use after free: KMEM_BAD_DESTROYED_CACHE). */
int kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t flags);
/* Frees an object of cache; NULL is a no-op.  Anything else that is not a
 * live object of this cache (ZERO_SIZE_PTR included) is reported through
 * kmem_bad_free() and ignored. */
void kmem_cache_free(struct kmem_cache *cache, void *obj);
size_t kmem_cache_size(struct kmem_cache *cache);	/* object size */
const char *kmem_cache_name(struct kmem_cache *cache);
/* Gives every page the cache can spare back to the page allocator;
 * returns the number of pages freed. */
int kmem_cache_shrink(struct kmem_cache *cache);

void *kmalloc(size_t size, gfp_t flags);
/* Frees a kmalloc() block; NULL and ZERO_SIZE_PTR are no-ops.  Anything
 * else (a cache object, the allocator's own, a pointer into a block) is
 * reported through kmem_bad_free() and ignored. */
void kfree(const void *obj);
/* Usable size of a kmalloc() block (>= the size asked for); 0 for NULL and
 * ZERO_SIZE_PTR; 0, reported, for anything that is no kmalloc() block. */
size_t ksize(const void *obj);

/*
 * kmalloc(), kfree() and ksize() for a function that allocates for its own
 * caller (the helpers below): the debugging layer (CONFIG_DEBUG_KMEM)
 * records and reports caller, the helper's caller, instead of the helper.
 * caller is a return address: __builtin_return_address(0) in the helper.
 * Without CONFIG_DEBUG_KMEM nothing records call sites and these are the
 * plain calls, at no cost.
 */
#if IS_ENABLED(CONFIG_DEBUG_KMEM)
void *kmalloc_track_caller(size_t size, gfp_t flags, void *caller);
void kfree_track_caller(const void *obj, void *caller);
size_t ksize_track_caller(const void *obj, void *caller);
#else
static inline void *kmalloc_track_caller(size_t size, gfp_t flags, void *caller)
{
	return kmalloc(size, flags);
}
static inline void kfree_track_caller(const void *obj, void *caller)
{
	kfree(obj);
}
static inline size_t ksize_track_caller(const void *obj, void *caller)
{
	return ksize(obj);
}
#endif

/* mm/util.c: built on the calls above, the same for both allocators; each
 * allocates (and krealloc frees) on behalf of its caller, the site that
 * the debugging layer records. */
/* kmalloc() with every byte up to ksize() zeroed. */
void *kzalloc(size_t size, gfp_t flags);
/* n * size bytes, zeroed; NULL if the product overflows. */
void *kcalloc(size_t n, size_t size, gfp_t flags);
/* Resizes obj keeping min(old, new) bytes; krealloc(NULL, ..) is kmalloc,
 * new_size 0 frees obj and returns ZERO_SIZE_PTR.  On failure returns NULL
 * and leaves obj untouched (a foreign obj is reported by ksize()).  With
 * __GFP_ZERO a moved block is zeroed beyond the copy; a block kept in place
 * is zero there only if every earlier call asked for __GFP_ZERO too. */
void *krealloc(const void *obj, size_t new_size, gfp_t flags);
char *kstrdup(const char *s, gfp_t flags);
void *kmemdup(const void *src, size_t len, gfp_t flags);

/* Per-CPU data: one zeroed copy of size bytes for each possible CPU. */
void *__alloc_percpu(size_t size, size_t align);
void free_percpu(void *ptr);
void *per_cpu_ptr(void *ptr, unsigned int cpu);
#define alloc_percpu(type)	((type *)__alloc_percpu(sizeof(type), __alignof__(type)))

/* What the object allocator holds, for meminfo and the benchmarks. */
struct kmem_stats {
	unsigned long slab_pages;	/* pages of heap (SLOB) or of slabs (SLAB) */
	unsigned long large_pages;	/* pages of large blocks taken whole from the page allocator */
	unsigned long bytes_used;	/* bytes handed out to callers, rounded as the allocator
					 * rounds them (SLOB: with kmalloc headers); not the
					 * allocator's own metadata */
};
void kmem_get_stats(struct kmem_stats *stats);

/* The largest free block in SLOB's heap, in bytes: the largest request it
 * could still serve without taking pages (the soak records it).  0 for an
 * allocator that keeps no such heap (SLAB: objects are sized by cache). */
#ifdef CONFIG_SLOB
unsigned long kmem_heap_largest_free(void);
#else
static inline unsigned long kmem_heap_largest_free(void)
{
	return 0;
}
#endif

extern const char kmem_allocator_name[];	/* "SLAB" or "SLOB" */

/* Boot: kmem_cache_init() right after the page allocator, and
 * kmem_cache_init_late() once timers run (starts the shrinker/reaper). */
void kmem_cache_init(void);
void kmem_cache_init_late(void);

/* Gives back to the page allocator everything the allocator can spare right
 * now (what the periodic shrinker or reaper would do over time); returns
 * the number of pages freed. */
unsigned long kmem_reclaim(void);

/* Prints the allocator's own report: slabinfo for SLAB, heap statistics
 * for SLOB. */
void kmem_report(void);

/* Walks every free list, slab and counter of the allocator and reports each
 * inconsistency; returns their number (0 = consistent). */
int kmem_validate(void);

/*
 * Bad calls, each a case of the table in docs/design.md.  Production
 * code catches those it can without cost to its purpose (SLAB: no shared
 * write on the fast path; SLOB: no bytes it cannot spare): reported through
 * kmem_bad_free(), nothing changed.  The rest need per-object state and
 * are caught by the debugging layer (CONFIG_DEBUG_KMEM, kmem_debug=); one
 * the allocator does not catch corrupts its heap when the layer is off.
 */
enum kmem_bad_call {
	KMEM_BAD_NOT_HEAP,		/* a pointer no allocator gave: stack, global, a page */
	KMEM_BAD_INSIDE_KMALLOC,	/* kfree/ksize of a pointer inside a kmalloc() block */
	KMEM_BAD_INSIDE_OBJECT,		/* kmem_cache_free of a pointer inside an object */
	KMEM_BAD_DOUBLE_KFREE,		/* kfree of a block just freed */
	KMEM_BAD_DOUBLE_CACHE_FREE,	/* kmem_cache_free of an object just freed */
	KMEM_BAD_DOUBLE_FREE_LATER,	/* freed again after other objects were freed */
	KMEM_BAD_WRONG_CACHE,		/* an object of another cache, of another size */
	KMEM_BAD_WRONG_CACHE_SAME_SIZE,	/* an object of another cache of the same size */
	KMEM_BAD_KMALLOC_TO_CACHE,	/* a kmalloc() block to kmem_cache_free */
	KMEM_BAD_OBJECT_TO_KFREE,	/* a cache object to kfree or ksize */
	KMEM_BAD_OWN_OBJECT,		/* the allocator's own (a cache struct) to kfree/ksize */
	KMEM_BAD_FOREIGN_PAGE_TO_CACHE,	/* a large block or a page to a page-sized cache */
	KMEM_BAD_DESTROYED_CACHE,	/* kmem_cache_alloc/free on a destroyed cache */
	KMEM_BAD_CALLS
};
/* The bad calls the allocator built here catches by itself: a bit per
 * kmem_bad_call (every other bad call of the API: a second destroy, a free
 * of ZERO_SIZE_PTR to a cache, a large block freed twice, is caught by
 * both). */
extern const unsigned long kmem_checks;
#define KMEM_CHECKS_ALL		((1UL << KMEM_BAD_CALLS) - 1)
#define KMEM_CHECK(what)	(1UL << KMEM_BAD_##what)
static inline int kmem_allocator_catches(enum kmem_bad_call what)
{
	return (kmem_checks >> what) & 1;
}

/* For the allocators (mm/util.c): reports an invalid kfree()/kmem_cache_free()
 * argument with the caller (%pS; the debugging layer's caller when the
 * layer passed the call on: kmem_debug_bad_free()), and counts it. */
void kmem_bad_free(const char *fn, const void *obj, const char *why, void *caller);
extern unsigned long kmem_bad_free_count;
/* With CONFIG_DEBUG_KMEM_VALIDATE: runs kmem_validate() after an operation
 * and reports the first operation after which it fails.  Without it, not
 * even a call on the allocators' fast paths. */
void __kmem_debug_validate(const char *op, const void *obj);
/* A self-test that leaves the heap inconsistent on purpose for a while (two
 * copies of one object in two CPUs' magazines) holds that check off
 * meanwhile: kmem_debug_validate_hold(1), then (0).  Nests. */
void kmem_debug_validate_hold(int hold);
static inline void kmem_debug_validate(const char *op, const void *obj)
{
	if (IS_ENABLED(CONFIG_DEBUG_KMEM_VALIDATE))
		__kmem_debug_validate(op, obj);
}

#endif /* TINY_SLAB_H */
