/* test_slub.c - self-tests specific to SLUB, both modes (CONFIG_SLUB):
 * slab orders as Linux chooses them (by the CPU count) and the fallback
 * when a page allocation fails, cache merging (aliases with names of
 * their own, into kmalloc() classes too, what never merges, a destroy
 * that counts its own handle's objects and gives a reference back),
 * shrink, the exact count of objects in use, the node's partial list and
 * min_partial (SLUB_TINY: no empty slab kept), the kmalloc classes, a
 * free to a slab whose objects are all free, and the validator finding
 * planted damage.  The per-CPU slabs' own cases are in test_slub_cpu.c.
 * These look inside the caches through mm/slub.h.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/string.h>
#include "../../mm/slub.h"
#include "allocator_suite.h"

static void slub_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

/* The first page of obj's slab (obj an object of c). */
static struct page *slab_of(struct kmem_cache *c, const void *obj)
{
	struct page *page = virt_to_page(obj);
	uintptr_t base;

	if (!page || slub_obj_check(c->target, READ_ONCE(page->flags), obj, &base) < 0)
		return NULL;
	return slab_page(base);
}

/* A cache of its own (never merged), or NULL. */
static struct kmem_cache *own_cache(const char *name, size_t size)
{
	return kmem_cache_create(name, size, 0, SLAB_NO_MERGE, NULL, NULL);
}

/* ---- slab orders --------------------------------------------------------------- */

/* The order Linux's calculate_order() gives objects of size bytes, with 4
 * KiB pages, at the default slub_max_order, for 20 objects a slab (8 to 15
 * CPUs) and for 8 (one CPU), in each mode: worked out by hand, see the
 * comments ("rem": the bytes left; a slab may waste 1/16, then 1/8, then
 * 1/4; SLUB_TINY asks at most as many objects as order 1 holds). */
struct order_case {
	size_t size;
	unsigned int order[2], tiny_order[2];	/* [0]: 20 objects, [1]: 8 */
};

static const unsigned int case_min_objects[2] = { 20, 8 };

static const struct order_case order_cases[] = {
	{ 8, { 0, 0 }, { 0, 0 } },	/* a page holds 20 or 8, rem 0 */
	{ 256, { 1, 0 }, { 1, 0 } },	/* 20: 5 KiB -> 8 KiB, rem 0; 8: 2 KiB -> a page */
	{ 512, { 2, 0 }, { 1, 0 } },	/* 20: 10 KiB -> 16 KiB; TINY asks 16: 8 KiB */
	{ 632, { 2, 2 }, { 1, 1 } },	/* 8 KiB: rem 608 > 512; 16 KiB: 25, rem 584 <= 1024;
					 * TINY: 12 in 8 KiB, rem 608 <= 1/8 */
	{ 1024, { 3, 1 }, { 1, 1 } },	/* 20: 20 KiB -> 32 KiB; 8: 8 KiB */
	{ 3000, { 3, 3 }, { 0, 0 } },	/* 10 in 32 KiB, rem 2768 <= 1/8; TINY: no 2 fit
					 * 8 KiB within 1/4, so one in a page */
	{ 6208, { 3, 3 }, { 1, 1 } },	/* 5 in 32 KiB, rem 1728 <= 1/16; TINY: one in 8 KiB */
	{ 8192, { 3, 3 }, { 1, 1 } },	/* kmalloc-8k's size */
};

