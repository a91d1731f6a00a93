/* slab.c - SLAB, the object-caching allocator after Bonwick (CONFIG_SLAB).
 *
 * Slabs.  A cache hands out objects of one size, kept in slabs: blocks of
 * 2^order pages, the smallest order that holds an object, grown (as Linux
 * 2.6 did) up to slab_break_order, 0 or 1, while the tail a slab cannot
 * use is more than 1/8 of it; then up to SLAB_FIT_ORDER (16 KiB) where a
 * larger slab spends at most half the share of its bytes beside its
 * objects (tail and descriptor), and with the descriptor off the slab
 * where that packs more: a 480-byte inode took 8 a page with 220 bytes
 * left, and takes 17 in two pages with 32 left.  Larger orders are what a
 * fragmented page allocator cannot give, and a cache's last partly used
 * slab costs more pages: hence half, and no more than four pages.  A
 * slab starts with a colour offset (a
 * multiple of the cache line that differs between successive slabs, so
 * that objects at the same index of different slabs use different cache
 * lines), then its descriptor (struct slab and one kmem_bufctl_t per
 * object) unless the layout puts it off the slab: then the descriptor is
 * an internal object.  Every page of a slab points to its cache, its descriptor and
 * its first object (PG_slab), so the cache, slab and index of any object
 * are found in O(1); its flags also say whether the slab is of a kmalloc
 * class (PG_kmalloc) or of the allocator's own objects (PG_internal), so
 * that kfree() and ksize() of any pointer read a cache only if it is a
 * kmalloc class, which is never destroyed.  Each cache keeps its slabs on
 * three lists (full, partial, free).
 *
 * Fallback slabs.  A cache whose slabs are larger than the smallest order
 * that holds an object (raised by the rules above) also has a fallback
 * shape, that order's best layout, as SLUB has its minimum order: when
 * the page allocator has no free block of the cache's own order, a new
 * slab takes the fallback's pages instead, so that an allocation fails
 * only when no block of the smallest order is free.  Both kinds of slab
 * share the cache's lists, magazines and lock; a slab's kind is the order
 * of its block (its head page's, which the page allocator keeps), and the
 * cache counts its fallback slabs.  A fallback slab is not coloured: its
 * objects end where the slab ends, so that no object start of a full-sized
 * slab's span lies in its pages past its last object, and the free fast
 * path's object-start check (offset below num * size, a multiple of size)
 * needs no shape of its own.
 *
 * Object caching.  Objects are cached constructed: the constructor runs
 * on every object of a new slab, the destructor when a slab is destroyed;
 * in between, objects go back and forth between slabs and callers without
 * either.
 *
 * Magazines.  Allocation and free use a per-CPU magazine (struct
 * array_cache), a LIFO stack of object pointers that only its CPU changes,
 * with local interrupts off and no lock.  An empty magazine is refilled
 * with batchcount objects from the partial and free slabs (the cache grows
 * by a slab when there are none); a full one flushes its batchcount
 * coldest objects back.  The fast path, a pop or a push, touches only
 * this CPU's magazine, the object, and lines nobody writes after the cache
 * and the slab are made (the cache's first lines, the object's struct
 * page): no locked instruction, no line another CPU writes.  Only online
 * CPUs get magazines; the others share no_magazine until they first use
 * the cache.
 *
 * Object states.  A free object's bufctl entry links it to the next free
 * one; an object out of its slab, whether a caller holds it or a magazine
 * does, is BUFCTL_OUT (Linux 2.6's SLAB kept no more).  Entries change
 * only under the cache's lock, when a refill takes objects out and a
 * flush puts them back: the objects of one slab are in different CPUs'
 * hands, and a state word written on every allocation and free would
 * share its cache line among them.
 *
 * Bad calls.  What the fast path can check without writing anything
 * shared it checks, reporting through kmem_bad_free() and changing
 * nothing: the page's owner (a slab page of this cache; a kmalloc class
 * for kfree()), the object start, and a double free of the object just
 * freed (the top of this CPU's magazine).  A flush finds an object that is
 * free in its slab already (a double free whose two frees both reached
 * the slab) and reports it there.  A double free that went to another
 * CPU's magazine, or after other frees, is not caught: both copies may be
 * handed out.  kmem_debug= catches those (mm/kmem_debug.c); kmem_checks
 * says which bad call is whose, the table in docs/design.md why.
 *
 * Internal objects.  The allocator's own objects (cache structs,
 * magazines, off-slab descriptors) come from internal caches of their own
 * (cache_cache and slab-internal-N) that have no magazines:
 * slab_internal_alloc() and slab_internal_free() take and give back under
 * the cache's lock.  kfree() takes objects of kmalloc classes only and
 * kmem_cache_free() finds no object in an internal cache, so either
 * refuses them without a state word to read.
 *
 * SMP.  Shrink, destroy and tune reach the other CPUs' magazines as Linux
 * 2.6 did, through on_each_cpu(): each CPU drains (or swaps) its own, then
 * the cache lock covers the slabs.  The reaper is one timer per CPU, armed
 * on that CPU (timers run where they were armed), so each CPU ages its own
 * magazines in its own timer interrupt without an IPI: an IPI cannot be
 * sent from the timer interrupt (smp_call_function() wants process context
 * with interrupts on), and a per-CPU timer costs nothing on idle CPUs.
 *
 * kmalloc.  kmalloc() uses kmalloc classes of 8 bytes to two pages: Linux
 * 6.1's small classes up to 256 and five between them that pack pages
 * better (24, 40, 48, 160, 224), then for each count n of objects a page
 * can hold the largest cache-line multiple that packs n (no class packs as
 * few as the next larger one, as 1536 did 2048's two a page), then two
 * pages.  Larger blocks come from the page allocator as large blocks
 * (mm/slab_common.c).
 *
 * Reading order.  Each function comes after what it calls, so a call is
 * followed upward through this one file: a kfree() is __kfree() (the
 * kmalloc section), cache_free() and cache_free_slow() (the free fast
 * path), the flush to the slabs (objects between slabs and magazines),
 * then the lookups of an object from its pointer.  mm/slab.h holds the
 * structures, their accessors and the layout's arithmetic, no decision.
 *
 * Lock order:
 *   slab_caches_lock (mm/slab_registry.c)
 *     a cache's lock (c->lock), one at a time: pages, descriptors and
 *     magazines are taken and given back with none held, so an internal
 *     cache's lock and zone_lock are never taken inside another c->lock
 *       the debugging layer's report_lock (mm/kmem_debug.c, with
 *       CONFIG_DEBUG_KMEM), then printk's: a double free found by a flush
 *       is reported under c->lock, and kmem_bad_free() asks the layer
 *       (kmem_debug_bad_free()) which caller to name
 *     the page allocator's zone_lock (slabs destroyed while the reaper or
 *     kmem_reclaim() holds slab_caches_lock)
 *
 * slab_caches_lock: the list of live caches (mm/slab_registry.c).  The
 * reaper, kmem_reclaim(), the reports and the validator hold it while they
 * take each cache's lock in turn.
 *
 * c->lock: the cache's three slab lists; every slab's descriptor (free
 * chain head, inuse, list link) and bufctl entries; the counters
 * num_slabs, fallback_slabs, free_objects, colour_next and free_touched;
 * and which magazine each CPU slot points to (the counts read every slot
 * under it).  Taken with
 * interrupts off.  Not held while pages are allocated or freed, objects
 * constructed or destructed, or an internal object taken or given back.
 *
 * No lock: a CPU's magazine, which only that CPU changes, with interrupts
 * off (other CPUs read avail and entries: ac_avail(), ac_entry_read()).
 */
#include <tiny/atomic.h>
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/memcheck.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slab.h"

const char kmem_allocator_name[] = "SLAB";
/* Every bad call of <tiny/slab.h> but a destroyed cache used and a double
 * free after other frees (see "Bad calls" above). */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~(KMEM_CHECK(DESTROYED_CACHE) |
						      KMEM_CHECK(DOUBLE_FREE_LATER));
const int kmem_ctor_every_alloc;		/* once per object, as it enters the cache */

