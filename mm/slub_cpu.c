/* slub_cpu.c - SLUB's per-CPU slabs and their lockless fast path
 * (CONFIG_SLUB_CPU_SLAB).
 *
 * CPU slabs.  Each CPU allocates from a slab of its own, frozen: the CPU
 * took the slab's whole free list (its state says every object is in
 * use) and keeps it as its free list in struct kmem_cache_cpu, which it
 * alone changes.  Other CPUs free to the slab's own free list in
 * struct page meanwhile; the CPU takes that list when its own runs out.
 *
 * Fast path.  An allocation pops this CPU's free list, and a free of an
 * object of this CPU's slab pushes it, with one double-word
 * compare-and-exchange of {freelist, tid} on this CPU's copy
 * (<arch/percpu.h>: cmpxchg8b %fs:..., no lock prefix, interrupts on),
 * as Linux's this_cpu_cmpxchg_double.  The transaction id is read first
 * and changes with every change of the list, so an interrupt that
 * allocates or frees here between the reads and the exchange makes it
 * fail, and the path starts again.  The slab is known by its first byte
 * (kmem_cache_cpu.slab), which the free finds from the pointer alone.  A
 * per-CPU count of objects allocated less freed through each handle (one
 * add, no lock either) makes each cache's objects in use exact without a
 * walk.
 *
 * Slow paths, with interrupts off (no lock for this CPU's own data):
 * refill from the CPU slab's list in struct page, then the CPU's partial
 * slabs, then the cache's partial list (taking a slab, and more for the
 * CPU's partial list up to half its limit), then a new slab.  The CPU slab
 * given up (deactivated) gets the CPU's free list back and is unfrozen:
 * to the partial list, freed if empty and the list holds min_partial
 * slabs, or on no list if full.  A free to any other slab goes through
 * slub.c's free_to_slab(), Linux's __slab_free(): a full slab that gets a
 * free object is frozen and goes to this CPU's partial list
 * (slub_freeze_full_slab()); a slab on the partial list that becomes
 * empty goes if the list holds min_partial.
 *
 * Per-CPU partial lists, as Linux 6.1: at most cpu_partial.limit slabs
 * (the slabs that hold 6, 24, 52 or 120 objects half full, by object
 * size); a CPU that would go over gives its whole list back to the node
 * first.  The list's head is in the CPU's kmem_cache_cpu, as Linux's, so
 * that no two CPUs write one cache line.  Shrink, destroy and reclaim ask
 * every CPU to give its CPU slab
 * and partial list back (on_each_cpu()); with interrupts off only this
 * CPU can (then a destroy refuses if another CPU holds a slab of the
 * cache).
 *
 * The fast paths are inline in mm/slub_caches.c's entry points (mm/slub_cpu.h):
 * a call less on every allocation and free.
 *
 * Per-CPU data.  struct kmem_cache_cpu is Linux's 4 words (freelist, tid,
 * slab, partial); copies of it lie ARCH_PERCPU_STRIDE bytes apart, and the
 * structs of several caches share a stride (4 on i386: 16 bytes each).
 * Each handle's count of objects in use takes a slot of the same size
 * (an alias has only that one), so a cache costs 32 bytes a CPU and an
 * alias 16, not a stride (mm/slub_percpu.c keeps the chunks, from whole
 * pages counted in Slab:).
 *
 * Lock order: slub.c's; percpu_lock (mm/slub_percpu.c) is taken alone.
 * Interrupts off: a CPU's kmem_cache_cpu outside the fast path, its
 * partial list, and the slab states it changes while it frees.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include "slub.h"

/* ---- per-CPU data (mm/slub_percpu.c) ------------------------------------------- */

_Static_assert(sizeof(struct kmem_cache_cpu) == sizeof(struct slub_percpu_slot),
	       "struct kmem_cache_cpu must fill a per-CPU slot");

/* A slot for a cache's kmem_cache_cpu, every CPU's copy zeroed but for the
 * tid; NULL if out of memory.  Process context, or boot. */
static struct kmem_cache_cpu *slot_alloc(void)
{
	struct kmem_cache_cpu *s = slub_percpu_alloc();
	unsigned int cpu;

	for (cpu = 0; s && cpu < NR_CPUS; cpu++) {
		struct kmem_cache_cpu *copy = arch_per_cpu_ptr(arch_percpu_off(s), cpu);

		copy->tid = cpu;
	}
	return s;
}

