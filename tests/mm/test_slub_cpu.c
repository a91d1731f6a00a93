/* test_slub_cpu.c - self-tests of SLUB's per-CPU slabs (CONFIG_SLUB without
 * SLUB_TINY): this CPU's free list and its transaction id, an exchange
 * made stale by an "interrupt" (the same reads and exchange as the fast
 * path, with an allocation in between: in the kernel and on the host), the
 * fast paths themselves interrupted between their reads and their
 * cmpxchg8b (the host harness's hook: <arch/percpu.h>), a free to a slab
 * that is not this CPU's and one from another CPU, the per-CPU partial
 * list and its limit, shrink and destroy reaching every CPU, and the
 * per-CPU copies' layout.  These look inside the caches through
 * mm/slub.h.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/smp.h>
#include <tiny/string.h>
#include "../../mm/slub.h"
#include "allocator_suite.h"

static void slub_cpu_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

static struct kmem_cache *own_cache(const char *name, size_t size)
{
	return kmem_cache_create(name, size, 0, SLAB_NO_MERGE, NULL, NULL);
}

/* This CPU's part of c; interrupts off. */
static struct kmem_cache_cpu *here(struct kmem_cache *c)
{
	return arch_this_cpu_ptr(c->cpu.slab);
}

static struct page *slab_of(struct kmem_cache *c, const void *obj)
{
	uintptr_t base;

	if (slub_obj_check(c, READ_ONCE(virt_to_page(obj)->flags), obj, &base) < 0)
		return NULL;
	return slab_page(base);
}

/* Slabs on cpu's partial list of c. */
static unsigned int cpu_partials(struct kmem_cache *c, unsigned int cpu)
{
	struct page *page;
	unsigned int n = 0;

	for (page = READ_ONCE(((struct kmem_cache_cpu *)arch_per_cpu_ptr(c->cpu.slab, cpu))->partial);
	     page; page = page->next)
		n++;
	return n;
}

#define MANY	600

static void *objs[MANY];

/* Allocates n objects of c into objs[]: 1, or 0 if one failed (then
 * those allocated are freed: an injected failure in a debug kernel).
 * Interrupts off. */
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
		if (objs[i])
			kmem_cache_free(c, objs[i]);
}

/* ---- this CPU's list ------------------------------------------------------------ */

/* This CPU's count of c's objects in use (c a handle). */
static long here_count(struct kmem_cache *c)
{
	return *(long *)arch_this_cpu_ptr(c->cpu.count);
}

/* An allocation pops this CPU's list and a free to its slab pushes: last
 * in, first out; the tid changes with each, and so does this CPU's count
 * of objects in use. */
static void cpu_list_is_lifo_and_counted(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_lifo", 64);
	struct kmem_cache_cpu *kcc;
	unsigned long flags, tid;
	long inuse;
	void *a, *b, *x, *y;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	if (!a || !b) {
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, a && b);
	}
	kcc = here(c);
	tid = kcc->tid;
	inuse = here_count(c);
	KTEST_EXPECT_EQ(t, inuse, 2L);
	kmem_cache_free(c, b);
	KTEST_EXPECT_PTR_EQ(t, kcc->freelist, b);
	KTEST_EXPECT_NE(t, kcc->tid, tid);
	tid = kcc->tid;
	kmem_cache_free(c, a);
	KTEST_EXPECT_PTR_EQ(t, kcc->freelist, a);
	KTEST_EXPECT_PTR_EQ(t, get_freepointer(c, a), b);
	KTEST_EXPECT_NE(t, kcc->tid, tid);
	KTEST_EXPECT_EQ(t, here_count(c), 0L);
	x = kmem_cache_alloc(c, GFP_ATOMIC);
	y = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_PTR_EQ(t, x, a);
	KTEST_EXPECT_PTR_EQ(t, y, b);
	kmem_cache_free(c, x);
	kmem_cache_free(c, y);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/*
 * The fast path's own steps with an "interrupt" between its reads and its
 * exchange: it read object A and its successor B; the interrupt takes A
 * and B and gives A back, so A heads the list again, now followed by
 * neither.  The exchange of the stale {A, tid} must fail: had it worked,
 * B (still the interrupt's) would be handed out again.
 */
