/* test_slub_sheaves.c - self-tests of SLUB's sheaves (CONFIG_SLUB_SHEAVES):
 * pop and push on this CPU's main sheaf, the swap with the spare, the
 * barn's trades and its limits (10 full, 10 empty), the bulk refill from
 * partial and new slabs, flushes to the slabs on shrink and destroy (no
 * object lost or counted twice: the validator's count), an "interrupt"
 * that finds the flag taken (the slab path: in the kernel with the flag
 * set by hand, on the host also through the harness's hook right after
 * the fast path takes it), the retry after flushing the barn when the page
 * allocator fails, the cheap checks of a free, the capacities Linux
 * computes, the boot caches without sheaves and the bootstrap sheaf, and
 * a shrink that reaches every CPU, and the prefilled sheaves served from
 * the barn (a full sheaf taken, an oversize one, the return to this CPU's
 * spare, to the barn, to the slabs when the barn is full).  These look
 * inside the caches through mm/slub.h (skipped under kmem_debug: allocator_suite.h).
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/smp.h>
#include <tiny/string.h>
#include "../../mm/slub.h"
#include "allocator_suite.h"

static void sheaves_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

static struct kmem_cache *own_cache(const char *name, size_t size)
{
	return kmem_cache_create(name, size, 0, SLAB_NO_MERGE, NULL, NULL);
}

/* This CPU's sheaves of c (interrupts off). */
static struct slub_pcs *here(struct kmem_cache *c)
{
	return arch_this_cpu_ptr(c->cpu.sheaves);
}

#define MANY	2048

static void *objs[MANY];

/* Allocates n objects of c into objs[]: 1, or 0 if one failed (those
 * allocated are then freed). */
static int alloc_n(struct kmem_cache *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_ATOMIC);
		if (!objs[i]) {
			while (i--)
				kmem_cache_free(c, objs[i]);
			return 0;
		}
	}
	return 1;
}

static void free_n(struct kmem_cache *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
}

/* Sets or clears this CPU's flag of c by hand: what an interrupt of the
 * fast path finds.  Interrupts off. */
static void flag_set(struct kmem_cache *c, unsigned long v)
{
	arch_this_cpu_write(c->cpu.sheaves + PCS_LOCKED, v);
}

/* ---- capacity and bootstrap ------------------------------------------------------- */

/* Linux's capacities (4, 12, 26, 60 by object size), each rounded up so
 * that a sheaf fills its kmalloc() class exactly. */
static void capacity_follows_linux(struct ktest *t)
{
	static const struct { size_t size; unsigned int linux_cap; } cases[] = {
		{ 64, 60 }, { 256, 26 }, { 1024, 12 }, { PAGE_SIZE, 4 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kmem_cache *c = own_cache("test_capacity", cases[i].size);
		unsigned int cap;
		size_t bytes;
		void *p;

		KTEST_ASSERT_NOT_NULL(t, c);
		cap = c->barn.capacity;
		bytes = sizeof(struct slub_sheaf) + cap * sizeof(void *);
		p = kmalloc(bytes, GFP_KERNEL);
		KTEST_EXPECT_GE(t, cap, cases[i].linux_cap);
		KTEST_EXPECT_LT(t, cap, cases[i].linux_cap + 32);
		if (p)
			KTEST_EXPECT_EQ(t, ksize(p), bytes);	/* fills its class */
		kfree(p);
		ktest_info(t, "objects of %zu bytes: capacity %u (Linux's %u, rounded up)",
			   cases[i].size, cap, cases[i].linux_cap);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	}
}

/* kmem_cache_create_args()'s sheaf_capacity: 120 for objects whose
 * capacity is about 60 gives sheaves of 120 (the main made again on first
 * use, at that capacity); 20, below Linux's, leaves Linux's; a cache with
 * one merges with no other of its stride. */
static void creator_raises_capacity(struct ktest *t)
{
	struct kmem_cache_args big = { .sheaf_capacity = 120 }, small = { .sheaf_capacity = 20 };
	struct kmem_cache *plain = own_cache("test_plain64", 64), *c, *d;
	unsigned long flags;

	KTEST_ASSERT_NOT_NULL(t, plain);
	c = kmem_cache_create_args("test_cap120", 64, &big, 0);
	d = kmem_cache_create_args("test_cap20", 64, &small, 0);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, d);
	KTEST_EXPECT_EQ(t, c->barn.capacity, 120U);
	KTEST_EXPECT_EQ(t, d->barn.capacity, plain->barn.capacity);
	KTEST_EXPECT_PTR_EQ(t, c->target, c);
	KTEST_EXPECT_PTR_EQ(t, d->target, d);
	local_irq_save(flags);
	objs[0] = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_NOT_NULL(t, objs[0]);
	KTEST_EXPECT_EQ(t, here(c)->main->capacity, 120U);
	kmem_cache_free(c, objs[0]);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(d), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(plain), 0);
}

