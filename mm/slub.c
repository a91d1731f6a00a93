/* slub.c - SLUB, the unqueued slab allocator (CONFIG_SLUB): what its three
 * per-CPU layers share.  Sheaves (per-CPU arrays of objects and a barn of
 * them per node, Linux 7.0) are in slub_sheaves.c; the per-CPU slabs and
 * their lockless fast path (Linux 2.6.22 to 6.x) in slub_cpu.c; SLUB_TINY,
 * which has no per-CPU state at all, in slub_tiny.c; the per-CPU data of
 * the first two in slub_percpu.c; the reports and the validator in
 * slub_info.c.
 *
 * No queues.  A slab is 2^order pages of objects of one size and nothing
 * else: no descriptor, no colour.  A free object holds the address of the
 * next free one (its free pointer, at c->offset: mid-object as in Linux,
 * or after the object when a constructor's or destructor's state must
 * survive).  The slab's first struct page holds its state in one word:
 * the index of the first object of its free list, the objects out of
 * that list, and whether a CPU owns it (frozen).  Every page of a slab
 * points to the cache, and PG_min_order tells which of the cache's two
 * orders it has, so a free finds the slab's first byte, its size and the
 * object's index from the pointer, the flags word and the cache alone.
 *
 * The node.  The cache keeps one list of partial slabs (some objects
 * free, no CPU owning them) under list_lock, and keeps min_partial empty
 * slabs on it before it gives empty ones back.  Full slabs are on no list:
 * a free finds its slab from the pointer.  The slab, page and object
 * counts are counters (nr_slabs, nr_pages, total_objects); the objects in
 * use are counted per handle (per-CPU counts, or a count under the
 * target's list_lock), so that each cache's destroy knows its own.
 *
 * Slab order, as Linux chooses it (calculate_order()): the smallest
 * order that holds slub_min_objects objects (4 * (fls(CPUs) + 1), CPUs
 * being num_possible_cpus(), the firmware's list: Linux's nr_cpu_ids)
 * wasting at most 1/16 of the slab, then 1/8, then 1/4, then fewer
 * objects, up to slub_max_order (3; 1 for SLUB_TINY); both are boot
 * options.  So a machine of one CPU gets smaller slabs than one of eight,
 * as under Linux, and keeps fewer free objects in its CPU slabs.  The fallback order is the smallest
 * that holds one object: a slab is tried at the preferred order without
 * a warning, then at the fallback, so a fragmented page allocator slows a
 * cache down instead of failing it.
 *
 * Cache merging.  A new cache without constructor or destructor, not
 * debugged by kmem_debug= (SLAB_NO_MERGE), whose objects fit a live
 * cache's stride within a word at a compatible alignment, becomes an
 * alias of that cache: its handle has its own name, size, registry entry
 * (names stay unique, slabinfo lists it) and count of objects in use, and
 * points to the cache that holds the slabs.  As in Linux, a kmalloc()
 * size class is such a cache too (the allocator's own are not): merging
 * into the classes saves a partly used slab per cache (make compare
 * measures it); the price is that a kmalloc() block freed to such a
 * cache, or its object to kfree(), is a free to the same slabs and not
 * seen, nor is a free to the wrong one of two merged caches (kmem_debug=
 * never merges, and sees them; the boot option slab_nomerge, Linux's,
 * turns merging off).  A destroy refuses while its own handle
 * has objects out, merged or not; with none it gives its reference back
 * if others share the slabs, and the last one gives the slabs back.  A
 * cache whose creator destroyed it while aliases live stays on
 * slub_targets, named after one of them.
 *
 * Bad calls.  Every free checks that the page is a slab of the cache (for
 * kfree(), of a kmalloc() class), that the pointer starts an object (the
 * reciprocal multiply SLAB uses), and that the object is not the head of
 * the free list it goes to (this CPU's, or its slab's): a double free of
 * the object just freed.  A slab whose objects are all free takes no free.
 * Reported through kmem_bad_free(), nothing changed.  kmem_checks lists
 * what is caught; a double free after other frees, and the frees merging
 * hides (above), are left to kmem_debug= (which never merges).
 *
 * kmalloc.  Linux's classes: 8, 16, 32, 64, 96, 128, 192, 256 and the
 * powers of two up to two pages, found by one load from a table indexed
 * by the size; larger blocks are large blocks of exact pages
 * (mm/slab_common.c).
 *
 * Lock order:
 *   slab_caches_lock (the registry, slub_targets, the refcounts)
 *     a cache's list_lock, one at a time (with interrupts off)
 *       the page allocator's zone_lock (a slab's pages get their flags)
 * Slabs are allocated and freed with no list_lock held.  Neither lock is
 * held while a constructor or destructor runs.
 *
 * slab_caches_lock: slub_targets, every cache's refcount, released and
 * name (an orphan's), and the merge decision.
 *
 * list_lock: the cache's partial list and nr_partial, and (SLUB_TINY) every
 * slab state and inuse.  With per-CPU slabs a slab's state changes by
 * compare-and-exchange, under list_lock only when the slab goes on or
 * off the partial list (slub_cpu.c says when).
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/string.h>
#include "slub.h"

/* Every bad call of <tiny/slab.h> but a destroyed cache used, a double
 * free after other frees, and those that merging hides: a free to another
 * cache of the same size, a kmalloc() block freed to a cache and a cache
 * object to kfree() (caches merge into kmalloc() classes, as in Linux). */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~(KMEM_CHECK(DESTROYED_CACHE) |
						      KMEM_CHECK(DOUBLE_FREE_LATER) |
						      KMEM_CHECK(WRONG_CACHE_SAME_SIZE) |
						      KMEM_CHECK(KMALLOC_TO_CACHE) |
						      KMEM_CHECK(OBJECT_TO_KFREE));
