/* test_kmem_debug.c - self-tests of the heap debugging layer
 * (CONFIG_DEBUG_KMEM, mm/kmem_debug.c) on whichever allocator is built in,
 * in the kernel and on the host: each fault is planted on purpose (one
 * byte past the end, one before, writes after free at several offsets, a
 * double free, a leak, damage in a large block's slack, in an aligned cache
 * and in a constructed object) and the report's content is checked: its
 * kind, object, offset, bad bytes and owners (the sites of the helpers
 * below, printed with %pS).  Objects from the helpers of mm/util.c
 * (kzalloc, kcalloc, krealloc, kstrdup, kmemdup) name the helper's caller;
 * a bad pointer the layer forwards to the allocator is reported with the
 * layer's caller; T prints one line per allocation and free of the caches
 * selected, and none for the others.  Every double free of a debugged
 * object is reported, also those the allocator leaves to the layer (after
 * other frees; two CPUs freeing one object at once).  A destroy waits for
 * an object another CPU is giving back out of its quarantine.  Clean workloads
 * (stress, krealloc, a replay) must give no report at all. */
#include <tiny/atomic.h>
#include <tiny/kernel.h>
#include <tiny/kmem_debug.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/random.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>	/* cpu_relax() */
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/slab_common.h"	/* the bad calls, kmem_bad_free_count */

static struct kmem_debug_settings saved;
static volatile unsigned long site_calls;	/* keeps the helpers' calls no tail calls */

/* The call sites the reports must name: each calls the API once. */
static noinline void *site_alloc(size_t n, gfp_t gfp)
{
	void *p = kmalloc(n, gfp);

	site_calls++;
	return p;
}

static noinline void site_free(const void *p)
{
	kfree(p);
	site_calls++;
}

static noinline void site_free_again(const void *p)
{
	kfree(p);
	site_calls++;
}

static noinline void *leaky_alloc(size_t n)
{
	void *p = kmalloc(n, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void *site_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *p = kmem_cache_alloc(c, gfp);

	site_calls++;
	return p;
}

static noinline void site_cache_free(struct kmem_cache *c, void *p)
{
	kmem_cache_free(c, p);
	site_calls++;
}

static noinline void site_cache_free_again(struct kmem_cache *c, void *p)
{
	kmem_cache_free(c, p);
	site_calls++;
}

/* The sites of the helpers' callers: each calls one helper once. */
static noinline void *via_kzalloc(size_t n)
{
	void *p = kzalloc(n, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void *via_kcalloc(size_t n)
{
	void *p = kcalloc(n, 4, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void *via_krealloc(void *old, size_t n)
{
	void *p = krealloc(old, n, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void *via_kstrdup(const char *s)
{
	void *p = kstrdup(s, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void *via_kmemdup(const void *src, size_t n)
{
	void *p = kmemdup(src, n, GFP_KERNEL);

	site_calls++;
	return p;
}

static noinline void forward_bad_kfree(const void *p)
{
	kfree(p);
	site_calls++;
}

static noinline size_t forward_bad_ksize(const void *p)
{
	size_t n = ksize(p);

	site_calls++;
	return n;
}

static noinline void forward_bad_cache_free(struct kmem_cache *c, void *p)
{
	kmem_cache_free(c, p);
	site_calls++;
}

static noinline int forward_bad_destroy(struct kmem_cache *c)
{
	int ret = kmem_cache_destroy(c);

	site_calls++;
	return ret;
}

/* Is the return address site inside fn (the helpers are short)? */
static int site_in(void *site, void *fn)
{
	return (uintptr_t)site - (uintptr_t)fn < 96;
}

/* Where the last report's text says s first, or NULL. */
static const char *report_says(const char *s)
{
	const char *h = kmem_debug_last.text;
	size_t n = strlen(s), len = strlen(h), i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(h + i, s, n))
			return h + i;
	return NULL;
}

/* Does the last report's text name site as %pS prints it? */
static int text_names(void *site)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%pS", site);
	return report_says(buf) != NULL;
}

/* Does text, where %pS printed a site, name a place inside fn?  A name
 * (kallsyms) must be "fn+0x..."; an address (no kallsyms, or the host's
 * printf) must be inside fn. */
static int names_site_in(const char *text, void *fn)
{
	static const char digits[] = "0123456789abcdef";
	const char *d;
	char name[64];
	uintptr_t addr = 0;
	size_t n;

	if (strncmp(text, "0x", 2)) {
		n = (size_t)snprintf(name, sizeof(name), "%ps+0x", fn);
		return !strncmp(text, name, n);
	}
	for (text += 2; *text && (d = strchr(digits, *text | 0x20)); text++)
		addr = addr * 16 + (uintptr_t)(d - digits);
	return site_in((void *)addr, fn);
}

static int kd_init(struct ktest *t)
{
	saved = kmem_debug_settings;
	kmem_debug_set("ZPU");
	memset(&kmem_debug_last, 0, sizeof(kmem_debug_last));
	return 0;
}

static void kd_exit(struct ktest *t)
{
	kmem_debug_flush();
	kmem_debug_apply(&saved);
}

static void settings_syntax(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_debug_set("ZPU,dentry,kmalloc"), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_settings.flags, (unsigned int)(KMEM_DEBUG_REDZONE |
			KMEM_DEBUG_POISON | KMEM_DEBUG_USER));
	KTEST_EXPECT_EQ(t, kmem_debug_settings.nr_names, 2u);
	KTEST_EXPECT_STREQ(t, kmem_debug_settings.names[1], "kmalloc");
	KTEST_EXPECT_EQ(t, kmem_debug_set(""), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_settings.flags, (unsigned int)(KMEM_DEBUG_REDZONE |
			KMEM_DEBUG_POISON | KMEM_DEBUG_USER));
	KTEST_EXPECT_EQ(t, kmem_debug_settings.nr_names, 0u);
	KTEST_EXPECT_EQ(t, kmem_debug_set("zt"), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_settings.flags,
			(unsigned int)(KMEM_DEBUG_REDZONE | KMEM_DEBUG_TRACE));
	KTEST_EXPECT_EQ(t, kmem_debug_set("-"), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_settings.flags, 0u);
	/* refused, and nothing changes */
	KTEST_EXPECT_EQ(t, kmem_debug_set("ZX"), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_set("Z,"), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_set("Z,a,,b"), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_set("Z,a_name_longer_than_23_chars"), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_set("Z,a,b,c,d,e,f,g,h,i"), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_set(NULL), -1);
	KTEST_EXPECT_EQ(t, kmem_debug_settings.flags, 0u);
}

/* A setting naming caches debugs only those (and kmalloc() if named). */
static void names_limit_the_checks(struct ktest *t)
{
	struct kmem_cache *named, *other;
	void *a, *b, *m;

	KTEST_ASSERT_EQ(t, kmem_debug_set("ZP,kd_named"), 0);
	named = kmem_cache_create("kd_named", 40, 0, 0, NULL, NULL);
	other = kmem_cache_create("kd_other", 40, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, named);
	KTEST_ASSERT_NOT_NULL(t, other);
	a = kmem_cache_alloc(named, GFP_KERNEL);
	b = kmem_cache_alloc(other, GFP_KERNEL);
	m = kmalloc(40, GFP_KERNEL);
	KTEST_EXPECT_GE(t, kmem_debug_block_end(a), (size_t)40 + 16);
	KTEST_EXPECT_EQ(t, kmem_debug_block_end(b), (size_t)0);
	KTEST_EXPECT_EQ(t, kmem_debug_block_end(m), (size_t)0);
	KTEST_EXPECT_EQ(t, kmem_cache_size(named), (size_t)40);
	KTEST_EXPECT_STREQ(t, kmem_cache_name(named), "kd_named");
	kfree(m);
	kmem_cache_free(named, a);
	kmem_cache_free(other, b);
	kmem_debug_flush();
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(named), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(other), 0);
}

static void overflow_by_one_at_end(struct ktest *t)
{
	u8 *p = site_alloc(24, GFP_KERNEL);
	unsigned long reports = kmem_debug_reports;

	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, ksize(p), (size_t)24);
	p[24] = 0x41;
	ktest_expect_reports(t, 1);
	site_free(p);
	KTEST_EXPECT_EQ(t, kmem_debug_reports, reports + 1);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_REDZONE);
	KTEST_EXPECT_PTR_EQ(t, kmem_debug_last.obj, (const void *)p);
	KTEST_EXPECT_STREQ(t, kmem_debug_last.cache, "kmalloc");
	KTEST_EXPECT_EQ(t, kmem_debug_last.right, 1);
	KTEST_EXPECT_EQ(t, kmem_debug_last.offset, 24l);
	KTEST_EXPECT_EQ(t, kmem_debug_last.bytes[0], 0x41);
	KTEST_EXPECT_EQ(t, kmem_debug_last.bytes[1], 0xcc);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_alloc));
	KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.alloc_site));
	KTEST_EXPECT_TRUE(t, report_says("red zone overwritten after kmalloc object"));
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);	/* repaired: reported once */
}

