/* slub_sheaves.c - SLUB's per-CPU sheaves and per-node barn
 * (CONFIG_SLUB_SHEAVES), the per-CPU layer Linux 7.0 gave every SLUB
 * cache in place of the per-CPU slabs (mm/slub_cpu.c).
 *
 * Sheaves.  A sheaf is an array of free objects of one cache with a size
 * and a capacity.  Each CPU has a main sheaf and at most one spare of
 * each cache (struct slub_pcs, one per-CPU slot: mm/slub_percpu.c).
 *
 * Fast path (mm/slub_sheaves.h).  An allocation pops main and a free
 * pushes it, under this CPU's flag of the cache: the local trylock, taken
 * with a plain per-CPU read and a plain per-CPU write and given back with
 * a write (<arch/percpu.h>: no lock prefix, no compare-and-exchange, no
 * interrupt disable; this kernel has no preemption).  An interrupt that
 * finds the flag taken on its CPU goes to the slab path, which is correct
 * in every context an allocation is allowed in (NMI handlers do not
 * allocate: <tiny/slab.h>).  A free refuses the object on top of main
 * (the one just freed), besides slub.c's checks (a slab object of this
 * cache, an object's start).
 *
 * Slow paths, the flag held.  Allocation with main empty: swap in a spare
 * that has objects, else trade main for a full sheaf of the barn, else
 * refill main in bulk from partial slabs under list_lock, else from one
 * new slab, whose first objects go straight to main by address (no other
 * CPU sees the slab before the rest of it joins the partial list, as
 * SLAB's magazines take a new slab's).  Free with main full: swap in an
 * empty spare, else trade main for an empty sheaf of the barn, else get a
 * new empty sheaf and try again, else flush main to its slabs.
 * Objects go to slabs by free_to_slab() (mm/slub_percpu.c: a
 * compare-and-exchange of the slab's state, list_lock only when the slab
 * changes lists).
 *
 * The barn.  Per node (one here) and cache: lists of full and empty
 * sheaves, at most SHEAVES_BARN_MAX (Linux's 10) of each, under its lock,
 * taken only when a sheaf changes hands; its counts are read without the
 * lock first, so that an empty barn costs no lock.
 *
 * Capacity, as Linux's calculate_sheaf_capacity(): 4 objects of a page or
 * more, 12 from 1024 bytes, 26 from 256, 60 below, rounded up so that a
 * sheaf fills its kmalloc() class exactly.  0 (no sheaves: the slab path
 * only) for the boot cache of caches and for the debugging layer's caches
 * (SLAB_KMEM_DEBUGGED).  A creator may ask for more (kmem_cache_create_args()'s
 * sheaf_capacity, the larger of the two taken, as in Linux; such a cache
 * is not merged).
 *
 * Bootstrap.  A cache gets a real, empty main sheaf on every possible
 * CPU when it is made (as in Linux), so that its first allocation takes a
 * page for a slab, not for a sheaf; a flush gives main back, and the next
 * use on that CPU makes one (install_main()).  The kmalloc() classes are made before any
 * sheaf can be a kmalloc() block: their mains are the static bootstrap
 * sheaf, of capacity 0 and never full of anything, until they all exist
 * (slub_mode_kmalloc_ready() gives them capacity and mains; a main it
 * could not make is made on first use).  Sheaves are blocks of the
 * kmalloc() classes taken from and given back to their slabs directly,
 * never through sheaves, so that no sheaf sits in another and a flush of
 * the caches in any order leaves every empty slab empty; their bytes are
 * the allocator's own, left out of bytes_used.
 *
 * Flushing.  Shrink, destroy and reclaim flush: every CPU empties its
 * sheaves of the cache to the slabs under its flag and gives them back
 * (on_each_cpu(); a CPU whose flag an interrupt found taken is asked
 * again), then the barn's full sheaves go to the slabs and every barn
 * sheaf back to its class.  When the page allocator cannot give a slab, the
 * cache's barn and this CPU's spare are flushed and the slab tried once
 * more.
 *
 * Prefilled sheaves (<tiny/slab.h>'s guaranteed allocations), as Linux
 * serves them: a prefill within the capacity takes a barn sheaf (full
 * first) and tops it up from the slabs in bulk; a larger one gets an
 * oversize sheaf; a return makes the sheaf this CPU's spare, else puts it
 * in the barn, else flushes it.  Its objects count as in use from the
 * prefill to the return.  Under the debugging layer mm/util_sheaf.c's
 * generic version serves them instead.
 *
 * Lock order: slub.c's, with this CPU's flag of a cache first (never
 * waited for: a trylock), then a barn's lock or a list_lock, never both.
 * Sheaves are kmalloc() blocks: taking or giving one back enters a class's
 * slab path (its list_lock), never its sheaves.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/cmdline.h>
#include "slub.h"

_Static_assert(sizeof(struct slub_pcs) == sizeof(struct slub_percpu_slot),
	       "struct slub_pcs must fill a per-CPU slot");

static struct slub_sheaf bootstrap_sheaf;	/* capacity 0, size 0: the slow path */
static int sheaves_ready;			/* the kmalloc() classes exist */
/* Linux's capacities rounded up to a kmalloc() class (0: not yet known). */
static unsigned int class_capacity[4];
static const unsigned int linux_capacity[4] = { 4, 12, 26, 60 };