const int kmem_ctor_every_alloc;		/* once per object, when its slab is made */

LIST_HEAD(slub_targets);
atomic_long_t slub_slab_pages;
struct kmem_cache cache_cache;		/* of struct kmem_cache, made at boot */

unsigned int slub_max_order = ~0u;		/* ~0u: the mode's default */
unsigned int slub_min_objects;			/* 0: from the CPU count */
static int slab_nomerge;			/* no cache merges with another */

/* ---- boot options -------------------------------------------------------------- */

static int slub_max_order_setup(const char *val)
{
	unsigned long v;
	int r = parse_ulong(val, 0, MAX_ORDER - 1, &v);

	if (!r)
		slub_max_order = (unsigned int)v;
	return r;
}
kernel_param("slub_max_order", slub_max_order_setup,
	     "=N: largest preferred slab order (SLUB: default 3, SLUB_TINY: 1)");

static int slub_min_objects_setup(const char *val)
{
	unsigned long v;
	int r = parse_ulong(val, 1, MAX_OBJS_PER_SLAB, &v);

	if (!r)
		slub_min_objects = (unsigned int)v;
	return r;
}
kernel_param("slub_min_objects", slub_min_objects_setup,
	     "=N: objects a slab should hold (default 4 * (fls(CPUs) + 1))");

static int slab_nomerge_setup(const char *val)
{
	(void)val;
	slab_nomerge = 1;
	return 0;
}
kernel_flag("slab_nomerge", slab_nomerge_setup,
	    "SLUB: no cache merges with another (as in Linux)");

/* ---- layout ------------------------------------------------------------------- */

/* Objects of size bytes in a slab of 2^order pages. */
static unsigned int order_objects(unsigned int order, size_t size)
{
	return (unsigned int)min_t(size_t, (PAGE_SIZE << order) / size, MAX_OBJS_PER_SLAB);
}

/* The smallest order from the one that holds min_objects up to max_order
 * whose leftover is at most 1/fract_leftover of the slab; max_order + 1
 * if none. */
static unsigned int calc_slab_order(size_t size, unsigned int min_objects,
				    unsigned int max_order, unsigned int fract_leftover)
{
	unsigned int order;

	for (order = get_order(min_objects * size); order <= max_order; order++) {
		size_t bytes = PAGE_SIZE << order;

		if (bytes / size > MAX_OBJS_PER_SLAB)
			return order ? order - 1 : 0;
		if (bytes % size <= bytes / fract_leftover)
			break;
	}
	return order;
}

static unsigned int fls_uint(unsigned int x)
{
	return x ? 32 - (unsigned int)__builtin_clz(x) : 0;
}

/* The objects a slab should hold: slub_min_objects=, or Linux's default
 * for the machine's CPUs. */
static unsigned int min_objects_wanted(void)
{
	return slub_min_objects ? slub_min_objects : 4 * (fls_uint(num_possible_cpus()) + 1);
}