/* ---- the CPU's own part of a cache --------------------------------------------------- */

/* This CPU's kmem_cache_cpu of c, for code with interrupts off. */
static inline struct kmem_cache_cpu *this_cpu_slab(const struct kmem_cache *c)
{
	assert_irqs_disabled();
	return arch_this_cpu_ptr(c->cpu.slab);
}

static inline struct kmem_cache_cpu *per_cpu_slab(const struct kmem_cache *c, unsigned int cpu)
{
	return arch_per_cpu_ptr(c->cpu.slab, cpu);
}

/* A new free list and tid for this CPU's slab: with interrupts off, so no
 * fast path here runs in between (one that an interrupt cut sees the tid
 * changed). */
static void cpu_set_freelist(struct kmem_cache_cpu *kcc, void *freelist)
{
	assert_irqs_disabled();
	WRITE_ONCE(kcc->freelist, freelist);
	WRITE_ONCE(kcc->tid, next_tid(kcc->tid));
}

/* Counts n objects more in use through handle h on this CPU: one add, in
 * any context. */
static void handle_count(const struct kmem_cache *h, long n)
{
	arch_this_cpu_add(h->cpu.count, n);
}

int slub_cpu_open(struct kmem_cache *c)
{
	struct kmem_cache_cpu *s = NULL;
	unsigned int objects;

	if (slub_count_open(c))
		return -1;
	if (!is_alias(c) && !(s = slot_alloc())) {
		slub_count_close(c);
		return -1;
	}
	c->cpu.slab = s ? arch_percpu_off(s) : 0;
	if (c->size >= PAGE_SIZE)
		objects = 6;
	else if (c->size >= 1024)
		objects = 24;
	else if (c->size >= 256)
		objects = 52;
	else
		objects = 120;
	c->cpu_partial.limit = DIV_ROUND_UP(objects * 2, c->oo[0].objects);
	return 0;
}

void slub_cpu_close(struct kmem_cache *c)
{
	slub_count_close(c);
	if (c->cpu.slab)
		slub_percpu_free(per_cpu_slab(c, 0));
}

int slub_cpu_holds_slabs(const struct kmem_cache *c)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (READ_ONCE(per_cpu_slab(c, cpu)->slab) || READ_ONCE(per_cpu_slab(c, cpu)->partial))
			return 1;
	return 0;
}

/* ---- slabs changing hands (interrupts off) ----------------------------------------- */

/* Takes the free list of page, this CPU's slab: every object is then this
 * CPU's; the slab stays frozen if there was one, else it is full and on
 * no list, unfrozen (a later free freezes it again).  Returns the list. */
static void *get_freelist(struct kmem_cache *c, struct page *page)
{
	u32 old = slab_state(page), new;

	assert_irqs_disabled();
	do
		new = make_state(SLUB_FREE_NONE, slab_objects(c, page),
				 state_free(old) != SLUB_FREE_NONE);
	while (!slab_state_cmpxchg(page, &old, new));
	return state_freelist(c, slab_base(page), old);
}

/* Gives this CPU's list of partial slabs back to the node: each unfrozen,
 * to the partial list, or freed if empty while the list holds
 * min_partial. */
static void unfreeze_partials(struct kmem_cache *c, struct page *list)
{
	struct page *page, *discard = NULL;
	u32 old;

	assert_irqs_disabled();
	spin_lock(&c->list_lock);
	while ((page = list)) {
		list = page->next;
		old = slab_state(page);
		while (!slab_state_cmpxchg(page, &old, old & ~SLUB_FROZEN))
			;
		if (!state_inuse(old) && c->nr_partial >= c->min_partial) {
			page->next = discard;
			discard = page;
		} else {
			add_partial(c, page, 1);
		}
	}
	spin_unlock(&c->list_lock);
	while ((page = discard)) {
		discard = page->next;
		discard_slab(c, page);
	}
}

/* Puts page, frozen by this CPU, on its partial list; with drain, a full
 * list goes back to the node first. */
static void put_cpu_partial(struct kmem_cache *c, struct page *page, int drain)
{
	struct kmem_cache_cpu *kcc = this_cpu_slab(c);
	struct page *old = kcc->partial, *to_unfreeze = NULL;

	assert_irqs_disabled();
	if (old && drain && old->slabs >= c->cpu_partial.limit) {
		to_unfreeze = old;
		old = NULL;
	}
	page->slabs = old ? old->slabs + 1 : 1;
	page->next = old;
	WRITE_ONCE(kcc->partial, page);
	if (to_unfreeze)
		unfreeze_partials(c, to_unfreeze);
}

