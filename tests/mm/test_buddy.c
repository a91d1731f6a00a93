/* test_buddy.c - self-tests of the buddy page allocator (mm/page_alloc.c).
 *
 * Run in the kernel ("selftest") and in the host harness.  Blocks are
 * filled with patterns and checked, so overlapping blocks show up; the
 * free lists are checked with page_alloc_validate() after every case.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/memcheck.h>
#include <tiny/mm.h>
#include <tiny/random.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/page_alloc.h"	/* struct page, virt_to_page() */

extern unsigned long page_bad_free_count;
extern unsigned long page_poison_errors;

/* Fills a block with a pattern that depends on its address and a tag. */
static void fill_block(void *addr, unsigned int order, u32 tag)
{
	u32 *w = addr;
	size_t i, n = (PAGE_SIZE << order) / sizeof(u32);

	for (i = 0; i < n; i += 61)
		w[i] = (u32)(uintptr_t)addr ^ tag ^ (u32)i;
	w[n - 1] = tag;
}

static int block_intact(const void *addr, unsigned int order, u32 tag)
{
	const u32 *w = addr;
	size_t i, n = (PAGE_SIZE << order) / sizeof(u32);

	for (i = 0; i < n; i += 61)
		if (w[i] != ((u32)(uintptr_t)addr ^ tag ^ (u32)i))
			return 0;
	return w[n - 1] == tag;
}

static int snapshots_equal(const struct buddy_snapshot *a, const struct buddy_snapshot *b)
{
	unsigned int o;

	if (a->free_pages != b->free_pages)
		return 0;
	for (o = 0; o < MAX_ORDER; o++)
		if (a->nr_free[o] != b->nr_free[o])
			return 0;
	return 1;
}

static void buddy_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, page_alloc_validate(), 0);
}

static void order_helpers(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, get_order(0), 0u);
	KTEST_EXPECT_EQ(t, get_order(1), 0u);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE), 0u);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE + 1), 1u);
	KTEST_EXPECT_EQ(t, get_order(2 * PAGE_SIZE), 1u);
	KTEST_EXPECT_EQ(t, get_order(3 * PAGE_SIZE), 2u);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE << 10), 10u);
	KTEST_EXPECT_EQ(t, get_order((PAGE_SIZE << 10) + 1), 11u);
	KTEST_EXPECT_EQ(t, PAGE_ALIGN(PAGE_SIZE + 1), 2 * PAGE_SIZE);
}

static void counters_add_up(struct ktest *t)
{
	struct buddy_snapshot s;
	unsigned long pages = 0;
	unsigned int o;

	page_alloc_snapshot(&s);
	for (o = 0; o < MAX_ORDER; o++)
		pages += s.nr_free[o] << o;
	KTEST_EXPECT_EQ(t, pages, s.free_pages);
	KTEST_EXPECT_LE(t, s.free_pages, totalram_pages());
	KTEST_EXPECT_GT(t, totalram_pages(), 0UL);
}

static void every_order_aligned(struct ktest *t)
{
	unsigned long before = nr_free_pages(), addr[MAX_ORDER];
	unsigned int o;

	for (o = 0; o < MAX_ORDER; o++) {
		addr[o] = __get_free_pages(GFP_KERNEL | __GFP_NOWARN, o);
		if (!addr[o]) {
			ktest_info(t, "no free block of order %u (machine too small)", o);
			continue;
		}
		KTEST_EXPECT_EQ(t, addr[o] & ((PAGE_SIZE << o) - 1), 0UL);
		KTEST_EXPECT_PTR_EQ(t, page_address(virt_to_page((void *)addr[o])), (void *)addr[o]);
		fill_block((void *)addr[o], o, o);
	}
	for (o = 0; o < MAX_ORDER; o++)
		if (addr[o])
			KTEST_EXPECT_TRUE(t, block_intact((void *)addr[o], o, o));
	for (o = 0; o < MAX_ORDER; o++)
		free_pages(addr[o], o);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
}

