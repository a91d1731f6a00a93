/* test_kmem_api.c - the API contract every object allocator must keep.
 *
 * The same cases run unchanged against every allocator, in the kernel and in
 * the host harness: sizes, alignment, ksize, zeroing, overflow checks,
 * krealloc, caches with and without constructors, many live objects,
 * random stress, allocation from the timer interrupt, exhaustion and
 * recovery, and bad pointers.  Every case frees what it allocated, and
 * the allocator's validator runs after each one.
 *
 * Bad calls: each is made only if the allocator built here catches it
 * by itself (kmem_allocator_catches(), the table in docs/design.md), and
 * must then be reported once and change nothing.  One it does not catch
 * would corrupt its heap: the case says so and leaves it out, and the
 * kmem_debug suite shows the debugging layer catching it.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/kmem_debug.h>
#include <tiny/random.h>
#include <tiny/slab.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/slab_common.h"	/* which bad calls the allocator catches */
#include "held_pages.h"

static u8 pattern_of(const void *p, size_t i)
{
	return (u8)(((uintptr_t)p >> 3) + i * 7);
}

static void fill(void *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		((u8 *)p)[i] = pattern_of(p, i);
}

static int intact(const void *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((const u8 *)p)[i] != pattern_of(p, i))
			return 0;
	return 1;
}

/* Does p hold the first n bytes of the pattern that fill() wrote at old? */
static int moved_intact(const void *p, size_t n, const void *old)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((const u8 *)p)[i] != pattern_of(old, i))
			return 0;
	return 1;
}

static const char *const bad_call_names[KMEM_BAD_CALLS] = {
	[KMEM_BAD_NOT_HEAP] = "a pointer no allocator gave",
	[KMEM_BAD_INSIDE_KMALLOC] = "a pointer inside a kmalloc() block",
	[KMEM_BAD_INSIDE_OBJECT] = "a pointer inside a cache object",
	[KMEM_BAD_DOUBLE_KFREE] = "a double kfree()",
	[KMEM_BAD_DOUBLE_CACHE_FREE] = "a double kmem_cache_free()",
	[KMEM_BAD_DOUBLE_FREE_LATER] = "a double free after other frees",
	[KMEM_BAD_WRONG_CACHE] = "an object freed to a cache of another size",
	[KMEM_BAD_WRONG_CACHE_SAME_SIZE] = "an object freed to another cache of its size",
	[KMEM_BAD_KMALLOC_TO_CACHE] = "a kmalloc() block freed to a cache",
	[KMEM_BAD_OBJECT_TO_KFREE] = "a cache object to kfree()/ksize()",
	[KMEM_BAD_OWN_OBJECT] = "the allocator's own object to kfree()/ksize()",
	[KMEM_BAD_FOREIGN_PAGE_TO_CACHE] = "a foreign page freed to a page-sized cache",
	[KMEM_BAD_DESTROYED_CACHE] = "a destroyed cache used",
};

/* Is the bad call what caught by this allocator?  If so, declares the one
 * report it must print; if not, says so (the case leaves it out). */
static int bad_call(struct ktest *t, enum kmem_bad_call what)
{
	if (!kmem_allocator_catches(what)) {
		ktest_info(t, "not tried: %s (%s does not catch it; kmem_debug does)",
			   bad_call_names[what], kmem_allocator_name);
		return 0;
	}
	ktest_expect_reports(t, 1);
	return 1;
}

/* Makes the bad call "call" if the allocator catches "what"; adds 1 to
 * *reported if it did. */
#define BAD_CALL(t, what, reported, call) do {				\
	if (bad_call(t, KMEM_BAD_##what)) {				\
		call;							\
		(*(reported))++;					\
	}								\
} while (0)

static int kmem_api_init(struct ktest *t)
{
	t->priv = (void *)kmem_bad_free_count;
	return 0;
}

static void kmem_api_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	KTEST_EXPECT_EQ(t, page_alloc_validate(), 0);
}

static const size_t test_sizes[] = {
	1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 96, 100, 127, 128, 129,
	192, 200, 255, 256, 257, 500, 511, 512, 513, 1000, 1023, 1024, 1025, 2000, 2047,
	2048, 2049, 3000, 4000, 4080, 4095, 4096, 4097, 8192, 3 * 4096 + 5, 32768,
	65536 + 1, 131072,
};

static void kmalloc_sizes(struct ktest *t)
{
	void *p[ARRAY_SIZE(test_sizes)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(test_sizes); i++) {
		size_t n = test_sizes[i];

		p[i] = kmalloc(n, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p[i]);
		KTEST_EXPECT_GE(t, ksize(p[i]), n);
		KTEST_EXPECT_EQ(t, (uintptr_t)p[i] % KMALLOC_MIN_ALIGN, 0u);
		fill(p[i], n);
	}
	for (i = 0; i < ARRAY_SIZE(test_sizes); i++) {
		KTEST_EXPECT_TRUE(t, intact(p[i], test_sizes[i]));
		kfree(p[i]);
	}
}

static void ksize_is_usable(struct ktest *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(test_sizes); i++) {
		u8 *p = kmalloc(test_sizes[i], GFP_KERNEL);
		size_t n;

		KTEST_ASSERT_NOT_NULL(t, p);
		n = ksize(p);
		memset(p, 0xa5, n);	/* all of it is the caller's */
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		kfree(p);
	}
}

static void zero_size_and_null(struct ktest *t)
{
	void *p = kmalloc(0, GFP_KERNEL);

	KTEST_EXPECT_PTR_EQ(t, p, ZERO_SIZE_PTR);
	KTEST_EXPECT_EQ(t, ksize(p), 0u);
	kfree(p);
	kfree(NULL);
	KTEST_EXPECT_EQ(t, ksize(NULL), 0u);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, (unsigned long)t->priv);
}

static void kzalloc_zeroes(struct ktest *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(test_sizes); i++) {	/* dirty, free, then kzalloc */
		void *p = kmalloc(test_sizes[i], GFP_KERNEL);

		KTEST_ASSERT_NOT_NULL(t, p);
		memset(p, 0xff, test_sizes[i]);
		kfree(p);
		p = kzalloc(test_sizes[i], GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_NULL(t, memchr_inv(p, 0, test_sizes[i]));
		kfree(p);
	}
}

