/* fault_inject.h - making allocations fail on purpose, to exercise error
 * paths (Linux's failslab and fail_page_alloc).  CONFIG_FAULT_INJECTION.
 *
 * Two attributes, "failslab" (the object allocator's entries) and
 * "fail_page_alloc" (the buddy allocator's alloc_pages), are set with the
 * boot parameters of those names or the console command "fault":
 *
 *	PROBABILITY,INTERVAL,TIMES[,FILTER]	or	off
 *
 * PROBABILITY is the percentage (0..100) of eligible calls that fail;
 * INTERVAL (>= 1) makes only every INTERVAL-th eligible call a candidate;
 * TIMES is how many failures to inject at most (-1: no limit); FILTER makes
 * only some calls eligible: MIN-MAX (bytes, either end may be left out:
 * "4097-", "-64") or, for failslab, a cache name (SLAB's kmalloc classes
 * are "size-N"; SLOB's kmalloc is "kmalloc"; a cache's descriptor,
 * allocated by kmem_cache_create, is "kmem_cache").  Every failure injected
 * is counted and reported (at most 10 reports in 5 seconds; none for
 * __GFP_NOWARN calls).  The decision is seeded, so a run repeats exactly.
 * The boot parameters take effect once the allocators are set up.
 * Without CONFIG_FAULT_INJECTION the hooks are constant 0 and compile away.
 */
#ifndef TINY_FAULT_INJECT_H
#define TINY_FAULT_INJECT_H

#include <tiny/types.h>
#include <tiny/compiler.h>
#include <tiny/kconfig.h>

/*
 * The self-tests' exact failure, part of the page allocator's one fault
 * hook (should_fail_alloc_page()): the nth alloc_pages() call from now
 * (1: the next one; calls with order >= MAX_ORDER fail anyway and do not
 * count) fails as if memory had run out; 0 cancels.  The countdown reads 0
 * once that failure has happened.  Without CONFIG_SELFTEST nothing is
 * injected.  Any context, any CPU (the countdown is claimed atomically).
 */
extern unsigned long page_alloc_fail_countdown;	/* mm/page_alloc.c */
static inline void page_alloc_fail_nth(unsigned long n)
{
	if (IS_ENABLED(CONFIG_SELFTEST))
		WRITE_ONCE(page_alloc_fail_countdown, n);
}

/* Counts one alloc_pages() call down; 1 if it is the one to fail. */
static inline int page_alloc_nth_fails(void)
{
	unsigned long c;

	if (!IS_ENABLED(CONFIG_SELFTEST))
		return 0;
	c = READ_ONCE(page_alloc_fail_countdown);
	while (c && !__atomic_compare_exchange_n(&page_alloc_fail_countdown, &c, c - 1, 0,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return c == 1;
}

#define FAULT_NAME_LEN	24	/* longest cache name in a filter, NUL included */

struct fault_attr {
	const char *name;		/* "failslab", "fail_page_alloc" */
	unsigned long probability;	/* percent; 0 = off */
	unsigned long interval;		/* >= 1 */
	long times;			/* failures still allowed; -1: unlimited */
	char cache[FAULT_NAME_LEN];	/* "" = any cache */
	size_t min_size, max_size;	/* eligible sizes, inclusive */
	/* counters, under the attribute's lock */
	unsigned long calls;		/* eligible calls seen while on */
	unsigned long injected;		/* failures injected, ever */
	u32 rnd;			/* the generator's state */
};

extern struct fault_attr failslab, fail_page_alloc;

#if IS_ENABLED(CONFIG_FAULT_INJECTION)
/* Should this allocation of size bytes from cache (NULL: none) fail?
 * Counts and reports an injected failure.  Any context. */
int should_failslab(const char *cache, size_t size, gfp_t gfp);
/* Should this alloc_pages(gfp, order) fail?  As above. */
int should_fail_alloc_page(unsigned int order, gfp_t gfp);
/* Sets attr from a spec as above ("off" too); 0, or -1 (bad syntax) or -2
 * (out of range), attr unchanged then.  Resets calls, not injected.
 * Process context. */
int fault_attr_set(struct fault_attr *attr, const char *spec);
/* Puts back the settings (not the counters) of saved, a copy of *attr
 * taken earlier: a test that sets its own puts back the boot's.  Any
 * context. */
void fault_attr_restore(struct fault_attr *attr, const struct fault_attr *saved);
/* The failures injected so far, both attributes together: a caller that
 * saw an allocation fail tells an injected failure from a real shortage by
 * this count moving during the call.  Any context. */
unsigned long fault_injected_total(void);
/* Is either attribute on?  Tests that exhaust memory skip then: an
 * injected failure is not memory running out. */
int fault_inject_active(void);
/* Prints the attribute's setting and counts. */
void fault_attr_show(const struct fault_attr *attr);
/* The console command "fault [off | name spec|off]" ("fault off" turns
 * both off); returns 0 or -1. */
int fault_inject_command(int argc, char **argv);
/* Applies the boot parameters failslab= and fail_page_alloc=; called once
 * the allocators are set up (their own initialisation is never failed). */
void fault_inject_boot_done(void);
#else
static inline void fault_inject_boot_done(void)
{
}
static inline unsigned long fault_injected_total(void)
{
	return 0;
}
static inline int fault_inject_active(void)
{
	return 0;
}
static inline int fault_inject_command(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -1;		/* no fault injection to set */
}
static inline int should_failslab(const char *cache, size_t size, gfp_t gfp)
{
	return 0;
}
static inline int should_fail_alloc_page(unsigned int order, gfp_t gfp)
{
	return page_alloc_nth_fails();
}
#endif

#endif /* TINY_FAULT_INJECT_H */
