/* mm.h - the page allocator's API: orders, blocks of pages, free pages.
 *
 * Memory is handed out in blocks of 2^order contiguous pages by the buddy
 * allocator in mm/page_alloc.c, as a struct page pointer (the block's
 * first page frame) or as an address.  Addresses are the kernel's direct
 * mapping (identity on i386, a host buffer in tests).  What the page
 * allocator shares with the object allocators alone (struct page's
 * fields, its flags, virt_to_page()) is mm/page_alloc.h.
 */
#ifndef TINY_MM_H
#define TINY_MM_H

#include <tiny/types.h>
#include <tiny/kconfig.h>
#include <tiny/gfp.h>
#include <arch/page.h>

#define PAGE_SHIFT	ARCH_PAGE_SHIFT
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & PAGE_MASK)

/* Orders 0 .. MAX_ORDER-1: the largest block is 2^(MAX_ORDER-1) pages. */
#define MAX_ORDER	CONFIG_MAX_ORDER

/* The descriptor of a page frame: the page allocator's and the object
 * allocators' own (mm/page_alloc.h); callers only pass pointers to it. */
struct page;

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

/* The address of the memory a page frame describes. */
void *page_address(const struct page *page);
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
