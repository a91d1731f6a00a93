/* bug.h - WARN_ON and BUG_ON: loud reports of impossible states. */
#ifndef TINY_BUG_H
#define TINY_BUG_H

#include <tiny/compiler.h>
#include <tiny/atomic.h>
#include <tiny/kconfig.h>

/* Report lines printed so far: a bad free, a spinlock misuse, a WARN, a
 * BUG.  Every reporter calls count_report() as it prints its line, from
 * any CPU and any context (an atomic increment); the self-test runner
 * compares the count with what each case declared (<tiny/ktest.h>).
 * Defined by kernel/panic.c (tests/host/host.c on the host). */
extern unsigned long reports_printed;
/* The count reports_printed may reach with every report expected: a
 * self-test case that provokes reports on purpose declares them
 * (ktest_expect_reports()), which raises this mark for the case's run; 0
 * otherwise.  Defined beside reports_printed. */
extern unsigned long reports_expected_until;

#define REPORT_EXPECTED	" (expected: a self-test provokes it)"

/* What report number n (reports_printed counting it) ends its line with:
 * REPORT_EXPECTED if the running self-test declared it, else "". */
static inline const char *report_mark(unsigned long n)
{
	return n <= __atomic_load_n(&reports_expected_until, __ATOMIC_RELAXED) ?
	       REPORT_EXPECTED : "";
}

/* Counts a report line; returns what the line ends with (report_mark()),
 * so that a person reading the log tells a provoked report from a real
 * one. */
static inline const char *count_report(void)
{
	return report_mark(__atomic_add_fetch(&reports_printed, 1UL, __ATOMIC_RELAXED));
}

void __warn(const char *file, int line, const char *cond);
__noreturn void __bug(const char *file, int line, const char *cond);

/* Prints file, line and condition when cond holds; returns cond. */
#define WARN_ON(cond) ({					\
	int __ret_warn = !!(cond);				\
	if (unlikely(__ret_warn))				\
		__warn(__FILE__, __LINE__, #cond);		\
	__ret_warn;						\
})

/* Panics with file and line when cond holds: for states that cannot be survived. */
#define BUG_ON(cond) do {					\
	if (unlikely(cond))					\
		__bug(__FILE__, __LINE__, #cond);		\
} while (0)


/* States what the code relies on (a function's domain, a rule of its
 * comment): with CONFIG_DEBUG_ASSERT (the debug configurations, and every
 * host test build) a WARN_ON() of it; otherwise cond is not evaluated and
 * costs nothing.  assert_spin_held() and assert_irqs_disabled() state the
 * rules of locks and interrupts. */
#define DEBUG_ASSERT(cond) do {						\
	if (IS_ENABLED(CONFIG_DEBUG_ASSERT))				\
		WARN_ON(!(cond));					\
} while (0)

#endif /* TINY_BUG_H */
