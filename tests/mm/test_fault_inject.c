/* test_fault_inject.c - self-tests of failslab and fail_page_alloc
 * (CONFIG_FAULT_INJECTION), for whichever allocator is built in: the
 * settings' syntax, interval, times, probability and filters, and injected
 * failures reaching the error paths of kmem_cache_create, slab growth,
 * large blocks (kmalloc above a page), krealloc and the trace replay, with no
 * page leaked and the allocators' structures intact.  Also on the host. */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/kmem_debug.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <tiny/string.h>

/* Every case starts with both attributes off and ends with the settings
 * it found (a boot with failslab= goes on failing the suites after this). */
static struct fault_attr saved_failslab, saved_fail_page_alloc;

static int fi_init(struct ktest *t)
{
	saved_failslab = failslab;
	saved_fail_page_alloc = fail_page_alloc;
	fault_attr_set(&failslab, "off");
	fault_attr_set(&fail_page_alloc, "off");
	return 0;
}

static void fi_exit(struct ktest *t)
{
	fault_attr_restore(&failslab, &saved_failslab);
	fault_attr_restore(&fail_page_alloc, &saved_fail_page_alloc);
}

static void settings_syntax(struct ktest *t)
{
	struct fault_attr a = failslab;

	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,2,10"), 0);
	KTEST_EXPECT_EQ(t, a.probability, 50ul);
	KTEST_EXPECT_EQ(t, a.interval, 2ul);
	KTEST_EXPECT_EQ(t, a.times, 10l);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "100,1,-1,size-64"), 0);
	KTEST_EXPECT_STREQ(t, a.cache, "size-64");
	KTEST_EXPECT_EQ(t, a.times, -1l);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "100,1,-1,64-128"), 0);
	KTEST_EXPECT_EQ(t, a.cache[0], '\0');
	KTEST_EXPECT_EQ(t, a.min_size, (size_t)64);
	KTEST_EXPECT_EQ(t, a.max_size, (size_t)128);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "100,1,3,4097-"), 0);
	KTEST_EXPECT_EQ(t, a.min_size, (size_t)4097);
	KTEST_EXPECT_EQ(t, a.max_size, (size_t)-1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "100,1,3,-64"), 0);
	KTEST_EXPECT_EQ(t, a.max_size, (size_t)64);
	/* refused, and nothing changes */
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "101,1,1"), -2);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,0,1"), -2);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,5-3"), -2);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,a_cache_name_far_too_long_to_keep"), -2);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "99999999999999999999999,1,1"), -2);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "x"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,-2"), -1);
	/* digits and dashes can only mean sizes: not taken as a cache name */
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,--"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,-5-"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,64"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "50,1,1,1-2-3"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, NULL), -1);
	KTEST_EXPECT_EQ(t, a.probability, 100ul);
	KTEST_EXPECT_EQ(t, a.times, 3l);
	KTEST_EXPECT_EQ(t, a.max_size, (size_t)64);
	KTEST_EXPECT_EQ(t, fault_attr_set(&a, "off"), 0);
	KTEST_EXPECT_EQ(t, a.probability, 0ul);
	/* pages have no cache: only sizes filter them */
	KTEST_EXPECT_EQ(t, fault_attr_set(&fail_page_alloc, "100,1,1,size-64"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&fail_page_alloc, "100,1,1,64-12x"), -1);
	KTEST_EXPECT_EQ(t, fault_attr_set(&fail_page_alloc, "100,1,1,8192-"), 0);
	KTEST_EXPECT_EQ(t, fail_page_alloc.min_size, (size_t)8192);
	KTEST_EXPECT_EQ(t, fault_attr_set(&fail_page_alloc, "off"), 0);
	KTEST_EXPECT_EQ(t, fail_page_alloc.probability, 0ul);
}

