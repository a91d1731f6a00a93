/* slab_common.h - what the object allocators share (mm/slab_common.c and
 * mm/slab_common_info.c), and what each gives it.  Not a public header:
 * callers use <tiny/slab.h>.
 *
 * The allocator API's entry points are defined under "raw" names
 * (__kmalloc, __kmem_cache_alloc, ...).  Without CONFIG_DEBUG_KMEM the
 * public names of <tiny/slab.h> are those very functions: KMEM_PUBLIC()
 * at the end of each file makes kmalloc an alias of __kmalloc, so the
 * kernel has both symbols at one address.  With it, mm/kmem_debug.c
 * defines the public names on top of the raw ones (red zones, poison,
 * owners).  The allocators call the raw names among themselves.
 */
#ifndef MM_SLAB_COMMON_H
#define MM_SLAB_COMMON_H

#include <tiny/atomic.h>
#include <tiny/call_path.h>
#include <tiny/kconfig.h>
#include <tiny/list.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/spinlock.h>
#include "page_alloc.h"

/* ---- the raw API ------------------------------------------------------------- */

struct kmem_cache *__kmem_cache_create(const char *name, size_t size, size_t align,
				       unsigned long flags, kmem_cache_ctor_t ctor,
				       kmem_cache_ctor_t dtor);
int __kmem_cache_destroy(struct kmem_cache *cache);
void *__kmem_cache_alloc(struct kmem_cache *cache, gfp_t flags);
void __kmem_cache_free(struct kmem_cache *cache, void *obj);
size_t __kmem_cache_size(struct kmem_cache *cache);
const char *__kmem_cache_name(struct kmem_cache *cache);
int __kmem_cache_shrink(struct kmem_cache *cache);
void *__kmalloc(size_t size, gfp_t flags);
void __kfree(const void *obj);
size_t __ksize(const void *obj);
unsigned long __kmem_reclaim(void);
void __kmem_get_stats(struct kmem_stats *stats);
void __kmem_get_pages(struct kmem_stats *stats);

/* KMEM_PUBLIC(kmalloc): the public name is the raw function, or (with the
 * debugging layer) left to mm/kmem_debug.c. */
