/* slab.c - SLAB, the object-caching allocator after Bonwick (CONFIG_SLAB).
 *
 * A cache hands out objects of one size, kept in slabs: blocks of 2^order
 * pages, the smallest order that holds an object, grown (as Linux 2.6 did)
 * only up to slab_break_order, 0 or 1, while the tail a slab cannot use is
 * more than 1/8 of it: large orders are what a fragmented page allocator
 * cannot give.  A slab starts with a colour offset (a multiple of the cache
 * line that differs between successive slabs, so that objects at the same
 * index of different slabs use different cache lines), then its descriptor
 * (struct slab and one kmem_bufctl_t per object) unless objects are large:
 * then the descriptor comes from a general cache.  A free object's bufctl
 * entry links it to the next free one; an object out of the slab has its
 * state there instead (held by a caller, in an array cache, or by the
 * allocator itself: a struct kmem_cache, an off-slab descriptor or an array
 * cache, which kfree() must refuse like any other bad pointer).  Every
 * page of a slab points to its cache and slab (PG_slab), so the cache,
 * slab and index of any object are found in O(1).  Each cache keeps its
 * slabs on three lists (full, partial, free) under its own spinlock.
 *
 * Objects are cached constructed: the constructor runs on every object of
 * a new slab, the destructor when a slab is destroyed; in between, objects
 * go back and forth between slabs and callers without either.  Allocation
 * and free use a per-CPU array cache, a LIFO magazine of object pointers
 * used with local interrupts off and no lock.  An empty magazine is
 * refilled with batchcount objects from the partial and free slabs (the
 * cache grows by a slab when there are none); a full one flushes its
 * batchcount coldest objects back.  Free slabs beyond a limit go back to
 * the page allocator at once; every 2 seconds a timer drains part of each
 * idle magazine and gives back the free slabs.
 *
 * SMP: a magazine is only ever changed by its own CPU, with interrupts off.
 * Shrink, destroy and tune reach the other CPUs' magazines as Linux 2.6
 * did, through on_each_cpu(): each CPU drains (or swaps) its own, then the
 * cache lock covers the slabs.  The reaper is one timer per CPU, armed on
 * that CPU (timers run where they were armed), so each CPU ages its own
 * magazines in its own timer interrupt without an IPI: an IPI cannot be
 * sent from the timer interrupt (smp_call_function() wants process context
 * with interrupts on), and a per-CPU timer costs nothing on idle CPUs.
 * With more than one CPU online a free claims its object with one
 * compare-and-swap of the bufctl state (held -> cached), so of two CPUs
 * freeing the same object exactly one wins and the other reports a double
 * free (alone, a plain read and write: see claim_state()).  Only online
 * CPUs get magazines; the others share no_magazine until they first use
 * the cache.
 *
 * kmalloc() uses general caches of 8 bytes to a page: Linux 6.1's small
 * classes up to 256 and five between them that pack pages better (24, 40,
 * 48, 160, 224), then for each count n of objects a page can hold
 * the largest cache-line multiple that packs n (no class packs as few as
 * the next larger one, as 1536 did 2048's two a page).  Larger blocks come from
 * the page allocator (PG_large on the head page), only the pages they
 * need: the rest of the power-of-two block goes back at once.  A bad
 * kfree()/kmem_cache_free() (not an object start, another cache's object,
 * a double free) is found in O(1) from the page and the bufctl state,
 * reported, and changes nothing.  Lock order: slab_caches_lock, a cache's
 * lock, the page allocator's; a descriptor cache's lock is never taken
 * with its user's lock held.
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
/* every bad call of <tiny/slab.h> but one */
const unsigned long kmem_checks = KMEM_CHECKS_ALL & ~KMEM_CHECK(DESTROYED_CACHE);
const int kmem_ctor_every_alloc;		/* once per object, as it enters the cache */

#define CACHE(x)	{ .cs_size = (x), .cs_name = "size-" #x }
struct cache_sizes malloc_sizes[] = {
	/* Linux 6.1's small classes (powers of two, 96 and 192) and 24, 40,
	 * 48, 160 and 224: each packs more objects a page than the next class
	 * up (24: 156 against 119, 40: 99 / 81, 48: 81 / 61, 160: 25 / 21,
	 * 224: 18 / 15).  At the shipped trace's peak 24 and 48 saved 2 pages,
	 * 224 another 2 and 40 one (a class costs its own partial slab and
	 * magazine); 160 changed nothing there and is kept for the 32-byte
	 * steps from 128 to 256. */
	CACHE(8), CACHE(16), CACHE(24), CACHE(32), CACHE(40), CACHE(48), CACHE(64), CACHE(96),
	CACHE(128), CACHE(160), CACHE(192), CACHE(224), CACHE(256),
	/* above: per number n of objects a page holds (n = 16 down to 1), the
	 * largest multiple of the 64-byte cache line with n in a page */
	CACHE(320), CACHE(384), CACHE(448), CACHE(512), CACHE(576), CACHE(640), CACHE(768),
	CACHE(1024), CACHE(1344), CACHE(2048), CACHE(4096),
	/* whole pages of 8 and 16 KiB, for larger PAGE_SIZEs (the host's ktests) */
	CACHE(8192), CACHE(16384),
};
const unsigned int nr_malloc_sizes = ARRAY_SIZE(malloc_sizes);
size_t kmalloc_max_size;		/* largest general cache made at boot */

struct kmem_cache cache_cache;		/* laid out by kmem_cache_init() */

unsigned long slab_reap_passes[NR_CPUS];
static struct timer_list reap_timers[NR_CPUS];
static unsigned char reaper_armed[NR_CPUS];	/* written by that CPU only */
static int reaper_enabled;		/* timers work: kmem_cache_init_late() ran */
unsigned int slab_break_order;
atomic_long_t slab_zero_ctor_refusals;

