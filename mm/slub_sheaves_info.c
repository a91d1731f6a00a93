/* slub_sheaves_info.c - the validator's checks of SLUB's sheaves
 * (CONFIG_SLUB_SHEAVES), apart from mm/slub_sheaves.c so that size(1) of
 * that object measures the layer.  Checked for a cache: this CPU's main
 * and spare (sizes within their capacity, every object an object's start
 * on a slab of the cache), the barn (its counts are its lists' lengths,
 * within Linux's limits; a full sheaf is full, an empty one empty), and,
 * with one CPU online and the cache's flag not taken here, that every
 * object of the cache is exactly once in use, in a sheaf or free on a
 * partial slab: none lost, none counted twice.  slab_caches_lock held,
 * interrupts off.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include "slub.h"

#define bad(c, fmt, ...) do {							\
	errors++;								\
	pr_err("slub: validate: %s: sheaves: " fmt, (c)->common.name, ##__VA_ARGS__);	\
} while (0)

/* One sheaf of c: its size and its objects; full or empty as told (-1:
 * either). */
static int validate_sheaf(struct kmem_cache *c, const struct slub_sheaf *s, int full,
			  const char *which)
{
	unsigned int i, size = READ_ONCE(s->size);
	uintptr_t base;
	int errors = 0;

	if (size > s->capacity || (s->capacity && s->capacity != READ_ONCE(c->barn.capacity)))
		bad(c, "%s: size %u, capacity %u (the cache's: %u)\n", which, size, s->capacity,
		    READ_ONCE(c->barn.capacity));
	else if ((full == 1 && size != s->capacity) || (full == 0 && size))
		bad(c, "%s: %u objects in a sheaf the barn has as %s\n", which, size,
		    full ? "full" : "empty");
	for (i = 0; !errors && i < size; i++) {
		const void *obj = s->objects[i];
		struct page *page = virt_to_page(obj);

		if (!page || !(READ_ONCE(page->flags) & PG_slab) ||
		    READ_ONCE(page->slab_cache) != c ||
		    slub_obj_check(c, READ_ONCE(page->flags), obj, &base) < 0)
			bad(c, "%s: objects[%u] = %p is no object of the cache\n", which, i, obj);
	}
	return errors;
}

/* The barn's list (full or empty) of n sheaves. */
static int validate_barn_list(struct kmem_cache *c, struct list_head *list, unsigned int n,
			      int full, unsigned long *objects)
{
	const struct slub_sheaf *s;
	unsigned int listed = 0;
	int errors = 0;

	list_for_each_entry(s, list, barn_list) {
		if (++listed > n)
			break;
		errors += validate_sheaf(c, s, full, full ? "barn, full" : "barn, empty");
		*objects += s->size;
	}
	if (listed != n || n > 10)
		bad(c, "barn: %u %s sheaves listed, its count says %u (at most 10)\n", listed,
		    full ? "full" : "empty", n);
	return errors;
}

int slub_sheaves_validate(struct kmem_cache *c, unsigned long node_free)
{
	struct slub_pcs *pcs = arch_this_cpu_ptr(c->cpu.sheaves);
	unsigned long objects = 0, total;
	long in_use;
	int errors = 0;

	assert_irqs_disabled();
	errors += validate_sheaf(c, pcs->main, -1, "this CPU's main");
	if (pcs->spare)
		errors += validate_sheaf(c, pcs->spare, -1, "this CPU's spare");
	spin_lock(&c->barn.lock);
	errors += validate_barn_list(c, &c->barn.full, c->barn.nr_full, 1, &objects);
	errors += validate_barn_list(c, &c->barn.empty, c->barn.nr_empty, 0, &objects);
	spin_unlock(&c->barn.lock);
	if (errors || num_online_cpus() != 1 || pcs->locked)
		return errors;
	objects += pcs->main->size + (pcs->spare ? pcs->spare->size : 0);
	in_use = slub_target_in_use(c);
	total = (unsigned long)atomic_long_read(&c->total_objects);
	if ((unsigned long)in_use + objects + node_free != total)
		bad(c, "%ld objects in use, %lu in sheaves, %lu free on partial slabs: %lu, "
		    "of %lu objects\n", in_use, objects, node_free,
		    (unsigned long)in_use + objects + node_free, total);
	return errors;
}