static void slab_orders_follow_linux(struct ktest *t)
{
	unsigned int i, k;

	if (PAGE_SIZE != 4096 || slub_max_order != slub_default_max_order || slub_min_objects) {
		ktest_skip(t, "worked out for 4 KiB pages and the default orders");
		return;
	}
	for (k = 0; k < ARRAY_SIZE(case_min_objects); k++)
		for (i = 0; i < ARRAY_SIZE(order_cases); i++) {
			const struct order_case *oc = &order_cases[i];
			unsigned int want = IS_ENABLED(CONFIG_SLUB_TINY) ? oc->tiny_order[k] :
									   oc->order[k];
			struct kmem_cache *c;

			slub_min_objects = case_min_objects[k];	/* as slub_min_objects= */
			c = own_cache("test_order", oc->size);
			slub_min_objects = 0;
			KTEST_ASSERT_NOT_NULL(t, c);
			KTEST_EXPECT_EQ(t, c->size, oc->size);
			KTEST_EXPECT_EQ(t, c->oo[0].order, want);
			KTEST_EXPECT_EQ(t, c->oo[0].objects,
					(unsigned int)((PAGE_SIZE << want) / oc->size));
			KTEST_EXPECT_EQ(t, c->oo[1].order, get_order(oc->size));
			KTEST_EXPECT_LE(t, c->oo[0].order, slub_max_order);
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		}
	ktest_info(t, "slub_max_order %u (default %u)", slub_max_order, slub_default_max_order);
}

/* Without slub_min_objects=, a slab should hold 4 * (fls(CPUs) + 1)
 * objects, CPUs being those the firmware lists: 1024-byte objects take
 * order 1 on one CPU (8 objects: 8 KiB), 2 on 2 to 7 (12 or 16: 16 KiB)
 * and 3 on 8 or more (20 and up: 32 KiB); SLUB_TINY's order 1 holds only
 * 8 of them whatever the count. */
static void min_objects_follow_the_cpus(struct ktest *t)
{
	unsigned int cpus = num_possible_cpus(), want;
	struct kmem_cache *c;

	if (PAGE_SIZE != 4096 || slub_max_order != slub_default_max_order || slub_min_objects) {
		ktest_skip(t, "worked out for 4 KiB pages and the default orders");
		return;
	}
	want = IS_ENABLED(CONFIG_SLUB_TINY) ? 1 : cpus == 1 ? 1 : cpus < 8 ? 2 : 3;
	c = own_cache("test_cpus_order", 1024);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, c->oo[0].order, want);
	ktest_info(t, "%u possible CPU(s): 1024-byte objects in slabs of order %u", cpus,
		   c->oo[0].order);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A preferred order the page allocator refuses: the slab comes at the
 * fallback order (its pages PG_min_order), with as many objects as that
 * holds, and goes back whole.  A first slab's objects are taken first, so
 * that the failure meets the next slab: the CPU's cache is set up by then
 * (with sheaves, its first allocation also takes a sheaf, a kmalloc()
 * block that may need a page of its own). */
static void order_falls_back_when_pages_fail(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_fallback", 3000);
	unsigned long flags, before;
	unsigned int i, n = 0;
	void *held[32], *obj = NULL;
	struct page *page;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (c->oo[0].order == c->oo[1].order || c->oo[0].objects > ARRAY_SIZE(held)) {
		ktest_skip(t, "one order only (%u) for %zu-byte objects here", c->oo[0].order,
			   c->size);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	local_irq_save(flags);
	while (n < c->oo[0].objects && (held[n] = kmem_cache_alloc(c, GFP_ATOMIC)))
		n++;
	before = (unsigned long)atomic_long_read(&c->nr_pages);
	if (n == c->oo[0].objects) {
		page_alloc_fail_nth(1);		/* the preferred order's block */
		obj = kmem_cache_alloc(c, GFP_ATOMIC);
		page_alloc_fail_nth(0);
	}
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, n, c->oo[0].objects);
	KTEST_ASSERT_NOT_NULL(t, obj);
	page = slab_of(c, obj);
	KTEST_ASSERT_NOT_NULL(t, page);
	KTEST_EXPECT_TRUE(t, READ_ONCE(page->flags) & PG_min_order);
	KTEST_EXPECT_EQ(t, slab_objects(c, page), c->oo[1].objects);
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&c->nr_pages) - before,
			1UL << c->oo[1].order);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	ktest_info(t, "order %u refused: a slab of order %u, %u object(s)", c->oo[0].order,
		   c->oo[1].order, c->oo[1].objects);
	kmem_cache_free(c, obj);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, held[i]);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- merging --------------------------------------------------------------------- */

