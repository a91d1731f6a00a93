/* slob_fast.h - the segregated heap's internals (CONFIG_SLOB_FAST_HEAP),
 * shared by slob_fast.c and its report and validator, slob_fast_info.c. */
#ifndef MM_SLOB_FAST_H
#define MM_SLOB_FAST_H

#include "slob.h"

/* A heap page's start map: one bit per unit (see slob_fast.c for what is set).
 * Maps are cut from map pages, SLOB_MAPS_PER_PAGE to a page. */
#define SLOB_MAP_BITS		(8 * sizeof(unsigned long))
#define SLOB_MAP_BYTES		(SLOB_PAGE_UNITS / 8)
#define SLOB_MAPS_PER_PAGE	(PAGE_SIZE / SLOB_MAP_BYTES)

/* Size classes of free blocks (two-level segregated fit): one class per
 * size below 16 units, then 8 classes per power of two up to a page. */
#define SLOB_CLASSES		(16 + (PAGE_SHIFT - SLOB_UNIT_SHIFT - 4) * 8 + 1)
#define SLOB_CLASS_WORDS	((SLOB_CLASSES + SLOB_MAP_BITS - 1) / SLOB_MAP_BITS)

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
	return managed_virt_to_page(b)->start_map;
}

static inline int slob_index(const void *b)
{
	return (int)(((uintptr_t)b & ~PAGE_MASK) / SLOB_UNIT);
}

/* Bit i (0 <= i < SLOB_PAGE_UNITS) of a start map.  slob_lock held. */
static inline int map_test(const unsigned long *map, int i)
{
	assert_spin_held(&slob_lock);
	return (map[i / SLOB_MAP_BITS] >> (i % SLOB_MAP_BITS)) & 1;
}

/* Bit i of a start map; 0 outside the page. */
static inline int slob_bit(const unsigned long *map, int i)
{
	return i >= 0 && i < SLOB_PAGE_UNITS && map_test(map, i);
}

/*
 * Does a block begin at unit i (0 <= i < SLOB_PAGE_UNITS) of the page at
 * base?  (slob_fast.c explains the
 * map.)  A run of set bits starts at the first unit of a block (the bit
 * before it is clear).  Its first bit is a block; if the run goes on, that
 * block is free, and the second bit is its marker unless the free block is
 * one unit long (then the second bit is the next, allocated, block); a
 * third bit is an allocated block after a two-unit free one.  slob_lock
 * held.
 */
static slob_hot int slob_starts(const unsigned long *map, const slob_t *base, int i)
{
	assert_spin_held(&slob_lock);
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
	assert_spin_held(&slob_lock);
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

extern slob_t *slob_free_lists[SLOB_CLASSES];
extern unsigned long slob_class_map[SLOB_CLASS_WORDS];
extern struct list_head slob_pages;
extern unsigned long slob_heap_meta_pages;	/* pages holding start maps */

#endif /* MM_SLOB_FAST_H */