#if IS_ENABLED(CONFIG_DEBUG_KMEM)
#define KMEM_PUBLIC(name)
#else
#define KMEM_PUBLIC(name) \
	extern __typeof__(__##name) name __attribute__((__alias__("__" #name)));
#endif
/* The public names of every function an allocator implements: once, at the
 * end of its file. */
#define KMEM_PUBLIC_API()					\
	KMEM_PUBLIC(kmalloc) KMEM_PUBLIC(kfree) KMEM_PUBLIC(ksize)	\
	KMEM_PUBLIC(kmem_cache_alloc) KMEM_PUBLIC(kmem_cache_free)	\
	KMEM_PUBLIC(kmem_cache_shrink) KMEM_PUBLIC(kmem_reclaim)	\
	KMEM_PUBLIC(kmem_get_stats) KMEM_PUBLIC(kmem_get_pages)

/* ---- caches ---------------------------------------------------------------------- */

/* A kmem_cache_create() flag for the allocators' own callers: never merge
 * this cache with another (SLUB; kmem_debug.c's debugged caches). */
#define SLAB_NO_MERGE		0x01000000UL
/* ... and a cache of the debugging layer (mm/kmem_debug.c): SLUB gives it
 * no sheaves, as Linux gives none to a cache it debugs. */
#define SLAB_KMEM_DEBUGGED	0x02000000UL

/* The part of every cache that slab_common.c keeps: each allocator's
 * struct kmem_cache begins with it (KMEM_CACHE_COMMON_FIRST() after the
 * allocator's struct fails the build otherwise), so that cache_common()
 * is a cast. */
struct kmem_cache_common {
	const char *name;
	size_t object_size;		/* the size asked for */
	size_t align;			/* 0 or a power of two, as asked (or a cache line) */
	unsigned long flags;		/* SLAB_*, and the allocator's own bits */
	kmem_cache_ctor_t ctor, dtor;
	struct list_head list;		/* on slab_caches while the cache is live */
	struct kmem_cache_common *name_next, *addr_next;	/* the registry's hash chains */
};

#define KMEM_CACHE_COMMON_FIRST() \
	BUILD_BUG_ON(__builtin_offsetof(struct kmem_cache, common) != 0)

static inline struct kmem_cache_common *cache_common(const struct kmem_cache *c)
{
	return (struct kmem_cache_common *)c;
}

/* SLAB and SLUB: the cache of struct kmem_cache (internal), static, set
 * up by kmem_cache_init(). */
extern struct kmem_cache cache_cache;

/* The registry of live caches (mm/slab_registry.c), built where something
 * needs it (CONFIG_SLAB_REGISTRY: SLAB, the debugging layer).  Every live
 * cache is on slab_caches, oldest first; slab_caches_lock is taken with
 * interrupts saved (SLAB's reaper walks the list from its timer).  The
 * list and its lock exist only with the registry: a reference from code
 * built without it fails the link.  Lookups by name and by address go
 * through hash chains, not the list (mm/slab_registry.c). */
extern struct list_head slab_caches;
extern spinlock_t slab_caches_lock;

/* Without the registry a live cache is what the allocator says, by
 * cache_struct_live(c): is c its struct of a live cache?  It must tell
 * any pointer apart (one to a destroyed cache, to no cache at all, to
 * memory never allocated), reporting nothing.  Process context.  (SLOB
 * defines it; an allocator always built with the registry need not.) */
int cache_struct_live(const struct kmem_cache *c);

#if IS_ENABLED(CONFIG_SLAB_REGISTRY)
/* Lists c (set up, not listed) unless a live cache has its name (then
 * reports it and returns -1).  Takes slab_caches_lock. */
int kmem_cache_register(struct kmem_cache *c);
/* Takes c (listed) off the list.  Takes slab_caches_lock. */
void kmem_cache_unregister(struct kmem_cache *c);
/* Is c a live cache (on slab_caches)?  A hash lookup, O(1).  Takes
 * slab_caches_lock. */
int kmem_cache_listed(const struct kmem_cache *c);
/* The hash chain links the registry's lookups followed, all told: the
 * tests check that a lookup costs the same at any number of caches. */
extern unsigned long registry_steps;
#else
/* Without the registry no lookup takes a step. */
#define registry_steps	0UL
/* Without the registry names are not checked: two live caches may share
 * one (each is a cache of its own). */
static inline int kmem_cache_register(struct kmem_cache *c)
{
	return 0;
}
static inline void kmem_cache_unregister(struct kmem_cache *c)
{
}
static inline int kmem_cache_listed(const struct kmem_cache *c)
{
	return cache_struct_live(c);
}
#endif

/* What each allocator gives kmem_cache_create() and kmem_cache_destroy()
 * (process context): */
/* memory for a struct kmem_cache, zeroed; NULL if none */
struct kmem_cache *cache_struct_alloc(void);
void cache_struct_free(struct kmem_cache *c);
/* sets up c, whose common part is filled in; 0, or -1 if it cannot (c is
 * then freed by the caller, nothing else to undo) */
int cache_open(struct kmem_cache *c);
/* takes back what the allocator caches of c (SLAB: every CPU's magazine)
 * and returns the live objects left, those callers still hold: 0 lets the
 * destroy go on */
unsigned long cache_live_objects(struct kmem_cache *c);
/* gives back everything c holds; c is unlisted and empty, and freed next */
void cache_close(struct kmem_cache *c);
/* where the per-CPU capacity means something (CONFIG_SLAB_PERCPU_CAPACITY):
 * makes a new cache's per-CPU arrays hold at least n objects before anyone
 * uses it (kmem_cache_create_args()); 0, or -1 out of memory */
int cache_raise_percpu_capacity(struct kmem_cache *c, unsigned int n);
/* and, where it can be built without the registry (SLOB),
 * cache_struct_live() (above). */

/* ---- kmalloc classes (SLAB, SLUB) ---------------------------------------------------
 *
 * kmalloc() takes a block of a kmalloc class, a cache per size (each
 * allocator lists its sizes and names in kmalloc_classes[], smallest
 * first), up to KMALLOC_MAX_CACHE_SIZE; larger blocks are whole pages (a
 * large block, below).  mm/slab_common_kmalloc.c makes the classes at
 * boot and fills the table the lookups read; SLOB has no classes (its
 * heap fits every size) and builds none of this (CONFIG_KMALLOC_CLASSES).
 */

/* Cache flags the allocators keep next to the SLAB_* ones. */
#define CFLGS_KMALLOC		0x40000000UL	/* a kmalloc class */
#define CFLGS_INTERNAL		0x20000000UL	/* the allocator's own objects */

/* Larger kmalloc() requests take whole pages (a large block), not a
 * kmalloc class: an object of many pages cached in a magazine, on a free
 * slab or on a CPU's slab would park them all, and the pages themselves
 * round no worse than the power-of-two classes would.  Up to two pages
 * stay in a class: blocks of 2-8 KiB are few, and through the page
 * allocator's one lock they would not scale. */
#define KMALLOC_MAX_CACHE_SIZE	(2 * PAGE_SIZE)

/* A cache of a size: a kmalloc class (SLAB's internal caches too). */
struct cache_sizes {
	size_t cs_size;
	const char *cs_name;
	struct kmem_cache *cs_cachep;	/* NULL if not made (this PAGE_SIZE and
					 * MAX_ORDER cannot hold it) */
};
/* What each allocator gives: its classes, smallest first, each size a
 * multiple of 8 (of 64 above KMALLOC_SMALL_MAX). */
extern struct cache_sizes kmalloc_classes[];
extern const unsigned int nr_kmalloc_classes;
extern size_t kmalloc_max_size;		/* the largest kmalloc class made */

/* Makes the kmalloc classes that fit, smallest first, each aligned to its
 * largest power-of-two divisor, and fills the table; panics if it cannot
 * make the smallest.  Boot. */
void kmalloc_classes_init(void);

/* The class for each size, NULL past the largest made (and before boot
 * made it): kmalloc_small[] in steps of 8 bytes up to 256, kmalloc_big[]
 * in steps of the 64-byte line above, so that one load finds it. */
#define KMALLOC_SMALL_MAX	256
extern struct kmem_cache *kmalloc_small[KMALLOC_SMALL_MAX >> 3];
extern struct kmem_cache *kmalloc_big[KMALLOC_MAX_CACHE_SIZE >> 6];

/* The kmalloc class kmalloc(size) uses, or NULL (0, or beyond the largest). */
static inline struct kmem_cache *kmalloc_class(size_t size)
{
	if (size - 1 < KMALLOC_SMALL_MAX)
		return kmalloc_small[(size - 1) >> 3];
	return size - 1 < KMALLOC_MAX_CACHE_SIZE ? kmalloc_big[(size - 1) >> 6] : NULL;
}

/* The kmalloc class of the slab page, read without a lock: NULL unless
 * flags (the page's, read once) have PG_slab and PG_kmalloc both.  Classes
 * are never destroyed, so the cache read is one, or NULL while the slab
 * is given back (the allocator clears the flags, then the pointer); the
 * cache of any other slab is never read here, as it may be being
 * destroyed. */
static inline struct kmem_cache *page_kmalloc_class(const struct page *page, unsigned int flags)
{
	return (flags & (PG_slab | PG_kmalloc)) == (PG_slab | PG_kmalloc) ?
	       READ_ONCE(page->slab_cache) : NULL;
}

/* kfree() of obj on page, whose flags are flags, that is on no slab of a
 * kmalloc class: frees it if it is a large block, else reports it (from
 * caller). */
void kfree_not_kmalloc_slab(const void *obj, struct page *page, unsigned int flags,
			    void *caller);

/* Reports kmem_cache_alloc() of c with __GFP_ZERO, refused (c has a
 * constructor: a constructed object zeroed would go back unconstructed;
 * Linux refuses it too), and counts it in kmem_zero_ctor_refusals. */
void refuse_zero_with_ctor(struct kmem_cache *c);
extern atomic_long_t kmem_zero_ctor_refusals;

/* ---- object index by a multiply ------------------------------------------------- */

/* ceil(2^32 / size), for reciprocal_index(). */
static inline u32 reciprocal_of(size_t size)
{
	return (u32)(((1ULL << 32) + size - 1) / size);
}

/*
 * The index of the object offset bytes into a run of objects of size
 * bytes, given recip = reciprocal_of(size): offset * ceil(2^32 / size) /
 * 2^32 instead of a division.  Exact for an object's start k * size: the
 * error k * (size * ceil(2^32 / size) - 2^32) / 2^32 stays below 1
 * because k * size < 2^32 (a slab is far smaller).  For any other offset
 * the result is off by at most one, and index * size != offset tells it
 * is no object's start anyway.  SLAB and SLUB check every free with it.
 */
static inline unsigned int reciprocal_index(size_t offset, u32 recip)
{
	return (unsigned int)(((u64)(u32)offset * recip) >> 32);
}

/* ---- large blocks ----------------------------------------------------------------- */

/* A kmalloc() block too large for the allocator's own blocks is whole
 * pages from the page allocator, only those it needs; its head page is
 * marked PG_large and keeps the number of pages in page->nr_pages, so kfree()
 * and ksize() find it in O(1) from the pointer.  Any context. */
extern atomic_long_t large_block_pages;		/* pages of large blocks now */

/* A large block of size bytes (zeroed with __GFP_ZERO); NULL if none. */
void *kmalloc_large(size_t size, gfp_t flags);
/* Frees obj (on page) if it is a large block: 0, else -1 (nothing done). */
int kfree_large(const void *obj, struct page *page);
/* Bytes of the large block obj (on page), or 0 if it is none. */
size_t ksize_large(const void *obj, const struct page *page);
/* For the reports (slab_common_info.c): the large blocks and their pages,
 * found in mem_map; the problems found checking them against the counter
 * (each reported). */
void large_blocks_count(unsigned long *blocks, unsigned long *pages);
int large_blocks_validate(void);

/* ---- where the bytes go (the benchmark's overhead breakdown) -------------------- */

/* Where the bytes of the slabs and large blocks go, at one moment.  held =
 * callers + internal + mgmt + tail + free_objs + cached + large_bytes;
 * callers + large_bytes - the bytes asked for is the rounding to size
 * classes and whole pages.  SLAB and SLUB fill it (slab_get_breakdown(),
 * for tests/host/bench_replay.c); SLOB has none. */
struct slab_breakdown {
	unsigned long long held;	/* pages of slabs (SLUB: and per-CPU data) and
					 * large blocks, in bytes */
	unsigned long long callers;	/* objects held by callers, at their class size */
	unsigned long long internal;	/* the allocator's own objects (caches, magazines,
					 * off-slab descriptors), at their class size */
	unsigned long long mgmt;	/* SLAB: on-slab descriptors and bufctls; SLUB:
					 * the per-CPU data's pages */
	unsigned long long tail;	/* slab bytes no object uses (colour, leftover) */
	unsigned long long free_objs;	/* free objects on the slabs' lists (SLUB: the
					 * node's partial list) */
	unsigned long long cached;	/* SLAB: objects in the CPUs' magazines; SLUB:
					 * free objects on the CPUs' slabs and partial lists */
	unsigned long long large_bytes;	/* large kmalloc blocks, whole pages */
};
/* Fills b.  Takes slab_caches_lock and each cache's lock; the large blocks
 * come from their counter, large_block_pages (no lock). */
void slab_get_breakdown(struct slab_breakdown *b);

/* ---- the heap map (kmem_heap_map(), mm/slab_common_info.c) -------------------- */

/* One slab or heap page, told to the map: its group (a cache's name, a
 * heap list's), its pages, and how much of it is used out of its capacity
 * (objects, or heap units). */
typedef void (*heap_visit_t)(void *arg, const char *group, unsigned long pages,
			     unsigned long used, unsigned long capacity);
/* Each allocator's (its *_info.c): calls visit for every slab or heap
 * page it holds, those of one group one after another, under the locks
 * its kmem_report() takes (visit neither allocates nor sleeps).  Not the
 * large blocks: kmem_heap_map() finds those itself. */
void kmem_heap_visit(heap_visit_t visit, void *arg);

/* ---- bad calls and reports ----------------------------------------------------- */

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
 * every one). */
