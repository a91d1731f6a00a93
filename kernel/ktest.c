/* ktest.c - the self-test runner: runs the registered suites, prints KTAP.
 *
 * Output, as Linux's KUnit prints it:
 *
 *     KTAP version 1
 *     1..2
 *         KTAP version 1
 *         # Subtest: timer
 *         1..3
 *         ok 1 fires_at_expiry
 *         ...
 *     ok 1 timer
 *     ...
 *     # Totals: pass:40 fail:0 skip:1 total:41
 *
 * A failed check prints "# file:line: ..." lines just before the case's
 * "not ok" line.  A case that provokes reports on purpose declares them
 * (ktest_expect_reports(), which prints "# CASE: expecting N report(s)");
 * the runner fails a case whose count of reports differs from its
 * declarations.  Platform independent: the host harness links it too.
 */
#include <tiny/kernel.h>
#include <tiny/console.h>
#include <tiny/irqflags.h>
#include <tiny/string.h>
#include <tiny/ktest.h>

extern const struct ktest_suite *const __start_ktest_suites[], *const __stop_ktest_suites[];

#define CASE_INDENT	"    "

struct ktest_totals {
	int pass, fail, skip;
};

/* Marks the case failed.  The smp suite's checks run on several CPUs at
 * once, so the status is stored atomically. */
static void set_status(struct ktest *t, enum ktest_status status)
{
	__atomic_store_n(&t->status, status, __ATOMIC_RELAXED);
}

static void case_failed(struct ktest *t, const char *file, int line)
{
	set_status(t, KTEST_FAIL);
	printk(CASE_INDENT "# %s: EXPECTATION FAILED at %s:%d\n", t->name, file, line);
}

void ktest_fail_cmp(struct ktest *t, const char *file, int line, const char *left,
		    const char *op, const char *right, long long lv, long long rv)
{
	case_failed(t, file, line);
	printk(CASE_INDENT "#     Expected %s %s %s, but\n", left, op, right);
	printk(CASE_INDENT "#         %s == %lld (%#llx)\n", left, lv, lv);
	printk(CASE_INDENT "#         %s == %lld (%#llx)\n", right, rv, rv);
}

void ktest_fail_ptr(struct ktest *t, const char *file, int line, const char *left,
		    const char *op, const char *right, const void *lv, const void *rv)
{
	case_failed(t, file, line);
	printk(CASE_INDENT "#     Expected %s %s %s, but\n", left, op, right);
	printk(CASE_INDENT "#         %s == %p\n", left, lv);
	printk(CASE_INDENT "#         %s == %p\n", right, rv);
}

void ktest_fail_str(struct ktest *t, const char *file, int line, const char *left,
		    const char *right, const char *lv, const char *rv)
{
	case_failed(t, file, line);
	printk(CASE_INDENT "#     Expected %s == %s, but\n", left, right);
	printk(CASE_INDENT "#         %s == \"%s\"\n", left, lv);
	printk(CASE_INDENT "#         %s == \"%s\"\n", right, rv);
}

void ktest_fail_msg(struct ktest *t, const char *file, int line, const char *cond)
{
	case_failed(t, file, line);
	printk(CASE_INDENT "#     Expected %s to be true\n", cond);
}

void ktest_info(struct ktest *t, const char *fmt, ...)
{
	char buf[160];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	printk(CASE_INDENT "# %s: %s\n", t->name, buf);
}

void ktest_skip(struct ktest *t, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(t->skip_reason, sizeof(t->skip_reason), fmt, args);
	va_end(args);
	set_status(t, KTEST_SKIP);
}

/* Reports printed since the case (its suite's init) began. */
static unsigned long case_reports(const struct ktest *t)
{
	return counter_read(&reports_printed) - t->reports_at_start;
}

static void reports_differ(struct ktest *t, unsigned long printed, const char *when)
{
	set_status(t, KTEST_FAIL);
	if (!t->expect_file) {
		printk(CASE_INDENT "# %s: UNEXPECTED REPORTS: %lu printed %s, none declared "
		       "with ktest_expect_reports()\n", t->name, printed, when);
		return;
	}
	case_failed(t, t->expect_file, t->expect_line);
	printk(CASE_INDENT "#     Expected %lu report(s) %s, but %lu printed\n",
	       t->reports_expected, when, printed);
}

