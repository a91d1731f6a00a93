/* slab.h - SLAB's internal structures, shared by slab.c (the allocator),
 * slab_info.c (its report and validator) and the SLAB self-tests.  Not a
 * public header: callers use <tiny/slab.h>. */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include <tiny/atomic.h>
#include <tiny/kernel.h>
#include <tiny/list.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>
#include "slab_common.h"

/*
 * One entry per object, after the slab descriptor.  A free object's entry
 * holds the index of the next free object (BUFCTL_END ends the chain); an
 * object out of its slab (held by a caller or by the allocator, or in a
 * magazine) holds BUFCTL_OUT.  Entries change only under the cache's lock,
 * when objects move between slabs and magazines (refill, flush), never on
 * the fast path: see "Object states" at the top of slab.c.
 */
typedef unsigned short kmem_bufctl_t;	/* 2 bytes: a 21st dentry fits a page */
#define BUFCTL_END	((kmem_bufctl_t)~0U)	/* last free object */
#define BUFCTL_OUT	((kmem_bufctl_t)~1U)	/* out of the slab */
#define BUFCTL_MARK	((kmem_bufctl_t)~2U)	/* only inside kmem_validate() */
#define SLAB_LIMIT	((kmem_bufctl_t)~3U)	/* more objects per slab than this: never */

/* Slab descriptor, at the start of the slab (after the colour) or off-slab. */
struct slab {
	struct list_head list;		/* on the cache's full, partial or free list */
	size_t colouroff;		/* bytes from the first page to s_mem */
	void *s_mem;			/* first object (also in each page's s_mem) */
	unsigned short inuse;		/* objects out of the slab */
	kmem_bufctl_t free;		/* first free object, or BUFCTL_END */
	/* kmem_bufctl_t bufctl[num] follows */
};

static inline kmem_bufctl_t *slab_bufctl(struct slab *slabp)
{
	return (kmem_bufctl_t *)(slabp + 1);
}

/*
 * Per-CPU LIFO magazine of object pointers.  Only its own CPU changes it,
 * with local interrupts disabled and no lock: allocation, free, the reap
 * timer (armed on that CPU) and the drains and swaps of shrink, destroy and
 * tune (run there by on_each_cpu(), as in Linux 2.6).  Other CPUs only read
 * it, for the counts and the validator.  A magazine is an internal object
 * of at least a cache line, aligned to one: no two CPUs' magazines share a
 * line.
 */
struct array_cache {
	unsigned int avail;		/* objects in entry[] */
	unsigned int limit;		/* capacity of entry[] */
	unsigned int batchcount;	/* objects moved per refill or flush */
	unsigned int touched;		/* used since the last reap */
	void *entry[];			/* entry[avail - 1] is the hottest */
};

/*
 * What other CPUs may read of a magazine, and how (the owner reads its own
 * plainly).  avail is published with release stores and read with acquire
 * loads, each entry with single stores and loads: on x86 all are plain
 * moves, so the fast path is unchanged, but a reader that sees an entry
 * below a snapshot of avail also sees the writes that made it an object of
 * the cache (its slab's pages mapped, its state word written).
 */
static inline unsigned int ac_avail(const struct array_cache *ac)
{
	return smp_load_acquire(&ac->avail);
}

/* The owner's update of avail, a single store that ac_avail() may read. */
static inline void ac_set_avail(struct array_cache *ac, unsigned int avail)
{
	smp_store_release(&ac->avail, avail);
}

/* The owner fills entry i (at or above avail: not yet counted). */
static inline void ac_entry_set(struct array_cache *ac, unsigned int i, void *objp)
{
	WRITE_ONCE(ac->entry[i], objp);
}

/* Entry i's object as another CPU may read it while the owner works. */
static inline void *ac_entry_read(const struct array_cache *ac, unsigned int i)
{
	return READ_ONCE(ac->entry[i]);
}