static void kcalloc_checks_overflow(struct ktest *t)
{
	size_t huge = (size_t)-1 / 2 + 1;
	u8 *p;

	KTEST_EXPECT_NULL(t, kcalloc(huge, 2, GFP_KERNEL));
	KTEST_EXPECT_NULL(t, kcalloc(2, huge, GFP_KERNEL));
	KTEST_EXPECT_NULL(t, kcalloc((size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4),
				    GFP_KERNEL));
	p = kcalloc(100, 10, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_NULL(t, memchr_inv(p, 0, 1000));
	kfree(p);
	KTEST_EXPECT_PTR_EQ(t, kcalloc(0, 10, GFP_KERNEL), ZERO_SIZE_PTR);
}

/* Impossible sizes fail and take no page.  The free count may only grow
 * meanwhile: a timer (SLAB's reaper, SLOB's shrinker, on any CPU) can give
 * pages back, and nothing else allocates. */
static void impossible_sizes_fail(struct ktest *t)
{
	unsigned long before = nr_free_pages();

	KTEST_EXPECT_NULL(t, kmalloc((size_t)-1, GFP_KERNEL | __GFP_NOWARN));
	KTEST_EXPECT_NULL(t, kmalloc((size_t)-1 - 4096, GFP_KERNEL | __GFP_NOWARN));
	KTEST_EXPECT_NULL(t, kmalloc(PAGE_SIZE << MAX_ORDER, GFP_KERNEL | __GFP_NOWARN));
	KTEST_EXPECT_GE(t, nr_free_pages(), before);
}

static void krealloc_keeps_contents(struct ktest *t)
{
	u8 *p, *q;

	p = krealloc(NULL, 10, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	memcpy(p, "tinyslab!", 10);
	q = krealloc(p, 100, GFP_KERNEL);		/* grow within the heap */
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_EQ(t, memcmp(q, "tinyslab!", 10), 0);
	fill(q + 10, 90);
	p = krealloc(q, 3 * PAGE_SIZE, GFP_KERNEL);	/* grow into pages */
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, memcmp(p, "tinyslab!", 10), 0);
	KTEST_EXPECT_GE(t, ksize(p), 3 * PAGE_SIZE);
	q = krealloc(p, 5, GFP_KERNEL);			/* shrink */
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_EQ(t, memcmp(q, "tinys", 5), 0);
	p = krealloc(q, (size_t)-1, GFP_KERNEL | __GFP_NOWARN);	/* fails: q untouched */
	KTEST_EXPECT_NULL(t, p);
	KTEST_EXPECT_EQ(t, memcmp(q, "tinys", 5), 0);
	KTEST_EXPECT_PTR_EQ(t, krealloc(q, 0, GFP_KERNEL), ZERO_SIZE_PTR);	/* frees q */
}

static void kstrdup_and_kmemdup(struct ktest *t)
{
	char *s = kstrdup("slob and slab", GFP_KERNEL);
	u8 *m;

	KTEST_ASSERT_NOT_NULL(t, s);
	KTEST_EXPECT_STREQ(t, s, "slob and slab");
	kfree(s);
	KTEST_EXPECT_NULL(t, kstrdup(NULL, GFP_KERNEL));
	m = kmemdup("\x01\x02\x03", 3, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, m);
	KTEST_EXPECT_EQ(t, m[2], 3);
	kfree(m);
}

/* ---- caches ---------------------------------------------------------------- */

#define CTOR_MAGIC	0xc0ffee11u

static unsigned long ctor_calls, dtor_calls;

static void count_ctor(void *obj)
{
	*(u32 *)obj = CTOR_MAGIC;
	ctor_calls++;
}

static void count_dtor(void *obj)
{
	dtor_calls++;
}

static void cache_objects(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_objects", 100, 0, 0, NULL, NULL);
	void *obj[200];
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, kmem_cache_size(c), 100u);
	KTEST_EXPECT_STREQ(t, kmem_cache_name(c), "test_objects");
	for (i = 0; i < ARRAY_SIZE(obj); i++) {
		obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, obj[i]);
		fill(obj[i], 100);
	}
	for (i = 0; i < ARRAY_SIZE(obj); i++) {
		KTEST_EXPECT_TRUE(t, intact(obj[i], 100));
		kmem_cache_free(c, obj[i]);
	}
	kmem_cache_free(c, NULL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static void cache_alignment(struct ktest *t)
{
	static const size_t sizes[] = { 24, 100, 1000, 3000 };
	static const size_t aligns[] = { 8, 16, 32, 64, 128, 256, 1024 };
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(aligns); j++) {
			struct kmem_cache *c = kmem_cache_create("test_align", sizes[i], aligns[j],
								 0, NULL, NULL);
			void *obj[5];

			KTEST_ASSERT_NOT_NULL(t, c);
			for (k = 0; k < ARRAY_SIZE(obj); k++) {
				obj[k] = kmem_cache_alloc(c, GFP_KERNEL);
				KTEST_ASSERT_NOT_NULL(t, obj[k]);
				KTEST_EXPECT_EQ(t, (uintptr_t)obj[k] % aligns[j], 0u);
				fill(obj[k], sizes[i]);
			}
			for (k = 0; k < ARRAY_SIZE(obj); k++) {
				KTEST_EXPECT_TRUE(t, intact(obj[k], sizes[i]));
				kmem_cache_free(c, obj[k]);
			}
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		}
	}
}

static void cache_hwcache_align(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_hwalign", 40, 0,
						 SLAB_HWCACHE_ALIGN | SLAB_MUST_HWCACHE_ALIGN,
						 NULL, NULL);
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	a = kmem_cache_alloc(c, GFP_KERNEL);
	b = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_EQ(t, (uintptr_t)a % L1_CACHE_BYTES, 0u);
	KTEST_EXPECT_EQ(t, (uintptr_t)b % L1_CACHE_BYTES, 0u);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Whatever the allocator's policy, an object handed out is constructed,
 * and by the time the cache is destroyed every constructed object has been
 * destructed. */
static void cache_ctor_dtor(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_ctor", 64, 0, 0, count_ctor, count_dtor);
	u32 *obj[50];
	unsigned int i, round;

	KTEST_ASSERT_NOT_NULL(t, c);
	ctor_calls = dtor_calls = 0;
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ARRAY_SIZE(obj); i++) {
			obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
			KTEST_ASSERT_NOT_NULL(t, obj[i]);
			KTEST_EXPECT_EQ(t, *obj[i], CTOR_MAGIC);
			obj[i][1] = i;		/* use it, leave the constructed part intact */
		}
		for (i = 0; i < ARRAY_SIZE(obj); i++)
			kmem_cache_free(c, obj[i]);
	}
	KTEST_EXPECT_GE(t, ctor_calls, (unsigned long)ARRAY_SIZE(obj));
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, dtor_calls, ctor_calls);
}

static void cache_page_sized_objects(struct ktest *t)
{
	static const size_t sizes[] = { PAGE_SIZE, 2 * PAGE_SIZE + 100, 5 * PAGE_SIZE };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kmem_cache *c = kmem_cache_create("test_big", sizes[i], PAGE_SIZE, 0,
							 count_ctor, NULL);
		void *obj[4];

		KTEST_ASSERT_NOT_NULL(t, c);
		for (k = 0; k < ARRAY_SIZE(obj); k++) {
			obj[k] = kmem_cache_alloc(c, GFP_KERNEL);
			KTEST_ASSERT_NOT_NULL(t, obj[k]);
			KTEST_EXPECT_EQ(t, (uintptr_t)obj[k] % PAGE_SIZE, 0u);
			KTEST_EXPECT_EQ(t, *(u32 *)obj[k], CTOR_MAGIC);
			fill((u8 *)obj[k] + 4, sizes[i] - 4);
		}
		for (k = 0; k < ARRAY_SIZE(obj); k++) {
			KTEST_EXPECT_TRUE(t, intact((u8 *)obj[k] + 4, sizes[i] - 4));
			*(u32 *)obj[k] = CTOR_MAGIC;	/* back to the constructed state */
			kmem_cache_free(c, obj[k]);
		}
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	}
}