static void too_large_order_fails(struct ktest *t)
{
	unsigned long before = nr_free_pages();

	KTEST_EXPECT_NULL(t, alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER));
	KTEST_EXPECT_NULL(t, alloc_pages(GFP_KERNEL | __GFP_NOWARN, 40));
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
}

static void zeroed_pages(struct ktest *t)
{
	unsigned long p = __get_free_page(GFP_KERNEL);
	struct page *page;

	KTEST_ASSERT_NE(t, p, 0UL);
	memset((void *)p, 0x5a, PAGE_SIZE);
	free_page(p);
	p = get_zeroed_page(GFP_KERNEL);
	KTEST_ASSERT_NE(t, p, 0UL);
	KTEST_EXPECT_NULL(t, memchr_inv((void *)p, 0, PAGE_SIZE));
	free_page(p);
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	KTEST_ASSERT_NOT_NULL(t, page);
	p = (unsigned long)page_address(page);
	KTEST_EXPECT_NULL(t, memchr_inv((void *)p, 0, PAGE_SIZE << 2));
	free_pages(p, 2);
}

/* Frees a chain of pages linked through their first word; returns how many. */
static unsigned long free_chain(void **p)
{
	unsigned long n = 0;

	while (p) {
		void **next = *p;

		free_page((unsigned long)(uintptr_t)p);
		p = next;
		n++;
	}
	return n;
}

/*
 * Takes every free page one at a time, dealing them alternately onto two
 * chains (linked through the pages' first word), then frees the first
 * chain and only then the second: an order unlike the allocation order.
 * Full merging must rebuild exactly the starting free lists.
 */