/* The cache of caches, made before kmalloc(), has no sheaves: its main is
 * the static bootstrap sheaf, of capacity 0, on every CPU, and it works
 * through the slab path; the kmalloc() classes got their capacity once
 * they all existed; a cache made later has a real, empty main sheaf on
 * every possible CPU from its creation (as in Linux), so that its first
 * allocation takes no page for a sheaf. */
static void boot_caches_and_bootstrap_sheaf(struct ktest *t)
{
	struct kmem_cache *c, *k;
	unsigned long flags;
	unsigned int cpu;
	void *p;

	KTEST_EXPECT_EQ(t, cache_cache.barn.capacity, 0u);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KTEST_EXPECT_EQ(t, ((struct slub_pcs *)arch_per_cpu_ptr(cache_cache.cpu.sheaves,
									 cpu))->main->capacity, 0u);
	c = own_cache("test_bootstrap", 64);	/* its struct: through the slab path */
	KTEST_ASSERT_NOT_NULL(t, c);
	p = kmalloc(64, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	k = virt_to_page(p)->slab_cache;
	KTEST_EXPECT_GT(t, k->barn.capacity, 0u);
	kfree(p);
	for (cpu = 0; cpu < num_possible_cpus(); cpu++) {	/* made with the cache */
		struct slub_sheaf *main = ((struct slub_pcs *)arch_per_cpu_ptr(c->cpu.sheaves,
									       cpu))->main;

		KTEST_EXPECT_EQ(t, main->capacity, c->barn.capacity);
		KTEST_EXPECT_EQ(t, main->size, 0u);
	}
	local_irq_save(flags);
	p = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, here(c)->main->capacity, c->barn.capacity);
	kmem_cache_free(c, p);
	local_irq_restore(flags);
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- main, spare, barn --------------------------------------------------------------- */

/* A free pushes main and an allocation pops it: last in, first out; the
 * handle's count follows; the object just freed is refused again, and so
 * are an object of another cache and a pointer into an object. */
static void main_is_lifo_and_checked(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_sheaf_lifo", 64), *d = own_cache("test_other", 64);
	unsigned long flags, bad = kmem_bad_free_count;
	unsigned int size;
	void *a, *b, *x;

	KTEST_ASSERT_TRUE(t, c && d);
	ktest_expect_reports(t, 3);
	local_irq_save(flags);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	x = kmem_cache_alloc(d, GFP_ATOMIC);
	if (!a || !b || !x) {
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, a && b && x);
	}
	size = here(c)->main->size;
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 2L);
	kmem_cache_free(c, a);
	KTEST_EXPECT_EQ(t, here(c)->main->size, size + 1);
	KTEST_EXPECT_PTR_EQ(t, here(c)->main->objects[size], a);
	kmem_cache_free(c, a);			/* just freed: refused */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
	kmem_cache_free(c, x);			/* another cache's */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 2);
	kmem_cache_free(c, (char *)b + 8);	/* not an object's start */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 3);
	KTEST_EXPECT_EQ(t, here(c)->main->size, size + 1);
	KTEST_EXPECT_PTR_EQ(t, kmem_cache_alloc(c, GFP_ATOMIC), a);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 2L);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	kmem_cache_free(d, x);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(d), 0);
}

/* Frees beyond main's capacity swap in the spare, then trade full sheaves
 * for empty ones with the barn, which keeps at most 10 full; allocations
 * trade them back and the barn keeps at most 10 empty.  Every object is
 * counted once throughout (the validator). */
