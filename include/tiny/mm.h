/* mm.h - the page allocator's API: page frames, orders and free pages.
 *
 * Memory is handed out in blocks of 2^order contiguous pages by the buddy
 * allocator in mm/page_alloc.c.  Every page frame has a struct page in one
 * array (mem_map); the object allocators use a page's spare words to find
 * their own bookkeeping from any address in O(1).  Addresses are the
 * kernel's direct mapping (identity on i386, a host buffer in tests).
 */
#ifndef TINY_MM_H
#define TINY_MM_H

#include <tiny/types.h>
#include <tiny/atomic.h>
#include <tiny/kconfig.h>
#include <tiny/list.h>
#include <tiny/gfp.h>
#include <arch/page.h>

#define PAGE_SHIFT	ARCH_PAGE_SHIFT
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & PAGE_MASK)

/* Orders 0 .. MAX_ORDER-1: the largest block is 2^(MAX_ORDER-1) pages. */
#define MAX_ORDER	CONFIG_MAX_ORDER

/* struct page flags */
#define PG_reserved	0x01u	/* never handed out (hole, kernel image, mem_map) */
#define PG_buddy	0x02u	/* first page of a free block; order is valid */
#define PG_head		0x04u	/* first page of an allocated block; order is valid */
#define PG_slab		0x08u	/* owned by the object allocator */
#define PG_large	0x10u	/* head of a large kmalloc() block (mm/slab_common.c) */
/* With PG_slab, what SLAB's slab is for, set and cleared with it, so that a
 * check without a lock learns it from one word and never reads a cache
 * that may be going away (mm/slab.c) */
#define PG_kmalloc	0x20u	/* a slab of a kmalloc() size class */
#define PG_internal	0x40u	/* a slab of the allocator's own objects */
/* With PG_slab, SLUB only: the slab has its cache's fallback order (the
 * smaller one, taken when the preferred order could not be had), so that
 * a free learns the slab's size from the flags word (mm/slub.h) */
#define PG_min_order	0x80u
#define PG_min_order_shift	7

/*
 * Every allocator keeps the same six words: SLUB's slab state is one of
 * them (its free list head as an object index, with the objects in use
 * and the frozen bit: mm/slub.h), so struct page is as large in every
 * configuration.
 */
struct page {
	unsigned int flags;		/* PG_* */
	unsigned int order;		/* block order, valid with PG_buddy/PG_head */
	union {
		struct list_head lru;	/* free_area list, or the owner's list
					 * (SLUB: its cache's partial list) */
		void *s_mem;		/* SLAB: the slab's first object (a copy of
					 * its descriptor's, for the free fast path) */
		struct {		/* SLUB: on a CPU's partial list */
			struct page *next;	/* the next slab there */
			unsigned int slabs;	/* slabs from this one to the end */
		};
	};
	/* Spare words for the object allocator that owns the page. */
	union {
		void *slab_cache;	/* SLAB, SLUB: owning cache; SLOB: the cache
					 * of a page-sized object */
		unsigned long inuse;	/* PG_large: pages of the large block;
					 * SLOB: start maps in use in a map page;
					 * SLUB: slots in use in a per-CPU page */
	};
	union {
		void *slab;		/* SLAB: slab descriptor; SLOB: a heap page's
					 * start map, or a map page's free maps */
		u32 counters;		/* SLUB, a slab's first page: its state */
	};
};

/* A range of addresses [start, end). */
struct mem_region {
	unsigned long start;
	unsigned long end;
};

/*
 * Sets up mem_map and the free lists over the usable RAM ranges, leaving
 * out the reserved ranges (kernel image, boot data, modules).  mem_map is
 * placed in the first free range large enough.  Boot time only.
 * Returns 0, or -1 if no usable memory or no room for mem_map.
 */
int page_alloc_init(const struct mem_region *ram, int nr_ram,
		    const struct mem_region *reserved, int nr_reserved);

/* Allocation: NULL/0 on failure or order >= MAX_ORDER.  Any context. */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
#define __get_free_page(gfp)	__get_free_pages((gfp), 0)
unsigned long get_zeroed_page(gfp_t gfp);

/* Cuts an allocated block of 2^order pages into blocks of one page and
 * gives back every page from the nr-th on (as Linux's alloc_pages_exact()
 * does); each of the first nr pages is then freed alone, order 0.  Any
 * context; takes zone_lock. */
void split_page_block(struct page *page, unsigned int order, unsigned long nr);

/* Free a block from the allocation calls above.  Bad input (not a block
 * head, wrong order, already free, outside managed memory) is reported and
 * ignored.  Any context. */
void __free_pages(struct page *page, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
#define free_page(addr)		free_pages((addr), 0)

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

void *page_address(const struct page *page);
/* Sets then clears flag bits (PG_slab, PG_large) on nr struct pages from
 * page, under the page allocator's lock, which owns every page's flags;
 * returns the first page's flags as they were (so that clearing a flag
 * also claims it: of two CPUs clearing it, one sees it set).  Any
 * context; takes zone_lock with interrupts saved. */
unsigned int page_update_flags(struct page *page, unsigned long nr, unsigned int set,
			       unsigned int clear);
/* page_update_flags() of one page that also counts: when it sets a flag
 * the page did not have it adds page->inuse to *count, when it clears one
 * the page had it takes page->inuse away, under the same hold of
 * zone_lock, so that page_flag_census() finds the flags and the count in
 * step however many CPUs change them. */
unsigned int page_update_counted(struct page *page, unsigned int set, unsigned int clear,
				 atomic_long_t *count);

/* Smallest order whose block holds size bytes (size 0 gives order 0). */
static inline unsigned int get_order(unsigned long size)
{
	unsigned int order = 0;

	if (size)
		size = (size - 1) >> PAGE_SHIFT;
	while (size) {
		order++;
		size >>= 1;
	}
	return order;
}

/*
 * Puts every free list in descending address order, the order the boot
 * leaves them in, so that the blocks handed out next depend only on which
 * pages are free and not on the order they were freed in (a trace replay
 * starts from here, to repeat exactly).  O(n^2) in the free blocks of an
 * order, which are few once merged.  Any context; takes the zone lock.
 */
void page_alloc_sort_free_lists(void);

/* The pages whose flags have flag set, counted under zone_lock (which
 * guards every page's flags); *inuse gets the sum of their page->inuse
 * (PG_large: the large blocks' pages), and *counted (if count is not NULL)
 * the value of the page_update_counted() count *count in the same hold of
 * the lock.  For the reports.  Takes zone_lock. */
unsigned long page_flag_census(unsigned int flag, unsigned long *inuse, atomic_long_t *count,
			       long *counted);

/* Counters. */
unsigned long nr_free_pages(void);
unsigned long totalram_pages(void);	/* managed pages (MemTotal) */
unsigned long nr_reserved_pages(void);	/* pages of RAM kept out of the allocator */
unsigned long min_free_pages(void);	/* reserve left to __GFP_HIGH allocations */

struct buddy_snapshot {
	unsigned long free_pages;
	unsigned long nr_free[MAX_ORDER];	/* free blocks per order */
};
void page_alloc_snapshot(struct buddy_snapshot *snap);

/* Walks every free list and checks it against mem_map and the counters;
 * reports each inconsistency and returns their number (0 = consistent). */
int page_alloc_validate(void);

/* Reports printed with printk in the layout of /proc/buddyinfo and the
 * first lines of /proc/meminfo (MemTotal, MemFree, Slab). */
void show_buddyinfo(void);
void show_meminfo(void);

#endif /* TINY_MM_H */