static void underflow_before_start(struct ktest *t)
{
	u8 *p = site_alloc(100, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, p);
	p[-1] = 0x42;
	ktest_expect_reports(t, 1);
	site_free(p);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_REDZONE);
	KTEST_EXPECT_EQ(t, kmem_debug_last.right, 0);
	KTEST_EXPECT_EQ(t, kmem_debug_last.offset, -1l);
	KTEST_EXPECT_EQ(t, kmem_debug_last.bytes[0], 0x42);
	KTEST_EXPECT_EQ(t, kmem_debug_last.size, (size_t)100);
	KTEST_EXPECT_TRUE(t, report_says("red zone overwritten before kmalloc object"));
	KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.alloc_site));
}

static void write_after_free_at_offsets(struct ktest *t)
{
	static const size_t offsets[] = { 0, 13, 63 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		u8 *p = site_alloc(64, GFP_KERNEL);

		KTEST_ASSERT_NOT_NULL(t, p);
		site_free(p);
		p[offsets[i]] = (u8)(0x50 + i);		/* the quarantine holds it */
		ktest_expect_reports(t, 1);
		KTEST_EXPECT_EQ(t, kmem_debug_flush(), 1);
		KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_USE_AFTER_FREE);
		KTEST_EXPECT_PTR_EQ(t, kmem_debug_last.obj, (const void *)p);
		KTEST_EXPECT_EQ(t, kmem_debug_last.offset, (long)offsets[i]);
		KTEST_EXPECT_EQ(t, kmem_debug_last.bytes[0], 0x50 + i);
		KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.free_site, site_free));
		KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_alloc));
		KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.free_site));
		KTEST_EXPECT_TRUE(t, report_says("write after free to kmalloc object"));
	}
}

static void double_free_shows_both_sites(struct ktest *t)
{
	void *p = site_alloc(40, GFP_KERNEL);
	unsigned long bad = kmem_bad_free_count;

	KTEST_ASSERT_NOT_NULL(t, p);
	site_free(p);
	ktest_expect_reports(t, 1);
	site_free_again(p);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_DOUBLE_FREE);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.free_site, site_free));
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.free_site2, site_free_again));
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_alloc));
	KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.free_site));
	KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.free_site2));
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);	/* the poison is intact */
}

/* Did the last report name p, freed again by fn: as a double free (the
 * layer still knew p) or as a bad pointer (the layer or the allocator
 * refused a pointer it did not know)? */
static int freed_again_by(const void *p, void *fn)
{
	if (kmem_debug_last.obj != p)
		return 0;
	if (kmem_debug_last.kind == KDBG_DOUBLE_FREE)
		return site_in(kmem_debug_last.free_site2, fn);
	return kmem_debug_last.kind == KDBG_BAD_FREE && site_in(kmem_debug_last.caller, fn);
}

/* Are the n pointers of p distinct? */
static int all_distinct(void *const *p, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (p[i] == p[j])
				return 0;
	return 1;
}

/*
 * A block freed again after other frees, a bad call SLAB does not catch
 * (kmem_allocator_catches(KMEM_BAD_DOUBLE_FREE_LATER)): a kmalloc() block
 * and a cache object, with the quarantine (P: the layer finds the object
 * freed) and without (ZU: the layer has forgotten it; a debugged cache
 * refuses a pointer it does not know, and a kmalloc() pointer, which lies
 * inside the allocator's block, is refused by the allocator).  Each is
 * reported once, naming the second free, and nothing is handed out twice.
 */