static void stale_exchange_fails_after_an_interrupt(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_stale", 64);
	percpu_off_t pc;
	unsigned long flags, tid;
	void *a, *b, *x, *y;
	int done;

	KTEST_ASSERT_NOT_NULL(t, c);
	pc = c->cpu.slab;
	local_irq_save(flags);
	x = kmem_cache_alloc(c, GFP_ATOMIC);		/* a CPU slab with a list */
	kmem_cache_free(c, x);
	tid = arch_this_cpu_read(pc + CPU_TID);
	a = (void *)arch_this_cpu_read(pc + CPU_FREELIST);
	b = a ? get_freepointer(c, a) : NULL;
	x = a && b ? kmem_cache_alloc(c, GFP_ATOMIC) : NULL;	/* the interrupt */
	y = x ? kmem_cache_alloc(c, GFP_ATOMIC) : NULL;
	if (!y) {		/* an injected failure (a debug kernel's fault injection) */
		kmem_cache_free(c, x);
		local_irq_restore(flags);
		KTEST_ASSERT_NOT_NULL(t, y);
	}
	kmem_cache_free(c, x);
	KTEST_EXPECT_PTR_EQ(t, x, a);
	KTEST_EXPECT_PTR_EQ(t, y, b);
	done = arch_this_cpu_cmpxchg_double(pc, (unsigned long)a, tid, (unsigned long)b,
					    next_tid(tid));
	KTEST_EXPECT_FALSE(t, done);
	if (done)			/* put the list right: b is the interrupt's */
		here(c)->freelist = a;
	KTEST_EXPECT_PTR_EQ(t, (void *)arch_this_cpu_read(pc + CPU_FREELIST), a);
	x = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_PTR_NE(t, x, y);
	kmem_cache_free(c, x);
	kmem_cache_free(c, y);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- the fast paths interrupted (host hook) ---------------------------------------- */

static struct {
	struct kmem_cache *c;
	void *held;			/* the interrupt's object, still out */
	int ran;
} intr;

/* An interrupt that takes two objects and gives the first back. */
static void interrupt_takes_two(void)
{
	void *a = kmem_cache_alloc(intr.c, GFP_ATOMIC);

	intr.held = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	kmem_cache_free(intr.c, a);
	intr.ran++;
}

/* An interrupt that gives this CPU's slabs of the cache back. */
static void interrupt_flushes(void)
{
	slub_flush(intr.c);
	intr.ran++;
}

static int hook_or_skip(struct ktest *t, void (*fn)(void))
{
	if (!arch_percpu_set_test_hook(fn))
		return 1;
	ktest_skip(t, "no hook into cmpxchg8b here (the host harness has one)");
	return 0;
}

/* kmem_cache_alloc() interrupted between its reads and its exchange: the
 * exchange fails, the path starts again, and the object it returns is
 * none the interrupt holds (nor is the next one). */
static void interrupted_allocation_retries(struct ktest *t)
{
	unsigned long flags;
	void *warm, *obj, *next;

	intr.c = own_cache("test_intr_alloc", 64);
	KTEST_ASSERT_NOT_NULL(t, intr.c);
	intr.ran = 0;
	local_irq_save(flags);
	warm = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	kmem_cache_free(intr.c, warm);
	if (!warm || !hook_or_skip(t, interrupt_takes_two)) {
		local_irq_restore(flags);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
		return;
	}
	obj = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	next = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	local_irq_restore(flags);
	KTEST_ASSERT_TRUE(t, obj && next && intr.held);
	KTEST_EXPECT_EQ(t, intr.ran, 1);
	KTEST_EXPECT_PTR_NE(t, obj, intr.held);
	KTEST_EXPECT_PTR_NE(t, next, intr.held);
	KTEST_EXPECT_PTR_NE(t, obj, next);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_cache_free(intr.c, obj);
	kmem_cache_free(intr.c, next);
	kmem_cache_free(intr.c, intr.held);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
}

/* kmem_cache_free() of an object of this CPU's full slab, interrupted by a
 * flush that takes the slab away: the list head it read (none) is still
 * none, but the tid moved, so the exchange fails and the object goes to
 * its slab's own list, not to a CPU list that no longer has a slab. */
static void interrupted_free_sees_its_slab_go(struct ktest *t)
{
	unsigned long flags;
	struct page *page;
	unsigned int n;
	void *obj;

	intr.c = own_cache("test_intr_free", 256);
	KTEST_ASSERT_NOT_NULL(t, intr.c);
	intr.ran = 0;
	n = intr.c->oo[0].objects;
	local_irq_save(flags);
	if (!alloc_n(intr.c, n)) {	/* every object of one slab: its list empty */
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, 0);
	}
	obj = objs[n / 2];
	page = slab_of(intr.c, obj);
	KTEST_ASSERT_NOT_NULL(t, page);
	KTEST_EXPECT_NULL(t, here(intr.c)->freelist);
	KTEST_EXPECT_EQ(t, here(intr.c)->slab, slab_base(page));
	if (hook_or_skip(t, interrupt_flushes)) {
		kmem_cache_free(intr.c, obj);
		KTEST_EXPECT_EQ(t, intr.ran, 1);
		KTEST_EXPECT_NULL(t, here(intr.c)->freelist);
		KTEST_EXPECT_EQ(t, here(intr.c)->slab, 0UL);
		KTEST_EXPECT_EQ(t, state_free(slab_state(page)),
				slab_obj_index(intr.c, slab_base(page), obj));
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		objs[n / 2] = NULL;
	}
	free_n(intr.c, n);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
}