#define CACHE(x)	{ .cs_size = (x), .cs_name = "size-" #x }
struct cache_sizes kmalloc_classes[] = {
	/* Linux 6.1's small classes (powers of two, 96 and 192) and 24, 40,
	 * 48, 160 and 224: each packs more objects a page than the next class
	 * up (24: 156 against 119, 40: 99 / 81, 48: 81 / 61, 160: 25 / 21,
	 * 224: 18 / 15); 160 also gives 32-byte steps from 128 to 256. */
	CACHE(8), CACHE(16), CACHE(24), CACHE(32), CACHE(40), CACHE(48), CACHE(64), CACHE(96),
	CACHE(128), CACHE(160), CACHE(192), CACHE(224), CACHE(256),
	/* above: per number n of objects a page holds (n = 16 down to 1), the
	 * largest multiple of the 64-byte cache line with n in a page */
	CACHE(320), CACHE(384), CACHE(448), CACHE(512), CACHE(576), CACHE(640), CACHE(768),
	CACHE(1024), CACHE(1344), CACHE(2048), CACHE(4096),
	/* two pages; and 16 KiB, for the host's ktests of 16 KiB pages */
	CACHE(8192), CACHE(16384),
};
const unsigned int nr_kmalloc_classes = ARRAY_SIZE(kmalloc_classes);

/* The internal caches, smallest first: magazines (a cache line at least),
 * off-slab descriptors. */
#define INTERNAL(x)	{ .cs_size = (x), .cs_name = "slab-internal-" #x }
static struct cache_sizes internal_sizes[] = {
	INTERNAL(32), INTERNAL(64), INTERNAL(128), INTERNAL(256), INTERNAL(512), INTERNAL(1024),
};

struct kmem_cache cache_cache;		/* laid out by kmem_cache_init() */

unsigned long slab_reap_passes[NR_CPUS];
static struct timer_list reap_timers[NR_CPUS];
static unsigned char reaper_armed[NR_CPUS];	/* written by that CPU only */
static int reaper_enabled;		/* timers work: kmem_cache_init_late() ran */
unsigned int slab_break_order;

/* The pages of every cache's slabs, a running total for kmem_get_pages()
 * (the same cost at any number of caches): changed under a cache's lock,
 * so an atomic. */
static atomic_long_t slab_pages_total;

/* The magazine of a CPU that has not used a cache yet, and of every CPU
 * of an internal cache: empty and full at once, so that an allocation or
 * free there takes the slow path, which gives the CPU a magazine of its
 * own (or, for an internal cache, goes to the slabs).  Never written. */
static struct array_cache no_magazine;

/* ---- layout ------------------------------------------------------------- */

/* Objects of size bytes a slab of 2^order pages holds, with the descriptor
 * on the slab or not; *left gets the bytes left unused. */
static unsigned int cache_estimate(unsigned int order, size_t size, size_t align,
				   int on_slab, size_t *left)
{
	size_t bytes = PAGE_SIZE << order, num, mgmt = 0;

	if (on_slab) {
		num = (bytes - sizeof(struct slab)) / (size + sizeof(kmem_bufctl_t));
		num = min_t(size_t, num, SLAB_LIMIT);
		while (num && slab_mgmt_size(num, align) + num * size > bytes)
			num--;
		mgmt = num ? slab_mgmt_size(num, align) : 0;
	} else {
		num = min_t(size_t, bytes / size, SLAB_LIMIT);
	}
	*left = bytes - num * size - mgmt;
	return (unsigned int)num;
}

/* A way to lay out a slab: 2^order pages, num objects, the descriptor on
 * the slab or off it; cost is what it spends beside the objects: the tail
 * left unused, the descriptor, or an off-slab descriptor's internal object. */
struct slab_fit {
	unsigned int order, num;
	int off_slab;
	size_t left, cost;
};

static void fit_slab(struct kmem_cache *c, unsigned int order, int off_slab,
		     struct slab_fit *f)
{
	struct kmem_cache *d;

	f->order = order;
	f->off_slab = off_slab;
	f->num = cache_estimate(order, c->buffer_size, c->align, !off_slab, &f->left);
	f->cost = (PAGE_SIZE << order) - f->num * c->buffer_size;
	if (off_slab && f->num) {
		d = kmem_find_internal_cachep(sizeof(struct slab) + f->num * sizeof(kmem_bufctl_t));
		if (d)
			f->cost += d->buffer_size;
		else
			f->num = 0;
	}
}

/* Does f spend a smaller share of its slab than best: at the same order
 * less, at a larger one at most half (a larger slab costs a cache more
 * pages while it is partly used)? */
static int fits_better(const struct slab_fit *f, const struct slab_fit *best)
{
	if (!f->num)
		return 0;
	if (!best->num)
		return 1;
	if (f->order == best->order)
		return f->cost < best->cost;
	return (f->cost << best->order) * 2 <= (best->cost << f->order);
}

/* Sets gfporder and num: the smallest order that holds an object, larger
 * ones below slab_break_order while they waste more than 1/8 (Linux 2.6's
 * rule); then, up to SLAB_FIT_ORDER, the order and descriptor placement
 * that spend the smallest share of the slab beside its objects (see
 * fits_better()).  *left gets the tail.  Returns -1 if no order holds an
 * object. */
static int calculate_slab_order(struct kmem_cache *c, size_t *left)
{
	struct slab_fit best = { 0 }, f;
	unsigned int order;
	int off;

	for (order = 0; order < MAX_ORDER; order++) {
		for (off = 0; off < 2; off++) {
			fit_slab(c, order, off, &f);
			if (!best.num || (order <= slab_break_order && best.left * 8 >
					  (PAGE_SIZE << best.order) && f.num) || fits_better(&f, &best))
				best = f;
		}
		if (best.num && order >= max_t(unsigned int, slab_break_order, SLAB_FIT_ORDER))
			break;
	}
	c->num = best.num;
	c->gfporder = best.order;
	*left = best.left;
	if (best.off_slab)
		c->common.flags |= CFLGS_OFF_SLAB;
	else
		c->common.flags &= ~CFLGS_OFF_SLAB;
	return c->num ? 0 : -1;
}

/* The layout of the smallest order that holds an object of c, the
 * descriptor on or off the slab, whichever spends less; *f gets it. */
static void smallest_fit(struct kmem_cache *c, struct slab_fit *f)
{
	struct slab_fit g;
	unsigned int order;
	int off;

	*f = (struct slab_fit){ 0 };
	for (order = 0; order < MAX_ORDER && !f->num; order++)
		for (off = 0; off < 2; off++) {
			fit_slab(c, order, off, &g);
			if (fits_better(&g, f))
				*f = g;
		}
}

/* Sets c's fallback shape: the smallest order that holds an object, if
 * that is below gfporder (else none: the cache's own shape). */
static void set_fallback(struct kmem_cache *c)
{
	struct slab_fit f;

	smallest_fit(c, &f);
	if (!f.num || f.order >= c->gfporder) {
		c->fallback = cache_shape(c);
		return;
	}
	c->fallback = (struct slab_shape){
		.order = (unsigned short)f.order, .num = (unsigned short)f.num,
		.slab_size = f.off_slab ? sizeof(struct slab) + f.num * sizeof(kmem_bufctl_t) :
					  slab_mgmt_size(f.num, c->align),
		.slabp_cache = f.off_slab ? kmem_find_internal_cachep(sizeof(struct slab) +
								       f.num * sizeof(kmem_bufctl_t)) :
					    NULL };
}

/* Keeps a large object's descriptor off the slab if the slab's unused tail
 * cannot hold it and an internal cache can serve it.  Returns 0 or -1. */
static int place_descriptor(struct kmem_cache *c, size_t *left)
{
	size_t on_slab = slab_mgmt_size(c->num, c->align);

	c->slab_size = sizeof(struct slab) + c->num * sizeof(kmem_bufctl_t);
	if (*left >= on_slab) {
		c->common.flags &= ~CFLGS_OFF_SLAB;
		*left -= on_slab;
	} else if (!(c->slabp_cache = kmem_find_internal_cachep(c->slab_size))) {
		c->common.flags &= ~CFLGS_OFF_SLAB;
		return calculate_slab_order(c, left);
	}
	return 0;
}