/* Freezes page, on the partial list, for this CPU and takes it off the
 * list; with take, its free list too (returned: never empty there), else
 * it keeps it (returns non-NULL).  list_lock held. */
static void *acquire_slab(struct kmem_cache *c, struct page *page, int take)
{
	u32 old = slab_state(page), new;

	assert_spin_held(&c->list_lock);
	do
		new = take ? make_state(SLUB_FREE_NONE, slab_objects(c, page), 1) :
			     old | SLUB_FROZEN;
	while (!slab_state_cmpxchg(page, &old, new));
	remove_partial(c, page);
	return state_freelist(c, slab_base(page), old);
}

/* A slab from the partial list for this CPU, frozen, its free list in
 * *freelist; more go to the CPU's partial list, up to half its limit.
 * NULL if the list is empty. */
static struct page *get_partial(struct kmem_cache *c, void **freelist)
{
	struct page *page, *n, *got = NULL;
	unsigned int more = 0;

	assert_irqs_disabled();
	if (!READ_ONCE(c->nr_partial))
		return NULL;
	spin_lock(&c->list_lock);
	list_for_each_entry_safe(page, n, &c->partial, lru) {
		void *list = acquire_slab(c, page, !got);

		if (!got) {
			got = page;
			*freelist = list;
		} else {
			put_cpu_partial(c, page, 0);
			more++;
		}
		if (more > c->cpu_partial.limit / 2)
			break;
	}
	spin_unlock(&c->list_lock);
	return got;
}

/* Unfreezes page, given up as this CPU's slab, with freelist (this CPU's
 * list of its objects) spliced before its own: to the partial list, freed
 * if empty and the list holds min_partial, or on no list if full. */
static void deactivate_slab(struct kmem_cache *c, struct page *page, void *freelist)
{
	enum { TO_PARTIAL, TO_FREE, FULL } mode;
	uintptr_t base = slab_base(page);
	unsigned int nfree = 0, inuse;
	void *tail = NULL, *p, *head;
	int locked = 0;
	u32 old, new;

	assert_irqs_disabled();
	for (p = freelist; p; p = get_freepointer(c, p)) {
		tail = p;
		nfree++;
	}
	old = slab_state(page);
	for (;;) {
		inuse = state_inuse(old) - nfree;
		head = state_freelist(c, base, old);
		if (tail) {
			set_freepointer(c, tail, head);
			head = freelist;
		}
		new = make_state(freelist_index(c, base, head), inuse, 0);
		if (!inuse && READ_ONCE(c->nr_partial) >= c->min_partial)
			mode = TO_FREE;
		else if (head)
			mode = TO_PARTIAL;
		else
			mode = FULL;
		if (mode == TO_PARTIAL && !locked) {
			spin_lock(&c->list_lock);
			locked = 1;
		}
		if (slab_state_cmpxchg(page, &old, new))
			break;
	}
	if (mode == TO_PARTIAL)
		add_partial(c, page, 1);
	if (locked)
		spin_unlock(&c->list_lock);
	if (mode == TO_FREE)
		discard_slab(c, page);
}

/* Gives this CPU's slab and partial slabs of c back.  Interrupts off. */
static void flush_cpu_slab(struct kmem_cache *c)
{
	struct kmem_cache_cpu *kcc = this_cpu_slab(c);
	struct page *list = kcc->partial;
	void *freelist = kcc->freelist;

	assert_irqs_disabled();
	if (kcc->slab) {
		struct page *page = slab_page(kcc->slab);

		WRITE_ONCE(kcc->slab, 0);
		cpu_set_freelist(kcc, NULL);
		deactivate_slab(c, page, freelist);
	}
	if (list) {
		WRITE_ONCE(kcc->partial, NULL);
		unfreeze_partials(c, list);
	}
}

/* on_each_cpu(): this CPU's slabs of one cache, or of all (arg NULL). */
static void flush_local(void *arg)
{
	struct kmem_cache *c = arg;
	struct list_head *pos;

	if (c) {
		flush_cpu_slab(c);
		return;
	}
	spin_lock(&slab_caches_lock);
	for_each_target(c, pos)
		flush_cpu_slab(c);
	spin_unlock(&slab_caches_lock);
}