/* Two caches of one stride (64 and 62 bytes, 64 with the free pointer's
 * word) share the slabs of kmalloc-64: each an alias with its own name
 * and size, each free to either a free to the same cache. */
static void merged_caches_are_aliases(struct ktest *t)
{
	struct kmem_cache *a = kmem_cache_create("test_merge_a", 64, 0, 0, NULL, NULL);
	struct kmem_cache *b = kmem_cache_create("test_merge_b", 62, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	void *x, *y;

	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_TRUE(t, is_alias(b));
	KTEST_EXPECT_PTR_EQ(t, b->target, a->target);
	KTEST_EXPECT_STREQ(t, kmem_cache_name(b), "test_merge_b");
	KTEST_EXPECT_EQ(t, kmem_cache_size(b), 62u);
	KTEST_EXPECT_NULL(t, kmem_cache_create("test_merge_b", 64, 0, 0, NULL, NULL));
	x = kmem_cache_alloc(b, GFP_KERNEL);
	y = kmem_cache_alloc(a, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, x);
	KTEST_ASSERT_NOT_NULL(t, y);
	KTEST_EXPECT_PTR_EQ(t, READ_ONCE(virt_to_page(x)->slab_cache), a->target);
	kmem_cache_free(a, x);			/* one cache: no bad call */
	kmem_cache_free(b, y);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);
}

/* An alias may be larger than the cache it shares (1004 bytes in the
 * stride of a 1001-byte cache): its zeroed objects are zero to its own
 * size, and a memory checker lets its caller use all of them. */
static void an_alias_promises_its_own_size(struct ktest *t)
{
	struct kmem_cache *a = kmem_cache_create("test_alias_1001", 1001, 0, 0, NULL, NULL);
	struct kmem_cache *b = kmem_cache_create("test_alias_1004", 1004, 0, 0, NULL, NULL);
	unsigned int i;
	u8 *p;

	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	if (b->target != a->target) {	/* slab_nomerge, or kmem_debug= */
		ktest_skip(t, "the two caches did not merge");
		kmem_cache_destroy(b);
		kmem_cache_destroy(a);
		return;
	}
	for (i = 0; i < 4; i++) {
		p = kmem_cache_alloc(b, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		memset(p, 0xa5, 1004);		/* the whole object, as promised */
		kmem_cache_free(b, p);
		p = kmem_cache_alloc(b, GFP_KERNEL | __GFP_ZERO);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_NULL(t, memchr_inv(p, 0, 1004));
		kmem_cache_free(b, p);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);
}

/* include/tiny/slab.h's promise for merged caches: an object of one freed
 * to the other is freed, not reported, and counted against the cache it
 * was freed to, so the cache it came from refuses its destroy. */
static void a_free_to_an_alias_counts_against_it(struct ktest *t)
{
	struct kmem_cache *a = kmem_cache_create("test_cross_a", 48, 0, 0, NULL, NULL);
	struct kmem_cache *b = kmem_cache_create("test_cross_b", 46, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	void *x, *y;

	KTEST_ASSERT_TRUE(t, a && b);
	if (kmem_cache_slabs_of(a) != kmem_cache_slabs_of(b)) {
		ktest_skip(t, "the two caches did not merge");
		kmem_cache_destroy(b);
		kmem_cache_destroy(a);
		return;
	}
	x = kmem_cache_alloc(a, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, x);
	kmem_cache_free(b, x);			/* one cache: freed, not reported */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(a), 1L);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(b), -1L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), -1);	/* where the free is seen */
	y = kmem_cache_alloc(b, GFP_KERNEL);	/* the same mistake the other way */
	KTEST_ASSERT_NOT_NULL(t, y);
	kmem_cache_free(a, y);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
}