static void double_free_after_other_frees(struct ktest *t)
{
	static const char *const letters[] = { "ZPU", "ZU" };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(letters); i++) {
		unsigned long bad;
		struct kmem_cache *c;
		void *a, *b, *x, *y, *fresh[8];

		KTEST_ASSERT_EQ(t, kmem_debug_set(letters[i]), 0);
		c = kmem_cache_create("kd_later", 48, 0, 0, NULL, NULL);
		KTEST_ASSERT_NOT_NULL(t, c);
		a = site_alloc(64, GFP_KERNEL);
		b = site_alloc(64, GFP_KERNEL);
		x = site_cache_alloc(c, GFP_KERNEL);
		y = site_cache_alloc(c, GFP_KERNEL);
		KTEST_ASSERT_TRUE(t, a && b && x && y);
		site_free(a);
		site_free(b);
		site_cache_free(c, x);
		site_cache_free(c, y);
		bad = kmem_bad_free_count;
		ktest_expect_reports(t, 2);
		site_free_again(a);
		KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
		KTEST_EXPECT_TRUE(t, freed_again_by(a, site_free_again));
		site_cache_free_again(c, x);
		KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 2);
		KTEST_EXPECT_TRUE(t, freed_again_by(x, site_cache_free_again));
		kmem_debug_flush();
		for (k = 0; k < ARRAY_SIZE(fresh); k++) {
			fresh[k] = k % 2 ? kmem_cache_alloc(c, GFP_KERNEL) : kmalloc(64, GFP_KERNEL);
			KTEST_ASSERT_NOT_NULL(t, fresh[k]);
		}
		KTEST_EXPECT_TRUE(t, all_distinct(fresh, ARRAY_SIZE(fresh)));
		for (k = 0; k < ARRAY_SIZE(fresh); k++) {
			if (k % 2)
				kmem_cache_free(c, fresh[k]);
			else
				kfree(fresh[k]);
		}
		KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);
		KTEST_EXPECT_EQ(t, kmem_check(), 0);
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		ktest_info(t, "%s: both found (%s)", letters[i],
			   i ? "the layer forgot them: refused as unknown" : "in the quarantine");
	}
}

/* Two CPUs free the same debugged object at the same moment, many times. */
#define KD_RACE_ROUNDS	200
struct kd_race {
	struct kmem_cache *c;
	unsigned int cpu[2];
	void *obj[KD_RACE_ROUNDS];
	int arrived;
};

/* Waits until both CPUs have arrived n times in all (a two-CPU barrier). */
static void kd_both_arrive(int *arrived, int n)
{
	__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL);
	while (smp_load_acquire(arrived) < n)
		barrier();
}

static void kd_race_cpu(void *arg)
{
	struct kd_race *r = arg;
	unsigned int me = smp_processor_id(), i;

	if (me != r->cpu[0] && me != r->cpu[1])
		return;
	for (i = 0; i < KD_RACE_ROUNDS; i++) {
		kd_both_arrive(&r->arrived, 4 * (int)i + 2);
		kmem_cache_free(r->c, r->obj[i]);
		kd_both_arrive(&r->arrived, 4 * (int)i + 4);
	}
}

/* The promise SLAB's fast path leaves to the layer (test_slab.c,
 * racing_double_free_found_at_flush): of two CPUs freeing one debugged
 * object at once, exactly one frees it and the other is reported, as the
 * free is made; nothing is cached twice. */
static void racing_double_free_reported_once(struct ktest *t)
{
	static struct kd_race r;
	unsigned long bad = kmem_bad_free_count;
	unsigned int i;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs (%u online)", num_online_cpus());
		return;
	}
	memset(&r, 0, sizeof(r));
	r.c = kmem_cache_create("kd_race", 32, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, r.c);
	for (i = 0; i < KD_RACE_ROUNDS; i++) {
		r.obj[i] = kmem_cache_alloc(r.c, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, r.obj[i]);
	}
	KTEST_ASSERT_GE(t, kmem_debug_block_end(r.obj[0]), (size_t)32);	/* debugged */
	r.cpu[0] = 0;
	for (r.cpu[1] = 1; r.cpu[1] < NR_CPUS && !cpu_online(r.cpu[1]); r.cpu[1]++)
		;
	ktest_expect_reports(t, KD_RACE_ROUNDS);	/* one per round: the losing free */
	smp_run_on_all_cpus(kd_race_cpu, &r);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count - bad, (unsigned long)KD_RACE_ROUNDS);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	ktest_info(t, "%d rounds, %lu reports", KD_RACE_ROUNDS, kmem_bad_free_count - bad);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(r.c), 0);
}

/*
 * A destroy while another CPU gives the cache's last object back out of its
 * quarantine.  The object leaves under its quarantine's lock, so
 * the destroy's flush waits for it and the destroy succeeds.  Objects once
 * left their quarantine into a list of the releasing CPU's, in neither
 * place for a while, and a destroy meanwhile failed on them ("has 1
 * objects in use; not destroyed", and the cache leaked).  The releasing
 * CPU holds the object in that window (kmem_debug_leaving_hook) until the
 * destroying CPU's flush has found its quarantine busy, or the destroy has
 * returned: no timing decides the outcome.
 */
static struct {
	struct kmem_cache *c;
	void *obj;
	unsigned int giver, destroyer;
	unsigned long waits0;	/* kmem_debug_flush_waits before */
	int leaving;		/* the hook holds obj */
	int held;		/* ... until a flush waited for it */
	int destroyed;		/* the destroy has returned */
	int result;		/* its result; -2: obj never left */
} leave;

static int flush_waited(void)
{
	return counter_read(&kmem_debug_flush_waits) != leave.waits0;
}

/* On the giver, interrupts off, obj about to go back to the allocator. */
static void leave_hook(const void *obj)
{
	unsigned long end = jiffies + KTEST_SECONDS(10);

	if (obj != leave.obj)
		return;
	smp_store_release(&leave.leaving, 1);
	while (!flush_waited() && !smp_load_acquire(&leave.destroyed) && time_before(jiffies, end))
		cpu_relax();
	leave.held = flush_waited();
}