/* An interrupt that allocates from the cache while no new slab can be had. */
static void interrupt_allocates_without_pages(void)
{
	page_alloc_fail_nth(1);
	intr.held = kmem_cache_alloc(intr.c, GFP_ATOMIC);
	page_alloc_fail_nth(0);
	intr.ran++;
}

/* kmem_cache_free() of an object of this CPU's full slab, interrupted by an
 * allocation that finds the slab full, gives it up and gets no new one:
 * the tid moved with the slab, so the free's exchange fails and the object
 * goes to its slab's own list, not to a CPU list without a slab (which
 * would hide it from the flush and leak the slab on destroy). */
static void interrupted_free_sees_a_failed_refill(struct ktest *t)
{
	unsigned long flags;
	struct page *page;
	unsigned int n;
	void *obj;

	intr.c = own_cache("test_intr_refill", 64);
	KTEST_ASSERT_NOT_NULL(t, intr.c);
	KTEST_ASSERT_EQ(t, intr.c->oo[0].order, intr.c->oo[1].order);	/* one try */
	intr.ran = 0;
	intr.held = NULL;
	n = intr.c->oo[0].objects;
	local_irq_save(flags);
	if (!alloc_n(intr.c, n)) {	/* every object of one slab: its list empty */
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, 0);
	}
	obj = objs[n / 2];
	page = slab_of(intr.c, obj);
	if (hook_or_skip(t, interrupt_allocates_without_pages)) {
		kmem_cache_free(intr.c, obj);
		KTEST_EXPECT_EQ(t, intr.ran, 1);
		KTEST_EXPECT_NULL(t, intr.held);
		KTEST_EXPECT_NULL(t, here(intr.c)->freelist);
		KTEST_EXPECT_EQ(t, here(intr.c)->slab, 0UL);
		KTEST_EXPECT_EQ(t, state_free(slab_state(page)),
				slab_obj_index(intr.c, slab_base(page), obj));
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		objs[n / 2] = NULL;
	}
	free_n(intr.c, n);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(intr.c), 0);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

/* ---- slabs that are not this CPU's --------------------------------------------------- */

/* A free to a full slab that is no CPU's: the slab's own list gets the
 * object, and the slab, frozen, goes to this CPU's partial list; the next
 * free to it only pushes. */
static void free_to_a_full_slab_freezes_it(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_freeze", 128);
	unsigned int n, cpu = smp_processor_id();
	unsigned long flags;
	struct page *page;

	KTEST_ASSERT_NOT_NULL(t, c);
	n = c->oo[0].objects;
	local_irq_save(flags);
	if (!alloc_n(c, n + 1)) {	/* the first slab full, this CPU on a second */
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, 0);
	}
	page = slab_of(c, objs[0]);
	KTEST_ASSERT_NOT_NULL(t, page);
	KTEST_EXPECT_NE(t, here(c)->slab, slab_base(page));
	KTEST_EXPECT_FALSE(t, state_frozen(slab_state(page)));
	KTEST_EXPECT_EQ(t, state_inuse(slab_state(page)), n);
	kmem_cache_free(c, objs[0]);
	KTEST_EXPECT_TRUE(t, state_frozen(slab_state(page)));
	KTEST_EXPECT_PTR_EQ(t, here(c)->partial, page);
	KTEST_EXPECT_EQ(t, state_free(slab_state(page)), 0u);
	kmem_cache_free(c, objs[1]);
	KTEST_EXPECT_EQ(t, state_free(slab_state(page)), 1u);
	KTEST_EXPECT_EQ(t, state_inuse(slab_state(page)), n - 2);
	KTEST_EXPECT_EQ(t, cpu_partials(c, cpu), 1u);
	objs[0] = objs[1] = NULL;
	free_n(c, n + 1);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* This CPU's partial list never holds more than cpu_partial.limit: the
 * slab that would go over sends the whole list to the node first. */
