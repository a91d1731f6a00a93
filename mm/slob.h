/* slob.h - SLOB's internals, shared by slob.c (kmalloc, caches, the
 * shrinker), the heap it is built with (slob_heap.c, the small best-fit-by-page
 * heap, or slob_fast.c, the segregated one: CONFIG_SLOB_FAST_HEAP) and the
 * reports (slob_info.c and the heap's own).  Not a public header.
 *
 * The heap's interface is the functions below marked "heap:": slob.c
 * never looks inside a heap page, and a heap never knows what a block is
 * for (a kmalloc() block with its header, a cache object, the
 * allocator's own block).
 */
#ifndef MM_SLOB_H
#define MM_SLOB_H

#include <tiny/list.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/spinlock.h>
#include "slab_common.h"

/* One unit, the allocation granule (8 bytes on i386): a free block begins
 * with its size in units and the heap's link; a kmalloc() or internal
 * block begins with one unit of header: its size, and a tag. */
typedef struct slob_block {
	int units;
	struct slob_block *next;
} slob_t;

#define SLOB_UNIT		sizeof(slob_t)
#define SLOB_UNITS(size)	((int)(((size) + SLOB_UNIT - 1) / SLOB_UNIT))
#define SLOB_PAGE_UNITS		((int)(PAGE_SIZE / SLOB_UNIT))
#define SLOB_UNIT_SHIFT		(sizeof(slob_t) == 16 ? 4 : 3)

/* The header of a kmalloc() block or of one of the allocator's own blocks
 * (a cache): its size in units, header included, and a tag: the header's
 * address xor'ed with one of these, so that no free block's link (a unit
 * boundary) and few data words look like one. */
#define SLOB_TAG_KMALLOC	0x5106b10cUL
#define SLOB_TAG_INTERNAL	0x1e7e2a11UL

static inline slob_t *slob_tag(const slob_t *m, uintptr_t tag)
{
	return (slob_t *)((uintptr_t)m ^ tag);
}

struct kmem_cache {
	struct kmem_cache_common common;
	int units;			/* an object's block, in units */
	int align_units;		/* its alignment in units (0 or 1: none) */
	unsigned long live;		/* objects allocated and not freed; slob_lock */
};
KMEM_CACHE_COMMON_FIRST();

/* slob_lock guards the heap (its pages, lists and counters), every
 * cache's live count (written under it, read without it) and
 * slob_internal_units.  Taken with interrupts saved:
 * the shrinker timer and GFP_ATOMIC callers use the heap from interrupts.
 * The page allocator's zone_lock nests inside it. */
extern spinlock_t slob_lock;
/* How slob.c's slob_lock_irqsave() and slob_unlock_irqrestore() are
 * built: out of line on SMP, where the lock's code is long, so that it is
 * there once; inline on a uniprocessor, where it is a cli. */
#if IS_ENABLED(CONFIG_SMP)
#define slob_lock_attr		noinline
#else
#define slob_lock_attr		__always_inline
#endif
extern unsigned long slob_heap_pages;		/* pages the heap holds */
extern unsigned long slob_free_units;		/* units in free blocks */
extern unsigned long slob_internal_units;	/* units of the allocator's own blocks */

/* heap: sets the heap up (boot, before any allocation). */
void slob_heap_init(void);
/* heap: a block of units units (two or more) aligned to align_units units
 * (0 or 1: none), growing the heap if it must; NULL if out of memory.  A
 * block of more than a page, or aligned above a page, is a run: it starts
 * a page.  slob_lock held. */
slob_t *slob_heap_alloc(int units, int align_units, gfp_t gfp);
/* heap: frees the block b of units units (free 1), or only says whether it
 * would (free 0): 0, or -1, changing nothing, if the heap can tell it is
 * no live block of that size (off the heap, misaligned, overlapping a free
 * block).  One entry for both, so that SLOB's code has no wrapper for
 * each.  slob_lock held. */
int slob_heap_block(slob_t *b, int units, int free);
static inline int slob_heap_free(slob_t *b, int units)
{
	return slob_heap_block(b, units, 1);
}

static inline int slob_heap_check(slob_t *b, int units)
{
	return slob_heap_block(b, units, 0);
}
/* heap: the header of the live block tagged tag (SLOB_TAG_*) whose body
 * is obj, or NULL if the heap can tell obj is no such body; reads only
 * memory of heap pages.  slob_lock held. */
slob_t *slob_heap_header(const void *obj, uintptr_t tag);
/* heap: gives one entirely free heap page back to the page allocator
 * (with any page of the heap's own bookkeeping left empty); returns the
 * pages freed, 0 if no heap page was entirely free.  slob_lock held. */
unsigned long slob_heap_release_page(void);
/* Pages the heap keeps for its own bookkeeping (the fast heap's start
 * maps), counted in the Slab: line. */
#if IS_ENABLED(CONFIG_SLOB_FAST_HEAP)
extern unsigned long slob_heap_meta_pages;
#else
#define slob_heap_meta_pages	0UL
#endif
/* heap: its name, for the boot line. */
extern const char slob_heap_name[];

/* The reports (slob_info.c): the heap's own part of kmem_report() and
 * kmem_validate() (slob_heap_info.c or slob_fast_info.c).  slob_lock held. */
void slob_heap_report(void);
int slob_heap_validate(void);
/* The heap's part of kmem_heap_visit(): each heap page, used and
 * capacity in units, grouped as the heap keeps its pages. */
void slob_heap_visit(heap_visit_t visit, void *arg);
/* The bytes of the heap's largest free block (a walk: for reports). */
unsigned long slob_heap_largest_free(void);

#endif /* MM_SLOB_H */
