/* slub_info.c - SLUB's slabinfo report (with the aliases of merged caches),
 * its validator, and its visit of the slabs for the heap map.
 *
 * Kept apart from slub_caches.c and slub.c, as SLAB's and SLOB's are, so that size(1) of the
 * allocator objects measures the allocator.  Both walk the caches on
 * slub_targets under slab_caches_lock and each cache's lists under its
 * list_lock.  With per-CPU slabs other CPUs change slab states without a
 * lock meanwhile, so the validator reads a slab's state once and checks
 * what holds at every instant: a slab on the partial list is not frozen
 * and its free list, from the head it read, is made of objects of the
 * slab, as many as the state says are free (frees only push before that
 * head, and nothing takes from a slab on the partial list while list_lock
 * is held).  This CPU's own slab is checked with interrupts off.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include "slub.h"

/* ---- report --------------------------------------------------------------------- */

static unsigned long count_aliases(const struct kmem_cache *t)
{
	struct kmem_cache_common *cc;
	unsigned long n = 0;

	list_for_each_entry(cc, &slab_caches, list)
		n += ((const struct kmem_cache *)cc)->target == t && (const void *)cc != t;
	return n;
}

static void report_cache(struct kmem_cache *c)
{
	long in_use = slub_target_in_use(c);
	unsigned long slabs = (unsigned long)atomic_long_read(&c->nr_slabs);
	char sheaves[48] = "";

	if (IS_ENABLED(CONFIG_SLUB_SHEAVES))	/* on the same line: one printk, one record */
		snprintf(sheaves, sizeof(sheaves), " sheaves ~%lu barn %u/%u",
			 slub_sheaved_objects(c), slub_barn_full(c), slub_barn_empty(c));
	printk("%-17s %6lu %6lu %6zu %4u %4lu : tunables %4u %4u %4u : slabdata %6lu %6lu %6u"
	       " : partial %lu min %lu cpu %u aliases %lu%s\n",
	       c->common.name, in_use > 0 ? (unsigned long)in_use : 0UL,
	       (unsigned long)atomic_long_read(&c->total_objects), c->size, c->oo[0].objects,
	       1UL << c->oo[0].order, 0U, 0U, 0U, slabs, slabs, 0U, READ_ONCE(c->nr_partial),
	       c->min_partial, slub_cpu_partial_limit(c), count_aliases(c), sheaves);
}

/* Prints /proc/slabinfo (version 2.1) for every cache that holds slabs,
 * then every alias and the cache it shares, the per-CPU pages and the
 * large blocks. */
void kmem_report(void)
{
	unsigned long save, blocks = 0, pages;
	struct kmem_cache_common *cc;
	struct kmem_cache *c;
	struct list_head *pos;

	printk("slabinfo - version: 2.1\n");
	printk("# name            <active_objs> <num_objs> <objsize> <objperslab> "
	       "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
	       "slabdata <active_slabs> <num_slabs> <sharedavail> : partial <slabs> "
	       "min <min_partial> cpu <cpu_partial_slabs> aliases <n>%s\n",
	       IS_ENABLED(CONFIG_SLUB_SHEAVES) ? " sheaves <objects> barn <full>/<empty>" : "");
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos)
		report_cache(c);
	list_for_each_entry(cc, &slab_caches, list) {
		c = (struct kmem_cache *)cc;
		if (is_alias(c))
			printk("# alias %s -> %s (object size %zu)\n", cc->name,
			       c->target->common.name, cc->object_size);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	large_blocks_count(&blocks, &pages);
	printk("# per-CPU data: %lu pages\n", slub_mode_pages());
	printk("# large kmalloc blocks: %lu blocks, %lu pages (%lu kB)\n", blocks, pages,
	       pages * (PAGE_SIZE / 1024));
}

/* Free objects on c's partial list.  Interrupts off. */
static unsigned long node_free_objects(struct kmem_cache *c)
{
	unsigned long n = 0;
	struct page *page;

	assert_irqs_disabled();
	spin_lock(&c->list_lock);
	list_for_each_entry(page, &c->partial, lru)
		n += slab_objects(c, page) - state_inuse(slab_state(page));
	spin_unlock(&c->list_lock);
	return n;
}