/* ---- capacity ------------------------------------------------------------------- */

static size_t sheaf_bytes(unsigned int capacity)
{
	return sizeof(struct slub_sheaf) + capacity * sizeof(void *);
}

/* Linux's capacity for objects of a stride of size, rounded up to fill its
 * kmalloc() class. */
static unsigned int sheaf_capacity_for(size_t size)
{
	unsigned int i = size >= PAGE_SIZE ? 0 : size >= 1024 ? 1 : size >= 256 ? 2 : 3;

	return class_capacity[i] ? class_capacity[i] : linux_capacity[i];
}

/* The capacity of c's sheaves: 0 for the boot cache of caches, the
 * debugging layer's caches and every cache made before kmalloc(). */
static unsigned int cache_capacity(const struct kmem_cache *c)
{
	if (!sheaves_ready || (c->common.flags & (CFLGS_INTERNAL | SLAB_KMEM_DEBUGGED)))
		return 0;
	return sheaf_capacity_for(c->size);
}

/* Rounds Linux's capacities up to the kmalloc() class each sheaf gets
 * (a block of a class is its object size). */
static void round_capacities(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(linux_capacity); i++) {
		struct kmem_cache *k = kmalloc_class(sheaf_bytes(linux_capacity[i]));

		class_capacity[i] = k ? (unsigned int)((k->common.object_size -
							sizeof(struct slub_sheaf)) / sizeof(void *))
				      : linux_capacity[i];
	}
}

/* ---- sheaves -------------------------------------------------------------------- */

/* Bytes of every sheaf, at its kmalloc() class's stride: the allocator's
 * own, which bytes_used leaves out (slub_sheaf_bytes()). */
static atomic_long_t sheaf_bytes_total;

unsigned long slub_sheaf_bytes(void)
{
	return (unsigned long)atomic_long_read(&sheaf_bytes_total);
}

/* A new empty sheaf with room for capacity objects, or NULL: a block of a kmalloc() class taken
 * from that class's slabs, never from its sheaves, so that no sheaf holds
 * another and a flush in any order of caches leaves every slab empty that
 * should be.  Any context; a cache's flag may be held (the class may be
 * that cache). */
static struct slub_sheaf *sheaf_new(unsigned int capacity, gfp_t flags)
{
	struct kmem_cache *k = kmalloc_class(sheaf_bytes(capacity));
	struct slub_sheaf *s;

	if (!k)
		return NULL;
	s = slab_alloc_locked_out(k, k, (flags & ~__GFP_ZERO) | __GFP_NOWARN);
	if (!s)
		return NULL;
	atomic_long_add((long)k->size, &sheaf_bytes_total);
	*s = (struct slub_sheaf){ .capacity = capacity };
	return s;
}

static int sheaf_real(const struct slub_sheaf *s)
{
	return s && s != &bootstrap_sheaf;
}

/* Gives an empty sheaf back to its class's slab (as sheaf_new()). */
static void sheaf_free(struct slub_sheaf *s)
{
	struct kmem_cache *k;
	struct page *page;
	unsigned int flags;
	uintptr_t base;
	long idx;

	if (!sheaf_real(s))
		return;
	page = virt_to_page(s);
	flags = READ_ONCE(page->flags);
	k = page_kmalloc_class(page, flags);
	idx = k ? slub_obj_check(k, flags, s, &base) : -1;
	if (WARN_ON(idx < 0))
		return;
	atomic_long_add(-(long)k->size, &sheaf_bytes_total);
	if (slab_free_locked_out(k, k, s, base, (unsigned int)idx))
		pr_err("slub: sheaf %p refused by its slab\n", (void *)s);
}

/* Gives the objects of s beyond its first keep back to their slabs.  An
 * object its slab refuses (freed twice, the second time into a sheaf: a
 * slab whose objects are all free, or the object heads its free list) is
 * reported as the free it was.  Any context. */
static void sheaf_flush_to(struct kmem_cache *c, struct slub_sheaf *s, unsigned int keep)
{
	unsigned int size = READ_ONCE(s->size);
	unsigned long save;
	const char *why;
	uintptr_t base;
	void *obj;
	long idx;

	local_irq_save(save);
	while (size > keep) {
		obj = s->objects[--size];
		WRITE_ONCE(s->size, size);	/* never both in the sheaf and on its slab */
		idx = slub_obj_check(c, READ_ONCE(virt_to_page(obj)->flags), obj, &base);
		why = WARN_ON(idx < 0) ? "not an object of the cache" :
		      free_to_slab(c, obj, base, (unsigned int)idx, 1);
		if (why)
			kmem_bad_free("kmem_cache_free", obj, why, __builtin_return_address(0));
	}
	local_irq_restore(save);
}

static void sheaf_flush(struct kmem_cache *c, struct slub_sheaf *s)
{
	sheaf_flush_to(c, s, 0);
}