/* Linux's calculate_order(): the preferred order of objects of size bytes,
 * or MAX_ORDER if none holds one. */
static unsigned int calculate_order(size_t size)
{
	unsigned int max_order = min_t(unsigned int, slub_max_order, MAX_ORDER - 1);
	unsigned int min_objects = min_objects_wanted(), fraction, order;

	min_objects = min(min_objects, order_objects(max_order, size));
	for (; min_objects > 1; min_objects--)
		for (fraction = 16; fraction >= 4; fraction /= 2) {
			order = calc_slab_order(size, min_objects, max_order, fraction);
			if (order <= max_order)
				return order;
		}
	order = calc_slab_order(size, 1, max_order, 1);
	if (order <= max_order)
		return order;
	return calc_slab_order(size, 1, MAX_ORDER - 1, 1);
}

static void set_slab_order(struct slub_order *o, unsigned int order, size_t size)
{
	o->order = order;
	o->objects = order_objects(order, size);
	o->offset_mask = (PAGE_SIZE << order) - 1;
	o->objs_bytes = (size_t)o->objects * size;
}

/* Alignment of a cache's objects: as asked, a cache line for
 * SLAB_HWCACHE_ALIGN (halved while two objects fit one), a word at least. */
static size_t slub_align(unsigned long flags, size_t align, size_t size)
{
	size_t ralign = sizeof(void *);

	if (flags & SLAB_HWCACHE_ALIGN)
		for (ralign = L1_CACHE_BYTES; size <= ralign / 2 && ralign / 2 >= sizeof(void *);)
			ralign /= 2;
	return ALIGN(max(align, ralign), sizeof(void *));
}

/* The free pointer's place, the stride, the alignment and the two slab
 * orders of c (its common part filled in).  -1 if no slab holds one. */
static int calculate_sizes(struct kmem_cache *c)
{
	const struct kmem_cache_common *cc = &c->common;
	size_t size = ALIGN(cc->object_size, sizeof(void *));
	unsigned int order;

	if (cc->ctor || cc->dtor) {	/* the constructed state stays whole */
		c->offset = size;
		size += sizeof(void *);
	} else {
		c->offset = ALIGN_DOWN(cc->object_size / 2, sizeof(void *));
	}
	c->align = slub_align(cc->flags, cc->align, cc->object_size);
	c->size = ALIGN(size, c->align);
	c->reciprocal_size = reciprocal_of(c->size);
	order = calculate_order(c->size);
	if (order >= MAX_ORDER || !order_objects(order, c->size))
		return -1;
	set_slab_order(&c->oo[0], order, c->size);
	set_slab_order(&c->oo[1], get_order(c->size), c->size);
	return 0;
}

unsigned int slab_objects(const struct kmem_cache *c, const struct page *page)
{
	return order_of(c, READ_ONCE(page->flags))->objects;
}

/* ---- slabs ------------------------------------------------------------------------- */

/* Points every page of the slab at c and gives them its flags (flags 0:
 * takes them back).  The flags change under zone_lock, set after the
 * pointer and cleared before it is, so a reader without a lock that sees
 * PG_slab reads the slab's cache or NULL. */
static void map_slab_pages(struct page *page, unsigned int order, struct kmem_cache *c,
			   unsigned int flags)
{
	unsigned long i, n = 1UL << order;

	if (!c)
		page_update_flags(page, n, 0, PG_slab | PG_kmalloc | PG_internal | PG_min_order);
	for (i = 0; i < n; i++)
		WRITE_ONCE(page[i].slab_cache, c);
	if (c)
		page_update_flags(page, n, flags, 0);
}

/* Constructs the objects of a new slab, then chains them in address
 * order: a store and an add for each (most slabs are made as the heap
 * grows, so this runs for about every allocation). */
static void init_objects(struct kmem_cache *c, uintptr_t base, unsigned int objects)
{
	size_t size = c->size, offset = c->offset;
	char *obj, *last = (char *)base + (objects - 1) * size;

	for (obj = (char *)base; c->common.ctor && obj <= last; obj += size) {
		kmem_mark_internal(obj, c->common.object_size);
		c->common.ctor(obj);
		kmem_mark_noaccess(obj, c->common.object_size);
	}
	for (obj = (char *)base; obj < last; obj += size) {
		kmem_mark_internal(obj + offset, sizeof(void *));
		*(void **)(obj + offset) = obj + size;
	}
	kmem_mark_internal(last + offset, sizeof(void *));
	*(void **)(last + offset) = NULL;
}