static void full_merge_restores_buddyinfo(struct ktest *t)
{
	struct buddy_snapshot before, after;
	void **chain[2] = { NULL, NULL }, **p;
	unsigned long n = 0, freed, flags;

	local_irq_save(flags);	/* timers must not allocate meanwhile */
	page_alloc_snapshot(&before);
	while ((p = (void **)__get_free_page(GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		*p = chain[n % 2];
		chain[n % 2] = p;
		n++;
	}
	KTEST_EXPECT_EQ(t, nr_free_pages(), 0UL);
	KTEST_EXPECT_EQ(t, n, before.free_pages);
	freed = free_chain(chain[0]);
	freed += free_chain(chain[1]);
	page_alloc_snapshot(&after);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, freed, n);
	KTEST_EXPECT_TRUE(t, snapshots_equal(&before, &after));
	KTEST_EXPECT_EQ(t, after.free_pages, before.free_pages);
}

/*
 * GFP_KERNEL stops short of the reserve; GFP_ATOMIC may take it all; an
 * empty machine returns NULL without damage and recovers after a free.
 */
static void exhaustion_and_recovery(struct ktest *t)
{
	void **normal = NULL, **atomic = NULL, **p;
	unsigned long flags, before;

	local_irq_save(flags);
	before = nr_free_pages();
	while ((p = (void **)__get_free_page(GFP_KERNEL | __GFP_NOWARN)) != NULL) {
		*p = normal;
		normal = p;
	}
	KTEST_EXPECT_EQ(t, nr_free_pages(), min_free_pages());
	while ((p = (void **)__get_free_page(GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		*p = atomic;
		atomic = p;
	}
	KTEST_EXPECT_EQ(t, nr_free_pages(), 0UL);
	KTEST_EXPECT_NULL(t, alloc_pages(GFP_ATOMIC | __GFP_NOWARN, 0));
	KTEST_EXPECT_NULL(t, alloc_pages(GFP_ATOMIC | __GFP_NOWARN, 3));
	KTEST_EXPECT_EQ(t, page_alloc_validate(), 0);
	if (atomic) {		/* one page back: allocation works again */
		p = *atomic;
		free_page((unsigned long)(uintptr_t)atomic);
		atomic = (void **)__get_free_page(GFP_ATOMIC);
		KTEST_EXPECT_NOT_NULL(t, atomic);
		if (atomic)
			*atomic = p;
	}
	free_chain(atomic);
	free_chain(normal);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
	local_irq_restore(flags);
}

#define STRESS_SLOTS	128

/* Random mixed-order allocations and frees (fixed seed), patterns checked. */
static void random_stress(struct ktest *t)
{
	static unsigned long addr[STRESS_SLOTS];
	static unsigned int order[STRESS_SLOTS];
	unsigned long before = nr_free_pages(), failures = 0, bad = 0;
	struct rnd_state r;
	unsigned int i, k;

	prandom_seed(&r, 0x5eed);
	memset(addr, 0, sizeof(addr));
	for (i = 0; i < 20000; i++) {
		k = prandom_below(&r, STRESS_SLOTS);
		if (addr[k]) {
			bad += !block_intact((void *)addr[k], order[k], k);
			free_pages(addr[k], order[k]);
			addr[k] = 0;
			continue;
		}
		order[k] = prandom_below(&r, 8) ? prandom_below(&r, 3) : prandom_below(&r, 7);
		addr[k] = __get_free_pages(GFP_KERNEL | __GFP_NOWARN, order[k]);
		if (!addr[k]) {
			failures++;
			continue;
		}
		KTEST_EXPECT_EQ(t, addr[k] & ((PAGE_SIZE << order[k]) - 1), 0UL);
		fill_block((void *)addr[k], order[k], k);
	}
	for (k = 0; k < STRESS_SLOTS; k++) {
		if (!addr[k])
			continue;
		bad += !block_intact((void *)addr[k], order[k], k);
		free_pages(addr[k], order[k]);
	}
	KTEST_EXPECT_EQ(t, bad, 0UL);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
	if (failures)
		ktest_info(t, "%lu allocations failed (memory full)", failures);
}

/* ---- allocation from the timer interrupt ---------------------------------- */

struct irq_alloc_state {
	struct timer_list timer;
	unsigned long held[4];
	volatile unsigned long allocs, bad;
	volatile int stop;
};

static void irq_alloc_fn(unsigned long data)
{
	struct irq_alloc_state *s = (struct irq_alloc_state *)data;
	unsigned int k = (unsigned int)(s->allocs % ARRAY_SIZE(s->held));

	if (s->held[k]) {
		s->bad += !block_intact((void *)s->held[k], 1, 0x1e9 + k);
		free_pages(s->held[k], 1);
		s->held[k] = 0;
	}
	if (s->stop)
		return;
	s->held[k] = __get_free_pages(GFP_ATOMIC | __GFP_NOWARN, 1);
	if (s->held[k]) {
		fill_block((void *)s->held[k], 1, 0x1e9 + k);
		s->allocs++;
	}
	mod_timer(&s->timer, jiffies + 1);
}

static void alloc_from_timer_interrupt(struct ktest *t)
{
	static struct irq_alloc_state s;
	unsigned long before = nr_free_pages(), end = jiffies + 20, mine = 0, bad = 0, a;
	unsigned int k;

	memset(&s, 0, sizeof(s));
	setup_timer(&s.timer, irq_alloc_fn, (unsigned long)&s);
	mod_timer(&s.timer, jiffies + 1);
	while (time_before(jiffies, end)) {
		a = __get_free_pages(GFP_KERNEL | __GFP_NOWARN, (unsigned int)(mine % 3));
		if (!a)
			continue;
		fill_block((void *)a, (unsigned int)(mine % 3), 7);
		bad += !block_intact((void *)a, (unsigned int)(mine % 3), 7);
		free_pages(a, (unsigned int)(mine % 3));
		mine++;
		if (mine % 64 == 0)
			ktest_wait_ticks(1);
	}
	s.stop = 1;
	del_timer(&s.timer);
	for (k = 0; k < ARRAY_SIZE(s.held); k++)
		if (s.held[k])
			free_pages(s.held[k], 1);
	KTEST_EXPECT_GT(t, s.allocs, 5UL);
	KTEST_EXPECT_GT(t, mine, 0UL);
	KTEST_EXPECT_EQ(t, bad + s.bad, 0UL);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
}

/* ---- bad input ------------------------------------------------------------ */

static void bad_frees_are_reported(struct ktest *t)
{
	unsigned long before = nr_free_pages(), bad = page_bad_free_count;
	unsigned long a = __get_free_pages(GFP_KERNEL, 2);
	struct buddy_snapshot s1, s2;

	KTEST_ASSERT_NE(t, a, 0UL);
	page_alloc_snapshot(&s1);
	ktest_expect_reports(t, 6);			/* the six bad frees below */
	free_pages(a + 12, 2);				/* not page aligned */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 1);
	free_pages(a, 1);				/* wrong order */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 2);
	free_pages(a + PAGE_SIZE, 0);			/* inside the block */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 3);
	free_pages(~0UL & PAGE_MASK, 0);		/* outside managed memory */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 4);
	__free_pages((struct page *)(uintptr_t)a, 0);	/* not a struct page */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 5);
	page_alloc_snapshot(&s2);
	KTEST_EXPECT_TRUE(t, snapshots_equal(&s1, &s2));	/* nothing changed */
	free_pages(a, 2);				/* the real free */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 5);
	free_pages(a, 2);				/* double free */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 6);
	free_pages(0, 3);				/* NULL: a no-op */
	KTEST_EXPECT_EQ(t, page_bad_free_count, bad + 6);
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);
}