/* This CPU's sheaves of c: for code holding the flag, or interrupts off. */
static struct slub_pcs *this_pcs(const struct kmem_cache *c)
{
	return arch_this_cpu_ptr(c->cpu.sheaves);
}

static struct slub_pcs *per_cpu_pcs(const struct kmem_cache *c, unsigned int cpu)
{
	return arch_per_cpu_ptr(c->cpu.sheaves, cpu);
}

/* ---- the barn ----------------------------------------------------------------------- */

#define SHEAVES_BARN_MAX	10	/* full ones, and empty ones: Linux's limits */

static void barn_init(struct slub_barn *b)
{
	spin_lock_init(&b->lock);
	INIT_LIST_HEAD(&b->full);
	INIT_LIST_HEAD(&b->empty);
	b->nr_full = b->nr_empty = 0;
}

/* Takes the first sheaf of list (count *n).  The barn's lock held. */
static struct slub_sheaf *barn_take(struct slub_barn *b, struct list_head *list,
				    unsigned int *n)
{
	struct slub_sheaf *s = list_first_entry(list, struct slub_sheaf, barn_list);

	assert_spin_held(&b->lock);
	list_del(&s->barn_list);
	WRITE_ONCE(*n, *n - 1);
	return s;
}

/* Puts s on list (count *n) if it holds fewer than SHEAVES_BARN_MAX: 1, else
 * 0.  The barn's lock held. */
static int barn_put(struct slub_barn *b, struct slub_sheaf *s, struct list_head *list,
		    unsigned int *n)
{
	assert_spin_held(&b->lock);
	if (*n >= SHEAVES_BARN_MAX)
		return 0;
	list_add(&s->barn_list, list);
	WRITE_ONCE(*n, *n + 1);
	return 1;
}

/* An empty sheaf s to the barn, or to kfree() if it has enough. */
static void barn_put_empty(struct kmem_cache *c, struct slub_sheaf *s)
{
	struct slub_barn *b = &c->barn;
	unsigned long save;
	int kept;

	spin_lock_irqsave(&b->lock, save);
	kept = barn_put(b, s, &b->empty, &b->nr_empty);
	spin_unlock_irqrestore(&b->lock, save);
	if (!kept)
		sheaf_free(s);
}

/* Trades main (empty) for a full sheaf of the barn: 1, or 0 if it has none.
 * Flag held. */
static int barn_trade_empty_main(struct kmem_cache *c, struct slub_pcs *pcs)
{
	struct slub_barn *b = &c->barn;
	struct slub_sheaf *empty = pcs->main;
	unsigned long save;
	int kept = 1;

	if (!READ_ONCE(b->nr_full))
		return 0;
	spin_lock_irqsave(&b->lock, save);
	if (!b->nr_full) {
		spin_unlock_irqrestore(&b->lock, save);
		return 0;
	}
	pcs->main = barn_take(b, &b->full, &b->nr_full);
	if (sheaf_real(empty))
		kept = barn_put(b, empty, &b->empty, &b->nr_empty);
	spin_unlock_irqrestore(&b->lock, save);
	if (!kept)
		sheaf_free(empty);
	return 1;
}

/* Trades main (full) for an empty sheaf of the barn: 1, or 0 if it has no
 * empty one or enough full ones.  Flag held. */
static int barn_trade_full_main(struct kmem_cache *c, struct slub_pcs *pcs)
{
	struct slub_barn *b = &c->barn;
	unsigned long save;

	if (!READ_ONCE(b->nr_empty) || READ_ONCE(b->nr_full) >= SHEAVES_BARN_MAX ||
	    !sheaf_real(pcs->main))
		return 0;
	spin_lock_irqsave(&b->lock, save);
	if (!b->nr_empty || !barn_put(b, pcs->main, &b->full, &b->nr_full)) {
		spin_unlock_irqrestore(&b->lock, save);
		return 0;
	}
	pcs->main = barn_take(b, &b->empty, &b->nr_empty);
	spin_unlock_irqrestore(&b->lock, save);
	return 1;
}

/* Empties the barn: its full sheaves' objects to the slabs, every sheaf to
 * kfree().  Returns the objects given back. */
static unsigned long barn_flush(struct kmem_cache *c)
{
	struct slub_barn *b = &c->barn;
	struct slub_sheaf *s, *n;
	unsigned long save, objects = 0;
	LIST_HEAD(taken);

	if (!READ_ONCE(b->nr_full) && !READ_ONCE(b->nr_empty))
		return 0;
	spin_lock_irqsave(&b->lock, save);
	while (!list_empty(&b->full))
		list_move(b->full.next, &taken);
	while (!list_empty(&b->empty))
		list_move(b->empty.next, &taken);
	WRITE_ONCE(b->nr_full, 0);
	WRITE_ONCE(b->nr_empty, 0);
	spin_unlock_irqrestore(&b->lock, save);
	list_for_each_entry_safe(s, n, &taken, barn_list) {
		objects += s->size;
		sheaf_flush(c, s);
		sheaf_free(s);
	}
	return objects;
}

/* ---- the slabs ------------------------------------------------------------------------ */

