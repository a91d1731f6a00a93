/* ktest.h - in-kernel self-tests reported in KTAP version 1.
 *
 * A suite is a named, NULL-terminated array of cases, registered at build
 * time with KTEST_SUITE() (a pointer in the ktest_suites section).  A case
 * is a function taking a struct ktest; it checks with the KTEST_EXPECT_*
 * macros (record a failure and go on) or KTEST_ASSERT_* (record it and
 * return from the case).  Failures print the file, line, both expressions
 * and their values.  The same suites run in the kernel (selftest) and, for
 * mm/, in the host harness.
 *
 * Reports.  A bug the kernel survives is reported in one line: a bad free
 * ("kfree: bad pointer ...", "kmem_cache_free: bad pointer ...",
 * "page_alloc: bad free of ..."), a spinlock misuse ("BUG: spinlock ..."),
 * a WARN ("WARNING: at ...").  Every such reporter calls
 * count_report(), and the runner counts the reports each case prints
 * (from its suite's init to its exit).  A case that provokes reports on
 * purpose declares them first, as many as it is about to provoke:
 *
 *	ktest_expect_reports(t, 2);
 *	kfree(p);
 *	kfree(p);			(double free: one report)
 *	kfree(stack_buf);		(not heap memory: another)
 *
 * Declarations add up; one before each provoking call is fine too.  The
 * case fails, printing both numbers, if a report comes before its
 * declaration or if the total printed differs from the total declared (too
 * many or too few).  An undeclared report fails any case.  Each declaration
 * prints "# CASE: expecting N report(s)": scripts/ktap.py takes the report
 * lines between it and the case's result line as expected (see its
 * docstring) and fails the run on every other report line.
 */
#ifndef TINY_KTEST_H
#define TINY_KTEST_H

#include <tiny/types.h>
#include <tiny/compiler.h>
#include <tiny/printk.h>
#include <tiny/atomic.h>

enum ktest_status { KTEST_PASS, KTEST_FAIL, KTEST_SKIP };

#define KTEST_MAX_DEFERRED	8

/* A clean-up action: fn(arg) when the case ends. */
struct ktest_deferred {
	void (*fn)(void *arg);
	void *arg;
};

struct ktest {
	const char *name;		/* of the running case */
	enum ktest_status status;
	char skip_reason[80];
	void *priv;			/* for the suite's init/exit */
	unsigned long reports_at_start;	/* reports_printed then */
	unsigned long reports_expected;	/* declared so far */
	const char *expect_file;	/* the last declaration */
	int expect_line;
	struct ktest_deferred deferred[KTEST_MAX_DEFERRED];
	unsigned int nr_deferred;
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

#define KTEST_CASE(fn)	{ .name = #fn, .run = fn }

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;	/* ends with an empty entry */
	int (*init)(struct ktest *t);	/* before each case; nonzero skips it */
	void (*exit)(struct ktest *t);	/* after each case */
};

#define KTEST_SUITE(suite)						\
	static const struct ktest_suite *const __ktest_ptr_##suite	\
		__used __section("ktest_suites") __aligned(sizeof(void *)) = &(suite)

void ktest_fail_cmp(struct ktest *t, const char *file, int line, const char *left,
		    const char *op, const char *right, long long lv, long long rv);
void ktest_fail_ptr(struct ktest *t, const char *file, int line, const char *left,
		    const char *op, const char *right, const void *lv, const void *rv);
void ktest_fail_str(struct ktest *t, const char *file, int line, const char *left,
		    const char *right, const char *lv, const char *rv);
void ktest_fail_msg(struct ktest *t, const char *file, int line, const char *cond);
/*
 * Clean-up that runs however the case ends, a KTEST_ASSERT_* that returned
 * early included (KUnit's deferred actions): the runner calls the deferred
 * fn(arg)s after the case, the last deferred first, then puts the
 * interrupt state back as it was before the case.  Returns 0, or -1 (and
 * fails the case) when KTEST_MAX_DEFERRED actions are queued already.
 * ktest_cancel() drops a queued action (the case cleaned up itself).
 */
int ktest_defer(struct ktest *t, void (*fn)(void *arg), void *arg);
void ktest_cancel(struct ktest *t, void (*fn)(void *arg), void *arg);
/* Prints a diagnostic line ("# ...") belonging to the running case. */
__printf(2, 3) void ktest_info(struct ktest *t, const char *fmt, ...);
/* Marks the case skipped with a reason (the caller should then return). */
__printf(2, 3) void ktest_skip(struct ktest *t, const char *fmt, ...);

#define __KTEST_CMP(t, a, op, b) ({						\
	__typeof__(a) __ka = (a);						\
	__typeof__(b) __kb = (b);						\
	int __kok = (__ka op __kb);						\
	if (!__kok)								\
		ktest_fail_cmp(t, __FILE__, __LINE__, #a, #op, #b,		\
			       (long long)__ka, (long long)__kb);		\
	__kok;									\
})