/* Allocates n objects from c into objs; returns how many came back NULL. */
static int alloc_n(struct kmem_cache *c, void **objs, int n)
{
	int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += !(objs[i] = kmem_cache_alloc(c, GFP_KERNEL));
	return failed;
}

static void free_n(struct kmem_cache *c, void **objs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
}

static void interval_and_times(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("fi_test", 48, 0, 0, NULL, NULL);
	unsigned long injected0 = failslab.injected;
	void *objs[9];
	int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,3,2,fi_test"), 0);
	for (i = 0; i < 9; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (i == 2 || i == 5)		/* the 3rd and 6th; times stops the 9th */
			KTEST_EXPECT_NULL(t, objs[i]);
		else
			KTEST_EXPECT_NOT_NULL(t, objs[i]);
	}
	KTEST_EXPECT_EQ(t, failslab.injected - injected0, 2ul);
	KTEST_EXPECT_EQ(t, failslab.calls, 9ul);
	KTEST_EXPECT_EQ(t, failslab.times, 0l);
	fault_attr_set(&failslab, "off");
	free_n(c, objs, 9);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* What the suite's exit does: the settings come back, the counters stay. */
static void restore_puts_settings_back(struct ktest *t)
{
	static struct fault_attr saved;
	unsigned long injected0 = failslab.injected;

	KTEST_ASSERT_EQ(t, fault_attr_set(&failslab, "40,3,7,fi_test"), 0);
	saved = failslab;
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,1,-1,1-2"), 0);
	fault_attr_restore(&failslab, &saved);
	KTEST_EXPECT_EQ(t, failslab.probability, 40ul);
	KTEST_EXPECT_EQ(t, failslab.interval, 3ul);
	KTEST_EXPECT_EQ(t, failslab.times, 7l);
	KTEST_EXPECT_STREQ(t, failslab.cache, "fi_test");
	KTEST_EXPECT_EQ(t, failslab.min_size, 0u);
	KTEST_EXPECT_EQ(t, failslab.max_size, (size_t)-1);
	KTEST_EXPECT_EQ(t, failslab.injected, injected0);
}

static void probability_is_honoured(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("fi_test", 32, 0, 0, NULL, NULL);
	unsigned long injected0 = failslab.injected;
	static void *objs[200];
	int failed;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "25,1,-1,fi_test"), 0);
	failed = alloc_n(c, objs, 200);
	fault_attr_set(&failslab, "off");
	KTEST_EXPECT_EQ(t, (unsigned long)failed, failslab.injected - injected0);
	KTEST_EXPECT_GT(t, failed, 20);		/* 50 expected */
	KTEST_EXPECT_LT(t, failed, 80);
	free_n(c, objs, 200);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static void filter_limits_to_named_cache(struct ktest *t)
{
	struct kmem_cache *target = kmem_cache_create("fi_target", 40, 0, 0, NULL, NULL);
	struct kmem_cache *other = kmem_cache_create("fi_other", 40, 0, 0, NULL, NULL);
	unsigned long injected0 = failslab.injected;
	void *a[16], *b[16], *k[16];
	int i, kfailed = 0;

	KTEST_ASSERT_NOT_NULL(t, target);
	KTEST_ASSERT_NOT_NULL(t, other);
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,1,-1,fi_target"), 0);
	KTEST_EXPECT_EQ(t, alloc_n(target, a, 16), 16);
	KTEST_EXPECT_EQ(t, alloc_n(other, b, 16), 0);
	for (i = 0; i < 16; i++)
		kfailed += !(k[i] = kmalloc(40, GFP_KERNEL));
	KTEST_EXPECT_EQ(t, kfailed, 0);
	KTEST_EXPECT_EQ(t, failslab.injected - injected0, 16ul);
	fault_attr_set(&failslab, "off");
	for (i = 0; i < 16; i++)
		kfree(k[i]);
	free_n(other, b, 16);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(target), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(other), 0);
}

/* The filter sees the allocator's block size: under kmem_debug that is the
 * object plus the layer's header and red zones (docs/debugging.md). */