static void cpu_partial_list_is_limited(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_cpupartial", 256);
	unsigned int n, limit, slabs, i, cpu = smp_processor_id(), most = 0;
	unsigned long flags;

	KTEST_ASSERT_NOT_NULL(t, c);
	n = c->oo[0].objects;
	limit = c->cpu_partial.limit;
	slabs = limit + 2;
	KTEST_ASSERT_GE(t, limit, 1u);
	KTEST_ASSERT_LE(t, (slabs + 1) * n, (unsigned int)MANY);
	local_irq_save(flags);
	if (!alloc_n(c, (slabs + 1) * n)) {	/* slabs full ones, and this CPU's */
		local_irq_restore(flags);
		KTEST_ASSERT_TRUE(t, 0);
	}
	KTEST_EXPECT_EQ(t, c->nr_partial, 0UL);
	for (i = 0; i < slabs; i++) {
		kmem_cache_free(c, objs[i * n]);
		objs[i * n] = NULL;
		most = max(most, cpu_partials(c, cpu));
		KTEST_EXPECT_LE(t, cpu_partials(c, cpu), limit);
	}
	KTEST_EXPECT_EQ(t, most, limit);
	KTEST_EXPECT_EQ(t, c->nr_partial, (unsigned long)limit);	/* the first list went */
	KTEST_EXPECT_EQ(t, cpu_partials(c, cpu), slabs - limit);
	free_n(c, (slabs + 1) * n);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	ktest_info(t, "%u objects a slab, at most %u partial slabs a CPU", n, limit);
}

/* ---- other CPUs ------------------------------------------------------------------------- */

static int need_cpus(struct ktest *t, unsigned int n)
{
	if (num_online_cpus() >= n)
		return 1;
	ktest_skip(t, "needs %u CPUs, %u online", n, num_online_cpus());
	return 0;
}

static unsigned int other_cpu(void)
{
	unsigned int cpu, me = smp_processor_id();

	for_each_online_cpu(cpu)
		if (cpu != me)
			return cpu;
	return me;
}

static struct {
	struct kmem_cache *c;
	unsigned int cpu;		/* the CPU that does it; NR_CPUS: every other */
	void *obj;
	int done;
} remote;

/* smp_call_function(): the chosen CPU frees remote.obj. */
static void remote_free(void *arg)
{
	(void)arg;
	if (smp_processor_id() != remote.cpu)
		return;
	kmem_cache_free(remote.c, remote.obj);
	WRITE_ONCE(remote.done, 1);
}

/* smp_call_function(): each CPU takes an object and gives it back, so it
 * holds a CPU slab of the cache. */
static void remote_touch(void *arg)
{
	void *obj;

	(void)arg;
	if (remote.cpu != NR_CPUS && smp_processor_id() != remote.cpu)
		return;
	obj = kmem_cache_alloc(remote.c, GFP_ATOMIC);
	if (obj)
		kmem_cache_free(remote.c, obj);
	__atomic_fetch_add(&remote.done, 1, __ATOMIC_RELEASE);
}

/* An object freed on another CPU goes to its slab's own list (the slab is
 * this CPU's, frozen: no list changes); this CPU takes it back once its
 * own list runs out.  The counts of both CPUs add up. */
static void free_from_another_cpu(struct ktest *t)
{
	struct kmem_cache *c;
	unsigned int n, i, idx;
	unsigned long flags;
	struct page *page;
	void *again = NULL;

	if (!need_cpus(t, 2))
		return;
	c = own_cache("test_remote", 128);
	KTEST_ASSERT_NOT_NULL(t, c);
	remote = (typeof(remote)){ .c = c, .cpu = other_cpu() };
	remote.obj = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, remote.obj);
	page = slab_of(c, remote.obj);
	KTEST_ASSERT_NOT_NULL(t, page);
	idx = slab_obj_index(c, slab_base(page), remote.obj);
	KTEST_ASSERT_EQ(t, smp_call_function(remote_free, NULL, 1), 0);
	KTEST_EXPECT_EQ(t, READ_ONCE(remote.done), 1);
	KTEST_EXPECT_EQ(t, state_free(slab_state(page)), idx);
	KTEST_EXPECT_TRUE(t, state_frozen(slab_state(page)));
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	n = c->oo[0].objects;
	local_irq_save(flags);
	if (alloc_n(c, n)) {			/* this CPU's list, then the slab's */
		for (i = 0; i < n; i++)
			if (objs[i] == remote.obj)
				again = objs[i];
		free_n(c, n);
	}
	local_irq_restore(flags);
	KTEST_EXPECT_PTR_EQ(t, again, remote.obj);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Shrink asks every CPU for its slabs (on_each_cpu()): none keeps one. */