#define __KTEST_PTR_CMP(t, a, op, b) ({					\
	const void *__ka = (a), *__kb = (b);					\
	int __kok = (__ka op __kb);						\
	if (!__kok)								\
		ktest_fail_ptr(t, __FILE__, __LINE__, #a, #op, #b, __ka, __kb);	\
	__kok;									\
})

#define __KTEST_TRUE(t, cond) ({						\
	int __kok = !!(cond);							\
	if (!__kok)								\
		ktest_fail_msg(t, __FILE__, __LINE__, #cond);			\
	__kok;									\
})

#define __KTEST_STREQ(t, a, b) ({						\
	const char *__ka = (a), *__kb = (b);					\
	int __kok = __ka && __kb && !strcmp(__ka, __kb);			\
	if (!__kok)								\
		ktest_fail_str(t, __FILE__, __LINE__, #a, #b, __ka, __kb);	\
	__kok;									\
})

#define KTEST_EXPECT_EQ(t, a, b)	((void)__KTEST_CMP(t, a, ==, b))
#define KTEST_EXPECT_NE(t, a, b)	((void)__KTEST_CMP(t, a, !=, b))
#define KTEST_EXPECT_LT(t, a, b)	((void)__KTEST_CMP(t, a, <, b))
#define KTEST_EXPECT_LE(t, a, b)	((void)__KTEST_CMP(t, a, <=, b))
#define KTEST_EXPECT_GT(t, a, b)	((void)__KTEST_CMP(t, a, >, b))
#define KTEST_EXPECT_GE(t, a, b)	((void)__KTEST_CMP(t, a, >=, b))
#define KTEST_EXPECT_TRUE(t, c)		((void)__KTEST_TRUE(t, c))
#define KTEST_EXPECT_FALSE(t, c)	((void)__KTEST_TRUE(t, !(c)))
#define KTEST_EXPECT_PTR_EQ(t, a, b)	((void)__KTEST_PTR_CMP(t, a, ==, b))
#define KTEST_EXPECT_PTR_NE(t, a, b)	((void)__KTEST_PTR_CMP(t, a, !=, b))
#define KTEST_EXPECT_NULL(t, p)		((void)__KTEST_PTR_CMP(t, p, ==, NULL))
#define KTEST_EXPECT_NOT_NULL(t, p)	((void)__KTEST_PTR_CMP(t, p, !=, NULL))
#define KTEST_EXPECT_STREQ(t, a, b)	((void)__KTEST_STREQ(t, a, b))

#define KTEST_ASSERT_EQ(t, a, b)	do { if (!__KTEST_CMP(t, a, ==, b)) return; } while (0)
#define KTEST_ASSERT_NE(t, a, b)	do { if (!__KTEST_CMP(t, a, !=, b)) return; } while (0)
#define KTEST_ASSERT_LE(t, a, b)	do { if (!__KTEST_CMP(t, a, <=, b)) return; } while (0)
#define KTEST_ASSERT_GE(t, a, b)	do { if (!__KTEST_CMP(t, a, >=, b)) return; } while (0)
#define KTEST_ASSERT_TRUE(t, c)		do { if (!__KTEST_TRUE(t, c)) return; } while (0)
#define KTEST_ASSERT_FALSE(t, c)	do { if (!__KTEST_TRUE(t, !(c))) return; } while (0)
#define KTEST_ASSERT_NOT_NULL(t, p)	do { if (!__KTEST_PTR_CMP(t, p, !=, NULL)) return; } while (0)

/* Declares that the running case is about to provoke n more reports on
 * purpose (see "Reports" above).  Process context. */
#define ktest_expect_reports(t, n) __ktest_expect_reports(t, n, __FILE__, __LINE__)
void __ktest_expect_reports(struct ktest *t, unsigned int n, const char *file, int line);

/* Lets ticks timer interrupts happen (the kernel waits for them with
 * interrupts on; the host harness delivers them).  Process context. */
void ktest_wait_ticks(unsigned long ticks);
/* About a second of real time in ticks where the tests run: HZ in the
 * kernel; on the host, whose harness ticks every 200 us, many more.  For
 * how long a case waits for another CPU before it gives up (a busy host
 * may leave a CPU thread unscheduled for far longer than HZ host ticks),
 * never for what a timer means. */
unsigned long ktest_ticks_per_second(void);
#define KTEST_SECONDS(s)	((unsigned long)(s) * ktest_ticks_per_second())

#ifdef CONFIG_SELFTEST
/*
 * Runs the registered suites whose names appear in the comma-separated
 * filter (every suite if filter is NULL or empty; "suite.case" selects one
 * case), printing KTAP.  Returns the number of failed cases, or -1 if the
 * filter named a suite that does not exist.
 */
int ktest_run(const char *filter);
/* Lists the registered suites and their cases. */
void ktest_list(void);
#else
static inline int ktest_run(const char *filter)
{
	(void)filter;
	printk(KERN_ERR "selftest: not built in (CONFIG_SELFTEST is off)\n");
	return -1;
}
static inline void ktest_list(void) { }
#endif

#endif /* TINY_KTEST_H */
