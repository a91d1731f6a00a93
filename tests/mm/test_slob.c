/* test_slob.c - self-tests specific to SLOB (mm/slob.c).
 *
 * Merging of free neighbours, large blocks (exactly the pages they need), the
 * arena shrinker, the exact per-object overhead (one unit for kmalloc, none
 * for caches), objects of more than a page on the heap (and taken again
 * where they were freed), the constructor on
 * every allocation, and no page leaks over a long run.
 * These look inside the heap through mm/slob.h.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/random.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/slob.h"
#include "allocator_suite.h"
#include "held_pages.h"

static unsigned long heap_pages(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.slab_pages;
}

static unsigned long bytes_used(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.bytes_used;
}

static void slob_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

/*
 * Fills fresh heap pages with blocks of random sizes, frees them in a
 * shuffled order, and checks that they merged back into whole pages: the
 * shrinker can then return every page the test added.
 */
static void free_merges_neighbours(struct ktest *t)
{
	static void *obj[600];
	unsigned long flags, base, grown, returned;
	struct rnd_state r;
	unsigned int i;

	prandom_seed(&r, 7);
	local_irq_save(flags);		/* keep the shrinker timer out */
	kmem_reclaim();
	base = heap_pages();
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		obj[i] = kmalloc(1 + prandom_below(&r, 300), GFP_ATOMIC);
	grown = heap_pages() - base;
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		kfree(obj[(i * 251) % ARRAY_SIZE(obj)]);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);	/* includes "no unmerged neighbours" */
	returned = kmem_reclaim();
	local_irq_restore(flags);
	KTEST_EXPECT_GT(t, grown, 4UL);
	KTEST_EXPECT_EQ(t, returned, grown);
	KTEST_EXPECT_EQ(t, heap_pages(), base);
}

static int is_large_block(const void *p)
{
	const struct page *page = virt_to_page(p);

	return page && page_address(page) == p && (page->flags & PG_large);
}

static void large_blocks_found_and_released(struct ktest *t)
{
	unsigned long free_before = nr_free_pages();
	void *a = kmalloc(PAGE_SIZE - SLOB_UNIT, GFP_KERNEL);	/* the first large block size */
	void *b = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	void *c = kmalloc(PAGE_SIZE - SLOB_UNIT - 1, GFP_KERNEL);	/* still on the heap */

	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, (uintptr_t)a % PAGE_SIZE, 0u);
	KTEST_EXPECT_TRUE(t, is_large_block(a));
	KTEST_EXPECT_TRUE(t, is_large_block(b));
	KTEST_EXPECT_FALSE(t, is_large_block(c));
	KTEST_EXPECT_EQ(t, ksize(a), PAGE_SIZE);
	KTEST_EXPECT_EQ(t, ksize(b), 3 * PAGE_SIZE);	/* the pages it needs, not 4 */
	KTEST_EXPECT_EQ(t, ksize(c), PAGE_SIZE - SLOB_UNIT);
	memset(b, 0x77, 3 * PAGE_SIZE);
	kfree(a);
	kfree(b);
	kfree(c);
	KTEST_EXPECT_FALSE(t, is_large_block(a));
	KTEST_EXPECT_FALSE(t, is_large_block(b));
	kmem_reclaim();
	KTEST_EXPECT_GE(t, nr_free_pages(), free_before);
}

/* The timer gives empty heap pages back within a few ticks. */
static void shrinker_returns_empty_pages(struct ktest *t)
{
	static void *obj[400];
	unsigned long start, grown, free_full, waited = 0;
	unsigned int i;

	kmem_reclaim();
	start = nr_free_pages();
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		obj[i] = kmalloc(500, GFP_KERNEL);
	grown = start - nr_free_pages();
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		kfree(obj[i]);
	free_full = nr_free_pages();
	KTEST_EXPECT_GE(t, grown, (unsigned long)(ARRAY_SIZE(obj) * 500 / PAGE_SIZE));
	KTEST_EXPECT_LT(t, free_full, start);		/* the heap still holds the pages */
	while (nr_free_pages() < start && waited < 3 * HZ) {
		ktest_wait_ticks(HZ / 10 + 1);
		waited += HZ / 10 + 1;
	}
	KTEST_EXPECT_GE(t, nr_free_pages(), start);	/* all back, in one pass */
	KTEST_EXPECT_LE(t, waited, (unsigned long)(2 * HZ));
	ktest_info(t, "%lu pages returned after %lu ticks", nr_free_pages() - free_full, waited);
}

/* Pages the shrinker returned are gone from the heap: every free block and
 * every new object lies on a page still marked as heap. */
