/* test_timer.c - self-tests of jiffies and the kernel timer list. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/timer.h>

struct timer_probe {
	struct timer_list timer;
	volatile unsigned long fired_at[8];
	volatile int count;
	int rearm;			/* times to re-arm itself */
};

static void probe_fn(unsigned long data)
{
	struct timer_probe *p = (struct timer_probe *)data;

	if (p->count < (int)ARRAY_SIZE(p->fired_at))
		p->fired_at[p->count] = jiffies;
	p->count++;
	if (p->rearm > 0) {
		p->rearm--;
		mod_timer(&p->timer, jiffies + 1);
	}
}

static void probe_init(struct timer_probe *p, int rearm)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p->fired_at); i++)
		p->fired_at[i] = 0;
	p->count = 0;
	p->rearm = rearm;
	setup_timer(&p->timer, probe_fn, (unsigned long)p);
}

static void jiffies_advance(struct ktest *t)
{
	unsigned long start = jiffies;

	ktest_wait_ticks(3);
	KTEST_EXPECT_GE(t, jiffies - start, 3UL);
}

static void fires_at_expiry(struct ktest *t)
{
	struct timer_probe p;
	unsigned long expires;

	probe_init(&p, 0);
	expires = jiffies + 5;
	KTEST_EXPECT_EQ(t, mod_timer(&p.timer, expires), 0);
	KTEST_EXPECT_TRUE(t, timer_pending(&p.timer));
	ktest_wait_ticks(2);
	KTEST_EXPECT_EQ(t, p.count, 0);
	ktest_wait_ticks(5);
	KTEST_EXPECT_EQ(t, p.count, 1);
	KTEST_EXPECT_EQ(t, p.fired_at[0], expires);
	KTEST_EXPECT_FALSE(t, timer_pending(&p.timer));
}

static void del_timer_cancels(struct ktest *t)
{
	struct timer_probe p;

	probe_init(&p, 0);
	mod_timer(&p.timer, jiffies + 3);
	KTEST_EXPECT_EQ(t, del_timer(&p.timer), 1);
	KTEST_EXPECT_EQ(t, del_timer(&p.timer), 0);
	ktest_wait_ticks(5);
	KTEST_EXPECT_EQ(t, p.count, 0);
}

static void mod_timer_moves(struct ktest *t)
{
	struct timer_probe p;
	unsigned long later;

	probe_init(&p, 0);
	mod_timer(&p.timer, jiffies + 2);
	later = jiffies + 6;
	KTEST_EXPECT_EQ(t, mod_timer(&p.timer, later), 1);
	ktest_wait_ticks(4);
	KTEST_EXPECT_EQ(t, p.count, 0);
	ktest_wait_ticks(4);
	KTEST_EXPECT_EQ(t, p.count, 1);
	KTEST_EXPECT_EQ(t, p.fired_at[0], later);
}

static void rearming_keeps_firing(struct ktest *t)
{
	struct timer_probe p;
	int i;

	probe_init(&p, 4);
	mod_timer(&p.timer, jiffies + 1);
	ktest_wait_ticks(8);
	KTEST_EXPECT_EQ(t, p.count, 5);
	for (i = 1; i < 5; i++)
		KTEST_EXPECT_EQ(t, p.fired_at[i] - p.fired_at[i - 1], 1UL);
	KTEST_EXPECT_FALSE(t, timer_pending(&p.timer));
}

static void expiry_order(struct ktest *t)
{
	struct timer_probe a, b, c;
	unsigned long base = jiffies;

	probe_init(&a, 0);
	probe_init(&b, 0);
	probe_init(&c, 0);
	mod_timer(&c.timer, base + 4);
	mod_timer(&a.timer, base + 2);
	mod_timer(&b.timer, base + 3);
	ktest_wait_ticks(6);
	KTEST_EXPECT_EQ(t, a.fired_at[0], base + 2);
	KTEST_EXPECT_EQ(t, b.fired_at[0], base + 3);
	KTEST_EXPECT_EQ(t, c.fired_at[0], base + 4);
}

static void past_expiry_fires_next_tick(struct ktest *t)
{
	struct timer_probe p;
	unsigned long armed;

	probe_init(&p, 0);
	armed = jiffies;
	mod_timer(&p.timer, armed - 10);
	ktest_wait_ticks(2);
	KTEST_EXPECT_EQ(t, p.count, 1);
	KTEST_EXPECT_LE(t, p.fired_at[0], armed + 1);
}

static void jiffies_comparisons(struct ktest *t)
{
	unsigned long near_wrap = (unsigned long)-2;

	KTEST_EXPECT_TRUE(t, time_after(near_wrap + 4, near_wrap));
	KTEST_EXPECT_TRUE(t, time_before(near_wrap, near_wrap + 4));
	KTEST_EXPECT_TRUE(t, time_after_eq(5UL, 5UL));
	KTEST_EXPECT_EQ(t, msecs_to_jiffies(1000), (unsigned long)HZ);
}

static const struct ktest_case timer_cases[] = {
	KTEST_CASE(jiffies_advance),
	KTEST_CASE(fires_at_expiry),
	KTEST_CASE(del_timer_cancels),
	KTEST_CASE(mod_timer_moves),
	KTEST_CASE(rearming_keeps_firing),
	KTEST_CASE(expiry_order),
	KTEST_CASE(past_expiry_fires_next_tick),
	KTEST_CASE(jiffies_comparisons),
	{}
};

static const struct ktest_suite timer_suite = { .name = "timer", .cases = timer_cases };
KTEST_SUITE(timer_suite);