/* A new cache looks for one to merge into in its stride's bucket alone:
 * with MERGE_CACHES caches of other strides live (none of which it may
 * merge with), its search takes a few more steps (those that share its
 * bucket: a 64th of them, or a 32nd where a word is 4 bytes and these
 * strides are multiples of 8), not a walk of them all.  No timing: the
 * search counts its steps. */
#define MERGE_CACHES	300
static unsigned long merge_probe_steps(struct ktest *t)
{
	unsigned long before = slub_merge_steps;
	struct kmem_cache *c = kmem_cache_create("test_merge_probe", 200, 0, 0, NULL, NULL);

	KTEST_EXPECT_NOT_NULL(t, c);
	if (c)
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	return slub_merge_steps - before;
}

static void merge_search_does_not_walk_the_caches(struct ktest *t)
{
	static struct kmem_cache *many[MERGE_CACHES];
	static char names[MERGE_CACHES][16];
	unsigned long few, lots;
	int i, made = 0;

	few = merge_probe_steps(t);
	for (i = 0; i < MERGE_CACHES; i++) {	/* strides 2 KiB + 8 i: none of 200 bytes */
		snprintf(names[i], sizeof(names[i]), "test_mrg%d", i);
		many[i] = kmem_cache_create(names[i], 2048 + 8 * (size_t)i, 0, 0, NULL, NULL);
		made += many[i] != NULL;
	}
	KTEST_EXPECT_EQ(t, made, MERGE_CACHES);
	lots = merge_probe_steps(t);
	for (i = 0; i < MERGE_CACHES; i++)
		if (many[i])
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(many[i]), 0);
	ktest_info(t, "merge search steps for a new cache: %lu, with %d caches more: %lu", few,
		   MERGE_CACHES, lots);
	KTEST_EXPECT_TRUE(t, lots <= few + MERGE_CACHES / 8);	/* a walk: MERGE_CACHES more */
}

/* As in Linux, a cache merges into the kmalloc() class of its stride; its
 * destroy still counts its own objects (not the class's) and refuses
 * while one is out. */
static void caches_merge_into_kmalloc_classes(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_km32", 32, 0, 0, NULL, NULL);
	unsigned long bad = kmem_bad_free_count;
	void *k = kmalloc(32, GFP_KERNEL), *obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, k);
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	KTEST_EXPECT_TRUE(t, is_alias(c));
	KTEST_EXPECT_PTR_EQ(t, c->target, READ_ONCE(virt_to_page(k)->slab_cache));
	KTEST_EXPECT_TRUE(t, c->target->common.flags & CFLGS_KMALLOC);
	KTEST_EXPECT_TRUE(t, READ_ONCE(virt_to_page(obj)->flags) & PG_kmalloc);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 1L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);	/* its object is out */
	kmem_cache_free(c, obj);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);	/* kmalloc-32's block is not its */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad);
	kfree(k);
}

/* The creator's destroy while an alias lives gives its reference back:
 * the name is free again, the slabs stay (named after the alias).  Each
 * handle's destroy counts its own objects: refused while one is out. */
static void each_destroy_counts_its_own_objects(struct ktest *t)
{
	struct kmem_cache *a = kmem_cache_create("test_share_a", 80, 0, 0, NULL, NULL);
	struct kmem_cache *b = kmem_cache_create("test_share_b", 80, 0, 0, NULL, NULL);
	struct kmem_cache *t_ab, *a2;
	unsigned long flags;
	long in_use;
	void *x, *y;

	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);
	t_ab = b->target;
	if (t_ab != a->target || t_ab->refcount != 2) {	/* a leftover cache shares them */
		ktest_skip(t, "the two caches did not merge alone (%d handles)", t_ab->refcount);
		kmem_cache_destroy(a);
		kmem_cache_destroy(b);
		return;
	}
	x = kmem_cache_alloc(a, GFP_KERNEL);
	y = kmem_cache_alloc(b, GFP_KERNEL);
	KTEST_ASSERT_TRUE(t, x && y);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), -1);	/* x is out */
	kmem_cache_free(a, x);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a), 0);	/* b keeps the slabs */
	a2 = kmem_cache_create("test_share_a", 200, 0, 0, NULL, NULL);	/* the name is free */
	KTEST_ASSERT_NOT_NULL(t, a2);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(a2), 0);
	if (t_ab == a)			/* a held the slabs: named after b now */
		KTEST_EXPECT_STREQ(t, t_ab->common.name, "test_share_b");
	spin_lock_irqsave(&slab_caches_lock, flags);
	in_use = slub_target_in_use(t_ab);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	KTEST_EXPECT_EQ(t, in_use, 1L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), -1);	/* y is out */
	kmem_cache_free(b, y);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(b), 0);
}