/* Chooses alignment, object stride, slab order, descriptor placement and
 * colours.  Returns 0, or -1 if no slab can hold an object. */
static int cache_layout(struct kmem_cache *c, size_t size, size_t align, unsigned long flags)
{
	size_t ralign = sizeof(void *), left;

	if (flags & SLAB_MUST_HWCACHE_ALIGN)
		ralign = L1_CACHE_BYTES;
	else if (flags & SLAB_HWCACHE_ALIGN)	/* a hint: small objects may share lines */
		for (ralign = L1_CACHE_BYTES; ralign / 2 >= size && ralign / 2 >= sizeof(void *);)
			ralign /= 2;
	c->align = max(ralign, align);
	c->buffer_size = ALIGN(size, c->align);
	c->common.flags = flags & ~CFLGS_OFF_SLAB;
	if (calculate_slab_order(c, &left) || (OFF_SLAB(c) && place_descriptor(c, &left)))
		return -1;
	if (!OFF_SLAB(c))
		c->slab_size = slab_mgmt_size(c->num, c->align);
	c->colour_off = max_t(size_t, L1_CACHE_BYTES, c->align);
	c->colour = (unsigned int)(left / c->colour_off);
	c->objs_bytes = c->num * c->buffer_size;
	c->reciprocal_size = reciprocal_of(c->buffer_size);
	set_fallback(c);
	return 0;
}

/* ---- objects from pointers: their page, index and state --------------------- */

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

/* The index of objp in its slab if it is the start of an object of c on
 * page (a slab page of c), else -1.  Reads only the struct page and c,
 * which no refill or flush writes: the fast path's object-start check. */
static inline long obj_index_on_page(const struct kmem_cache *c, const struct page *page,
				     const void *objp)
{
	size_t offset = (uintptr_t)objp - (uintptr_t)READ_ONCE(page->s_mem);	/* huge if before */
	unsigned int idx = obj_index(c, offset);

	if (offset >= c->objs_bytes || (size_t)idx * c->buffer_size != offset)
		return -1;
	return idx;
}

/* Is page a slab page of c? */
static inline int page_of_cache(const struct page *page, const struct kmem_cache *c)
{
	return page && (READ_ONCE(page->flags) & PG_slab) && READ_ONCE(page->slab_cache) == c;
}

kmem_bufctl_t *obj_bufctl(const struct kmem_cache *c, const struct page *page, const void *objp)
{
	long idx;

	if (!page_of_cache(page, c))
		return NULL;
	idx = obj_index_on_page(c, page, objp);
	return idx < 0 ? NULL : &slab_bufctl(READ_ONCE(page->slab))[idx];
}

/* Why objp on page is no object of c to free (not a slab page, another
 * cache's, not an object's start), or NULL if it is one. */
static const char *not_an_object(const struct kmem_cache *c, const struct page *page,
				 const void *objp)
{
	if (!page || !(READ_ONCE(page->flags) & PG_slab))
		return "not a slab object";
	if (READ_ONCE(page->slab_cache) != c)
		return "the object belongs to another cache";
	if (obj_index_on_page(c, page, objp) < 0)
		return "not the start of an object";
	return NULL;
}

/* ---- objects between slabs and magazines (c->lock held) ---------------------- */

/* Takes up to n free objects of slabp into objs[], each BUFCTL_OUT;
 * returns how many.  One pass down the free chain with the chain head, the
 * count and the object address in registers: a refill moves every object
 * a growing cache hands out.  c->lock held. */
static unsigned int slab_take_objs(struct kmem_cache *c, struct slab *slabp, void **objs,
				   unsigned int n)
{
	kmem_bufctl_t *bufctl = slab_bufctl(slabp), idx = slabp->free;
	char *s_mem = slabp->s_mem;
	size_t size = c->buffer_size;
	unsigned int taken;

	assert_spin_held(&c->lock);
	for (taken = 0; taken < n && idx != BUFCTL_END; taken++) {
		kmem_bufctl_t next = bufctl[idx];

		bufctl[idx] = BUFCTL_OUT;
		WRITE_ONCE(objs[taken], s_mem + (size_t)idx * size);	/* see ac_entry_set() */
		idx = next;
	}
	slabp->free = idx;
	slabp->inuse += taken;
	c->free_objects -= taken;
	return taken;
}

/* Takes up to n free objects from the partial slabs, then the free ones,
 * into objs[]; returns how many.  c->lock held. */
static unsigned int take_from_slabs(struct kmem_cache *c, void **objs, unsigned int n)
{
	unsigned int got = 0;

	assert_spin_held(&c->lock);
	while (got < n) {
		struct list_head *head = &c->slabs_partial;
		struct slab *slabp;

		if (list_empty(head)) {
			head = &c->slabs_free;
			if (list_empty(head))
				break;
			c->free_touched = 1;
		}
		slabp = list_first_entry(head, struct slab, list);
		got += slab_take_objs(c, slabp, objs + got, n - got);
		if (slabp->free == BUFCTL_END)
			list_move(&slabp->list, &c->slabs_full);
		else if (head != &c->slabs_partial)
			list_move(&slabp->list, &c->slabs_partial);	/* first of it already */
	}
	return got;
}

/* Takes a free slab off the lists onto dead, to be destroyed unlocked.
 * Its pages stop showing objects at once (s_mem past the slab's end, where
 * no object of it starts): a double-freed object of the slab still in
 * some magazine is refused when it is flushed (slab_put_obj()), also while
 * the slab is being destroyed.  c->lock held. */
static void slab_retire(struct kmem_cache *c, struct slab *slabp, struct list_head *dead)
{
	struct slab_shape shape = slab_shape(c, slabp);
	struct page *page = virt_to_page(slab_start(slabp));
	void *end = (char *)slab_start(slabp) + (PAGE_SIZE << shape.order);
	unsigned long i;

	assert_spin_held(&c->lock);
	for (i = 0; i < (1UL << shape.order); i++)
		WRITE_ONCE(page[i].s_mem, end);
	list_move(&slabp->list, dead);
	atomic_long_add(-(1L << shape.order), &slab_pages_total);
	c->num_slabs--;
	c->fallback_slabs -= shape.order != c->gfporder;
	c->free_objects -= shape.num;
}

/* Puts objp, an object of c out of its slab, back at the head of the
 * slab's free chain; a slab that becomes free is retired to dead if the
 * cache has more than free_limit free objects.  Returns 0, or -1 (nothing
 * changed) for a double free: objp is free in its slab already, or its
 * slab is gone (the first copy freed went back and the slab with it; the
 * page is read then as the page allocator may be writing it, as for any
 * bad pointer into a slab being destroyed).  c->lock held. */
static int slab_put_obj(struct kmem_cache *c, void *objp, struct list_head *dead)
{
	struct page *page = slab_obj_page(c, objp);
	long idx = page_of_cache(page, c) ? obj_index_on_page(c, page, objp) : -1;
	struct slab *slabp;
	kmem_bufctl_t *state;

	assert_spin_held(&c->lock);
	if (unlikely(idx < 0))
		return -1;
	slabp = READ_ONCE(page->slab);
	state = &slab_bufctl(slabp)[idx];
	if (unlikely(*state != BUFCTL_OUT))
		return -1;
	*state = slabp->free;
	slabp->free = (kmem_bufctl_t)idx;
	slabp->inuse--;
	c->free_objects++;
	if (slabp->inuse) {	/* at the tail: give its other objects time */
		if (slabp->list.next != &c->slabs_partial)	/* not there yet */
			list_move_tail(&slabp->list, &c->slabs_partial);
	} else if (c->free_objects > c->free_limit)
		slab_retire(c, slabp, dead);
	else
		list_move(&slabp->list, &c->slabs_free);
	return 0;
}

/* Returns nr objects of a magazine to their slabs; reports each that is
 * free there already (a double free caught only now) and leaves it out.
 * c->lock held. */
static void flush_to_slabs(struct kmem_cache *c, void **objs, unsigned int nr,
			   struct list_head *dead)
{
	unsigned int i;

