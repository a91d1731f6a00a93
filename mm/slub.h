/* slub.h - SLUB's internal structures, shared by slub_caches.c (the entry
 * points and the caches), slub.c (the slabs every mode shares),
 * slub_sheaves.c (sheaves: CONFIG_SLUB_SHEAVES), slub_cpu.c
 * (per-CPU slabs: CONFIG_SLUB_CPU_SLAB), slub_tiny.c (CONFIG_SLUB_TINY),
 * slub_percpu.c (what the first two share), slub_info.c (reports,
 * validator) and the SLUB self-tests.  Not a public header: callers use <tiny/slab.h>.
 */
#ifndef MM_SLUB_H
#define MM_SLUB_H

#include <tiny/atomic.h>
#include <tiny/kernel.h>
#include <tiny/list.h>
#include <tiny/memcheck.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include "page_alloc.h"
#include "slab_common.h"

/* ---- a slab's state: one word, changed whole -------------------------------------
 *
 * page->counters of a slab's first page holds the index of the first free
 * object of the slab's free list (SLUB_FREE_NONE: none; the next ones are
 * linked through the objects' free pointers, as addresses), the number of
 * objects not on that list (in use, or on a CPU's free list) and whether a
 * CPU owns the slab (frozen: its CPU slab, or on its partial list).  With
 * per-CPU slabs it changes by compare-and-exchange (slab_state_cmpxchg()),
 * so that a free from any CPU and a CPU taking the list agree without a
 * lock; SLUB_TINY changes it under the cache's list_lock.  Linux keeps a
 * pointer and a counters word side by side for cmpxchg_double; an index
 * fits the pair in the one word struct page already has.
 */
#define SLUB_FREE_NONE		0xffffu		/* no free object on the slab's list */
#define SLUB_INUSE_SHIFT	16
#define SLUB_INUSE_MASK		0x7fffu
#define SLUB_FROZEN		0x80000000u
#define MAX_OBJS_PER_SLAB	32767u		/* as Linux's MAX_OBJS_PER_PAGE */

static inline unsigned int state_free(u32 s)
{
	return s & SLUB_FREE_NONE;
}

static inline unsigned int state_inuse(u32 s)
{
	return (s >> SLUB_INUSE_SHIFT) & SLUB_INUSE_MASK;
}

static inline int state_frozen(u32 s)
{
	return (s & SLUB_FROZEN) != 0;
}

static inline u32 make_state(unsigned int free, unsigned int inuse, int frozen)
{
	return free | inuse << SLUB_INUSE_SHIFT | (frozen ? SLUB_FROZEN : 0);
}

/* The state as a whole, as another CPU may be changing it. */
static inline u32 slab_state(const struct page *page)
{
	return smp_load_acquire(&page->counters);
}

/* If page's state is still *old, makes it new (1); else *old gets the
 * state found (0). */
static inline int slab_state_cmpxchg(struct page *page, u32 *old, u32 new)
{
	return try_cmpxchg_u32(&page->counters, old, new);
}

static inline void slab_state_set(struct page *page, u32 new)
{
	smp_store_release(&page->counters, new);
}

/* ---- caches ------------------------------------------------------------------------ */

/* One of the two slab sizes of a cache: oo[0] the order it prefers, oo[1]
 * the smallest that holds an object, taken when the preferred one cannot
 * be had (its slabs' pages are PG_min_order). */
struct slub_order {
	uintptr_t offset_mask;		/* slab bytes - 1: slabs are naturally aligned
					 * blocks, so addr & offset_mask is the offset
					 * of addr in its slab */
	size_t objs_bytes;		/* objects * size: no object starts after */
	unsigned int order;
	unsigned int objects;
};

/* ---- the per-CPU part of a cache: SLUB_TINY has none ---------------------------- */

#if IS_ENABLED(CONFIG_SLUB_TINY)
struct slub_cpu_ref {
};

struct slub_cpu_partial {
};

struct slub_barn {
};
#else
#include <arch/percpu.h>

/* A per-CPU slot (mm/slub_percpu.c): four words, each layer's per-CPU
 * struct fills one. */
struct slub_percpu_slot {
	struct slub_percpu_slot *next;	/* on the free slots */
	unsigned long unused[3];
} __aligned(2 * sizeof(long));
#endif

#if IS_ENABLED(CONFIG_SLUB_CPU_SLAB)
/* With per-CPU slabs, each CPU's part of a cache (mm/slub_cpu.c), Linux's
 * four words: its copies are ARCH_PERCPU_STRIDE apart (<arch/percpu.h>),
 * several caches' side by side in one stride.  freelist and tid are
 * compared and exchanged together on this CPU's copy, without a lock
 * prefix: see "Fast path" there.  Only its CPU changes a copy. */
