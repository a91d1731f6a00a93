/* slab_info.c - SLAB's slabinfo report, its validator and its visit of
 * the slabs for the heap map (the validator's walk of the slab lists).
 *
 * Kept apart from slab.c so that the allocator proper can be measured on
 * its own (size mm/slab.o) against SLOB.  All walk the caches through
 * the structures in mm/slab.h, under the same locks as the allocator.
 */
#include <tiny/kernel.h>
#include "slab.h"

/* ---- report ------------------------------------------------------------ */

/* Slabs on c's free list.  c->lock held. */
static unsigned long count_free_slabs(struct kmem_cache *c)
{
	struct list_head *pos;
	unsigned long n = 0;

	assert_spin_held(&c->lock);
	list_for_each(pos, &c->slabs_free)
		n++;
	return n;
}

/* Each online CPU's magazine of c as " cpu:avail/limit" entries, into buf. */
static void format_magazines(struct kmem_cache *c, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int cpu;

	buf[0] = '\0';
	for_each_online_cpu(cpu)
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, " %u:%u/%u", cpu,
						ac_avail(c->array[cpu]), c->array[cpu]->limit);
}

/* One line per cache: its slabs (fallback slabs included), then its
 * fallback slabs and their shape (the cache's own if it has none), each
 * online CPU's magazine (avail/limit) at its end. */
static void report_cache(struct kmem_cache *c)
{
	char mags[NR_CPUS * 16];
	unsigned long free_slabs;
	struct slab_counts n;

	spin_lock(&c->lock);
	cache_get_counts(c, &n);
	free_slabs = count_free_slabs(c);
	spin_unlock(&c->lock);
	format_magazines(c, mags, sizeof(mags));
	printk("%-17s %6lu %6lu %6zu %4u %4lu : tunables %4u %4u %4u : slabdata %6lu %6lu %6u"
	       " : fallback %6lu %4u %4lu : cpu avail/limit%s\n",
	       c->common.name, n.active_objs, n.num_objs, c->buffer_size, c->num,
	       1UL << c->gfporder, c->limit, c->batchcount, 0U,
	       n.num_slabs - free_slabs, n.num_slabs, 0U, n.fallback_slabs, c->fallback.num,
	       1UL << c->fallback.order, mags);
}

/* Prints /proc/slabinfo (version 2.1) for every cache, then the large blocks. */
void kmem_report(void)
{
	unsigned long save, blocks = 0, pages;
	struct kmem_cache *c;
	struct list_head *pos;

	printk("slabinfo - version: 2.1\n");
	printk("# name            <active_objs> <num_objs> <objsize> <objperslab> "
	       "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
	       "slabdata <active_slabs> <num_slabs> <sharedavail> : fallback <num_slabs> "
	       "<objperslab> <pagesperslab> : cpu avail/limit <cpu>:<avail>/<limit> ...\n");
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos)
		report_cache(c);
	spin_unlock_irqrestore(&slab_caches_lock, save);

	large_blocks_count(&blocks, &pages);
	printk("# large kmalloc blocks: %lu blocks, %lu pages (%lu kB)\n", blocks, pages,
	       pages * (PAGE_SIZE / 1024));
}

/* Adds the descriptors and tails of slabs slabs of shape to b. */
static void add_shape_bytes(struct slab_breakdown *b, const struct kmem_cache *c,
			    struct slab_shape shape, unsigned long slabs)
{
	size_t mgmt = shape.slabp_cache ? 0 : shape.slab_size;

	b->mgmt += (unsigned long long)slabs * mgmt;
	b->tail += (unsigned long long)slabs * ((PAGE_SIZE << shape.order) - mgmt -
						 (size_t)shape.num * c->buffer_size);
}

void slab_get_breakdown(struct slab_breakdown *b)
{
	unsigned long save;
	struct kmem_cache *c;
	struct list_head *pos;
	struct slab_counts n;

	*b = (struct slab_breakdown){ 0 };
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos) {
		spin_lock(&c->lock);
		cache_get_counts(c, &n);
		spin_unlock(&c->lock);
		b->held += (unsigned long long)n.pages * PAGE_SIZE;
		if (is_internal(c))
			b->internal += (unsigned long long)n.held * c->buffer_size;
		else
			b->callers += (unsigned long long)n.held * c->buffer_size;
		add_shape_bytes(b, c, cache_shape(c), n.num_slabs - n.fallback_slabs);
		add_shape_bytes(b, c, c->fallback, n.fallback_slabs);
		b->free_objs += (unsigned long long)(n.num_objs - n.active_objs) * c->buffer_size;
		b->cached += (unsigned long long)n.cached * c->buffer_size;
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	b->large_bytes = (unsigned long long)atomic_long_read(&large_block_pages) * PAGE_SIZE;
	b->held += b->large_bytes;
}