/*
 * The shape of a cache's fallback slabs: 2^order pages (the smallest order
 * that holds an object), num objects packed against the slab's end, the
 * descriptor (slab_size bytes: struct slab and bufctl[num]) at the slab's
 * start or, if slabp_cache is not NULL, an object of that internal cache.
 */
struct slab_shape {
	unsigned short order, num;	/* num <= SLAB_LIMIT */
	size_t slab_size;
	struct kmem_cache *slabp_cache;
};

/* Cache flags kept next to the SLAB_* ones (and CFLGS_KMALLOC,
 * CFLGS_INTERNAL: mm/slab_common.h). */
#define CFLGS_OFF_SLAB		0x80000000UL	/* descriptors live off the slab */
#define OFF_SLAB(c)		((c)->common.flags & CFLGS_OFF_SLAB)

/* RAM above which slabs may grow to order 1 to meet the 1/8 waste bound. */
#define SLAB_BREAK_RAM_BYTES	(32UL << 20)
/* Objects this large (padded) got their descriptors off the slab (tests). */
#define OFF_SLAB_MIN_SIZE	(PAGE_SIZE >> 3)
/* Slabs grow up to this order (16 KiB) where that spends half the share
 * of the slab beside its objects (tail, descriptor) or less. */
#define SLAB_FIT_ORDER		2
/* A magazine holds four pages of objects, but 24 at least (8 of objects
 * larger than a page) and 120 at most (Linux 2.6's held 120 up to 256
 * bytes, 54 up to 1 KiB, 24 up to 4 KiB, 8 above): what a magazine holds
 * no caller uses, but every refill and flush takes the cache's lock, which
 * the other CPUs take too, and hands objects from one CPU to another. */
#define MAGAZINE_BYTES		(4 * PAGE_SIZE)
#define MAGAZINE_MIN		24
#define MAGAZINE_MIN_LARGE	8
#define MAGAZINE_MAX		120
/* The reaper runs this often. */
#define REAP_INTERVAL		(2 * HZ)

struct kmem_cache {
	struct kmem_cache_common common;	/* name, size asked for, flags (SLAB_* and
					 * CFLGS_*), ctor, dtor, registry link */
	/*
	 * What the fast paths read: written only when the cache is made or its
	 * magazines are swapped, so every CPU keeps these lines cached.
	 */
	struct array_cache *array[NR_CPUS];	/* each CPU's magazine */
	size_t buffer_size;		/* object stride: size rounded to the alignment */
	u32 reciprocal_size;		/* reciprocal_of(buffer_size): see obj_index() */
	size_t objs_bytes;		/* num * buffer_size: the objects' span in a slab */
	uintptr_t page_base;		/* mem_map less first_pfn pages, as a number:
					 * see slab_obj_page() */
	unsigned long pfn_lo, nr_pfns;	/* first_pfn and end_pfn - first_pfn: see
					 * cache_virt_to_page(); nr_pfns 0 for an
					 * internal cache, whose objects
					 * kmem_cache_free() never takes */
	gfp_t zero_refused;		/* __GFP_ZERO if there is a ctor: one test of
					 * the flags refuses zeroing a constructed object */
	unsigned int limit, batchcount;	/* the tunables the magazines were sized with
					 * (0: an internal cache, without magazines) */

	/* Constant after creation. */
	unsigned int num;		/* objects per slab */
	unsigned int gfporder;		/* a slab is 2^gfporder pages */
	unsigned int colour;		/* number of colours */
	size_t colour_off;		/* bytes between two colours */
	size_t slab_size;		/* descriptor and bufctl[num] (aligned if on-slab) */
	struct kmem_cache *slabp_cache;	/* off-slab: where descriptors come from */
	size_t align;			/* objects' alignment, as laid out */

