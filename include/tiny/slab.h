/* slab.h - the object allocator API, implemented by SLAB, SLUB or SLOB:
 * what a caller may call and what each call promises, and nothing else.
 *
 * Exactly one of mm/slab.c (CONFIG_SLAB), mm/slub_caches.c and mm/slub.c
 * (CONFIG_SLUB: with sheaves, CPU slabs or SLUB_TINY) and mm/slob.c
 * (CONFIG_SLOB) is built; callers use
 * only this header and never know which one they have.
 * Helpers built on the API alone (krealloc, kstrdup, the per-CPU
 * allocator) live in mm/util.c and serve them all.  What the allocators share
 * among themselves is mm/slab_common.h.
 *
 * Every call here may be made from interrupt context and never sleeps,
 * but kmem_cache_create() and kmem_cache_destroy() (process context).
 * Allocation failure returns NULL; freeing NULL is a no-op.  A bad call
 * (a pointer no allocator gave, a double free, a cache of the wrong
 * object, ...) is reported with its caller and ignored where the
 * allocator can tell (docs/design.md has the table of which bad call
 * each allocator catches; the debugging layer, kmem_debug=, catches the
 * rest).
 */
#ifndef TINY_SLAB_H
#define TINY_SLAB_H

#include <tiny/types.h>
#include <tiny/kconfig.h>
#include <tiny/smp.h>
#include <tiny/gfp.h>
#include <tiny/cache.h>

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

struct kmem_cache;

/* Object constructor or destructor: gets the object's address.  SLAB and
 * SLUB run the constructor when a slab is created and the destructor when
 * it is destroyed; SLOB runs them on every allocation and every free. */
typedef void (*kmem_cache_ctor_t)(void *obj);

/* Does the allocator run a cache's constructor on every allocation (SLOB)
 * rather than once per object as it enters the cache (SLAB, SLUB)?  Then
 * __GFP_ZERO on a cache with a constructor is honoured (zeroed, then
 * constructed) instead of refused.  Callers that care (the debugging
 * layer, the tests) ask this rather than testing CONFIG_SLAB. */
extern const int kmem_ctor_every_alloc;

/*
 * Creates a cache of objects of size bytes aligned to align (0 = default,
 * otherwise a power of two).  Where the registry of live caches is built
 * (SLAB, SLUB, and SLOB with the debugging layer) names are unique: a name
 * that a live cache has is refused (reported); SLOB's production build
 * does not check names.  Returns NULL on failure, or panics naming
 * the cache when flags has SLAB_PANIC.  Process context.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor);

/*
 * kmem_cache_create() with its optional arguments in a struct, as Linux's
 * kmem_cache_args (the fields this API has); zero fields are defaults.
 * sheaf_capacity: the cache's per-CPU arrays hold at least this many
 * objects (Linux: the larger of it and the allocator's own capacity).
 * SLUB with sheaves: each sheaf's capacity; SLAB: each CPU's magazine
 * (its limit; half of it a batch).  SLUB with CPU slabs, SLUB_TINY and
 * SLOB keep no per-CPU arrays and ignore it, as do SLUB's caches made
 * before kmalloc() exists and caches under kmem_debug= (which have no
 * sheaves).  A cache that asks for one is never merged with another (its
 * capacity is its own).  Above KMEM_SHEAF_CAPACITY_MAX the cache is
 * refused like a bad size (NULL, or a panic with SLAB_PANIC).
 */
struct kmem_cache_args {
	size_t align;
	kmem_cache_ctor_t ctor, dtor;
	unsigned int sheaf_capacity;
};
#define KMEM_SHEAF_CAPACITY_MAX	120	/* SLAB's largest magazine; a sheaf
					 * of it fits a kmalloc() class */

#if IS_ENABLED(CONFIG_SLAB_PERCPU_CAPACITY)
struct kmem_cache *kmem_cache_create_args(const char *name, size_t size,
					  const struct kmem_cache_args *args, unsigned long flags);
#else
static inline struct kmem_cache *kmem_cache_create_args(const char *name, size_t size,
							const struct kmem_cache_args *args,
							unsigned long flags)
{	/* no per-CPU arrays: the capacity only checked (size 0 is refused) */
	return kmem_cache_create(name, args->sheaf_capacity > KMEM_SHEAF_CAPACITY_MAX ? 0 : size,
				 args->align, flags, args->ctor, args->dtor);
}
#endif

/* Destroys an empty cache and returns 0; a cache that still has objects in
 * use is reported (name and count) and kept, returning -1, and so is a
 * pointer that is no live cache (a second destroy).  The caller makes sure
 * nobody allocates from or frees to the cache while it is destroyed, nor
 * uses it afterwards (that is a use after free, which only the debugging
 * layer catches). */
int kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t flags);
/* Frees an object of cache; NULL is a no-op.  Anything else that is not a
 * live object of this cache (ZERO_SIZE_PTR included) is reported through
 * kmem_bad_free() and ignored.  SLUB merges a cache into a live one of the
 * same stride (an alias; not with kmem_debug= or slab_nomerge): as in
 * Linux the two are one cache, so an object of either freed to the other
 * is freed, not reported.  It is counted against the cache it was freed
 * to, so the cache it came from still counts it in use: that cache's
 * destroy refuses (an object out), which is where such a free is seen. */
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

