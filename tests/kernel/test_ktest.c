/* test_ktest.c - self-tests of the runner itself: deferred clean-ups run
 * after a case however it ends, last deferred first, and the interrupt
 * state comes back as it was; a declared report is marked expected on its
 * line, and only while its case runs.  The cases run in order; the later ones
 * check what the runner did after the earlier ones. */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/slab.h>
#include <tiny/string.h>

static int cleanup_log[4];	/* which clean-up ran, in order */
static int cleanups_run;

static void note_cleanup(void *arg)
{
	if (cleanups_run < (int)ARRAY_SIZE(cleanup_log))
		cleanup_log[cleanups_run] = (int)(uintptr_t)arg;
	cleanups_run++;
}

/* Queues three clean-ups, cancels one, and returns early with interrupts
 * off, as a failed KTEST_ASSERT inside a critical section would. */
static void defer_then_return_early(struct ktest *t)
{
	unsigned long flags;

	cleanups_run = 0;
	KTEST_ASSERT_EQ(t, ktest_defer(t, note_cleanup, (void *)1), 0);
	KTEST_ASSERT_EQ(t, ktest_defer(t, note_cleanup, (void *)2), 0);
	KTEST_ASSERT_EQ(t, ktest_defer(t, note_cleanup, (void *)3), 0);
	ktest_cancel(t, note_cleanup, (void *)2);
	local_irq_save(flags);
	if (cleanups_run == 0)
		return;		/* the early return: nothing has run yet */
	local_irq_restore(flags);
}

static void deferred_cleanups_ran_in_reverse(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, cleanups_run, 2);
	KTEST_EXPECT_EQ(t, cleanup_log[0], 3);
	KTEST_EXPECT_EQ(t, cleanup_log[1], 1);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

/* A report the case declared says so on its line (report_mark()); the
 * mark reaches exactly as far as the declarations.  Two real reports (a
 * stack address freed) show it in the log. */
static void declared_reports_are_marked_expected(struct ktest *t)
{
	unsigned long printed;
	int on_stack;

	KTEST_EXPECT_EQ(t, reports_expected_until, 0UL);	/* nothing declared yet */
	ktest_expect_reports(t, 2);
	printed = counter_read(&reports_printed);
	KTEST_EXPECT_EQ(t, reports_expected_until, printed + 2);
	KTEST_EXPECT_STREQ(t, report_mark(printed + 1), REPORT_EXPECTED);
	KTEST_EXPECT_STREQ(t, report_mark(printed + 2), REPORT_EXPECTED);
	KTEST_EXPECT_STREQ(t, report_mark(printed + 3), "");
	kfree(&on_stack);
	kfree(&on_stack);
	KTEST_EXPECT_EQ(t, reports_expected_until, counter_read(&reports_printed));
}

/* The mark ends with the case that raised it. */
static void the_mark_ends_with_its_case(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, reports_expected_until, 0UL);
}

static const struct ktest_case ktest_cases[] = {
	KTEST_CASE(defer_then_return_early),
	KTEST_CASE(deferred_cleanups_ran_in_reverse),
	KTEST_CASE(declared_reports_are_marked_expected),
	KTEST_CASE(the_mark_ends_with_its_case),
	{}
};

static const struct ktest_suite ktest_suite = {
	.name = "ktest",
	.cases = ktest_cases,
};
KTEST_SUITE(ktest_suite);