/* Until kmalloc() works, caches get static one-entry magazines. */
#define BOOT_CPUCACHE_ENTRIES	1
union arraycache_init {
	struct array_cache cache;
	char room[sizeof(struct array_cache) + BOOT_CPUCACHE_ENTRIES * sizeof(struct ac_entry)];
};
static union arraycache_init boot_arrays[(1 + ARRAY_SIZE(malloc_sizes)) * NR_CPUS];
static unsigned int boot_arrays_used;

/* The magazine of a CPU that has not used a cache yet: empty and full at
 * once, so that the CPU's first allocation or free there takes the slow
 * path, which gives it a magazine of its own.  Only online CPUs get one:
 * magazines for NR_CPUS CPUs of which one runs were most of the
 * allocator's own memory.  Never written. */
static struct array_cache no_magazine;

/* Per CPU, a one-entry array cache for the allocations made while this CPU
 * makes itself a magazine (which may need one from a cache that has no
 * magazine on this CPU yet, perhaps the same one), and the flag that says
 * it is doing so.  Each used by its own CPU with interrupts off. */
static union arraycache_init scratch_arrays[NR_CPUS];
static unsigned char making_magazine[NR_CPUS];
static atomic_long_t slab_internal_bytes;	/* held by internal_alloc() objects */
static int slab_up;			/* kmalloc() works: caches get sized magazines */

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

/* Sets gfporder and num: the smallest order that holds an object, then
 * larger ones only while below slab_break_order and wasting more than 1/8.
 * *left gets the waste.  Returns -1 if no order holds an object. */
static int calculate_slab_order(struct kmem_cache *c, size_t *left)
{
	unsigned int order, num;
	size_t waste;

	c->num = 0;
	for (order = 0; order < MAX_ORDER; order++) {
		num = cache_estimate(order, c->buffer_size, c->align, !OFF_SLAB(c), &waste);
		if (!num)
			continue;
		c->num = num;
		c->gfporder = order;
		*left = waste;
		if (order >= slab_break_order || waste * 8 <= (PAGE_SIZE << order))
			break;
	}
	return c->num ? 0 : -1;
}

/* Keeps a large object's descriptor off the slab if the slab's unused tail
 * cannot hold it and a general cache can serve it.  Returns 0 or -1. */
static int place_descriptor(struct kmem_cache *c, size_t *left)
{
	size_t on_slab = slab_mgmt_size(c->num, c->align);

	c->slab_size = sizeof(struct slab) + c->num * sizeof(kmem_bufctl_t);
	if (*left >= on_slab) {
		c->common.flags &= ~CFLGS_OFF_SLAB;
		*left -= on_slab;
	} else if (!(c->slabp_cache = kmem_find_general_cachep(c->slab_size))) {
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
	if (c->buffer_size >= OFF_SLAB_MIN_SIZE)
		c->common.flags |= CFLGS_OFF_SLAB;
	if (calculate_slab_order(c, &left) || (OFF_SLAB(c) && place_descriptor(c, &left)))
		return -1;
	if (!OFF_SLAB(c))
		c->slab_size = slab_mgmt_size(c->num, c->align);
	c->colour_off = max_t(size_t, L1_CACHE_BYTES, c->align);
	c->colour = (unsigned int)(left / c->colour_off);
	c->objs_bytes = c->num * c->buffer_size;
	c->reciprocal_size = (u32)(((1ULL << 32) + c->buffer_size - 1) / c->buffer_size);
	return 0;
}

/* ---- objects between slabs and array caches (c->lock held) ---------------- */

/* Takes up to n free objects of slabp into entry[], each CACHED; returns
 * how many.  One pass down the free chain with the chain head, the count
 * and the object address in registers: a refill moves every object a
 * growing cache hands out. */
static unsigned int slab_get_objs(struct kmem_cache *c, struct slab *slabp,
				  struct ac_entry *entry, unsigned int n)
{
	kmem_bufctl_t *bufctl = slab_bufctl(slabp), idx = slabp->free;
	char *s_mem = slabp->s_mem;
	size_t size = c->buffer_size;
	unsigned int taken;

	for (taken = 0; taken < n && idx != BUFCTL_END; taken++) {
		kmem_bufctl_t next = bufctl_read(&bufctl[idx]);

		bufctl_write(&bufctl[idx], BUFCTL_CACHED);
		entry[taken].state = &bufctl[idx];
		__atomic_store_n(&entry[taken].objp, s_mem + (size_t)idx * size,
				 __ATOMIC_RELEASE);	/* see ac_entry_set() */
		idx = next;
	}
	slabp->free = idx;
	slabp->inuse += taken;
	c->free_objects -= taken;
	return taken;
}

/* Puts a CACHED object back at the head of its slab's free chain. */
static void slab_put_obj(struct kmem_cache *c, struct slab *slabp, void *objp)
{
	kmem_bufctl_t idx = obj_to_index(c, slabp, objp);

	bufctl_write(&slab_bufctl(slabp)[idx], slabp->free);
	slabp->free = idx;
	slabp->inuse--;
	c->free_objects++;
}

/* Moves up to n objects from the partial slabs, then the free ones, to
 * this CPU's ac. */
static void refill_from_slabs(struct kmem_cache *c, struct array_cache *ac, unsigned int n)
{
	unsigned int avail = ac->avail, got;

	for (; n; ac_set_avail(ac, avail)) {
		struct list_head *head = &c->slabs_partial;
		struct slab *slabp;

		if (list_empty(head)) {
			head = &c->slabs_free;
			if (list_empty(head))
				return;
			c->free_touched = 1;
		}
		slabp = list_first_entry(head, struct slab, list);
		got = slab_get_objs(c, slabp, ac->entry + avail, n);
		avail += got;
		n -= got;
		list_move(&slabp->list,
			  slabp->free == BUFCTL_END ? &c->slabs_full : &c->slabs_partial);
	}
}

/* Takes a free slab off the lists onto dead, to be destroyed unlocked. */
static void slab_retire(struct kmem_cache *c, struct slab *slabp, struct list_head *dead)
{
	list_move(&slabp->list, dead);
	c->num_slabs--;
	c->free_objects -= c->num;
}

/* Returns nr cached objects to their slabs; a slab that becomes free is
 * retired to dead if the cache has more than free_limit free objects. */
static void free_block(struct kmem_cache *c, struct ac_entry *entry, unsigned int nr,
		       struct list_head *dead)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct slab *slabp = slab_obj_page(c, entry[i].objp)->slab;

		slab_put_obj(c, slabp, entry[i].objp);
		if (slabp->inuse)	/* at the tail: give its other objects time */
			list_move_tail(&slabp->list, &c->slabs_partial);
		else if (c->free_objects > c->free_limit)
			slab_retire(c, slabp, dead);
		else
			list_move(&slabp->list, &c->slabs_free);
	}
}

