/* slob.c - SLOB, the simple list-of-blocks allocator (CONFIG_SLOB).
 *
 * Purpose.  The smallest allocator that keeps the API of <tiny/slab.h>
 * and leaves the most memory free, for small machines: the 2005 SLOB's
 * design without its defects.  SLAB is the one that scales.
 *
 * The heap.  Memory is counted in units of one block header (a size and
 * a link: 8 bytes on i386).  One heap of pages holds every block, behind
 * the small interface of slob.h: by default the small heap of
 * slob_heap.c (free blocks in address order, page by page, merged on
 * free; the first fitting page of the tightest power-of-two list of pages
 * by largest free block is taken); with CONFIG_SLOB_FAST_HEAP
 * the segregated heap of slob_fast.c,
 * whose operations are O(1) and whose start maps check every free.  A
 * free block never crosses a page boundary.  This file holds what both
 * heaps serve.
 *
 * kmalloc.  A block of up to a page less a unit has a one-unit header
 * (its size, and a tag that tells a kmalloc() block from the allocator's
 * own), so kfree() and ksize() need no size and refuse what carries no
 * tag.  Larger requests are large blocks of whole pages (slab_common.c).
 *
 * Caches.  Thin: the common part (name, size, alignment, constructor,
 * destructor), the object's units and alignment, and a count.  Objects are
 * headerless heap blocks (a block of more than a page, or aligned above a
 * page, is a run of heap pages whose last page's rest is free heap).  The
 * constructor runs on every allocation, the destructor on every free,
 * outside the lock.
 *
 * Shrinker.  A timer gives every entirely free heap page back once a
 * second, one page per hold of the lock.
 *
 * Bad calls.  Refused with a report, nothing changed, when the heap can
 * tell cheaply (kmem_checks below; docs/design.md has the table); the
 * rest is the debugging layer's (kmem_debug=).
 *
 * Lock order: slab_caches_lock (slab_registry.c, where a registry is
 * built), then slob_lock, then the page allocator's zone_lock.  slob_lock
 * guards the heap, the caches' live counts (read without it: one word)
 * and slob_internal_units; it is taken with interrupts saved (the
 * shrinker and GFP_ATOMIC callers use the heap from interrupts).
 * Constructors and destructors run without it.  On SMP the lock's code
 * is out of line, once (slob_lock_irqsave()).
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slob.h"

const char kmem_allocator_name[] = "SLOB";
/* SLOB's constructor runs on every allocation */
const int kmem_ctor_every_alloc = 1;

DEFINE_SPINLOCK(slob_lock);
unsigned long slob_heap_pages, slob_free_units, slob_internal_units;
/* The object each CPU frees while its destructor runs (slob_lock dropped
 * for it), or NULL: another free of that object meanwhile is refused. */
static void *slob_freeing[NR_CPUS];

/* slob_lock taken with interrupts saved; returns the flags. */
static slob_lock_attr unsigned long slob_lock_irqsave(void)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_lock, flags);
	return flags;
}

/* slob_lock given back, and the interrupt state flags. */
static slob_lock_attr void slob_unlock_irqrestore(unsigned long flags)
{
	spin_unlock_irqrestore(&slob_lock, flags);
}

/* ---- blocks with a header ------------------------------------------------------- */

/* A block of size bytes after a one-unit header tagged tag; returns the
 * body, or NULL if out of memory.  Any context; takes slob_lock. */
static void *slob_alloc(size_t size, gfp_t gfp, uintptr_t tag)
{
	int units = SLOB_UNITS(size) + 1;
	unsigned long flags;
	slob_t *m;

	flags = slob_lock_irqsave();
	m = slob_heap_alloc(units, 0, gfp);
	if (m) {
		kmem_mark_internal(m, SLOB_UNIT);
		m->units = units;
		m->next = slob_tag(m, tag);
		if (tag == SLOB_TAG_INTERNAL)
			slob_internal_units += (unsigned long)units;
		m++;
	}
	slob_unlock_irqrestore(flags);
	return m;
}

/* Tells the memory checker that the body obj of a block of units units
 * tagged tag is going back: a caller's block freed, the allocator's own
 * made inaccessible. */
static void slob_mark_gone(const void *obj, int units, uintptr_t tag)
{
	if (tag == SLOB_TAG_KMALLOC)
		kmem_mark_freed(obj, (units - 1) * SLOB_UNIT);
	else
		kmem_mark_noaccess(obj, (units - 1) * SLOB_UNIT);
}