static void cache_destroy_refuses_live(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_busy", 32, 0, 0, NULL, NULL);
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	a = kmem_cache_alloc(c, GFP_KERNEL);
	b = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	kmem_cache_free(c, a);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	a = kmem_cache_alloc(c, GFP_KERNEL);		/* still works */
	KTEST_EXPECT_NOT_NULL(t, a);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static void cache_create_rejects_bad_arguments(struct ktest *t)
{
	KTEST_EXPECT_NULL(t, kmem_cache_create("test_bad", 0, 0, 0, NULL, NULL));
	KTEST_EXPECT_NULL(t, kmem_cache_create("test_bad", 64, 3, 0, NULL, NULL));
	KTEST_EXPECT_NULL(t, kmem_cache_create(NULL, 64, 0, 0, NULL, NULL));
	KTEST_EXPECT_NULL(t, kmem_cache_create("test_bad", PAGE_SIZE << MAX_ORDER, 0, 0, NULL, NULL));
}

/* ---- many objects, stress ------------------------------------------------- */

#define MANY	2000

static void *many_obj[MANY];

/* Deferred: frees what many_objects_live() still holds. */
static void free_many(void *unused)
{
	unsigned int i;

	for (i = 0; i < MANY; i++) {
		kfree(many_obj[i]);
		many_obj[i] = NULL;
	}
}


static void many_objects_live(struct ktest *t)
{
	static size_t len[MANY];
	struct rnd_state r;
	unsigned long bytes = 0, free_pages = nr_free_pages();
	unsigned int i, k, bad = 0;

	prandom_seed(&r, 42);
	for (i = 0; i < MANY; i++) {
		len[i] = 1 + prandom_below(&r, prandom_below(&r, 16) ? 256 : 2048);
		bytes += len[i];
	}
	ktest_defer(t, free_many, NULL);
	for (i = 0; i < MANY; i++) {
		many_obj[i] = kmalloc(len[i], GFP_KERNEL | __GFP_NOWARN);
		if (!many_obj[i] && free_pages < 2 * bytes / PAGE_SIZE) {
			/* SLAB's size classes take up to twice the bytes */
			ktest_skip(t, "out of memory after %u objects: %lu pages were free, the "
				   "case may need %lu", i, free_pages, 2 * bytes / PAGE_SIZE);
			return;
		}
		KTEST_ASSERT_NOT_NULL(t, many_obj[i]);
		fill(many_obj[i], len[i]);
	}
	for (i = 0; i < MANY; i++) {			/* free in a shuffled order */
		k = (i * 769) % MANY;
		bad += !intact(many_obj[k], len[k]);
		kfree(many_obj[k]);
		many_obj[k] = NULL;
	}
	KTEST_EXPECT_EQ(t, bad, 0u);
}

#define STRESS_SLOTS	512
#define STRESS_OPS	40000

struct stress_slot {
	void *p;
	size_t len;
	int cache;		/* -1: kmalloc */
};

static size_t stress_size(struct rnd_state *r)
{
	switch (prandom_below(r, 16)) {
	case 0:
		return 1 + prandom_below(r, 6 * PAGE_SIZE);
	case 1: case 2:
		return 1 + prandom_below(r, 2048);
	default:
		return 1 + prandom_below(r, 200);
	}
}

/* One random operation on slot s; returns 1 if a pattern was damaged. */
static int stress_op(struct rnd_state *r, struct stress_slot *s, struct kmem_cache **caches,
		     const size_t *csize)
{
	int bad = 0;

	if (s->p) {
		bad = !intact(s->p, s->len);
		if (s->cache < 0 && prandom_below(r, 4) == 0) {	/* krealloc */
			size_t n = stress_size(r);
			void *q = krealloc(s->p, n, GFP_KERNEL | __GFP_NOWARN);

			if (q) {
				bad |= !moved_intact(q, min(n, s->len), s->p);
				s->p = q;
				s->len = n;
				fill(q, n);
			}
			return bad;
		}
		if (s->cache < 0)
			kfree(s->p);
		else
			kmem_cache_free(caches[s->cache], s->p);
		s->p = NULL;
		return bad;
	}
	s->cache = (int)prandom_below(r, 6) - 2;	/* -2, -1: kmalloc; 0..3: caches */
	if (s->cache < 0) {
		s->cache = -1;
		s->len = stress_size(r);
		s->p = prandom_below(r, 2) ? kmalloc(s->len, GFP_KERNEL | __GFP_NOWARN)
					   : kzalloc(s->len, GFP_KERNEL | __GFP_NOWARN);
	} else {
		s->len = csize[s->cache];
		s->p = kmem_cache_alloc(caches[s->cache], GFP_KERNEL | __GFP_NOWARN);
	}
	if (s->p)
		fill(s->p, s->len);
	return 0;
}

static struct stress_slot stress_slots[STRESS_SLOTS];
static struct kmem_cache *stress_caches[4];

/* Deferred: frees what random_stress() still holds, and its caches. */
static void stress_release(void *unused)
{
	unsigned int i;

	for (i = 0; i < STRESS_SLOTS; i++) {
		struct stress_slot *s = &stress_slots[i];

		if (s->p && s->cache < 0)
			kfree(s->p);
		else if (s->p)
			kmem_cache_free(stress_caches[s->cache], s->p);
		s->p = NULL;
	}
	for (i = 0; i < 4; i++) {
		if (stress_caches[i])
			kmem_cache_destroy(stress_caches[i]);
		stress_caches[i] = NULL;
	}
}

static void random_stress(struct ktest *t)
{
	static const size_t csize[4] = { 16, 72, 500, 2 * PAGE_SIZE };
	static const char *const names[4] = { "test_stress0", "test_stress1", "test_stress2",
					      "test_stress3" };
	struct stress_slot *slot = stress_slots;
	struct kmem_stats st;
	struct rnd_state r;
	unsigned long bad = 0, live = 0;
	unsigned int i;

	memset(stress_slots, 0, sizeof(stress_slots));
	ktest_defer(t, stress_release, NULL);
	for (i = 0; i < 4; i++) {
		stress_caches[i] = kmem_cache_create(names[i], csize[i], i == 2 ? 32 : 0, 0, NULL,
						     NULL);
		KTEST_ASSERT_NOT_NULL(t, stress_caches[i]);
	}
	prandom_seed(&r, 0xbadcafe);
	for (i = 0; i < STRESS_OPS; i++)
		bad += stress_op(&r, &slot[prandom_below(&r, STRESS_SLOTS)], stress_caches, csize);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_get_stats(&st);
	for (i = 0; i < STRESS_SLOTS; i++) {
		live += slot[i].p ? slot[i].len : 0;
		bad += slot[i].p && !intact(slot[i].p, slot[i].len);
	}
	ktest_info(t, "after %u ops: %lu live bytes in %lu+%lu pages held (%lu kB)", STRESS_OPS,
		   live, st.slab_pages, st.large_pages,
		   (st.slab_pages + st.large_pages) * (PAGE_SIZE / 1024));
	ktest_cancel(t, stress_release, NULL);
	stress_release(NULL);
	KTEST_EXPECT_EQ(t, bad, 0UL);
}

/* ---- the timer interrupt allocates too ------------------------------------- */

struct irq_kmem_state {
	struct timer_list timer;
	struct kmem_cache *cache;
	void *held[8];
	size_t len[8];
	volatile unsigned long ops, bad;
	volatile int stop;
};

static void irq_kmem_fn(unsigned long data)
{
	struct irq_kmem_state *s = (struct irq_kmem_state *)data;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(s->held); k++) {
		if (s->held[k]) {
			s->bad += !intact(s->held[k], s->len[k]);
			if (k % 2)
				kmem_cache_free(s->cache, s->held[k]);
			else
				kfree(s->held[k]);
			s->held[k] = NULL;
		}
		if (s->stop)
			continue;
		s->len[k] = k % 2 ? 48 : 16 + ((s->ops * 37 + k * 101) % 1500);
		s->held[k] = k % 2 ? kmem_cache_alloc(s->cache, GFP_ATOMIC | __GFP_NOWARN)
				   : kmalloc(s->len[k], GFP_ATOMIC | __GFP_NOWARN);
		if (s->held[k])
			fill(s->held[k], s->len[k]);
		s->ops++;
	}
	if (!s->stop)
		mod_timer(&s->timer, jiffies + 1);
}