static void shrink_reaches_every_cpu(struct ktest *t)
{
	struct kmem_cache *c;
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	c = own_cache("test_shrinkall", 128);
	KTEST_ASSERT_NOT_NULL(t, c);
	remote = (typeof(remote)){ .c = c, .cpu = NR_CPUS };
	KTEST_ASSERT_EQ(t, smp_call_function(remote_touch, NULL, 1), 0);
	remote_touch(NULL);
	KTEST_EXPECT_EQ(t, READ_ONCE(remote.done), (int)num_online_cpus());
	KTEST_EXPECT_TRUE(t, slub_cpu_holds_slabs(c));
	KTEST_EXPECT_GT(t, kmem_cache_shrink(c), 0);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_EQ(t, READ_ONCE(((struct kmem_cache_cpu *)
					      arch_per_cpu_ptr(c->cpu.slab, cpu))->slab), 0UL);
		KTEST_EXPECT_EQ(t, cpu_partials(c, cpu), 0u);
	}
	KTEST_EXPECT_EQ(t, atomic_long_read(&c->nr_slabs), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* With interrupts off the other CPUs cannot be asked: a destroy while one
 * holds a slab of the cache is refused (with a message), and works once
 * interrupts are on. */
static void destroy_with_interrupts_off_refused(struct ktest *t)
{
	struct kmem_cache *c;
	unsigned long flags;
	int r;

	if (!need_cpus(t, 2))
		return;
	c = own_cache("test_destroyoff", 128);
	KTEST_ASSERT_NOT_NULL(t, c);
	remote = (typeof(remote)){ .c = c, .cpu = other_cpu() };
	KTEST_ASSERT_EQ(t, smp_call_function(remote_touch, NULL, 1), 0);
	local_irq_save(flags);
	r = kmem_cache_destroy(c);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, r, -1);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/*
 * Several CPUs free objects of the same slabs at once, round after round,
 * while the slabs are the driver's (frozen: each free pushes on the slab's
 * own list by compare-and-exchange of its state) or no CPU's.  Every free
 * must land: after the last round every slab is empty, and shrink gives
 * every one back.  A lost free leaves a slab in use for ever.
 */
#define RACE_ROUNDS	200
#define RACE_BATCH	64

static struct {
	struct kmem_cache *c;
	void *objs[RACE_BATCH];
	unsigned int gen;		/* round published by the driver */
	unsigned int done;		/* other CPUs done with the round */
	unsigned int others, driver;
	int stop;
} race;

static unsigned int race_rank(unsigned int cpu)	/* 0 .. others-1 */
{
	unsigned int c, rank = 0;

	for_each_online_cpu(c) {
		if (c == cpu)
			return rank;
		rank += c != race.driver;
	}
	return rank;
}

static void race_other(void)
{
	unsigned int seen = 0, gen, i, rank = race_rank(smp_processor_id());
	unsigned long spins;

	for (;;) {
		for (spins = 0; (gen = smp_load_acquire(&race.gen)) == seen &&
				!smp_load_acquire(&race.stop); spins++)
			cpu_relax();
		if (gen == seen)
			return;			/* stopped */
		seen = gen;
		for (i = rank; i < RACE_BATCH; i += race.others)
			kmem_cache_free(race.c, race.objs[i]);
		__atomic_fetch_add(&race.done, 1, __ATOMIC_RELEASE);
	}
}

static int race_round_done(void *arg)
{
	(void)arg;
	return __atomic_load_n(&race.done, __ATOMIC_ACQUIRE) == race.others;
}

static void race_cpu(void *arg)
{
	struct ktest *t = arg;
	unsigned int round, i;
	unsigned long ticks;

	if (smp_processor_id() != race.driver) {
		race_other();
		return;
	}
	for (round = 1; round <= RACE_ROUNDS; round++) {
		for (i = 0; i < RACE_BATCH; i++)
			race.objs[i] = kmem_cache_alloc(race.c, GFP_KERNEL);
		__atomic_store_n(&race.done, 0, __ATOMIC_RELAXED);
		smp_store_release(&race.gen, round);
		for (ticks = 0; !race_round_done(NULL) && ticks < KTEST_SECONDS(10); ticks++)
			ktest_wait_ticks(1);
		if (!race_round_done(NULL)) {
			KTEST_EXPECT_TRUE(t, race_round_done(NULL));	/* gave up: said so */
			break;
		}
	}
	smp_store_release(&race.stop, 1);
}

static void remote_frees_race_on_one_slab(struct ktest *t)
{
	if (!need_cpus(t, 3))
		return;
	memset(&race, 0, sizeof(race));
	race.c = own_cache("test_race", 64);
	KTEST_ASSERT_NOT_NULL(t, race.c);
	race.driver = smp_processor_id();
	race.others = num_online_cpus() - 1;
	smp_run_on_all_cpus(race_cpu, t);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(race.c), 0L);
	kmem_cache_shrink(race.c);
	KTEST_EXPECT_EQ(t, atomic_long_read(&race.c->nr_slabs), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(race.c), 0);
	ktest_info(t, "%u rounds of %u objects freed by %u CPUs at once", RACE_ROUNDS,
		   RACE_BATCH, race.others);
}