/* Returns the n oldest (coldest) objects of ac to their slabs: this CPU's
 * ac, or one no CPU uses any more. */
static void drain_array_locked(struct kmem_cache *c, struct array_cache *ac, unsigned int n,
			       struct list_head *dead)
{
	n = min(n, ac->avail);
	if (!n)
		return;		/* no_magazine stays unwritten */
	free_block(c, ac->entry, n, dead);
	memmove(ac->entry, ac->entry + n, (ac->avail - n) * sizeof(ac->entry[0]));
	ac_set_avail(ac, ac->avail - n);
}

/* Retires the free slabs beyond the first keep to dead. */
static void free_slabs_locked(struct kmem_cache *c, unsigned int keep, struct list_head *dead)
{
	struct slab *slabp, *n;

	list_for_each_entry_safe(slabp, n, &c->slabs_free, list)
		if (keep)
			keep--;
		else
			slab_retire(c, slabp, dead);
}

/* ---- slabs ------------------------------------------------------------------- */

/* Off-slab descriptors come from (and go back to) a general cache. */
static void *internal_alloc(struct kmem_cache *c, gfp_t flags);
static void internal_free(struct kmem_cache *c, const void *objp);

/* The descriptor of a new slab at addr coloured by colour_off bytes: after
 * the colour, or from the descriptor cache.  NULL if out of memory. */
static struct slab *alloc_slabmgmt(struct kmem_cache *c, void *addr, size_t colour_off,
				   gfp_t flags)
{
	struct slab *slabp;

	if (OFF_SLAB(c)) {
		slabp = internal_alloc(c->slabp_cache, flags & ~__GFP_ZERO);
		if (!slabp)
			return NULL;
	} else {
		slabp = (struct slab *)((char *)addr + colour_off);
		colour_off += c->slab_size;
	}
	slabp->inuse = 0;
	slabp->colouroff = colour_off;
	slabp->s_mem = (char *)addr + colour_off;
	return slabp;
}

/* Points every page of a slab at c and slabp and sets PG_slab, or clears
 * them (c NULL).  The flag changes under zone_lock (page_update_flags()),
 * set after the pointers and cleared before them. */
static void slab_map_pages(struct page *page, unsigned int order, struct kmem_cache *c,
			   struct slab *slabp)
{
	unsigned long i;

	if (!c)
		page_update_flags(page, 1UL << order, 0, PG_slab);
	for (i = 0; i < (1UL << order); i++) {
		page[i].slab_cache = c;
		page[i].slab = slabp;
	}
	if (c)
		page_update_flags(page, 1UL << order, PG_slab, 0);
}

/* Constructs every object of a new slab, hands the first n (at most num)
 * to entry[] as CACHED and chains the others as free: the objects a refill
 * takes from a new slab never go through its free chain. */
static void cache_init_objs(struct kmem_cache *c, struct slab *slabp, struct ac_entry *entry,
			    unsigned int n)
{
	kmem_bufctl_t *bufctl = slab_bufctl(slabp);
	unsigned int i, num = c->num;
	char *objp = slabp->s_mem;

	for (i = 0; c->common.ctor && i < num; i++) {
		kmem_mark_internal(index_to_obj(c, slabp, i), c->common.object_size);
		c->common.ctor(index_to_obj(c, slabp, i));
		kmem_mark_noaccess(index_to_obj(c, slabp, i), c->common.object_size);
	}
	for (i = 0; i < n; i++, objp += c->buffer_size) {
		bufctl_write(&bufctl[i], BUFCTL_CACHED);
		entry[i].state = &bufctl[i];
		__atomic_store_n(&entry[i].objp, (void *)objp,
				 __ATOMIC_RELEASE);	/* see ac_entry_set() */
	}
	for (; i < num - 1; i++)
		bufctl_write(&bufctl[i], (kmem_bufctl_t)(i + 1));
	if (n < num)
		bufctl_write(&bufctl[num - 1], BUFCTL_END);
	slabp->free = n < num ? (kmem_bufctl_t)n : BUFCTL_END;
	slabp->inuse = (unsigned short)n;
}

/* The address of a page's memory (page_address(), inline). */
static inline void *slab_page_address(const struct page *page)
{
	return (void *)(uintptr_t)((first_pfn + (unsigned long)(page - mem_map)) << PAGE_SHIFT);
}

/* Adds a slab of constructed objects to the cache, its first n objects
 * (at most num) in this CPU's array cache ac, which has room for them;
 * returns the number put there, or 0 if out of memory.  Interrupts off;
 * pages, descriptor and constructors without c->lock. */