/* ---- validator ------------------------------------------------------------- */

#define bad(c, fmt, ...) do {							\
	errors++;								\
	pr_err("slab: validate: %s: " fmt, (c)->common.name, ##__VA_ARGS__);	\
} while (0)

/* What the walk of one cache found; visit (if not NULL) is told of each
 * slab checked (the heap map). */
struct cache_walk {
	unsigned long slabs, fallback_slabs, free_objects, out;
	heap_visit_t visit;
	void *arg;
};

/* Is slabp an object of the internal cache d (NULL: none), out of its
 * slab?  (d's lock is not held: only the state word of a descriptor in
 * use is read, which nobody changes while its slab is on c's lists.) */
static int is_descriptor_object(struct kmem_cache *d, const struct page *page,
				const struct slab *slabp)
{
	const kmem_bufctl_t *state = d ? obj_bufctl(d, page, slabp) : NULL;

	return state && is_internal(d) && READ_ONCE(*state) == BUFCTL_OUT;
}

/* Is the descriptor address plausible: inside a slab of c (on-slab) or an
 * object of the descriptors' internal cache of either of c's shapes, out
 * of its slab (off-slab)?  Checked before any dereference, so a wild list
 * pointer is reported instead of followed; validate_slab_pages() then
 * checks the placement against the slab's own shape. */
static int slab_pointer_valid(struct kmem_cache *c, const struct slab *slabp)
{
	const struct page *page = virt_to_page(slabp);

	if (!page || !(page->flags & PG_slab))
		return 0;
	if (page->slab_cache == c)
		return page->slab == slabp;
	return is_descriptor_object(cache_shape(c).slabp_cache, page, slabp) ||
	       is_descriptor_object(c->fallback.slabp_cache, page, slabp);
}

/* Is the descriptor where the slab's shape puts it: after the colour, or
 * (a fallback slab) at the slab's start, or an object of the shape's
 * descriptor cache?  And do the objects start where they should: after a
 * colour (a multiple of colour_off below colour * colour_off) and the
 * on-slab descriptor, or (a fallback slab) so as to end with the slab? */
static int placement_valid(struct kmem_cache *c, struct slab *slabp,
			   const struct slab_shape *shape)
{
	char *start = slab_start(slabp);
	size_t mgmt = shape->slabp_cache ? 0 : shape->slab_size, colour;

	if (shape->slabp_cache && virt_to_page(slabp)->slab_cache != shape->slabp_cache)
		return 0;
	if (shape->order != c->gfporder)
		return slabp->colouroff == fallback_obj_offset(c) &&
		       (shape->slabp_cache || (char *)slabp == start);
	colour = slabp->colouroff - mgmt;
	return slabp->colouroff >= mgmt && colour % c->colour_off == 0 &&
	       colour / c->colour_off < max(c->colour, 1U) &&
	       (shape->slabp_cache || (char *)slabp == start + colour);
}

/* Checks the flags and back pointers of the slab's pages, its order (the
 * cache's or its fallback's: *shape gets the shape) and where its
 * descriptor and first object lie.  Returns the problems found; *skip is
 * set if the head page is wrong (then *shape is not: the slab's objects
 * cannot be checked).  c->lock held. */
static int validate_slab_pages(struct kmem_cache *c, struct slab *slabp,
			       struct slab_shape *shape, int *skip)
{
	char *start = slab_start(slabp);
	struct page *page = virt_to_page(start);
	unsigned long i;
	int errors = 0;

	assert_spin_held(&c->lock);
	*skip = 1;
	if (!page || !IS_ALIGNED((uintptr_t)start, PAGE_SIZE)) {
		bad(c, "slab %p: first object %p is not in a page-aligned slab\n",
		    (void *)slabp, slabp->s_mem);
		return errors;
	}
	if (!(page->flags & PG_head) ||
	    (page->order != c->gfporder && page->order != c->fallback.order)) {
		bad(c, "slab %p: head page flags %#x order %u, expected order %u (or %u)\n",
		    (void *)slabp, page->flags, page->order, c->gfporder, c->fallback.order);
		return errors;
	}
	*skip = 0;
	*shape = slab_shape(c, slabp);
	for (i = 0; i < (1UL << shape->order); i++)
		if (!(page[i].flags & PG_slab) || page[i].slab_cache != c ||
		    page[i].slab != slabp || page[i].s_mem != slabp->s_mem)
			bad(c, "slab %p: page %lu has flags %#x cache %p slab %p objects at %p\n",
			    (void *)slabp, i, page[i].flags, page[i].slab_cache, page[i].slab,
			    page[i].s_mem);
	if (!placement_valid(c, slabp, shape))
		bad(c, "slab %p of order %u: bad colour offset %zu or descriptor place\n",
		    (void *)slabp, shape->order, slabp->colouroff);
	return errors;
}