/* Takes up to n objects of page, on c's partial list, into dst: from the
 * head of its free list, which other CPUs' frees may push to meanwhile
 * (the exchange then fails and it starts again); nothing else takes from
 * a listed slab while list_lock is held.  A slab made full leaves the
 * list.  Returns the objects taken.  list_lock held. */
static unsigned int take_from_slab(struct kmem_cache *c, struct page *page, void **dst,
				   unsigned int n)
{
	uintptr_t base = slab_base(page);
	u32 old = slab_state(page);
	unsigned int got;
	void *p;

	assert_spin_held(&c->list_lock);
	do {
		p = state_freelist(c, base, old);
		for (got = 0; p && got < n; got++) {
			dst[got] = p;
			p = get_freepointer(c, p);
		}
	} while (!slab_state_cmpxchg(page, &old, make_state(freelist_index(c, base, p),
							    state_inuse(old) + got, 0)));
	if (!p)
		remove_partial(c, page);
	return got;
}

/* Takes up to n objects from c's partial list into dst.  Interrupts on or
 * off. */
static unsigned int take_partial(struct kmem_cache *c, void **dst, unsigned int n)
{
	unsigned int got = 0;
	unsigned long save;

	if (!READ_ONCE(c->nr_partial))
		return 0;
	spin_lock_irqsave(&c->list_lock, save);
	while (got < n && !list_empty(&c->partial))
		got += take_from_slab(c, list_first_entry(&c->partial, struct page, lru),
				      dst + got, n - got);
	spin_unlock_irqrestore(&c->list_lock, save);
	return got;
}

int slub_pressure_flush = 1;

static int pressure_flush_setup(const char *val)
{
	unsigned long v;
	int r = parse_ulong(val, 0, 1, &v);

	if (!r)
		slub_pressure_flush = (int)v;
	return r;
}
kernel_param("slub_pressure_flush", pressure_flush_setup,
	     "=0|1: when the page allocator has no slab, give the cache's barn and this CPU's "
	     "spare sheaf back to the slabs and try once more (SLUB sheaves; default 1)");

/* Memory pressure: gives c's barn and (pcs: held by the caller) this CPU's
 * spare back to the slabs.  Returns whether any object went back (never,
 * with slub_pressure_flush=0). */
static int release_cached(struct kmem_cache *c, struct slub_pcs *pcs)
{
	unsigned long objects;

	if (!slub_pressure_flush)
		return 0;
	objects = barn_flush(c);

	if (pcs && pcs->spare) {
		objects += pcs->spare->size;
		sheaf_flush(c, pcs->spare);
	}
	return objects != 0;
}

/* Takes up to n objects of page, a new slab of c that no other CPU sees
 * yet, into dst: its first ones, by address, since its free list runs in
 * address order (init_objects()).  A slab with objects left joins the
 * partial list.  Returns the objects taken. */
static unsigned int take_new_slab(struct kmem_cache *c, struct page *page, void **dst,
				  unsigned int n)
{
	unsigned int objects = slab_objects(c, page), got = n < objects ? n : objects, i;
	char *obj = slab_obj(c, slab_base(page), 0);
	size_t size = c->size;
	unsigned long save;

	for (i = 0; i < got; i++, obj += size)
		dst[i] = obj;
	slab_state_set(page, make_state(got < objects ? got : SLUB_FREE_NONE, got, 0));
	if (got < objects) {
		spin_lock_irqsave(&c->list_lock, save);
		add_partial(c, page, 0);
		spin_unlock_irqrestore(&c->list_lock, save);
	}
	return got;
}

/* Takes up to n objects of c into dst, from partial slabs, else from one
 * new slab (a refill takes no more pages than a slab); when the page
 * allocator has no slab, once more after release_cached().  Returns the
 * objects taken (0: out of memory). */
static unsigned int slab_take(struct kmem_cache *c, struct slub_pcs *pcs, void **dst,
			      unsigned int n, gfp_t flags)
{
	unsigned int got;
	struct page *page;
	int retried = 0;

	for (;;) {
		if ((got = take_partial(c, dst, n)))
			return got;
		page = new_slab(c, flags);
		if (page)
			return take_new_slab(c, page, dst, n);
		if (retried++ || !release_cached(c, pcs))
			return 0;
	}
}

/* ---- allocation ----------------------------------------------------------------------- */

/* An object for handle h, taken out. */
static void *hand_out(struct kmem_cache *c, struct kmem_cache *h, void *obj, gfp_t flags)
{
	arch_this_cpu_add(h->cpu.count, 1);
	return slub_post_alloc(c, h, obj, flags);
}

noinline void *slab_alloc_locked_out(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	void *obj;

	if (!slab_take(c, NULL, &obj, 1, flags))
		return NULL;
	return hand_out(c, h, obj, flags);
}

/* Swaps main and spare if spare has objects: 1, else 0. */
static int swap_in_full_spare(struct slub_pcs *pcs)
{
	struct slub_sheaf *spare = pcs->spare;

	if (!spare || !spare->size)
		return 0;
	pcs->spare = pcs->main;
	pcs->main = spare;
	return 1;
}

