/* slob.h - SLOB's internal structures, shared by slob.c (the allocator)
 * and slob_info.c (its report and validator).  Not a public header. */
#ifndef MM_SLOB_H
#define MM_SLOB_H

#include <tiny/atomic.h>
#include <tiny/list.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/spinlock.h>
#include "slab_common.h"

/* One unit, the allocation granule.  A free block starts with its size in
 * units and the next free block of its size class; a free block of two
 * units or more keeps the previous one of its class in its second unit's
 * next.  A kmalloc() or internal block starts with the same header: its
 * size, and a canary in place of next. */
typedef struct slob_block {
	int units;
	struct slob_block *next;
} slob_t;

#define SLOB_UNIT		sizeof(slob_t)
#define SLOB_UNITS(size)	((int)(((size) + SLOB_UNIT - 1) / SLOB_UNIT))
#define SLOB_PAGE_UNITS		((int)(PAGE_SIZE / SLOB_UNIT))

/* A heap page's start map: one bit per unit (see slob.c for what is set).
 * Maps are cut from map pages, SLOB_MAPS_PER_PAGE to a page. */
#define SLOB_MAP_BITS		(8 * sizeof(unsigned long))
#define SLOB_MAP_BYTES		(SLOB_PAGE_UNITS / 8)
#define SLOB_MAPS_PER_PAGE	(PAGE_SIZE / SLOB_MAP_BYTES)

/* Size classes of free blocks (two-level segregated fit): one class per
 * size below 16 units, then 8 classes per power of two up to a page. */
#define SLOB_UNIT_SHIFT		(sizeof(slob_t) == 16 ? 4 : 3)
#define SLOB_CLASSES		(16 + (PAGE_SHIFT - SLOB_UNIT_SHIFT - 4) * 8 + 1)
#define SLOB_CLASS_WORDS	((SLOB_CLASSES + SLOB_MAP_BITS - 1) / SLOB_MAP_BITS)

/* What the header of a heap block says it is: the canary is the header's
 * address xor'ed with one of these. */
#define SLOB_TAG_KMALLOC	0x5106b10cUL	/* a kmalloc() block */
#define SLOB_TAG_INTERNAL	0x1e7e2a11UL	/* the allocator's own: caches, bigblocks */

/* Allocated with a SLOB_TAG_INTERNAL header, so a cache pointer can be
 * checked in O(1) and kfree() refuses one. */
struct kmem_cache {
	struct kmem_cache_common common;
	unsigned char order;		/* pages per object, for objects off the heap */
	unsigned char on_heap;		/* objects come from the heap, not whole pages */
	/* for objects on the heap (fields of 16 bits or less keep the struct
	 * at six units): */
	unsigned char need_class;	/* the class of need */
	unsigned short units;		/* an object's block, in units */
	unsigned short align_units;	/* its alignment in units (0 or 1: none) */
	unsigned short need;		/* what slob_take() looks for */
	unsigned long inuse;		/* objects allocated and not freed; slob_lock */
};

/* The small helpers of the hot paths: inlined where the build optimises
 * for speed (the host benchmark, -O2), left to the compiler where it
 * optimises for size (the kernel, -Os), where inlining them everywhere
 * would cost about 1.4 kB. */
#ifdef __OPTIMIZE_SIZE__
#define slob_hot	inline
#else
#define slob_hot	__always_inline
#endif

/* The start map of the heap page holding b (known to be on the heap), and
 * b's unit in that page. */
static inline unsigned long *slob_map_of(const void *b)
{
	return managed_virt_to_page(b)->slab;
}

static inline int slob_index(const void *b)
{
	return (int)(((uintptr_t)b & ~PAGE_MASK) / SLOB_UNIT);
}

/* Bit i (0 <= i < SLOB_PAGE_UNITS) of a start map.  Map words change only
 * under slob_lock, but cache_is_live() reads a live cache's own bit without
 * it while other bits of the word change: word-sized relaxed loads and
 * stores (plain moves on i386) keep that read whole. */
static inline int map_test(const unsigned long *map, int i)
{
	return (__atomic_load_n(&map[i / SLOB_MAP_BITS], __ATOMIC_RELAXED) >> (i % SLOB_MAP_BITS)) & 1;
}

/* Bit i of a start map; 0 outside the page. */
static inline int slob_bit(const unsigned long *map, int i)
{
	return i >= 0 && i < SLOB_PAGE_UNITS && map_test(map, i);
}

/*
 * Does a block begin at unit i (0 <= i < SLOB_PAGE_UNITS) of the page at
 * base?  (slob.c explains the
 * map.)  A run of set bits starts at the first unit of a block (the bit
 * before it is clear).  Its first bit is a block; if the run goes on, that
 * block is free, and the second bit is its marker unless the free block is
 * one unit long (then the second bit is the next, allocated, block); a
 * third bit is an allocated block after a two-unit free one.  slob_lock
 * held.
 */
static slob_hot int slob_starts(const unsigned long *map, const slob_t *base, int i)
{
	if (!map_test(map, i))
		return 0;
	if (!i || !map_test(map, i - 1))
		return 1;
	if (i < 2 || !map_test(map, i - 2))
		return base[i - 1].units == 1;
	return 1;
}

/* Is the block that begins at unit i (< SLOB_PAGE_UNITS) free?  slob_lock
 * held. */
static inline int slob_is_free(const unsigned long *map, int i)
{
	return i + 1 == SLOB_PAGE_UNITS || map_test(map, i + 1);
}

/* The size class of a free block of units units (2 .. SLOB_PAGE_UNITS). */
static slob_hot int slob_class(int units)
{
	int fl;

	if (units < 16)
		return units;
	fl = 31 - __builtin_clz((unsigned int)units);
	return 16 + (fl - 4) * 8 + ((units >> (fl - 3)) & 7);
}

extern spinlock_t slob_lock;
extern slob_t *slob_free_lists[SLOB_CLASSES];
extern unsigned long slob_class_map[SLOB_CLASS_WORDS];
extern struct list_head slob_pages;
extern unsigned long slob_heap_pages, slob_free_units, slob_internal_units, slob_map_pages;
extern atomic_long_t slob_cache_pages;

/* The objects of c allocated and not freed.  Takes slob_lock. */
unsigned long slob_cache_inuse(struct kmem_cache *c);

#endif /* MM_SLOB_H */