/* The bytes of the live block tagged tag whose body is obj (its header
 * left out), or 0 if it is none; with free set, the block is freed too
 * (0, and nothing changed, if the heap refuses it).  Any context; takes
 * slob_lock. */
static size_t tagged_block(const void *obj, uintptr_t tag, int free)
{
	unsigned long flags;
	slob_t *m;
	int units;

	flags = slob_lock_irqsave();
	m = slob_heap_header(obj, tag);
	units = m ? m->units : 1;
	if (m && free) {
		m->next = NULL;		/* no stale tag left in the heap */
		slob_mark_gone(obj, units, tag);
		if (slob_heap_free(m, units)) {
			kmem_mark_allocated(obj, (units - 1) * SLOB_UNIT, 1);
			m->next = slob_tag(m, tag);
			units = 1;
		} else if (tag == SLOB_TAG_INTERNAL) {
			slob_internal_units -= (unsigned long)units;
		}
	}
	slob_unlock_irqrestore(flags);
	return (size_t)(units - 1) * SLOB_UNIT;
}

/* ---- kmalloc ------------------------------------------------------------------------ */

void *__kmalloc(size_t size, gfp_t gfp)
{
	slob_t *m;

	if (!size)
		return ZERO_SIZE_PTR;
	if (size >= PAGE_SIZE - SLOB_UNIT)
		return kmalloc_large(size, gfp);
	if (should_failslab("kmalloc", size, gfp))
		return NULL;
	m = slob_alloc(size, gfp, SLOB_TAG_KMALLOC);
	if (m) {
		size = (size_t)(m[-1].units - 1) * SLOB_UNIT;
		kmem_mark_allocated(m, size, (gfp & __GFP_ZERO) != 0);
		if (gfp & __GFP_ZERO)
			memset(m, 0, size);	/* ksize() bytes: callers may use them */
	}
	kmem_debug_validate("kmalloc", m);
	return m;
}