int slub_flush(struct kmem_cache *c)
{
	unsigned long save;

	if (!irqs_disabled()) {
		on_each_cpu(flush_local, c, 1);
		return 1;
	}
	local_irq_save(save);
	flush_local(c);
	local_irq_restore(save);
	return num_online_cpus() == 1;
}

/* ---- allocation ---------------------------------------------------------------------- */

/* A new CPU slab for this CPU (whose own one is gone): from its partial
 * slabs, the node's partial list or the page allocator; its free list in
 * *freelist.  NULL if out of memory.  Interrupts off. */
static struct page *new_cpu_slab(struct kmem_cache *c, gfp_t flags, void **freelist)
{
	struct kmem_cache_cpu *kcc = this_cpu_slab(c);
	struct page *page;

	assert_irqs_disabled();
	while ((page = kcc->partial)) {
		WRITE_ONCE(kcc->partial, page->next);
		*freelist = get_freelist(c, page);
		if (*freelist)
			return page;
	}
	page = get_partial(c, freelist);
	if (page)
		return page;
	page = new_slab(c, flags);
	if (!page)
		return NULL;
	*freelist = state_freelist(c, slab_base(page), slab_state(page));
	slab_state_set(page, make_state(SLUB_FREE_NONE, slab_objects(c, page), 1));
	return page;
}

/* Gives up this CPU's slab, full, and moves the tid with it: a free
 * interrupted here (its exchange made with the old tid) must not push to
 * a CPU list that has no slab, which no flush would see.  Interrupts off. */
static void drop_full_cpu_slab(struct kmem_cache_cpu *kcc)
{
	WRITE_ONCE(kcc->slab, 0);
	cpu_set_freelist(kcc, NULL);
}

/* The slow path: this CPU's list ran out.  Refills it from the CPU slab's
 * own list, else from a new CPU slab, and takes an object.  Interrupts off. */
static void *refill_and_take(struct kmem_cache *c, gfp_t flags)
{
	struct kmem_cache_cpu *kcc = this_cpu_slab(c);
	void *obj = kcc->freelist;
	struct page *page;

	assert_irqs_disabled();
	if (!obj && kcc->slab) {
		obj = get_freelist(c, slab_page(kcc->slab));
		if (!obj)		/* full: it stays where it is, on no list */
			drop_full_cpu_slab(kcc);
	}
	if (!obj) {
		page = new_cpu_slab(c, flags, &obj);
		if (!page)
			return NULL;
		WRITE_ONCE(kcc->slab, slab_base(page));
	}
	cpu_set_freelist(kcc, get_freepointer(c, obj));
	return obj;
}

noinline void *slab_alloc_slow(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	unsigned long save;
	void *obj;

	call_path(CALL_PATH_REFILL);
	local_irq_save(save);
	obj = refill_and_take(c, flags);
	local_irq_restore(save);
	if (!obj)
		return NULL;
	handle_count(h, 1);
	return slub_post_alloc(c, h, obj, flags);
}

/* ---- free ------------------------------------------------------------------------------- */

void slub_freeze_full_slab(struct kmem_cache *c, struct page *page)
{
	put_cpu_partial(c, page, 1);
}

noinline const char *slab_free_slow(struct kmem_cache *c, struct kmem_cache *h, void *obj,
				    uintptr_t base, unsigned int idx, int marked)
{
	unsigned long save;
	const char *why;

	call_path(CALL_PATH_FLUSH);
	local_irq_save(save);
	why = free_to_slab(c, obj, base, idx, marked);
	local_irq_restore(save);
	if (!why)
		handle_count(h, -1);
	return why;
}

uintptr_t slub_this_cpu_slab(const struct kmem_cache *c, void **freelist)
{
	struct kmem_cache_cpu *kcc = this_cpu_slab(c);

	*freelist = kcc->freelist;
	return kcc->slab;
}

int slub_just_freed(struct kmem_cache *c, const void *obj, uintptr_t base)
{
	struct kmem_cache_cpu *kcc;
	unsigned long save;
	int just;

	local_irq_save(save);
	kcc = this_cpu_slab(c);
	if (kcc->slab == base)
		just = kcc->freelist == obj;
	else
		just = state_free(slab_state(slab_page(base))) == slab_obj_index(c, base, obj);
	local_irq_restore(save);
	return just;
}
