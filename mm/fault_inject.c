/* fault_inject.c - failslab and fail_page_alloc: allocations made to fail
 * on purpose, so that error paths run (<tiny/fault_inject.h> has the
 * syntax).  The object allocators call should_failslab() at their entries,
 * the buddy allocator should_fail_alloc_page() in alloc_pages(); each asks
 * its attribute, which says yes according to the filter, the interval, the
 * probability (a seeded xorshift) and the failures left.  fault_lock (taken
 * with interrupts saved) protects both attributes and the rate limit.
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/fault_inject.h>
#include <tiny/gfp.h>
#include <tiny/mm.h>
#include <tiny/random.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <tiny/timer.h>

#define FAULT_SEED		0x2545f491u
#define LONG_MAX_VALUE		((unsigned long)-1 >> 1)
#define REPORTS_PER_WINDOW	10		/* reports printed per window... */
#define REPORT_WINDOW		(5 * HZ)	/* ...of this many jiffies */

#define FAULT_ATTR_INIT(_name) { .name = _name, .interval = 1, .times = -1, \
				 .max_size = (size_t)-1, .rnd = FAULT_SEED }

struct fault_attr failslab = FAULT_ATTR_INIT("failslab");
struct fault_attr fail_page_alloc = FAULT_ATTR_INIT("fail_page_alloc");
static DEFINE_SPINLOCK(fault_lock);	/* both attributes, and the rate limit */

static unsigned long window_start, window_reports, suppressed;

/* May an injected failure be reported now?  fault_lock held. */
static int report_allowed(void)
{
	assert_spin_held(&fault_lock);
	if (jiffies - window_start >= REPORT_WINDOW || !window_start) {
		if (suppressed)
			pr_warn("fault_inject: %lu reports of injected failures suppressed\n",
				suppressed);
		window_start = jiffies ? jiffies : 1;
		window_reports = suppressed = 0;
	}
	if (window_reports < REPORTS_PER_WINDOW) {
		window_reports++;
		return 1;
	}
	suppressed++;
	return 0;
}

/* Is this call eligible under attr's filter?  fault_lock held. */
static int fault_filter_matches(const struct fault_attr *attr, const char *cache, size_t size)
{
	assert_spin_held(&fault_lock);
	if (size < attr->min_size || size > attr->max_size)
		return 0;
	return !attr->cache[0] || (cache && !strcmp(cache, attr->cache));
}

/* The decision: 1 (counted in attr->injected) or 0.  fault_lock held. */
static int should_fail(struct fault_attr *attr, const char *cache, size_t size)
{
	struct rnd_state r = { attr->rnd };
	int fail;

	assert_spin_held(&fault_lock);
	if (!attr->probability || !fault_filter_matches(attr, cache, size))
		return 0;
	attr->calls++;
	if (!attr->times || attr->calls % attr->interval)
		return 0;
	fail = attr->probability >= 100 || prandom_below(&r, 100) < attr->probability;
	attr->rnd = r.s;
	if (!fail)
		return 0;
	if (attr->times > 0)
		attr->times--;
	attr->injected++;
	return 1;
}

int should_failslab(const char *cache, size_t size, gfp_t gfp)
{
	unsigned long flags, n;
	int fail, report;

	if (likely(!failslab.probability))
		return 0;
	spin_lock_irqsave(&fault_lock, flags);
	fail = should_fail(&failslab, cache, size);
	report = fail && !(gfp & __GFP_NOWARN) && report_allowed();
	n = failslab.injected;
	spin_unlock_irqrestore(&fault_lock, flags);
	if (report)
		pr_warn("fault_inject: failslab: failure %lu injected: %s, %zu bytes, gfp %#x\n",
			n, cache ? cache : "(no cache)", size, gfp);
	return fail;
}

int should_fail_alloc_page(unsigned int order, gfp_t gfp)
{
	unsigned long flags, n;
	int fail, report;

	if (page_alloc_nth_fails())
		return 1;
	if (likely(!fail_page_alloc.probability))
		return 0;
	spin_lock_irqsave(&fault_lock, flags);
	fail = should_fail(&fail_page_alloc, NULL, (size_t)PAGE_SIZE << order);
	report = fail && !(gfp & __GFP_NOWARN) && report_allowed();
	n = fail_page_alloc.injected;
	spin_unlock_irqrestore(&fault_lock, flags);
	if (report)
		pr_warn("fault_inject: fail_page_alloc: failure %lu injected: order %u, gfp %#x\n",
			n, order, gfp);
	return fail;
}