static void nothing(void *obj)
{
	(void)obj;
}

/* Never merged: caches with a constructor or destructor, SLAB_NO_MERGE
 * (kmem_debug='s debugged caches), an alignment the stride does not keep,
 * and the allocator's own cache of caches as the other side. */
static void some_caches_never_merge(struct ktest *t)
{
	struct kmem_cache *plain = kmem_cache_create("test_nm_plain", 48, 0, 0, NULL, NULL);
	struct kmem_cache *ctor = kmem_cache_create("test_nm_ctor", 48, 0, 0, NULL, nothing);
	struct kmem_cache *nomerge = kmem_cache_create("test_nm_flag", 48, 0, SLAB_NO_MERGE, NULL,
						       NULL);
	struct kmem_cache *aligned = kmem_cache_create("test_nm_align", 48, 32, 0, NULL, NULL);
	struct kmem_cache *own = kmem_cache_create("test_nm_own", sizeof(struct kmem_cache), 0,
						   SLAB_HWCACHE_ALIGN, NULL, NULL);

	KTEST_ASSERT_TRUE(t, plain && ctor && nomerge && aligned && own);
	KTEST_EXPECT_FALSE(t, is_alias(ctor));
	KTEST_EXPECT_FALSE(t, is_alias(nomerge));
	KTEST_EXPECT_PTR_NE(t, aligned->target, plain->target);	/* 48 is no multiple of 32 */
	KTEST_EXPECT_PTR_NE(t, own->target, &cache_cache);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(own), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(aligned), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(nomerge), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(ctor), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(plain), 0);
}

/* __GFP_ZERO on a cache with a constructor: refused and counted, as in
 * SLAB (the shared refuse_zero_with_ctor()); without it the cache works. */
static void zeroing_constructed_object_refused(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_zero_ctor", 48, 0, 0, nothing, NULL);
	long refused = atomic_long_read(&kmem_zero_ctor_refusals);
	void *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_NULL(t, kmem_cache_alloc(c, GFP_KERNEL | __GFP_ZERO));	/* "...: refused" */
	KTEST_EXPECT_EQ(t, atomic_long_read(&kmem_zero_ctor_refusals), refused + 1);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_EXPECT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- counts, shrink, the partial list --------------------------------------------- */

#define MANY	1000

static void *objs[MANY];

/* Allocates n objects of c into objs[]: 1, or 0 if one failed (the
 * others are then left out, so that a failure injected by a debug
 * kernel's fault injection leaks but breaks nothing). */
static int alloc_many(struct ktest *t, struct kmem_cache *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KTEST_EXPECT_NOT_NULL(t, objs[i]);
		if (!objs[i])
			return 0;
	}
	return 1;
}

static void free_many(struct kmem_cache *c, unsigned int from, unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		kmem_cache_free(c, objs[i]);
		objs[i] = NULL;
	}
}

/* The objects in use are exact: no walk, whatever list the free objects
 * are on; destroy refuses while any is out. */
static void objects_in_use_are_exact(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_inuse", 200);

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, alloc_many(t, c, 100));
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 100L);
	free_many(c, 0, 37);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 63L);
	kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 63L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	free_many(c, 37, 100);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* kmem_cache_shrink() gives every empty slab back, min_partial or not,
 * and says how many pages. */