static void leave_cpu(void *arg)
{
	unsigned int me = smp_processor_id();
	unsigned long end;

	(void)arg;
	if (me == leave.giver) {
		kmem_cache_free(leave.c, leave.obj);	/* into this CPU's quarantine */
		kmem_debug_flush();			/* out again: the hook holds it */
	} else if (me == leave.destroyer) {
		end = jiffies + KTEST_SECONDS(10);
		while (!smp_load_acquire(&leave.leaving) && time_before(jiffies, end))
			cpu_relax();
		leave.result = smp_load_acquire(&leave.leaving) ? kmem_cache_destroy(leave.c) : -2;
		smp_store_release(&leave.destroyed, 1);
	}
}

static void destroy_waits_for_objects_leaving_a_quarantine(struct ktest *t)
{
	unsigned int cpu;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs (%u online)", num_online_cpus());
		return;
	}
	memset(&leave, 0, sizeof(leave));
	leave.destroyer = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != leave.destroyer)
			leave.giver = cpu;
	leave.c = kmem_cache_create("kd_leaving", 64, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, leave.c);
	leave.obj = kmem_cache_alloc(leave.c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, leave.obj);
	leave.waits0 = counter_read(&kmem_debug_flush_waits);
	WRITE_ONCE(kmem_debug_leaving_hook, leave_hook);
	smp_run_on_all_cpus(leave_cpu, NULL);
	WRITE_ONCE(kmem_debug_leaving_hook, NULL);
	KTEST_EXPECT_EQ(t, leave.result, 0);
	KTEST_EXPECT_TRUE(t, leave.held);	/* the flush waited for the object */
	if (leave.result)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(leave.c), 0);
	ktest_info(t, "CPU %u destroyed the cache while CPU %u gave its object back: %s",
		   leave.destroyer, leave.giver, leave.held ? "the flush waited for it" :
		   "the flush did not wait");
}

/* The group of g[0..n) allocated inside fn, or NULL. */
static struct kmem_leak_group *group_of(struct kmem_leak_group *g, unsigned int n, void *fn)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (site_in(g[i].site, fn))
			return &g[i];
	return NULL;
}

static void leak_found_at_call_site(struct ktest *t)
{
	static struct kmem_leak_group g[16];
	struct kmem_leak_group *mine;
	void *p[3];
	unsigned int i, n;

	for (i = 0; i < 3; i++) {
		p[i] = leaky_alloc(100);
		KTEST_ASSERT_NOT_NULL(t, p[i]);
	}
	n = kmem_leaks_collect(g, ARRAY_SIZE(g));
	mine = group_of(g, min(n, (unsigned int)ARRAY_SIZE(g)), leaky_alloc);
	KTEST_ASSERT_NOT_NULL(t, mine);
	KTEST_EXPECT_EQ(t, mine->count, 3ul);
	KTEST_EXPECT_EQ(t, mine->bytes, 300ul);
	KTEST_EXPECT_STREQ(t, mine->cache, "kmalloc");
	KTEST_EXPECT_GE(t, kmem_leaks_report(), 3ul);
	for (i = 0; i < 3; i++)
		kfree(p[i]);
	n = kmem_leaks_collect(g, ARRAY_SIZE(g));
	KTEST_EXPECT_NULL(t, group_of(g, min(n, (unsigned int)ARRAY_SIZE(g)), leaky_alloc));
}

/* The group of g[0..n) allocated inside fn, which is one of fns[0..nr):
 * a site inside fn is after no other of fns that is after fn. */
static struct kmem_leak_group *group_of_nearest(struct kmem_leak_group *g, unsigned int n,
						void *fn, void *const *fns, unsigned int nr)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (!site_in(g[i].site, fn))
			continue;
		for (j = 0; j < nr; j++)
			if ((uintptr_t)fns[j] > (uintptr_t)fn &&
			    (uintptr_t)fns[j] <= (uintptr_t)g[i].site)
				break;
		if (j == nr)
			return &g[i];
	}
	return NULL;
}

/* Each helper's object is a leak of its caller, not of mm/util.c. */
static void helpers_leak_at_their_caller(struct ktest *t)
{
	static struct kmem_leak_group g[32];
	static const char text[] = "a string to duplicate";
	void *p[5], *fn[5] = { via_kzalloc, via_kcalloc, via_krealloc, via_kstrdup,
			       via_kmemdup };
	struct kmem_leak_group *mine;
	unsigned int i, n;

	p[0] = via_kzalloc(40);
	p[1] = via_kcalloc(10);
	p[2] = via_krealloc(NULL, 72);
	p[3] = via_kstrdup(text);
	p[4] = via_kmemdup(text, 9);
	for (i = 0; i < 5; i++)
		KTEST_ASSERT_NOT_NULL(t, p[i]);
	n = min(kmem_leaks_collect(g, ARRAY_SIZE(g)), (unsigned int)ARRAY_SIZE(g));
	for (i = 0; i < 5; i++) {
		char where[64];

		mine = group_of_nearest(g, n, fn[i], fn, 5);
		KTEST_EXPECT_NOT_NULL(t, mine);
		if (!mine) {
			ktest_info(t, "helper %u: no leak group at its caller", i);
			continue;
		}
		KTEST_EXPECT_EQ(t, mine->count, 1ul);
		KTEST_EXPECT_STREQ(t, mine->cache, "kmalloc");
		snprintf(where, sizeof(where), "%pS", mine->site);
		KTEST_EXPECT_TRUE(t, names_site_in(where, fn[i]));
	}
	mine = group_of_nearest(g, n, via_kstrdup, fn, 5);
	KTEST_EXPECT_EQ(t, mine ? mine->bytes : 0, (unsigned long)sizeof(text));
	mine = group_of_nearest(g, n, via_kcalloc, fn, 5);
	KTEST_EXPECT_EQ(t, mine ? mine->bytes : 0, 40ul);
	for (i = 0; i < 5; i++)
		kfree(p[i]);
}

/* krealloc moving a block: the new block is allocated and the old one
 * freed by krealloc's caller (a write to the old one names it). */
static void krealloc_moves_for_its_caller(struct ktest *t)
{
	u8 *old = site_alloc(24, GFP_KERNEL), *p;

	KTEST_ASSERT_NOT_NULL(t, old);
	p = via_krealloc(old, 2000);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_ASSERT_TRUE(t, p != old);
	KTEST_EXPECT_GE(t, kmem_debug_block_end(p), (size_t)2000);
	old[3] = 0x31;			/* in the quarantine */
	ktest_expect_reports(t, 1);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 1);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_USE_AFTER_FREE);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_alloc));
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.free_site, via_krealloc));
	KTEST_EXPECT_TRUE(t, text_names(kmem_debug_last.free_site));
	p[1999] = 1;
	kfree(p);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);
}