/* ---- settings ---------------------------------------------------------------- */

/* Reads a decimal number at *s (up to a stop character) into *v and moves
 * *s past it; 0, -1 (no digits) or -2 (does not fit). */
static int take_number(const char **s, unsigned long *v)
{
	const char *p = *s;
	unsigned long n = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > ((unsigned long)-1 - (unsigned long)(*p - '0')) / 10)
			return -2;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	*s = p;
	*v = n;
	return 0;
}

/* Reads the next comma-separated number at *s; the same returns, and -1
 * when it is not followed by a comma or the end. */
static int take_field(const char **s, unsigned long *v)
{
	int r = take_number(s, v);

	if (r)
		return r;
	if (**s == ',')
		(*s)++;
	else if (**s)
		return -1;
	return 0;
}

/* Is s made of digits and dashes only?  Then it can only be meant as a size
 * range, and must be exactly one ("--", "-5-" or "64" are refused, not
 * taken as the name of a cache that never matches). */
static int is_size_range(const char *s)
{
	for (; *s; s++)
		if (*s != '-' && (*s < '0' || *s > '9'))
			return 0;
	return 1;
}

/* The filter: "MIN-MAX" (either may be empty) or a cache name. */
static int parse_filter(struct fault_attr *a, const char *s, int names_allowed)
{
	unsigned long lo = 0, hi = (unsigned long)-1;
	int r;

	if (!*s || !is_size_range(s)) {
		if (!names_allowed || !*s || strlen(s) >= sizeof(a->cache))
			return !*s || !names_allowed ? -1 : -2;
		memcpy(a->cache, s, strlen(s) + 1);	/* fits: checked above */
		return 0;
	}
	if (*s != '-' && (r = take_number(&s, &lo)))
		return r;
	if (*s++ != '-')
		return -1;
	if (*s && (r = take_number(&s, &hi)))
		return r;
	if (*s)
		return -1;
	if (lo > hi)
		return -2;
	a->min_size = lo;
	a->max_size = hi;
	return 0;
}

/* Parses spec into *a's settings; names_allowed for failslab's filter. */
static int parse_spec(struct fault_attr *a, const char *spec, int names_allowed)
{
	unsigned long times;
	int r, unlimited = 0;

	a->cache[0] = '\0';
	a->min_size = 0;
	a->max_size = (size_t)-1;
	a->times = -1;
	if (!strcmp(spec, "off")) {
		a->probability = 0;
		return 0;
	}
	if ((r = take_field(&spec, &a->probability)) || (r = take_field(&spec, &a->interval)))
		return r;
	if (spec[0] == '-' && spec[1] == '1' && (spec[2] == ',' || !spec[2])) {
		unlimited = 1;
		spec += spec[2] ? 3 : 2;
	} else if ((r = take_field(&spec, &times))) {
		return r;
	}
	if (a->probability > 100 || !a->interval || (!unlimited && times > LONG_MAX_VALUE))
		return -2;
	a->times = unlimited ? -1 : (long)times;
	if (spec[-1] == ',' && (r = parse_filter(a, spec, names_allowed)))
		return r;
	return 0;
}

/* Copies the settings of src (not its counters) to attr.  fault_lock held. */
static void copy_settings(struct fault_attr *attr, const struct fault_attr *src)
{
	assert_spin_held(&fault_lock);
	attr->probability = src->probability;
	attr->interval = src->interval;
	attr->times = src->times;
	memcpy(attr->cache, src->cache, sizeof(attr->cache));
	attr->min_size = src->min_size;
	attr->max_size = src->max_size;
}

int fault_attr_set(struct fault_attr *attr, const char *spec)
{
	struct fault_attr new = *attr;
	unsigned long flags;
	int r = spec ? parse_spec(&new, spec, attr != &fail_page_alloc) : -1;

	if (r)
		return r;
	spin_lock_irqsave(&fault_lock, flags);
	copy_settings(attr, &new);
	attr->calls = 0;
	attr->rnd = FAULT_SEED;
	spin_unlock_irqrestore(&fault_lock, flags);
	return 0;
}