struct page *new_slab(struct kmem_cache *c, gfp_t flags)
{
	unsigned int which = 0, has_fallback = c->oo[1].order < c->oo[0].order;
	gfp_t gfp = flags & ~__GFP_ZERO;
	const struct slub_order *o;
	struct page *page;

	assert_spin_not_held(&c->list_lock);
	call_path(CALL_PATH_NEW_SLAB);
	page = alloc_pages(gfp | (has_fallback ? __GFP_NOWARN : 0), c->oo[0].order);
	if (!page && has_fallback) {
		which = 1;
		page = alloc_pages(gfp, c->oo[1].order);
	}
	if (!page)
		return NULL;
	o = &c->oo[which];
	kmem_mark_noaccess((void *)slab_base(page), PAGE_SIZE << o->order);
	init_objects(c, slab_base(page), o->objects);
	slab_state_set(page, make_state(0, 0, 0));
	map_slab_pages(page, o->order, c, PG_slab | c->page_flags | (which ? PG_min_order : 0));
	atomic_long_inc(&c->nr_slabs);
	atomic_long_add(1L << o->order, &c->nr_pages);
	atomic_long_add(1L << o->order, &slub_slab_pages);
	atomic_long_add((long)o->objects, &c->total_objects);
	return page;
}

void discard_slab(struct kmem_cache *c, struct page *page)
{
	const struct slub_order *o = order_of(c, READ_ONCE(page->flags));
	uintptr_t base = slab_base(page);
	unsigned int i;

	assert_spin_not_held(&c->list_lock);
	call_path(CALL_PATH_SLAB_FREED);
	/* back to the page allocator as it gave them: ours to touch */
	kmem_mark_internal((void *)base, PAGE_SIZE << o->order);
	for (i = 0; c->common.dtor && i < o->objects; i++)
		c->common.dtor(slab_obj(c, base, i));
	map_slab_pages(page, o->order, NULL, 0);
	atomic_long_dec(&c->nr_slabs);
	atomic_long_add(-(1L << o->order), &c->nr_pages);
	atomic_long_add(-(1L << o->order), &slub_slab_pages);
	atomic_long_add(-(long)o->objects, &c->total_objects);
	__free_pages(page, o->order);
}

void add_partial(struct kmem_cache *c, struct page *page, int tail)
{
	assert_spin_held(&c->list_lock);
	if (tail)
		list_add_tail(&page->lru, &c->partial);
	else
		list_add(&page->lru, &c->partial);
	WRITE_ONCE(c->nr_partial, c->nr_partial + 1);
}

void remove_partial(struct kmem_cache *c, struct page *page)
{
	assert_spin_held(&c->list_lock);
	list_del(&page->lru);
	WRITE_ONCE(c->nr_partial, c->nr_partial - 1);
}

/* Gives every empty slab on c's partial list back; returns the pages. */
static unsigned long discard_empty_partials(struct kmem_cache *c)
{
	struct page *page, *n;
	unsigned long save, pages = 0;
	LIST_HEAD(empty);

	spin_lock_irqsave(&c->list_lock, save);
	list_for_each_entry_safe(page, n, &c->partial, lru)
		if (!state_inuse(slab_state(page))) {
			remove_partial(c, page);
			list_add(&page->lru, &empty);
		}
	spin_unlock_irqrestore(&c->list_lock, save);
	list_for_each_entry_safe(page, n, &empty, lru) {
		pages += 1UL << order_of(c, READ_ONCE(page->flags))->order;
		discard_slab(c, page);
	}
	return pages;
}

/* ---- caches and aliases -------------------------------------------------------------- */

/* Can objects of other caches live in c's slabs?  A kmalloc() class's
 * can, as in Linux. */
static int mergeable(const struct kmem_cache *c)
{
	return !c->common.ctor && !c->common.dtor &&
	       !(c->common.flags & (CFLGS_INTERNAL | SLAB_NO_MERGE));
}

/* The targets others may merge into, by stride: strides are multiples of
 * a word and a cache merges only into its own stride, so a new cache
 * looks at one bucket, not at every cache.  Newest first; under
 * slab_caches_lock. */