static void alloc_from_timer_interrupt(struct ktest *t)
{
	static struct irq_kmem_state s;
	unsigned long end, mine = 0, bad = 0;
	void *p;

	memset(&s, 0, sizeof(s));
	s.cache = kmem_cache_create("test_irq", 48, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, s.cache);
	setup_timer(&s.timer, irq_kmem_fn, (unsigned long)&s);
	mod_timer(&s.timer, jiffies + 1);
	end = jiffies + 20;
	while (time_before(jiffies, end)) {
		size_t n = 1 + (mine * 13) % 700;

		p = kmalloc(n, GFP_KERNEL | __GFP_NOWARN);
		if (p) {
			fill(p, n);
			bad += !intact(p, n);
			kfree(p);
		}
		if (++mine % 128 == 0)
			ktest_wait_ticks(1);
	}
	s.stop = 1;
	del_timer(&s.timer);
	irq_kmem_fn((unsigned long)&s);		/* frees what the timer still held */
	KTEST_EXPECT_GT(t, s.ops, 20UL);
	KTEST_EXPECT_EQ(t, bad + s.bad, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(s.cache), 0);
}

/* ---- exhaustion -------------------------------------------------------------- */

/* Memory a case runs out of: every free page but KEEP_PAGES is taken from
 * the page allocator first, in blocks of 16 pages or more (held_pages.h).
 * What is left runs out after some hundreds of allocations, not tens of
 * thousands: the allocators still meet an empty page allocator at every
 * size, and a debug kernel, which validates the whole heap after every
 * call, ends the case in a second, not minutes (quadratic in the objects
 * taken). */
#define KEEP_PAGES	64
#define HOLD_MIN_ORDER	4

/* Allocates size-byte blocks until NULL, chained through their first word;
 * returns the chain. */
static void **exhaust(size_t size, unsigned long *count)
{
	void **chain = NULL, **p;

	while ((p = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		*p = chain;
		chain = p;
		(*count)++;
	}
	return chain;
}

/* Exhausting memory means nothing while fault injection fails allocations:
 * an injected failure ends the loop early, and the smaller objects that
 * then fill memory are not memory running out either. */
static int skip_under_fault_injection(struct ktest *t)
{
	if (!fault_inject_active())
		return 0;
	ktest_skip(t, "fault injection is on: an injected failure is not memory running out");
	return 1;
}

static void release(void **chain)
{
	while (chain) {
		void **next = *chain;

		kfree(chain);
		chain = next;
	}
}

static void exhaustion_and_recovery(struct ktest *t)
{
	static const size_t sizes[] = { 8 * PAGE_SIZE, 256, 64, 16, 1 };
	unsigned long count[ARRAY_SIZE(sizes)] = { 0 }, flags, before;
	void **chain[ARRAY_SIZE(sizes)], **held, *p;
	struct kmem_cache *c;
	unsigned int i;

	if (skip_under_fault_injection(t))
		return;
	local_irq_save(flags);		/* no timer may allocate meanwhile */
	kmem_reclaim();
	before = nr_free_pages();
	c = kmem_cache_create("test_exhaust", 200, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);	/* the runner turns interrupts back on */
	held = hold_free_pages(KEEP_PAGES, HOLD_MIN_ORDER);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		chain[i] = exhaust(sizes[i], &count[i]);
	KTEST_EXPECT_GT(t, count[0], 0UL);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		KTEST_EXPECT_NULL(t, kmalloc(sizes[i], GFP_ATOMIC | __GFP_NOWARN));
	KTEST_EXPECT_NULL(t, kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN));
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		release(chain[i]);
	release_held_pages(held);
	p = kmalloc(64, GFP_KERNEL);		/* recovered */
	KTEST_EXPECT_NOT_NULL(t, p);
	kfree(p);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_EXPECT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	kmem_reclaim();
	KTEST_EXPECT_EQ(t, nr_free_pages(), before);	/* not a page lost */
	local_irq_restore(flags);
	ktest_info(t, "took %lu blocks of %lu bytes, then %lu, %lu, %lu and %lu smaller ones",
		   count[0], (unsigned long)sizes[0], count[1], count[2], count[3], count[4]);
}

/* ---- prefilled sheaves -------------------------------------------------------- */

/* A prefilled sheaf's objects (at least the 8 asked for) come out while
 * memory is exhausted: they were taken at the prefill.  Then NULL: it is
 * depleted.  Every object goes back (the destroy). */
static void prefilled_sheaf_cannot_fail_until_depleted(struct ktest *t)
{
	struct kmem_cache *c;
	struct slab_sheaf *sheaf;
	void **held, **big, **chain = NULL, **taken = NULL, **p;
	unsigned long flags, count = 0;
	unsigned int size, got = 0;

	if (skip_under_fault_injection(t))
		return;
	c = kmem_cache_create("test_prefill", 200, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 8);
	KTEST_ASSERT_NOT_NULL(t, sheaf);
	size = kmem_cache_sheaf_size(sheaf);
	KTEST_EXPECT_GE(t, size, 8u);
	local_irq_save(flags);		/* no timer may allocate meanwhile */
	held = hold_free_pages(KEEP_PAGES, HOLD_MIN_ORDER);
	big = exhaust(8 * PAGE_SIZE, &count);
	while ((p = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		*p = chain;
		chain = p;
	}
	while (got < size && (p = kmem_cache_alloc_from_sheaf(c, GFP_ATOMIC, sheaf)) != NULL) {
		*p = taken;
		taken = p;
		got++;
	}
	KTEST_EXPECT_NULL(t, kmem_cache_alloc_from_sheaf(c, GFP_ATOMIC, sheaf));
	KTEST_EXPECT_NULL(t, kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN));
	release(big);
	release_held_pages(held);
	while (chain) {
		p = *chain;
		kmem_cache_free(c, chain);
		chain = p;
	}
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, got, size);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), 0u);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);
	while (taken) {
		p = *taken;
		kmem_cache_free(c, taken);
		taken = p;
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Refills below, at and beyond a sheaf's first count (a new sheaf then),
 * __GFP_ZERO from a sheaf, an empty prefill, and returns with objects
 * left: they go back (the destroy finds none out).  A sheaf holds at
 * least what was asked (SLUB's sheaves come full, as in Linux). */
static void prefilled_sheaf_refill_and_return(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_refill_sheaf", 96, 0, 0, NULL, NULL);
	struct slab_sheaf *sheaf, *empty;
	unsigned int i, size;
	u8 *obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	empty = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 0);
	KTEST_ASSERT_NOT_NULL(t, empty);
	while ((obj = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, empty)) != NULL)
		kmem_cache_free(c, obj);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(empty), 0u);
	KTEST_EXPECT_EQ(t, kmem_cache_refill_sheaf(c, GFP_KERNEL, &empty, 3), 0);
	KTEST_EXPECT_GE(t, kmem_cache_sheaf_size(empty), 3u);
	kmem_cache_return_sheaf(c, GFP_KERNEL, empty);		/* 3 left: freed */
	sheaf = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 4);
	KTEST_ASSERT_NOT_NULL(t, sheaf);
	size = kmem_cache_sheaf_size(sheaf);
	KTEST_EXPECT_GE(t, size, 4u);
	KTEST_EXPECT_EQ(t, kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 2), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), size);	/* at least 2: kept */
	obj = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sheaf);
	KTEST_ASSERT_NOT_NULL(t, obj);
	memset(obj, 0xa5, 96);
	kmem_cache_free(c, obj);
	KTEST_EXPECT_EQ(t, kmem_cache_refill_sheaf(c, GFP_KERNEL, &sheaf, 100), 0);
	size = kmem_cache_sheaf_size(sheaf);
	KTEST_EXPECT_GE(t, size, 100u);
	for (i = 0; i < 60; i++) {
		obj = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL | __GFP_ZERO, sheaf);
		KTEST_ASSERT_NOT_NULL(t, obj);
		KTEST_EXPECT_NULL(t, memchr_inv(obj, 0, 96));
		memset(obj, 0x5a, 96);
		kmem_cache_free(c, obj);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_sheaf_size(sheaf), size - 60);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sheaf);		/* 40 or more left: freed */
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- bad pointers ------------------------------------------------------------ */