	assert_spin_held(&c->lock);
	for (i = 0; i < nr; i++)
		if (unlikely(slab_put_obj(c, objs[i], dead)))
			kmem_bad_free("kfree/kmem_cache_free", objs[i],
				      "double free, found when a magazine went back to the slabs "
				      "(the object was free there already, or its slab was gone)",
				      __builtin_return_address(0));
}

/* Returns the n oldest (coldest) objects of ac to their slabs: this CPU's
 * ac, or one no CPU uses any more.  c->lock held. */
static void drain_array_locked(struct kmem_cache *c, struct array_cache *ac, unsigned int n,
			       struct list_head *dead)
{
	assert_spin_held(&c->lock);
	n = min(n, ac->avail);
	if (!n)
		return;		/* no_magazine stays unwritten */
	flush_to_slabs(c, ac->entry, n, dead);
	memmove(ac->entry, ac->entry + n, (ac->avail - n) * sizeof(ac->entry[0]));
	ac_set_avail(ac, ac->avail - n);
}

/* Retires the free slabs beyond the first keep to dead.  c->lock held. */
static void free_slabs_locked(struct kmem_cache *c, unsigned int keep, struct list_head *dead)
{
	struct slab *slabp, *n;

	assert_spin_held(&c->lock);
	list_for_each_entry_safe(slabp, n, &c->slabs_free, list)
		if (keep)
			keep--;
		else
			slab_retire(c, slabp, dead);
}

/* ---- slabs ------------------------------------------------------------------- */


/* The descriptor of a new slab at addr whose first object lies obj_off
 * bytes on: an object of the internal cache d, or (d NULL) on the slab
 * desc_off bytes on.  NULL if out of memory. */
static struct slab *alloc_slabmgmt(struct kmem_cache *d, void *addr, size_t desc_off,
				   size_t obj_off, gfp_t flags)
{
	struct slab *slabp;

	if (d) {
		slabp = slab_internal_alloc(d, flags & ~__GFP_ZERO);
		if (!slabp)
			return NULL;
	} else {
		slabp = (struct slab *)((char *)addr + desc_off);
	}
	slabp->inuse = 0;
	slabp->colouroff = obj_off;
	slabp->s_mem = (char *)addr + obj_off;
	return slabp;
}

/* The page flags of a slab of c: PG_slab and what the slab is for. */
static unsigned int slab_page_flags(const struct kmem_cache *c)
{
	return PG_slab | (c->common.flags & CFLGS_KMALLOC ? PG_kmalloc : 0) |
	       (c->common.flags & CFLGS_INTERNAL ? PG_internal : 0);
}

/* Points every page of a slab at c, slabp and its first object and sets
 * its flags (slab_page_flags()), or clears them (c NULL).  The flags
 * change under zone_lock (page_update_flags()), set after the pointers and
 * cleared before them, so that a reader without a lock that finds PG_slab
 * then reads pointers that are this slab's or NULL. */
static void slab_map_pages(struct page *page, unsigned int order, struct kmem_cache *c,
			   struct slab *slabp)
{
	unsigned long i;

	if (!c)
		page_update_flags(page, 1UL << order, 0, PG_slab | PG_kmalloc | PG_internal);
	for (i = 0; i < (1UL << order); i++) {
		WRITE_ONCE(page[i].slab_cache, c);
		WRITE_ONCE(page[i].slab, slabp);
		WRITE_ONCE(page[i].s_mem, slabp ? slabp->s_mem : NULL);
	}
	if (c)
		page_update_flags(page, 1UL << order, slab_page_flags(c), 0);
}

/* Constructs every object of a new slab of num objects, hands the first
 * n (at most num) out into objs[] (BUFCTL_OUT) and chains the others as
 * free: the objects a refill takes from a new slab never go through its
 * free chain. */
static void cache_init_objs(struct kmem_cache *c, struct slab *slabp, unsigned int num,
			    void **objs, unsigned int n)
{
	kmem_bufctl_t *bufctl = slab_bufctl(slabp);
	char *objp = slabp->s_mem;
	unsigned int i;

	for (i = 0; c->common.ctor && i < num; i++) {
		kmem_mark_internal(index_to_obj(c, slabp, i), c->common.object_size);
		c->common.ctor(index_to_obj(c, slabp, i));
		kmem_mark_noaccess(index_to_obj(c, slabp, i), c->common.object_size);
	}
	for (i = 0; i < n; i++, objp += c->buffer_size) {
		bufctl[i] = BUFCTL_OUT;
		WRITE_ONCE(objs[i], (void *)objp);	/* see ac_entry_set() */
	}
	for (; i < num - 1; i++)
		bufctl[i] = (kmem_bufctl_t)(i + 1);
	if (n < num)
		bufctl[num - 1] = BUFCTL_END;
	slabp->free = n < num ? (kmem_bufctl_t)n : BUFCTL_END;
	slabp->inuse = (unsigned short)n;
}

/* The address of a page's memory (page_address(), inline). */
static inline void *slab_page_address(const struct page *page)
{
	return (void *)(uintptr_t)((first_pfn + (unsigned long)(page - mem_map)) << PAGE_SHIFT);
}

/* Tells a memory checker that a new slab of 2^order pages at page is not
 * to be touched but for an on-slab descriptor of mgmt bytes (0: none),
 * maps its pages to c and slabp and constructs its objects, the first n
 * (at most num) out in objs[]; then puts it on c's lists, one more
 * fallback slab if fallback.  Returns n.  Interrupts off; takes c->lock. */
static __always_inline unsigned int slab_add(struct kmem_cache *c, struct page *page,
					     unsigned int order, struct slab *slabp,
					     size_t mgmt, unsigned int num, int fallback,
					     void **objs, unsigned int n)
{
	kmem_mark_noaccess(slab_page_address(page), PAGE_SIZE << order);
	if (mgmt)
		kmem_mark_internal(slabp, mgmt);
	slab_map_pages(page, order, c, slabp);
	n = min(n, num);
	cache_init_objs(c, slabp, num, objs, n);

	spin_lock(&c->lock);
	list_add_tail(&slabp->list, n == num ? &c->slabs_full : &c->slabs_partial);
	atomic_long_add(1L << order, &slab_pages_total);
	c->num_slabs++;
	c->fallback_slabs += fallback;
	c->free_objects += num - n;
	spin_unlock(&c->lock);
	return n;
}

/* cache_grow() with a fallback slab of c: uncoloured, its objects against
 * its end.  Interrupts off. */
static noinline unsigned int fallback_grow(struct kmem_cache *c, gfp_t flags, void **objs,
					   unsigned int n)
{
	const struct slab_shape *shape = &c->fallback;
	struct page *page = alloc_pages(flags, shape->order);
	struct slab *slabp;

	if (!page)
		return 0;
	slabp = alloc_slabmgmt(shape->slabp_cache, slab_page_address(page), 0,
			       fallback_obj_offset(c), flags);
	if (!slabp) {
		__free_pages(page, shape->order);
		return 0;
	}
	return slab_add(c, page, shape->order, slabp, shape->slabp_cache ? 0 : shape->slab_size,
			shape->num, 1, objs, n);
}

/* Adds a slab of constructed objects to the cache, of its own shape or,
 * if its pages cannot be had, a fallback slab; its first n objects (at
 * most its num) out in objs[].  Returns the number put there, or 0 if out
 * of memory.  Interrupts off; pages, descriptor and constructors without
 * c->lock. */
static unsigned int cache_grow(struct kmem_cache *c, gfp_t flags, void **objs, unsigned int n)
{
	struct kmem_cache *d = OFF_SLAB(c) ? c->slabp_cache : NULL;
	size_t offset, mgmt = d ? 0 : c->slab_size;
	struct page *page;
	struct slab *slabp;

	assert_irqs_disabled();
	call_path(CALL_PATH_NEW_SLAB);
	flags &= ~__GFP_ZERO;
	/* a failure with a fallback to take is none yet: not reported */
	page = alloc_pages(has_fallback(c) ? flags | __GFP_NOWARN : flags, c->gfporder);
	if (!page)
		return has_fallback(c) ? fallback_grow(c, flags, objs, n) : 0;
	spin_lock(&c->lock);
	offset = c->colour_next * c->colour_off;
	if (++c->colour_next >= c->colour)
		c->colour_next = 0;
	spin_unlock(&c->lock);
	slabp = alloc_slabmgmt(d, slab_page_address(page), offset, offset + mgmt, flags);
	if (!slabp) {
		__free_pages(page, c->gfporder);
		return 0;
	}
	return slab_add(c, page, c->gfporder, slabp, mgmt, c->num, 0, objs, n);
}