#define MERGE_BUCKETS	64
static struct list_head merge_buckets[MERGE_BUCKETS];
unsigned long slub_merge_steps;

static struct list_head *merge_bucket(size_t size)
{
	return &merge_buckets[(size / sizeof(void *)) % MERGE_BUCKETS];
}

static void init_merge_buckets(void)
{
	unsigned int i;

	for (i = 0; i < MERGE_BUCKETS; i++)
		INIT_LIST_HEAD(&merge_buckets[i]);
}

/* The live cache new's objects (laid out) may share: the newest whose
 * stride holds them with less than a word to spare, at an alignment that
 * suits them.  Only a kmem_cache_create() cache merges (a kmalloc() class
 * never becomes an alias).  slab_caches_lock held. */
static struct kmem_cache *find_mergeable(const struct kmem_cache *new)
{
	struct list_head *bucket = merge_bucket(new->size), *pos;
	struct kmem_cache *c;

	assert_spin_held(&slab_caches_lock);
	if (slab_nomerge || !mergeable(new) || (new->common.flags & CFLGS_KMALLOC))
		return NULL;
	for (pos = bucket->next; pos != bucket; pos = pos->next) {
		c = container_of(pos, struct kmem_cache, merge_list);
		slub_merge_steps++;
		if (c->refcount > 0 && new->size <= c->size && !(c->size & (new->align - 1)) &&
		    c->size - new->size < sizeof(void *))
			return c;
	}
	return NULL;
}

/* Lists t, a new target, where find_mergeable() looks, if others may
 * share its slabs.  slab_caches_lock held. */
static void list_target(struct kmem_cache *t)
{
	assert_spin_held(&slab_caches_lock);
	list_add_tail(&t->target_list, &slub_targets);
	if (mergeable(t))
		list_add(&t->merge_list, merge_bucket(t->size));
}

struct kmem_cache *slub_slabs_of(struct kmem_cache *c)
{
	return c->target;
}

/* Makes c (laid out, its per-CPU part open) a cache of its own: its lists. */
static void open_own(struct kmem_cache *c)
{
	c->target = c;
	c->refcount = 1;
	INIT_LIST_HEAD(&c->merge_list);
	c->min_partial = slub_min_partial(c->size);
	c->zero_refused = c->common.ctor ? __GFP_ZERO : 0;
	c->page_flags = (c->common.flags & CFLGS_KMALLOC ? PG_kmalloc : 0) |
			(c->common.flags & CFLGS_INTERNAL ? PG_internal : 0);
	spin_lock_init(&c->list_lock);
	INIT_LIST_HEAD(&c->partial);
	INIT_LIST_HEAD(&c->aliases);
}

int cache_open(struct kmem_cache *c)
{
	struct kmem_cache *target;
	unsigned long save;

	if (calculate_sizes(c))
		return -1;
	spin_lock_irqsave(&slab_caches_lock, save);
	target = find_mergeable(c);
	c->target = target ? target : c;
	if (target)
		target->refcount++;
	spin_unlock_irqrestore(&slab_caches_lock, save);
	if (slub_cpu_open(c)) {
		spin_lock_irqsave(&slab_caches_lock, save);
		if (target)
			target->refcount--;
		spin_unlock_irqrestore(&slab_caches_lock, save);
		return -1;
	}
	if (target) {
		spin_lock_irqsave(&slab_caches_lock, save);
		list_add_tail(&c->target_list, &target->aliases);
		spin_unlock_irqrestore(&slab_caches_lock, save);
		return 0;
	}
	open_own(c);
	spin_lock_irqsave(&slab_caches_lock, save);
	list_target(c);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	return 0;
}

struct kmem_cache *cache_struct_alloc(void)
{
	struct kmem_cache *c = &cache_cache;

	if (should_failslab(c->common.name, c->common.object_size, GFP_KERNEL))
		return NULL;
	return slub_alloc(c, c, GFP_KERNEL | __GFP_ZERO);
}

/* Gives a cache struct back to cache_cache. */
static void cache_struct_put(struct kmem_cache *c)
{
	uintptr_t base;
	long idx = slub_obj_check(&cache_cache, READ_ONCE(virt_to_page(c)->flags), c, &base);

	if (idx < 0 || slub_free(&cache_cache, &cache_cache, c, base, (unsigned int)idx))
		kmem_bad_free("cache_struct_free", c, KMEM_NOT_CACHE, __builtin_return_address(0));
}