static void bad_pointers_are_reported(struct ktest *t)
{
	unsigned long bad = kmem_bad_free_count, n = 0;
	struct kmem_cache *c = kmem_cache_create("test_badptr", 64, 0, 0, NULL, NULL);
	u8 stack_buf[32];
	u8 *p = kmalloc(100, GFP_KERNEL), *q;
	void *obj;

	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_ASSERT_NOT_NULL(t, c);
	fill(p, 100);
	BAD_CALL(t, NOT_HEAP, &n, kfree(stack_buf));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, INSIDE_KMALLOC, &n, kfree(p + 8));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_TRUE(t, intact(p, 100));		/* nothing lost */
	kfree(p);
	BAD_CALL(t, DOUBLE_KFREE, &n, kfree(p));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	q = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);		/* a large block: both allocators */
	KTEST_ASSERT_NOT_NULL(t, q);
	ktest_expect_reports(t, 2);
	kfree(q + PAGE_SIZE);
	kfree(q);
	kfree(q);
	n += 2;
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	kmem_cache_free(c, obj);
	BAD_CALL(t, DOUBLE_CACHE_FREE, &n, kmem_cache_free(c, obj));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	p = kmalloc(100, GFP_KERNEL);			/* still works */
	KTEST_EXPECT_NOT_NULL(t, p);
	kfree(p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- per-CPU data and accounting ----------------------------------------------- */

static void percpu_allocation(struct ktest *t)
{
	u64 *p = __alloc_percpu(sizeof(u64) * 3, 64);
	unsigned int cpu;

	KTEST_ASSERT_NOT_NULL(t, p);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		u64 *mine = per_cpu_ptr(p, cpu);

		KTEST_ASSERT_NOT_NULL(t, mine);
		KTEST_EXPECT_EQ(t, (uintptr_t)mine % 64, 0u);
		KTEST_EXPECT_EQ(t, mine[0] | mine[1] | mine[2], 0ULL);
		mine[2] = cpu + 1;
	}
	KTEST_EXPECT_NULL(t, per_cpu_ptr(p, NR_CPUS));
	free_percpu(p);
	free_percpu(NULL);
	KTEST_EXPECT_NULL(t, __alloc_percpu(8, 3));
	KTEST_EXPECT_NULL(t, __alloc_percpu(0, 8));
}

/* alloc_percpu(type): a copy of type per CPU, aligned as the type asks. */
static void percpu_of_a_type(struct ktest *t)
{
	struct pair {
		u64 a, b;
	} __aligned(32) *p = alloc_percpu(struct pair);
	unsigned int cpu;

	KTEST_ASSERT_NOT_NULL(t, p);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct pair *mine = per_cpu_ptr(p, cpu);

		KTEST_EXPECT_EQ(t, (uintptr_t)mine % 32, 0u);
		KTEST_EXPECT_EQ(t, mine->a | mine->b, 0ULL);
	}
	free_percpu(p);
}

static void stats_follow_allocations(struct ktest *t)
{
	struct kmem_stats a, b;
	void *small[64], *large;
	unsigned int i;

	kmem_get_stats(&a);
	for (i = 0; i < ARRAY_SIZE(small); i++) {
		small[i] = kmalloc(1000, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, small[i]);
	}
	large = kmalloc(256 * 1024, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, large);
	kmem_get_stats(&b);
	KTEST_EXPECT_GE(t, b.bytes_used, a.bytes_used + 64 * 1000);
	KTEST_EXPECT_GE(t, (b.slab_pages + b.large_pages) * PAGE_SIZE,
			(a.slab_pages + a.large_pages) * PAGE_SIZE + 256 * 1024);
	for (i = 0; i < ARRAY_SIZE(small); i++)
		kfree(small[i]);
	kfree(large);
	kmem_get_stats(&b);
	KTEST_EXPECT_EQ(t, b.bytes_used, a.bytes_used);
}

/* ---- bad calls: each is reported and changes nothing ------------------------- */

/* An object freed to the wrong cache, a kmalloc() block freed to a cache,
 * a cache object given to kfree() or ksize(): reported, and no live object
 * is touched (the next allocations must not overlap them). */
static void wrong_cache_frees_are_reported(struct ktest *t)
{
	struct kmem_cache *small = kmem_cache_create("test_small32", 32, 0, 0, NULL, NULL);
	struct kmem_cache *large = kmem_cache_create("test_large96", 96, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count, n = 0;
	void *a[8], *b, *k, *fresh[16];
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, small);
	KTEST_ASSERT_NOT_NULL(t, large);
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		a[i] = kmem_cache_alloc(small, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, a[i]);
		fill(a[i], 32);
	}
	b = kmem_cache_alloc(large, GFP_KERNEL);
	k = kmalloc(32, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_ASSERT_NOT_NULL(t, k);
	fill(b, 96);
	fill(k, 32);
	BAD_CALL(t, WRONG_CACHE, &n, kmem_cache_free(large, a[3]));	/* 32 bytes as 96 */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, WRONG_CACHE, &n, kmem_cache_free(small, b));	/* 96 bytes as 32 */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, KMALLOC_TO_CACHE, &n, kmem_cache_free(small, k));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, INSIDE_OBJECT, &n, kmem_cache_free(large, (u8 *)b + 32));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, OBJECT_TO_KFREE, &n, kfree(a[5]));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, OBJECT_TO_KFREE, &n, KTEST_EXPECT_EQ(t, ksize(a[5]), 0u));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	for (i = 0; i < ARRAY_SIZE(fresh); i++) {	/* must not land on live objects */
		fresh[i] = kmem_cache_alloc(i % 2 ? large : small, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, fresh[i]);
		memset(fresh[i], 0x5a, i % 2 ? 96 : 32);
	}
	for (i = 0; i < ARRAY_SIZE(a); i++)
		KTEST_EXPECT_TRUE(t, intact(a[i], 32));
	KTEST_EXPECT_TRUE(t, intact(b, 96));
	KTEST_EXPECT_TRUE(t, intact(k, 32));
	for (i = 0; i < ARRAY_SIZE(fresh); i++)
		kmem_cache_free(i % 2 ? large : small, fresh[i]);
	for (i = 0; i < ARRAY_SIZE(a); i++)
		kmem_cache_free(small, a[i]);
	kmem_cache_free(large, b);
	kfree(k);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(small), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(large), 0);
}

static unsigned long dtor_runs;

static void note_dtor(void *obj)
{
	dtor_runs++;
}

/* kmem_cached_bytes(): the objects a per-CPU layer keeps once freed.
 * SLAB's arrays and SLUB-sheaves' sheaves keep what a cache's CPU just
 * freed (at least those 8 objects, with what the refill brought); the
 * others give a freed object back to its slab or heap and say 0.  Under
 * kmem_debug the layer's quarantine holds the 8 objects instead: SLUB's
 * debugged caches have no sheaves, and SLAB's magazines hold what they
 * hold of other frees, so nothing is expected of them then.  The cache's
 * destroy empties its share. */