static void returned_pages_leave_the_heap(struct ktest *t)
{
	void *obj[100];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(obj); i++)
		obj[i] = kmalloc(700, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		kfree(obj[i]);
	KTEST_EXPECT_GT(t, kmem_reclaim(), 0UL);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);	/* free blocks all on PG_slab pages */
	for (i = 0; i < ARRAY_SIZE(obj); i++) {
		struct page *page;

		obj[i] = kmalloc(300, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, obj[i]);
		page = virt_to_page(obj[i]);
		KTEST_EXPECT_TRUE(t, page && (page->flags & PG_slab));
	}
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		kfree(obj[i]);
}

static void shrinker_never_grows(struct ktest *t)
{
	unsigned long flags, pages, free;

	local_irq_save(flags);
	kmem_reclaim();
	pages = heap_pages();
	free = nr_free_pages();
	KTEST_EXPECT_EQ(t, kmem_reclaim(), 0UL);
	KTEST_EXPECT_EQ(t, heap_pages(), pages);
	KTEST_EXPECT_EQ(t, nr_free_pages(), free);
	local_irq_restore(flags);
}

/* kmalloc costs exactly one unit of header; cache objects cost nothing. */
static void exact_overhead(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_overhead", 52, 0, 0, NULL, NULL);
	unsigned long before;
	size_t n;
	void *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	for (n = 1; n < 300; n += 37) {
		before = bytes_used();
		p = kmalloc(n, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, ksize(p), ALIGN(n, SLOB_UNIT));
		KTEST_EXPECT_EQ(t, bytes_used() - before, ALIGN(n, SLOB_UNIT) + SLOB_UNIT);
		kfree(p);
		KTEST_EXPECT_EQ(t, bytes_used(), before);
	}
	before = bytes_used();
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, bytes_used() - before, ALIGN(52, SLOB_UNIT));
	kmem_cache_free(c, p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/*
 * Objects of more than a page live on the
 * heap, at the start of a run of fresh heap pages whose last page's rest is
 * free heap (a 6208-byte task_struct takes 1.5 pages, not 2); freeing them
 * gives every page back.
 */
static void multi_page_objects_on_the_heap(struct ktest *t)
{
	size_t size = PAGE_SIZE + PAGE_SIZE / 2 + 64;	/* 6208 with 4 KiB pages */
	struct kmem_cache *c = kmem_cache_create("test_run", size, 0, 0, NULL, NULL);
	unsigned long flags, heap0, free0;
	void *obj[6], *small;
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	kmem_reclaim();
	heap0 = heap_pages();
	free0 = nr_free_pages();
	for (i = 0; i < ARRAY_SIZE(obj); i++) {
		struct page *page;

		obj[i] = kmem_cache_alloc(c, GFP_ATOMIC);
		KTEST_ASSERT_NOT_NULL(t, obj[i]);
		page = virt_to_page(obj[i]);
		KTEST_EXPECT_TRUE(t, (page->flags & PG_slab) && (page[1].flags & PG_slab));
		memset(obj[i], 0x5a, size);
	}
	small = kmalloc(1000, GFP_ATOMIC);	/* fits in a run's free rest */
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_LE(t, free0 - nr_free_pages(), ARRAY_SIZE(obj) * 2 + 1UL);
	kfree(small);
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		kmem_cache_free(c, obj[i]);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_reclaim();
	KTEST_EXPECT_EQ(t, heap_pages(), heap0);
	KTEST_EXPECT_EQ(t, nr_free_pages(), free0);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/*
 * An object of more than a page freed with the page allocator empty can
 * be allocated again at once: the run it leaves is taken again where it
 * is, not asked of the page allocator (which has no block of two pages,
 * nor any page).  The fuzzer found this failing: "no object right after
 * freeing one".  The same for a cache aligned above a page: the run is
 * aligned as it asks; and for an object smaller than a page aligned above
 * one, which takes a run of one page (the fuzzer found it failing too: a
 * 189-byte object aligned to 8 KiB; and again, with a run of more than a
 * page freed meanwhile: the heap remembered only that run).  between: the
 * size of an object of another cache allocated and freed between the
 * object's allocation and its free (0: none).
 */
static void rerun_without_pages(struct ktest *t, size_t size, size_t align, size_t between)
{
	struct kmem_cache *c = kmem_cache_create("test_rerun", size, align, 0, NULL, NULL);
	struct kmem_cache *b = between ? kmem_cache_create("test_rerun_between", between, 0, 0,
							    NULL, NULL) : NULL;
	unsigned long flags;
	void **pages, *obj, *again;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	obj = kmem_cache_alloc(c, GFP_ATOMIC);
	if (b)
		kmem_cache_free(b, kmem_cache_alloc(b, GFP_ATOMIC));
	pages = hold_free_pages(0, 0);
	KTEST_EXPECT_EQ(t, nr_free_pages(), 0UL);
	if (obj)
		kmem_cache_free(c, obj);
	again = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN);
	KTEST_EXPECT_NOT_NULL(t, obj);
	KTEST_EXPECT_PTR_EQ(t, again, obj);
	KTEST_EXPECT_TRUE(t, !align || IS_ALIGNED((uintptr_t)again, align));
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	if (again)
		kmem_cache_free(c, again);
	release_held_pages(pages);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	if (b)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
}

static void run_freed_is_taken_again_without_pages(struct ktest *t)
{
	size_t size = PAGE_SIZE + PAGE_SIZE / 2 + 64;

	rerun_without_pages(t, size, 0, 0);
	rerun_without_pages(t, size, 2 * PAGE_SIZE, 0);
	rerun_without_pages(t, 189, 2 * PAGE_SIZE, 0);
	rerun_without_pages(t, 202, 4 * PAGE_SIZE, size);
}

/*
 * An aligned object freed with the heap full and the page allocator empty
 * can be allocated again: the block it leaves may be shorter than the
 * size plus the alignment's slack that a search for a block fitting
 * anywhere asks for, but it holds the object where it was.  The fuzzer
 * found SLOB-fast failing: "no object right after freeing one" (904 bytes
 * aligned to 64).  The first object taken once no page is left is freed:
 * the next one is carved right below it, so it merges with a fragment
 * shorter than the alignment at most.
 */
static void aligned_object_freed_in_a_full_heap_is_taken_again(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_realign", 960, 64, 0, NULL, NULL);
	void **pages, **chain = NULL, **p, **first = NULL, *one, *victim, *again;
	unsigned long flags;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	one = kmem_cache_alloc(c, GFP_ATOMIC);	/* at least one, from a page */
	pages = hold_free_pages(0, 0);
	while ((p = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		*p = chain;
		chain = p;
		if (!first)
			first = p;
	}
	victim = first ? (void *)first : one;
	KTEST_EXPECT_NOT_NULL(t, victim);
	if (victim) {
		kmem_cache_free(c, victim);
		again = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN);
		KTEST_EXPECT_NOT_NULL(t, again);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)again, 64));
		if (again)
			kmem_cache_free(c, again);
	}
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	for (; chain != first; chain = p) {	/* first, if any, was the victim */
		p = *chain;
		kmem_cache_free(c, chain);
	}
	if (one && victim != one)
		kmem_cache_free(c, one);
	release_held_pages(pages);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A large block holds exactly the pages it needs: the rest of the power-of-two
 * block goes back to the page allocator, and all of it comes back on kfree. */