/* A red zone broken in a kzalloc()ed object names kzalloc's caller. */
static void kzalloc_redzone_names_caller(struct ktest *t)
{
	u8 *p = via_kzalloc(24);
	char where[64];
	const char *by;

	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, memchr_inv(p, 0, 24));
	p[24] = 0x43;
	ktest_expect_reports(t, 1);
	site_free(p);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_REDZONE);
	KTEST_EXPECT_EQ(t, kmem_debug_last.offset, 24l);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, via_kzalloc));
	snprintf(where, sizeof(where), "allocated by %pS", kmem_debug_last.alloc_site);
	KTEST_EXPECT_TRUE(t, report_says(where));
	by = report_says("allocated by ");
	KTEST_ASSERT_NOT_NULL(t, by);
	KTEST_EXPECT_TRUE(t, names_site_in(by + strlen("allocated by "), via_kzalloc));
}

/* Pointers the layer does not own go to the allocator, whose report names
 * the layer's caller, not the layer. */
static void forwarded_bad_pointer_names_caller(struct ktest *t)
{
	struct kmem_cache *c;
	unsigned long bad = kmem_bad_free_count;
	u8 *raw, *o;

	KTEST_ASSERT_EQ(t, kmem_debug_set("-"), 0);	/* blocks the layer passes on */
	c = kmem_cache_create("kd_fwd", 48, 0, 0, NULL, NULL);
	raw = kmalloc(64, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, raw);
	o = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	KTEST_EXPECT_EQ(t, kmem_debug_block_end(raw), (size_t)0);	/* not the layer's */
	ktest_expect_reports(t, 5);
	forward_bad_kfree(raw + 8);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_BAD_FREE);
	KTEST_EXPECT_PTR_EQ(t, kmem_debug_last.obj, (const void *)(raw + 8));
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.caller, forward_bad_kfree));
	KTEST_EXPECT_EQ(t, forward_bad_ksize(raw + 8), (size_t)0);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.caller, forward_bad_ksize));
	forward_bad_cache_free(c, o + 8);
	KTEST_EXPECT_PTR_EQ(t, kmem_debug_last.obj, (const void *)(o + 8));
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.caller, forward_bad_cache_free));
	KTEST_EXPECT_NULL(t, via_krealloc(raw + 8, 200));	/* ksize() refuses it */
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.caller, via_krealloc));
	KTEST_EXPECT_EQ(t, ksize(raw) >= 64, 1);
	kfree(raw);
	kmem_cache_free(c, o);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, forward_bad_destroy(c), -1);		/* destroyed already */
	KTEST_EXPECT_PTR_EQ(t, kmem_debug_last.obj, (const void *)c);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.caller, forward_bad_destroy));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 5);
}

/* Is the last T line "PREFIX" followed by a site inside fn? */
static int trace_is(const char *prefix, void *fn)
{
	size_t n = strlen(prefix);

	return !strncmp(kmem_debug_last_trace, prefix, n) &&
	       names_site_in(kmem_debug_last_trace + n, fn);
}

/* T prints each allocation and free of the caches selected (op, cache,
 * size, object, caller), and nothing for the others. */
static void trace_lines_of_selected_caches(struct ktest *t)
{
	struct kmem_cache *traced, *quiet;
	unsigned long traces;
	char want[KMEM_DEBUG_TRACE_LEN];
	void *a, *b, *m, *z;

	KTEST_ASSERT_EQ(t, kmem_debug_set("T,kd_traced"), 0);
	traced = kmem_cache_create("kd_traced", 40, 0, 0, NULL, NULL);
	quiet = kmem_cache_create("kd_quiet", 40, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, traced);
	KTEST_ASSERT_NOT_NULL(t, quiet);
	traces = kmem_debug_traces;
	a = site_cache_alloc(traced, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_EXPECT_EQ(t, kmem_debug_traces, traces + 1);
	snprintf(want, sizeof(want), "kmem_debug: alloc kd_traced 40 bytes = %p by ", a);
	KTEST_EXPECT_TRUE(t, trace_is(want, site_cache_alloc));
	site_cache_free(traced, a);
	KTEST_EXPECT_EQ(t, kmem_debug_traces, traces + 2);
	snprintf(want, sizeof(want), "kmem_debug: free kd_traced 40 bytes %p by ", a);
	KTEST_EXPECT_TRUE(t, trace_is(want, site_cache_free));
	if (!trace_is(want, site_cache_free))
		ktest_info(t, "last T line: %s", kmem_debug_last_trace);
	/* neither the other cache nor kmalloc(), now unnamed, print a line */
	b = site_cache_alloc(quiet, GFP_KERNEL);
	m = site_alloc(40, GFP_KERNEL);
	site_cache_free(quiet, b);
	site_free(m);
	KTEST_EXPECT_EQ(t, kmem_debug_traces, traces + 2);
	/* kmalloc() named: a kzalloc() line names kzalloc's caller */
	KTEST_ASSERT_EQ(t, kmem_debug_set("T,kmalloc"), 0);
	z = via_kzalloc(33);
	KTEST_ASSERT_NOT_NULL(t, z);
	KTEST_EXPECT_EQ(t, kmem_debug_traces, traces + 3);
	snprintf(want, sizeof(want), "kmem_debug: alloc kmalloc 33 bytes = %p by ", z);
	KTEST_EXPECT_TRUE(t, trace_is(want, via_kzalloc));
	site_free(z);
	KTEST_EXPECT_EQ(t, kmem_debug_traces, traces + 4);
	snprintf(want, sizeof(want), "kmem_debug: free kmalloc 33 bytes %p by ", z);
	KTEST_EXPECT_TRUE(t, trace_is(want, site_free));
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(traced), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(quiet), 0);
}