static void cached_bytes_are_objects_kept_per_cpu(struct ktest *t)
{
	int per_cpu = IS_ENABLED(CONFIG_SLAB) || IS_ENABLED(CONFIG_SLUB_SHEAVES);
	int keeps = per_cpu && !kmem_debug_active();
	struct kmem_cache *c = kmem_cache_create("test_cached", 64, 0, 0, count_ctor, NULL);
	unsigned long before, after;
	void *objs[8];
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	kmem_reclaim();
	before = kmem_cached_bytes();
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
		kmem_cache_free(c, objs[i]);
	}
	after = kmem_cached_bytes();
	if (keeps)
		KTEST_EXPECT_GE(t, after, before + 8 * 64);
	else if (!per_cpu)
		KTEST_EXPECT_EQ(t, after, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_LE(t, kmem_cached_bytes(), before);
}

/* kmem_cache_create_args(): every allocator takes the arguments of
 * kmem_cache_create() from the struct (alignment, constructor) and a
 * sheaf_capacity up to KMEM_SHEAF_CAPACITY_MAX, and refuses one above it
 * (as a bad size: NULL, nothing listed). */
static void create_args_takes_arguments_and_a_capacity(struct ktest *t)
{
	struct kmem_cache_args args = { .align = 64, .ctor = count_ctor,
					 .sheaf_capacity = KMEM_SHEAF_CAPACITY_MAX };
	struct kmem_cache_args over = { .sheaf_capacity = KMEM_SHEAF_CAPACITY_MAX + 1 };
	static void *objs[300];
	struct kmem_cache *c;
	unsigned int i;

	KTEST_EXPECT_NULL(t, kmem_cache_create_args("test_args_over", 48, &over, 0));
	c = kmem_cache_create_args("test_args", 48, &args, 0);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, kmem_cache_size(c), 48UL);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
		KTEST_EXPECT_TRUE(t, IS_ALIGNED((uintptr_t)objs[i], 64));
		KTEST_EXPECT_EQ(t, *(u32 *)objs[i], CTOR_MAGIC);
	}
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	c = kmem_cache_create_args("test_args_over", 48, &args, 0);	/* the name was free */
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A large kmalloc() block, or a page nobody's cache owns, freed to a cache
 * of page-sized objects: reported before the destructor runs or any count
 * changes, so the cache can still be destroyed and the accounting holds. */
static void page_sized_cache_refuses_foreign_pages(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_pages", PAGE_SIZE, 0, 0, NULL, note_dtor);
	unsigned long bad = kmem_bad_free_count, n = 0, page;
	struct kmem_stats before, after;
	void *obj, *big;

	KTEST_ASSERT_NOT_NULL(t, c);
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	big = kmalloc(PAGE_SIZE, GFP_KERNEL);
	page = __get_free_page(GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	KTEST_ASSERT_NOT_NULL(t, big);
	KTEST_ASSERT_TRUE(t, page != 0);
	fill(big, PAGE_SIZE);
	dtor_runs = 0;
	kmem_reclaim();		/* nothing spare left for a shrink timer to give back meanwhile */
	kmem_get_stats(&before);
	BAD_CALL(t, FOREIGN_PAGE_TO_CACHE, &n, kmem_cache_free(c, big));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, FOREIGN_PAGE_TO_CACHE, &n, kmem_cache_free(c, (void *)page));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	BAD_CALL(t, INSIDE_OBJECT, &n, kmem_cache_free(c, (u8 *)obj + 64));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	kmem_get_stats(&after);
	KTEST_EXPECT_EQ(t, dtor_runs, 0UL);
	KTEST_EXPECT_EQ(t, after.slab_pages + after.large_pages,
			before.slab_pages + before.large_pages);
	KTEST_EXPECT_TRUE(t, intact(big, PAGE_SIZE));
	KTEST_EXPECT_EQ(t, ksize(big), PAGE_SIZE);
	kfree(big);
	free_page(page);
	kmem_cache_free(c, obj);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_GE(t, dtor_runs, 1UL);
}

/* kfree() and ksize() of pointers whose preceding bytes are not a header:
 * a cache object that starts a page (the unit before it is in another
 * page), and a page of the page allocator.  Under ASan or valgrind an
 * allocator that read the "header" anyway stops with an invalid read. */
static void kfree_reads_no_header_it_cannot_trust(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_pagestart", 64, PAGE_SIZE, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count, n = 0, page = __get_free_page(GFP_KERNEL);
	void *obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, page != 0);
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	KTEST_EXPECT_EQ(t, (uintptr_t)obj % PAGE_SIZE, 0u);
	BAD_CALL(t, OBJECT_TO_KFREE, &n, KTEST_EXPECT_EQ(t, ksize(obj), 0u));
	BAD_CALL(t, OBJECT_TO_KFREE, &n, kfree(obj));
	BAD_CALL(t, NOT_HEAP, &n, KTEST_EXPECT_EQ(t, ksize((void *)page), 0u));
	BAD_CALL(t, NOT_HEAP, &n, kfree((void *)page));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	kmem_cache_free(c, obj);
	free_page(page);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* kzalloc() zeroes everything ksize() says the caller may use, and so does
 * krealloc() with __GFP_ZERO when it moves the block. */
static void kzalloc_zeroes_the_slack(struct ktest *t)
{
	size_t n;

	for (n = 1; n <= 300; n += 7) {
		u8 *p = kmalloc(n, GFP_KERNEL), *q;

		KTEST_ASSERT_NOT_NULL(t, p);
		memset(p, 0xff, ksize(p));	/* dirty all of it, then free it */
		kfree(p);
		p = kzalloc(n, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_NULL(t, memchr_inv(p, 0, ksize(p)));
		q = krealloc(p, ksize(p) + 40, GFP_KERNEL | __GFP_ZERO);
		KTEST_ASSERT_NOT_NULL(t, q);
		KTEST_EXPECT_NULL(t, memchr_inv(q, 0, ksize(q)));
		kfree(q);
	}
}

/* bytes_used counts what callers were handed, not the allocator's own
 * descriptors: empty caches add nothing to it. */
static void bytes_used_leaves_out_descriptors(struct ktest *t)
{
	static const char *const names[] = { "test_desc0", "test_desc1", "test_desc2",
					     "test_desc3", "test_desc4", "test_desc5" };
	struct kmem_cache *c[ARRAY_SIZE(names)];
	struct kmem_stats before, after;
	unsigned int i;

	kmem_get_stats(&before);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		c[i] = kmem_cache_create(names[i], 40 + 8 * i, 0, 0, NULL, NULL);
		KTEST_ASSERT_NOT_NULL(t, c[i]);
	}
	kmem_get_stats(&after);
	KTEST_EXPECT_EQ(t, after.bytes_used, before.bytes_used);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c[i]), 0);
}

/* A cache destroyed twice, and kmem_cache_destroy() of pointers that are
 * no cache (a kmalloc() block, an object, a stack address): each call is
 * reported and returns -1, changing nothing.  The registry tells where it
 * is built (SLAB, CONFIG_DEBUG_KMEM), SLOB without it by the header of its
 * cache struct, whose tag a destroy clears. */
static void cache_destroyed_twice_is_reported(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_twice", 48, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	void *k = kmalloc(48, GFP_KERNEL), *o;
	u8 stack_buf[64];

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, k);
	o = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	fill(k, 48);
	fill(o, 48);
	ktest_expect_reports(t, 3);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy((struct kmem_cache *)k), -1);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy((struct kmem_cache *)o), -1);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy((struct kmem_cache *)stack_buf), -1);
	KTEST_EXPECT_TRUE(t, intact(k, 48));
	KTEST_EXPECT_TRUE(t, intact(o, 48));
	kmem_cache_free(c, o);
	kfree(k);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	ktest_expect_reports(t, 1);			/* the second destroy */
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 4);
}