static unsigned int cache_grow(struct kmem_cache *c, gfp_t flags, struct array_cache *ac,
			       unsigned int n)
{
	struct page *page;
	struct slab *slabp;
	size_t offset;

	spin_lock(&c->lock);
	offset = c->colour_next * c->colour_off;
	if (++c->colour_next >= c->colour)
		c->colour_next = 0;
	spin_unlock(&c->lock);

	page = alloc_pages(flags & ~__GFP_ZERO, c->gfporder);
	if (!page)
		return 0;
	slabp = alloc_slabmgmt(c, slab_page_address(page), offset, flags);
	if (!slabp) {
		__free_pages(page, c->gfporder);
		return 0;
	}
	kmem_mark_noaccess(slab_page_address(page), PAGE_SIZE << c->gfporder);
	if (!OFF_SLAB(c))
		kmem_mark_internal(slabp, c->slab_size);
	slab_map_pages(page, c->gfporder, c, slabp);
	n = min(n, c->num);
	cache_init_objs(c, slabp, ac->entry + ac->avail, n);
	ac_set_avail(ac, ac->avail + n);

	spin_lock(&c->lock);
	list_add_tail(&slabp->list, n == c->num ? &c->slabs_full : &c->slabs_partial);
	c->num_slabs++;
	c->free_objects += c->num - n;
	spin_unlock(&c->lock);
	return n;
}

/* Destructs the objects of a retired slab and frees its pages and an
 * off-slab descriptor.  c->lock not held; may run in the timer interrupt. */
static void slab_destroy(struct kmem_cache *c, struct slab *slabp)
{
	struct page *page = virt_to_page(slab_start(slabp));
	unsigned int i;

	/* back to the page allocator as it gave them: ours to touch */
	kmem_mark_internal(slab_start(slabp), PAGE_SIZE << c->gfporder);
	for (i = 0; c->common.dtor && i < c->num; i++)
		c->common.dtor(index_to_obj(c, slabp, i));
	slab_map_pages(page, c->gfporder, NULL, NULL);
	__free_pages(page, c->gfporder);	/* an on-slab slabp is gone now */
	if (OFF_SLAB(c))
		internal_free(c->slabp_cache, slabp);
}

/* Destroys the slabs on list; returns how many.  c->lock not held. */
static unsigned long slabs_destroy(struct kmem_cache *c, struct list_head *list)
{
	struct slab *slabp, *n;
	unsigned long count = 0;

	list_for_each_entry_safe(slabp, n, list, list) {
		list_del(&slabp->list);
		slab_destroy(c, slabp);
		count++;
	}
	return count;
}

/* ---- allocation and free: the per-CPU fast path ------------------------------ */

static void start_cpu_reaper(void *unused);
static void *magazine_alloc(unsigned int limit, unsigned int batch, gfp_t flags);

/* Gives this CPU a magazine of c of its own in place of no_magazine.
 * Returns it, or NULL if out of memory or if this CPU is making one
 * already (a nested call: the caller then does without).  Interrupts off. */
static struct array_cache *cpu_magazine_create(struct kmem_cache *c, gfp_t flags)
{
	unsigned int cpu = smp_processor_id();
	struct array_cache *ac;

	if (making_magazine[cpu])
		return NULL;
	making_magazine[cpu] = 1;
	ac = magazine_alloc(c->limit, c->batchcount, flags & ~__GFP_ZERO);
	making_magazine[cpu] = 0;
	if (ac) {
		spin_lock(&c->lock);	/* the counts read every slot under it */
		c->array[cpu] = ac;
		spin_unlock(&c->lock);
	}
	return ac;
}

/* One object of c, still CACHED, taken through this CPU's scratch array
 * cache when it has no magazine of c (the entry stays valid until the next
 * use of the scratch, which the caller reads before).  NULL if out of
 * memory.  Interrupts off. */
static noinline struct ac_entry *cache_alloc_one(struct kmem_cache *c, gfp_t flags)
{
	struct array_cache *ac = &scratch_arrays[smp_processor_id()].cache;

	ac->limit = ac->batchcount = 1;
	spin_lock(&c->lock);
	refill_from_slabs(c, ac, 1);
	spin_unlock(&c->lock);
	if (!ac->avail && !cache_grow(c, flags, ac, 1))
		return NULL;
	ac_set_avail(ac, 0);
	return &ac->entry[0];
}

/* Moves up to batchcount objects from the slabs to this CPU's empty array
 * cache (growing the cache if the slabs have no free object) and takes
 * one, still CACHED: the entry just above the magazine's new top.  NULL if
 * out of memory.  Interrupts off. */
static noinline struct ac_entry *cache_alloc_refill(struct kmem_cache *c, gfp_t flags)
{
	struct array_cache *ac = cpu_cache(c);

	start_cpu_reaper(NULL);
	if (unlikely(ac == &no_magazine) && !(ac = cpu_magazine_create(c, flags)))
		return cache_alloc_one(c, flags);
	ac->touched = 1;
	spin_lock(&c->lock);
	refill_from_slabs(c, ac, ac->batchcount);
	spin_unlock(&c->lock);
	if (!ac->avail && !cache_grow(c, flags, ac, ac->batchcount))
		return NULL;
	ac_set_avail(ac, ac->avail - 1);
	return &ac->entry[ac->avail];
}

/* An object of c in the given state (ACTIVE: for a caller, INTERNAL: for
 * the allocator), or NULL.  Any context: the array cache is used with
 * interrupts off and no lock (only this CPU changes it). */
static __always_inline void *cache_alloc(struct kmem_cache *c, gfp_t flags,
					 kmem_bufctl_t state)
{
	struct array_cache *ac;
	struct ac_entry *entry;
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
		entry = &ac->entry[avail];
	} else {
		entry = cache_alloc_refill(c, flags);
		if (unlikely(!entry)) {
			local_irq_restore(save);
			return NULL;
		}
	}
	objp = entry->objp;
	bufctl_write(entry->state, state);
	local_irq_restore(save);
	kmem_mark_allocated(objp, c->common.object_size, c->common.ctor || (flags & __GFP_ZERO));
	if (flags & __GFP_ZERO)
		memset(objp, 0, c->common.object_size);
	return objp;
}

/* Why an object whose state is seen cannot be freed as one in state want
 * (ACTIVE from callers, INTERNAL from the allocator itself). */