void cache_struct_free(struct kmem_cache *c)
{
	if (!is_alias(c) && c->released)
		return;		/* its slabs serve aliases: freed with the last of them */
	cache_struct_put(c);
}

/* Names an orphan (a cache whose creator destroyed it while aliases of it
 * live) after one of them, the oldest.  slab_caches_lock held. */
static void name_orphan(struct kmem_cache *t)
{
	assert_spin_held(&slab_caches_lock);
	if (!list_empty(&t->aliases))
		t->common.name = container_of(t->aliases.next, struct kmem_cache,
					      target_list)->common.name;
}

long slub_target_in_use(struct kmem_cache *t)
{
	long n = slub_objects_in_use(t);	/* its own (an orphan's: from before) */
	struct list_head *pos;

	assert_spin_held(&slab_caches_lock);
	list_for_each(pos, &t->aliases)
		n += slub_objects_in_use(container_of(pos, struct kmem_cache, target_list));
	return n;
}

/* Gives t's CPU slabs back, on every CPU; nonzero if another CPU still
 * holds one, said here (with interrupts off the others cannot be asked).
 * t is dying: nothing merges into it meanwhile. */
static int slabs_left_on_cpus(struct kmem_cache *t)
{
	if (slub_flush(t) || !slub_cpu_holds_slabs(t))
		return 0;
	pr_err("kmem_cache_destroy: cache %s has slabs on other CPUs, which cannot be "
	       "asked for them with interrupts off\n", t->common.name);
	return 1;
}

/* The objects c, a handle, has out (its own count, exact for merged caches
 * too); with none, the destroy of the last handle on the slabs also needs
 * every CPU's slabs back. */
unsigned long cache_live_objects(struct kmem_cache *c)
{
	struct kmem_cache *t = c->target;
	long in_use = slub_objects_in_use(c);
	unsigned long save;

	if (in_use > 0)
		return (unsigned long)in_use;
	spin_lock_irqsave(&slab_caches_lock, save);
	if (t->refcount > 1) {		/* others share its slabs: give the reference back */
		t->refcount--;
		c->released = 1;
		spin_unlock_irqrestore(&slab_caches_lock, save);
		return 0;
	}
	t->refcount = -1;		/* dying: find_mergeable() passes it by */
	spin_unlock_irqrestore(&slab_caches_lock, save);
	if (!slabs_left_on_cpus(t))
		return 0;
	spin_lock_irqsave(&slab_caches_lock, save);
	t->refcount = 1;
	spin_unlock_irqrestore(&slab_caches_lock, save);
	return 1;
}

/* Gives back everything t holds: it is on no CPU, unlisted, unused. */
static void close_own(struct kmem_cache *t)
{
	slub_flush(t);
	discard_empty_partials(t);
	WARN_ON(atomic_long_read(&t->nr_slabs));
	slub_cpu_close(t);
}