/* Cache names.  Where the registry is built (SLAB, and any build with the
 * debugging layer: CONFIG_SLAB_REGISTRY) they are unique: a second cache of
 * a live cache's name is refused (NULL, and a message), and once the first
 * is gone the name is free again.  SLOB's production build keeps no
 * registry: a second cache of a name is a cache of its own, and both work
 * apart. */
static void duplicate_cache_names(struct ktest *t)
{
	struct kmem_cache *a = kmem_cache_create("test_dup", 64, 0, 0, NULL, NULL), *b;
	void *x, *y;

	KTEST_ASSERT_NOT_NULL(t, a);
	b = kmem_cache_create("test_dup", 200, 0, 0, NULL, NULL);
	if (IS_ENABLED(CONFIG_SLAB_REGISTRY)) {
		KTEST_EXPECT_NULL(t, b);
		KTEST_EXPECT_NULL(t, kmem_cache_create("test_dup", 64, 0, 0, NULL, NULL));
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);
		b = kmem_cache_create("test_dup", 64, 0, 0, NULL, NULL);
		KTEST_EXPECT_NOT_NULL(t, b);
		if (b)
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
		return;
	}
	ktest_info(t, "no registry in this build: a second cache of a name is not refused");
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_TRUE(t, a != b);
	KTEST_EXPECT_EQ(t, kmem_cache_size(a), 64u);
	KTEST_EXPECT_EQ(t, kmem_cache_size(b), 200u);
	x = kmem_cache_alloc(a, GFP_KERNEL);
	y = kmem_cache_alloc(b, GFP_KERNEL);
	KTEST_ASSERT_TRUE(t, x && y);
	fill(x, 64);
	fill(y, 200);
	KTEST_EXPECT_TRUE(t, intact(x, 64));
	KTEST_EXPECT_TRUE(t, intact(y, 200));
	kmem_cache_free(a, x);
	kmem_cache_free(b, y);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
}

/* The registry's steps (hash chain links followed) for one create and one
 * destroy of a cache of a new name. */
static unsigned long probe_steps(struct ktest *t)
{
	unsigned long before = registry_steps;
	struct kmem_cache *c = kmem_cache_create("test_probe", 32, 0, 0, NULL, NULL);

	KTEST_EXPECT_NOT_NULL(t, c);
	if (c)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	return registry_steps - before;
}

/* A create's name lookup and a destroy's "is it live?" cost the same with
 * REGISTRY_CACHES more caches live: hash chains, no walk of every cache
 * (a walk would add REGISTRY_CACHES steps).  No timing: the registry
 * counts its steps. */
#define REGISTRY_CACHES	300
static void registry_lookups_do_not_walk_the_caches(struct ktest *t)
{
	static char names[REGISTRY_CACHES][16];
	static struct kmem_cache *many[REGISTRY_CACHES];
	unsigned long few, lots;
	int i, made = 0;

	if (!IS_ENABLED(CONFIG_SLAB_REGISTRY)) {
		ktest_skip(t, "no registry in this build");
		return;
	}
	few = probe_steps(t);
	for (i = 0; i < REGISTRY_CACHES; i++) {
		snprintf(names[i], sizeof(names[i]), "test_reg%d", i);
		many[i] = kmem_cache_create(names[i], 24 + 8 * (i % 4), 0, 0, NULL, NULL);
		made += many[i] != NULL;
	}
	KTEST_EXPECT_EQ(t, made, REGISTRY_CACHES);
	lots = probe_steps(t);
	for (i = 0; i < REGISTRY_CACHES; i++)
		if (many[i])
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(many[i]), 0);
	ktest_info(t, "steps for a create and a destroy: %lu, with %d caches more: %lu", few,
		   REGISTRY_CACHES, lots);
	KTEST_EXPECT_TRUE(t, lots <= few + 8);
}

/* kfree(ZERO_SIZE_PTR) is fine (kmalloc(0) returns it); no cache ever hands
 * it out, so kmem_cache_free() reports it.  NULL is a no-op for both, and
 * krealloc() of a pointer nobody allocated is reported (by ksize()). */
static void special_pointers(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_special", 16, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	u8 stack_buf[64];

	KTEST_ASSERT_NOT_NULL(t, c);
	kfree(ZERO_SIZE_PTR);
	kmem_cache_free(c, NULL);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
	ktest_expect_reports(t, 2);			/* ZERO_SIZE_PTR to a cache, and krealloc() */
	kmem_cache_free(c, ZERO_SIZE_PTR);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
	KTEST_EXPECT_NULL(t, krealloc(stack_buf, 100, GFP_KERNEL));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 2);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- constructors, tiny objects and alignment at the edges -------------------- */

static unsigned long edge_ctors, edge_dtors, edge_null_ctors;

static void edge_ctor(void *obj)
{
	if (!obj) {
		edge_null_ctors++;
		return;
	}
	*(u32 *)obj = CTOR_MAGIC;
	edge_ctors++;
}

static void edge_dtor(void *obj)
{
	edge_dtors++;
}

/* Allocates from c until it fails; returns the objects chained through
 * their second word (the first holds the constructor's mark). */
static void **exhaust_cache(struct kmem_cache *c, unsigned long *count)
{
	void **chain = NULL, **p;

	while ((p = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN)) != NULL) {
		p[1] = chain;
		chain = p;
		(*count)++;
	}
	return chain;
}

/* Constructors when memory runs out, on the heap and for page-sized
 * objects: never run for a failed allocation (nor on NULL), every object
 * handed out is constructed, and every constructed object is destructed
 * by the time the cache is gone. */
static void constructors_when_memory_runs_out(struct ktest *t)
{
	static const size_t sizes[] = { 120, 2 * PAGE_SIZE };
	unsigned long flags, count, filled = 0;
	void **filler, **held;
	unsigned int i;

	if (skip_under_fault_injection(t))
		return;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kmem_cache *c = kmem_cache_create("test_ctor_oom", sizes[i], 0, 0,
							 edge_ctor, edge_dtor);
		void **chain, **next;
		int constructed = 1;

		KTEST_ASSERT_NOT_NULL(t, c);
		edge_ctors = edge_dtors = edge_null_ctors = count = 0;
		local_irq_save(flags);
		held = hold_free_pages(KEEP_PAGES, HOLD_MIN_ORDER);
		filler = exhaust(8 * PAGE_SIZE, &filled);	/* leave 8 pages and bits */
		if (filler) {
			next = *filler;
			kfree(filler);
			filler = next;
			kmem_reclaim();		/* SLAB keeps it in a kmalloc class */
		}
		chain = exhaust_cache(c, &count);
		KTEST_EXPECT_NULL(t, kmem_cache_alloc(c, GFP_ATOMIC | __GFP_NOWARN));
		for (; chain; chain = next) {
			next = chain[1];
			constructed &= *(u32 *)chain == CTOR_MAGIC;
			kmem_cache_free(c, chain);
		}
		release(filler);
		release_held_pages(held);
		local_irq_restore(flags);
		KTEST_EXPECT_GT(t, count, 0UL);
		KTEST_EXPECT_TRUE(t, constructed);
		KTEST_EXPECT_EQ(t, edge_null_ctors, 0UL);
		KTEST_EXPECT_GE(t, edge_ctors, count);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		KTEST_EXPECT_EQ(t, edge_dtors, edge_ctors);
		kmem_reclaim();
	}
}

/* Objects of 1 to 8 bytes (one SLOB unit on i386): distinct and usable;
 * kfree() of one is refused (the unit before it is another object). */