/* A cache destroyed with live objects is kept and says where they came from. */
static void destroy_with_live_objects(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("kd_leaky", 40, 0, 0, NULL, NULL);
	static struct kmem_leak_group g[16];
	void *a, *b;
	unsigned int n;

	KTEST_ASSERT_NOT_NULL(t, c);
	a = site_cache_alloc(c, GFP_KERNEL);
	b = site_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	n = kmem_leaks_collect(g, ARRAY_SIZE(g));
	KTEST_ASSERT_NOT_NULL(t, group_of(g, min(n, (unsigned int)ARRAY_SIZE(g)),
					  site_cache_alloc));
	KTEST_EXPECT_STREQ(t, group_of(g, n, site_cache_alloc)->cache, "kd_leaky");
	KTEST_EXPECT_EQ(t, group_of(g, n, site_cache_alloc)->count, 2ul);
	site_cache_free(c, a);
	site_cache_free(c, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static int ctor_calls, dtor_calls;

static void kd_ctor(void *obj)
{
	ctor_calls++;
	*(u32 *)obj = 0xc0ffee;
}

static void kd_dtor(void *obj)
{
	dtor_calls++;
}

/* A constructed object is poisoned whole while freed, and constructed
 * again when it is handed out; damage to it while freed is found. */
static void ctor_cache_with_poison(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("kd_ctor", 32, 0, 0, kd_ctor, kd_dtor);
	u32 *o;

	KTEST_ASSERT_NOT_NULL(t, c);
	ctor_calls = dtor_calls = 0;
	o = site_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	KTEST_EXPECT_EQ(t, *o, 0xc0ffeeu);
	KTEST_EXPECT_EQ(t, ctor_calls, 1);
	site_cache_free(c, o);
	KTEST_EXPECT_EQ(t, dtor_calls, 1);
	KTEST_EXPECT_NULL(t, memchr_inv(o, 0x6b, 32));	/* in the quarantine, poisoned */
	o = site_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	KTEST_EXPECT_EQ(t, *o, 0xc0ffeeu);
	KTEST_EXPECT_EQ(t, ctor_calls, 2);
	site_cache_free(c, o);
	o[5] = 7;
	ktest_expect_reports(t, 1);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 1);
	KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_USE_AFTER_FREE);
	KTEST_EXPECT_STREQ(t, kmem_debug_last.cache, "kd_ctor");
	KTEST_EXPECT_EQ(t, kmem_debug_last.offset, 20l);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.free_site, site_cache_free));
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static void gfp_zero_still_zeroes(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("kd_zero", 200, 0, 0, NULL, NULL);
	struct kmem_cache *cc = kmem_cache_create("kd_zero_ctor", 16, 0, 0, kd_ctor, NULL);
	u8 *p;
	u32 *q;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, cc);
	p = kmalloc(300, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xff, 300);
	kfree(p);
	kmem_debug_flush();
	p = kmalloc(300, GFP_KERNEL | __GFP_ZERO);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, memchr_inv(p, 0, 300));
	kfree(p);
	p = kmem_cache_alloc(c, GFP_KERNEL | __GFP_ZERO);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, memchr_inv(p, 0, 200));
	kmem_cache_free(c, p);
	p = kzalloc(50, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, memchr_inv(p, 0, ksize(p)));
	kfree(p);
	/* with a constructor: SLAB and SLUB refuse (they construct once per
	 * object), SLOB zeroes then constructs */
	q = kmem_cache_alloc(cc, GFP_KERNEL | __GFP_ZERO);
	if (!kmem_ctor_every_alloc) {
		KTEST_EXPECT_NULL(t, q);
	} else {
		KTEST_ASSERT_NOT_NULL(t, q);
		KTEST_EXPECT_EQ(t, q[0], 0xc0ffeeu);
		KTEST_EXPECT_EQ(t, q[1], 0u);
		kmem_cache_free(cc, q);
	}
	KTEST_EXPECT_EQ(t, kmem_check(), 0);
	kmem_debug_flush();
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(cc), 0);
}

static void aligned_cache_keeps_alignment(struct ktest *t)
{
	static const size_t aligns[] = { 16, 64, 256, 2 * PAGE_SIZE };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(aligns); i++) {
		struct kmem_cache *c = kmem_cache_create("kd_align", 40, aligns[i], 0, NULL, NULL);
		u8 *o;

		KTEST_ASSERT_NOT_NULL(t, c);
		o = site_cache_alloc(c, GFP_KERNEL);
		if (!o) {
			kmem_cache_destroy(c);
			continue;			/* too little memory for 2 pages */
		}
		KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)o, aligns[i]));
		o[40] = 0x99;
		ktest_expect_reports(t, 1);
		site_cache_free(c, o);
		KTEST_EXPECT_EQ(t, (int)kmem_debug_last.kind, (int)KDBG_REDZONE);
		KTEST_EXPECT_EQ(t, kmem_debug_last.offset, 40l);
		KTEST_EXPECT_STREQ(t, kmem_debug_last.cache, "kd_align");
		KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_cache_alloc));
		kmem_debug_flush();
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	}
}

/* The right red zone runs to the end of the allocator's block: a write in
 * a large block's slack is found, by kmem_check on a live object. */
static void large_block_tail_slack(struct ktest *t)
{
	size_t size = 131072 + 100, end;
	u8 *p = site_alloc(size, GFP_KERNEL | __GFP_NOWARN);

	if (!p) {
		ktest_skip(t, "no 256 KiB block");
		return;
	}
	end = kmem_debug_block_end(p);
	/* SLAB rounds to 256 KiB, SLOB to whole pages: either way most of a
	 * page of slack beyond the 100 bytes over 128 KiB */
	KTEST_EXPECT_GE(t, end, size + PAGE_SIZE / 2);
	p[end - 1] = 0x77;
	ktest_expect_reports(t, 1);
	KTEST_EXPECT_EQ(t, kmem_check(), 1);
	KTEST_EXPECT_EQ(t, kmem_debug_last.offset, (long)(end - 1));
	KTEST_EXPECT_EQ(t, kmem_debug_last.right, 1);
	KTEST_EXPECT_EQ(t, kmem_debug_last.nr_bytes, 1u);
	KTEST_EXPECT_EQ(t, kmem_debug_last.bytes[0], 0x77);
	KTEST_EXPECT_TRUE(t, site_in(kmem_debug_last.alloc_site, site_alloc));
	KTEST_EXPECT_EQ(t, kmem_check(), 0);		/* repaired */
	site_free(p);
}