void cache_close(struct kmem_cache *c)
{
	struct kmem_cache *t = c->target;
	unsigned long save;
	int last;

	if (is_alias(c))
		slub_cpu_close(c);	/* its count */
	spin_lock_irqsave(&slab_caches_lock, save);
	if (is_alias(c))
		list_del(&c->target_list);
	if (c->released) {		/* others keep the slabs */
		if (t == c || (t->released && t->common.name == c->common.name))
			name_orphan(t);
		spin_unlock_irqrestore(&slab_caches_lock, save);
		return;
	}
	last = t->refcount <= 1;	/* 1: never counted (creation failed); -1: dying */
	t->refcount = last ? 0 : t->refcount - 1;
	if (last) {
		list_del(&t->target_list);
		list_del_init(&t->merge_list);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	if (!last)
		return;
	close_own(t);
	if (t != c)		/* an orphan: its creator's struct waited for this */
		cache_struct_put(t);
}

/* ---- allocation and free ---------------------------------------------------------------- */

void *__kmem_cache_alloc(struct kmem_cache *c, gfp_t flags)
{
	void *obj;

	if (unlikely(flags & c->zero_refused)) {
		refuse_zero_with_ctor(c);
		return NULL;
	}
	if (should_failslab(c->common.name, c->common.object_size, flags))
		return NULL;
	obj = slub_alloc(c->target, c, flags);
	kmem_debug_validate("kmem_cache_alloc", obj);
	return obj;
}

/* Why obj, which kmem_cache_free() did not find to be an object of c, is
 * refused. */
static noinline const char *cache_free_refusal(const struct kmem_cache *c,
					       const struct page *page, unsigned int flags)
{
	if (!(flags & PG_slab))
		return "not a slab object";
	if (READ_ONCE(page->slab_cache) != c)
		return flags & PG_kmalloc ? "a kmalloc() block, not an object of this cache" :
					    "the object belongs to another cache";
	return "not the start of an object";
}

void __kmem_cache_free(struct kmem_cache *h, void *obj)
{
	struct kmem_cache *c = h->target;
	struct page *page;
	unsigned int flags;
	uintptr_t base;
	const char *why;
	long idx;

	if (unlikely(!obj))
		return;
	page = virt_to_page(obj);
	flags = page ? READ_ONCE(page->flags) : 0;
	if (likely((flags & PG_slab) && READ_ONCE(page->slab_cache) == c) &&
	    likely((idx = slub_obj_check(c, flags, obj, &base)) >= 0))
		why = slub_free(c, h, obj, base, (unsigned int)idx);
	else
		why = cache_free_refusal(c, page, flags);
	if (unlikely(why)) {
		kmem_bad_free("kmem_cache_free", obj, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kmem_cache_free", obj);
}

/* ---- kmalloc ------------------------------------------------------------------------------- */

#define KMALLOC_CLASS(x, name)	{ .cs_size = (x), .cs_name = "kmalloc-" name }
/* Linux's kmalloc classes, up to two pages (16 and 32 KiB for the host's
 * builds with 16 KiB pages). */
struct cache_sizes kmalloc_classes[] = {
	KMALLOC_CLASS(8, "8"), KMALLOC_CLASS(16, "16"), KMALLOC_CLASS(32, "32"),
	KMALLOC_CLASS(64, "64"), KMALLOC_CLASS(96, "96"), KMALLOC_CLASS(128, "128"),
	KMALLOC_CLASS(192, "192"), KMALLOC_CLASS(256, "256"), KMALLOC_CLASS(512, "512"),
	KMALLOC_CLASS(1024, "1k"), KMALLOC_CLASS(2048, "2k"), KMALLOC_CLASS(4096, "4k"),
	KMALLOC_CLASS(8192, "8k"), KMALLOC_CLASS(16384, "16k"), KMALLOC_CLASS(32768, "32k"),
};
const unsigned int nr_kmalloc_classes = ARRAY_SIZE(kmalloc_classes);

void *__kmalloc(size_t size, gfp_t flags)
{
	struct kmem_cache *c = kmalloc_class(size);
	void *obj;

	if (likely(c)) {
		if (should_failslab(c->common.name, size, flags))
			return NULL;
		obj = slub_alloc(c, c, flags);
	} else if (!size) {
		return ZERO_SIZE_PTR;
	} else {
		obj = kmalloc_large(size, flags);
	}
	kmem_debug_validate("kmalloc", obj);
	return obj;
}

void __kfree(const void *obj)
{
	struct kmem_cache *c;
	struct page *page;
	unsigned int flags;
	uintptr_t base;
	const char *why;
	long idx;

	if (unlikely(ZERO_OR_NULL_PTR(obj)))
		return;
	page = virt_to_page(obj);
	flags = page ? READ_ONCE(page->flags) : 0;
	c = page_kmalloc_class(page, flags);
	if (unlikely(!c)) {
		kfree_not_kmalloc_slab(obj, page, flags, __builtin_return_address(0));
		return;
	}
	idx = slub_obj_check(c, flags, obj, &base);
	why = likely(idx >= 0) ? slub_free(c, c, (void *)obj, base, (unsigned int)idx) :
				 KMEM_NOT_KMALLOC;
	if (unlikely(why)) {
		kmem_bad_free("kfree", obj, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", obj);
}

size_t __ksize(const void *obj)
{
	struct kmem_cache *c;
	struct page *page;
	unsigned int flags;
	uintptr_t base;
	size_t size = 0;

	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	page = virt_to_page(obj);
	flags = page ? READ_ONCE(page->flags) : 0;
	c = page_kmalloc_class(page, flags);
	if (c && slub_obj_check(c, flags, obj, &base) >= 0 && !slub_just_freed(c, obj, base))
		size = c->common.object_size;
	if (!size && !(flags & PG_slab))
		size = ksize_large(obj, page);
	if (!size)
		kmem_bad_free("ksize", obj, KMEM_NOT_KMALLOC, __builtin_return_address(0));
	return size;
}

/* ---- shrinking, accounting, boot ---------------------------------------------------------- */

/* The CPUs' slabs of c back to its partial list, then its empty slabs to
 * the page allocator; returns the pages freed. */
static unsigned long shrink_cache(struct kmem_cache *c)
{
	long before = atomic_long_read(&c->nr_pages), after;

	slub_flush(c);
	discard_empty_partials(c);
	after = atomic_long_read(&c->nr_pages);
	return before > after ? (unsigned long)(before - after) : 0;
}

int __kmem_cache_shrink(struct kmem_cache *c)
{
	unsigned long pages = shrink_cache(c->target);

	kmem_debug_validate("kmem_cache_shrink", c);
	return (int)pages;
}

unsigned long __kmem_reclaim(void)
{
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;
	long before = 0, after = 0;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos)
		before += atomic_long_read(&c->nr_pages);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	slub_flush(NULL);
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos) {
		discard_empty_partials(c);
		after += atomic_long_read(&c->nr_pages);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	kmem_debug_validate("kmem_reclaim", NULL);
	return (before > after ? (unsigned long)(before - after) : 0) + slub_mode_reclaim();
}

void __kmem_get_pages(struct kmem_stats *st)
{
	st->slab_pages = (unsigned long)atomic_long_read(&slub_slab_pages) + slub_mode_pages();
	st->large_pages = (unsigned long)atomic_long_read(&large_block_pages);
}

/* The bytes of the objects in use through handle c, at their stride; 0
 * for the allocator's own (cache structs). */
static long handle_bytes(const struct kmem_cache *c)
{
	const struct kmem_cache *t = c->target;

	return t->common.flags & CFLGS_INTERNAL ? 0 : slub_objects_in_use(c) * (long)t->size;
}

/* bytes_used: objects callers hold, at their stride, counted through every
 * handle (listed ones, and orphans); the allocator's own are not counted
 * (cache structs; sheaves, which are kmalloc() blocks: a running total).
 * cached_bytes: the objects in every CPU's sheaves and the barns, read
 * racily (slub_sheaved_objects()); 0 with CPU slabs.
 * A walk of the caches: the fast paths count no bytes. */
void __kmem_get_stats(struct kmem_stats *st)
{
	struct kmem_cache_common *cc;
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;
	long bytes = 0;

	__kmem_get_pages(st);
	st->cached_bytes = 0;
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos) {
		if (c->released)
			bytes += handle_bytes(c);
		if (!(c->common.flags & CFLGS_INTERNAL))
			st->cached_bytes += slub_sheaved_objects(c) * c->size;
	}
	list_for_each_entry(cc, &slab_caches, list)
		bytes += handle_bytes((struct kmem_cache *)cc);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	bytes -= (long)slub_sheaf_bytes();
	st->bytes_used = bytes > 0 ? (unsigned long)bytes : 0;
}

/* The cache of caches is static; the kmalloc classes are made from it.
 * Boot, interrupts off. */
void kmem_cache_init(void)
{
	assert_irqs_disabled();
	init_merge_buckets();
	if (slub_max_order == ~0u)
		slub_max_order = slub_default_max_order;
	cache_cache.common = (struct kmem_cache_common){
		.name = "kmem_cache", .object_size = sizeof(struct kmem_cache),
		.flags = SLAB_HWCACHE_ALIGN | CFLGS_INTERNAL };
	if (cache_open(&cache_cache) || kmem_cache_register(&cache_cache))
		panic("SLUB: cannot make the cache of caches");
	kmalloc_classes_init();
	slub_mode_kmalloc_ready();
	pr_info("%s: kmalloc classes of %zu to %zu bytes, slab orders up to %u, "
		"at least %u objects a slab (%u CPU(s))\n", kmem_allocator_name,
		kmalloc_classes[0].cs_size, kmalloc_max_size, slub_max_order, min_objects_wanted(), num_possible_cpus());
}

void kmem_cache_init_late(void)
{
}

KMEM_PUBLIC_API()