static void tiny_cache_objects(struct ktest *t)
{
	struct kmem_cache *c[8];
	static const char *const names[8] = { "test_tiny1", "test_tiny2", "test_tiny3",
		"test_tiny4", "test_tiny5", "test_tiny6", "test_tiny7", "test_tiny8" };
	unsigned long bad = kmem_bad_free_count, n = 0;
	u8 *obj[8][16];
	unsigned int i, j;

	for (i = 0; i < 8; i++) {
		c[i] = kmem_cache_create(names[i], i + 1, 0, 0, NULL, NULL);
		KTEST_ASSERT_NOT_NULL(t, c[i]);
		for (j = 0; j < 16; j++) {
			obj[i][j] = kmem_cache_alloc(c[i], GFP_KERNEL);
			KTEST_ASSERT_NOT_NULL(t, obj[i][j]);
			memset(obj[i][j], (int)(i * 16 + j), i + 1);
		}
	}
	BAD_CALL(t, OBJECT_TO_KFREE, &n, kfree(obj[3][5]));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 16; j++)
			KTEST_EXPECT_NULL(t, memchr_inv(obj[i][j], (int)(i * 16 + j), i + 1));
	for (i = 0; i < 8; i++) {
		for (j = 0; j < 16; j++)
			kmem_cache_free(c[i], obj[i][j]);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c[i]), 0);
	}
}

/* Alignment above a page: a page-sized object aligned to 4 pages, a small
 * one aligned to 2 pages. */
static void cache_alignment_above_a_page(struct ktest *t)
{
	static const size_t sizes[] = { PAGE_SIZE, 100 };
	static const size_t aligns[] = { 4 * PAGE_SIZE, 2 * PAGE_SIZE };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kmem_cache *c = kmem_cache_create("test_bigalign", sizes[i], aligns[i], 0,
							 NULL, NULL);
		void *obj[3];

		KTEST_ASSERT_NOT_NULL(t, c);
		for (k = 0; k < ARRAY_SIZE(obj); k++) {
			obj[k] = kmem_cache_alloc(c, GFP_KERNEL);
			KTEST_ASSERT_NOT_NULL(t, obj[k]);
			KTEST_EXPECT_EQ(t, (uintptr_t)obj[k] % aligns[i], 0u);
			fill(obj[k], sizes[i]);
		}
		for (k = 0; k < ARRAY_SIZE(obj); k++) {
			KTEST_EXPECT_TRUE(t, intact(obj[k], sizes[i]));
			kmem_cache_free(c, obj[k]);
		}
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	}
}

/* A block freed again after other frees, and an object freed to another
 * cache of its own size: reported where the allocator catches them. */
static void later_double_free_and_same_size_cache(struct ktest *t)
{
	struct kmem_cache *x = kmem_cache_create("test_same_x", 64, 0, 0, NULL, NULL);
	struct kmem_cache *y = kmem_cache_create("test_same_y", 64, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count, n = 0;
	void *a = kmalloc(40, GFP_KERNEL), *b = kmalloc(40, GFP_KERNEL), *o;

	KTEST_ASSERT_NOT_NULL(t, x);
	KTEST_ASSERT_NOT_NULL(t, y);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	kfree(a);
	kfree(b);
	BAD_CALL(t, DOUBLE_FREE_LATER, &n, kfree(a));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	o = kmem_cache_alloc(x, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, o);
	fill(o, 64);
	BAD_CALL(t, WRONG_CACHE_SAME_SIZE, &n, kmem_cache_free(y, o));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_TRUE(t, intact(o, 64));
	kmem_cache_free(x, o);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(x), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(y), 0);
}

/* kmem_cache_alloc() and kmem_cache_free() on a destroyed cache: refused
 * and reported where the allocator catches it, not served from the freed
 * cache struct. */
static void destroyed_cache_is_refused(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_gone", 48, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count, n = 0;
	void *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	BAD_CALL(t, DESTROYED_CACHE, &n, KTEST_EXPECT_NULL(t, kmem_cache_alloc(c, GFP_KERNEL)));
	BAD_CALL(t, DESTROYED_CACHE, &n, kmem_cache_free(c, p));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
}

/* A cache belongs to the allocator, whatever memory it lives in: kfree()
 * of one is reported and changes nothing; the cache goes on working. */
static void kfree_of_a_cache_is_refused(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_kfree_cache", 48, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count, n = 0;
	void *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	BAD_CALL(t, OWN_OBJECT, &n, kfree(c));
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + n);	/* accepted: stop here */
	BAD_CALL(t, OWN_OBJECT, &n, KTEST_EXPECT_EQ(t, ksize(c), 0u));
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + n);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_EXPECT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	KTEST_EXPECT_STREQ(t, kmem_cache_name(c), "test_kfree_cache");
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static const struct ktest_case kmem_api_cases[] = {
	KTEST_CASE(kmalloc_sizes),
	KTEST_CASE(cached_bytes_are_objects_kept_per_cpu),
	KTEST_CASE(create_args_takes_arguments_and_a_capacity),
	KTEST_CASE(ksize_is_usable),
	KTEST_CASE(zero_size_and_null),
	KTEST_CASE(kzalloc_zeroes),
	KTEST_CASE(kcalloc_checks_overflow),
	KTEST_CASE(impossible_sizes_fail),
	KTEST_CASE(krealloc_keeps_contents),
	KTEST_CASE(kstrdup_and_kmemdup),
	KTEST_CASE(cache_objects),
	KTEST_CASE(cache_alignment),
	KTEST_CASE(cache_hwcache_align),
	KTEST_CASE(cache_ctor_dtor),
	KTEST_CASE(cache_page_sized_objects),
	KTEST_CASE(cache_destroy_refuses_live),
	KTEST_CASE(cache_create_rejects_bad_arguments),
	KTEST_CASE(many_objects_live),
	KTEST_CASE(random_stress),
	KTEST_CASE(alloc_from_timer_interrupt),
	KTEST_CASE(exhaustion_and_recovery),
	KTEST_CASE(bad_pointers_are_reported),
	KTEST_CASE(percpu_allocation),
	KTEST_CASE(percpu_of_a_type),
	KTEST_CASE(stats_follow_allocations),
	KTEST_CASE(prefilled_sheaf_cannot_fail_until_depleted),
	KTEST_CASE(prefilled_sheaf_refill_and_return),
	KTEST_CASE(wrong_cache_frees_are_reported),
	KTEST_CASE(page_sized_cache_refuses_foreign_pages),
	KTEST_CASE(kfree_reads_no_header_it_cannot_trust),
	KTEST_CASE(kzalloc_zeroes_the_slack),
	KTEST_CASE(bytes_used_leaves_out_descriptors),
	KTEST_CASE(cache_destroyed_twice_is_reported),
	KTEST_CASE(duplicate_cache_names),
	KTEST_CASE(registry_lookups_do_not_walk_the_caches),
	KTEST_CASE(special_pointers),
	KTEST_CASE(constructors_when_memory_runs_out),
	KTEST_CASE(tiny_cache_objects),
	KTEST_CASE(cache_alignment_above_a_page),
	KTEST_CASE(kfree_of_a_cache_is_refused),
	KTEST_CASE(later_double_free_and_same_size_cache),
	KTEST_CASE(destroyed_cache_is_refused),
	{}
};

static const struct ktest_suite kmem_api_suite = {
	.name = "kmem_api",
	.cases = kmem_api_cases,
	.init = kmem_api_init,
	.exit = kmem_api_exit,
};
KTEST_SUITE(kmem_api_suite);