static void spare_and_barn_trade_within_limits(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_barn", 64);
	unsigned int cap, n, i, most_full = 0, most_empty = 0;
	unsigned long flags;
	int ok;

	KTEST_ASSERT_NOT_NULL(t, c);
	cap = c->barn.capacity;
	n = min_t(unsigned int, MANY, cap * 14);
	local_irq_save(flags);
	ok = alloc_n(c, n);
	if (ok) {
		kmem_cache_free(c, objs[0]);	/* main: a real sheaf, one object */
		for (i = 1; i < n; i++) {
			kmem_cache_free(c, objs[i]);
			most_full = max(most_full, c->barn.nr_full);
			if (i == cap + 1)
				KTEST_EXPECT_NOT_NULL(t, here(c)->spare);
		}
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		ok = alloc_n(c, n);
		for (i = 0; ok && i < n; i++)
			most_empty = max(most_empty, c->barn.nr_empty);
		if (ok)
			free_n(c, n);
	}
	local_irq_restore(flags);
	KTEST_ASSERT_TRUE(t, ok);
	KTEST_EXPECT_EQ(t, most_full, 10u);
	KTEST_EXPECT_LE(t, most_empty, 10u);
	KTEST_EXPECT_LE(t, c->barn.nr_full, 10u);
	ktest_info(t, "capacity %u: barn at most %u full, %u empty", cap, most_full, most_empty);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* An empty main with no spare and an empty barn is refilled in bulk: from
 * a new slab, then from the partial list. */
static void refill_in_bulk(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_refill", 64);
	unsigned long flags;
	unsigned int cap;
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	cap = c->barn.capacity;
	local_irq_save(flags);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, here(c)->main->size, cap - 1);	/* one refill: cap objects */
	KTEST_EXPECT_GE(t, atomic_long_read(&c->total_objects), (long)cap);
	kmem_cache_free(c, a);
	local_irq_restore(flags);
	kmem_cache_shrink(c);			/* back to the slabs: a partial one kept */
	KTEST_EXPECT_EQ(t, slub_sheaved_objects(c), 0UL);
	local_irq_save(flags);
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, here(c)->main->size, cap - 1);
	kmem_cache_free(c, b);
	local_irq_restore(flags);
	KTEST_EXPECT_NOT_NULL(t, a);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Shrink flushes main, spare and barn to the slabs and gives the empty
 * slabs back: nothing left in sheaves, no slab left. */
static void shrink_flushes_everything(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_flush", 64);
	unsigned long flags;
	int ok;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	ok = alloc_n(c, min_t(unsigned int, MANY, c->barn.capacity * 5));
	if (ok)
		free_n(c, min_t(unsigned int, MANY, c->barn.capacity * 5));
	local_irq_restore(flags);
	KTEST_ASSERT_TRUE(t, ok);
	KTEST_EXPECT_GT(t, slub_sheaved_objects(c), 0UL);
	KTEST_EXPECT_GT(t, c->barn.nr_full + c->barn.nr_empty, 0u);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, slub_sheaved_objects(c), 0UL);
	KTEST_EXPECT_EQ(t, c->barn.nr_full + c->barn.nr_empty, 0u);
	KTEST_EXPECT_EQ(t, atomic_long_read(&c->nr_slabs), 0L);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- interrupts -------------------------------------------------------------------- */

/* With this CPU's flag taken (as an interrupt of the fast path finds it),
 * allocation and free go to the slab path: main is not touched. */
static void taken_flag_means_slab_path(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_flag", 64);
	unsigned long flags;
	unsigned int size;
	void *warm, *a;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	warm = kmem_cache_alloc(c, GFP_ATOMIC);
	kmem_cache_free(c, warm);
	size = here(c)->main->size;
	flag_set(c, 1);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, here(c)->main->size, size);
	kmem_cache_free(c, a);
	KTEST_EXPECT_EQ(t, here(c)->main->size, size);
	flag_set(c, 0);
	local_irq_restore(flags);
	KTEST_EXPECT_NOT_NULL(t, a);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static struct {
	struct kmem_cache *c;
	void *held;
	unsigned int size;		/* main's size the interrupt saw */
	unsigned long locked;		/* the flag it saw */
	int ran;
} intr;

/* An "interrupt" right after the fast path took the flag: it allocates
 * and frees through the slab path, and sees main as the path left it. */
static void interrupt_uses_slab_path(void)
{
	intr.locked = here(intr.c)->locked;
	intr.size = here(intr.c)->main->size;
	intr.held = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	kmem_cache_free(intr.c, kmem_cache_alloc(intr.c, GFP_ATOMIC));
	intr.ran++;
}