static void shrink_gives_empty_slabs_back(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_shrink", 100);
	long pages;
	int freed;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, alloc_many(t, c, 300));
	free_many(c, 0, 300);
	pages = atomic_long_read(&c->nr_pages);
	freed = kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, (long)freed, pages);
	KTEST_EXPECT_EQ(t, atomic_long_read(&c->nr_slabs), 0L);
	KTEST_EXPECT_EQ(t, c->nr_partial, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	ktest_info(t, "%d pages given back", freed);
}

/* Empty slabs kept on the partial list: min_partial of them (5 to 10 by
 * object size as in Linux: 5 for 1 KiB; SLUB_TINY none: the free that
 * empties a slab gives it back).  A slab that empties while on the list
 * counts itself against min_partial (Linux's __slab_free()): where objects
 * reach their slabs one at a time (sheaves flushed) min_partial - 1 stay;
 * with CPU slabs the frozen ones empty off the list and min_partial do. */
static void partial_list_keeps_min_partial(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_minpartial", 1024);
	unsigned long min = IS_ENABLED(CONFIG_SLUB_TINY) ? 0 : 5;
	unsigned long want = min && !slub_freezes_full_slabs ? min - 1 : min;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, c->min_partial, min);
	KTEST_ASSERT_TRUE(t, alloc_many(t, c, 300));	/* 10 slabs of 32 */
	KTEST_ASSERT_GE(t, (unsigned long)atomic_long_read(&c->nr_slabs), want + 2);
	free_many(c, 0, 300);
	slub_flush(c);			/* the CPU's slabs go back to the node */
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&c->nr_slabs), want);
	KTEST_EXPECT_EQ(t, c->nr_partial, want);
	KTEST_EXPECT_EQ(t, slub_objects_in_use(c), 0L);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A free to a slab whose objects are all free (it sits empty on the
 * partial list) is refused: its count would go below zero.  With sheaves
 * the free goes to this CPU's sheaf, which checks no slab's count, and the
 * slab refuses it when the sheaf is flushed to it (reported then). */
static void free_to_an_empty_slab_refused(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_emptyslab", 128);
	unsigned long bad = kmem_bad_free_count;
	struct page *page;
	void *obj;
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	if (!c->min_partial) {
		ktest_skip(t, "min_partial 0: no empty slab is kept");
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		return;
	}
	KTEST_ASSERT_TRUE(t, alloc_many(t, c, 300));
	free_many(c, 0, 300);
	slub_flush(c);
	KTEST_ASSERT_NE(t, c->nr_partial, 0UL);
	page = list_first_entry(&c->partial, struct page, lru);	/* an empty one kept */
	KTEST_ASSERT_EQ(t, state_inuse(slab_state(page)), 0u);
	obj = slab_obj(c, slab_base(page), 0);
	for (i = 1; state_freelist(c, slab_base(page), slab_state(page)) == obj && i < 3; i++)
		obj = slab_obj(c, slab_base(page), i);	/* not the head: that is another case */
	ktest_expect_reports(t, 1);
	kmem_cache_free(c, obj);
	slub_flush(c);			/* with sheaves the slab sees it here */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 1);
	KTEST_EXPECT_EQ(t, state_inuse(slab_state(page)), 0u);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- kmalloc ------------------------------------------------------------------------- */