extern const unsigned long kmem_checks;
#define KMEM_CHECKS_ALL		((1UL << KMEM_BAD_CALLS) - 1)
#define KMEM_CHECK(what)	(1UL << KMEM_BAD_##what)
/* The cache whose slabs hold c's objects: c, but for a cache SLUB merged
 * into another (an alias, mm/slub_caches.c), whose objects are the other's to
 * every check.  Two caches with the same answer are one cache: a free to
 * either is right (include/tiny/slab.h). */
struct kmem_cache *slub_slabs_of(struct kmem_cache *c);
static inline struct kmem_cache *kmem_cache_slabs_of(struct kmem_cache *c)
{
	return IS_ENABLED(CONFIG_SLUB) ? slub_slabs_of(c) : c;
}

static inline int kmem_allocator_catches(enum kmem_bad_call what)
{
	return (kmem_checks >> what) & 1;
}

/* Reports an invalid kfree()/kmem_cache_free() (...) argument with the
 * caller (%pS; the debugging layer's caller when the layer passed the
 * call on: kmem_debug_bad_free()), and counts it in kmem_bad_free_count
 * (mm/slab_common_info.c).  Any context. */
void kmem_bad_free(const char *fn, const void *obj, const char *why, void *caller);
extern unsigned long kmem_bad_free_count;
/* With CONFIG_DEBUG_KMEM_VALIDATE: runs kmem_validate() after an operation
 * and reports the first operation after which it fails (in
 * mm/slab_common_info.c).  Without it, not even a call on the allocators'
 * fast paths. */
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

/* For kmem_bad_free(), about to report obj from caller (mm/kmem_debug.c):
 * returns the caller to name (the layer's caller if the layer forwarded
 * the call on obj to the allocator) and notes both in kmem_debug_last.
 * Without CONFIG_DEBUG_KMEM, caller. */
#if IS_ENABLED(CONFIG_DEBUG_KMEM)
void *kmem_debug_bad_free(const void *obj, void *caller);
#else
static inline void *kmem_debug_bad_free(const void *obj, void *caller)
{
	return caller;
}
#endif


/* Why a bad pointer was refused, for kmem_bad_free(): one text per case,
 * the same in every allocator and the debugging layer (string literals:
 * the linker keeps one copy). */
#define KMEM_NOT_KMALLOC	"not a live kmalloc() block"		/* kfree(), ksize() */
#define KMEM_NOT_CACHE_OBJECT	"not a live object of this cache"	/* kmem_cache_free() */
#define KMEM_NOT_CACHE		"not a live cache"			/* a cache pointer */


#endif /* MM_SLAB_COMMON_H */