/* Checks the free chain (exactly num - inuse entries, in range, no loop)
 * and that every other object is out of the slab; counts them into w.
 * num: the slab's objects.  c->lock held: the states are stable (only
 * refills and flushes change them, under it). */
static int validate_slab_objects(struct kmem_cache *c, struct slab *slabp, unsigned int num,
				 struct cache_walk *w)
{
	kmem_bufctl_t *bufctl = slab_bufctl(slabp), idx;
	unsigned int i, nfree = 0, out = 0;
	int errors = 0;

	assert_spin_held(&c->lock);
	if (slabp->inuse > num) {	/* would unbound the walk below */
		bad(c, "slab %p: inuse %u of %u objects\n", (void *)slabp, slabp->inuse, num);
		return errors;
	}
	for (idx = slabp->free; idx != BUFCTL_END; idx = bufctl[idx]) {
		if (idx >= num || ++nfree > num - slabp->inuse) {
			bad(c, "slab %p: free chain runs to %#x (inuse %u, num %u): loop or "
			    "bad index\n", (void *)slabp, idx, slabp->inuse, num);
			return errors;
		}
	}
	for (i = 0; i < num; i++)
		out += bufctl[i] == BUFCTL_OUT;
	if (nfree != num - slabp->inuse || out != slabp->inuse)
		bad(c, "slab %p: inuse %u, but %u free and %u out of the slab\n",
		    (void *)slabp, slabp->inuse, nfree, out);
	w->out += out;
	w->free_objects += num - slabp->inuse;
	return errors;
}

/* The slab lists, and how full a slab on each must be. */
enum slab_list { LIST_FULL, LIST_PARTIAL, LIST_FREE };

/* Walks one slab list: each slab's fill must match the list.  c->lock held. */
static int validate_list(struct kmem_cache *c, struct list_head *head, enum slab_list which,
			 const char *what, struct cache_walk *w)
{
	static const char *const want[] = { "all", "some", "none" };
	struct list_head *pos;
	int errors = 0;

	assert_spin_held(&c->lock);
	for (pos = head->next; pos != head; pos = pos->next) {
		struct slab *slabp = list_entry(pos, struct slab, list);
		struct slab_shape shape;
		int skip, fill_ok;

		if (++w->slabs > c->num_slabs + 1 || !slab_pointer_valid(c, slabp)) {
			bad(c, "%s list is corrupt at %p\n", what, (void *)slabp);
			return errors;
		}
		errors += validate_slab_pages(c, slabp, &shape, &skip);
		if (skip)
			continue;
		w->fallback_slabs += shape.order != c->gfporder;
		fill_ok = which == LIST_FULL ? slabp->inuse == shape.num :
			  which == LIST_FREE ? slabp->inuse == 0 :
			  slabp->inuse > 0 && slabp->inuse < shape.num;
		if (!fill_ok)
			bad(c, "slab %p with %u of %u objects in use is on the %s list (%s in use)\n",
			    (void *)slabp, slabp->inuse, shape.num, what, want[which]);
		errors += validate_slab_objects(c, slabp, shape.num, w);
		if (w->visit)
			w->visit(w->arg, c->common.name, 1UL << shape.order, slabp->inuse, shape.num);
	}
	return errors;
}

/*
 * The rule for checks across CPUs.  The validator holds c->lock, which
 * fixes the slab lists, each slab's free chain, inuse and object states,
 * and the counters; other CPUs' fast paths go on without it, popping and
 * pushing their own magazines (avail, entries).  So what another CPU may
 * be changing is checked only for what holds at every instant:
 *  - a magazine's avail never exceeds its limit;
 *  - every entry another CPU's magazine shows below a snapshot of avail
 *    (or stores there since) is an object of c out of its slab: objects go
 *    back to their slabs only under c->lock, which we hold, and a new
 *    slab's objects are published after its pages are mapped and its
 *    states written (ac_set_avail());
 *  - an object seen twice is checked only in this CPU's magazine and in
 *    those of offline CPUs (validate_array()), which nothing changes
 *    meanwhile: each CPU checks its own after its own operations.
 */
static int validate_remote_array(struct kmem_cache *c, struct array_cache *ac, unsigned int cpu)
{
	unsigned int i, avail = ac_avail(ac);
	int errors = 0;

	assert_spin_held(&c->lock);
	if (avail > ac->limit) {
		bad(c, "cpu %u magazine holds %u of %u entries\n", cpu, avail, ac->limit);
		return errors;
	}
	for (i = 0; i < avail; i++) {
		void *objp = ac_entry_read(ac, i);
		kmem_bufctl_t *state = obj_bufctl(c, virt_to_page(objp), objp);

		if (!state)
			bad(c, "cpu %u magazine entry %u (%p) is not an object of the cache\n", cpu,
			    i, objp);
		else if (*state != BUFCTL_OUT)
			bad(c, "cpu %u magazine entry %u (%p) is free in its slab\n", cpu, i, objp);
	}
	return errors;
}