/*
 * CONFIG_PAGE_POISONING: a write to a freed page is found when the page is
 * handed out again.  The test scribbles on a page it freed (telling a host
 * memory checker that it does so on purpose), then takes pages until it
 * gets that one back.
 */
static void poison_catches_write_after_free(struct ktest *t)
{
	unsigned long errors = page_poison_errors, flags, p, q;
	void **chain = NULL;

	if (!IS_ENABLED(CONFIG_PAGE_POISONING)) {
		ktest_skip(t, "CONFIG_PAGE_POISONING is off");
		return;
	}
	local_irq_save(flags);
	p = __get_free_page(GFP_KERNEL);
	KTEST_ASSERT_NE(t, p, 0UL);
	free_page(p);
	kmem_mark_internal((void *)p, PAGE_SIZE);
	((volatile char *)p)[100] = 0x42;		/* the bug */
	while ((q = __get_free_page(GFP_ATOMIC | __GFP_NOWARN)) != 0 && q != p) {
		*(void **)q = chain;
		chain = (void **)q;
	}
	KTEST_EXPECT_EQ(t, q, p);
	KTEST_EXPECT_EQ(t, page_poison_errors, errors + 1);
	if (q)
		free_page(q);
	free_chain(chain);
	local_irq_restore(flags);
}

static const struct ktest_case buddy_cases[] = {
	KTEST_CASE(order_helpers),
	KTEST_CASE(counters_add_up),
	KTEST_CASE(every_order_aligned),
	KTEST_CASE(too_large_order_fails),
	KTEST_CASE(zeroed_pages),
	KTEST_CASE(full_merge_restores_buddyinfo),
	KTEST_CASE(exhaustion_and_recovery),
	KTEST_CASE(random_stress),
	KTEST_CASE(alloc_from_timer_interrupt),
	KTEST_CASE(bad_frees_are_reported),
	KTEST_CASE(poison_catches_write_after_free),
	{}
};

static const struct ktest_suite buddy_suite = {
	.name = "buddy",
	.cases = buddy_cases,
	.exit = buddy_exit,
};
KTEST_SUITE(buddy_suite);
