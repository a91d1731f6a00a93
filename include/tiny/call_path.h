/* call_path.h - which way one allocator call went, for the benchmark.
 *
 * The allocators mark the slow steps an allocation or a free takes: a
 * refill of a CPU's objects, a new slab or heap page, a call into the
 * page allocator, pages given back, a flush of freed objects to their
 * slabs, and the pages a heap walk visits.  The host's timed benchmark
 * (bench-timed, the peers; built with -DHOST_CALL_PATH) keeps the marks
 * of each call it times (bench_replay.c), so that scripts/bench can name
 * the path its slowest calls took.  Everywhere else (the kernel, the
 * other host builds, a port) the marks compile to nothing: no fast path
 * changes.
 */
#ifndef TINY_CALL_PATH_H
#define TINY_CALL_PATH_H

#define CALL_PATH_REFILL	0x01	/* a CPU's objects refilled from slabs (SLAB, SLUB) */
#define CALL_PATH_NEW_SLAB	0x02	/* a new slab, or new pages for SLOB's heap */
#define CALL_PATH_PAGE_ALLOC	0x04	/* the page allocator gave pages */
#define CALL_PATH_PAGE_FREE	0x08	/* pages went back to the page allocator */
#define CALL_PATH_FLUSH		0x10	/* a free's slow path: objects flushed to slabs */
#define CALL_PATH_SLAB_FREED	0x20	/* an empty slab or heap page given up (shrink) */
#define CALL_PATH_LARGE		0x40	/* a block beyond the caches, from the pages */
#define CALL_PATH_BITS		7
#define CALL_PATH_WALK_SHIFT	16	/* the pages a heap walk visited, above the bits */

#ifdef HOST_CALL_PATH
extern unsigned int call_path_taken;	/* the call being timed: bits | pages << 16 */

static inline void call_path(unsigned int bits)
{
	call_path_taken |= bits;
}

/* A heap walk visited one more page (saturates at 65535). */
static inline void call_path_walked(void)
{
	if (call_path_taken >> CALL_PATH_WALK_SHIFT != 0xffff)
		call_path_taken += 1u << CALL_PATH_WALK_SHIFT;
}
#else
static inline void call_path(unsigned int bits)
{
	(void)bits;
}

static inline void call_path_walked(void)
{
}
#endif

#endif /* TINY_CALL_PATH_H */