static void size_filter(struct ktest *t)
{
	void *p, *q;

	if (kmem_debug_active()) {
		ktest_skip(t, "kmem_debug is on: the filter sees the debug block's size");
		return;
	}
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,1,-1,200-300"), 0);
	p = kmalloc(64, GFP_KERNEL);
	q = kmalloc(250, GFP_KERNEL);
	fault_attr_set(&failslab, "off");
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, q);
	kfree(p);
	kfree(q);
}

/* Free pages after giving every spare page back; interrupts off. */
static unsigned long settled_free_pages(void)
{
	kmem_reclaim();
	return nr_free_pages();
}

/* What one sweep of page_failures_in_create_and_growth() saw. */
struct growth_sweep {
	int allocs, create_failed, growth_failed;
};

/*
 * Makes page allocations fail around creating a cache of large objects and
 * growing it by 6 objects, for n = 1, 2, ... until no failure is injected
 * any more: the n-th, and with times 2 the 2n-th too; with pair the n-th
 * and the (n+1)-th (page_alloc_fail_nth() fails the n-th, which the
 * attribute does not count, and the attribute the next).  Every error
 * path on the way must return cleanly, leak no page and leave the
 * allocators valid.  Interrupts off.
 */
static void growth_sweep(struct ktest *t, unsigned int times, int pair, unsigned long free0,
			 struct growth_sweep *sw)
{
	unsigned long injected;
	int n, nth_failed;
	void *objs[6];

	for (n = 1; n < 64; n++) {
		struct kmem_cache *c;
		char spec[32];

		injected = fail_page_alloc.injected;
		snprintf(spec, sizeof(spec), "100,%d,%u", n, times);
		fault_attr_set(&fail_page_alloc, spec);
		if (pair)
			page_alloc_fail_nth(n);
		c = kmem_cache_create("fi_grow", 3000, 0, 0, NULL, NULL);
		if (!c)
			sw->create_failed++;
		else
			sw->growth_failed += alloc_n(c, objs, 6) > 0;
		fault_attr_set(&fail_page_alloc, "off");
		nth_failed = pair && !READ_ONCE(page_alloc_fail_countdown);
		page_alloc_fail_nth(0);
		if (c) {
			free_n(c, objs, 6);
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		}
		KTEST_EXPECT_EQ(t, settled_free_pages(), free0);
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		if (fail_page_alloc.injected == injected && !nth_failed)
			break;		/* n is past the last page allocation */
		KTEST_EXPECT_LE(t, fail_page_alloc.injected, injected + times);
	}
	KTEST_EXPECT_LT(t, n, 64);
	sw->allocs = n - 1;
}

/*
 * The n-th page allocation made to fail, then the n-th and the 2n-th, then
 * the n-th and the next: an allocator that falls back to a smaller slab
 * when a page allocation fails (SLUB's minimum order, SLAB's fallback
 * slabs: 3000-byte objects take slabs above one page) grows without error
 * after one failure, and its growth's error path is reached when the
 * fallback fails too (a creation that takes pages of its own, as SLUB's
 * sheaves do, moves the preferred order's block past the first call, where
 * only the pairs meet it and its fallback).
 */
static void page_failures_in_create_and_growth(struct ktest *t)
{
	struct growth_sweep one = { 0 }, two = { 0 }, pairs = { 0 };
	unsigned long flags, free0;

	local_irq_save(flags);
	free0 = settled_free_pages();
	growth_sweep(t, 1, 0, free0, &one);
	growth_sweep(t, 2, 0, free0, &two);
	growth_sweep(t, 1, 1, free0, &pairs);
	local_irq_restore(flags);
	KTEST_EXPECT_GT(t, one.growth_failed + two.growth_failed + pairs.growth_failed, 0);
	ktest_info(t, "one failure: %d page allocations; cache creation failed %d times, growth %d "
		   "times", one.allocs, one.create_failed, one.growth_failed);
	ktest_info(t, "two failures: creation failed %d times, growth %d times",
		   two.create_failed, two.growth_failed);
	ktest_info(t, "two in a row: creation failed %d times, growth %d times",
		   pairs.create_failed, pairs.growth_failed);
}