/* Gives this CPU a real main sheaf in place of the bootstrap one.  Flag
 * held: a sheaf of this cache's own kmalloc() class comes from its slab
 * path. */
static void install_main(struct kmem_cache *c, gfp_t flags)
{
	struct slub_sheaf *s = sheaf_new(READ_ONCE(c->barn.capacity), flags);

	if (s)
		this_pcs(c)->main = s;
}

noinline void *sheaf_alloc_slow(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	struct slub_pcs *pcs = this_pcs(c);
	struct slub_sheaf *main;
	void *obj = NULL;

	if (!sheaf_real(pcs->main) && READ_ONCE(c->barn.capacity))
		install_main(c, flags);
	if (!pcs->main->size && !swap_in_full_spare(pcs) && !barn_trade_empty_main(c, pcs) &&
	    pcs->main->capacity)
		WRITE_ONCE(pcs->main->size, slab_take(c, pcs, pcs->main->objects,
						      pcs->main->capacity, flags));
	main = pcs->main;
	if (main->size) {
		obj = main->objects[main->size - 1];
		WRITE_ONCE(main->size, main->size - 1);
	}
	pcs_unlock(c->cpu.sheaves);
	if (obj)
		return hand_out(c, h, obj, flags);
	return main->capacity ? NULL : slab_alloc_locked_out(c, h, flags);
}

/* ---- free ------------------------------------------------------------------------------ */

noinline const char *slab_free_locked_out(struct kmem_cache *c, struct kmem_cache *h, void *obj,
					  uintptr_t base, unsigned int idx)
{
	unsigned long save;
	const char *why;

	local_irq_save(save);
	why = free_to_slab(c, obj, base, idx, 0);
	local_irq_restore(save);
	if (!why)
		arch_this_cpu_add(h->cpu.count, -1);
	return why;
}

/* Swaps main and spare if spare is empty: 1, else 0. */
static int swap_in_empty_spare(struct slub_pcs *pcs)
{
	struct slub_sheaf *spare = pcs->spare;

	if (!spare || spare->size)
		return 0;
	pcs->spare = pcs->main;
	pcs->main = spare;
	return 1;
}

/* Gives this CPU's sheaves s (of the cache's capacity): as main if this
 * CPU has the bootstrap one, else as the spare if none: 1, else 0.  Flag
 * held. */
static int pcs_adopt(struct slub_pcs *pcs, struct slub_sheaf *s)
{
	if (!sheaf_real(pcs->main))
		pcs->main = s;
	else if (!pcs->spare)
		pcs->spare = s;
	else
		return 0;
	return 1;
}

/* A new empty sheaf for this CPU (pcs_adopt()), else to the barn.  Flag
 * held (as install_main()). */
static void add_empty_sheaf(struct kmem_cache *c)
{
	struct slub_sheaf *s = sheaf_new(READ_ONCE(c->barn.capacity), GFP_ATOMIC);

	if (s && !pcs_adopt(this_pcs(c), s))
		barn_put_empty(c, s);
}

/* Makes room in main (full): 1, or 0 if c has no sheaves.  Flag held. */
static int make_room(struct kmem_cache *c)
{
	struct slub_pcs *pcs = this_pcs(c);
	int added = 0;

	while (pcs->main->size == pcs->main->capacity) {
		if (!READ_ONCE(c->barn.capacity))
			return 0;
		if (swap_in_empty_spare(pcs) || barn_trade_full_main(c, pcs))
			return 1;
		if (added++) {
			if (!sheaf_real(pcs->main))
				return 0;
			sheaf_flush(c, pcs->main);
			return 1;
		}
		add_empty_sheaf(c);
	}
	return 1;
}

noinline const char *sheaf_free_slow(struct kmem_cache *c, struct kmem_cache *h, void *obj,
				     uintptr_t base, unsigned int idx)
{
	struct slub_sheaf *main;
	const char *why;

	if (!make_room(c)) {
		pcs_unlock(c->cpu.sheaves);
		return slab_free_locked_out(c, h, obj, base, idx);
	}
	if (kmem_memcheck_watches() && (why = sheaf_tell_free(c, obj, base, idx))) {
		pcs_unlock(c->cpu.sheaves);
		return why;
	}
	main = this_pcs(c)->main;
	main->objects[main->size] = obj;
	WRITE_ONCE(main->size, main->size + 1);
	arch_this_cpu_add(h->cpu.count, -1);
	pcs_unlock(c->cpu.sheaves);
	return NULL;
}

int slub_just_freed(struct kmem_cache *c, const void *obj, uintptr_t base)
{
	struct slub_sheaf *main;
	unsigned long save;
	unsigned int size;
	int just;

	local_irq_save(save);
	main = this_pcs(c)->main;
	size = READ_ONCE(main->size);
	just = (size && main->objects[size - 1] == obj) ||
	       state_free(slab_state(slab_page(base))) == slab_obj_index(c, base, obj);
	local_irq_restore(save);
	return just;
}

/* ---- prefilled sheaves ------------------------------------------------------------------ */

