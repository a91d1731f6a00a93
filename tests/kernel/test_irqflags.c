/* test_irqflags.c - self-tests of interrupt-state nesting and spinlock debugging. */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>

static void save_restore_nests(struct ktest *t)
{
	unsigned long outer, inner;

	KTEST_ASSERT_FALSE(t, irqs_disabled());
	local_irq_save(outer);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	KTEST_EXPECT_FALSE(t, irqs_disabled_flags(outer));
	local_irq_save(inner);
	KTEST_EXPECT_TRUE(t, irqs_disabled_flags(inner));
	local_irq_restore(inner);
	KTEST_EXPECT_TRUE(t, irqs_disabled());		/* still inside outer */
	local_irq_restore(outer);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

static void disabled_irqs_hold_off_ticks(struct ktest *t)
{
	unsigned long flags, start;
	volatile unsigned long spin;

	local_irq_save(flags);
	start = jiffies;
	for (spin = 0; spin < 3000000; spin++)
		;
	KTEST_EXPECT_EQ(t, jiffies, start);	/* no tick while disabled */
	local_irq_restore(flags);
	ktest_wait_ticks(1);
	KTEST_EXPECT_GT(t, jiffies, start);
}

static void spin_lock_irqsave_nests(struct ktest *t)
{
	DEFINE_SPINLOCK(a);
	DEFINE_SPINLOCK(b);
	unsigned long fa, fb;

	spin_lock_irqsave(&a, fa);
	spin_lock_irqsave(&b, fb);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	spin_unlock_irqrestore(&b, fb);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	spin_unlock_irqrestore(&a, fa);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

static void lock_misuse_detected(struct ktest *t)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	DEFINE_SPINLOCK(l);
	unsigned long before = spin_bug_count;

	ktest_expect_reports(t, 2);
	spin_lock(&l);
	spin_lock(&l);			/* recursion */
	KTEST_EXPECT_EQ(t, spin_bug_count, before + 1);
	spin_unlock(&l);
	spin_unlock(&l);		/* not held any more */
	KTEST_EXPECT_EQ(t, spin_bug_count, before + 2);
#else
	ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
#endif
}

static const struct ktest_case irqflags_cases[] = {
	KTEST_CASE(save_restore_nests),
	KTEST_CASE(disabled_irqs_hold_off_ticks),
	KTEST_CASE(spin_lock_irqsave_nests),
	KTEST_CASE(lock_misuse_detected),
	{}
};

static const struct ktest_suite irqflags_suite = { .name = "irqflags", .cases = irqflags_cases };
KTEST_SUITE(irqflags_suite);