void fault_attr_restore(struct fault_attr *attr, const struct fault_attr *saved)
{
	unsigned long flags;

	spin_lock_irqsave(&fault_lock, flags);
	copy_settings(attr, saved);
	spin_unlock_irqrestore(&fault_lock, flags);
}

unsigned long fault_injected_total(void)
{
	return READ_ONCE(failslab.injected) + READ_ONCE(fail_page_alloc.injected);
}

int fault_inject_active(void)
{
	return READ_ONCE(failslab.probability) || READ_ONCE(fail_page_alloc.probability);
}

void fault_attr_show(const struct fault_attr *a)
{
	printk(KERN_CONT "%s: ", a->name);	/* continues a caller's prefix, if any */
	if (!a->probability)
		pr_cont("off");
	else
		pr_cont("probability %lu%%, interval %lu, times %ld", a->probability,
			a->interval, a->times);
	if (a->probability && a->cache[0])
		pr_cont(", cache %s", a->cache);
	if (a->probability && (a->min_size || a->max_size != (size_t)-1))
		pr_cont(", size %zu-%zu", a->min_size, a->max_size);
	pr_cont("; calls %lu, injected %lu\n", a->calls, a->injected);
}

static struct fault_attr *attr_named(const char *name)
{
	if (!strcmp(name, failslab.name))
		return &failslab;
	if (!strcmp(name, fail_page_alloc.name))
		return &fail_page_alloc;
	return NULL;
}

int fault_inject_command(int argc, char **argv)
{
	struct fault_attr *a = argc > 1 ? attr_named(argv[1]) : NULL;
	int all_off = argc == 2 && !strcmp(argv[1], "off");
	int r;

	if (all_off) {
		fault_attr_set(&failslab, "off");
		fault_attr_set(&fail_page_alloc, "off");
	}
	if (argc == 1 || all_off) {
		fault_attr_show(&failslab);
		fault_attr_show(&fail_page_alloc);
		return 0;
	}
	if (!a || argc != 3) {
		printk("usage: fault [off | NAME SPEC | NAME off], NAME failslab or fail_page_alloc, "
		       "SPEC PROBABILITY,INTERVAL,TIMES[,FILTER]\n");
		return -1;
	}
	r = fault_attr_set(a, argv[2]);
	if (r) {
		printk("fault: bad setting \"%pE\"%s; unchanged\n", argv[2],
		       r == -2 ? " (out of range)" : "");
		return -1;
	}
	fault_attr_show(a);
	return 0;
}

/*
 * The boot parameters are checked when parsed but take effect only after
 * the allocators are set up (fault_inject_boot_done()): failing the
 * allocator's own initialisation would only panic the boot.
 */
static const char *boot_spec[2];	/* failslab, fail_page_alloc */

static int boot_param(int which, struct fault_attr *attr, const char *val)
{
	struct fault_attr check = *attr;
	int r = val ? parse_spec(&check, val, attr != &fail_page_alloc) : -1;

	if (!r)
		boot_spec[which] = val;
	return r;
}

static int failslab_setup(const char *val)
{
	return boot_param(0, &failslab, val);
}
kernel_param("failslab", failslab_setup,
	     "=P,I,T[,CACHE|MIN-MAX]: fail P% of every I-th object allocation, T times (-1: always)");

static int fail_page_alloc_setup(const char *val)
{
	return boot_param(1, &fail_page_alloc, val);
}
kernel_param("fail_page_alloc", fail_page_alloc_setup,
	     "=P,I,T[,MIN-MAX]: the same for alloc_pages (size in bytes)");

void fault_inject_boot_done(void)
{
	struct fault_attr *attrs[2] = { &failslab, &fail_page_alloc };
	int i;

	for (i = 0; i < 2; i++) {
		if (!boot_spec[i] || fault_attr_set(attrs[i], boot_spec[i]))
			continue;
		printk(KERN_INFO "fault_inject: from the command line: ");
		fault_attr_show(attrs[i]);
	}
}