/* Linux's API for allocations that must not fail (<tiny/slab.h>), served
 * by the sheaves as Linux serves it.  A prefill of at most the cache's
 * capacity takes a sheaf of the barn (a full one first), else a new one,
 * and fills it up from the slabs in bulk if it holds fewer than asked: a
 * sheaf of the cache's own size, which holds at least count.  A larger
 * count gets an oversize sheaf of exactly count objects, taken in bulk.
 * The caller owns the sheaf: no CPU's flag, no barn; its objects count
 * as in use through the handle (the validator's sum) until it is
 * returned.  A return puts a sheaf of the cache's size back as this CPU's
 * spare (or main, for a CPU with the bootstrap one) if the slot is free,
 * else in the barn if it is full or empty and the barn has room for it,
 * else flushes its objects to the slabs and puts it in the barn empty (or
 * frees it); an oversize sheaf is always flushed and freed.  With the
 * debugging layer the API is mm/util_sheaf.c's instead (each object
 * through the layer): these are then unused. */

static struct slub_sheaf *to_sheaf(const struct slab_sheaf *s)
{
	return (struct slub_sheaf *)s;
}

/* A sheaf of the barn, full if it has one, else empty; NULL if none. */
static struct slub_sheaf *barn_get(struct slub_barn *b)
{
	struct slub_sheaf *s = NULL;
	unsigned long save;

	if (!READ_ONCE(b->nr_full) && !READ_ONCE(b->nr_empty))
		return NULL;
	spin_lock_irqsave(&b->lock, save);
	if (b->nr_full)
		s = barn_take(b, &b->full, &b->nr_full);
	else if (b->nr_empty)
		s = barn_take(b, &b->empty, &b->nr_empty);
	spin_unlock_irqrestore(&b->lock, save);
	return s;
}

/* Puts s, full or empty, in the barn if it has room for it: 1, else 0. */
static int barn_put_whole(struct slub_barn *b, struct slub_sheaf *s)
{
	unsigned long save;
	int kept = 0;

	spin_lock_irqsave(&b->lock, save);
	if (s->size == s->capacity)
		kept = barn_put(b, s, &b->full, &b->nr_full);
	else if (!s->size)
		kept = barn_put(b, s, &b->empty, &b->nr_empty);
	spin_unlock_irqrestore(&b->lock, save);
	return kept;
}

/* Fills s up to n objects (at most its capacity) from c's slabs: 0, or -1
 * out of memory with s as it was. */
static int sheaf_top_up(struct kmem_cache *c, struct slub_sheaf *s, unsigned int n,
			gfp_t flags)
{
	unsigned int had = s->size, got;

	while (s->size < n) {
		got = slab_take(c, NULL, s->objects + s->size, n - s->size, flags & ~__GFP_ZERO);
		if (!got) {
			sheaf_flush_to(c, s, had);
			return -1;
		}
		WRITE_ONCE(s->size, s->size + got);
	}
	return 0;
}

/* Gives s back: its objects to the slabs, the sheaf to the barn (one of
 * c's size) or to its class. */
static void sheaf_release(struct kmem_cache *c, struct slub_sheaf *s)
{
	sheaf_flush(c, s);
	if (s->capacity == READ_ONCE(c->barn.capacity))
		barn_put_empty(c, s);
	else
		sheaf_free(s);
}

struct slab_sheaf *__kmem_cache_prefill_sheaf(struct kmem_cache *h, gfp_t flags,
					      unsigned int count)
{
	struct kmem_cache *c = h->target;
	unsigned int cap = READ_ONCE(c->barn.capacity);
	struct slub_sheaf *s = NULL;
	size_t bytes;

	if (count > cap || !cap)
		cap = count;		/* oversize: exactly count */
	else
		s = barn_get(&c->barn);
	if (!s && (__builtin_mul_overflow((size_t)cap, 2 * sizeof(void *), &bytes) ||
		   !(s = sheaf_new(cap, flags & ~__GFP_ZERO))))
		return NULL;		/* sheaf_bytes(cap) would overflow, or no memory */
	if (s->size < count && sheaf_top_up(c, s, cap, flags)) {
		sheaf_release(c, s);
		return NULL;
	}
	arch_this_cpu_add(h->cpu.count, (long)s->size);
	return (struct slab_sheaf *)s;
}

void *__kmem_cache_alloc_from_sheaf(struct kmem_cache *h, gfp_t flags, struct slab_sheaf *sheaf)
{
	struct slub_sheaf *s = to_sheaf(sheaf);

	if (!s->size)
		return NULL;
	return slub_post_alloc(h->target, h, s->objects[--s->size], flags);
}

/* Adopts s as this CPU's spare (pcs_adopt()): 1, or 0 if the slot is
 * taken or code this interrupted holds the flag. */
static int sheaf_reattach(struct kmem_cache *c, struct slub_sheaf *s)
{
	int done;

	if (!pcs_trylock(c->cpu.sheaves))
		return 0;
	done = pcs_adopt(this_pcs(c), s);
	pcs_unlock(c->cpu.sheaves);
	return done;
}