struct kmem_cache_cpu {
	void *freelist;			/* first free object of the CPU slab, this CPU's */
	unsigned long tid;		/* transaction id: changes with every change */
	unsigned long slab;		/* the CPU slab's first byte, 0 if none */
	struct page *partial;		/* its partial slabs, linked by page->next
					 * (interrupts off) */
} __aligned(2 * sizeof(long));

/* A handle's per-CPU parts: what the fast paths read. */
struct slub_cpu_ref {
	percpu_off_t slab;		/* its struct kmem_cache_cpu (0 for an alias) */
	percpu_off_t count;		/* a long: the objects allocated less those
					 * freed on that CPU through this handle */
};

/* The partial slabs a CPU keeps of the cache, at most. */
struct slub_cpu_partial {
	unsigned int limit;
};

struct slub_barn {
};
#endif

#if IS_ENABLED(CONFIG_SLUB_SHEAVES)
/* A sheaf (mm/slub_sheaves.c): an array of free objects of one cache, a
 * kmalloc() block of exactly its class (the static bootstrap sheaf has
 * capacity 0).  Changed only by the CPU that holds it under its flag, or
 * under the barn's lock while on the barn. */
struct slub_sheaf {
	struct list_head barn_list;	/* on the barn's full or empty list */
	unsigned int size;		/* objects in it: objects[0 .. size) */
	unsigned int capacity;
	void *objects[];
};

/* Each CPU's sheaves of a cache, one per-CPU slot.  locked is the local
 * trylock: taken and released with plain per-CPU operations. */
struct slub_pcs {
	unsigned long locked;		/* 1 while this CPU's code uses the sheaves */
	struct slub_sheaf *main;	/* allocations pop it, frees push it */
	struct slub_sheaf *spare;	/* NULL, or a sheaf to swap in (full or empty,
					 * or partly used: a prefilled one returned) */
	unsigned long unused;
} __aligned(2 * sizeof(long));

struct slub_cpu_ref {
	percpu_off_t sheaves;		/* its struct slub_pcs (0 for an alias) */
	percpu_off_t count;		/* a long: as with per-CPU slabs */
};

struct slub_cpu_partial {
};

/* The node's barn: full and empty sheaves between the CPUs and the slabs,
 * at most SHEAVES_BARN_MAX of each; capacity is the cache's sheaves' (0:
 * the cache has none). */
struct slub_barn {
	spinlock_t lock;		/* the lists and counts (interrupts off) */
	struct list_head full, empty;
	unsigned int nr_full, nr_empty;	/* read without the lock first */
	unsigned int capacity;
};
#endif

struct kmem_cache {
	struct kmem_cache_common common;	/* name, size asked for, flags, ctor,
					 * dtor, registry link: this handle's */
	/* What the fast paths read: written when the cache is made. */
	struct kmem_cache *target;	/* the cache that holds the slabs: itself, or for
					 * an alias the cache it was merged with */
	struct slub_cpu_ref cpu;	/* per-CPU slabs: its struct kmem_cache_cpu */
	size_t size;			/* object stride: the object, the free pointer
					 * if outside it, aligned */
	size_t offset;			/* the free pointer's place in a free object */
	u32 reciprocal_size;		/* reciprocal_of(size) */
	gfp_t zero_refused;		/* __GFP_ZERO if there is a ctor */
	unsigned int page_flags;	/* PG_* of its slabs besides PG_slab */
	struct slub_order oo[2];	/* [PG_min_order set]: see struct slub_order */

	/* Constant after creation, or under slab_caches_lock. */
	size_t align;			/* objects' alignment */
	unsigned long min_partial;	/* empty slabs kept on the partial list */
	int refcount;			/* live handles on it: its own and its aliases'
					 * (slab_caches_lock); 0 for an alias */
	int released;			/* this handle's destroy gave its reference
					 * back while others kept the slabs */
	struct list_head target_list;	/* on slub_targets while it holds slabs; an
					 * alias: on its target's aliases */
	struct list_head aliases;	/* its live aliases, oldest first */
	struct list_head merge_list;	/* a target others may merge into: on its
					 * stride's merge bucket, newest first */

