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
 * object out of the slab holds its state, so a bad free is caught in O(1).
 * The allocator's own objects (struct kmem_cache, off-slab descriptors,
 * array caches) are INTERNAL: kfree() and kmem_cache_free() refuse them.
 */
typedef unsigned short kmem_bufctl_t;	/* 2 bytes: a 21st dentry fits a page */
#define BUFCTL_END	((kmem_bufctl_t)~0U)	/* last free object */
#define BUFCTL_ACTIVE	((kmem_bufctl_t)~1U)	/* held by a caller */
#define BUFCTL_CACHED	((kmem_bufctl_t)~2U)	/* sitting in an array cache */
#define BUFCTL_INTERNAL	((kmem_bufctl_t)~3U)	/* held by the allocator itself */
#define BUFCTL_MARK	((kmem_bufctl_t)~4U)	/* only inside kmem_validate() */
#define SLAB_LIMIT	((kmem_bufctl_t)~5U)	/* more objects per slab than this: never */

/* A state word as any CPU may read or write it: a bad free on one CPU
 * compare-and-swaps the word the owner of the object writes. */
static inline kmem_bufctl_t bufctl_read(const kmem_bufctl_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void bufctl_write(kmem_bufctl_t *p, kmem_bufctl_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Slab descriptor, at the start of the slab (after the colour) or off-slab. */
struct slab {
	struct list_head list;		/* on the cache's full, partial or free list */
	size_t colouroff;		/* bytes from the first page to s_mem */
	void *s_mem;			/* first object */
	unsigned short inuse;		/* objects off the free chain (held or cached) */
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
 * avail, for the counts (ac_avail()).
 */
struct ac_entry {
	void *objp;			/* a CACHED object */
	kmem_bufctl_t *state;		/* its state word, found when it went in (refill
					 * or free): taking it out writes the state
					 * without looking up its page and slab */
};

struct array_cache {
	unsigned int avail;		/* objects in entry[] */
	unsigned int limit;		/* capacity of entry[] */
	unsigned int batchcount;	/* objects moved per refill or flush */
	unsigned int touched;		/* allocated from since the last reap */
	struct ac_entry entry[];	/* entry[avail - 1] is the hottest */
};

/*
 * What other CPUs may read of a magazine, and how (the owner reads its own
 * plainly).  avail and each entry's objp are published with release
 * stores and read with acquire loads: on x86 both are plain moves, so the
 * fast path is unchanged, but a reader that sees an entry (below a
 * snapshot of avail, or stored there since) also sees the writes that
 * made it an object of the cache (its slab's pages mapped, its state
 * word written).  The state pointer beside objp is the owner's alone.
 */
static inline unsigned int ac_avail(const struct array_cache *ac)
{
	return __atomic_load_n(&ac->avail, __ATOMIC_ACQUIRE);
}

/* The owner's update of avail, a single store that ac_avail() may read. */
static inline void ac_set_avail(struct array_cache *ac, unsigned int avail)
{
	__atomic_store_n(&ac->avail, avail, __ATOMIC_RELEASE);
}

/* The owner fills entry i (at or above avail: not yet counted). */
static inline void ac_entry_set(struct array_cache *ac, unsigned int i, void *objp,
				kmem_bufctl_t *state)
{
	ac->entry[i].state = state;
	__atomic_store_n(&ac->entry[i].objp, objp, __ATOMIC_RELEASE);
}

/* Entry i's object as another CPU may read it while the owner works. */
static inline void *ac_entry_objp(const struct array_cache *ac, unsigned int i)
{
	return __atomic_load_n(&ac->entry[i].objp, __ATOMIC_ACQUIRE);
}

/* Cache flag kept next to the SLAB_* ones: descriptors live off the slab. */
#define CFLGS_OFF_SLAB		0x80000000UL
#define CFLGS_GENERAL		0x40000000UL	/* a kmalloc() size class */
#define OFF_SLAB(c)		((c)->common.flags & CFLGS_OFF_SLAB)

/* RAM above which slabs may grow to order 1 to meet the 1/8 waste bound. */
#define SLAB_BREAK_RAM_BYTES	(32UL << 20)
/* Objects this large (padded) get their descriptors off the slab. */
#define OFF_SLAB_MIN_SIZE	(PAGE_SIZE >> 3)
/* A magazine holds at most this many bytes of objects (but 4 to 120
 * objects).  One page: what a magazine holds no caller uses, and a page
 * still moves 8 or more objects per refill or flush for objects up to 256
 * bytes, 60 for the smallest.  Linux 2.6 kept 120 entries up to 256 bytes
 * (30 KiB of them) and 24 for 1-4 KiB objects (96 KiB in one magazine of
 * size-4096); two pages parked 1.25% of live bytes at the shipped trace's
 * peak, one page 0.7 (README, Overhead). */
#define MAGAZINE_BYTES		PAGE_SIZE
#define MAGAZINE_MIN		4
#define MAGAZINE_MAX		120
/* The reaper runs this often. */
#define REAP_INTERVAL		(2 * HZ)

struct kmem_cache {
	struct kmem_cache_common common;	/* name, size asked for, flags (SLAB_* and
					 * CFLGS_*), ctor, dtor, registry link */
	/* Per-CPU magazines: the fast path touches only these. */
	struct array_cache *array[NR_CPUS];
	unsigned int limit, batchcount;	/* the tunables the arrays were sized with */
	size_t buffer_size;		/* object stride: size rounded to the alignment */
	u32 reciprocal_size;		/* ceil(2^32 / buffer_size): see obj_index() */
	uintptr_t page_base;		/* mem_map less first_pfn pages, as a number:
					 * see slab_obj_page() */
	unsigned long pfn_lo, nr_pfns;	/* first_pfn and end_pfn - first_pfn: see
					 * cache_virt_to_page() */
	size_t objs_bytes;		/* num * buffer_size: the objects' span in a slab */

	spinlock_t lock;		/* the three lists, the counters below, colour_next;
					 * taken with interrupts off */
	struct list_head slabs_partial;	/* some objects free */
	struct list_head slabs_full;	/* no object free */
	struct list_head slabs_free;	/* every object free */
	unsigned long num_slabs;	/* slabs on the three lists */
	unsigned long free_objects;	/* objects on the slabs' free chains */
	unsigned int free_limit;	/* free objects kept before free slabs go */
	unsigned int colour_next;	/* colour of the next slab */
	unsigned int free_touched;	/* a free slab was used since the last reap */

	/* Constant after creation. */
	unsigned int num;		/* objects per slab */
	unsigned int gfporder;		/* a slab is 2^gfporder pages */
	unsigned int colour;		/* number of colours */
	size_t colour_off;		/* bytes between two colours */
	size_t slab_size;		/* descriptor and bufctl[num] (aligned if on-slab) */
	struct kmem_cache *slabp_cache;	/* off-slab: where descriptors come from */
	gfp_t zero_refused;		/* __GFP_ZERO if there is a ctor: one test of
					 * the flags refuses zeroing a constructed object */
	size_t align;			/* objects' alignment, as laid out */
};

/* The general caches behind kmalloc(), smallest first. */
struct cache_sizes {
	size_t cs_size;
	const char *cs_name;
	struct kmem_cache *cs_cachep;	/* NULL if this PAGE_SIZE/MAX_ORDER cannot hold it */
};
extern struct cache_sizes malloc_sizes[];
/* Larger kmalloc() requests take whole pages (a large block), not a
 * general cache: an object of several pages cached in a magazine or on a
 * free slab would park whole pages, and the pages themselves round no worse
 * than the power-of-two classes would.  Up to a page stays in a class:
 * taking 2-4 KiB blocks from the page allocator too saved 2 pages at the
 * shipped trace's peak, but they are 3% of the trace's allocations, and
 * through the page allocator's one lock they took bench-smp's two-CPU
 * scaling from about x1.4 to x1.0. */
#define KMALLOC_MAX_CACHE_SIZE	PAGE_SIZE
extern size_t kmalloc_max_size;		/* the largest general cache made */
extern const unsigned int nr_malloc_sizes;

/* The general cache kmalloc(size) uses, or NULL (0 or beyond the largest). */
struct kmem_cache *kmem_find_general_cachep(size_t size);

extern struct kmem_cache cache_cache;	/* of struct kmem_cache */

/* Completed reaper passes, per CPU: each CPU's reap timer ages its own
 * magazines (timers run on the CPU that armed them). */
extern unsigned long slab_reap_passes[NR_CPUS];

/* A slab grows past the smallest order that holds one object only while
 * below this order and wasting more than 1/8 (Linux 2.6's
 * slab_break_gfp_order): 0, or 1 with more than SLAB_BREAK_RAM_BYTES of
 * RAM.  Set at boot; read when a cache is created. */
extern unsigned int slab_break_order;

/* kmem_cache_alloc() calls refused: __GFP_ZERO on a cache with a constructor. */
extern atomic_long_t slab_zero_ctor_refusals;

/* Entries of the magazines of a cache of objects of size bytes. */
unsigned int slab_magazine_limit(size_t size);

/* Gives c new magazines of limit entries (batch per refill or flush), each
 * CPU swapping its own (on_each_cpu) and the old contents going back to
 * the slabs.  Returns 0, or -1 (nothing changed) if out of memory or if
 * other CPUs are online and interrupts are off (they cannot be asked).
 * Process context. */
int slab_tune_cpucache(struct kmem_cache *c, unsigned int limit, unsigned int batch);

static inline struct array_cache *cpu_cache(struct kmem_cache *c)
{
	return c->array[smp_processor_id()];
}

static inline void *index_to_obj(const struct kmem_cache *c, const struct slab *slabp,
				 unsigned int idx)
{
	return (char *)slabp->s_mem + (size_t)idx * c->buffer_size;
}

/*
 * The index of the object offset bytes after s_mem, offset < objs_bytes:
 * offset * ceil(2^32 / size) / 2^32 instead of a division.  Exact for an
 * object's start k * size: the error k * (size * ceil(2^32 / size) - 2^32)
 * / 2^32 stays below 1 because k * size < 2^32 (a slab is far smaller).
 * For any other offset the result is off by at most one, and
 * obj_index() * size != offset tells it is no object's start anyway.
 */
static inline unsigned int obj_index(const struct kmem_cache *c, size_t offset)
{
	return (unsigned int)(((u64)(u32)offset * c->reciprocal_size) >> 32);
}

/* The page of objp, known to be an object of c in a slab (no range
 * check): mem_map's base is copied into every cache, so this is one load
 * from c, not two of globals. */
static inline struct page *slab_obj_page(const struct kmem_cache *c, const void *objp)
{
	return (struct page *)(c->page_base +
			       ((uintptr_t)objp >> PAGE_SHIFT) * sizeof(struct page));
}

/* virt_to_page(objp) from copies in c of mem_map's place and range (one
 * cache line the free reads anyway, not three globals): the struct page,
 * or NULL for an address outside managed memory. */
static inline struct page *cache_virt_to_page(const struct kmem_cache *c, const void *objp)
{
	unsigned long pfn = (uintptr_t)objp >> PAGE_SHIFT;

	return pfn - c->pfn_lo < c->nr_pfns ? slab_obj_page(c, objp) : NULL;
}

/* obj must be an object's start in slabp. */
static inline unsigned int obj_to_index(const struct kmem_cache *c, const struct slab *slabp,
					const void *obj)
{
	return obj_index(c, (size_t)((const char *)obj - (const char *)slabp->s_mem));
}

/* The bufctl entry of objp if it is the start of an object of c in a slab
 * page, else NULL.  O(1): the page leads to the slab. */
static inline kmem_bufctl_t *obj_bufctl(const struct kmem_cache *c, const struct page *page,
					const void *objp)
{
	struct slab *slabp;
	size_t offset;
	unsigned int idx;

	if (!page || !(page->flags & PG_slab) || page->slab_cache != c)
		return NULL;
	slabp = page->slab;
	offset = (uintptr_t)objp - (uintptr_t)slabp->s_mem;	/* huge if objp < s_mem */
	if (offset >= c->objs_bytes)
		return NULL;
	idx = obj_index(c, offset);
	if ((size_t)idx * c->buffer_size != offset)
		return NULL;
	return &slab_bufctl(slabp)[idx];
}

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

/* What a cache holds, from its counters. */
struct slab_counts {
	unsigned long num_slabs;
	unsigned long num_objs;		/* num_slabs * num */
	unsigned long active_objs;	/* out of the slabs: held or in array caches */
	unsigned long cached;		/* in every CPU's array cache (a snapshot) */
	unsigned long held;		/* held by callers */
};
/* Fills n from c's counters.  c->lock held, interrupts off. */
void cache_get_counts(struct kmem_cache *c, struct slab_counts *n);

/* Where the bytes of the slabs and large blocks go, for the benchmark's
 * overhead breakdown.  held = callers + internal + mgmt + tail + free_objs
 * + cached + large_bytes; callers + large_bytes - the bytes asked for is
 * the rounding to size classes and whole pages. */
struct slab_breakdown {
	unsigned long long held;	/* pages of slabs and large blocks, in bytes */
	unsigned long long callers;	/* objects held by callers, at their class size */
	unsigned long long internal;	/* the allocator's own objects (caches, magazines,
					 * off-slab descriptors) */
	unsigned long long mgmt;	/* on-slab descriptors and bufctls */
	unsigned long long tail;	/* slab bytes no object uses (colour, leftover) */
	unsigned long long free_objs;	/* free objects in partial and free slabs */
	unsigned long long cached;	/* objects in the CPUs' magazines */
	unsigned long long large_bytes;	/* large kmalloc blocks, whole pages */
};
/* Bytes of the allocator's own objects (internal_alloc()). */
unsigned long slab_internal_bytes_now(void);
/* Fills b from the caches' counters.  Takes cache_chain_lock, each cache's
 * lock and large_block_lock. */
void slab_get_breakdown(struct slab_breakdown *b);

#endif /* MM_SLAB_H */
