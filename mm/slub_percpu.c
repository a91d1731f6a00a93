/* slub_percpu.c - what SLUB's two per-CPU layers (CPU slabs, mm/slub_cpu.c,
 * and sheaves, mm/slub_sheaves.c) share and SLUB_TINY does without: the
 * chunks their per-CPU structs live in, each handle's per-CPU count of the
 * objects in use through it, and the free of an object to its slab by
 * compare-and-exchange (free_to_slab()).
 *
 * Chunks.  A per-CPU struct is a slot of four words whose copies lie
 * ARCH_PERCPU_STRIDE bytes apart (<arch/percpu.h>); the slots of several
 * caches share a stride (4 on i386: 16 bytes each), and a chunk of
 * NR_CPUS strides is cut from a whole page.  A cache takes two slots (its
 * layer's struct and its count), an alias one (its count).  The pages are
 * counted in Slab: (slub_mode_pages()) and given back by kmem_reclaim()
 * once no slot of theirs is used.
 *
 * Counts.  A handle's count is the objects allocated less those freed
 * through it on each CPU: one add of this CPU's copy in any context, no
 * lock; their sum is exact while nobody allocates.
 *
 * Frees to slabs, as Linux's __slab_free(): an object that no CPU's cache
 * takes goes to its slab's free list by compare-and-exchange of the
 * slab's state, in any context, with list_lock only when the slab
 * changes lists (a full slab gets a free object, a slab becomes empty).
 *
 * Lock order: slub.c's; percpu_lock (the free slots, each page's count) is
 * taken alone, with interrupts off.
 */
#include <tiny/kernel.h>
#include "slub.h"

/* The two per-CPU layers' common defaults (SLUB_TINY has its own). */
const char kmem_allocator_name[] = "SLUB";
const unsigned int slub_default_max_order = 3;	/* Linux's PAGE_ALLOC_COSTLY_ORDER */

#define MIN_PARTIAL	5
#define MAX_PARTIAL	10

/* As Linux: more empty slabs kept for larger objects, 5 to 10. */
unsigned long slub_min_partial(size_t size)
{
	unsigned long half_log = (8 * sizeof(long) - 1 - (unsigned long)__builtin_clzl(size)) / 2;

	return min_t(unsigned long, MAX_PARTIAL, max_t(unsigned long, MIN_PARTIAL, half_log));
}

#define CHUNK_BYTES	(NR_CPUS * ARCH_PERCPU_STRIDE)
#define SLOTS_PER_STRIDE (ARCH_PERCPU_STRIDE / sizeof(struct slub_percpu_slot))
_Static_assert(ARCH_PERCPU_STRIDE % sizeof(struct slub_percpu_slot) == 0,
	       "per-CPU slots must pack a per-CPU stride");
_Static_assert(CHUNK_BYTES <= PAGE_SIZE, "a chunk of NR_CPUS strides must fit a page");

static DEFINE_SPINLOCK(percpu_lock);	/* the lists below, each page's count */
static LIST_HEAD(percpu_pages);		/* pages of chunks, on page->lru */
static struct slub_percpu_slot *free_slots;	/* CPU 0's copies of free slots,
						 * linked by next */
static atomic_long_t nr_percpu_pages;

/* Cuts a fresh page into chunks and their slots onto free_slots.
 * percpu_lock held. */
static void carve_percpu_page(struct page *page)
{
	char *base = (char *)slab_base(page);
	unsigned int chunk, slot;

	assert_spin_held(&percpu_lock);
	page->slots_used = 0;
	list_add(&page->lru, &percpu_pages);
	for (chunk = 0; chunk < PAGE_SIZE / CHUNK_BYTES; chunk++)
		for (slot = 0; slot < SLOTS_PER_STRIDE; slot++) {
			struct slub_percpu_slot *s = (struct slub_percpu_slot *)
				(base + chunk * CHUNK_BYTES) + slot;

			s->next = free_slots;
			free_slots = s;
		}
}

void *slub_percpu_alloc(void)
{
	struct slub_percpu_slot *s;
	struct page *page = NULL;
	unsigned long save;
	unsigned int cpu;

	spin_lock_irqsave(&percpu_lock, save);
	if (!free_slots) {
		spin_unlock_irqrestore(&percpu_lock, save);
		page = alloc_pages(GFP_KERNEL, 0);
		if (!page)
			return NULL;
		atomic_long_inc(&nr_percpu_pages);
		spin_lock_irqsave(&percpu_lock, save);
		carve_percpu_page(page);
	}
	s = free_slots;
	free_slots = s->next;
	managed_virt_to_page(s)->slots_used++;
	spin_unlock_irqrestore(&percpu_lock, save);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		memset(arch_per_cpu_ptr(arch_percpu_off(s), cpu), 0, sizeof(*s));
	return s;
}