void slab_get_breakdown(struct slab_breakdown *b)
{
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;

	*b = (struct slab_breakdown){ 0 };
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos) {
		unsigned long long bytes = (unsigned long long)atomic_long_read(&c->nr_pages) *
					   PAGE_SIZE;
		unsigned long objects = (unsigned long)atomic_long_read(&c->total_objects);
		long in_use = slub_target_in_use(c);
		unsigned long used = in_use > 0 ? (unsigned long)in_use : 0, node = node_free_objects(c);

		b->held += bytes;
		if (c->common.flags & CFLGS_INTERNAL)
			b->internal += (unsigned long long)used * c->size;
		else
			b->callers += (unsigned long long)used * c->size;
		b->tail += bytes - (unsigned long long)objects * c->size;
		b->free_objs += (unsigned long long)node * c->size;
		b->cached += (unsigned long long)(objects - used - node) * c->size;
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	b->mgmt = (unsigned long long)slub_mode_pages() * PAGE_SIZE;
	b->large_bytes = (unsigned long long)atomic_long_read(&large_block_pages) * PAGE_SIZE;
	b->held += b->mgmt + b->large_bytes;
}

/* ---- validator ------------------------------------------------------------------------- */

#define bad(c, fmt, ...) do {							\
	errors++;								\
	pr_err("slub: validate: %s: " fmt, (c)->common.name, ##__VA_ARGS__);	\
} while (0)

/* Are page and the pages after it the first page of a slab of c, its
 * pages pointing at c with the same flags? */
static int validate_slab_pages(struct kmem_cache *c, struct page *page)
{
	unsigned int flags = READ_ONCE(page->flags), want = PG_slab | c->page_flags;
	const struct slub_order *o = order_of(c, flags);
	uintptr_t base = slab_base(page);
	unsigned long i;
	int errors = 0;

	if ((flags & ~PG_min_order) != (want | PG_head) || (base & o->offset_mask))
		bad(c, "slab %#lx: flags %#x, not a slab of this cache (order %u)\n",
		    (unsigned long)base, flags, o->order);
	for (i = 0; !errors && i < (1UL << o->order); i++)
		if (READ_ONCE(page[i].slab_cache) != c ||
		    (READ_ONCE(page[i].flags) & (PG_slab | PG_kmalloc | PG_internal | PG_min_order)) !=
		    (flags & (PG_slab | PG_kmalloc | PG_internal | PG_min_order)))
			bad(c, "slab %#lx: page %lu does not point at the cache\n",
			    (unsigned long)base, i);
	return errors;
}

/* Walks a free list from head in the slab at base: every entry an object
 * of it, at most max of them (more is a cycle or a lost count); the
 * count in *n.  Returns the problems. */
static int validate_freelist(struct kmem_cache *c, uintptr_t base, const struct slub_order *o,
			     void *head, unsigned int max, unsigned int *n, const char *which)
{
	uintptr_t b;
	void *p;
	int errors = 0;

	for (*n = 0, p = head; p; p = get_freepointer(c, p)) {
		if ((uintptr_t)p - base >= o->objs_bytes ||
		    slub_obj_check(c, PG_slab | (o == &c->oo[1] ? PG_min_order : 0), p, &b) < 0 ||
		    b != base) {
			bad(c, "%s of slab %#lx: %p is no object of it\n", which,
			    (unsigned long)base, p);
			break;		/* followed no further */
		}
		if (++*n > max) {
			bad(c, "%s of slab %#lx: more than %u objects (a cycle?)\n", which,
			    (unsigned long)base, max);
			break;
		}
	}
	return errors;
}

/* A slab on c's partial list.  list_lock held. */
static int validate_partial_slab(struct kmem_cache *c, struct page *page)
{
	const struct slub_order *o = order_of(c, READ_ONCE(page->flags));
	uintptr_t base = slab_base(page);
	u32 s = slab_state(page);
	unsigned int n, inuse = state_inuse(s);
	int errors = validate_slab_pages(c, page);

	assert_spin_held(&c->list_lock);
	if (errors)
		return errors;
	if (state_frozen(s))
		bad(c, "slab %#lx on the partial list is frozen\n", (unsigned long)base);
	if (inuse >= o->objects || state_free(s) == SLUB_FREE_NONE)
		bad(c, "slab %#lx on the partial list has no free object (%u of %u in use)\n",
		    (unsigned long)base, inuse, o->objects);
	if (errors)
		return errors;
	errors += validate_freelist(c, base, o, state_freelist(c, base, s), o->objects, &n,
				    "free list");
	if (!errors && n != o->objects - inuse)
		bad(c, "slab %#lx: %u objects on its free list, its state says %u\n",
		    (unsigned long)base, n, o->objects - inuse);
	return errors;
}