static const char *state_mismatch(kmem_bufctl_t seen)
{
	if (seen == BUFCTL_INTERNAL)
		return "the allocator's own object (a cache, descriptor or array cache)";
	if (seen == BUFCTL_ACTIVE)
		return "not the allocator's own object";
	if (seen == BUFCTL_CACHED)
		return "double free (the object is in an array cache already)";
	return "double free (the object is on its slab's free list)";
}

/* Why objp on page is no object of c to free (not a slab page, another
 * cache's, not an object's start), or NULL if it is one. */
static const char *not_an_object(const struct kmem_cache *c, const struct page *page,
				 const void *objp)
{
	if (!page || !(page->flags & PG_slab))
		return "not a slab object";
	if (page->slab_cache != c)
		return "the object belongs to another cache";
	if (!obj_bufctl(c, page, objp))
		return "not the start of an object";
	return NULL;
}

/* Why objp on page cannot be freed into c, or NULL if it can: the start
 * of an object of c in state want.  Looks only (ksize()). */
static const char *cache_free_check(struct kmem_cache *c, const struct page *page,
				    const void *objp, kmem_bufctl_t want)
{
	const char *why = not_an_object(c, page, objp);
	kmem_bufctl_t seen;

	if (why)
		return why;
	seen = bufctl_read(obj_bufctl(c, page, objp));
	return seen == want ? NULL : state_mismatch(seen);
}

/*
 * Makes the state word CACHED if it holds want; returns the state seen
 * (want: claimed).  Interrupts off.  With one CPU online nothing else can
 * touch the word meanwhile, so a plain read and write are exact: a second
 * CPU is started by this one from process context (never inside a free,
 * which runs with interrupts off), so the count cannot grow between the
 * test and the write.  With more CPUs a compare-and-swap: of two CPUs
 * freeing one object, exactly one wins and the other sees CACHED.
 */