/*
 * Checks that every entry of this CPU's ac is an object of c out of its
 * slab, and appears once: each entry's state is flipped to BUFCTL_MARK as
 * it is seen (a second sighting finds the mark) and put back afterwards.
 * c->lock held, interrupts off: nobody else reads the states meanwhile.
 */
static int validate_array(struct kmem_cache *c, struct array_cache *ac, unsigned int cpu)
{
	kmem_bufctl_t *state;
	unsigned int i;
	int errors = 0;

	assert_irqs_disabled();
	assert_spin_held(&c->lock);
	if (ac->avail > ac->limit) {
		bad(c, "cpu %u magazine holds %u of %u entries\n", cpu, ac->avail, ac->limit);
		return errors;
	}
	for (i = 0; i < ac->avail; i++) {
		void *objp = ac->entry[i];

		state = obj_bufctl(c, virt_to_page(objp), objp);
		if (!state)
			bad(c, "cpu %u magazine entry %u (%p) is not an object of the cache\n", cpu,
			    i, objp);
		else if (*state == BUFCTL_MARK)
			bad(c, "cpu %u magazine entry %u (%p) appears twice\n", cpu, i, objp);
		else if (*state != BUFCTL_OUT)
			bad(c, "cpu %u magazine entry %u (%p) is free in its slab\n", cpu, i, objp);
		else
			*state = BUFCTL_MARK;
	}
	for (i = 0; i < ac->avail; i++) {
		state = obj_bufctl(c, virt_to_page(ac->entry[i]), ac->entry[i]);
		if (state && *state == BUFCTL_MARK)
			*state = BUFCTL_OUT;
	}
	return errors;
}

/* Checks the lists, slabs, magazines and counters of c.  c->lock held. */
static int validate_cache(struct kmem_cache *c)
{
	struct cache_walk w = { 0, 0, 0, 0, NULL, NULL };
	struct slab_counts n;
	unsigned int cpu;
	int errors = 0;

	assert_spin_held(&c->lock);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		errors += cpu == smp_processor_id() || !cpu_online(cpu) ?
			  validate_array(c, c->array[cpu], cpu) :
			  validate_remote_array(c, c->array[cpu], cpu);
	errors += validate_list(c, &c->slabs_full, LIST_FULL, "full", &w);
	errors += validate_list(c, &c->slabs_partial, LIST_PARTIAL, "partial", &w);
	errors += validate_list(c, &c->slabs_free, LIST_FREE, "free", &w);
	if (errors)
		return errors;
	cache_get_counts(c, &n);
	if (w.slabs != c->num_slabs || w.fallback_slabs != c->fallback_slabs ||
	    w.free_objects != c->free_objects)
		bad(c, "lists hold %lu slabs (%lu fallback) with %lu free objects, counters say "
		    "%lu (%lu) and %lu\n", w.slabs, w.fallback_slabs, w.free_objects, c->num_slabs,
		    c->fallback_slabs, c->free_objects);
	if (w.out != n.active_objs)
		bad(c, "%lu objects out of the slabs, counters say %lu\n", w.out, n.active_objs);
	return errors;
}

int kmem_validate(void)
{
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;
	int errors = 0;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos) {
		spin_lock(&c->lock);
		errors += validate_cache(c);
		spin_unlock(&c->lock);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	return errors + large_blocks_validate();
}

/* The heap map's visit: the validator's walk of each cache's slab lists
 * (full, partial, free), under the report's locks. */
void kmem_heap_visit(heap_visit_t visit, void *arg)
{
	struct kmem_cache *c;
	struct list_head *pos;
	unsigned long save;

	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_cache(c, pos) {
		struct cache_walk w = { 0, 0, 0, 0, visit, arg };

		spin_lock(&c->lock);
		validate_list(c, &c->slabs_full, LIST_FULL, "full", &w);
		validate_list(c, &c->slabs_partial, LIST_PARTIAL, "partial", &w);
		validate_list(c, &c->slabs_free, LIST_FREE, "free", &w);
		spin_unlock(&c->lock);
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
}

/* The objects in the CPUs' magazines (slab_get_breakdown()'s cached). */
unsigned long kmem_cached_bytes(void)
{
	struct slab_breakdown b;

	slab_get_breakdown(&b);
	return (unsigned long)b.cached;
}