/* The host harness's hook: the fast path interrupted with the flag taken. */
static void interrupted_fast_path(struct ktest *t)
{
	unsigned long flags;
	void *warm, *obj;
	unsigned int size;

	intr = (typeof(intr)){ .c = own_cache("test_intr", 64) };
	KTEST_ASSERT_NOT_NULL(t, intr.c);
	local_irq_save(flags);
	warm = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	kmem_cache_free(intr.c, warm);
	size = here(intr.c)->main->size;
	if (arch_percpu_set_test_hook(interrupt_uses_slab_path)) {
		local_irq_restore(flags);
		ktest_skip(t, "no hook into the per-CPU write here (the host harness has one)");
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
		return;
	}
	obj = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, intr.ran, 1);
	KTEST_EXPECT_EQ(t, intr.locked, 1UL);
	KTEST_EXPECT_EQ(t, intr.size, size);
	KTEST_EXPECT_PTR_EQ(t, obj, warm);	/* the fast path's pop, undisturbed */
	KTEST_EXPECT_PTR_NE(t, intr.held, obj);
	KTEST_EXPECT_EQ(t, here(intr.c)->main->size, size - 1);
	kmem_cache_free(intr.c, obj);
	kmem_cache_free(intr.c, intr.held);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(intr.c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
}

/* ---- memory pressure ------------------------------------------------------------------ */

/* The page allocator fails while the barn holds full sheaves and the
 * partial list is empty: the barn goes back to the slabs and the slab path
 * tries again, and succeeds. */
/* Fills c's barn by freeing, takes the partial slabs' objects through
 * the slab path (this CPU's flag set by hand) and then asks for one more
 * with the page allocator failing: with slub_pressure_flush the barn goes
 * back to the slabs and the allocation is served; without, it fails and
 * the barn keeps its sheaves.  Returns the object (freed) or NULL. */
static void *alloc_under_pressure(struct ktest *t, struct kmem_cache *c, int flush,
				  unsigned int *barn_before, unsigned int *barn_after)
{
	unsigned int n = min_t(unsigned int, MANY / 2, c->barn.capacity * 5), held = 0;
	int ok, saved = slub_pressure_flush;
	unsigned long flags;
	void *obj = NULL;

	local_irq_save(flags);
	ok = alloc_n(c, n);
	if (ok)
		free_n(c, n);
	*barn_before = c->barn.nr_full;
	flag_set(c, 1);				/* the slab path from here */
	while (ok && READ_ONCE(c->nr_partial) && held < MANY / 2 &&
	       (objs[MANY / 2 + held] = kmem_cache_alloc(c, GFP_ATOMIC)))
		held++;
	if (ok && !READ_ONCE(c->nr_partial)) {
		slub_pressure_flush = flush;
		page_alloc_fail_nth(1);
		obj = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN);
		page_alloc_fail_nth(0);
		slub_pressure_flush = saved;
	}
	*barn_after = c->barn.nr_full;
	kmem_cache_free(c, obj);
	while (held--)
		kmem_cache_free(c, objs[MANY / 2 + held]);
	flag_set(c, 0);
	local_irq_restore(flags);
	KTEST_EXPECT_TRUE(t, ok);
	return obj;
}

