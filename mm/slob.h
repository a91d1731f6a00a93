/* slob.h - SLOB's internal structures, shared by slob.c (the allocator)
 * and slob_info.c (its report and validator).  Not a public header. */
#ifndef MM_SLOB_H
#define MM_SLOB_H

#include <tiny/atomic.h>
#include <tiny/list.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/spinlock.h>

/* A free block: its size in units and the next free block by address.
 * A heap kmalloc() block starts with the same header (units, and a canary
 * in place of next); one unit is the allocation granule. */
typedef struct slob_block {
	int units;
	struct slob_block *next;
} slob_t;

#define SLOB_UNIT		sizeof(slob_t)
#define SLOB_UNITS(size)	((int)(((size) + SLOB_UNIT - 1) / SLOB_UNIT))
#define SLOB_PAGE_UNITS		((int)(PAGE_SIZE / SLOB_UNIT))

/* A heap page's start map: one bit per unit, set where an allocated block
 * begins.  Maps are cut from map pages, SLOB_MAPS_PER_PAGE to a page. */
#define SLOB_MAP_BITS		(8 * sizeof(unsigned long))
#define SLOB_MAP_BYTES		(SLOB_PAGE_UNITS / 8)
#define SLOB_MAPS_PER_PAGE	(PAGE_SIZE / SLOB_MAP_BYTES)

/* What the header of a heap block says it is: the canary is the header's
 * address xor'ed with one of these. */
#define SLOB_TAG_KMALLOC	0x5106b10cUL	/* a kmalloc() block */
#define SLOB_TAG_INTERNAL	0x1e7e2a11UL	/* the allocator's own: caches, bigblocks */

/* A large kmalloc() block taken whole from the page allocator. */
struct bigblock {
	int order;
	void *pages;
	struct bigblock *next;
};

/* Allocated with a SLOB_TAG_INTERNAL header, so a cache pointer can be
 * checked in O(1) and kfree() refuses one. */
struct kmem_cache {
	unsigned int size;		/* object size */
	unsigned int align;		/* 0, or a power of two >= SLOB_UNIT */
	unsigned int order;		/* pages per object, for objects off the heap */
	unsigned int on_heap;		/* objects come from the heap, not whole pages */
	unsigned long flags;
	const char *name;
	kmem_cache_ctor_t ctor, dtor;
	atomic_long_t inuse;		/* objects allocated and not freed */
	struct list_head list;		/* on slob_caches */
};

/* Does a block start in [b, b + units)?  1 or 0; -1 if part of the range
 * is not heap memory.  slob_lock held. */
int slob_any_start(const slob_t *b, int units);

extern slob_t slob_arena;
extern slob_t *slob_rover;
extern spinlock_t slob_lock;
extern unsigned long slob_heap_pages, slob_free_units, slob_internal_units, slob_map_pages;
extern struct bigblock *slob_bigblocks;
extern spinlock_t slob_block_lock;
extern unsigned long slob_bigblock_pages;
extern atomic_long_t slob_cache_pages;
extern struct list_head slob_caches;
extern spinlock_t slob_cache_lock;

#endif /* MM_SLOB_H */
