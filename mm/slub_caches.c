/* slub_caches.c - SLUB's top layer: the entry points of <tiny/slab.h>
 * (each over its per-CPU layer's inline fast path, mm/slub_sheaves.h or
 * mm/slub_cpu.h, or SLUB_TINY's slab path) and the caches: their hooks
 * for kmem_cache_create() and kmem_cache_destroy(), merging, shrink,
 * reclaim, the accounting and boot.  It calls the per-CPU layer, which
 * calls mm/slub.c's slabs; no call goes back up (the order of SLUB's
 * files: mm/slub.c).
 *
 * Cache merging.  A new cache without constructor or destructor, not
 * debugged by kmem_debug= (SLAB_NO_MERGE) and not given a per-CPU capacity
 * of its own, whose objects fit a live cache's stride within a word at a
 * compatible alignment, becomes an alias of that cache: its handle has
 * its own name, size, registry entry (names stay unique, slabinfo lists
 * it) and count of objects in use, and points to the cache that holds the
 * slabs.  As in Linux, a kmalloc() size class is such a cache too (the
 * allocator's own are not): merging into the classes saves a partly used
 * slab per cache (make compare measures it); the price is that a
 * kmalloc() block freed to such a cache, or its object to kfree(), is a
 * free to the same slabs and not seen, nor is a free to the wrong one of
 * two merged caches (kmem_debug= never merges, and sees them; the boot
 * option slab_nomerge, Linux's, turns merging off).  A destroy refuses
 * while its own handle has objects out, merged or not; with none it gives
 * its reference back if others share the slabs, and the last one gives
 * the slabs back.  A cache whose creator destroyed it while aliases live
 * stays on slub_targets, named after one of them.
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
 *     a cache's list_lock (mm/slub.c's order below it)
 * Neither lock is held while a constructor or destructor runs.
 *
 * slab_caches_lock: slub_targets, every cache's refcount, released and
 * name (an orphan's), and the merge decision.
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
struct kmem_cache cache_cache;		/* of struct kmem_cache, made at boot */

static int slab_nomerge;			/* no cache merges with another */

/* ---- boot options -------------------------------------------------------------- */

static int slab_nomerge_setup(const char *val)
{
	(void)val;
	slab_nomerge = 1;
	return 0;
}
kernel_flag("slab_nomerge", slab_nomerge_setup,
	    "SLUB: no cache merges with another (as in Linux)");

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
 * A walk of the caches: the fast paths count no bytes. */
void __kmem_get_stats(struct kmem_stats *st)
{
	struct kmem_cache_common *cc;
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;
	long bytes = 0;

	__kmem_get_pages(st);
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos)
		if (c->released)
			bytes += handle_bytes(c);
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