/* Destructs the objects of a retired slab and frees its pages and an
 * off-slab descriptor; returns the pages.  c->lock not held; may run in
 * the timer interrupt. */
static unsigned long slab_destroy(struct kmem_cache *c, struct slab *slabp)
{
	struct slab_shape shape = slab_shape(c, slabp);
	struct page *page = virt_to_page(slab_start(slabp));
	unsigned int i;

	assert_spin_not_held(&c->lock);
	call_path(CALL_PATH_SLAB_FREED);
	/* back to the page allocator as it gave them: ours to touch */
	kmem_mark_internal(slab_start(slabp), PAGE_SIZE << shape.order);
	for (i = 0; c->common.dtor && i < shape.num; i++)
		c->common.dtor(index_to_obj(c, slabp, i));
	slab_map_pages(page, shape.order, NULL, NULL);
	__free_pages(page, shape.order);	/* an on-slab slabp is gone now */
	if (shape.slabp_cache)
		slab_internal_free(shape.slabp_cache, slabp);
	return 1UL << shape.order;
}

/* Destroys the slabs on list; returns their pages.  c->lock not held. */
static unsigned long slabs_destroy(struct kmem_cache *c, struct list_head *list)
{
	struct slab *slabp, *n;
	unsigned long pages = 0;

	assert_spin_not_held(&c->lock);
	list_for_each_entry_safe(slabp, n, list, list) {
		list_del(&slabp->list);
		pages += slab_destroy(c, slabp);
	}
	return pages;
}

/* ---- objects straight from and to the slabs --------------------------------- */

/* One object of c taken from its slabs (c grows by a slab if they have no
 * free one), for a CPU without a magazine of c or for the allocator's own
 * use; NULL if out of memory.  Interrupts off. */
static void *slab_alloc_direct(struct kmem_cache *c, gfp_t flags)
{
	unsigned int got;
	void *objp;

	assert_irqs_disabled();
	spin_lock(&c->lock);
	got = take_from_slabs(c, &objp, 1);
	spin_unlock(&c->lock);
	if (!got && !cache_grow(c, flags, &objp, 1))
		return NULL;
	return objp;
}

/* Gives objp, an object of c, straight back to its slab; returns 0, or -1
 * (nothing changed) if it is free there already.  Interrupts off. */
static int slab_free_direct(struct kmem_cache *c, void *objp)
{
	LIST_HEAD(dead);
	int ret;

	assert_irqs_disabled();
	spin_lock(&c->lock);
	ret = slab_put_obj(c, objp, &dead);
	if (!ret)	/* under the lock: nobody can have taken it again yet */
		kmem_mark_freed(objp, c->common.object_size);
	spin_unlock(&c->lock);
	slabs_destroy(c, &dead);
	return ret;
}

/* ---- allocation: the per-CPU fast path --------------------------------------- */

static void start_cpu_reaper(void *unused);
static void *magazine_alloc(unsigned int limit, unsigned int batch, gfp_t flags);

/* Gives this CPU a magazine of c of its own in place of no_magazine.
 * Returns it, or NULL if out of memory or if c is internal (it has none).
 * Interrupts off. */
static struct array_cache *cpu_magazine_create(struct kmem_cache *c, gfp_t flags)
{
	struct array_cache *ac;

	assert_irqs_disabled();
	if (!c->limit)
		return NULL;
	ac = magazine_alloc(c->limit, c->batchcount, flags & ~__GFP_ZERO);
	if (ac) {
		spin_lock(&c->lock);	/* the counts read every slot under it */
		c->array[smp_processor_id()] = ac;
		spin_unlock(&c->lock);
	}
	return ac;
}

/* Fills this CPU's empty magazine of c with up to batchcount objects from
 * the slabs (growing the cache if they have no free object) and takes
 * one.  Without a magazine yet, the CPU makes one; if it cannot, the object
 * comes straight from the slabs.  NULL if out of memory.  Interrupts off. */
static noinline void *cache_alloc_refill(struct kmem_cache *c, gfp_t flags)
{
	struct array_cache *ac = cpu_cache(c);
	unsigned int got;

	assert_irqs_disabled();
	call_path(CALL_PATH_REFILL);
	start_cpu_reaper(NULL);
	if (unlikely(ac == &no_magazine) && !(ac = cpu_magazine_create(c, flags)))
		return slab_alloc_direct(c, flags);
	spin_lock(&c->lock);
	got = take_from_slabs(c, ac->entry, ac->batchcount);
	spin_unlock(&c->lock);
	if (!got)
		got = cache_grow(c, flags, ac->entry, ac->batchcount);
	if (!got)
		return NULL;
	ac->touched = 1;
	ac_set_avail(ac, got - 1);
	return ac->entry[got - 1];
}

/* An object of c, or NULL.  Any context: the magazine is used with
 * interrupts off and no lock (only this CPU changes it). */
static __always_inline void *cache_alloc(struct kmem_cache *c, gfp_t flags)
{
	struct array_cache *ac;
	unsigned long save;
	unsigned int avail;
	void *objp;

	if (should_failslab(c->common.name, c->common.object_size, flags))
		return NULL;
	local_irq_save(save);
	ac = cpu_cache(c);
	avail = ac->avail;
	if (likely(avail)) {
		ac->touched = 1;
		ac_set_avail(ac, --avail);
		objp = ac->entry[avail];
	} else {
		objp = cache_alloc_refill(c, flags);
	}
	local_irq_restore(save);
	if (unlikely(!objp))
		return NULL;
	kmem_mark_allocated(objp, c->common.object_size, c->common.ctor || (flags & __GFP_ZERO));
	if (flags & __GFP_ZERO)
		memset(objp, 0, c->common.object_size);
	return objp;
}

void *__kmem_cache_alloc(struct kmem_cache *c, gfp_t flags)
{
	void *objp;

	if (unlikely(flags & c->zero_refused)) {
		refuse_zero_with_ctor(c);
		return NULL;
	}
	objp = cache_alloc(c, flags);
	kmem_debug_validate("kmem_cache_alloc", objp);
	return objp;
}

/* ---- free: the per-CPU fast path -------------------------------------------- */

/* The report of a free of the object on top of this CPU's magazine. */
#define JUST_FREED	"double free (the object was just freed: it is the last one this CPU " \
			"freed into its magazine)"

/* Is objp the object this CPU freed last into its magazine of c, which it
 * has not handed out since?  Interrupts off. */
static inline int on_magazine_top(struct kmem_cache *c, const void *objp)
{
	struct array_cache *ac = cpu_cache(c);

	assert_irqs_disabled();
	return ac->avail && ac->entry[ac->avail - 1] == objp;
}

/* Pushes objp on this CPU's full magazine of c: first its batchcount
 * coldest objects go back to the slabs.  Without a magazine yet, the CPU
 * makes one; if it cannot, the object goes straight back to its slab.
 * Returns NULL, or why objp could not be freed.  Interrupts off. */
static noinline const char *cache_free_slow(struct kmem_cache *c, struct array_cache *ac,
					    void *objp)
{
	LIST_HEAD(dead);

	assert_irqs_disabled();
	call_path(CALL_PATH_FLUSH);
	start_cpu_reaper(NULL);
	if (ac == &no_magazine && !(ac = cpu_magazine_create(c, GFP_ATOMIC)))
		return slab_free_direct(c, objp) ?
		       "double free (the object is on its slab's free list)" : NULL;
	if (ac->avail >= ac->limit) {
		spin_lock(&c->lock);
		drain_array_locked(c, ac, ac->batchcount, &dead);
		spin_unlock(&c->lock);
		slabs_destroy(c, &dead);
	}
	kmem_mark_freed(objp, c->common.object_size);
	ac->touched = 1;
	ac_entry_set(ac, ac->avail, objp);
	ac_set_avail(ac, ac->avail + 1);
	return NULL;
}