void __ktest_expect_reports(struct ktest *t, unsigned int n, const char *file, int line)
{
	unsigned long printed = case_reports(t);

	t->expect_file = file;
	t->expect_line = line;
	if (printed > t->reports_expected) {
		reports_differ(t, printed, "before this declaration");
		t->reports_expected = printed;	/* failed for these; the end checks the rest */
	}
	t->reports_expected += n;
	__atomic_store_n(&reports_expected_until, t->reports_at_start + t->reports_expected,
			 __ATOMIC_RELAXED);
	printk(CASE_INDENT "# %s: expecting %u report(s)\n", t->name, n);
}

/* At the end of a case: were exactly the declared reports printed? */
static void check_reports(struct ktest *t)
{
	unsigned long printed = case_reports(t);

	if (printed != t->reports_expected)
		reports_differ(t, printed, "in the case");
	else if (printed)
		printk(CASE_INDENT "# %s: %lu report(s) printed, as declared\n", t->name, printed);
}

/*
 * The filter is a comma-separated list of "suite" or "suite.case" items.
 * next_item() takes the next item off *p, giving its suite part (*sl
 * characters at *item) and its case part (*case_name, *cl characters;
 * none if *cl is 0).  Returns 0 when the list is exhausted.
 */
static int next_item(const char **p, const char **item, size_t *sl,
		     const char **case_name, size_t *cl)
{
	size_t len = 0;

	if (!*p || !**p)
		return 0;
	*item = *p;
	while ((*p)[len] && (*p)[len] != ',')
		len++;
	for (*sl = 0; *sl < len && (*item)[*sl] != '.'; (*sl)++)
		;
	*case_name = *item + *sl + (*sl < len);
	*cl = len - *sl - (*sl < len);
	*p += len + ((*p)[len] == ',');
	return 1;
}

static int name_is(const char *name, const char *s, size_t len)
{
	return strlen(name) == len && !strncmp(name, s, len);
}

/* Does the filter select this suite (tcase NULL) or this case of it? */
static int selected(const char *filter, const char *suite, const char *tcase)
{
	const char *p = filter, *item, *cname;
	size_t sl, cl;

	if (!filter || !*filter)
		return 1;
	while (next_item(&p, &item, &sl, &cname, &cl))
		if (name_is(suite, item, sl) && (!cl || !tcase || name_is(tcase, cname, cl)))
			return 1;
	return 0;
}

static int count_cases(const struct ktest_suite *s, const char *filter)
{
	const struct ktest_case *c;
	int n = 0;

	for (c = s->cases; c->name; c++)
		n += selected(filter, s->name, c->name);
	return n;
}

/* Runs one case with the suite's init and exit around it, then checks
 * the reports it printed; fills t. */
int ktest_defer(struct ktest *t, void (*fn)(void *arg), void *arg)
{
	if (t->nr_deferred == KTEST_MAX_DEFERRED) {
		ktest_fail_msg(t, __FILE__, __LINE__, "room for another deferred clean-up");
		return -1;
	}
	t->deferred[t->nr_deferred].fn = fn;
	t->deferred[t->nr_deferred++].arg = arg;
	return 0;
}

void ktest_cancel(struct ktest *t, void (*fn)(void *arg), void *arg)
{
	unsigned int i;

	for (i = t->nr_deferred; i-- > 0;) {
		if (t->deferred[i].fn != fn || t->deferred[i].arg != arg)
			continue;
		memmove(&t->deferred[i], &t->deferred[i + 1],
			(t->nr_deferred - i - 1) * sizeof(t->deferred[0]));
		t->nr_deferred--;
		return;
	}
}

/* Runs the case's deferred clean-ups, last first, and restores the
 * interrupt state it found (a case may have returned with them off). */
static void clean_up_case(struct ktest *t, unsigned long irq_flags)
{
	while (t->nr_deferred) {
		t->nr_deferred--;
		t->deferred[t->nr_deferred].fn(t->deferred[t->nr_deferred].arg);
	}
	if (irqs_disabled() && !irqs_disabled_flags(irq_flags))
		printk(CASE_INDENT "# %s: returned with interrupts off; turned back on\n", t->name);
	local_irq_restore(irq_flags);
}

static void run_case(const struct ktest_suite *s, const struct ktest_case *c, struct ktest *t)
{
	unsigned long irq_flags;

	memset(t, 0, sizeof(*t));
	t->name = c->name;
	t->status = KTEST_PASS;
	t->reports_at_start = counter_read(&reports_printed);
	local_irq_save(irq_flags);
	local_irq_restore(irq_flags);
	if (console_interrupted()) {	/* Ctrl-C: the rest of the suite is skipped */
		ktest_skip(t, "interrupted (Ctrl-C)");
	} else if (s->init && s->init(t)) {
		if (t->status != KTEST_SKIP)
			ktest_skip(t, "suite init failed");
	} else {
		c->run(t);
		clean_up_case(t, irq_flags);
		if (s->exit)
			s->exit(t);
	}
	__atomic_store_n(&reports_expected_until, 0UL, __ATOMIC_RELAXED);
	check_reports(t);
}

