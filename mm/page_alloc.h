/* page_alloc.h - what the page allocator (mm/page_alloc.c) shares with the
 * object allocators alone: the page frame descriptor, its flags, the
 * array of them, and finding one from an address.  Not a public header:
 * callers of the page allocator use <tiny/mm.h>, where struct page is an
 * opaque handle.
 *
 * Every page frame has a struct page in one array (mem_map); the object
 * allocators use a page's spare words to find their own bookkeeping from
 * any address in O(1).  Its flags and order belong to the page allocator,
 * which changes them under zone_lock; an object allocator sets and clears
 * its flags (PG_slab, PG_large, ...) through page_update_flags() and
 * page_update_counted().
 */
#ifndef MM_PAGE_ALLOC_H
#define MM_PAGE_ALLOC_H

#include <tiny/atomic.h>
#include <tiny/list.h>
#include <tiny/mm.h>

/* struct page flags */
#define PG_reserved	0x01u	/* never handed out (hole, kernel image, mem_map) */
#define PG_buddy	0x02u	/* first page of a free block; order is valid */
#define PG_head		0x04u	/* first page of an allocated block; order is valid */
#define PG_slab		0x08u	/* owned by the object allocator: a slab or heap page */
#define PG_large	0x10u	/* head of a large kmalloc() block (mm/slab_common.c) */
/* With PG_slab, what a slab of SLAB or SLUB is for, set and cleared with
 * it, so that a check without a lock learns it from one word and never
 * reads a cache that may be going away (page_kmalloc_class()) */
#define PG_kmalloc	0x20u	/* a slab of a kmalloc class */
#define PG_internal	0x40u	/* a slab of the allocator's own objects */
/* With PG_slab, SLUB only: the slab has its cache's fallback order (the
 * smaller one, taken when the preferred order could not be had), so that
 * a free learns the slab's size from the flags word (mm/slub.h) */
#define PG_min_order	0x80u
#define PG_min_order_shift	7

/* The spare words mean what the page's owner says: each has a name for
 * each use, so that no name means two things.  SLUB's slab state is one of
 * them (its free list head as an object index, with the objects in use
 * and the frozen bit: mm/slub.h), so struct page is as large in every
 * configuration. */
struct page {
	unsigned int flags;		/* PG_* */
	unsigned int order;		/* block order, valid with PG_buddy/PG_head */
	union {
		struct list_head lru;	/* PG_buddy: on its free_area list; SLOB: a
					 * heap page on its heap's page lists, a map
					 * page (fast heap) on the partial map pages;
					 * SLUB: a slab on its cache's partial list,
					 * a per-CPU data page on their list */
		void *s_mem;		/* SLAB: the slab's first object (a copy of
					 * its descriptor's, for the free fast path) */
		struct {		/* SLUB: a slab on a CPU's partial list */
			struct page *next;	/* the next slab there */
			unsigned int slabs;	/* slabs from this one to the end */
		};
	};
	union {
		void *slab_cache;	/* SLAB, SLUB: the cache of the slab */
		unsigned long nr_pages;	/* PG_large: pages of the large block */
		unsigned long largest_free; /* SLOB small heap: units of the page's
					 * largest free block (mm/slob_heap.c) */
		unsigned long maps_used; /* SLOB fast heap, a map page: its start
					 * maps handed out (mm/slob_fast.c) */
		unsigned long slots_used; /* SLUB, a per-CPU data page: its slots
					 * handed out (mm/slub_cpu.c) */
	};
	union {
		void *slab;		/* SLAB: the slab descriptor */
		void *first_free;	/* SLOB small heap: the page's first free
					 * block (slob_t *), NULL if none */
		unsigned long *start_map; /* SLOB fast heap: the heap page's start map */
		void *free_maps;	/* SLOB fast heap, a map page: its free
					 * start maps, each holding the next */
		u32 counters;		/* SLUB, a slab's first page: its state */
	};
};

/* The page frame array, set up by page_alloc_init(): mem_map[i] describes
 * pfn first_pfn + i.  Read-only outside mm/page_alloc.c. */
extern struct page *mem_map;
extern unsigned long first_pfn, end_pfn;

/* struct page of a managed address, or NULL for an address outside mem_map.
 * Inline where the build optimises for speed (the object allocators'
 * frees call it on every pointer); where it optimises for size (-Os, the
 * kernel) one copy in mm/page_alloc.c serves every caller. */
static inline struct page *__virt_to_page(const void *addr)
{
	unsigned long pfn = (unsigned long)(uintptr_t)addr >> PAGE_SHIFT;

	return mem_map && pfn >= first_pfn && pfn < end_pfn ? &mem_map[pfn - first_pfn] : NULL;
}
#ifdef __OPTIMIZE_SIZE__
struct page *virt_to_page(const void *addr);
#else
#define virt_to_page(addr)	__virt_to_page(addr)
#endif

/* struct page of an address the caller knows is managed (a page it was
 * given): virt_to_page() without the range check. */
static inline struct page *managed_virt_to_page(const void *addr)
{
	return &mem_map[((unsigned long)(uintptr_t)addr >> PAGE_SHIFT) - first_pfn];
}

/* Sets then clears flag bits (PG_slab, PG_large) on nr struct pages from
 * page, under the page allocator's lock, which owns every page's flags;
 * returns the first page's flags as they were (so that clearing a flag
 * also claims it: of two CPUs clearing it, one sees it set).  Any
 * context; takes zone_lock with interrupts saved. */
unsigned int page_update_flags(struct page *page, unsigned long nr, unsigned int set,
			       unsigned int clear);
/* page_update_flags() of one page that also counts: when it sets a flag
 * the page did not have it adds page->nr_pages to *count, when it clears
 * one the page had it takes page->nr_pages away, under the same hold of
 * zone_lock, so that page_flag_census() finds the flags and the count in
 * step however many CPUs change them.  (PG_large's count.) */
unsigned int page_update_counted(struct page *page, unsigned int set, unsigned int clear,
				 atomic_long_t *count);
/* The pages whose flags have flag set, counted under zone_lock (which
 * guards every page's flags); *pages gets the sum of their nr_pages
 * (PG_large: the large blocks' pages), and *counted (if count is not NULL)
 * the value of the page_update_counted() count *count in the same hold of
 * the lock.  For the reports.  Takes zone_lock. */
unsigned long page_flag_census(unsigned int flag, unsigned long *pages, atomic_long_t *count,
			       long *counted);
/* Calls fn(page, arg) for each page whose flags have flag set, in address
 * order, under zone_lock (held across the walk: fn neither allocates nor
 * frees pages).  For the heap map (SLUB's slabs, the large blocks).
 * Takes zone_lock. */
void page_flag_walk(unsigned int flag, void (*fn)(struct page *page, void *arg), void *arg);

#endif /* MM_PAGE_ALLOC_H */