	/*
	 * Under lock, written by the refills and flushes of every CPU: on
	 * lines of their own, which the fast paths never read.
	 */
	spinlock_t lock __aligned(L1_CACHE_BYTES);
	struct list_head slabs_partial;	/* some objects free */
	struct list_head slabs_full;	/* no object free */
	struct list_head slabs_free;	/* every object free */
	unsigned long num_slabs;	/* slabs on the three lists */
	unsigned long fallback_slabs;	/* of them, fallback slabs */
	unsigned long free_objects;	/* objects on the slabs' free chains */
	unsigned int free_limit;	/* free objects kept before free slabs go */
	unsigned int colour_next;	/* colour of the next slab */
	unsigned int free_touched;	/* a free slab was used since the last reap */
	/* Constant after creation, read by the slow paths only (beside the
	 * lock they take): a slab of the smallest order, made when 2^gfporder
	 * pages cannot be had, see "Fallback slabs" in mm/slab.c (order ==
	 * gfporder: none).  Here, it keeps the struct 192 bytes on i386. */
	struct slab_shape fallback;
};
KMEM_CACHE_COMMON_FIRST();

/* Walks the live caches, c each in turn (pos: a struct list_head *), oldest
 * first or newest first.  slab_caches_lock held.  Not list_for_each_entry():
 * struct kmem_cache is aligned to a cache line, the list head is not, and
 * that macro would make a struct kmem_cache pointer of the head. */
#define for_each_cache(c, pos)							\
	for ((pos) = (assert_spin_held(&slab_caches_lock), slab_caches.next);	\
	     (pos) != &slab_caches &&						\
	     ((c) = container_of(pos, struct kmem_cache, common.list), 1);	\
	     (pos) = (pos)->next)
#define for_each_cache_reverse(c, pos)						\
	for ((pos) = (assert_spin_held(&slab_caches_lock), slab_caches.prev);	\
	     (pos) != &slab_caches &&						\
	     ((c) = container_of(pos, struct kmem_cache, common.list), 1);	\
	     (pos) = (pos)->prev)

/* Is c one of the allocator's own caches (cache structs, magazines,
 * off-slab descriptors)?  Their objects go to and from the slabs directly
 * (internal_alloc(), internal_free()), never through kfree() or
 * kmem_cache_free(). */
static inline int is_internal(const struct kmem_cache *c)
{
	return c->common.flags & CFLGS_INTERNAL;
}

/* The internal cache for objects of size bytes, or NULL if none is large enough. */
struct kmem_cache *kmem_find_internal_cachep(size_t size);

/* An object of the internal cache c (NULL: none), taken straight from its
 * slabs (zeroed with __GFP_ZERO), for the allocator's own use (and the
 * self-tests'); NULL if out of memory.  Any context. */
void *slab_internal_alloc(struct kmem_cache *c, gfp_t flags);
/* Gives back an object from slab_internal_alloc() (c NULL: its own cache);
 * reports anything else.  Any context. */
void slab_internal_free(struct kmem_cache *c, const void *objp);

/* Completed reaper passes, per CPU: each CPU's reap timer ages its own
 * magazines (timers run on the CPU that armed them). */
extern unsigned long slab_reap_passes[NR_CPUS];

/* A slab grows past the smallest order that holds one object only while
 * below this order and wasting more than 1/8 (Linux 2.6's
 * slab_break_gfp_order): 0, or 1 with more than SLAB_BREAK_RAM_BYTES of
 * RAM.  Set at boot; read when a cache is created. */
extern unsigned int slab_break_order;

/* Gives c new magazines of limit entries (batch per refill or flush), each
 * CPU swapping its own (on_each_cpu) and the old contents going back to
 * the slabs.  Returns 0, or -1 (nothing changed) if out of memory or if
 * other CPUs are online and interrupts are off (they cannot be asked).
 * Process context. */
int slab_tune_cpucache(struct kmem_cache *c, unsigned int limit, unsigned int batch);

/* This CPU's magazine of c.  Interrupts off: only this CPU changes it, and
 * a magazine swap (an IPI) could otherwise replace it under the caller. */
static inline struct array_cache *cpu_cache(struct kmem_cache *c)
{
	assert_irqs_disabled();
	return c->array[smp_processor_id()];
}