void __kmem_cache_return_sheaf(struct kmem_cache *h, gfp_t flags, struct slab_sheaf *sheaf)
{
	struct kmem_cache *c = h->target;
	struct slub_sheaf *s = to_sheaf(sheaf);

	(void)flags;
	arch_this_cpu_add(h->cpu.count, -(long)s->size);
	if (s->capacity && s->capacity == READ_ONCE(c->barn.capacity) &&
	    (sheaf_reattach(c, s) || barn_put_whole(&c->barn, s)))
		return;
	sheaf_release(c, s);
}

int __kmem_cache_refill_sheaf(struct kmem_cache *h, gfp_t flags, struct slab_sheaf **sheafp,
			      unsigned int count)
{
	struct slub_sheaf *s = to_sheaf(*sheafp);
	unsigned int had = s->size;
	struct slab_sheaf *bigger;

	if (had >= count)
		return 0;
	if (count <= s->capacity) {
		if (sheaf_top_up(h->target, s, s->capacity, flags))
			return -1;
		arch_this_cpu_add(h->cpu.count, (long)(s->size - had));
		return 0;
	}
	bigger = __kmem_cache_prefill_sheaf(h, flags, count);
	if (!bigger)
		return -1;
	__kmem_cache_return_sheaf(h, flags, *sheafp);
	*sheafp = bigger;
	return 0;
}

unsigned int __kmem_cache_sheaf_size(const struct slab_sheaf *sheaf)
{
	return to_sheaf(sheaf)->size;
}

KMEM_PUBLIC(kmem_cache_prefill_sheaf) KMEM_PUBLIC(kmem_cache_alloc_from_sheaf)
KMEM_PUBLIC(kmem_cache_refill_sheaf) KMEM_PUBLIC(kmem_cache_return_sheaf)
KMEM_PUBLIC(kmem_cache_sheaf_size)

/* ---- opening, closing, flushing ----------------------------------------------------- */

/* Gives c a real main sheaf on every possible CPU that has the bootstrap
 * one, as Linux does when it makes a cache, so that its first allocation
 * takes no page for a sheaf: 0, or -1 if out of memory (those made
 * stay).  c on no CPU yet, or boot. */
static int install_mains(struct kmem_cache *c, gfp_t flags)
{
	struct slub_sheaf *s;
	unsigned int cpu;

	for (cpu = 0; cpu < num_possible_cpus(); cpu++) {
		if (sheaf_real(per_cpu_pcs(c, cpu)->main))
			continue;
		s = sheaf_new(READ_ONCE(c->barn.capacity), flags);
		if (!s)
			return -1;
		per_cpu_pcs(c, cpu)->main = s;
	}
	return 0;
}

/* The kmalloc() classes get their capacity and their sheaves once they
 * all exist.  Boot, one CPU. */
void slub_mode_kmalloc_ready(void)
{
	struct kmem_cache *c;
	struct list_head *pos;

	round_capacities();
	sheaves_ready = 1;
	for_each_target(c, pos)
		if (c->common.flags & CFLGS_KMALLOC) {
			WRITE_ONCE(c->barn.capacity, cache_capacity(c));
			install_mains(c, GFP_KERNEL);	/* else on first use */
		}
}

/* kmem_cache_create_args(): sheaves of at least n objects.  c is new and
 * unused: its empty mains go back and are made again on first use, at the
 * new capacity.  A cache with no sheaves (made before kmalloc(), or
 * debugged) keeps none. */
int cache_raise_percpu_capacity(struct kmem_cache *c, unsigned int n)
{
	unsigned int cpu;

	if (!c->barn.capacity || n <= c->barn.capacity)
		return 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct slub_pcs *pcs = per_cpu_pcs(c, cpu);

		sheaf_free(pcs->main);
		pcs->main = &bootstrap_sheaf;
	}
	WRITE_ONCE(c->barn.capacity, n);
	return 0;
}

/* Gives back c's sheaves: every CPU's (empty) and the barn's. */
static void free_sheaves(struct kmem_cache *c)
{
	unsigned int cpu;

	barn_flush(c);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct slub_pcs *pcs = per_cpu_pcs(c, cpu);

		WARN_ON(pcs->main->size || (pcs->spare && pcs->spare->size));
		sheaf_free(pcs->main);
		sheaf_free(pcs->spare);
	}
	slub_percpu_free(per_cpu_pcs(c, 0));
}

int slub_cpu_open(struct kmem_cache *c)
{
	struct slub_pcs *pcs;
	unsigned int cpu;

	if (slub_count_open(c))
		return -1;
	c->cpu.sheaves = 0;
	if (is_alias(c))
		return 0;
	pcs = slub_percpu_alloc();
	if (!pcs) {
		slub_count_close(c);
		return -1;
	}
	c->cpu.sheaves = arch_percpu_off(pcs);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		per_cpu_pcs(c, cpu)->main = &bootstrap_sheaf;
	barn_init(&c->barn);
	c->barn.capacity = cache_capacity(c);
	if (c->barn.capacity && install_mains(c, GFP_KERNEL)) {
		free_sheaves(c);
		slub_count_close(c);
		return -1;
	}
	return 0;
}

/* c is dead: its sheaves, flushed, go back. */
void slub_cpu_close(struct kmem_cache *c)
{
	slub_count_close(c);
	if (c->cpu.sheaves)
		free_sheaves(c);
}