static void create_fails_on_its_descriptor(struct ktest *t)
{
	unsigned long injected0 = failslab.injected;
	struct kmem_cache *c;

	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,1,1,kmem_cache"), 0);
	c = kmem_cache_create("fi_desc", 64, 0, 0, NULL, NULL);
	KTEST_EXPECT_NULL(t, c);
	KTEST_EXPECT_EQ(t, failslab.injected - injected0, 1ul);
	c = kmem_cache_create("fi_desc", 64, 0, 0, NULL, NULL);	/* times ran out */
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A kmalloc of several pages whose pages are refused: NULL, nothing leaked. */
static void large_block_pages_refused(struct ktest *t)
{
	unsigned long flags, free0, injected0 = fail_page_alloc.injected;
	void *p;

	local_irq_save(flags);
	free0 = settled_free_pages();
	KTEST_EXPECT_EQ(t, fault_attr_set(&fail_page_alloc, "100,1,-1,16384-"), 0);
	p = kmalloc(5 * PAGE_SIZE, GFP_KERNEL);
	fault_attr_set(&fail_page_alloc, "off");
	KTEST_EXPECT_NULL(t, p);
	KTEST_EXPECT_GE(t, fail_page_alloc.injected - injected0, 1ul);
	kfree(p);
	KTEST_EXPECT_EQ(t, settled_free_pages(), free0);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	local_irq_restore(flags);
	p = kmalloc(5 * PAGE_SIZE, GFP_KERNEL);	/* and it works again */
	KTEST_EXPECT_NOT_NULL(t, p);
	kfree(p);
}

static void krealloc_keeps_the_old_block(struct ktest *t)
{
	char *p = kmalloc(32, GFP_KERNEL), *q;

	KTEST_ASSERT_NOT_NULL(t, p);
	memcpy(p, "still here after a failed grow", 31);
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "100,1,1,2000-"), 0);
	q = krealloc(p, 2000, GFP_KERNEL);
	KTEST_EXPECT_NULL(t, q);
	KTEST_EXPECT_STREQ(t, p, "still here after a failed grow");
	KTEST_EXPECT_GE(t, ksize(p), (size_t)32);
	q = krealloc(p, 2000, GFP_KERNEL);	/* times ran out */
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_STREQ(t, q, "still here after a failed grow");
	kfree(q);
}

/* Builds a small trace: OPS allocations (kmalloc of various sizes and a
 * cache), each freed two allocations later, then the rest freed. */
#define TRACE_ALLOCS	120

static size_t build_trace(void *buf)
{
	struct replay_header *h = buf;
	struct replay_cache *c = (struct replay_cache *)(h + 1);
	struct replay_op *op = (struct replay_op *)(c + 1);
	unsigned int i, n = 0;

	memset(buf, 0, sizeof(*h) + sizeof(*c));
	memcpy(h->magic, REPLAY_MAGIC, 4);
	h->version = REPLAY_VERSION;
	h->nr_caches = 1;
	h->nr_slots = 3;
	h->nr_allocs = TRACE_ALLOCS;
	h->nr_frees = TRACE_ALLOCS;
	c->object_size = 40;
	memcpy(c->name, "fi_replay", sizeof("fi_replay"));
	for (i = 0; i < TRACE_ALLOCS; i++) {
		if (i >= 3)
			op[n++] = (struct replay_op){ REPLAY_FREE | (i % 3) << REPLAY_SLOT_SHIFT, 0 };
		if (i % 2)
			op[n++] = (struct replay_op){ REPLAY_CACHE_ALLOC | (i % 3) << REPLAY_SLOT_SHIFT, 0 };
		else
			op[n++] = (struct replay_op){ REPLAY_KMALLOC | (i % 3) << REPLAY_SLOT_SHIFT,
						     16u + i * 61u };
	}
	for (i = 0; i < 3; i++)
		op[n++] = (struct replay_op){ REPLAY_FREE | i << REPLAY_SLOT_SHIFT, 0 };
	h->nr_ops = n;
	return sizeof(*h) + sizeof(*c) + n * sizeof(*op);
}