/* The partial list and the counters of c.  Interrupts off. */
static int validate_node(struct kmem_cache *c)
{
	unsigned long listed = 0;
	struct page *page;
	int errors = 0;

	assert_irqs_disabled();
	spin_lock(&c->list_lock);
	list_for_each_entry(page, &c->partial, lru) {
		errors += validate_partial_slab(c, page);
		if (++listed > (unsigned long)atomic_long_read(&c->nr_slabs) || errors)
			break;
	}
	if (!errors && listed != c->nr_partial)
		bad(c, "%lu slabs on the partial list, nr_partial says %lu\n", listed, c->nr_partial);
	spin_unlock(&c->list_lock);
	if (atomic_long_read(&c->nr_slabs) < 0 || atomic_long_read(&c->total_objects) < 0)
		bad(c, "counters below zero: %ld slabs, %ld objects\n",
		    atomic_long_read(&c->nr_slabs), atomic_long_read(&c->total_objects));
	return errors;
}

/* This CPU's own slab of c and its free list.  Interrupts off. */
static int validate_this_cpu(struct kmem_cache *c)
{
	struct page *page;
	unsigned int n;
	uintptr_t base;
	void *freelist;
	int errors = 0;

	assert_irqs_disabled();
	base = slub_this_cpu_slab(c, &freelist);
	if (!base) {
		if (freelist)
			bad(c, "this CPU has a free list (%p) and no slab\n", freelist);
		return errors;
	}
	page = slab_page(base);
	errors += validate_slab_pages(c, page);
	if (!errors && !state_frozen(slab_state(page)))
		bad(c, "this CPU's slab %#lx is not frozen\n", (unsigned long)base);
	if (!errors)
		errors += validate_freelist(c, base, order_of(c, READ_ONCE(page->flags)), freelist,
					    order_of(c, READ_ONCE(page->flags))->objects, &n,
					    "this CPU's free list");
	return errors;
}

int kmem_validate(void)
{
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;
	int errors = 0;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos) {
		if (c->target != c)
			bad(c, "on the list of caches, but an alias\n");
		errors += validate_node(c) + validate_this_cpu(c);
		if (!errors && IS_ENABLED(CONFIG_SLUB_SHEAVES))
			errors += slub_sheaves_validate(c, node_free_objects(c));
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	return errors + large_blocks_validate();
}

/* ---- heap map ------------------------------------------------------------------------- */

/* The walk of one cache's slabs for the heap map. */
struct slub_visit {
	struct kmem_cache *c;
	heap_visit_t visit;
	void *arg;
};

/* A slab page (zone_lock held): tells the map of the slab if the page is
 * the first of one of c's.  Full slabs are on no list: mem_map has them
 * all.  A frozen slab's state counts its CPU's free list as in use. */
static void visit_slab_page(struct page *page, void *arg)
{
	struct slub_visit *v = arg;
	unsigned int flags = READ_ONCE(page->flags);
	const struct slub_order *o;

	if (!(flags & PG_head) || READ_ONCE(page->slab_cache) != v->c)
		return;
	o = order_of(v->c, flags);
	v->visit(v->arg, v->c->common.name, 1UL << o->order, state_inuse(slab_state(page)),
		 o->objects);
}

/* Every cache that holds slabs, in turn, under the report's lock; then
 * the pages of the per-CPU layer's structs (mm/slub_percpu.c). */
void kmem_heap_visit(heap_visit_t visit, void *arg)
{
	unsigned long save, percpu_pages = slub_mode_pages();
	struct slub_visit v = { NULL, visit, arg };
	struct list_head *pos;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(v.c, pos)
		page_flag_walk(PG_slab, visit_slab_page, &v);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	if (percpu_pages)	/* counted in Slab: as well; shaded full */
		visit(arg, "per-CPU structs", percpu_pages, 1, 1);
}

/* The objects in every CPU's sheaves and the barns, read racily
 * (slub_sheaved_objects()); 0 with CPU slabs and SLUB_TINY. */
unsigned long kmem_cached_bytes(void)
{
	unsigned long save, bytes = 0;
	struct kmem_cache *c;
	struct list_head *pos;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos)
		bytes += slub_sheaved_objects(c) * c->size;
	spin_unlock_irqrestore(&slab_caches_lock, save);
	return bytes;
}