static inline kmem_bufctl_t claim_state(kmem_bufctl_t *state, kmem_bufctl_t want)
{
	kmem_bufctl_t seen;

	if (likely(num_online_cpus() == 1)) {
		seen = bufctl_read(state);
		if (seen == want)
			bufctl_write(state, BUFCTL_CACHED);
		return seen;
	}
	seen = want;
	__atomic_compare_exchange_n(state, &seen, BUFCTL_CACHED, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return seen;
}

/* Pushes a just-CACHED object on this CPU's full array cache of c: first
 * its batchcount coldest objects go back to the slabs (cache_flusharray).
 * Without a magazine yet, the CPU makes one; if it cannot, the object goes
 * straight back to its slab.  Interrupts off. */
static noinline void cache_free_slow(struct kmem_cache *c, struct array_cache *ac,
				     struct ac_entry obj)
{
	LIST_HEAD(dead);

	start_cpu_reaper(NULL);
	if (ac == &no_magazine && !(ac = cpu_magazine_create(c, GFP_ATOMIC))) {
		spin_lock(&c->lock);
		free_block(c, &obj, 1, &dead);
		spin_unlock(&c->lock);
		slabs_destroy(c, &dead);
		return;
	}
	if (ac->avail >= ac->limit) {
		spin_lock(&c->lock);
		drain_array_locked(c, ac, ac->batchcount, &dead);
		spin_unlock(&c->lock);
		slabs_destroy(c, &dead);
	}
	ac_entry_set(ac, ac->avail, obj.objp, obj.state);
	ac_set_avail(ac, ac->avail + 1);
}

/*
 * Frees objp into c if it is the start of an object of c in state want;
 * else returns why not (and changes nothing).  page is objp's page, which
 * the caller found to be a slab page of c.  Any context.
 */
static __always_inline const char *cache_free(struct kmem_cache *c, struct page *page,
					      const void *objp, kmem_bufctl_t want)
{
	struct slab *slabp = page->slab;
	size_t offset = (uintptr_t)objp - (uintptr_t)slabp->s_mem;	/* huge if before */
	unsigned int idx = obj_index(c, offset);
	struct array_cache *ac;
	kmem_bufctl_t *state, seen;
	unsigned long save;

	if (unlikely(offset >= c->objs_bytes || (size_t)idx * c->buffer_size != offset))
		return not_an_object(c, page, objp);
	state = &slab_bufctl(slabp)[idx];
	local_irq_save(save);
	seen = claim_state(state, want);
	if (unlikely(seen != want)) {
		local_irq_restore(save);
		return state_mismatch(seen);
	}
	kmem_mark_freed(objp, c->common.object_size);
	ac = cpu_cache(c);
	if (likely(ac->avail < ac->limit)) {
		ac_entry_set(ac, ac->avail, (void *)objp, state);
		ac_set_avail(ac, ac->avail + 1);
	} else {
		cache_free_slow(c, ac, (struct ac_entry){ (void *)objp, state });
	}
	local_irq_restore(save);
	return NULL;
}

/* Is page a slab page of c? */
static inline int page_of_cache(const struct page *page, const struct kmem_cache *c)
{
	return page && (page->flags & PG_slab) && page->slab_cache == c;
}

/* Frees objp into c if it is an object there in state want, else reports
 * it (fn, caller) and returns 0.  Any context. */
static int cache_free_checked(struct kmem_cache *c, const void *objp, kmem_bufctl_t want,
			      const char *fn, void *caller)
{
	struct page *page = virt_to_page(objp);
	const char *why = page_of_cache(page, c) ? cache_free(c, page, objp, want) :
						   not_an_object(c, page, objp);

	if (unlikely(why))
		kmem_bad_free(fn, objp, why, caller);
	return !why;
}

/* An object of c (NULL: the general cache for size) for the allocator's
 * own use, which kfree() refuses.  NULL if out of memory.  Any context. */
static void *internal_alloc(struct kmem_cache *c, gfp_t flags)
{
	void *objp = c ? cache_alloc(c, flags, BUFCTL_INTERNAL) : NULL;

	if (objp)
		atomic_long_add((long)c->buffer_size, &slab_internal_bytes);
	return objp;
}

/* Gives back an object from internal_alloc() (c NULL: its own cache);
 * not inlined, so that a report names the caller inside the allocator. */
static noinline void internal_free(struct kmem_cache *c, const void *objp)
{
	struct page *page = virt_to_page(objp);

	if (!c && page && (page->flags & PG_slab))
		c = page->slab_cache;
	if (cache_free_checked(c, objp, BUFCTL_INTERNAL, "slab internal free",
			       __builtin_return_address(0)))
		atomic_long_add(-(long)c->buffer_size, &slab_internal_bytes);
}

/* A constructed object zeroed would go back unconstructed: refused, as
 * Linux refuses it.  Reports the refusal of __GFP_ZERO on c. */
static noinline void refuse_zero_with_ctor(struct kmem_cache *c)
{
	atomic_long_inc(&slab_zero_ctor_refusals);
	pr_err("kmem_cache_alloc: __GFP_ZERO on cache %s, which has a constructor: refused\n",
	       c->common.name);
}

void *__kmem_cache_alloc(struct kmem_cache *c, gfp_t flags)
{
	void *objp;

	if (unlikely(flags & c->zero_refused)) {
		refuse_zero_with_ctor(c);
		return NULL;
	}
	objp = cache_alloc(c, flags, BUFCTL_ACTIVE);
	kmem_debug_validate("kmem_cache_alloc", objp);
	return objp;
}

void __kmem_cache_free(struct kmem_cache *c, void *objp)
{
	struct page *page;
	const char *why;

	if (unlikely(!objp))
		return;
	page = cache_virt_to_page(c, objp);
	why = likely(page_of_cache(page, c)) ? cache_free(c, page, objp, BUFCTL_ACTIVE) :
					       not_an_object(c, page, objp);
	if (unlikely(why)) {
		kmem_bad_free("kmem_cache_free", objp, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kmem_cache_free", objp);
}

/* ---- kmalloc ------------------------------------------------------------------- */

/* kmalloc_caches[(size - 1) >> KMALLOC_SHIFT]: the general cache for size,
 * NULL past the largest made (and before it is made).  Filled as the
 * classes are made, smallest first, so that one load finds a class. */
#define KMALLOC_SHIFT	3
static struct kmem_cache *kmalloc_caches[KMALLOC_MAX_CACHE_SIZE >> KMALLOC_SHIFT];

/* Points the table at cs's cache for the sizes above from up to cs_size. */
static void kmalloc_table_fill(size_t from, const struct cache_sizes *cs)
{
	size_t i;

	for (i = from >> KMALLOC_SHIFT; i < cs->cs_size >> KMALLOC_SHIFT; i++)
		kmalloc_caches[i] = cs->cs_cachep;
}

struct kmem_cache *kmem_find_general_cachep(size_t size)
{
	return size - 1 < KMALLOC_MAX_CACHE_SIZE ? kmalloc_caches[(size - 1) >> KMALLOC_SHIFT] :
						   NULL;
}

void *__kmalloc(size_t size, gfp_t flags)
{
	struct kmem_cache *c = kmem_find_general_cachep(size);
	void *objp;

	if (likely(c))
		objp = cache_alloc(c, flags, BUFCTL_ACTIVE);
	else if (!size)
		return ZERO_SIZE_PTR;
	else
		objp = kmalloc_large(size, flags);
	kmem_debug_validate("kmalloc", objp);
	return objp;
}

/* Is c one of kmalloc()'s size classes (whose objects kfree() takes)? */
static int is_general(const struct kmem_cache *c)
{
	return c->common.flags & CFLGS_GENERAL;
}

void __kfree(const void *objp)
{
	struct kmem_cache *c;
	struct page *page;
	const char *why;

	if (unlikely(ZERO_OR_NULL_PTR(objp)))
		return;
	page = virt_to_page(objp);
	if (unlikely(!page || !(page->flags & PG_slab))) {
		if (kfree_large(objp, page))
			kmem_bad_free("kfree", objp, KMEM_NOT_KMALLOC, __builtin_return_address(0));
		else
			kmem_debug_validate("kfree", objp);
		return;
	}
	c = page->slab_cache;
	why = likely(is_general(c)) ? cache_free(c, page, objp, BUFCTL_ACTIVE) :
				      "an object of a cache, not a kmalloc() block";
	if (unlikely(why)) {
		kmem_bad_free("kfree", objp, why, __builtin_return_address(0));
		return;
	}
	kmem_debug_validate("kfree", objp);
}

size_t __ksize(const void *objp)
{
	const struct page *page;
	size_t size;

	if (ZERO_OR_NULL_PTR(objp))
		return 0;
	page = virt_to_page(objp);
	if (page && (page->flags & PG_slab) && is_general(page->slab_cache) &&
	    !cache_free_check(page->slab_cache, page, objp, BUFCTL_ACTIVE))
		return ((struct kmem_cache *)page->slab_cache)->common.object_size;
	size = ksize_large(objp, page);
	if (!size)
		kmem_bad_free("ksize", objp, KMEM_NOT_KMALLOC, __builtin_return_address(0));
	return size;
}

/* ---- array cache sizing -------------------------------------------------------- */

static void cache_set_tunables(struct kmem_cache *c, unsigned int limit, unsigned int batch)
{
	c->limit = limit;
	c->batchcount = batch;
	c->free_limit = (1 + NR_CPUS) * batch + c->num;
}

static int is_boot_array(const struct array_cache *ac)
{
	return (const char *)ac >= (const char *)boot_arrays &&
	       (const char *)ac < (const char *)(boot_arrays + ARRAY_SIZE(boot_arrays));
}


/* Gives c static one-entry array caches (boot, before kmalloc() works). */
static void setup_boot_arrays(struct kmem_cache *c)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		BUG_ON(boot_arrays_used >= ARRAY_SIZE(boot_arrays));
		c->array[cpu] = &boot_arrays[boot_arrays_used++].cache;
		c->array[cpu]->limit = c->array[cpu]->batchcount = BOOT_CPUCACHE_ENTRIES;
	}
	cache_set_tunables(c, BOOT_CPUCACHE_ENTRIES, BOOT_CPUCACHE_ENTRIES);
}

/* ---- running on every CPU -------------------------------------------------- */

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

	spin_lock(&c->lock);
	drain_array_locked(c, ac, ac->avail, &dead);
	spin_unlock(&c->lock);
	atomic_long_add((long)(slabs_destroy(c, &dead) << c->gfporder), pages);
}