/* The pages the allocator holds once every CPU's magazines and free slabs
 * are given back (kmem_reclaim() reaches the other CPUs by IPI). */
static unsigned long held_after_reclaim(void)
{
	struct kmem_stats st;

	kmem_reclaim();
	kmem_get_stats(&st);
	return st.slab_pages + st.large_pages;
}

static void replay_counts_injected_failures(struct ktest *t)
{
	size_t cap = sizeof(struct replay_header) + sizeof(struct replay_cache) +
		     (2 * TRACE_ALLOCS + 3) * sizeof(struct replay_op);
	void *buf = kmalloc(cap, GFP_KERNEL);
	static struct replay_result clean, res;
	unsigned long injected0, held_clean, held_res;
	size_t len;

	KTEST_ASSERT_NOT_NULL(t, buf);
	len = build_trace(buf);
	kmem_reclaim();
	KTEST_EXPECT_EQ(t, replay_run(buf, len, &clean), 0);
	held_clean = held_after_reclaim();
	KTEST_EXPECT_EQ(t, clean.failures, 0ul);
	injected0 = failslab.injected;
	KTEST_EXPECT_EQ(t, fault_attr_set(&failslab, "20,1,-1,16-8000"), 0);
	KTEST_EXPECT_EQ(t, replay_run(buf, len, &res), 1);
	fault_attr_set(&failslab, "off");
	held_res = held_after_reclaim();
	KTEST_EXPECT_EQ(t, res.corruptions, 0ul);
	KTEST_EXPECT_GT(t, res.failures, 0ul);
	KTEST_EXPECT_EQ(t, res.failures, failslab.injected - injected0);
	KTEST_EXPECT_EQ(t, res.injected, res.failures);	/* none for want of memory */
	KTEST_EXPECT_EQ(t, clean.injected, 0ul);
	KTEST_EXPECT_EQ(t, res.allocs, clean.allocs);
	/* no page lost: where the allocator's own objects (magazines, cache
	 * descriptors) land depends on the run, so the failing run may hold
	 * fewer pages at the end than the clean one, never more.  Counted
	 * after a reclaim, not at the replay's end: the replay moves jiffies
	 * on by seconds, and the other CPUs' reapers then give pages back at
	 * moments of their own, inside one run's count or not. */
	KTEST_EXPECT_LE(t, held_res, held_clean);
	ktest_info(t, "pages held after a reclaim: %lu after the clean run, %lu after the "
		   "failing one", held_clean, held_res);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, page_alloc_validate(), 0);
	kfree(buf);
}

static const struct ktest_case fault_inject_cases[] = {
	KTEST_CASE(settings_syntax),
	KTEST_CASE(interval_and_times),
	KTEST_CASE(restore_puts_settings_back),
	KTEST_CASE(probability_is_honoured),
	KTEST_CASE(filter_limits_to_named_cache),
	KTEST_CASE(size_filter),
	KTEST_CASE(page_failures_in_create_and_growth),
	KTEST_CASE(create_fails_on_its_descriptor),
	KTEST_CASE(large_block_pages_refused),
	KTEST_CASE(krealloc_keeps_the_old_block),
	KTEST_CASE(replay_counts_injected_failures),
	{}
};

static const struct ktest_suite fault_inject_suite = {
	.name = "fault_inject", .cases = fault_inject_cases, .init = fi_init, .exit = fi_exit,
};
KTEST_SUITE(fault_inject_suite);