static inline void *index_to_obj(const struct kmem_cache *c, const struct slab *slabp,
				 unsigned int idx)
{
	return (char *)slabp->s_mem + (size_t)idx * c->buffer_size;
}

/* The index of the object offset bytes after s_mem, offset < objs_bytes
 * (reciprocal_index(): exact for an object's start). */
static inline unsigned int obj_index(const struct kmem_cache *c, size_t offset)
{
	return reciprocal_index(offset, c->reciprocal_size);
}

/* obj must be an object's start in slabp. */
static inline unsigned int obj_to_index(const struct kmem_cache *c, const struct slab *slabp,
					const void *obj)
{
	return obj_index(c, (size_t)((const char *)obj - (const char *)slabp->s_mem));
}

/* The bufctl entry of objp if it is the start of an object of c in a slab
 * page (page is objp's), else NULL.  O(1): the page leads to the slab.
 * Reads without a lock what the free fast path reads (mm/slab.c). */
kmem_bufctl_t *obj_bufctl(const struct kmem_cache *c, const struct page *page, const void *objp);

/* Bytes of an on-slab descriptor with num bufctl entries, objects aligned after it. */
static inline size_t slab_mgmt_size(size_t num, size_t align)
{
	return ALIGN(sizeof(struct slab) + num * sizeof(kmem_bufctl_t), align);
}

/* First address of the slab's pages. */
static inline void *slab_start(const struct slab *slabp)
{
	return (char *)slabp->s_mem - slabp->colouroff;
}

/* The shape of c's own slabs, as a struct slab_shape. */
static inline struct slab_shape cache_shape(const struct kmem_cache *c)
{
	return (struct slab_shape){ .order = (unsigned short)c->gfporder,
				    .num = (unsigned short)c->num,
				    .slab_size = c->slab_size,
				    .slabp_cache = OFF_SLAB(c) ? c->slabp_cache : NULL };
}

/* Does c make fallback slabs, smaller than its own, when it must? */
static inline int has_fallback(const struct kmem_cache *c)
{
	return c->fallback.order < c->gfporder;
}

/* The shape of slabp, a slab of c: a fallback slab's or the cache's own,
 * told apart by the order of the slab's block (its head page's, which the
 * page allocator keeps while the block is allocated). */
static inline struct slab_shape slab_shape(const struct kmem_cache *c, const struct slab *slabp)
{
	if (has_fallback(c) &&
	    managed_virt_to_page(slab_start(slabp))->order == c->fallback.order)
		return c->fallback;
	return cache_shape(c);
}

/* Is slabp, a slab of c, a fallback slab? */
static inline int is_fallback_slab(const struct kmem_cache *c, const struct slab *slabp)
{
	return slab_shape(c, slabp).order != c->gfporder;
}

/* Where a fallback slab's first object lies: its objects end where the
 * slab ends, so that no object start of c lies in the slab's pages past its
 * last object (the free fast path checks an object start against
 * objs_bytes, the span of a full-sized slab's objects). */
static inline size_t fallback_obj_offset(const struct kmem_cache *c)
{
	return (PAGE_SIZE << c->fallback.order) - c->fallback.num * c->buffer_size;
}

/* What a cache holds, from its counters. */
struct slab_counts {
	unsigned long num_slabs;
	unsigned long fallback_slabs;	/* of them, fallback slabs */
	unsigned long pages;		/* the slabs' pages */
	unsigned long num_objs;		/* the slabs' objects */
	unsigned long active_objs;	/* out of the slabs: held or in magazines */
	unsigned long cached;		/* in every CPU's magazine (a snapshot) */
	unsigned long held;		/* held by callers (internal caches: by the
					 * allocator) */
};
/* Fills n from c's counters.  c->lock held, interrupts off. */
void cache_get_counts(struct kmem_cache *c, struct slab_counts *n);


#endif /* MM_SLAB_H */