static void page_failure_flushes_barn_and_retries(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_pressure", 64);
	unsigned int before, after;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_NOT_NULL(t, alloc_under_pressure(t, c, 1, &before, &after));
	KTEST_EXPECT_GT(t, before, 0u);
	KTEST_EXPECT_EQ(t, after, 0u);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* slub_pressure_flush=0 (make smallmem's comparison): the same allocation
 * fails and the barn keeps its full sheaves. */
static void without_pressure_flush_the_barn_stays(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_pressure", 64);
	unsigned int before, after;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_NULL(t, alloc_under_pressure(t, c, 0, &before, &after));
	KTEST_EXPECT_GT(t, before, 0u);
	KTEST_EXPECT_EQ(t, after, before);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- prefilled sheaves ----------------------------------------------------------- */

/* Are the prefilled sheaves the barn's?  Not with the debugging layer
 * built: mm/util_sheaf.c serves them then (skipped). */
static int prefill_generic(struct ktest *t)
{
	if (!IS_ENABLED(CONFIG_SLAB_PREFILL_GENERIC))
		return 0;
	ktest_skip(t, "prefilled sheaves through the debugging layer (mm/util_sheaf.c)");
	return 1;
}

/* Fills c's barn with full sheaves: frees objects until it holds at least
 * want full ones (at most 10).  The objects stay in objs[]: their frees
 * made the barn's sheaves.  1, or 0 out of memory.  Interrupts off. */
static int barn_fill(struct kmem_cache *c, unsigned int want)
{
	unsigned int i, n = min_t(unsigned int, MANY, c->barn.capacity * (want + 4));

	if (!alloc_n(c, n))
		return 0;
	for (i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	return c->barn.nr_full >= want;
}

/* The end of a prefill case: no object of c out, the allocator
 * consistent, and c destroyed without a complaint. */
static void expect_all_back_and_destroy(struct ktest *t, struct kmem_cache *c)
{
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A prefill of at most the capacity takes a full sheaf of the barn, whose
 * objects then count as in use; they come out until it is depleted, then
 * NULL, even with this CPU's flag taken (an interrupt of its sheaves). */
static void prefill_takes_a_full_barn_sheaf(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_prefill_barn", 64);
	unsigned int full, got = 0, cap;
	struct slab_sheaf *sheaf = NULL;
	unsigned long flags;
	void *obj;
	int ok;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (prefill_generic(t)) {
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	cap = c->barn.capacity;
	local_irq_save(flags);
	ok = barn_fill(c, 2);
	full = c->barn.nr_full;
	if (ok)
		sheaf = kmem_cache_prefill_sheaf(c, GFP_ATOMIC, cap / 2);
	local_irq_restore(flags);
	KTEST_ASSERT_TRUE(t, ok);
	KTEST_ASSERT_NOT_NULL(t, sheaf);
	KTEST_EXPECT_EQ(t, c->barn.nr_full, full - 1);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), cap);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), (long)cap);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	local_irq_save(flags);
	flag_set(c, 1);
	while ((obj = kmem_cache_alloc_from_sheaf(c, GFP_ATOMIC, sheaf)) != NULL)
		objs[got++] = obj;
	flag_set(c, 0);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, got, cap);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), 0u);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), (long)cap);
	free_n(c, got);
	expect_all_back_and_destroy(t, c);
}

/* A prefill beyond the capacity gets an oversize sheaf of exactly the
 * count, in bulk; its return flushes and frees it: neither this CPU's
 * spare nor the barn keeps it. */
static void prefill_beyond_capacity_is_oversize(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_prefill_big", 64);
	unsigned long flags, sheaved;
	struct slab_sheaf *sheaf;
	unsigned int cap;
	void *obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (prefill_generic(t)) {
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	cap = c->barn.capacity;
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, cap + 5);
	KTEST_ASSERT_NOT_NULL(t, sheaf);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), cap + 5);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), (long)cap + 5);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	obj = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
	KTEST_EXPECT_NOT_NULL(t, obj);
	local_irq_save(flags);
	sheaved = slub_sheaved_objects(c);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	KTEST_EXPECT_NULL(t, here(c)->spare);
	KTEST_EXPECT_EQ(t, slub_sheaved_objects(c), sheaved);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, c->barn.nr_full + c->barn.nr_empty, 0u);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 1L);
	kmem_cache_free(c, obj);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A returned sheaf becomes this CPU's spare while that slot is free; with
 * it taken, a full sheaf goes to the barn's full ones, a sheaf partly
 * used is flushed to the slabs and goes to the barn's empty ones. */
static void return_reattaches_else_to_barn(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_prefill_ret", 64);
	struct slab_sheaf *a, *b, *d;
	unsigned long flags;
	void *obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (prefill_generic(t)) {
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	a = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	b = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	d = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 2);
	KTEST_ASSERT_TRUE(t, a && b && d);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(a), c->barn.capacity);	/* new, filled */
	obj = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, a);
	local_irq_save(flags);
	KTEST_EXPECT_NULL(t, here(c)->spare);
	kmem_cache_return_sheaf(c, GFP_KERNEL, a);	/* the slot is free */
	KTEST_EXPECT_PTR_EQ(t, (void *)here(c)->spare, (void *)a);
	kmem_cache_return_sheaf(c, GFP_KERNEL, b);	/* full: the barn's */
	KTEST_EXPECT_EQ(t, c->barn.nr_full, 1u);
	KTEST_EXPECT_PTR_EQ(t, (void *)list_first_entry(&c->barn.full, struct slub_sheaf,
							 barn_list), (void *)b);
	kmem_cache_free(c, kmem_cache_alloc_from_sheaf(c, GFP_ATOMIC, d));
	kmem_cache_return_sheaf(c, GFP_KERNEL, d);	/* partly used: flushed, empty */
	KTEST_EXPECT_EQ(t, c->barn.nr_full, 1u);
	KTEST_EXPECT_EQ(t, c->barn.nr_empty, 1u);
	KTEST_EXPECT_EQ(t, ((struct slub_sheaf *)d)->size, 0u);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 1L);
	kmem_cache_free(c, obj);
	expect_all_back_and_destroy(t, c);
}