	/* The node (SLUB keeps one): under list_lock, on lines of their own
	 * with per-CPU slabs, which other CPUs' frees take. */
	spinlock_t list_lock __aligned(IS_ENABLED(CONFIG_SLUB_TINY) ? sizeof(long) : L1_CACHE_BYTES);
	struct list_head partial;	/* slabs with free objects no CPU owns */
	unsigned long nr_partial;
	long inuse;			/* SLUB_TINY: objects in use through this handle
					 * (the target's list_lock) */
	atomic_long_t nr_slabs;		/* slabs, on the lists or not (none keeps the
					 * full ones) */
	atomic_long_t nr_pages;		/* their pages */
	atomic_long_t total_objects;	/* their objects */
	struct slub_cpu_partial cpu_partial;	/* per-CPU slabs: each CPU's partial list */
	struct slub_barn barn;		/* sheaves: the node's barn */
};
KMEM_CACHE_COMMON_FIRST();

/* Every cache that holds slabs (not aliases), oldest first: those still
 * listed under their name and those whose creator destroyed them while
 * aliases live.  Under slab_caches_lock. */
extern struct list_head slub_targets;
/* Walks them, c each in turn (pos: a struct list_head *).  Not
 * list_for_each_entry(): struct kmem_cache is aligned to a cache line,
 * the list head is not, and that macro would make a struct kmem_cache
 * pointer of the head. */
#define for_each_target(c, pos)							\
	for ((pos) = slub_targets.next; (pos) != &slub_targets &&		\
	     ((c) = container_of(pos, struct kmem_cache, target_list), 1);	\
	     (pos) = (pos)->next)

/* Merge buckets visited by find_mergeable(), all told: the tests check
 * that a new cache's search costs the same at any number of caches. */
extern unsigned long slub_merge_steps;

/* Pages of every cache's slabs: a running total, for kmem_get_pages(). */
extern atomic_long_t slub_slab_pages;

/* Boot options (mm/slub.c): slub_max_order=, slub_min_objects=. */
extern unsigned int slub_max_order, slub_min_objects;

static inline int is_alias(const struct kmem_cache *c)
{
	return c->target != c;
}

/* ---- slabs and objects ----------------------------------------------------------------- */

/* The slab layout of a slab page whose flags are flags. */
static inline const struct slub_order *order_of(const struct kmem_cache *c, unsigned int flags)
{
	return &c->oo[(flags >> PG_min_order_shift) & 1];
}

/* The first byte of the slab whose first page is page. */
static inline uintptr_t slab_base(const struct page *page)
{
	return (uintptr_t)((first_pfn + (unsigned long)(page - mem_map)) << PAGE_SHIFT);
}

/* The first page of the slab at base. */
static inline struct page *slab_page(uintptr_t base)
{
	return managed_virt_to_page((const void *)base);
}

static inline void *slab_obj(const struct kmem_cache *c, uintptr_t base, unsigned int idx)
{
	return (void *)(base + (size_t)idx * c->size);
}

/* The index of obj, an object of the slab at base. */
static inline unsigned int slab_obj_index(const struct kmem_cache *c, uintptr_t base,
					  const void *obj)
{
	return reciprocal_index((uintptr_t)obj - base, c->reciprocal_size);
}

/*
 * The index of obj in its slab if obj is the start of an object of c's
 * slab layout on a page whose flags are flags (a slab page of c), with the
 * slab's base in *base; else -1.  Reads only c and the flags: the check
 * every free makes.
 */
static inline long slub_obj_check(const struct kmem_cache *c, unsigned int flags,
				  const void *obj, uintptr_t *base)
{
	const struct slub_order *o = order_of(c, flags);
	size_t offset = (uintptr_t)obj & o->offset_mask;
	unsigned int idx = reciprocal_index(offset, c->reciprocal_size);

	if (offset >= o->objs_bytes || idx * c->size != offset)
		return -1;
	*base = (uintptr_t)obj - offset;
	return idx;
}

/* A free object's link to the next one on its free list. */
static inline void *get_freepointer(const struct kmem_cache *c, const void *obj)
{
	return *(void *const *)((const char *)obj + c->offset);
}

static inline void set_freepointer(const struct kmem_cache *c, void *obj, void *next)
{
	*(void **)((char *)obj + c->offset) = next;
}

/* The object at the head of the slab's free list in state s (NULL: none). */
static inline void *state_freelist(const struct kmem_cache *c, uintptr_t base, u32 s)
{
	return state_free(s) == SLUB_FREE_NONE ? NULL : slab_obj(c, base, state_free(s));
}

/* The state's free index for obj (NULL: none), an object of the slab at base. */
static inline unsigned int freelist_index(const struct kmem_cache *c, uintptr_t base,
					  const void *obj)
{
	return obj ? slab_obj_index(c, base, obj) : SLUB_FREE_NONE;
}