/* mm/util.c: built on the calls above, the same for every allocator; each
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

/*
 * Prefilled sheaves (Linux's API for allocations that must not fail, made
 * for code that cannot handle a failure at the point of use): objects of
 * one cache taken in advance, where a failure can still be handled.
 * SLUB with sheaves serves them from its per-CPU sheaves and barn
 * (mm/slub_sheaves.c), as Linux does; every other allocator, and every
 * one under the debugging layer, through kmem_cache_alloc() and
 * kmem_cache_free() (mm/util_sheaf.c).  The objects count as in use from
 * the prefill on.
 *
 * kmem_cache_prefill_sheaf(): a sheaf holding at least count objects of
 * cache (SLUB's sheaves may hold more, as Linux's), or NULL with nothing
 * taken (out of memory).  Any count, 0 included.
 * kmem_cache_alloc_from_sheaf(): one of them, which cannot fail while the
 * sheaf holds any (kmem_cache_sheaf_size()); NULL once it is empty.
 * flags: __GFP_ZERO zeroes the object (not for a cache with a
 * constructor: it would undo it); nothing else matters.
 * kmem_cache_refill_sheaf(): makes *sheafp hold at least count, beyond its
 * first count too (*sheafp may then be a new sheaf): 0, or -1 out of
 * memory with *sheafp as it was.
 * kmem_cache_return_sheaf(): frees the objects left and the sheaf.
 * Any context, as kmem_cache_alloc(); one user of a sheaf at a time.
 */
struct slab_sheaf;
struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *cache, gfp_t flags,
					    unsigned int count);
void *kmem_cache_alloc_from_sheaf(struct kmem_cache *cache, gfp_t flags,
				  struct slab_sheaf *sheaf);
int kmem_cache_refill_sheaf(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf **sheafp,
			    unsigned int count);
void kmem_cache_return_sheaf(struct kmem_cache *cache, gfp_t flags, struct slab_sheaf *sheaf);
unsigned int kmem_cache_sheaf_size(const struct slab_sheaf *sheaf);

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
/* slab_pages and large_pages alone (bytes_used is left as it was, or
 * filled where that costs nothing), from running totals: the same cost at
 * any number of caches, for callers that ask often (the replay, at every
 * new peak).  kmem_get_stats() walks the caches to count bytes_used. */
void kmem_get_pages(struct kmem_stats *stats);

/* The bytes of the objects callers freed that the per-CPU layers keep for
 * the next allocation, at their size: SLAB's per-CPU arrays, SLUB's
 * sheaves and barns (counted in neither bytes_used nor free memory).  0
 * where a freed object goes back to its slab or heap: SLUB's CPU slabs,
 * SLUB_TINY and SLOB (inline, no code).  A walk of the caches, as a
 * report's; approximate while other CPUs run. */
#ifdef CONFIG_SLOB
static inline unsigned long kmem_cached_bytes(void)
{
	return 0;
}
#else
unsigned long kmem_cached_bytes(void);
#endif

/* The largest free block in SLOB's heap, in bytes: the largest request it
 * could still serve without taking pages (the soak records it).  0 for an
 * allocator that keeps no such heap (SLAB, SLUB: objects are sized by cache). */
#ifdef CONFIG_SLOB
unsigned long kmem_heap_largest_free(void);
#else
static inline unsigned long kmem_heap_largest_free(void)
{
	return 0;
}
#endif

extern const char kmem_allocator_name[];	/* "SLAB", "SLUB", "SLUB_TINY" or "SLOB" */

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

/*
 * Prints the heap map, a picture of where the memory goes: one cell per
 * page the object allocator holds, a row group per cache with slabs (SLAB,
 * SLUB: the cache's name first) or per list of heap pages (SLOB), then
 * the large kmalloc blocks; each cell is shaded by how full its slab or
 * heap page is, from '.' (empty) through '-', '+' and '*' (under a third,
 * under two thirds, not full) to '#' (full), the legend printed first and
 * "heap map: N pages in M groups" last.
 * Rows wrap at HEAP_MAP_WIDTH cells.  A slab's fill is what it has lent
 * out: objects a CPU keeps (a magazine, a sheaf, its slab's free list)
 * count as used until kmem_reclaim() gives them back.  Takes the locks
 * kmem_report() takes.
 */
#define HEAP_MAP_WIDTH	40	/* with the name and printk's timestamp: 73 columns */
void kmem_heap_map(void);
/* The same, each line (no newline) given to emit instead of printed: for
 * the tests.  emit is called with the allocator's locks held: it must
 * neither allocate nor sleep. */
typedef void (*heap_map_emit_t)(void *arg, const char *line);
void kmem_heap_map_lines(heap_map_emit_t emit, void *arg);

/* Walks every free list, slab and counter of the allocator and reports each
 * inconsistency; returns their number (0 = consistent). */
int kmem_validate(void);

#endif /* TINY_SLAB_H */