/*
 * Frees objp into c if it is the start of an object of c (on page, which
 * the caller found to be a slab page of c) and not the object this CPU
 * freed last; else returns why not (and changes nothing).  Any context.
 */
static __always_inline const char *cache_free(struct kmem_cache *c, struct page *page,
					      const void *objp)
{
	struct array_cache *ac;
	unsigned long save;
	unsigned int avail;
	const char *why = NULL;

	if (unlikely(obj_index_on_page(c, page, objp) < 0))
		return not_an_object(c, page, objp);
	local_irq_save(save);
	ac = cpu_cache(c);
	avail = ac->avail;
	if (unlikely(avail && ac->entry[avail - 1] == objp)) {
		why = JUST_FREED;
	} else if (likely(avail < ac->limit)) {
		kmem_mark_freed(objp, c->common.object_size);
		ac->touched = 1;
		ac_entry_set(ac, avail, (void *)objp);
		ac_set_avail(ac, avail + 1);
	} else {
		why = cache_free_slow(c, ac, (void *)objp);
	}
	local_irq_restore(save);
	return why;
}

/* Why objp, which kmem_cache_free(c, objp) did not find on a page of c's,
 * is refused. */
static noinline const char *cache_free_refusal(const struct kmem_cache *c, const void *objp)
{
	if (is_internal(c))
		return "the allocator's own cache: its objects are not the caller's to free";
	return not_an_object(c, virt_to_page(objp), objp);
}

void __kmem_cache_free(struct kmem_cache *c, void *objp)
{
	struct page *page;
	const char *why;

	if (unlikely(!objp))
		return;
	page = cache_virt_to_page(c, objp);	/* NULL for an internal cache */
	why = likely(page_of_cache(page, c)) ? cache_free(c, page, objp) :
					       cache_free_refusal(c, objp);
	if (unlikely(why)) {
		kmem_bad_free("kmem_cache_free", objp, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kmem_cache_free", objp);
}

/* ---- the allocator's own objects ----------------------------------------------- */

/* The internal cache for objects of size bytes, or NULL if none is large
 * enough (or none is made yet). */
struct kmem_cache *kmem_find_internal_cachep(size_t size)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(internal_sizes); i++)
		if (size <= internal_sizes[i].cs_size)
			return internal_sizes[i].cs_cachep;
	return NULL;
}

void *slab_internal_alloc(struct kmem_cache *c, gfp_t flags)
{
	unsigned long save;
	void *objp;

	if (!c || should_failslab(c->common.name, c->common.object_size, flags))
		return NULL;
	local_irq_save(save);
	objp = slab_alloc_direct(c, flags);
	local_irq_restore(save);
	if (!objp)
		return NULL;
	kmem_mark_allocated(objp, c->common.object_size, (flags & __GFP_ZERO) != 0);
	if (flags & __GFP_ZERO)
		memset(objp, 0, c->common.object_size);
	return objp;
}

/* Not inlined, so that a report names the caller inside the allocator. */
noinline void slab_internal_free(struct kmem_cache *c, const void *objp)
{
	struct page *page = virt_to_page(objp);
	const char *why = NULL;
	unsigned long save;

	if (!c && page && (READ_ONCE(page->flags) & PG_internal))
		c = READ_ONCE(page->slab_cache);	/* internal caches live for ever */
	if (!c || !is_internal(c))
		why = "not an internal object";
	else
		why = not_an_object(c, page, objp);
	if (!why) {
		local_irq_save(save);
		if (slab_free_direct(c, (void *)objp))
			why = "double free (the object is on its slab's free list)";
		local_irq_restore(save);
	}
	if (unlikely(why))
		kmem_bad_free("slab internal free", objp, why, __builtin_return_address(0));
}

/* ---- kmalloc ------------------------------------------------------------------- */

void *__kmalloc(size_t size, gfp_t flags)
{
	struct kmem_cache *c = kmalloc_class(size);
	void *objp;

	if (likely(c))
		objp = cache_alloc(c, flags);
	else if (!size)
		return ZERO_SIZE_PTR;
	else
		objp = kmalloc_large(size, flags);
	kmem_debug_validate("kmalloc", objp);
	return objp;
}

void __kfree(const void *objp)
{
	struct kmem_cache *c;
	struct page *page;
	unsigned int flags;
	const char *why;

	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return;
	page = virt_to_page(objp);
	flags = page ? READ_ONCE(page->flags) : 0;
	c = page_kmalloc_class(page, flags);
	if (unlikely(!c)) {
		kfree_not_kmalloc_slab(objp, page, flags, __builtin_return_address(0));
		return;
	}
	why = cache_free(c, page, objp);
	if (unlikely(why)) {
		kmem_bad_free("kfree", objp, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", objp);
}

/* The size of objp if it is a block of a kmalloc class that this CPU has
 * not just freed, else 0.  Looks only. */
static size_t kmalloc_block_size(const void *objp, const struct page *page)
{
	struct kmem_cache *c;
	unsigned long save;
	int just_freed;

	c = page ? page_kmalloc_class(page, READ_ONCE(page->flags)) : NULL;
	if (!c || obj_index_on_page(c, page, objp) < 0)
		return 0;
	local_irq_save(save);
	just_freed = on_magazine_top(c, objp);
	local_irq_restore(save);
	return just_freed ? 0 : c->common.object_size;
}

size_t __ksize(const void *objp)
{
	const struct page *page;
	size_t size;

	if (ZERO_OR_NULL_PTR(objp))
		return 0;
	page = virt_to_page(objp);
	size = kmalloc_block_size(objp, page);
	if (!size)
		size = ksize_large(objp, page);
	if (!size)
		kmem_bad_free("ksize", objp, KMEM_NOT_KMALLOC, __builtin_return_address(0));
	return size;
}

/* ---- magazines: sizing, draining, swapping ----------------------------------------- */

/* Sets the tunables new magazines of c get, and the free objects c keeps
 * in its slabs: a batch per CPU and one more, and a slab's worth. */
static void cache_set_tunables(struct kmem_cache *c, unsigned int limit, unsigned int batch)
{
	c->limit = limit;
	c->batchcount = batch;
	c->free_limit = (1 + NR_CPUS) * batch + c->num;
}

/*
 * Runs fn(info) on every online CPU with interrupts off, each CPU working
 * on its own magazines: on_each_cpu(), as Linux 2.6 drained and swapped
 * them.  A caller with interrupts off cannot wait for the others (two such
 * callers would wait on each other for ever), so then fn runs here only.
 * Returns 1 if every online CPU ran fn, 0 if only this one did.
 */
static int slab_on_each_cpu(smp_call_func_t fn, void *info)
{
	if (!irqs_disabled()) {
		on_each_cpu(fn, info, 1);
		return 1;
	}
	fn(info);
	return num_online_cpus() == 1;
}

/* A drain run on every CPU: of one cache (c) or of all (c NULL); pages
 * counts the pages of the slabs the drains destroyed. */
struct drain_req {
	struct kmem_cache *c;
	atomic_long_t pages;
};

/* Empties this CPU's magazine of c into the slabs; adds the pages of the
 * slabs destroyed to *pages.  Interrupts off; takes c->lock. */
static void drain_cpu(struct kmem_cache *c, atomic_long_t *pages)
{
	struct array_cache *ac = cpu_cache(c);
	LIST_HEAD(dead);

	assert_irqs_disabled();
	spin_lock(&c->lock);
	drain_array_locked(c, ac, ac->avail, &dead);
	spin_unlock(&c->lock);
	atomic_long_add((long)slabs_destroy(c, &dead), pages);
}

/* This CPU's part of a drain_req (on_each_cpu): its magazine of one cache,
 * or of every cache newest first (slabs destroyed on the way free
 * descriptors into older caches).  Interrupts off; takes slab_caches_lock
 * for all. */
static void drain_local(void *arg)
{
	struct drain_req *req = arg;
	struct kmem_cache *c;
	struct list_head *pos;

	assert_irqs_disabled();
	if (req->c) {
		drain_cpu(req->c, &req->pages);
		return;
	}
	spin_lock(&slab_caches_lock);
	for_each_cache_reverse(c, pos)
		drain_cpu(c, &req->pages);
	spin_unlock(&slab_caches_lock);
}

/* A magazine swap: fresh[] are the new magazines; each CPU puts its own
 * in and leaves the old one in old[]. */
struct ccupdate {
	struct kmem_cache *c;
	struct array_cache *fresh[NR_CPUS];
	struct array_cache *old[NR_CPUS];	/* NULL: not swapped yet */
};

/* Swaps slot cpu of u's cache.  u->c->lock held (the counts read every slot). */
static void ccupdate_slot(struct ccupdate *u, unsigned int cpu)
{
	assert_spin_held(&u->c->lock);
	u->old[cpu] = u->c->array[cpu];
	u->c->array[cpu] = u->fresh[cpu];
}

/* This CPU's part of a swap (on_each_cpu).  Interrupts off; takes c->lock. */
static void ccupdate_local(void *info)
{
	struct ccupdate *u = info;

	assert_irqs_disabled();
	spin_lock(&u->c->lock);
	ccupdate_slot(u, smp_processor_id());
	spin_unlock(&u->c->lock);
}

/* An empty magazine of limit entries (batch per refill or flush), an
 * internal object of a cache line at least, so that it shares no line with
 * another CPU's; NULL if out of memory.  Any context. */
static void *magazine_alloc(unsigned int limit, unsigned int batch, gfp_t flags)
{
	size_t bytes = sizeof(struct array_cache) + limit * sizeof(void *);
	struct array_cache *ac;

	bytes = max_t(size_t, bytes, L1_CACHE_BYTES);
	ac = slab_internal_alloc(kmem_find_internal_cachep(bytes), flags);
	if (ac)
		*ac = (struct array_cache){ .limit = limit, .batchcount = batch };
	return ac;
}

/* Is ac a magazine from magazine_alloc() (not no_magazine)? */
static int own_magazine(const struct array_cache *ac)
{
	return ac && ac != &no_magazine;
}

/* New magazines for the slots of c's online CPUs and of CPUs that have one
 * (no_magazine for the others), or -1 (none kept) if out of memory. */
static int alloc_magazines(struct ccupdate *u, unsigned int limit, unsigned int batch)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		u->old[cpu] = NULL;
		u->fresh[cpu] = &no_magazine;
		if (!cpu_online(cpu) && !own_magazine(u->c->array[cpu]))
			continue;
		u->fresh[cpu] = magazine_alloc(limit, batch, GFP_KERNEL);
		if (!u->fresh[cpu]) {
			while (cpu--)
				if (own_magazine(u->fresh[cpu]))
					slab_internal_free(NULL, u->fresh[cpu]);
			return -1;
		}
	}
	return 0;
}