/* obj goes back to the allocator: a checker watching sees it freed but
 * for the free pointer, which the allocator keeps in it.  The whole stride:
 * an alias handed it out at its own size, which may be larger than c's. */
static inline void slub_mark_freed(const struct kmem_cache *c, void *obj)
{
	kmem_mark_freed(obj, c->size);
	kmem_mark_internal((char *)obj + c->offset, sizeof(void *));
}

/* ---- what slub.c gives the modes -------------------------------------------------------- */

/* A new slab of c (its objects constructed and on its own free list, in
 * use 0, not frozen, on no list), or NULL if the page allocator has not
 * even the fallback order.  Any context; no lock held. */
struct page *new_slab(struct kmem_cache *c, gfp_t flags);
/* Destructs the objects of a slab nobody uses any more and frees its
 * pages.  No lock held. */
void discard_slab(struct kmem_cache *c, struct page *page);
/* The node's partial list; list_lock held. */
void add_partial(struct kmem_cache *c, struct page *page, int tail);
void remove_partial(struct kmem_cache *c, struct page *page);
/* The objects of page's slab (c's, for its order). */
unsigned int slab_objects(const struct kmem_cache *c, const struct page *page);
/* Gives every empty slab on c's partial list back; returns the pages. */
unsigned long discard_empty_partials(struct kmem_cache *c);
/* The free pointer's place, the stride, the alignment and the two slab
 * orders of c (its common part filled in): 0, or -1 if no slab holds one.
 * For mm/slub_caches.c's cache_open(). */
int calculate_sizes(struct kmem_cache *c);
/* The objects a slab should hold (slub_min_objects=, or from the CPUs). */
unsigned int min_objects_wanted(void);

/* ---- what slub_caches.c gives the reports ------------------------------------------------ */

/* Objects in use in t's slabs (t a target): through every handle on them.
 * slab_caches_lock held. */
long slub_target_in_use(struct kmem_cache *t);
/* Hands out obj, taken off a free list of c for the handle h: zeroes it
 * with __GFP_ZERO and tells a checker, at the size h promises (an alias's
 * objects may be larger than the cache's own: both fit its stride). */
static inline void *slub_post_alloc(struct kmem_cache *c, struct kmem_cache *h, void *obj,
				    gfp_t flags)
{
	size_t size = h->common.object_size;

	kmem_mark_allocated(obj, size, c->common.ctor || (flags & __GFP_ZERO));
	if (flags & __GFP_ZERO)
		memset(obj, 0, size);
	return obj;
}

/* Why slub_free() refuses a double free, in both modes: obj heads the
 * free list it went to (its slab's, or with per-CPU slabs this CPU's), or
 * its slab has no object in use. */
#define JUST_FREED	"double free (the object was just freed: it heads the free list it " \
			"went to)"
#define ALL_FREE	"double free (every object of its slab is free)"

/* ---- what slub_percpu.c gives the two per-CPU layers ----------------------------------- */

#if !IS_ENABLED(CONFIG_SLUB_TINY)
/* A per-CPU slot (CPU 0's copy; every CPU's zeroed), or NULL if out of
 * memory; and back.  Process context, or boot. */
void *slub_percpu_alloc(void);
void slub_percpu_free(void *slot);
/* Sets up and gives back h's per-CPU count of objects in use (0, or -1). */
int slub_count_open(struct kmem_cache *h);
void slub_count_close(struct kmem_cache *h);
/* Frees obj (index idx) to its slab at base, which no CPU's cache takes:
 * NULL, or why it is refused (nothing changed).  marked: a checker was
 * told already.  Interrupts off. */
const char *free_to_slab(struct kmem_cache *c, void *obj, uintptr_t base, unsigned int idx,
			 int marked);
#endif

/* ---- what each mode gives slub_caches.c (slub_sheaves.c, slub_cpu.c or slub_tiny.c) --- */

/*
 * slub_alloc(c, h, flags): an object of c (a target, not an alias) for the
 * handle h (c, or an alias of c: its count of objects in use goes up),
 * zeroed with __GFP_ZERO; NULL if out of memory.  Any context.
 * slub_free(c, h, obj, base, idx): frees obj through h, index idx of the
 * slab at base (checked: an object's start on a slab page of c); NULL, or
 * why it was refused (nothing changed).  Any context.
 * With per-CPU slabs both are the fast paths, inline (mm/slub_cpu.h);
 * SLUB_TINY's are plain functions, as nothing there is forced inline.
 */