void slub_percpu_free(void *slot)
{
	struct slub_percpu_slot *s = slot;
	unsigned long save;

	spin_lock_irqsave(&percpu_lock, save);
	s->next = free_slots;
	free_slots = s;
	managed_virt_to_page(s)->slots_used--;
	spin_unlock_irqrestore(&percpu_lock, save);
}

/* Is slot s in the page at base? */
static int slot_in(const struct slub_percpu_slot *s, uintptr_t base)
{
	return (uintptr_t)s - base < PAGE_SIZE;
}

/* Takes the slots of the page at base off free_slots.  percpu_lock held. */
static void unlink_slots(uintptr_t base)
{
	struct slub_percpu_slot **pp = &free_slots;

	assert_spin_held(&percpu_lock);
	while (*pp)
		if (slot_in(*pp, base))
			*pp = (*pp)->next;
		else
			pp = &(*pp)->next;
}

unsigned long slub_mode_reclaim(void)
{
	struct page *page, *n;
	unsigned long save, freed = 0;
	LIST_HEAD(empty);

	spin_lock_irqsave(&percpu_lock, save);
	list_for_each_entry_safe(page, n, &percpu_pages, lru)
		if (!page->slots_used) {
			unlink_slots(slab_base(page));
			list_move(&page->lru, &empty);
		}
	spin_unlock_irqrestore(&percpu_lock, save);
	list_for_each_entry_safe(page, n, &empty, lru) {
		list_del(&page->lru);
		__free_pages(page, 0);
		atomic_long_dec(&nr_percpu_pages);
		freed++;
	}
	return freed;
}

unsigned long slub_mode_pages(void)
{
	return (unsigned long)atomic_long_read(&nr_percpu_pages);
}

/* ---- each handle's count of objects in use ----------------------------------------- */

int slub_count_open(struct kmem_cache *h)
{
	void *slot = slub_percpu_alloc();

	if (!slot)
		return -1;
	h->cpu.count = arch_percpu_off(slot);	/* its first word, zeroed */
	return 0;
}

void slub_count_close(struct kmem_cache *h)
{
	slub_percpu_free(arch_per_cpu_ptr(h->cpu.count, 0));
}

long slub_objects_in_use(const struct kmem_cache *c)
{
	unsigned int cpu;
	long n = 0;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		n += READ_ONCE(*(long *)arch_per_cpu_ptr(c->cpu.count, cpu));
	return n;
}

/* ---- frees to slabs ----------------------------------------------------------------- */

/* Frees obj (index idx) to its slab at base, no CPU's own: Linux's
 * __slab_free().  The slab's state changes by compare-and-exchange; the
 * list_lock is taken only when the slab changes lists: a full slab that
 * gets a free object is frozen for this CPU where the mode keeps per-CPU
 * partial slabs (slub_freeze_full_slab()), else it joins the partial
 * list; an unfrozen slab that becomes empty leaves if the list holds
 * min_partial.  NULL, or why obj is refused (nothing changed).  marked: a
 * checker was told already.  Interrupts off. */
const char *free_to_slab(struct kmem_cache *c, void *obj, uintptr_t base, unsigned int idx,
			 int marked)
{
	struct page *page = slab_page(base);
	unsigned int inuse;
	int locked = 0, freeze, frozen;
	u32 old = slab_state(page);
	void *prior;

	assert_irqs_disabled();
	for (;;) {
		if (locked) {
			spin_unlock(&c->list_lock);
			locked = 0;
		}
		if (state_free(old) == idx)
			return JUST_FREED;
		if (!state_inuse(old))
			return ALL_FREE;
		prior = state_freelist(c, base, old);
		if (!marked) {		/* a checker hears of it once, retries or not */
			slub_mark_freed(c, obj);
			marked = 1;
		}
		set_freepointer(c, obj, prior);
		inuse = state_inuse(old) - 1;
		frozen = state_frozen(old);
		freeze = slub_freezes_full_slabs && !frozen && !prior;	/* ours now */
		if (!frozen && !freeze && (!prior || !inuse)) {	/* changes lists? */
			spin_lock(&c->list_lock);
			locked = 1;
		}
		if (slab_state_cmpxchg(page, &old, make_state(idx, inuse, frozen || freeze)))
			break;
	}
	if (freeze)
		slub_freeze_full_slab(c, page);
	if (!locked)
		return NULL;
	if (!inuse && c->nr_partial >= c->min_partial) {
		if (prior)
			remove_partial(c, page);
		spin_unlock(&c->list_lock);
		discard_slab(c, page);
		return NULL;
	}
	if (!prior)
		add_partial(c, page, 1);
	spin_unlock(&c->list_lock);
	return NULL;
}