static void report_case(int n, const struct ktest *t)
{
	if (t->status == KTEST_SKIP)
		printk(CASE_INDENT "ok %d %s # SKIP %s\n", n, t->name, t->skip_reason);
	else
		printk(CASE_INDENT "%s %d %s\n", t->status == KTEST_PASS ? "ok" : "not ok", n, t->name);
}

/* Runs one suite's selected cases; returns the suite's status. */
static enum ktest_status run_suite(const struct ktest_suite *s, const char *filter,
				   struct ktest_totals *tot)
{
	const struct ktest_case *c;
	int n = 0, fails = 0, passes = 0;
	struct ktest t;

	printk(CASE_INDENT "KTAP version 1\n");
	printk(CASE_INDENT "# Subtest: %s\n", s->name);
	printk(CASE_INDENT "1..%d\n", count_cases(s, filter));
	for (c = s->cases; c->name; c++) {
		if (!selected(filter, s->name, c->name))
			continue;
		run_case(s, c, &t);
		report_case(++n, &t);
		if (t.status == KTEST_PASS) {
			tot->pass++;
			passes++;
		} else if (t.status == KTEST_FAIL) {
			tot->fail++;
			fails++;
		} else {
			tot->skip++;
		}
	}
	if (fails)
		return KTEST_FAIL;
	return passes ? KTEST_PASS : KTEST_SKIP;
}

/* The suite named by the first sl characters of name, or NULL. */
static const struct ktest_suite *find_suite(const char *name, size_t sl)
{
	const struct ktest_suite *const *sp;

	for (sp = __start_ktest_suites; sp < __stop_ktest_suites; sp++)
		if (name_is((*sp)->name, name, sl))
			return *sp;
	return NULL;
}

static int has_case(const struct ktest_suite *s, const char *name, size_t cl)
{
	const struct ktest_case *c;

	for (c = s->cases; c->name; c++)
		if (name_is(c->name, name, cl))
			return 1;
	return 0;
}

/* Checks that every suite and case named in the filter exists. */
static int filter_valid(const char *filter)
{
	const char *p = filter, *item, *cname;
	const struct ktest_suite *s;
	size_t sl, cl;

	while (next_item(&p, &item, &sl, &cname, &cl)) {
		s = find_suite(item, sl);
		if (s && (!cl || has_case(s, cname, cl)))
			continue;
		printk(KERN_ERR "selftest: no %s named \"%.*s\" (see the list below)\n",
		       s ? "case" : "suite", (int)(sl + (cl ? cl + 1 : 0)), item);
		ktest_list();
		return 0;
	}
	return 1;
}

int ktest_run(const char *filter)
{
	const struct ktest_suite *const *sp;
	struct ktest_totals tot = { 0, 0, 0 };
	int nsuites = 0, n = 0;

	if (!filter_valid(filter))
		return -1;
	for (sp = __start_ktest_suites; sp < __stop_ktest_suites; sp++)
		nsuites += count_cases(*sp, filter) > 0;
	printk("KTAP version 1\n");
	printk("1..%d\n", nsuites);
	for (sp = __start_ktest_suites; sp < __stop_ktest_suites; sp++) {
		enum ktest_status st;

		if (!count_cases(*sp, filter))
			continue;
		st = run_suite(*sp, filter, &tot);
		if (st == KTEST_SKIP)
			printk("ok %d %s # SKIP\n", ++n, (*sp)->name);
		else
			printk("%s %d %s\n", st == KTEST_PASS ? "ok" : "not ok", ++n, (*sp)->name);
	}
	printk("# Totals: pass:%d fail:%d skip:%d total:%d\n", tot.pass, tot.fail, tot.skip,
	       tot.pass + tot.fail + tot.skip);
	return tot.fail;
}

void ktest_list(void)
{
	const struct ktest_suite *const *sp;
	const struct ktest_case *c;

	for (sp = __start_ktest_suites; sp < __stop_ktest_suites; sp++) {
		printk("  %s:", (*sp)->name);
		for (c = (*sp)->cases; c->name; c++)
			printk(KERN_CONT " %s", c->name);
		printk(KERN_CONT "\n");
	}
}