#if IS_ENABLED(CONFIG_SLUB_TINY)
void *slub_alloc(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags);
const char *slub_free(struct kmem_cache *c, struct kmem_cache *h, void *obj, uintptr_t base,
		      unsigned int idx);
#elif IS_ENABLED(CONFIG_SLUB_CPU_SLAB)
#include "slub_cpu.h"

/* The partial slabs a CPU keeps of c (slabinfo's "cpu"). */
static inline unsigned int slub_cpu_partial_limit(const struct kmem_cache *c)
{
	return c->cpu_partial.limit;
}

/* This CPU's own slab of c: its first byte (0: none), its free list in
 * *freelist.  Interrupts off. */
uintptr_t slub_this_cpu_slab(const struct kmem_cache *c, void **freelist);
/* A full slab, not frozen, that free_to_slab() gave an object and froze:
 * to this CPU's partial list.  Interrupts off. */
void slub_freeze_full_slab(struct kmem_cache *c, struct page *page);
#define slub_freezes_full_slabs	1
#else
#include "slub_sheaves.h"
#endif

#if !IS_ENABLED(CONFIG_SLUB_CPU_SLAB)
static inline unsigned int slub_cpu_partial_limit(const struct kmem_cache *c)
{
	(void)c;
	return 0;
}

static inline uintptr_t slub_this_cpu_slab(const struct kmem_cache *c, void **freelist)
{
	(void)c;
	*freelist = NULL;
	return 0;
}

static inline void slub_freeze_full_slab(struct kmem_cache *c, struct page *page)
{
	(void)c;
	(void)page;
}
#define slub_freezes_full_slabs	0
#endif

#if !IS_ENABLED(CONFIG_SLUB_SHEAVES)
/* The kmalloc() classes exist: sheaves may now be kmalloc() blocks. */
static inline void slub_mode_kmalloc_ready(void)
{
}

/* Objects c's sheaves hold on every CPU and in its barn (slabinfo). */
static inline unsigned long slub_sheaved_objects(struct kmem_cache *c)
{
	(void)c;
	return 0;
}

/* Bytes of every cache's sheaves: kmalloc() blocks, the allocator's own,
 * which bytes_used leaves out. */
static inline unsigned long slub_sheaf_bytes(void)
{
	return 0;
}

/* The full and the empty sheaves in c's barn. */
static inline unsigned int slub_barn_full(const struct kmem_cache *c)
{
	(void)c;
	return 0;
}

static inline unsigned int slub_barn_empty(const struct kmem_cache *c)
{
	(void)c;
	return 0;
}

/* The validator's checks of c's sheaves and barn, given the objects free
 * on its partial slabs: the problems.  slab_caches_lock held. */
static inline int slub_sheaves_validate(struct kmem_cache *c, unsigned long node_free)
{
	(void)c;
	(void)node_free;
	return 0;
}
#endif
/* Is obj (of c, on the slab at base) the object freed last there: the
 * head of this CPU's free list or of its slab's?  Looks only. */
int slub_just_freed(struct kmem_cache *c, const void *obj, uintptr_t base);
/* Sets up and gives back the per-CPU part of c, a handle (for an alias its
 * count of objects in use only; nothing for SLUB_TINY); slub_cpu_open()
 * returns 0 or -1 (out of memory). */
int slub_cpu_open(struct kmem_cache *c);
void slub_cpu_close(struct kmem_cache *c);
/* Gives back every CPU's slabs of c (c NULL: of every cache) to the
 * partial list, or all of it, and the empty ones beyond min_partial to
 * the page allocator: on every CPU, or only this one with interrupts off
 * (then returns 0 if other CPUs are online).  Returns 1 if every online
 * CPU did.  Process context, or interrupts off. */
int slub_flush(struct kmem_cache *c);
/* Objects in use (held by callers) that were allocated through the handle
 * c less those freed through it: exact while nobody allocates. */
long slub_objects_in_use(const struct kmem_cache *c);
/* Does a CPU still hold a slab of c (its CPU slab or partial list)?  For a
 * destroy that could not ask the others (interrupts off); c unused. */
int slub_cpu_holds_slabs(const struct kmem_cache *c);
/* Pages the mode holds of its own (per-CPU data). */
unsigned long slub_mode_pages(void);
/* Frees those it can spare; returns how many. */
unsigned long slub_mode_reclaim(void);
/* The mode's defaults: slub_max_order, and min_partial for a cache of
 * objects of size bytes. */
extern const unsigned int slub_default_max_order;
unsigned long slub_min_partial(size_t size);

#endif /* MM_SLUB_H */