/* Bad pointers to the layer are reported and change nothing. */
static void bad_pointers_change_nothing(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("kd_bad", 32, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	u8 *p = kmalloc(32, GFP_KERNEL);
	void *o;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, p);
	o = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	ktest_expect_reports(t, 5);
	kfree(p + 8);			/* inside the block: the allocator refuses it */
	kmem_cache_free(c, p);		/* a kmalloc() block to a cache */
	kfree(o);			/* a cache object to kfree */
	KTEST_EXPECT_EQ(t, ksize(o), (size_t)0);
	kmem_cache_free(c, ZERO_SIZE_PTR);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 5);
	KTEST_EXPECT_EQ(t, ksize(p), (size_t)32);
	KTEST_EXPECT_EQ(t, kmem_check(), 0);
	kfree(p);
	kmem_cache_free(c, o);
	kmem_debug_flush();
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Random kmalloc/krealloc/kfree with contents checked: no report at all. */
static void clean_workload_no_reports(struct ktest *t)
{
	static void *slot[64];
	static size_t len[64];
	unsigned long reports = kmem_debug_reports, bad = kmem_bad_free_count;
	struct rnd_state r;
	unsigned int i;

	prandom_seed(&r, 15);
	for (i = 0; i < 3000; i++) {
		unsigned int k = prandom_below(&r, 64);
		size_t n = 1 + prandom_below(&r, prandom_below(&r, 8) ? 300 : 5000);

		if (slot[k]) {
			KTEST_EXPECT_NULL(t, memchr_inv(slot[k], (int)(len[k] & 0xff), len[k]));
			if (prandom_below(&r, 3)) {
				kfree(slot[k]);
				slot[k] = NULL;
				continue;
			}
			slot[k] = krealloc(slot[k], n, GFP_KERNEL);
		} else {
			slot[k] = kmalloc(n, GFP_KERNEL);
		}
		if (slot[k]) {
			len[k] = n;
			memset(slot[k], (int)(n & 0xff), n);
		}
	}
	for (i = 0; i < 64; i++) {
		kfree(slot[i]);
		slot[i] = NULL;
	}
	KTEST_EXPECT_EQ(t, kmem_check(), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_reports, reports);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
}

/* A small trace replayed with ZPU: no report, no corruption, no leak. */
#define TRACE_ALLOCS	200

static size_t build_trace(void *buf)
{
	struct replay_header *h = buf;
	struct replay_cache *c = (struct replay_cache *)(h + 1);
	struct replay_op *op = (struct replay_op *)(c + 2);
	unsigned int i, n = 0;

	memset(buf, 0, sizeof(*h) + 2 * sizeof(*c));
	memcpy(h->magic, REPLAY_MAGIC, 4);
	h->version = REPLAY_VERSION;
	h->nr_caches = 2;
	h->nr_slots = 4;
	h->nr_allocs = TRACE_ALLOCS;
	h->nr_frees = TRACE_ALLOCS;
	c[0].object_size = 52;
	memcpy(c[0].name, "kd_replay", sizeof("kd_replay"));
	c[1].object_size = 192;
	c[1].align = 64;
	memcpy(c[1].name, "kd_replay_al", sizeof("kd_replay_al"));
	for (i = 0; i < TRACE_ALLOCS; i++) {
		u32 slot = (i % 4) << REPLAY_SLOT_SHIFT;

		if (i >= 4)
			op[n++] = (struct replay_op){ REPLAY_FREE | slot, 0 };
		if (i % 3 == 1)
			op[n++] = (struct replay_op){ REPLAY_CACHE_ALLOC | slot, i % 2 };
		else
			op[n++] = (struct replay_op){ REPLAY_KMALLOC | slot, 8u + i * 37u };
	}
	for (i = 0; i < 4; i++)
		op[n++] = (struct replay_op){ REPLAY_FREE | i << REPLAY_SLOT_SHIFT, 0 };
	h->nr_ops = n;
	return sizeof(*h) + 2 * sizeof(*c) + n * sizeof(*op);
}

static void replay_without_false_reports(struct ktest *t)
{
	size_t cap = sizeof(struct replay_header) + 2 * sizeof(struct replay_cache) +
		     (2 * TRACE_ALLOCS + 4) * sizeof(struct replay_op);
	unsigned long reports = kmem_debug_reports, bad = kmem_bad_free_count;
	static struct replay_result res;
	void *buf = kmalloc(cap, GFP_KERNEL);
	size_t len;

	KTEST_ASSERT_NOT_NULL(t, buf);
	len = build_trace(buf);
	KTEST_EXPECT_EQ(t, replay_run(buf, len, &res), 0);
	KTEST_EXPECT_EQ(t, res.corruptions, 0ul);
	KTEST_EXPECT_EQ(t, res.failures, 0ul);
	KTEST_EXPECT_EQ(t, res.allocs, (unsigned long)TRACE_ALLOCS);
	KTEST_EXPECT_EQ(t, kmem_check(), 0);
	KTEST_EXPECT_EQ(t, kmem_debug_reports, reports);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
	kfree(buf);
}

/* ---- every bad call, with the layer on ----------------------------------------------- */

/* One bad call of <tiny/slab.h>'s table, made on objects of its own; the
 * objects it must not disturb are checked afterwards. */
struct bad_setup {
	struct kmem_cache *c32, *c96, *x64, *y64, *pages, *gone;
	void *k, *o32, *o96, *x, *big;
};