/* ---- per-CPU data ---------------------------------------------------------------------- */

/* Each CPU's copy lies a stride after the previous CPU's, and caches share
 * strides: 32 caches, two slots each (the struct and the count), take at
 * most a page more than their slots need. */
static void percpu_copies_share_strides(struct ktest *t)
{
	unsigned int per_page = (unsigned int)((PAGE_SIZE / (NR_CPUS * ARCH_PERCPU_STRIDE)) *
					       (ARCH_PERCPU_STRIDE / sizeof(struct kmem_cache_cpu)));
	static char names[32][16];
	struct kmem_cache *c[32];
	unsigned long before = slub_mode_pages();
	unsigned int i, cpu;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		snprintf(names[i], sizeof(names[i]), "test_percpu%u", i);
		c[i] = own_cache(names[i], 64);
		KTEST_ASSERT_NOT_NULL(t, c[i]);
		for (cpu = 0; cpu < NR_CPUS; cpu++)
			KTEST_EXPECT_EQ(t, (uintptr_t)arch_per_cpu_ptr(c[i]->cpu.slab, cpu) -
					   (uintptr_t)arch_per_cpu_ptr(c[i]->cpu.slab, 0),
					(uintptr_t)cpu * ARCH_PERCPU_STRIDE);
		KTEST_EXPECT_EQ(t, (uintptr_t)arch_per_cpu_ptr(c[i]->cpu.slab, 0) %
				   sizeof(struct kmem_cache_cpu), 0u);
	}
	KTEST_EXPECT_LE(t, slub_mode_pages() - before,
			(unsigned long)DIV_ROUND_UP(2 * ARRAY_SIZE(c), per_page));
	ktest_info(t, "%u per-CPU structs a page (%zu bytes each); %lu pages more for %zu caches",
		   per_page, sizeof(struct kmem_cache_cpu), slub_mode_pages() - before,
		   ARRAY_SIZE(c));
	for (i = 0; i < ARRAY_SIZE(c); i++)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c[i]), 0);
	kmem_reclaim();
	KTEST_EXPECT_LE(t, slub_mode_pages(), before);
}

static const struct ktest_case slub_cpu_cases[] = {
	KTEST_CASE(cpu_list_is_lifo_and_counted),
	KTEST_CASE(stale_exchange_fails_after_an_interrupt),
	KTEST_CASE(interrupted_allocation_retries),
	KTEST_CASE(interrupted_free_sees_its_slab_go),
	KTEST_CASE(interrupted_free_sees_a_failed_refill),
	KTEST_CASE(free_to_a_full_slab_freezes_it),
	KTEST_CASE(cpu_partial_list_is_limited),
	KTEST_CASE(free_from_another_cpu),
	KTEST_CASE(shrink_reaches_every_cpu),
	KTEST_CASE(destroy_with_interrupts_off_refused),
	KTEST_CASE(remote_frees_race_on_one_slab),
	KTEST_CASE(percpu_copies_share_strides),
	{}
};

static const struct ktest_suite slub_cpu_suite = {
	.name = "slub_cpu",
	.cases = slub_cpu_cases,
	.init = allocator_suite_init,
	.exit = slub_cpu_exit,
};
KTEST_SUITE(slub_cpu_suite);