/* Empties this CPU's sheaves of c to the slabs and gives them back, main
 * too (the bootstrap sheaf again, until the next use makes one): which
 * sheaf is main changes with every trade, so one kept would be any sheaf,
 * on any page of its class, and a reclaim could not give every page
 * back.  1, or 0 if code this interrupted holds the flag.  Interrupts
 * off. */
static int flush_cpu_sheaves(struct kmem_cache *c)
{
	struct slub_pcs *pcs = this_pcs(c);
	struct slub_sheaf *main, *spare;

	assert_irqs_disabled();
	if (!pcs_trylock(c->cpu.sheaves))
		return 0;
	main = pcs->main;
	spare = pcs->spare;
	pcs->main = &bootstrap_sheaf;
	pcs->spare = NULL;
	pcs_unlock(c->cpu.sheaves);
	sheaf_flush(c, main);
	if (spare)
		sheaf_flush(c, spare);
	sheaf_free(main);
	sheaf_free(spare);
	return 1;
}

/* What on_each_cpu() asks of each CPU: c's sheaves, or every cache's (c
 * NULL); misses counts the CPUs whose flag it found taken. */
struct flush_req {
	struct kmem_cache *c;
	atomic_long_t misses;
};

static void flush_local(void *arg)
{
	struct flush_req *req = arg;
	struct kmem_cache *c = req->c;
	struct list_head *pos;

	if (c) {
		if (!flush_cpu_sheaves(c))
			atomic_long_inc(&req->misses);
		return;
	}
	spin_lock(&slab_caches_lock);
	for_each_target(c, pos)
		if (!flush_cpu_sheaves(c))
			atomic_long_inc(&req->misses);
	spin_unlock(&slab_caches_lock);
}

/* Flushes every CPU's sheaves, again while a CPU's flag was found taken
 * (held only for a fast path's few instructions, or a slow path). */
static void flush_every_cpu(struct kmem_cache *c)
{
	struct flush_req req;

	do {
		req = (struct flush_req){ .c = c };
		on_each_cpu(flush_local, &req, 1);
	} while (atomic_long_read(&req.misses));
}

/* The barns of c, or of every cache (c NULL). */
static void flush_barns(struct kmem_cache *c)
{
	struct list_head *pos;
	unsigned long save;

	if (c) {
		barn_flush(c);
		return;
	}
	spin_lock_irqsave(&slab_caches_lock, save);
	for_each_target(c, pos)
		barn_flush(c);
	spin_unlock_irqrestore(&slab_caches_lock, save);
}

int slub_flush(struct kmem_cache *c)
{
	unsigned long save;
	int all = 1;

	if (!irqs_disabled()) {
		flush_every_cpu(c);
	} else {
		struct flush_req req = { .c = c };

		local_irq_save(save);
		flush_local(&req);
		local_irq_restore(save);
		all = num_online_cpus() == 1;
	}
	flush_barns(c);
	return all;
}

/* ---- reading other CPUs' sheaves ------------------------------------------------------
 *
 * The rule: a CPU's sheaves change only on that CPU, under its flag,
 * which no other CPU can take (a plain per-CPU write, not atomic across
 * CPUs) and which nobody waits for.  A report (slabinfo, the destroy's
 * last check with interrupts off) therefore reads them racily: the sheaf
 * a slot points to, its size and capacity, then the slot again; a slot
 * that changed meanwhile counts 0, a size above the capacity counts the
 * capacity.  A sheaf freed meanwhile is a kmalloc() block whose memory
 * stays mapped (the page allocator unmaps nothing), so such a read is
 * stale at worst, never a fault (and no checker's business:
 * __no_sanitize_address).  The figures are approximate while other CPUs
 * run, as Linux's slabinfo's are (slabinfo prints "~"), and exact while
 * they are idle or asleep (one CPU online, the self-tests).  The barn is
 * read under its lock, or by its counts: its full sheaves hold exactly
 * their capacity. */
static __no_sanitize_address unsigned int racy_sheaf_size(struct slub_sheaf *const *slot)
{
	struct slub_sheaf *s = READ_ONCE(*slot);
	unsigned int size, capacity;

	if (!s)
		return 0;
	size = READ_ONCE(s->size);
	capacity = READ_ONCE(s->capacity);
	barrier();
	return READ_ONCE(*slot) != s ? 0 : size < capacity ? size : capacity;
}

/* The objects every CPU's sheaves of c hold: racy (above). */
static unsigned long cpu_sheaved_objects(const struct kmem_cache *c)
{
	unsigned long n = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct slub_pcs *pcs = per_cpu_pcs(c, cpu);

		n += racy_sheaf_size(&pcs->main) + racy_sheaf_size(&pcs->spare);
	}
	return n;
}

int slub_cpu_holds_slabs(const struct kmem_cache *c)
{
	return cpu_sheaved_objects(c) != 0;
}

unsigned long slub_sheaved_objects(struct kmem_cache *c)
{
	return cpu_sheaved_objects(c) +
	       (unsigned long)READ_ONCE(c->barn.nr_full) * READ_ONCE(c->barn.capacity);
}