/*
 * Gives c magazines of limit entries.  A listed cache may be in use on
 * every CPU: each online CPU swaps its own slot (on_each_cpu), then the
 * slots of offline CPUs (and all of an unlisted cache, which nobody else
 * can reach) are swapped here; the old magazines' objects go back to the
 * slabs.  Returns 0, or -1 (c unchanged) if out of memory or if other CPUs
 * are online and interrupts are off.
 */
static int do_tune_cpucache(struct kmem_cache *c, unsigned int limit, unsigned int batch)
{
	struct ccupdate u = { .c = c };
	int listed = kmem_cache_listed(c);
	unsigned long save;
	unsigned int cpu;
	LIST_HEAD(dead);

	if (listed && irqs_disabled() && num_online_cpus() > 1) {
		pr_err("slab: cannot resize the magazines of %s with interrupts off\n", c->common.name);
		return -1;
	}
	if (alloc_magazines(&u, limit, batch))
		return -1;
	if (listed)
		slab_on_each_cpu(ccupdate_local, &u);
	local_irq_save(save);
	spin_lock(&c->lock);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (!u.old[cpu] && u.c->array[cpu] != u.fresh[cpu])
			ccupdate_slot(&u, cpu);		/* offline, or c unlisted */
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (u.old[cpu])
			drain_array_locked(c, u.old[cpu], u.old[cpu]->avail, &dead);
	cache_set_tunables(c, limit, batch);
	spin_unlock(&c->lock);
	local_irq_restore(save);
	slabs_destroy(c, &dead);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (own_magazine(u.old[cpu]))
			slab_internal_free(NULL, u.old[cpu]);
	return 0;
}

int slab_tune_cpucache(struct kmem_cache *c, unsigned int limit, unsigned int batch)
{
	if (!limit || !batch || batch > limit || is_internal(c))
		return -1;
	return do_tune_cpucache(c, limit, batch);
}

/* Entries of a magazine of objects of size bytes: MAGAZINE_BYTES of them,
 * between MAGAZINE_MIN (MAGAZINE_MIN_LARGE above a page) and MAGAZINE_MAX. */
static unsigned int magazine_limit(size_t size)
{
	size_t least = size > PAGE_SIZE ? MAGAZINE_MIN_LARGE : MAGAZINE_MIN;

	return (unsigned int)min_t(size_t, max_t(size_t, MAGAZINE_BYTES / size, least),
				   MAGAZINE_MAX);
}

/* kmem_cache_create_args(): magazines of at least n entries, half of them
 * a batch, as slabtune would set them. */
int cache_raise_percpu_capacity(struct kmem_cache *c, unsigned int n)
{
	if (is_internal(c) || n <= c->limit)
		return 0;
	return slab_tune_cpucache(c, n, (n + 1) / 2);
}

/* Gives c its magazines, sized by bytes: fewer entries for larger objects;
 * an internal cache has none. */
static int enable_cpucache(struct kmem_cache *c)
{
	unsigned int limit = magazine_limit(c->buffer_size), cpu;

	if (!is_internal(c))
		return do_tune_cpucache(c, limit, (limit + 1) / 2);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		c->array[cpu] = &no_magazine;
	cache_set_tunables(c, 0, 0);
	return 0;
}

/* ---- caches ------------------------------------------------------------------- */

/* Destroys c's free slabs; returns the pages freed.  Any context; takes c->lock. */
static unsigned long free_slabs_now(struct kmem_cache *c)
{
	unsigned long save;
	LIST_HEAD(dead);

	local_irq_save(save);
	spin_lock(&c->lock);
	free_slabs_locked(c, 0, &dead);
	spin_unlock(&c->lock);
	local_irq_restore(save);
	return slabs_destroy(c, &dead);
}

struct kmem_cache *cache_struct_alloc(void)
{
	return slab_internal_alloc(&cache_cache, GFP_KERNEL | __GFP_ZERO);
}

void cache_struct_free(struct kmem_cache *c)
{
	slab_internal_free(&cache_cache, c);
}

/* Lays out c (its common part filled in) and gives it magazines.  Returns
 * 0, or -1 if no slab can hold its objects or out of memory.  Process
 * context, or boot. */
int cache_open(struct kmem_cache *c)
{
	struct kmem_cache_common *cc = &c->common;

	if (cache_layout(c, cc->object_size, cc->align, cc->flags))
		return -1;
	c->page_base = (uintptr_t)mem_map - first_pfn * sizeof(struct page);
	c->pfn_lo = mem_map ? first_pfn : 0;
	c->nr_pfns = mem_map && !is_internal(c) ? end_pfn - first_pfn : 0;
	c->zero_refused = cc->ctor ? __GFP_ZERO : 0;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->slabs_partial);
	INIT_LIST_HEAD(&c->slabs_full);
	INIT_LIST_HEAD(&c->slabs_free);
	c->num_slabs = c->fallback_slabs = c->free_objects = 0;
	c->colour_next = c->free_touched = 0;
	return enable_cpucache(c);
}

/* Frees the magazines of an empty, unlisted cache. */
void cache_close(struct kmem_cache *c)
{
	unsigned int cpu;

	free_slabs_now(c);
	WARN_ON(c->num_slabs);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (own_magazine(c->array[cpu]))
			slab_internal_free(NULL, c->array[cpu]);
}