void __kfree(const void *obj)
{
	if (ZERO_OR_NULL_PTR(obj))
		return;
	if (kfree_large(obj, virt_to_page(obj)) && !tagged_block(obj, SLOB_TAG_KMALLOC, 1)) {
		kmem_bad_free("kfree", obj, KMEM_NOT_KMALLOC, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", obj);
}

size_t __ksize(const void *obj)
{
	size_t size;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	size = ksize_large(obj, virt_to_page(obj));
	if (!size)
		size = tagged_block(obj, SLOB_TAG_KMALLOC, 0);
	if (!size)
		kmem_bad_free("ksize", obj, KMEM_NOT_KMALLOC, __builtin_return_address(0));
	return size;
}

/* ---- caches ---------------------------------------------------------------------------- */

struct kmem_cache *cache_struct_alloc(void)
{
	struct kmem_cache *c;

	if (should_failslab("kmem_cache", sizeof(*c), GFP_KERNEL))
		return NULL;
	c = slob_alloc(sizeof(*c), GFP_KERNEL, SLOB_TAG_INTERNAL);
	if (c) {
		kmem_mark_internal(c, sizeof(*c));
		memset(c, 0, sizeof(*c));
	}
	return c;
}

void cache_struct_free(struct kmem_cache *c)
{
	tagged_block(c, SLOB_TAG_INTERNAL, 1);
}

/* Without the registry (slab_common.h): a live cache is a live block of
 * the allocator's own, by its header's tag; a destroyed cache's block had
 * its tag cleared when it was freed. */
int cache_struct_live(const struct kmem_cache *c)
{
	return tagged_block(c, SLOB_TAG_INTERNAL, 0) != 0;
}

int cache_open(struct kmem_cache *c)
{
	c->units = max(SLOB_UNITS(c->common.object_size), 2);
	c->align_units = (int)(c->common.align / SLOB_UNIT);
	return 0;
}

/* SLOB caches nothing: every object counted is a caller's.  One word,
 * read without slob_lock: the lock would give nothing more, as the count
 * may change the moment it is dropped. */
unsigned long cache_live_objects(struct kmem_cache *c)
{
	return READ_ONCE(c->live);
}

void cache_close(struct kmem_cache *c)
{
}

/* One object for c from the heap, counted; NULL if out of memory.  Takes
 * slob_lock. */
static void *cache_take(struct kmem_cache *c, gfp_t gfp)
{
	unsigned long flags;
	void *b;

	flags = slob_lock_irqsave();
	b = slob_heap_alloc(c->units, c->align_units, gfp);
	c->live += b != NULL;
	slob_unlock_irqrestore(flags);
	return b;
}

void *__kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	size_t size = c->common.object_size;
	void *b;

	if (should_failslab(c->common.name, size, gfp))
		return NULL;
	b = cache_take(c, gfp);
	if (!b)
		return NULL;
	kmem_mark_allocated(b, size, (gfp & __GFP_ZERO) || c->common.ctor);
	if (gfp & __GFP_ZERO)
		memset(b, 0, size);
	if (c->common.ctor)
		c->common.ctor(b);
	kmem_debug_validate("kmem_cache_alloc", b);
	return b;
}

/* Is b being freed by a CPU that runs its destructor?  slob_lock held. */
static int being_freed(const void *b)
{
	unsigned int cpu;

	assert_spin_held(&slob_lock);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (slob_freeing[cpu] == b)
			return 1;
	return 0;
}

/* Is b, a pointer given to kmem_cache_free(c), an object of c as far as
 * the heap can tell (a block of c's size it may free)?  Reads only the
 * heap's own words, never a neighbour's, which its owner may be writing.
 * slob_lock held. */
static int cache_object_ok(struct kmem_cache *c, void *b)
{
	assert_spin_held(&slob_lock);
	return !slob_heap_check(b, c->units);
}

/* Gives b, an object of c, back to the heap; 0, and nothing changed, if
 * the heap refuses it (no block of c's size starts at b).  slob_lock held. */
static int slob_free_object(struct kmem_cache *c, void *b)
{
	assert_spin_held(&slob_lock);
	if (kmem_memcheck_watches() && !cache_object_ok(c, b))
		return 0;
	kmem_mark_freed(b, c->common.object_size);
	if (slob_heap_free(b, c->units)) {
		kmem_mark_allocated(b, c->common.object_size, 1);
		return 0;
	}
	c->live--;
	return 1;
}

void __kmem_cache_free(struct kmem_cache *c, void *b)
{
	unsigned long flags;
	int ok;

	if (!b)
		return;
	flags = slob_lock_irqsave();
	ok = !being_freed(b);
	if (ok && c->common.dtor) {	/* checked first; marked, so that a second free is refused */
		void **mine = &slob_freeing[smp_processor_id()], *outer = *mine;

		ok = cache_object_ok(c, b);
		if (ok) {
			*mine = b;
			slob_unlock_irqrestore(flags);
			c->common.dtor(b);
			flags = slob_lock_irqsave();
			*mine = outer;
		}
	}
	ok = ok && slob_free_object(c, b);	/* the heap checks b again as it frees it */
	slob_unlock_irqrestore(flags);
	if (!ok) {
		kmem_bad_free("kmem_cache_free", b, KMEM_NOT_CACHE_OBJECT, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kmem_cache_free", b);
}

/* ---- the shrinker and accounting --------------------------------------------------------- */

/* Gives back every entirely free heap page, one per hold of slob_lock;
 * returns the pages freed.  Any context; takes slob_lock. */
static unsigned long slob_shrink(void)
{
	unsigned long flags, count = 0, n;

	do {
		flags = slob_lock_irqsave();
		n = slob_heap_release_page();
		slob_unlock_irqrestore(flags);
		count += n;
	} while (n);
	return count;
}

int __kmem_cache_shrink(struct kmem_cache *c)
{
	return (int)slob_shrink();
}

unsigned long __kmem_reclaim(void)
{
	return slob_shrink();
}

static void slob_shrink_timer_fn(unsigned long data);
static DEFINE_TIMER(slob_shrink_timer, slob_shrink_timer_fn, 0);

/* Shrinks the heap and arms the timer for the next second: the timer's
 * function, and called once at boot to start it. */
static void slob_shrink_timer_fn(unsigned long data)
{
	slob_shrink();
	mod_timer(&slob_shrink_timer, round_jiffies_period(jiffies, HZ));
}

void kmem_cache_init(void)
{
	slob_heap_init();
}

void kmem_cache_init_late(void)
{
	slob_shrink_timer_fn(0);
}

void __kmem_get_stats(struct kmem_stats *st)
{
	unsigned long flags;

	flags = slob_lock_irqsave();
	st->slab_pages = slob_heap_pages + slob_heap_meta_pages;
	st->bytes_used = slob_heap_pages * PAGE_SIZE -
			 (slob_free_units + slob_internal_units) * SLOB_UNIT;
	slob_unlock_irqrestore(flags);
	st->large_pages = (unsigned long)atomic_long_read(&large_block_pages);
}
/* The heap's figures cost the same at any number of caches: pages and
 * bytes are one call. */
extern __typeof__(__kmem_get_stats) __kmem_get_pages __attribute__((__alias__("__kmem_get_stats")));

KMEM_PUBLIC_API()
