/* slub_tiny.c - SLUB_TINY (CONFIG_SLUB_TINY): SLUB for the smallest
 * machines, as Linux 6.2 defined it for SLOB's users: "minimal memory
 * footprint, sacrificing scalability".
 *
 * No per-CPU state at all: no CPU slab, no per-CPU partial list, no
 * lockless fast path.  Every allocation takes the first object of the
 * first slab on the cache's partial list, and every free puts an object
 * back on its slab's list, under list_lock with interrupts off; a slab
 * made full leaves the list, one that gets a free object back joins it at
 * the tail.  Empty slabs are not kept (min_partial 0): the free that
 * empties a slab gives it back to the page allocator.  Slab orders go up to
 * 1 by default (slub_max_order= changes it, as in the 2022 thread), cache
 * merging stays on, and there are no statistics beyond the counts every
 * configuration keeps; nothing is forced inline.  The double free that
 * this catches is the object at the head of its slab's list (the one
 * freed last there) and a free to a slab whose objects are all free.
 *
 * Lock order: slub.c's.  list_lock guards the partial list, every slab's
 * state and the count of objects in use.
 */
#include <tiny/kernel.h>
#include "slub.h"

const char kmem_allocator_name[] = "SLUB_TINY";
const unsigned int slub_default_max_order = 1;

unsigned long slub_min_partial(size_t size)
{
	(void)size;
	return 0;
}

int slub_cpu_open(struct kmem_cache *c)
{
	c->inuse = 0;
	return 0;
}

void slub_cpu_close(struct kmem_cache *c)
{
	(void)c;
}

int slub_flush(struct kmem_cache *c)
{
	(void)c;
	return 1;
}

int slub_cpu_holds_slabs(const struct kmem_cache *c)
{
	(void)c;
	return 0;
}

long slub_objects_in_use(const struct kmem_cache *c)
{
	return READ_ONCE(c->inuse);
}

/* Counts n objects more in use through handle h.  The target's list_lock
 * held (every handle of one target shares it). */
static void handle_count(struct kmem_cache *c, struct kmem_cache *h, long n)
{
	assert_spin_held(&c->list_lock);
	WRITE_ONCE(h->inuse, h->inuse + n);
}

unsigned long slub_mode_pages(void)
{
	return 0;
}

unsigned long slub_mode_reclaim(void)
{
	return 0;
}

/* Takes the first free object of page, a slab of c with one, for handle
 * h; the slab leaves the partial list once full.  list_lock held. */
static void *take_object(struct kmem_cache *c, struct kmem_cache *h, struct page *page,
			 int listed)
{
	uintptr_t base = slab_base(page);
	u32 s = page->counters;
	void *obj = state_freelist(c, base, s), *next = get_freepointer(c, obj);

	assert_spin_held(&c->list_lock);
	slab_state_set(page, make_state(freelist_index(c, base, next), state_inuse(s) + 1, 0));
	if (listed && !next)
		remove_partial(c, page);
	else if (!listed && next)
		add_partial(c, page, 0);
	handle_count(c, h, 1);
	return obj;
}

void *slub_alloc(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	struct page *page;
	unsigned long save;
	void *obj = NULL;

	spin_lock_irqsave(&c->list_lock, save);
	if (!list_empty(&c->partial))
		obj = take_object(c, h, list_first_entry(&c->partial, struct page, lru), 1);
	spin_unlock_irqrestore(&c->list_lock, save);
	if (!obj) {
		page = new_slab(c, flags);
		if (!page)
			return NULL;
		spin_lock_irqsave(&c->list_lock, save);
		obj = take_object(c, h, page, 0);
		spin_unlock_irqrestore(&c->list_lock, save);
	}
	return slub_post_alloc(c, h, obj, flags);
}

const char *slub_free(struct kmem_cache *c, struct kmem_cache *h, void *obj, uintptr_t base,
		      unsigned int idx)
{
	struct page *page = slab_page(base);
	unsigned long save;
	unsigned int inuse;
	void *prior;
	u32 s;

	spin_lock_irqsave(&c->list_lock, save);
	s = page->counters;
	if (state_free(s) == idx || !state_inuse(s)) {
		spin_unlock_irqrestore(&c->list_lock, save);
		return state_free(s) == idx ? JUST_FREED : ALL_FREE;
	}
	prior = state_freelist(c, base, s);
	slub_mark_freed(c, obj);
	set_freepointer(c, obj, prior);
	inuse = state_inuse(s) - 1;
	slab_state_set(page, make_state(idx, inuse, 0));
	handle_count(c, h, -1);
	if (!inuse && c->nr_partial >= c->min_partial) {
		if (prior)
			remove_partial(c, page);
		spin_unlock_irqrestore(&c->list_lock, save);
		discard_slab(c, page);
		return NULL;
	}
	if (!prior)
		add_partial(c, page, 1);
	spin_unlock_irqrestore(&c->list_lock, save);
	return NULL;
}

int slub_just_freed(struct kmem_cache *c, const void *obj, uintptr_t base)
{
	unsigned long save;
	int just;

	spin_lock_irqsave(&c->list_lock, save);
	just = state_free(slab_page(base)->counters) == slab_obj_index(c, base, obj);
	spin_unlock_irqrestore(&c->list_lock, save);
	return just;
}