/* Empties every CPU's magazine of c (only this CPU's if interrupts are
 * off: see slab_on_each_cpu()) and destroys its free slabs; returns the
 * pages freed.  Takes c->lock. */
static unsigned long __cache_shrink(struct kmem_cache *c)
{
	struct drain_req req = { c, ATOMIC_LONG_INIT(0) };

	slab_on_each_cpu(drain_local, &req);
	return (unsigned long)atomic_long_read(&req.pages) + free_slabs_now(c);
}

int __kmem_cache_shrink(struct kmem_cache *c)
{
	unsigned long pages = __cache_shrink(c);

	kmem_debug_validate("kmem_cache_shrink", c);
	return (int)pages;
}

unsigned long __kmem_reclaim(void)
{
	struct drain_req req = { NULL, ATOMIC_LONG_INIT(0) };
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save, pages = 0;

	slab_on_each_cpu(drain_local, &req);
	/* newest first: descriptors freed on the way go back to the older
	 * internal caches, whose turn comes later */
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache_reverse(c, pos) {
		drain_cpu(c, &req.pages);
		pages += free_slabs_now(c);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	kmem_debug_validate("kmem_reclaim", NULL);
	return pages + (unsigned long)atomic_long_read(&req.pages);
}

/* Empties every CPU's magazine of c and returns the objects still out of
 * its slabs: held by callers, or left in other CPUs' magazines when
 * interrupts are off (those cannot be drained then: said here). */
unsigned long cache_live_objects(struct kmem_cache *c)
{
	struct drain_req req = { c, ATOMIC_LONG_INIT(0) };
	struct slab_counts n;
	unsigned long save;

	slab_on_each_cpu(drain_local, &req);
	spin_lock_irqsave(&c->lock, save);
	cache_get_counts(c, &n);
	spin_unlock_irqrestore(&c->lock, save);
	if (!n.held && n.cached)
		pr_err("kmem_cache_destroy: cache %s has %lu objects in other CPUs' magazines, "
		       "which cannot be drained with interrupts off\n", c->common.name, n.cached);
	return n.held + n.cached;
}

/* ---- the reaper ------------------------------------------------------------------ */

/* Reaps c on this CPU: its magazine, if unused since the last pass, gives
 * a fifth of its limit back; the free slabs go (one stays if the cache
 * used a free slab since the last pass, so an active cache does not
 * thrash).  Interrupts off. */
static void cache_reap_one(struct kmem_cache *c)
{
	struct array_cache *ac = cpu_cache(c);
	LIST_HEAD(dead);

	assert_irqs_disabled();
	spin_lock(&c->lock);
	if (ac->touched)
		ac->touched = 0;
	else
		drain_array_locked(c, ac, (ac->limit + 4) / 5, &dead);
	free_slabs_locked(c, c->free_touched, &dead);
	c->free_touched = 0;
	spin_unlock(&c->lock);
	slabs_destroy(c, &dead);
}

/* This CPU's reap timer, every REAP_INTERVAL: ages this CPU's magazines. */
static void cache_reap(unsigned long unused)
{
	unsigned int cpu = smp_processor_id();
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;

	(void)unused;
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos)
		cache_reap_one(c);
	/* only this CPU writes it; tests read it from others */
	WRITE_ONCE(slab_reap_passes[cpu], slab_reap_passes[cpu] + 1);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	mod_timer(&reap_timers[cpu], round_jiffies_period(jiffies, REAP_INTERVAL));
}

/* Arms this CPU's reap timer if it is not yet (once timers work).  On
 * every CPU from kmem_cache_init_late(); a CPU started later arms its own
 * on its first refill or flush.  Interrupts off. */
static void start_cpu_reaper(void *unused)
{
	unsigned int cpu = smp_processor_id();

	assert_irqs_disabled();
	(void)unused;
	if (likely(reaper_armed[cpu]) || !smp_load_acquire(&reaper_enabled))
		return;
	reaper_armed[cpu] = 1;
	setup_timer(&reap_timers[cpu], cache_reap, cpu);
	mod_timer(&reap_timers[cpu], round_jiffies_period(jiffies, REAP_INTERVAL));
}

/* ---- boot and accounting ------------------------------------------------------------ */

/* Makes the internal caches, smallest first; returns 0, or -1 if it
 * cannot make the smallest.  Each is aligned to its largest power-of-two
 * divisor, at most a cache line: see magazine_alloc(). */
static int make_internal_caches(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(internal_sizes); i++) {
		struct cache_sizes *cs = &internal_sizes[i];
		size_t align = min_t(size_t, cs->cs_size & -cs->cs_size, L1_CACHE_BYTES);

		cs->cs_cachep = __kmem_cache_create(cs->cs_name, cs->cs_size, align, CFLGS_INTERNAL,
						    NULL, NULL);
		if (!cs->cs_cachep)
			break;		/* larger than any slab */
	}
	return i ? 0 : -1;
}

/*
 * The cache of caches is static; the internal caches are made, their
 * structs from it, then the kmalloc classes (smallest first: powers of two
 * naturally aligned, 24 and 40 to 8, 48 to 16, 96, 160 and 224 to 32, 192
 * to 64), whose magazines and off-slab descriptors are internal objects.
 * Boot, interrupts off.
 */
void kmem_cache_init(void)
{
	unsigned long ram_pages = totalram_pages() + nr_reserved_pages();

	assert_irqs_disabled();
	slab_break_order = ram_pages > SLAB_BREAK_RAM_BYTES / PAGE_SIZE ? 1 : 0;
	cache_cache.common = (struct kmem_cache_common){
		.name = "kmem_cache", .object_size = sizeof(struct kmem_cache),
		.flags = SLAB_HWCACHE_ALIGN | CFLGS_INTERNAL };
	if (cache_open(&cache_cache) || kmem_cache_register(&cache_cache) ||
	    make_internal_caches())
		panic("SLAB: cannot make the internal caches");
	kmalloc_classes_init();
	pr_info("SLAB: kmalloc classes of %zu to %zu bytes, slab order break %u, "
		"%d-byte cache lines\n", kmalloc_classes[0].cs_size, kmalloc_max_size,
		slab_break_order, L1_CACHE_BYTES);
}

/* Arms every online CPU's reap timer.  Process context, interrupts on. */
void kmem_cache_init_late(void)
{
	smp_store_release(&reaper_enabled, 1);
	slab_on_each_cpu(start_cpu_reaper, NULL);
}

void cache_get_counts(struct kmem_cache *c, struct slab_counts *n)
{
	unsigned int cpu;

	assert_irqs_disabled();
	assert_spin_held(&c->lock);
	n->num_slabs = c->num_slabs;
	n->fallback_slabs = c->fallback_slabs;
	n->pages = ((c->num_slabs - c->fallback_slabs) << c->gfporder) +
		   (c->fallback_slabs << c->fallback.order);
	n->num_objs = (c->num_slabs - c->fallback_slabs) * c->num +
		      c->fallback_slabs * c->fallback.num;
	n->active_objs = n->num_objs - c->free_objects;
	n->cached = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++)	/* other CPUs' change meanwhile */
		n->cached += ac_avail(c->array[cpu]);
	/* objects another CPU freed after this one counted them twice */
	n->held = n->active_objs - min(n->cached, n->active_objs);
}

/* bytes_used: objects callers hold, at their padded size; the internal
 * caches' objects are the allocator's own. */
void __kmem_get_stats(struct kmem_stats *st)
{
	unsigned long save, held_bytes = 0;
	struct kmem_cache *c;
	struct list_head *pos;
	struct slab_counts n;

	__kmem_get_pages(st);
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos) {
		spin_lock(&c->lock);
		cache_get_counts(c, &n);
		spin_unlock(&c->lock);
		if (!is_internal(c))
			held_bytes += n.held * c->buffer_size;
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	st->bytes_used = held_bytes;
}

void __kmem_get_pages(struct kmem_stats *st)
{
	st->slab_pages = (unsigned long)atomic_long_read(&slab_pages_total);
	st->large_pages = (unsigned long)atomic_long_read(&large_block_pages);
}

KMEM_PUBLIC_API()