static void kmalloc_classes_are_linux(struct ktest *t)
{
	static const size_t classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048,
					  4096, 8192 };
	size_t size, class = 0;
	unsigned int i = 0;

	for (size = 1; size <= 2 * PAGE_SIZE; size++) {
		void *p = kmalloc(size, GFP_KERNEL);

		while (i < ARRAY_SIZE(classes) && classes[i] < size)
			i++;
		class = i < ARRAY_SIZE(classes) ? classes[i] : size;	/* 16 KiB pages: more */
		KTEST_ASSERT_NOT_NULL(t, p);
		if (PAGE_SIZE == 4096)
			KTEST_EXPECT_EQ(t, ksize(p), class);
		KTEST_EXPECT_TRUE(t, READ_ONCE(virt_to_page(p)->flags) & PG_kmalloc);
		KTEST_EXPECT_PTR_EQ(t, virt_to_page(p)->slab_cache, kmalloc_class(size));
		kfree(p);
		if (size > 256 && size < PAGE_SIZE / 2)
			size += 7;	/* a few sizes a class above 256 are enough */
	}
	KTEST_EXPECT_EQ(t, kmalloc_max_size, 2 * PAGE_SIZE);
	KTEST_EXPECT_NULL(t, kmalloc_class(2 * PAGE_SIZE + 1));
	size = 2 * PAGE_SIZE + 1;
	{
		void *p = kmalloc(size, GFP_KERNEL);

		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, ksize(p), 3 * PAGE_SIZE);	/* a large block of exact pages */
		KTEST_EXPECT_FALSE(t, READ_ONCE(virt_to_page(p)->flags) & PG_slab);
		kfree(p);
	}
}

/* ---- the validator --------------------------------------------------------------------- */

/* A slab on the partial list with a free pointer bent out of the slab, and
 * with a wrong count: each found; then put back. */
static void validator_finds_damage(struct ktest *t)
{
	struct kmem_cache *c = own_cache("test_damage", 100);
	unsigned long flags;
	struct page *page;
	void **fp, *saved;
	u32 s;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, alloc_many(t, c, 2 * c->oo[0].objects));
	free_many(c, 1, 2 * c->oo[0].objects);	/* objs[0] keeps its slab */
	slub_flush(c);
	local_irq_save(flags);
	KTEST_ASSERT_EQ(t, kmem_validate(), 0);
	page = slab_of(c, objs[0]);
	KTEST_ASSERT_NOT_NULL(t, page);
	s = slab_state(page);
	KTEST_ASSERT_EQ(t, state_inuse(s), 1u);
	KTEST_ASSERT_NE(t, state_free(s), SLUB_FREE_NONE);
	fp = (void **)((char *)state_freelist(c, slab_base(page), s) + c->offset);
	saved = *fp;
	*fp = (char *)objs[0] + 1;			/* into an object */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	*fp = saved;
	slab_state_set(page, make_state(state_free(s), 2, 0));	/* one object too many in use */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	slab_state_set(page, s);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	local_irq_restore(flags);
	free_many(c, 0, 1);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static const struct ktest_case slub_cases[] = {
	KTEST_CASE(slab_orders_follow_linux),
	KTEST_CASE(min_objects_follow_the_cpus),
	KTEST_CASE(order_falls_back_when_pages_fail),
	KTEST_CASE(merged_caches_are_aliases),
	KTEST_CASE(an_alias_promises_its_own_size),
	KTEST_CASE(a_free_to_an_alias_counts_against_it),
	KTEST_CASE(caches_merge_into_kmalloc_classes),
	KTEST_CASE(merge_search_does_not_walk_the_caches),
	KTEST_CASE(each_destroy_counts_its_own_objects),
	KTEST_CASE(some_caches_never_merge),
	KTEST_CASE(zeroing_constructed_object_refused),
	KTEST_CASE(objects_in_use_are_exact),
	KTEST_CASE(shrink_gives_empty_slabs_back),
	KTEST_CASE(partial_list_keeps_min_partial),
	KTEST_CASE(free_to_an_empty_slab_refused),
	KTEST_CASE(kmalloc_classes_are_linux),
	KTEST_CASE(validator_finds_damage),
	{}
};

static const struct ktest_suite slub_suite = {
	.name = "slub",
	.cases = slub_cases,
	.init = allocator_suite_init,
	.exit = slub_exit,
};
KTEST_SUITE(slub_suite);
