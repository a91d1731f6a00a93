/* kmem_raw.h - included by the allocator (mm/slab.c or mm/slob.c) and by
 * the debugging layer (mm/kmem_debug.c).  With CONFIG_DEBUG_KMEM it renames
 * the allocator's public entry points to raw_*, so that mm/kmem_debug.c can
 * implement the public API of <tiny/slab.h> on top of them (red zones,
 * poisoning, owner tracking: see that file).  Calls the allocator makes to
 * itself are renamed too and stay inside it.  Without CONFIG_DEBUG_KMEM it
 * does nothing: the allocator compiles to the same object file.  The layer
 * defines KMEM_DEBUG_LAYER first: it gets the raw_* prototypes only. */
#ifndef MM_KMEM_RAW_H
#define MM_KMEM_RAW_H

#include <tiny/kconfig.h>
#include <tiny/slab.h>

#if IS_ENABLED(CONFIG_DEBUG_KMEM)
#ifndef KMEM_DEBUG_LAYER
#define kmalloc			raw_kmalloc
#define kfree			raw_kfree
#define ksize			raw_ksize
#define kmem_cache_create	raw_kmem_cache_create
#define kmem_cache_destroy	raw_kmem_cache_destroy
#define kmem_cache_alloc	raw_kmem_cache_alloc
#define kmem_cache_free		raw_kmem_cache_free
#define kmem_cache_size		raw_kmem_cache_size
#define kmem_cache_name		raw_kmem_cache_name
#define kmem_cache_shrink	raw_kmem_cache_shrink
#define kmem_reclaim		raw_kmem_reclaim
#define kmem_get_stats		raw_kmem_get_stats
#endif

/* The allocator's own functions, with the contracts of <tiny/slab.h>. */
struct kmem_cache *raw_kmem_cache_create(const char *name, size_t size, size_t align,
					 unsigned long flags, kmem_cache_ctor_t ctor,
					 kmem_cache_ctor_t dtor);
int raw_kmem_cache_destroy(struct kmem_cache *cache);
void *raw_kmem_cache_alloc(struct kmem_cache *cache, gfp_t flags);
void raw_kmem_cache_free(struct kmem_cache *cache, void *obj);
size_t raw_kmem_cache_size(struct kmem_cache *cache);
const char *raw_kmem_cache_name(struct kmem_cache *cache);
int raw_kmem_cache_shrink(struct kmem_cache *cache);
void *raw_kmalloc(size_t size, gfp_t flags);
void raw_kfree(const void *obj);
size_t raw_ksize(const void *obj);
unsigned long raw_kmem_reclaim(void);
void raw_kmem_get_stats(struct kmem_stats *stats);
#endif

#endif /* MM_KMEM_RAW_H */