/* With the spare slot taken and the barn holding its 10 full sheaves, a
 * full sheaf returned goes to the slabs: the barn keeps 10, the sheaves
 * hold no more objects than before, none is lost or counted twice. */
static void return_to_a_full_barn_flushes(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_prefill_full", 64);
	struct slab_sheaf *sheaf;
	unsigned long flags, sheaved = 0;
	int ok;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (prefill_generic(t)) {
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 1);
	KTEST_ASSERT_NOT_NULL(t, sheaf);
	local_irq_save(flags);
	ok = barn_fill(c, 10);
	if (ok) {
		ok = here(c)->spare != NULL;
		sheaved = slub_sheaved_objects(c);
		kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	}
	local_irq_restore(flags);
	KTEST_ASSERT_TRUE(t, ok);
	KTEST_EXPECT_EQ(t, c->barn.nr_full, 10u);
	KTEST_EXPECT_EQ(t, slub_sheaved_objects(c), sheaved);
	expect_all_back_and_destroy(t, c);
}

/* ---- other CPUs ------------------------------------------------------------------------ */

static struct {
	struct kmem_cache *c;
	int done;
} remote;

/* smp_call_function(): each CPU takes objects and gives them back, so its
 * sheaves hold some. */
static void remote_touch(void *arg)
{
	void *a, *b;

	(void)arg;
	a = kmem_cache_alloc(remote.c, GFP_ATOMIC);
	b = kmem_cache_alloc(remote.c, GFP_ATOMIC);
	kmem_cache_free(remote.c, a);
	kmem_cache_free(remote.c, b);
	__atomic_fetch_add(&remote.done, 1, __ATOMIC_RELEASE);
}

/* Shrink empties every CPU's sheaves (on_each_cpu()). */
static void shrink_reaches_every_cpu(struct ktest *t)
{
	unsigned int cpu;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs, %u online", num_online_cpus());
		return;
	}
	remote = (typeof(remote)){ .c = own_cache("test_shrinkall", 128) };
	KTEST_ASSERT_NOT_NULL(t, remote.c);
	KTEST_ASSERT_EQ(t, smp_call_function(remote_touch, NULL, 1), 0);
	remote_touch(NULL);
	KTEST_EXPECT_EQ(t, READ_ONCE(remote.done), (int)num_online_cpus());
	KTEST_EXPECT_TRUE(t, slub_cpu_holds_slabs(remote.c));
	kmem_cache_shrink(remote.c);
	for_each_online_cpu(cpu)
		KTEST_EXPECT_EQ(t, ((struct slub_pcs *)arch_per_cpu_ptr(remote.c->cpu.sheaves,
									 cpu))->main->size, 0u);
	KTEST_EXPECT_FALSE(t, slub_cpu_holds_slabs(remote.c));
	KTEST_EXPECT_EQ(t, atomic_long_read(&remote.c->nr_slabs), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(remote.c), 0);
}

static const struct ktest_case sheaves_cases[] = {
	KTEST_CASE(capacity_follows_linux),
	KTEST_CASE(creator_raises_capacity),
	KTEST_CASE(boot_caches_and_bootstrap_sheaf),
	KTEST_CASE(main_is_lifo_and_checked),
	KTEST_CASE(spare_and_barn_trade_within_limits),
	KTEST_CASE(refill_in_bulk),
	KTEST_CASE(shrink_flushes_everything),
	KTEST_CASE(taken_flag_means_slab_path),
	KTEST_CASE(interrupted_fast_path),
	KTEST_CASE(page_failure_flushes_barn_and_retries),
	KTEST_CASE(without_pressure_flush_the_barn_stays),
	KTEST_CASE(shrink_reaches_every_cpu),
	KTEST_CASE(prefill_takes_a_full_barn_sheaf),
	KTEST_CASE(prefill_beyond_capacity_is_oversize),
	KTEST_CASE(return_reattaches_else_to_barn),
	KTEST_CASE(return_to_a_full_barn_flushes),
	{}
};

static const struct ktest_suite sheaves_suite = {
	.name = "slub_sheaves",
	.cases = sheaves_cases,
	.init = allocator_suite_init,
	.exit = sheaves_exit,
};
KTEST_SUITE(sheaves_suite);