/* This CPU's part of a drain_req (on_each_cpu): its magazine of one cache,
 * or of every cache newest first (slabs destroyed on the way free
 * descriptors into older caches).  Interrupts off; takes slab_caches_lock
 * for all. */
static void drain_local(void *arg)
{
	struct drain_req *req = arg;
	struct kmem_cache *c;

	if (req->c) {
		drain_cpu(req->c, &req->pages);
		return;
	}
	spin_lock(&slab_caches_lock);
	list_for_each_entry_reverse(c, &slab_caches, common.list)
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
	u->old[cpu] = u->c->array[cpu];
	u->c->array[cpu] = u->fresh[cpu];
}

/* This CPU's part of a swap (on_each_cpu).  Interrupts off; takes c->lock. */
static void ccupdate_local(void *info)
{
	struct ccupdate *u = info;

	spin_lock(&u->c->lock);
	ccupdate_slot(u, smp_processor_id());
	spin_unlock(&u->c->lock);
}

/* ---- array cache sizing (continued) ----------------------------------------- */

/* An empty magazine of limit entries (batch per refill or flush), an
 * internal object; NULL if out of memory.  Any context. */
static void *magazine_alloc(unsigned int limit, unsigned int batch, gfp_t flags)
{
	size_t bytes = sizeof(struct array_cache) + limit * sizeof(struct ac_entry);
	struct array_cache *ac = internal_alloc(kmem_find_general_cachep(bytes), flags);

	if (ac)
		*ac = (struct array_cache){ .limit = limit, .batchcount = batch };
	return ac;
}

/* Is ac a magazine from magazine_alloc() (not a boot one, not no_magazine)? */
static int own_magazine(const struct array_cache *ac)
{
	return ac && ac != &no_magazine && !is_boot_array(ac);
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
					internal_free(NULL, u->fresh[cpu]);
			return -1;
		}
	}
	return 0;
}

/*
 * Gives c array caches of limit entries from the general caches (internal
 * objects).  A listed cache may be in use on every CPU: each online CPU
 * swaps its own slot (on_each_cpu), then the slots of offline CPUs (and all
 * of an unlisted cache, which nobody else can reach) are swapped here; the
 * old magazines' objects go back to the slabs.  Returns 0, or -1 (c
 * unchanged) if out of memory or if other CPUs are online and interrupts
 * are off.
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
		if (u.old[cpu])				/* boot ones are static */
			drain_array_locked(c, u.old[cpu], u.old[cpu]->avail, &dead);
	cache_set_tunables(c, limit, batch);
	spin_unlock(&c->lock);
	local_irq_restore(save);
	slabs_destroy(c, &dead);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (own_magazine(u.old[cpu]))
			internal_free(NULL, u.old[cpu]);
	return 0;
}

int slab_tune_cpucache(struct kmem_cache *c, unsigned int limit, unsigned int batch)
{
	if (!limit || !batch || batch > limit)
		return -1;
	return do_tune_cpucache(c, limit, batch);
}

/* Entries of a magazine of objects of size bytes: MAGAZINE_BYTES of them,
 * between MAGAZINE_MIN and MAGAZINE_MAX. */
unsigned int slab_magazine_limit(size_t size)
{
	return (unsigned int)min_t(size_t, max_t(size_t, MAGAZINE_BYTES / size, MAGAZINE_MIN),
				    MAGAZINE_MAX);
}

/* Sizes c's array caches by bytes: fewer entries for larger objects. */
static int enable_cpucache(struct kmem_cache *c)
{
	unsigned int limit = slab_magazine_limit(c->buffer_size);

	return do_tune_cpucache(c, limit, (limit + 1) / 2);
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
	return slabs_destroy(c, &dead) << c->gfporder;
}

struct kmem_cache *cache_struct_alloc(void)
{
	return internal_alloc(&cache_cache, GFP_KERNEL | __GFP_ZERO);
}

void cache_struct_free(struct kmem_cache *c)
{
	internal_free(&cache_cache, c);
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
	c->nr_pfns = mem_map ? end_pfn - first_pfn : 0;
	c->zero_refused = cc->ctor ? __GFP_ZERO : 0;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->slabs_partial);
	INIT_LIST_HEAD(&c->slabs_full);
	INIT_LIST_HEAD(&c->slabs_free);
	c->num_slabs = c->free_objects = 0;
	c->colour_next = c->free_touched = 0;
	if (slab_up)
		return enable_cpucache(c);
	setup_boot_arrays(c);
	return 0;
}