static void large_block_takes_exact_pages(struct ktest *t)
{
	unsigned long free0, flags;
	void *p;

	local_irq_save(flags);
	kmem_reclaim();
	p = kmalloc(PAGE_SIZE, GFP_ATOMIC);	/* the descriptor's heap page, if needed */
	kfree(p);
	free0 = nr_free_pages();
	p = kmalloc(5 * PAGE_SIZE - 100, GFP_ATOMIC | __GFP_ZERO);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, ksize(p), 5 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, free0 - nr_free_pages(), 5UL);
	KTEST_EXPECT_TRUE(t, memchr_inv(p, 0, 5 * PAGE_SIZE) == NULL);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kfree(p);
	KTEST_EXPECT_EQ(t, nr_free_pages(), free0);
	KTEST_EXPECT_EQ(t, page_alloc_validate(), 0);
	local_irq_restore(flags);
}

static unsigned long slob_ctors, slob_dtors;

static void slob_ctor(void *obj)
{
	slob_ctors++;
}

static void slob_dtor(void *obj)
{
	slob_dtors++;
}

/* SLOB's emulation runs the constructor on every allocation (SLAB only when
 * a slab is created) and the destructor on every free. */
static void ctor_on_every_allocation(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_slob_ctor", 40, 0, 0, slob_ctor, slob_dtor);
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	slob_ctors = slob_dtors = 0;
	for (i = 0; i < 10; i++) {
		void *p = kmem_cache_alloc(c, GFP_KERNEL);

		KTEST_ASSERT_NOT_NULL(t, p);
		kmem_cache_free(c, p);
	}
	KTEST_EXPECT_EQ(t, slob_ctors, 10UL);
	KTEST_EXPECT_EQ(t, slob_dtors, 10UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A second free of an object whose destructor is running (slob_lock is
 * dropped for it) must be refused, even when the object could be had again
 * meanwhile: here the destructor itself frees its object once more and
 * allocates from the cache; without the guard that free succeeds, the
 * allocation gets the same block, and the first free then frees the block
 * under its new owner. */
static struct kmem_cache *refree_cache;
static void *refree_again;

static void refree_dtor(void *obj)
{
	if (refree_again)
		return;
	kmem_cache_free(refree_cache, obj);	/* the second free */
	refree_again = kmem_cache_alloc(refree_cache, GFP_ATOMIC);
}

static void second_free_in_destructor_is_refused(struct ktest *t)
{
	unsigned long bad = kmem_bad_free_count;
	void *obj, *next;

	refree_cache = kmem_cache_create("test_refree", 48, 0, 0, NULL, refree_dtor);
	KTEST_ASSERT_NOT_NULL(t, refree_cache);
	refree_again = NULL;
	obj = kmem_cache_alloc(refree_cache, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	ktest_expect_reports(t, 1);
	kmem_cache_free(refree_cache, obj);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
	KTEST_ASSERT_NOT_NULL(t, refree_again);
	KTEST_EXPECT_PTR_NE(t, refree_again, obj);	/* obj was still being freed */
	next = kmem_cache_alloc(refree_cache, GFP_KERNEL);	/* refree_again stays live */
	KTEST_EXPECT_PTR_NE(t, next, refree_again);
	KTEST_EXPECT_EQ(t, cache_live_objects(refree_cache), 2UL);
	kmem_cache_free(refree_cache, next);
	kmem_cache_free(refree_cache, refree_again);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(refree_cache), 0);
}

#define LEAK_SLOTS	300

/* A long random run, everything freed: the heap and the page allocator end
 * where they started. */
static void no_page_leak_over_long_run(struct ktest *t)
{
	static void *obj[LEAK_SLOTS];
	struct kmem_cache *c = kmem_cache_create("test_leak", 120, 16, 0, NULL, NULL);
	unsigned long flags, heap0, free0, peak_held = 0, live = 0;
	struct rnd_state r;
	unsigned int i, k;

	KTEST_ASSERT_NOT_NULL(t, c);
	prandom_seed(&r, 2005);
	memset(obj, 0, sizeof(obj));
	local_irq_save(flags);
	kmem_reclaim();
	heap0 = heap_pages();
	free0 = nr_free_pages();
	for (i = 0; i < 60000; i++) {
		k = prandom_below(&r, LEAK_SLOTS);
		if (obj[k]) {
			if (k % 3 == 0)
				kmem_cache_free(c, obj[k]);
			else
				kfree(obj[k]);
			obj[k] = NULL;
		} else if (k % 3 == 0) {
			obj[k] = kmem_cache_alloc(c, GFP_ATOMIC);
		} else {
			obj[k] = kmalloc(1 + prandom_below(&r, k % 7 ? 400 : 5000), GFP_ATOMIC);
		}
		if (i % 1000 == 0)
			peak_held = max(peak_held, free0 - nr_free_pages());
	}
	for (k = 0; k < LEAK_SLOTS; k++)
		live += obj[k] ? (k % 3 == 0 ? 120 : ksize(obj[k])) : 0;
	ktest_info(t, "before the final frees: %lu live bytes, heap %lu pages (%lu bytes in use)",
		   live, heap_pages() - heap0, bytes_used());
	for (k = 0; k < LEAK_SLOTS; k++) {
		if (!obj[k])
			continue;
		if (k % 3 == 0)
			kmem_cache_free(c, obj[k]);
		else
			kfree(obj[k]);
	}
	kmem_reclaim();
	KTEST_EXPECT_EQ(t, heap_pages(), heap0);
	KTEST_EXPECT_EQ(t, nr_free_pages(), free0);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static const struct ktest_case slob_cases[] = {
	KTEST_CASE(free_merges_neighbours),
	KTEST_CASE(large_blocks_found_and_released),
	KTEST_CASE(shrinker_returns_empty_pages),
	KTEST_CASE(returned_pages_leave_the_heap),
	KTEST_CASE(shrinker_never_grows),
	KTEST_CASE(exact_overhead),
	KTEST_CASE(multi_page_objects_on_the_heap),
	KTEST_CASE(run_freed_is_taken_again_without_pages),
	KTEST_CASE(aligned_object_freed_in_a_full_heap_is_taken_again),
	KTEST_CASE(large_block_takes_exact_pages),
	KTEST_CASE(ctor_on_every_allocation),
	KTEST_CASE(second_free_in_destructor_is_refused),
	KTEST_CASE(no_page_leak_over_long_run),
	{}
};

static const struct ktest_suite slob_suite = {
	.name = "slob",
	.cases = slob_cases,
	.init = allocator_suite_init,
	.exit = slob_exit,
};
KTEST_SUITE(slob_suite);