static void bad_call_make(enum kmem_bad_call what, struct bad_setup *b)
{
	u8 stack_buf[32];
	void *a, *c;

	switch (what) {
	case KMEM_BAD_NOT_HEAP:
		kfree(stack_buf);
		break;
	case KMEM_BAD_INSIDE_KMALLOC:
		kfree((u8 *)b->k + 8);
		break;
	case KMEM_BAD_INSIDE_OBJECT:
		kmem_cache_free(b->c96, (u8 *)b->o96 + 32);
		break;
	case KMEM_BAD_DOUBLE_KFREE:
		a = kmalloc(40, GFP_KERNEL);
		kfree(a);
		kfree(a);
		break;
	case KMEM_BAD_DOUBLE_CACHE_FREE:
		a = kmem_cache_alloc(b->c32, GFP_KERNEL);
		kmem_cache_free(b->c32, a);
		kmem_cache_free(b->c32, a);
		break;
	case KMEM_BAD_DOUBLE_FREE_LATER:
		a = kmalloc(40, GFP_KERNEL);
		c = kmalloc(40, GFP_KERNEL);
		kfree(a);
		kfree(c);
		kfree(a);
		break;
	case KMEM_BAD_WRONG_CACHE:
		kmem_cache_free(b->c96, b->o32);
		break;
	case KMEM_BAD_WRONG_CACHE_SAME_SIZE:
		kmem_cache_free(b->y64, b->x);
		break;
	case KMEM_BAD_KMALLOC_TO_CACHE:
		kmem_cache_free(b->c32, b->k);
		break;
	case KMEM_BAD_OBJECT_TO_KFREE:
		kfree(b->o32);
		break;
	case KMEM_BAD_OWN_OBJECT:
		kfree(b->c32);
		break;
	case KMEM_BAD_FOREIGN_PAGE_TO_CACHE:
		kmem_cache_free(b->pages, b->big);
		break;
	case KMEM_BAD_DESTROYED_CACHE:
		kmem_cache_free(b->gone, b->o32);
		break;
	case KMEM_BAD_CALLS:
		break;
	}
}

/*
 * Every bad call of the table, with every letter on, on every allocator:
 * reported exactly once (by the layer, or by the allocator when the layer
 * passes the pointer on) and no object disturbed.  This is where the
 * calls an allocator leaves to the layer (kmem_allocator_catches() false:
 * kmem_api leaves them out) are shown caught.
 */
static void every_bad_call_is_caught(struct ktest *t)
{
	struct bad_setup b = { 0 };
	unsigned int what, left_out = 0;

	KTEST_ASSERT_EQ(t, kmem_debug_set("ZPU"), 0);
	b.c32 = kmem_cache_create("kd_bad32", 32, 0, 0, NULL, NULL);
	b.c96 = kmem_cache_create("kd_bad96", 96, 0, 0, NULL, NULL);
	b.x64 = kmem_cache_create("kd_badx", 64, 0, 0, NULL, NULL);
	b.y64 = kmem_cache_create("kd_bady", 64, 0, 0, NULL, NULL);
	b.pages = kmem_cache_create("kd_badpage", PAGE_SIZE, 0, 0, NULL, NULL);
	b.gone = kmem_cache_create("kd_badgone", 32, 0, 0, NULL, NULL);
	KTEST_ASSERT_TRUE(t, b.c32 && b.c96 && b.x64 && b.y64 && b.pages && b.gone);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.gone), 0);
	b.k = kmalloc(32, GFP_KERNEL);
	b.o32 = kmem_cache_alloc(b.c32, GFP_KERNEL);
	b.o96 = kmem_cache_alloc(b.c96, GFP_KERNEL);
	b.x = kmem_cache_alloc(b.x64, GFP_KERNEL);
	b.big = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_TRUE(t, b.k && b.o32 && b.o96 && b.x && b.big);
	memset(b.k, 0x11, 32);
	memset(b.o32, 0x22, 32);
	memset(b.o96, 0x33, 96);
	memset(b.x, 0x44, 64);
	for (what = 0; what < KMEM_BAD_CALLS; what++) {
		unsigned long reports = kmem_bad_free_count + kmem_debug_reports;

		ktest_expect_reports(t, 1);
		bad_call_make((enum kmem_bad_call)what, &b);
		KTEST_EXPECT_EQ(t, kmem_bad_free_count + kmem_debug_reports, reports + 1);
		left_out += !kmem_allocator_catches((enum kmem_bad_call)what);
	}
	KTEST_EXPECT_NULL(t, memchr_inv(b.k, 0x11, 32));
	KTEST_EXPECT_NULL(t, memchr_inv(b.o32, 0x22, 32));
	KTEST_EXPECT_NULL(t, memchr_inv(b.o96, 0x33, 96));
	KTEST_EXPECT_NULL(t, memchr_inv(b.x, 0x44, 64));
	kfree(b.k);
	kfree(b.big);
	kmem_cache_free(b.c32, b.o32);
	kmem_cache_free(b.c96, b.o96);
	kmem_cache_free(b.x64, b.x);
	KTEST_EXPECT_EQ(t, kmem_debug_flush(), 0);
	KTEST_EXPECT_EQ(t, kmem_check(), 0);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.c32), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.c96), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.x64), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.y64), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b.pages), 0);
	ktest_info(t, "%u bad calls, %u of them left to the layer by %s", KMEM_BAD_CALLS,
		   left_out, kmem_allocator_name);
}

static const struct ktest_case kmem_debug_cases[] = {
	KTEST_CASE(settings_syntax),
	KTEST_CASE(names_limit_the_checks),
	KTEST_CASE(overflow_by_one_at_end),
	KTEST_CASE(underflow_before_start),
	KTEST_CASE(write_after_free_at_offsets),
	KTEST_CASE(double_free_shows_both_sites),
	KTEST_CASE(double_free_after_other_frees),
	KTEST_CASE(every_bad_call_is_caught),
	KTEST_CASE(racing_double_free_reported_once),
	KTEST_CASE(destroy_waits_for_objects_leaving_a_quarantine),
	KTEST_CASE(leak_found_at_call_site),
	KTEST_CASE(helpers_leak_at_their_caller),
	KTEST_CASE(krealloc_moves_for_its_caller),
	KTEST_CASE(kzalloc_redzone_names_caller),
	KTEST_CASE(forwarded_bad_pointer_names_caller),
	KTEST_CASE(trace_lines_of_selected_caches),
	KTEST_CASE(destroy_with_live_objects),
	KTEST_CASE(ctor_cache_with_poison),
	KTEST_CASE(gfp_zero_still_zeroes),
	KTEST_CASE(aligned_cache_keeps_alignment),
	KTEST_CASE(large_block_tail_slack),
	KTEST_CASE(bad_pointers_change_nothing),
	KTEST_CASE(clean_workload_no_reports),
	KTEST_CASE(replay_without_false_reports),
	{}
};

static const struct ktest_suite kmem_debug_suite = {
	.name = "kmem_debug", .cases = kmem_debug_cases, .init = kd_init, .exit = kd_exit,
};
KTEST_SUITE(kmem_debug_suite);