/* Frees the magazines of an empty, unlisted cache. */
void cache_close(struct kmem_cache *c)
{
	unsigned int cpu;

	free_slabs_now(c);
	WARN_ON(c->num_slabs);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (own_magazine(c->array[cpu]))
			internal_free(NULL, c->array[cpu]);
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
	unsigned long save, pages = 0;

	slab_on_each_cpu(drain_local, &req);
	/* newest first: descriptors freed on the way go to older caches'
	 * magazines here, drained when their turn comes */
	spin_lock_irqsave(&slab_caches_lock, save);
	list_for_each_entry_reverse(c, &slab_caches, common.list) {
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
unsigned long cache_in_use(struct kmem_cache *c)
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
	unsigned long save;

	(void)unused;
	spin_lock_irqsave(&slab_caches_lock, save);
	list_for_each_entry(c, &slab_caches, common.list)
		cache_reap_one(c);
	/* only this CPU writes it; tests read it from others */
	__atomic_store_n(&slab_reap_passes[cpu], slab_reap_passes[cpu] + 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&slab_caches_lock, save);
	mod_timer(&reap_timers[cpu], round_jiffies_period(jiffies, REAP_INTERVAL));
}

/* Arms this CPU's reap timer if it is not yet (once timers work).  On
 * every CPU from kmem_cache_init_late(); a CPU started later arms its own
 * on its first refill or flush.  Interrupts off. */
static void start_cpu_reaper(void *unused)
{
	unsigned int cpu = smp_processor_id();

	(void)unused;
	if (likely(reaper_armed[cpu]) || !__atomic_load_n(&reaper_enabled, __ATOMIC_ACQUIRE))
		return;
	reaper_armed[cpu] = 1;
	setup_timer(&reap_timers[cpu], cache_reap, cpu);
	mod_timer(&reap_timers[cpu], round_jiffies_period(jiffies, REAP_INTERVAL));
}

/* ---- boot and accounting ------------------------------------------------------------ */

/*
 * The cache of caches is static; the general caches are made smallest
 * first, their structs from it, off-slab descriptors only from general
 * caches made before.  Until all exist every cache has a static one-entry
 * magazine; then each gets full-size ones.  Boot, interrupts off.
 */
void kmem_cache_init(void)
{
	unsigned long ram_pages = totalram_pages() + nr_reserved_pages();
	struct kmem_cache *c;
	unsigned int i;

	slab_break_order = ram_pages > SLAB_BREAK_RAM_BYTES / PAGE_SIZE ? 1 : 0;
	cache_cache.common = (struct kmem_cache_common){ .name = "kmem_cache",
							 .object_size = sizeof(struct kmem_cache),
							 .flags = SLAB_HWCACHE_ALIGN };
	if (cache_open(&cache_cache) || kmem_cache_register(&cache_cache))
		panic("SLAB: cannot lay out the cache of caches");
	for (i = 0; i < ARRAY_SIZE(malloc_sizes); i++) {
		struct cache_sizes *cs = &malloc_sizes[i];

		if (cs->cs_size > KMALLOC_MAX_CACHE_SIZE)
			break;		/* larger: whole pages (see KMALLOC_MAX_CACHE_SIZE) */
		/* each to its largest power-of-two divisor: powers of two
		 * naturally, 24 and 40 to 8, 48 to 16, 96, 160 and 224 to 32, 192
		 * to 64 */
		cs->cs_cachep = __kmem_cache_create(cs->cs_name, cs->cs_size,
						    cs->cs_size & -cs->cs_size, 0, NULL, NULL);
		if (!cs->cs_cachep)
			break;		/* larger than any slab: kmalloc() takes pages */
		cs->cs_cachep->common.flags |= CFLGS_GENERAL;
		kmalloc_table_fill(kmalloc_max_size, cs);
		kmalloc_max_size = cs->cs_size;
	}
	if (!kmalloc_max_size)
		panic("SLAB: cannot create the general caches");
	slab_up = 1;
	list_for_each_entry(c, &slab_caches, common.list)	/* nothing else runs yet */
		if (enable_cpucache(c))
			panic("SLAB: no memory for the array cache of %s", c->common.name);
	pr_info("SLAB: general caches of %zu to %zu bytes, slab order break %u, "
		"%d-byte cache lines\n", malloc_sizes[0].cs_size, kmalloc_max_size,
		slab_break_order, L1_CACHE_BYTES);
}

/* Arms every online CPU's reap timer.  Process context, interrupts on. */
void kmem_cache_init_late(void)
{
	__atomic_store_n(&reaper_enabled, 1, __ATOMIC_RELEASE);
	slab_on_each_cpu(start_cpu_reaper, NULL);
}

void cache_get_counts(struct kmem_cache *c, struct slab_counts *n)
{
	unsigned int cpu;

	n->num_slabs = c->num_slabs;
	n->num_objs = c->num_slabs * c->num;
	n->active_objs = n->num_objs - c->free_objects;
	n->cached = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++)	/* other CPUs' change meanwhile */
		n->cached += ac_avail(c->array[cpu]);
	n->held = n->active_objs - n->cached;
}

unsigned long slab_internal_bytes_now(void)
{
	return (unsigned long)atomic_long_read(&slab_internal_bytes);
}

/* bytes_used: objects callers hold, at their padded size.  Off-slab
 * descriptors are general-cache objects too, but they come and go with
 * slabs, not requests: they count in slab_pages only. */
void __kmem_get_stats(struct kmem_stats *st)
{
	unsigned long save, held_bytes = 0;
	struct kmem_cache *c;
	struct slab_counts n;

	st->slab_pages = 0;
	spin_lock_irqsave(&slab_caches_lock, save);
	list_for_each_entry(c, &slab_caches, common.list) {
		spin_lock(&c->lock);
		cache_get_counts(c, &n);
		spin_unlock(&c->lock);
		st->slab_pages += n.num_slabs << c->gfporder;
		held_bytes += n.held * c->buffer_size;
	}
	spin_unlock_irqrestore(&slab_caches_lock, save);
	/* the caches' structs, array caches and off-slab descriptors are held
	 * objects too, but the allocator's own */
	st->bytes_used = held_bytes - (unsigned long)atomic_long_read(&slab_internal_bytes);
	st->large_pages = (unsigned long)atomic_long_read(&large_block_pages);
}

KMEM_PUBLIC(kmalloc)
KMEM_PUBLIC(kfree)
KMEM_PUBLIC(ksize)
KMEM_PUBLIC(kmem_cache_alloc)
KMEM_PUBLIC(kmem_cache_free)
KMEM_PUBLIC(kmem_cache_shrink)
KMEM_PUBLIC(kmem_reclaim)
KMEM_PUBLIC(kmem_get_stats)
