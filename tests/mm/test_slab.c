/* test_slab.c - self-tests specific to SLAB (mm/slab.c).
 *
 * Slab layout (orders as Linux 2.6 chose them, also on a fragmented page
 * allocator; descriptors on or off the slab, colouring), object caching
 * (constructor once per object, destructor at slab destruction, no
 * __GFP_ZERO on constructed objects), the per-CPU magazines and their
 * batches, the reap timer and kmem_cache_shrink(), the slabinfo counters,
 * the kmalloc classes and large blocks, the bad frees the fast path
 * catches and those a flush finds, the allocator's own objects in internal
 * caches, the validator, what other CPUs may do meanwhile, and the
 * failure paths, reached by making page allocations fail.  These look
 * inside the caches through mm/slab.h.
 */
#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/slab.h"
#include "allocator_suite.h"

static void slab_exit(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

static size_t slab_bytes(const struct kmem_cache *c)
{
	return PAGE_SIZE << c->gfporder;
}

/* Bytes of management on the slab itself. */
static size_t on_slab_mgmt(const struct kmem_cache *c)
{
	return OFF_SLAB(c) ? 0 : c->slab_size;
}

/* This CPU's magazine of c as a case looks at it between calls, with
 * interrupts on: cpu_cache() asserts interrupts off (a swap by IPI could
 * replace the magazine meanwhile), which only the cases that swap
 * magazines themselves could run into, and they look again afterwards. */
static struct array_cache *this_magazine(struct kmem_cache *c)
{
	return c->array[smp_processor_id()];
}

static struct slab_counts counts_of(struct kmem_cache *c)
{
	struct slab_counts n;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	cache_get_counts(c, &n);
	spin_unlock_irqrestore(&c->lock, flags);
	return n;
}

/* The test's own estimate, by counting up: objects of size bs in bytes,
 * with an on-slab descriptor or not; *mgmt gets the descriptor's bytes. */
static unsigned int estimate(size_t bytes, size_t bs, size_t align, int on_slab, size_t *mgmt)
{
	unsigned int n = 0;

	for (;;) {
		size_t m = on_slab ? ALIGN(sizeof(struct slab) + (n + 1) * sizeof(kmem_bufctl_t),
					   align) : 0;

		if ((n + 1) * bs + m > bytes)
			break;
		n++;
	}
	*mgmt = on_slab && n ? ALIGN(sizeof(struct slab) + n * sizeof(kmem_bufctl_t), align) : 0;
	return n;
}

/* ---- layout --------------------------------------------------------------- */

/* The test's own cost of a slab of 2^order pages for objects of c's size:
 * its bytes beside the objects (tail, descriptor, or an off-slab
 * descriptor's internal object); *n gets the objects, 0 if none fit. */
static size_t fit_cost(struct kmem_cache *c, unsigned int order, int off_slab, unsigned int *n)
{
	size_t bytes = PAGE_SIZE << order, m;
	struct kmem_cache *d;

	*n = estimate(bytes, c->buffer_size, c->align, !off_slab, &m);
	if (!*n || !off_slab)
		return bytes - *n * c->buffer_size;
	d = kmem_find_internal_cachep(sizeof(struct slab) + *n * sizeof(kmem_bufctl_t));
	if (!d)
		*n = 0;
	return d ? bytes - *n * c->buffer_size + d->buffer_size : 0;
}

/* Does (cost, order) spend at most half the share of its slab that
 * (best, best_order) does (the same order: less)? */
static int spends_less(size_t cost, unsigned int order, size_t best, unsigned int best_order)
{
	if (order == best_order)
		return cost < best;
	return (cost << best_order) * 2 <= (best << order);
}

/* Checks c's fallback shape: the smallest order that holds an object, on
 * or off the slab, whichever spends less there (the test's own count),
 * if that order is below the cache's; else none (the cache's own shape). */
static void check_fallback_layout(struct ktest *t, struct kmem_cache *c)
{
	unsigned int o, n_on = 0, n_off = 0, off;
	size_t cost_on = 0, cost_off = 0;

	for (o = 0; o < MAX_ORDER; o++) {
		cost_on = fit_cost(c, o, 0, &n_on);
		cost_off = fit_cost(c, o, 1, &n_off);
		if (n_on || n_off)
			break;
	}
	KTEST_ASSERT_LE(t, o, c->gfporder);
	if (o == c->gfporder) {
		KTEST_EXPECT_FALSE(t, has_fallback(c));
		KTEST_EXPECT_EQ(t, c->fallback.order, c->gfporder);
		KTEST_EXPECT_EQ(t, c->fallback.num, c->num);
		return;
	}
	off = !n_on || (n_off && cost_off < cost_on);
	KTEST_EXPECT_TRUE(t, has_fallback(c));
	KTEST_EXPECT_EQ(t, c->fallback.order, o);
	KTEST_EXPECT_EQ(t, c->fallback.num, off ? n_off : n_on);
	KTEST_EXPECT_EQ(t, (unsigned int)(c->fallback.slabp_cache != NULL), off);
	KTEST_EXPECT_LT(t, c->fallback.num, c->num);
	KTEST_EXPECT_LE(t, (size_t)c->fallback.num * c->buffer_size +
			(off ? 0 : c->fallback.slab_size), PAGE_SIZE << o);
}

/* ", fallback order O, N objects" if c has a fallback shape, else "". */
static const char *fallback_text(const struct kmem_cache *c)
{
	static char buf[48];

	if (!has_fallback(c))
		return "";
	snprintf(buf, sizeof(buf), "; fallback order %u, %u objects%s", c->fallback.order,
		 c->fallback.num, c->fallback.slabp_cache ? " off-slab" : "");
	return buf;
}

/* Checks c's layout: the objects its order holds with its descriptor
 * placement; no order up to SLAB_FIT_ORDER (or the break) and placement
 * that spends a smaller share of the slab beside its objects (at a larger
 * order, half or less); and below its order, none that holds an object
 * unless below break_order while wasting more than 1/8 (Linux 2.6's
 * rule) or spending more. */
static void check_layout(struct ktest *t, struct kmem_cache *c, unsigned int break_order)
{
	size_t bytes = slab_bytes(c), used = c->num * c->buffer_size + on_slab_mgmt(c), left, m;
	unsigned int o, n, limit = max_t(unsigned int, break_order, SLAB_FIT_ORDER), chosen_n;
	size_t chosen, cost;
	int off;

	KTEST_ASSERT_LE(t, used, bytes);
	left = bytes - used;
	KTEST_EXPECT_EQ(t, c->num * c->buffer_size + on_slab_mgmt(c) + left, bytes);
	/* placed off the slab, a descriptor moves into the tail if it fits there */
	chosen = fit_cost(c, c->gfporder, 0, &chosen_n);
	if (chosen_n != c->num)
		chosen = fit_cost(c, c->gfporder, 1, &chosen_n);
	KTEST_EXPECT_EQ(t, chosen_n, c->num);
	KTEST_EXPECT_EQ(t, c->num, estimate(bytes, c->buffer_size, c->align, !OFF_SLAB(c), &m));
	KTEST_EXPECT_EQ(t, c->slab_size, OFF_SLAB(c) ?
			sizeof(struct slab) + c->num * sizeof(kmem_bufctl_t) : m);
	KTEST_EXPECT_EQ(t, c->colour, left / c->colour_off);
	KTEST_EXPECT_EQ(t, c->colour_off, max_t(size_t, L1_CACHE_BYTES, c->align));
	for (o = 0; o <= limit && o < MAX_ORDER; o++) {
		for (off = 0; off < 2; off++) {
			size_t mo, waste;

			cost = fit_cost(c, o, off, &n);
			if (!n || (o == c->gfporder && n == c->num))
				continue;
			estimate(PAGE_SIZE << o, c->buffer_size, c->align, !off, &mo);
			waste = (PAGE_SIZE << o) - n * c->buffer_size - mo;
			if (o < c->gfporder && o < break_order && waste * 8 > (PAGE_SIZE << o))
				continue;	/* Linux's rule grew past it */
			KTEST_EXPECT_FALSE(t, spends_less(cost, o, chosen, c->gfporder));
		}
	}
	check_fallback_layout(t, c);
	ktest_info(t, "%6zu bytes: order %u, %3u objects, %5zu bytes left, %2u colours, %s%s",
		   c->buffer_size, c->gfporder, c->num, left, c->colour,
		   OFF_SLAB(c) ? "off-slab" : "on-slab", fallback_text(c));
}

static void order_follows_waste_rule(struct ktest *t)
{
	static const size_t sizes[] = {
		8, 24, 40, 100, 200, 333, 450, 500, 700, 1000, 1100, 1500, 2000, 3000,
		PAGE_SIZE - 100, PAGE_SIZE + 8, 5000, 9000, 20000, 40000, 70000, 200000,
	};
	unsigned long ram_pages = totalram_pages() + nr_reserved_pages();
	unsigned int i, boot_break = slab_break_order, b;

	KTEST_EXPECT_EQ(t, boot_break, ram_pages > (32UL << 20) / PAGE_SIZE ? 1u : 0u);
	for (b = 0; b <= 1; b++) {		/* Linux's two break orders */
		ktest_info(t, "break order %u%s:", b, b == boot_break ? " (this machine's)" : "");
		slab_break_order = b;		/* read when a cache is created */
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			struct kmem_cache *c = kmem_cache_create("test_order", sizes[i], 0, 0,
								 NULL, NULL);

			KTEST_EXPECT_NOT_NULL(t, c);
			if (!c)
				continue;
			check_layout(t, c, b);
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		}
	}
	slab_break_order = boot_break;
	for (i = 0; i < nr_kmalloc_classes; i++)
		if (kmalloc_classes[i].cs_cachep)
			check_layout(t, kmalloc_classes[i].cs_cachep, boot_break);
}

/* Takes every free page, in blocks of the given order where it can and in
 * smaller ones where it cannot, then gives back every other block of that
 * order.  The buddy of each block given back is held, so nothing larger
 * than order is free afterwards.  Returns the blocks held, chained through
 * their first word (their order in the second), for unfragment().
 * Interrupts off: nobody else may allocate or free meanwhile. */
static void **fragment(unsigned int order)
{
	void **all = NULL, **held = NULL, **blk;
	int o;

	for (o = (int)order; o >= 0; o--) {
		while ((blk = (void **)__get_free_pages(GFP_ATOMIC | __GFP_NOWARN,
							(unsigned int)o))) {
			blk[0] = all;
			blk[1] = (void *)(uintptr_t)o;
			all = blk;
		}
	}
	while ((blk = all)) {
		all = blk[0];
		if ((uintptr_t)blk[1] == order && ((uintptr_t)blk >> (PAGE_SHIFT + order)) & 1) {
			free_pages((unsigned long)(uintptr_t)blk, order);
		} else {
			blk[0] = held;
			held = blk;
		}
	}
	return held;
}

/* Frees the blocks fragment() kept. */
static void unfragment(void **held)
{
	void **next;

	for (; held; held = next) {
		next = held[0];
		free_pages((unsigned long)(uintptr_t)held, (unsigned int)(uintptr_t)held[1]);
	}
}

/* Largest order with a free block (MAX_ORDER if none). */
static unsigned int largest_free_order(void)
{
	struct buddy_snapshot snap;
	unsigned int o;

	page_alloc_snapshot(&snap);
	for (o = MAX_ORDER; o-- > 0;)
		if (snap.nr_free[o])
			return o;
	return MAX_ORDER;
}

/*
 * With the page allocator fragmented into blocks just large enough for one
 * object, a cache can still be created and allocate: its slabs may be
 * larger (break order 1 on a machine with more RAM, SLAB_FIT_ORDER), but
 * then a fallback slab of the smallest order serves it.
 */
static void large_objects_fit_fragmented_memory(struct ktest *t)
{
	static const size_t sizes[] = { 9000, 40000 };
	struct kmem_cache *c;
	unsigned long flags, free;
	unsigned int i, order;
	void **held, *p;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		order = get_order(sizes[i]);
		local_irq_save(flags);
		kmem_reclaim();
		held = fragment(order);
		free = nr_free_pages();
		KTEST_EXPECT_EQ(t, largest_free_order(), order);
		c = kmem_cache_create("test_fragmented", sizes[i], 0, 0, NULL, NULL);
		p = c ? kmem_cache_alloc(c, GFP_ATOMIC) : NULL;
		KTEST_EXPECT_NOT_NULL(t, c);
		KTEST_EXPECT_NOT_NULL(t, p);
		ktest_info(t, "%zu-byte objects, slabs of order %u, %lu pages free in blocks of "
			   "order %u at most: %s", sizes[i], c ? c->gfporder : 0, free, order,
			   !p ? "FAILED" : is_fallback_slab(c, virt_to_page(p)->slab) ?
			   "allocated from a fallback slab" : "allocated");
		if (c) {
			kmem_cache_free(c, p);
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		}
		unfragment(held);
		local_irq_restore(flags);
	}
}

/* Small objects keep their descriptor on the slab; large ones get it from
 * an internal cache, unless the slab's unused tail can hold it. */
static void descriptor_on_or_off_slab(struct ktest *t)
{
	struct kmem_cache *small = kmem_cache_create("test_onslab", 100, 0, 0, NULL, NULL);
	struct kmem_cache *large = kmem_cache_create("test_offslab", PAGE_SIZE / 4, 0, 0,
						     NULL, NULL);
	struct kmem_cache *tail = kmem_cache_create("test_tail", PAGE_SIZE / 2 - 48, 0, 0,
						    NULL, NULL);
	struct slab *slabp;
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, small);
	KTEST_ASSERT_NOT_NULL(t, large);
	KTEST_ASSERT_NOT_NULL(t, tail);
	a = kmem_cache_alloc(small, GFP_KERNEL);
	b = kmem_cache_alloc(large, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, a);
	KTEST_ASSERT_NOT_NULL(t, b);

	KTEST_EXPECT_FALSE(t, OFF_SLAB(small));
	slabp = virt_to_page(a)->slab;
	KTEST_EXPECT_PTR_EQ(t, virt_to_page(slabp), virt_to_page(slab_start(slabp)));
	KTEST_EXPECT_PTR_EQ(t, (char *)slabp + small->slab_size, slabp->s_mem);

	KTEST_EXPECT_TRUE(t, OFF_SLAB(large));
	KTEST_EXPECT_PTR_EQ(t, large->slabp_cache, kmem_find_internal_cachep(large->slab_size));
	slabp = virt_to_page(b)->slab;
	KTEST_EXPECT_PTR_EQ(t, virt_to_page(slabp)->slab_cache, large->slabp_cache);
	KTEST_EXPECT_PTR_EQ(t, slabp->s_mem, (char *)slab_start(slabp) + slabp->colouroff);

	/* two per page, and the descriptor fits in the 96 bytes left over */
	KTEST_EXPECT_GE(t, tail->buffer_size, OFF_SLAB_MIN_SIZE);
	KTEST_EXPECT_FALSE(t, OFF_SLAB(tail));
	kmem_cache_free(small, a);
	kmem_cache_free(large, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(small), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(large), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(tail), 0);
}

/* Successive slabs start their objects colour_off bytes further on, cycling. */
static void colour_offsets_cycle(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_colour", 1100, 0, 0, NULL, NULL);
	unsigned int i, n = 0, slabs, first = 0, room;
	unsigned long flags;
	void **obj;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_GE(t, c->colour, 3u);
	room = (c->colour + 2) * c->num;	/* 295 with 16 KiB pages */
	obj = kcalloc(room, sizeof(*obj), GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, obj);
	local_irq_save(flags);
	for (slabs = 0; slabs < c->colour + 2; slabs++) {
		struct slab *slabp;
		size_t colour;

		while (c->num_slabs == slabs && n < room &&
		       (obj[n] = kmem_cache_alloc(c, GFP_ATOMIC)))	/* the refill that grows */
			n++;					/* takes only the new slab */
		KTEST_EXPECT_EQ(t, c->num_slabs, slabs + 1);	/* not when allocations fail */
		if (c->num_slabs != slabs + 1)
			break;
		slabp = virt_to_page(obj[n - 1])->slab;
		colour = (slabp->colouroff - on_slab_mgmt(c)) / c->colour_off;
		KTEST_EXPECT_EQ(t, slabp->colouroff - on_slab_mgmt(c), colour * c->colour_off);
		KTEST_EXPECT_EQ(t, (uintptr_t)slabp->s_mem % c->align, 0u);
		if (!slabs)
			first = (unsigned int)colour;
		KTEST_EXPECT_EQ(t, colour, (first + slabs) % c->colour);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(c, obj[i]);
	local_irq_restore(flags);
	kfree(obj);
	ktest_info(t, "%u slabs of %u objects, %u colours of %zu bytes", slabs, c->num, c->colour,
		   c->colour_off);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- object caching ---------------------------------------------------------- */

#define OBJ_MAGIC	0x5ab1e000u

static unsigned long ctors, dtors;

static void magic_ctor(void *obj)
{
	((u32 *)obj)[0] = OBJ_MAGIC;
	ctors++;
}

static void count_dtor(void *obj)
{
	dtors++;
}

/* SLAB constructs objects when it creates a slab, not on each allocation;
 * an object freed and taken again keeps its state; destructors run when
 * slabs are destroyed. */
static void ctor_once_per_object(struct ktest *t)
{
	static void *obj[200];
	struct kmem_cache *c = kmem_cache_create("test_ctor_once", PAGE_SIZE / 16, 0, 0,
						 magic_ctor, count_dtor);
	unsigned long flags, pages, slabs;
	unsigned int i, n = 0;
	u32 *p, *q;

	KTEST_ASSERT_NOT_NULL(t, c);
	ctors = dtors = 0;
	local_irq_save(flags);
	p = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, ctors, (unsigned long)c->num);	/* the whole slab */
	KTEST_EXPECT_EQ(t, p[0], OBJ_MAGIC);
	p[1] = 0x1234;
	kmem_cache_free(c, p);
	q = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_PTR_EQ(t, q, p);			/* LIFO array cache */
	KTEST_EXPECT_EQ(t, q[1], 0x1234u);		/* not constructed again */
	KTEST_EXPECT_EQ(t, ctors, (unsigned long)c->num);
	obj[n++] = q;
	while (c->num_slabs < 3 && n < ARRAY_SIZE(obj))
		obj[n++] = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, ctors, 3UL * c->num);
	KTEST_EXPECT_EQ(t, dtors, 0UL);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, obj[i]);
	slabs = c->num_slabs;
	pages = (unsigned long)kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, pages, slabs << c->gfporder);
	KTEST_EXPECT_EQ(t, dtors, ctors);
	p = kmem_cache_alloc(c, GFP_ATOMIC);			/* a new slab, constructed */
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, p[0], OBJ_MAGIC);
	KTEST_EXPECT_EQ(t, ctors, 4UL * c->num);
	kmem_cache_free(c, p);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, dtors, ctors);
}

/* Zeroing a constructed object would hand it out unconstructed (and the
 * destructor would later run on it): refused, with a report, changing
 * nothing.  Without a constructor __GFP_ZERO zeroes. */
static void zeroing_constructed_object_refused(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_zero_ctor", PAGE_SIZE / 16, 0, 0,
						 magic_ctor, count_dtor);
	struct kmem_cache *plain = kmem_cache_create("test_zero", 64, 0, 0, NULL, NULL);
	unsigned long flags;
	long refused = atomic_long_read(&kmem_zero_ctor_refusals);
	struct slab_counts before, after;
	u32 *p, *q;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, plain);
	ctors = dtors = 0;
	local_irq_save(flags);
	p = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	before = counts_of(c);
	q = kmem_cache_alloc(c, GFP_ATOMIC | __GFP_ZERO);	/* "...: refused" */
	after = counts_of(c);
	KTEST_EXPECT_NULL(t, q);
	KTEST_EXPECT_EQ(t, atomic_long_read(&kmem_zero_ctor_refusals), refused + 1);
	KTEST_EXPECT_EQ(t, after.held, before.held);
	KTEST_EXPECT_EQ(t, after.cached, before.cached);
	q = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, q);
	KTEST_EXPECT_PTR_EQ(t, q, p);
	KTEST_EXPECT_EQ(t, q[0], OBJ_MAGIC);			/* still constructed */
	KTEST_EXPECT_EQ(t, ctors, (unsigned long)c->num);
	kmem_cache_free(c, q);

	p = kmem_cache_alloc(plain, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xa5, 64);
	kmem_cache_free(plain, p);
	q = kmem_cache_alloc(plain, GFP_ATOMIC | __GFP_ZERO);
	KTEST_EXPECT_PTR_EQ(t, q, p);
	KTEST_EXPECT_TRUE(t, q && !memchr_inv(q, 0, 64));
	KTEST_EXPECT_EQ(t, atomic_long_read(&kmem_zero_ctor_refusals), refused + 1);
	kmem_cache_free(plain, q);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(plain), 0);
	KTEST_EXPECT_EQ(t, dtors, ctors);
}

/* ---- array caches ---------------------------------------------------------------- */

/* The object size of p's internal cache. */
static size_t ksize_of_internal(const void *p)
{
	return ((struct kmem_cache *)virt_to_page(p)->slab_cache)->buffer_size;
}

/* Four pages of objects, 24 to 120 of them, 8 of objects over a page
 * (worked out here, not by slab.c). */
static unsigned int expected_limit(size_t size)
{
	unsigned int n = (unsigned int)(4 * PAGE_SIZE / size), least = size > PAGE_SIZE ? 8 : 24;

	return n < least ? least : n > 120 ? 120 : n;
}

static void array_cache_sizes(struct ktest *t)
{
	static const size_t sizes[] = { 32, 256, 257, 1024, 1025, PAGE_SIZE, PAGE_SIZE + 1,
					 131072, 131073 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kmem_cache *c = kmem_cache_create("test_limit", sizes[i], 0, 0, NULL, NULL);

		KTEST_ASSERT_NOT_NULL(t, c);
		KTEST_EXPECT_EQ(t, this_magazine(c)->limit, expected_limit(c->buffer_size));
		KTEST_EXPECT_EQ(t, this_magazine(c)->batchcount, (this_magazine(c)->limit + 1) / 2);
		KTEST_EXPECT_EQ(t, c->free_limit, (1 + NR_CPUS) * c->batchcount + c->num);
		/* an internal object with cache lines of its own */
		KTEST_EXPECT_TRUE(t, is_internal(virt_to_page(this_magazine(c))->slab_cache));
		KTEST_EXPECT_EQ(t, (uintptr_t)this_magazine(c) % L1_CACHE_BYTES, 0u);
		KTEST_EXPECT_GE(t, ksize_of_internal(this_magazine(c)), (size_t)L1_CACHE_BYTES);
		KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	}
}

/* An empty array cache takes batchcount objects from the slabs at once; a
 * full one gives its batchcount oldest objects back at once. */
static void array_cache_batches(struct ktest *t)
{
	static void *obj[300];
	struct kmem_cache *c = kmem_cache_create("test_batch", 32, 0, 0, NULL, NULL);
	struct array_cache *ac;
	unsigned long flags, free_objects;
	unsigned int i, batch, limit;

	KTEST_ASSERT_NOT_NULL(t, c);
	ac = this_magazine(c);
	batch = ac->batchcount;
	limit = ac->limit;
	KTEST_ASSERT_LE(t, 2 * limit, ARRAY_SIZE(obj));
	local_irq_save(flags);
	obj[0] = kmem_cache_alloc(c, GFP_ATOMIC);		/* refill */
	KTEST_EXPECT_EQ(t, ac->avail, batch - 1);
	KTEST_EXPECT_EQ(t, c->free_objects, c->num_slabs * c->num - batch);
	for (i = 1; i < 2 * limit; i++)
		obj[i] = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 2UL * limit);
	for (i = 0; ac->avail < limit && i < 2 * limit - 1; i++)	/* fill up: no flush */
		kmem_cache_free(c, obj[i]);
	free_objects = c->free_objects;
	kmem_cache_free(c, obj[i]);				/* flush */
	KTEST_EXPECT_EQ(t, ac->avail, limit - batch + 1);
	KTEST_EXPECT_EQ(t, c->free_objects, free_objects + batch);
	KTEST_EXPECT_PTR_EQ(t, ac->entry[ac->avail - 1], obj[i]);	/* the hottest stays */
	for (i++; i < 2 * limit; i++)
		kmem_cache_free(c, obj[i]);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- giving memory back ---------------------------------------------------------- */

static unsigned long count_free_slabs(struct kmem_cache *c)
{
	struct list_head *pos;
	unsigned long flags, n = 0;

	spin_lock_irqsave(&c->lock, flags);
	list_for_each(pos, &c->slabs_free)
		n++;
	spin_unlock_irqrestore(&c->lock, flags);
	return n;
}

/* Allocates n objects of c and frees them all. */
static void churn(struct kmem_cache *c, void **obj, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, obj[i]);
}

/* This CPU's completed reaper passes (its reap timer runs here). */
static unsigned long this_cpu_reap_passes(void)
{
	return READ_ONCE(slab_reap_passes[smp_processor_id()]);
}

static void reap_timer_gives_pages_back(struct ktest *t)
{
	static void *obj[300];
	struct kmem_cache *c = kmem_cache_create("test_reap", 256, 0, 0, NULL, NULL);
	unsigned long start, free0, slabs0, waited = 0, step = HZ / 10 + 1;
	unsigned int avail0;

	KTEST_ASSERT_NOT_NULL(t, c);
	churn(c, obj, ARRAY_SIZE(obj));
	KTEST_EXPECT_GT(t, count_free_slabs(c), 1UL);
	slabs0 = counts_of(c).num_slabs;	/* other CPUs' reapers reap c too */
	avail0 = this_magazine(c)->avail;
	free0 = nr_free_pages();
	start = this_cpu_reap_passes();
	while (this_cpu_reap_passes() < start + 2 && waited < 3 * REAP_INTERVAL) {
		ktest_wait_ticks(step);
		waited += step;
	}
	KTEST_EXPECT_GE(t, this_cpu_reap_passes(), start + 2);
	KTEST_EXPECT_GT(t, nr_free_pages(), free0);
	KTEST_EXPECT_LT(t, counts_of(c).num_slabs, slabs0);
	KTEST_EXPECT_EQ(t, count_free_slabs(c), 0UL);
	KTEST_EXPECT_LT(t, this_magazine(c)->avail, avail0);	/* idle: partly drained */
	ktest_info(t, "after %lu ticks: %lu of %lu slabs left, %u of %u objects in the array cache",
		   waited, counts_of(c).num_slabs, slabs0, this_magazine(c)->avail, avail0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static void shrink_gives_pages_back(struct ktest *t)
{
	static void *obj[300];
	struct kmem_cache *c = kmem_cache_create("test_shrink", 500, 0, 0, NULL, NULL);
	unsigned long flags, before, slabs, pages;
	void *keep;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	keep = kmem_cache_alloc(c, GFP_ATOMIC);
	churn(c, obj, ARRAY_SIZE(obj));
	before = nr_free_pages();
	slabs = c->num_slabs;
	pages = (unsigned long)kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, pages, (slabs - 1) << c->gfporder);	/* all but keep's slab */
	KTEST_EXPECT_EQ(t, nr_free_pages(), before + pages);
	KTEST_EXPECT_EQ(t, c->num_slabs, 1UL);
	KTEST_EXPECT_EQ(t, this_magazine(c)->avail, 0u);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 1UL);
	KTEST_EXPECT_EQ(t, kmem_cache_shrink(c), 0);
	kmem_cache_free(c, keep);
	KTEST_EXPECT_EQ(t, (unsigned long)kmem_cache_shrink(c), 1UL << c->gfporder);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static int on_chain(struct kmem_cache *c)
{
	struct kmem_cache *pos_c;
	struct list_head *pos;
	unsigned long flags;
	int found = 0;

	spin_lock_irqsave(&slab_caches_lock, flags);
	for_each_cache(pos_c, pos)
		found |= pos_c == c;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return found;
}

/* Objects held by callers keep a cache alive; objects in its array cache do not. */
static void destroy_refuses_live_objects(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_live", 40, 0, 0, NULL, NULL);
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	a = kmem_cache_alloc(c, GFP_KERNEL);
	b = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);	/* "test_live still has 2 objects" */
	KTEST_EXPECT_TRUE(t, on_chain(c));
	kmem_cache_free(c, a);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), -1);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 1UL);
	kmem_cache_free(c, b);
	KTEST_EXPECT_GT(t, this_magazine(c)->avail, 0u);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_FALSE(t, on_chain(c));
}

/* ---- accounting --------------------------------------------------------------------- */

static void slabinfo_counts_match(struct ktest *t)
{
	static void *obj[50];
	struct kmem_cache *c = kmem_cache_create("test_slabinfo", 100, 0, 0, NULL, NULL);
	struct kmem_stats a, b;
	struct slab_counts n;
	unsigned long flags;
	unsigned int i;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	kmem_get_stats(&a);
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		obj[i] = kmem_cache_alloc(c, GFP_ATOMIC);
	for (i = 0; i < 20; i++)
		kmem_cache_free(c, obj[i]);
	kmem_get_stats(&b);
	n = counts_of(c);
	KTEST_EXPECT_EQ(t, n.held, 30UL);
	KTEST_EXPECT_EQ(t, n.cached, (unsigned long)this_magazine(c)->avail);
	KTEST_EXPECT_EQ(t, n.active_objs, n.held + n.cached);
	KTEST_EXPECT_EQ(t, n.num_objs, n.num_slabs * c->num);
	KTEST_EXPECT_EQ(t, n.num_objs - n.active_objs, c->free_objects);
	KTEST_EXPECT_EQ(t, n.num_slabs, DIV_ROUND_UP(n.active_objs, c->num));
	KTEST_EXPECT_EQ(t, b.bytes_used - a.bytes_used, 30 * c->buffer_size);
	KTEST_EXPECT_EQ(t, b.slab_pages - a.slab_pages, n.num_slabs << c->gfporder);
	local_irq_restore(flags);
	kmem_report();
	for (i = 20; i < ARRAY_SIZE(obj); i++)
		kmem_cache_free(c, obj[i]);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- kmalloc ---------------------------------------------------------------------------- */

static void kmalloc_size_classes(struct ktest *t)
{
	static const size_t asked[] = { 1, 17, 32, 33, 41, 49, 90, 97, 150, 161, 193, 225, 1000,
					1345, 2049, PAGE_SIZE, 4097 };
	static const size_t got[] = { 8, 24, 32, 40, 48, 64, 96, 128, 160, 192, 224, 256, 1024,
				      2048, 4096, PAGE_SIZE, 8192 };
	unsigned long before = (unsigned long)atomic_long_read(&large_block_pages), pages;
	size_t largest = 0;
	unsigned int i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(asked); i++) {
		p = kmalloc(asked[i], GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, p);
		KTEST_EXPECT_EQ(t, ksize(p), got[i]);
		KTEST_EXPECT_EQ(t, (uintptr_t)p % (got[i] & -got[i]), 0u);	/* natural */
		KTEST_EXPECT_PTR_EQ(t, virt_to_page(p)->slab_cache, kmalloc_class(got[i]));
		kfree(p);
	}
	for (i = 0; i < nr_kmalloc_classes; i++) {
		struct kmem_cache *c = kmalloc_classes[i].cs_cachep;

		if (!c)
			continue;
		KTEST_EXPECT_PTR_EQ(t, kmalloc_class(kmalloc_classes[i].cs_size), c);
		KTEST_EXPECT_STREQ(t, kmem_cache_name(c), kmalloc_classes[i].cs_name);
		if (i + 1 < nr_kmalloc_classes)
			KTEST_EXPECT_PTR_EQ(t, kmalloc_class(kmalloc_classes[i].cs_size + 1),
					    kmalloc_classes[i + 1].cs_cachep);
	}
	p = kmalloc(90, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_STREQ(t, kmem_cache_name(virt_to_page(p)->slab_cache), "size-96");
	kfree(p);

	/* up to two pages from a class, above the largest a large block */
	for (i = 0; i < nr_kmalloc_classes; i++)
		if (kmalloc_classes[i].cs_size <= 2 * PAGE_SIZE)
			largest = kmalloc_classes[i].cs_size;
	KTEST_EXPECT_EQ(t, kmalloc_max_size, largest);
	KTEST_EXPECT_NULL(t, kmalloc_class(kmalloc_max_size + 1));
	p = kmalloc(kmalloc_max_size + 1, GFP_KERNEL);	/* past the largest class */
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_TRUE(t, virt_to_page(p)->flags & PG_large);
	KTEST_EXPECT_FALSE(t, virt_to_page(p)->flags & PG_slab);
	pages = PAGE_ALIGN(kmalloc_max_size + 1) >> PAGE_SHIFT;	/* exact pages */
	KTEST_EXPECT_EQ(t, ksize(p), pages << PAGE_SHIFT);
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&large_block_pages), before + pages);
	kfree(p);
	KTEST_EXPECT_FALSE(t, virt_to_page(p)->flags & PG_large);
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&large_block_pages), before);
}

/* Above 256 bytes each class is the largest multiple of the cache line
 * that packs its number of objects in a slab (beside an on-slab
 * descriptor), and packs more than the next
 * class: no class rounds up to another's count (as 1536 did to 2048's two
 * a page, and 3072 to 4096's one). */
static void kmalloc_classes_pack_pages(struct ktest *t)
{
	unsigned int i;

	for (i = 0; i + 1 < nr_kmalloc_classes; i++) {
		struct kmem_cache *c = kmalloc_classes[i].cs_cachep, *next = kmalloc_classes[i + 1].cs_cachep;

		if (!c || kmalloc_classes[i].cs_size <= 256)
			continue;
		KTEST_EXPECT_EQ(t, c->buffer_size % L1_CACHE_BYTES, 0u);
		KTEST_EXPECT_GT(t, (c->buffer_size + L1_CACHE_BYTES) * c->num +
				(OFF_SLAB(c) ? 0 : c->slab_size), PAGE_SIZE << c->gfporder);
		if (next && next->gfporder == c->gfporder)
			KTEST_EXPECT_GT(t, c->num, next->num);
	}
}

/* A large block keeps only the pages it needs (Linux's alloc_pages_exact()):
 * 2 pages and a byte take 3 pages, not 4, all zeroed for __GFP_ZERO, and
 * the fourth page of the block is back with the page allocator. */
static void kmalloc_large_takes_exact_pages(struct ktest *t)
{
	unsigned long before = (unsigned long)atomic_long_read(&large_block_pages);
	size_t i, size = 2 * PAGE_SIZE + 1;
	unsigned char *p = kmalloc(size, GFP_KERNEL);
	int zero = 1;

	KTEST_ASSERT_NOT_NULL(t, p);
	memset(p, 0xa5, size);
	kfree(p);
	p = kmalloc(size, GFP_KERNEL | __GFP_ZERO);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_EXPECT_EQ(t, ksize(p), 3 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&large_block_pages), before + 3);
	for (i = 0; i < 3 * PAGE_SIZE; i++)
		zero &= p[i] == 0;
	KTEST_EXPECT_TRUE(t, zero);
	KTEST_EXPECT_TRUE(t, virt_to_page(p + 3 * PAGE_SIZE)->flags & PG_buddy);
	kfree(p);
	KTEST_EXPECT_EQ(t, (unsigned long)atomic_long_read(&large_block_pages), before);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

/* Every page of a multi-page slab leads to the cache, the slab and the object. */
static void owner_found_from_page(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_owner", 3 * PAGE_SIZE, 0, 0, NULL, NULL);
	struct slab *slabp;
	unsigned long i;
	char *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	KTEST_ASSERT_GE(t, c->gfporder, 2u);
	slabp = virt_to_page(p)->slab;
	for (i = 0; i < (1UL << c->gfporder); i++) {
		struct page *page = virt_to_page((char *)slab_start(slabp) + i * PAGE_SIZE);

		KTEST_EXPECT_TRUE(t, page->flags & PG_slab);
		KTEST_EXPECT_PTR_EQ(t, page->slab_cache, c);
		KTEST_EXPECT_PTR_EQ(t, page->slab, slabp);
		KTEST_EXPECT_PTR_EQ(t, page->s_mem, slabp->s_mem);
	}
	KTEST_EXPECT_PTR_EQ(t, index_to_obj(c, slabp, obj_to_index(c, slabp, p + 2 * PAGE_SIZE)), p);
	KTEST_EXPECT_EQ(t, slab_bufctl(slabp)[obj_to_index(c, slabp, p)], BUFCTL_OUT);
	kmem_cache_free(c, p);			/* into the magazine: still out of the slab */
	KTEST_EXPECT_EQ(t, slab_bufctl(slabp)[obj_to_index(c, slabp, p)], BUFCTL_OUT);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- bad frees ------------------------------------------------------------------------ */

/* Each bad free the fast path catches is reported once and leaves the
 * magazine, the counters and the object states as they were.  A double
 * free it cannot see (the first free went back to the slab meanwhile)
 * leaves the object in the magazine; the validator sees it there, and the
 * flush that takes it back to the slab reports it and leaves the object
 * free once. */
static void bad_frees_change_nothing(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_badfree", 100, 0, 0, NULL, NULL);
	struct kmem_cache *other = kmem_cache_create("test_other", 100, 0, 0, NULL, NULL);
	unsigned long flags, bad = kmem_bad_free_count, free_objects;
	void *page = (void *)__get_free_page(GFP_KERNEL);
	struct slab *slabp;
	unsigned int avail;
	char *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, other);
	KTEST_ASSERT_NOT_NULL(t, page);
	local_irq_save(flags);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, a);
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, b);
	slabp = virt_to_page(a)->slab;
	kmem_cache_free(c, a);
	avail = this_magazine(c)->avail;
	free_objects = c->free_objects;

	ktest_expect_reports(t, 10);			/* eight bad frees, two ksize() */
	kmem_cache_free(c, a);				/* double free: the magazine's top */
	kfree(a);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 2);
	kmem_cache_free(c, b + 8);			/* the middle of an object */
	kfree(b + c->buffer_size / 2);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 4);
	kmem_cache_free(other, b);			/* another cache's object */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 5);
	kfree((char *)slabp->s_mem - 1);		/* the slab's descriptor */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 6);
	kmem_cache_free(c, page);			/* "not a slab object" */
	kmem_cache_free(c, &page);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 8);
	KTEST_EXPECT_EQ(t, this_magazine(c)->avail, avail);
	KTEST_EXPECT_EQ(t, c->free_objects, free_objects);
	KTEST_EXPECT_EQ(t, slab_bufctl(slabp)[obj_to_index(c, slabp, b)], BUFCTL_OUT);
	KTEST_EXPECT_EQ(t, ksize(b + 8), 0u);
	KTEST_EXPECT_EQ(t, ksize(a), 0u);		/* not a kmalloc() block */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 10);

	kmem_cache_shrink(c);				/* a back on its slab's free chain */
	/* a freed again now would go into the magazine unseen (and a memory
	 * checker on the host would stop there): put it there by hand */
	ac_entry_set(this_magazine(c), 0, a);
	ac_set_avail(this_magazine(c), 1);
	KTEST_EXPECT_GT(t, kmem_validate(), 0);		/* "... is free in its slab" */
	ktest_expect_reports(t, 1);
	kmem_cache_shrink(c);				/* the flush finds it free */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 11);
	KTEST_EXPECT_EQ(t, this_magazine(c)->avail, 0u);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 1UL);	/* b, and a free once */
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_cache_free(c, b);				/* still fine */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 11);
	local_irq_restore(flags);
	free_pages((unsigned long)(uintptr_t)page, 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(other), 0);
}

/* The allocator's own objects (a cache, an off-slab descriptor, a
 * magazine) come from internal caches, not kmalloc classes: kfree(),
 * kmem_cache_free() and ksize() refuse each (reported, nothing changed),
 * and slab_internal_free() refuses what is no internal object or is free
 * already. */
static void internal_objects_refused(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_internal", PAGE_SIZE / 4, 0, 0, NULL, NULL);
	unsigned long flags, bad = kmem_bad_free_count;
	struct kmem_cache *mags;
	struct array_cache *ac;
	kmem_bufctl_t *state, saved;
	struct slab *slabp;
	void *p, *q;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, OFF_SLAB(c));
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	slabp = virt_to_page(p)->slab;
	ac = this_magazine(c);
	mags = virt_to_page(ac)->slab_cache;
	KTEST_ASSERT_TRUE(t, virt_to_page(c)->slab_cache == &cache_cache);
	KTEST_ASSERT_TRUE(t, virt_to_page(slabp)->slab_cache == c->slabp_cache);
	KTEST_ASSERT_TRUE(t, is_internal(&cache_cache));
	KTEST_ASSERT_TRUE(t, is_internal(c->slabp_cache));
	KTEST_ASSERT_TRUE(t, is_internal(mags));

	/* each checked at once: an accepted free would corrupt the allocator */
	ktest_expect_reports(t, 9);		/* six frees, three ksize() */
	kfree(c);				/* "the allocator's own object" */
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 1);
	kmem_cache_free(&cache_cache, c);	/* "the allocator's own cache" */
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 2);
	kfree(slabp);
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 3);
	kmem_cache_free(c->slabp_cache, slabp);
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 4);
	kfree(ac);
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 5);
	kmem_cache_free(mags, ac);
	KTEST_ASSERT_EQ(t, kmem_bad_free_count, bad + 6);
	KTEST_EXPECT_EQ(t, ksize(c), 0u);
	KTEST_EXPECT_EQ(t, ksize(slabp), 0u);
	KTEST_EXPECT_EQ(t, ksize(ac), 0u);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 9);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);

	ktest_expect_reports(t, 2);		/* the allocator's own bad frees */
	q = kmalloc(64, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, q);
	slab_internal_free(NULL, q);		/* "not an internal object" */
	kfree(q);
	q = slab_internal_alloc(c->slabp_cache, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, q);
	slab_internal_free(c->slabp_cache, q);
	slab_internal_free(c->slabp_cache, q);	/* free in its slab already */
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 11);

	state = obj_bufctl(c->slabp_cache, virt_to_page(slabp), slabp);
	KTEST_ASSERT_NOT_NULL(t, state);
	KTEST_EXPECT_EQ(t, *state, BUFCTL_OUT);
	local_irq_save(flags);			/* a descriptor in use that looks free: */
	saved = *state;
	*state = BUFCTL_END;
	KTEST_EXPECT_GT(t, kmem_validate(), 0);	/* the validator sees it */
	*state = saved;
	local_irq_restore(flags);

	kmem_cache_free(c, p);			/* the cache still works */
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KTEST_EXPECT_NOT_NULL(t, p);
	kmem_cache_free(c, p);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + 11);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- failures (page allocations made to fail) ---------------------------------------- */

/* Objects held in all caches, by callers or by the allocator itself. */
static unsigned long objects_held(void)
{
	unsigned long flags, held = 0;
	struct kmem_cache *c;
	struct list_head *pos;

	spin_lock_irqsave(&slab_caches_lock, flags);
	for_each_cache(c, pos) {
		struct slab_counts n;

		spin_lock(&c->lock);
		cache_get_counts(c, &n);
		spin_unlock(&c->lock);
		held += n.held;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return held;
}

/* Takes objects of c until neither its magazine nor its slabs has a
 * free one, so that its next allocation must grow it.  Returns them
 * chained through their first word.  Interrupts off. */
static void **use_up_free_objects(struct kmem_cache *c)
{
	void **chain = NULL, **p;

	while (this_magazine(c)->avail || c->free_objects) {
		p = is_internal(c) ? slab_internal_alloc(c, GFP_ATOMIC) :
				     kmem_cache_alloc(c, GFP_ATOMIC);
		if (!p)
			break;
		*p = chain;
		chain = p;
	}
	return chain;
}

static void give_back(struct kmem_cache *c, void **chain)
{
	void **next;

	for (; chain; chain = next) {
		next = *chain;
		if (is_internal(c))
			slab_internal_free(c, chain);
		else
			kmem_cache_free(c, chain);
	}
}

/* The hook itself: exactly the nth allocation from now fails. */
static void injected_page_failure(struct ktest *t)
{
	struct page *page[4];
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	page_alloc_fail_nth(3);
	for (i = 0; i < ARRAY_SIZE(page); i++)
		page[i] = alloc_pages(GFP_ATOMIC | __GFP_NOWARN, 0);
	KTEST_EXPECT_EQ(t, page_alloc_fail_countdown, 0UL);
	local_irq_restore(flags);
	for (i = 0; i < ARRAY_SIZE(page); i++) {
		KTEST_EXPECT_TRUE(t, i == 2 ? !page[i] : !!page[i]);
		if (page[i])
			__free_pages(page[i], 0);
	}
}

/* Fallback slabs in all caches. */
static unsigned long fallback_slabs_held(void)
{
	unsigned long flags, slabs = 0;
	struct kmem_cache *c;
	struct list_head *pos;

	spin_lock_irqsave(&slab_caches_lock, flags);
	for_each_cache(c, pos) {
		spin_lock(&c->lock);
		slabs += c->fallback_slabs;
		spin_unlock(&c->lock);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return slabs;
}

/*
 * kmem_cache_create() failing for want of a page, at each allocation it
 * makes in turn (the cache struct, the magazines, their descriptors):
 * NULL, and nothing leaked, neither objects nor pages.  A failed slab of
 * a cache with a fallback shape is no failure: a fallback slab serves.
 */
static void create_failure_leaks_nothing(struct ktest *t)
{
	struct kmem_cache *arrays = kmem_find_internal_cachep(
		max_t(size_t, sizeof(struct array_cache) + expected_limit(100) * sizeof(void *),
		      L1_CACHE_BYTES));
	unsigned long flags, free0, held0, n, fallbacks, absorbed = 0;
	void **caches_held, **arrays_held;
	struct kmem_cache *c;
	int hit;

	KTEST_ASSERT_NOT_NULL(t, arrays);
	local_irq_save(flags);
	kmem_reclaim();
	free0 = nr_free_pages();
	held0 = objects_held();
	for (n = 1; n < 10; n++) {
		caches_held = use_up_free_objects(&cache_cache);
		arrays_held = use_up_free_objects(arrays);
		fallbacks = fallback_slabs_held();
		page_alloc_fail_nth(n);
		c = kmem_cache_create("test_create_fail", 100, 0, 0, NULL, NULL);
		hit = page_alloc_fail_countdown == 0;
		page_alloc_fail_nth(0);
		if (!hit)
			KTEST_EXPECT_NOT_NULL(t, c);	/* n is past the last allocation */
		else if (fallback_slabs_held() > fallbacks)
			absorbed++;			/* the next allocation was a fallback */
		else
			KTEST_EXPECT_NULL(t, c);
		if (c)
			KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
		give_back(arrays, arrays_held);
		give_back(&cache_cache, caches_held);
		kmem_reclaim();
		KTEST_EXPECT_EQ(t, objects_held(), held0);
		KTEST_EXPECT_EQ(t, nr_free_pages(), free0);
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		if (!hit)
			break;
	}
	local_irq_restore(flags);
	ktest_info(t, "creation makes %lu page allocations here; each one failing was clean "
		   "(%lu made a fallback slab instead)", n - 1, absorbed);
	KTEST_EXPECT_GE(t, n - 1, 2UL);		/* the struct's slab and the magazines' */
}

/*
 * A new slab whose pages or off-slab descriptor cannot be had: the slab's
 * pages go back, the allocation returns NULL, and the cache is as it was.
 * The cache's own slab failing is no failure while a fallback slab can be
 * had: with memory fragmented below the cache's order (its own slab
 * fails for want of a block), the fallback slab's pages and then its
 * descriptor's are made to fail.
 */
static void grow_failure_gives_pages_back(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_grow_fail", PAGE_SIZE / 4, 0, 0,
						 NULL, NULL);
	unsigned long flags, free0, n;
	void **descs_held, **held, *p;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_TRUE(t, OFF_SLAB(c));
	KTEST_ASSERT_TRUE(t, has_fallback(c));
	KTEST_ASSERT_NOT_NULL(t, c->fallback.slabp_cache);
	KTEST_ASSERT_FALSE(t, has_fallback(c->fallback.slabp_cache));	/* one try */
	local_irq_save(flags);
	page_alloc_fail_nth(1);
	p = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_EQ(t, page_alloc_fail_countdown, 0UL);
	page_alloc_fail_nth(0);
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_TRUE(t, p && is_fallback_slab(c, virt_to_page(p)->slab));
	kmem_cache_free(c, p);
	kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, c->num_slabs, 0UL);

	descs_held = use_up_free_objects(c->fallback.slabp_cache);
	held = fragment(c->fallback.order);
	free0 = nr_free_pages();
	for (n = 2; n <= 3; n++) {		/* the slab's pages, then the descriptor's */
		page_alloc_fail_nth(n);
		p = kmem_cache_alloc(c, GFP_ATOMIC);
		KTEST_EXPECT_EQ(t, page_alloc_fail_countdown, 0UL);
		page_alloc_fail_nth(0);
		KTEST_EXPECT_NULL(t, p);
		KTEST_EXPECT_EQ(t, nr_free_pages(), free0);
		KTEST_EXPECT_EQ(t, c->num_slabs, 0UL);
		KTEST_EXPECT_EQ(t, this_magazine(c)->avail, 0u);
		KTEST_EXPECT_EQ(t, kmem_validate(), 0);
		kmem_cache_free(c, p);
	}
	p = kmem_cache_alloc(c, GFP_ATOMIC);	/* and then it works */
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_TRUE(t, p && is_fallback_slab(c, virt_to_page(p)->slab));
	kmem_cache_free(c, p);
	kmem_cache_shrink(c);
	unfragment(held);
	give_back(c->fallback.slabp_cache, descs_held);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* A cache of test_raised objects whose slabs are larger than the smallest
 * that holds one, and whose fallback slab leaves bytes beside its objects
 * and descriptor; NULL if none of the sizes tried gives one. */
static struct kmem_cache *raised_cache(void)
{
	static const size_t sizes[] = { 320, 700, 1000, 1100, 1500, 3000, PAGE_SIZE / 3 };
	struct kmem_cache *c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		c = kmem_cache_create("test_raised", sizes[i], 0, 0, NULL, NULL);
		if (c && has_fallback(c) && fallback_obj_offset(c) >
		    (c->fallback.slabp_cache ? 0 : c->fallback.slab_size))
			return c;
		if (c)
			kmem_cache_destroy(c);
	}
	return NULL;
}

/* Frees objp into c (kfree() if c is a kmalloc() class). */
static void free_into(struct kmem_cache *c, void *objp)
{
	if (c->common.flags & CFLGS_KMALLOC)
		kfree(objp);
	else
		kmem_cache_free(c, objp);
}

/* Frees into slabp, a slab of c, at every address in the slab an object
 * of c could start at but no object of the slab does (object starts of a
 * slab lie buffer_size apart): each is refused, reported and changes
 * nothing.  Returns how many there were.  Interrupts off. */
static unsigned int free_between_objects(struct ktest *t, struct kmem_cache *c,
					 struct slab *slabp)
{
	struct slab_shape shape = slab_shape(c, slabp);
	char *start = slab_start(slabp), *end = start + (PAGE_SIZE << shape.order);
	char *objs_end = (char *)slabp->s_mem + (size_t)shape.num * c->buffer_size;
	unsigned long bad = kmem_bad_free_count, free_objects = c->free_objects;
	unsigned int avail = this_magazine(c)->avail, tried = 0;
	char *a;

	for (a = (char *)slabp->s_mem - c->buffer_size; a >= start; a -= c->buffer_size)
		tried++;
	for (a = objs_end; a < end; a += c->buffer_size)
		tried++;
	if (tried)
		ktest_expect_reports(t, tried);
	for (a = (char *)slabp->s_mem - c->buffer_size; a >= start; a -= c->buffer_size)
		free_into(c, a);
	for (a = objs_end; a < end; a += c->buffer_size)
		free_into(c, a);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count, bad + tried);
	KTEST_EXPECT_EQ(t, this_magazine(c)->avail, avail);
	KTEST_EXPECT_EQ(t, c->free_objects, free_objects);
	return tried;
}

/*
 * Allocates 2 * num + 1 objects of c (kmalloc() for a size class) with the
 * page allocator fragmented below c's order (into blocks of its fallback
 * order): each new slab is a fallback slab of that order, its objects
 * packed against the slab's end, so that no pointer into the slab past its
 * last object passes the free fast path's object-start check (one that
 * does not know the slab's shape); frees of pointers between its objects
 * are refused; the counts and the validator agree.  Then the objects go
 * back, the fallback slabs with them, and with the page allocator whole
 * again the cache grows by a slab of its own order.
 */
static void check_fallback_slabs(struct ktest *t, struct kmem_cache *c)
{
	static void *obj[256];
	unsigned int i, n = 2 * c->fallback.num + 1, refused = 0;
	int is_kmalloc = (c->common.flags & CFLGS_KMALLOC) != 0;
	void **chain, **held, *p;
	unsigned long flags, slabs0;
	struct slab_counts cnt;
	struct slab *slabp;

	KTEST_ASSERT_TRUE(t, has_fallback(c));
	KTEST_ASSERT_LE(t, n, ARRAY_SIZE(obj));
	local_irq_save(flags);
	chain = use_up_free_objects(c);		/* so that the cache must grow */
	held = fragment(c->fallback.order);
	KTEST_EXPECT_LT(t, largest_free_order(), c->gfporder);
	slabs0 = counts_of(c).fallback_slabs;
	for (i = 0; i < n; i++) {
		obj[i] = is_kmalloc ? kmalloc(c->common.object_size, GFP_ATOMIC) :
				   kmem_cache_alloc(c, GFP_ATOMIC);
		KTEST_EXPECT_NOT_NULL(t, obj[i]);
		if (!obj[i])
			break;
		memset(obj[i], 0x5a, c->common.object_size);
		slabp = virt_to_page(obj[i])->slab;
		KTEST_EXPECT_PTR_EQ(t, virt_to_page(obj[i])->slab_cache, c);
		KTEST_EXPECT_TRUE(t, is_fallback_slab(c, slabp));
		KTEST_EXPECT_EQ(t, virt_to_page(slab_start(slabp))->order, c->fallback.order);
		KTEST_EXPECT_PTR_EQ(t, (char *)slabp->s_mem + c->fallback.num * c->buffer_size,
				    (char *)slab_start(slabp) + (PAGE_SIZE << c->fallback.order));
		if (is_kmalloc)
			KTEST_EXPECT_EQ(t, ksize(obj[i]), c->common.object_size);
		if (i % c->fallback.num == 0)
			refused += free_between_objects(t, c, slabp);
	}
	n = i;
	cnt = counts_of(c);
	KTEST_EXPECT_GE(t, cnt.fallback_slabs - slabs0, DIV_ROUND_UP(n, c->fallback.num));
	KTEST_EXPECT_EQ(t, cnt.num_objs, (cnt.num_slabs - cnt.fallback_slabs) * c->num +
			cnt.fallback_slabs * c->fallback.num);
	KTEST_EXPECT_EQ(t, cnt.pages, ((cnt.num_slabs - cnt.fallback_slabs) << c->gfporder) +
			(cnt.fallback_slabs << c->fallback.order));
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	ktest_info(t, "%s: %u objects from %lu fallback slabs of order %u (own order %u), "
		   "%u bad frees between objects refused", c->common.name, n,
		   cnt.fallback_slabs - slabs0, c->fallback.order, c->gfporder, refused);
	for (i = 0; i < n; i++)
		free_into(c, obj[i]);
	kmem_cache_shrink(c);
	KTEST_EXPECT_EQ(t, counts_of(c).fallback_slabs, slabs0);
	unfragment(held);

	p = kmem_cache_alloc(c, GFP_ATOMIC);	/* a slab of the cache's own order again */
	KTEST_EXPECT_NOT_NULL(t, p);
	KTEST_EXPECT_TRUE(t, p && !is_fallback_slab(c, virt_to_page(p)->slab));
	kmem_cache_free(c, p);
	give_back(c, chain);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
}

/* The page-sized kmalloc() class (size-4096 with 4 KiB pages: four a slab
 * of order 2) and a cache whose order was raised both allocate from a
 * page allocator that has no free block of their order. */
static void fallback_slabs_serve_fragmented_memory(struct ktest *t)
{
	struct kmem_cache *c = raised_cache();

	check_fallback_slabs(t, kmalloc_class(PAGE_SIZE));
	KTEST_ASSERT_NOT_NULL(t, c);
	check_fallback_slabs(t, c);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* The validator sees each kind of damage (then everything is put back).
 * Interrupts stay off: nothing may run on the damaged cache. */
static void validator_finds_corruption(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_damage", 100, 0, 0, NULL, NULL);
	struct array_cache *ac;
	struct slab *slabp;
	kmem_bufctl_t *state, idx, saved;
	struct page *page;
	unsigned long flags;
	char *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	local_irq_save(flags);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, a);
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_ASSERT_NOT_NULL(t, b);
	ac = this_magazine(c);
	page = virt_to_page(a);
	slabp = page->slab;
	state = &slab_bufctl(slabp)[obj_to_index(c, slabp, a)];
	KTEST_ASSERT_EQ(t, kmem_validate(), 0);

	*state = BUFCTL_END;				/* a held object that looks free */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	*state = BUFCTL_OUT;
	kmem_cache_free(c, b);
	ac->entry[ac->avail] = ac->entry[ac->avail - 1];	/* the same object twice */
	ac->avail++;
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	ac->avail--;
	page->s_mem = (char *)page->s_mem + c->buffer_size;	/* a page's copy of s_mem */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	page->s_mem = slabp->s_mem;
	kmem_cache_shrink(c);				/* objects back on the slab */
	KTEST_ASSERT_NE(t, slabp->free, BUFCTL_END);	/* a free chain that loops */
	idx = slabp->free;
	saved = slab_bufctl(slabp)[idx];
	slab_bufctl(slabp)[idx] = idx;
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	slab_bufctl(slabp)[idx] = saved;
	c->free_objects++;				/* a counter */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	c->free_objects--;
	page->slab = NULL;				/* a page's back pointer */
	KTEST_EXPECT_GT(t, kmem_validate(), 0);
	page->slab = slabp;
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_cache_free(c, a);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* ---- SMP: other CPUs' magazines --------------------------------------------------- */

/* Skips (and returns 1) with a single CPU: these need another to race with. */
static int needs_two_cpus(struct ktest *t)
{
	if (num_online_cpus() >= 2)
		return 0;
	ktest_skip(t, "needs 2 CPUs (%u online)", num_online_cpus());
	return 1;
}

/* The online CPU after cpu, or NR_CPUS. */
static unsigned int next_online_cpu(unsigned int cpu)
{
	while (++cpu < NR_CPUS && !cpu_online(cpu))
		;
	return cpu;
}

/* One step of a busy wait on another CPU (the loops read atomics). */
static void spin_wait(void)
{
	barrier();
}

static int flag_read(const int *flag)
{
	return smp_load_acquire(flag);
}

static void flag_set(int *flag)
{
	smp_store_release(flag, 1);
}

/* Fills this CPU's magazine of c with objects it allocated and freed. */
static void fill_magazine(struct kmem_cache *c, unsigned int n)
{
	void *obj[16];
	unsigned int i;

	n = min_t(unsigned int, n, ARRAY_SIZE(obj));
	for (i = 0; i < n; i++)
		obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, obj[i]);
}

enum remote_op { OP_SHRINK, OP_TUNE, OP_DESTROY };

/*
 * One CPU (the driver, the boot CPU) shrinks, resizes or destroys a
 * cache while another (the owner) holds objects of it in its magazine
 * with interrupts off, as if in the middle of an allocation.  Nobody may
 * touch that magazine before the owner turns its interrupts back on: the
 * driver has to wait for its IPI.
 */
struct remote_race {
	struct kmem_cache *c;
	enum remote_op op;
	unsigned int owner;
	int owner_ready, op_started, op_done;
	struct array_cache *ac_before, *ac_during;
	unsigned int avail_before, avail_during;
	int op_result;
};

/* The owner's side: waits, interrupts off, until the driver is done or a
 * while has passed (the driver cannot finish before then if it waits for
 * the owner's IPI, as it must). */
static void remote_race_owner(struct remote_race *r)
{
	unsigned long flags, spins;

	fill_magazine(r->c, 8);
	local_irq_save(flags);
	r->ac_before = cpu_cache(r->c);
	r->avail_before = ac_avail(r->ac_before);
	flag_set(&r->owner_ready);
	while (!flag_read(&r->op_started))
		spin_wait();
	for (spins = 0; spins < (1UL << 22) && !flag_read(&r->op_done); spins++)
		spin_wait();
	r->ac_during = r->c->array[smp_processor_id()];
	r->avail_during = ac_avail(r->ac_during);
	local_irq_restore(flags);
}

static void remote_race_cpu(void *arg)
{
	struct remote_race *r = arg;
	unsigned int cpu = smp_processor_id();

	if (cpu == r->owner) {
		remote_race_owner(r);
	} else if (cpu == 0) {			/* the driver: the boot CPU */
		while (!flag_read(&r->owner_ready))
			spin_wait();
		flag_set(&r->op_started);
		if (r->op == OP_SHRINK)
			r->op_result = kmem_cache_shrink(r->c);
		else if (r->op == OP_TUNE)
			r->op_result = slab_tune_cpucache(r->c, 30, 15);
		else
			r->op_result = kmem_cache_destroy(r->c);
		flag_set(&r->op_done);
	}
}

/* Runs op against an owner's magazine; checks the owner's magazine was
 * left alone meanwhile and that op then reached every CPU. */
static void remote_race_check(struct ktest *t, enum remote_op op)
{
	struct remote_race r = { .op = op };
	unsigned int cpu;

	r.c = kmem_cache_create("test_remote", 64, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, r.c);
	KTEST_ASSERT_TRUE(t, cpu_online(0));
	r.owner = next_online_cpu(0);
	smp_run_on_all_cpus(remote_race_cpu, &r);
	KTEST_EXPECT_GT(t, r.avail_before, 0u);
	KTEST_EXPECT_PTR_EQ(t, r.ac_during, r.ac_before);	/* not swapped under it */
	KTEST_EXPECT_EQ(t, r.avail_during, r.avail_before);	/* not drained under it */
	ktest_info(t, "owner cpu %u: %u objects in its magazine before, %u while its "
		   "interrupts were off", r.owner, r.avail_before, r.avail_during);
	if (op == OP_DESTROY) {
		KTEST_EXPECT_EQ(t, r.op_result, 0);
		return;
	}
	for_each_online_cpu(cpu) {
		struct array_cache *ac = r.c->array[cpu];

		KTEST_EXPECT_EQ(t, ac_avail(ac), 0u);
		KTEST_EXPECT_EQ(t, ac->limit, op == OP_TUNE ? 30u : r.c->limit);
	}
	KTEST_EXPECT_EQ(t, counts_of(r.c).held, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(r.c), 0);
}

/* slab_tune_cpucache() gives every CPU a magazine of the new size, puts the
 * old magazines' objects back on the slabs and frees the old magazines. */
static void tune_resizes_magazines(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_tune", 64, 0, 0, NULL, NULL), *mags;
	unsigned long mags_held;
	unsigned int cpu;
	void *keep;

	KTEST_ASSERT_NOT_NULL(t, c);
	keep = kmem_cache_alloc(c, GFP_KERNEL);
	fill_magazine(c, 10);
	KTEST_EXPECT_GT(t, ac_avail(this_magazine(c)), 0u);
	mags = virt_to_page(this_magazine(c))->slab_cache;	/* where the magazines come from */
	KTEST_ASSERT_TRUE(t, is_internal(mags));
	KTEST_ASSERT_TRUE(t, mags != kmem_find_internal_cachep(sizeof(struct array_cache) +
							       30 * sizeof(void *)));
	mags_held = counts_of(mags).held;
	KTEST_EXPECT_EQ(t, slab_tune_cpucache(c, 30, 15), 0);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_EQ(t, c->array[cpu]->limit, 30u);
		KTEST_EXPECT_EQ(t, c->array[cpu]->batchcount, 15u);
		KTEST_EXPECT_EQ(t, ac_avail(c->array[cpu]), 0u);
	}
	KTEST_EXPECT_EQ(t, c->limit, 30u);
	KTEST_EXPECT_EQ(t, counts_of(c).held, 1UL);
	/* the old ones freed: one per online CPU, the others never had one */
	KTEST_EXPECT_EQ(t, counts_of(mags).held, mags_held - num_online_cpus());
	KTEST_EXPECT_EQ(t, slab_tune_cpucache(c, 10, 11), -1);	/* batch > limit */
	KTEST_EXPECT_EQ(t, c->limit, 30u);
	kmem_cache_free(c, keep);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* kmem_cache_create_args()'s sheaf_capacity sizes the magazines: 100 for
 * 4 KiB objects (whose own limit is smaller, 24 with 4 or 16 KiB pages)
 * on every online CPU, half of it a batch; one below the cache's own
 * limit leaves it (a plain cache's). */
static void creator_capacity_sizes_magazines(struct ktest *t)
{
	struct kmem_cache_args big = { .sheaf_capacity = 100 }, small = { .sheaf_capacity = 2 };
	struct kmem_cache *c = kmem_cache_create_args("test_mag100", 4096, &big, 0);
	struct kmem_cache *d = kmem_cache_create_args("test_mag2", 4096, &small, 0);
	struct kmem_cache *plain = kmem_cache_create("test_mag_plain", 4096, 0, 0, NULL, NULL);
	unsigned int cpu;

	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_ASSERT_NOT_NULL(t, d);
	KTEST_ASSERT_NOT_NULL(t, plain);
	KTEST_EXPECT_LT(t, plain->limit, 100u);
	KTEST_EXPECT_EQ(t, c->limit, 100u);
	KTEST_EXPECT_EQ(t, d->limit, plain->limit);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_EQ(t, c->array[cpu]->limit, 100u);
		KTEST_EXPECT_EQ(t, c->array[cpu]->batchcount, 50u);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(d), 0);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(plain), 0);
}

/* Swaps the array caches of CPUs a and b of c.  Interrupts off. */
static void swap_slots(struct kmem_cache *c, unsigned int a, unsigned int b)
{
	struct array_cache *ac = c->array[a];

	c->array[a] = c->array[b];
	c->array[b] = ac;
}

/*
 * Only online CPUs get magazines when a cache is made: the other slots
 * share an empty one of limit 0, which no allocation or free can use, so a
 * CPU's first allocation (or free) there makes it a magazine of its own.
 * Played on this CPU by swapping its slot with an offline CPU's; nothing
 * leaks (destroy frees the magazines in every slot).
 */
static void magazines_only_for_cpus_that_run(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("test_lazy_mag", 64, 0, 0, NULL, NULL);
	unsigned int cpu, self, off[2], n_off = 0;
	struct kmem_cache *mags;
	unsigned long flags, mags_held;
	void *a, *b;

	KTEST_ASSERT_NOT_NULL(t, c);
	mags = virt_to_page(this_magazine(c))->slab_cache;
	mags_held = counts_of(mags).held;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu_online(cpu)) {
			KTEST_EXPECT_EQ(t, c->array[cpu]->limit, c->limit);
			continue;
		}
		KTEST_EXPECT_EQ(t, c->array[cpu]->limit, 0u);
		KTEST_EXPECT_EQ(t, c->array[cpu]->avail, 0u);
		if (n_off < 2)
			off[n_off++] = cpu;
	}
	if (n_off < 2) {
		kmem_cache_destroy(c);
		ktest_skip(t, "fewer than two CPUs offline");
		return;
	}
	local_irq_save(flags);
	self = smp_processor_id();
	swap_slots(c, self, off[0]);			/* as if this CPU came up late */
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	KTEST_EXPECT_NOT_NULL(t, a);
	KTEST_EXPECT_EQ(t, c->array[self]->limit, c->limit);	/* made its own */
	KTEST_EXPECT_EQ(t, ac_avail(c->array[self]), c->batchcount - 1);
	KTEST_EXPECT_EQ(t, c->array[off[1]]->avail, 0u);	/* the shared one untouched */
	b = kmem_cache_alloc(c, GFP_ATOMIC);
	swap_slots(c, self, off[1]);			/* and a first free */
	kmem_cache_free(c, b);
	KTEST_EXPECT_EQ(t, c->array[self]->limit, c->limit);
	KTEST_EXPECT_EQ(t, ac_avail(c->array[self]), 1u);
	KTEST_EXPECT_EQ(t, counts_of(mags).held, mags_held + 2);
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	kmem_cache_free(c, a);
	kmem_cache_shrink(c);		/* interrupts off: this CPU's slot only */
	swap_slots(c, self, off[1]);	/* the first one made */
	kmem_cache_shrink(c);		/* offline slots keep empty magazines */
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
	/* all of c's freed: one per online CPU from the start, two made here */
	KTEST_EXPECT_EQ(t, counts_of(mags).held, mags_held + 2 - (num_online_cpus() + 2));
}

static void shrink_waits_for_each_cpu(struct ktest *t)
{
	if (!needs_two_cpus(t))
		remote_race_check(t, OP_SHRINK);
}

static void tune_swaps_on_each_cpu(struct ktest *t)
{
	if (!needs_two_cpus(t))
		remote_race_check(t, OP_TUNE);
}

static void destroy_waits_for_each_cpu(struct ktest *t)
{
	if (!needs_two_cpus(t))
		remote_race_check(t, OP_DESTROY);
}

/* CPU 0 validates while the others allocate and free without a lock. */
struct validate_race {
	struct kmem_cache *c;
	int stop;			/* CPU 0 is done: the others stop */
	int errors;			/* kmem_validate()'s reports, summed */
	unsigned int started;		/* other CPUs allocating */
	unsigned int rounds[NR_CPUS];	/* each CPU's rounds of allocation */
	unsigned int during[NR_CPUS];	/* of them, made while CPU 0 validated */
	unsigned long waited, validations;
};

#define VALIDATE_RACE_ROUNDS	2000
#define VALIDATE_RACE_WAIT	KTEST_SECONDS(30)	/* for each side: generous, printed */

static unsigned int load_u32(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The other online CPUs whose round counter has not moved past mark[]. */
static unsigned int cpus_behind(struct validate_race *r, const unsigned int *mark)
{
	unsigned int cpu, behind = 0;

	for_each_online_cpu(cpu)
		behind += cpu && load_u32(&r->rounds[cpu]) <= mark[cpu];
	return behind;
}

/* CPU 0: once every other CPU is allocating, validates at least
 * VALIDATE_RACE_ROUNDS times and until every other CPU has finished a
 * round meanwhile, so the validator surely ran against their fast paths
 * however the CPUs were scheduled (each wait bounded by
 * VALIDATE_RACE_WAIT ticks; the case prints what it took). */
static void validate_race_driver(struct validate_race *r)
{
	unsigned int mark[NR_CPUS] = { 0 }, cpu;
	unsigned long start = jiffies;

	while (load_u32(&r->started) + 1 < num_online_cpus() &&
	       jiffies - start < VALIDATE_RACE_WAIT)
		ktest_wait_ticks(1);
	for_each_online_cpu(cpu)
		mark[cpu] = load_u32(&r->rounds[cpu]);
	r->waited = jiffies - start;
	start = jiffies;
	while (r->validations < VALIDATE_RACE_ROUNDS ||
	       (cpus_behind(r, mark) && jiffies - start < VALIDATE_RACE_WAIT)) {
		__atomic_fetch_add(&r->errors, kmem_validate(), __ATOMIC_RELAXED);
		if (++r->validations % 64 == 0 && r->validations >= VALIDATE_RACE_ROUNDS)
			ktest_wait_ticks(1);	/* time passes even with --sync-ticks */
	}
	for_each_online_cpu(cpu)
		r->during[cpu] = load_u32(&r->rounds[cpu]) - mark[cpu];
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
}

/* On CPU 0: the driver.  On the others: takes objects and frees them in
 * another order until told to stop, so that entries move between magazine
 * slots and state words flip between held and cached under the validator. */
static void validate_race_cpu(void *arg)
{
	struct validate_race *r = arg;
	unsigned int cpu = smp_processor_id(), i;
	void *obj[6];

	if (cpu == 0) {
		validate_race_driver(r);
		return;
	}
	__atomic_fetch_add(&r->started, 1, __ATOMIC_RELEASE);
	while (!smp_load_acquire(&r->stop)) {
		for (i = 0; i < ARRAY_SIZE(obj); i++)
			obj[i] = kmem_cache_alloc(r->c, GFP_KERNEL);
		for (i = 0; i < ARRAY_SIZE(obj); i++)	/* 1 3 5 0 2 4: slots swap */
			kmem_cache_free(r->c, obj[(2 * i + 1) % (ARRAY_SIZE(obj) + 1) %
						   ARRAY_SIZE(obj)]);
		__atomic_fetch_add(&r->rounds[cpu], 1, __ATOMIC_RELEASE);
	}
}

/* The validator reads what other CPUs' fast paths change without the
 * lock; it must not report a half-done allocation or free as corruption
 * (a state word read twice, an entry's objp and state from two pushes). */
static void validate_sound_while_others_allocate(struct ktest *t)
{
	static struct validate_race r;
	unsigned int cpu;

	if (needs_two_cpus(t))
		return;
	memset(&r, 0, sizeof(r));
	r.c = kmem_cache_create("test_validate_race", 24, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, r.c);
	smp_run_on_all_cpus(validate_race_cpu, &r);
	KTEST_EXPECT_EQ(t, r.errors, 0);
	ktest_info(t, "%lu validations (after %lu ticks waiting for the others to start, "
		   "at most %lu)", r.validations, r.waited, (unsigned long)VALIDATE_RACE_WAIT);
	for_each_online_cpu(cpu) {
		if (!cpu)
			continue;
		KTEST_EXPECT_GT(t, r.during[cpu], 0u);	/* bounded wait above */
		ktest_info(t, "cpu %u: %u rounds of allocation during them", cpu, r.during[cpu]);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(r.c), 0);
}

/* Every CPU fills its magazine of the cache in arg. */
static void fill_magazine_cpu(void *arg)
{
	fill_magazine(arg, 12);
}

/* Each CPU's reap timer ages that CPU's magazine: an idle magazine on
 * every CPU gives objects back within a few reap intervals.  The other
 * CPUs' timers run on their own ticks, which a busy host may hold back
 * while CPU 0 counts jiffies: the wait is bounded generously (30 s of
 * ticks; two passes take 2 to 3 reap intervals) and printed. */
#define REAP_AGES_WAIT		KTEST_SECONDS(30)
static void reaper_ages_every_cpu(struct ktest *t)
{
	struct kmem_cache *c;
	unsigned long start[NR_CPUS], waited = 0, step = HZ / 10 + 1;
	unsigned int before[NR_CPUS], cpu, behind;

	if (needs_two_cpus(t))
		return;
	c = kmem_cache_create("test_reap_smp", 128, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, c);
	smp_run_on_all_cpus(fill_magazine_cpu, c);
	for_each_online_cpu(cpu) {
		before[cpu] = ac_avail(c->array[cpu]);
		start[cpu] = READ_ONCE(slab_reap_passes[cpu]);
		KTEST_EXPECT_GT(t, before[cpu], 0u);
	}
	do {
		ktest_wait_ticks(step);
		waited += step;
		behind = 0;
		for_each_online_cpu(cpu)
			behind += READ_ONCE(slab_reap_passes[cpu]) < start[cpu] + 2;
	} while (behind && waited < REAP_AGES_WAIT);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_GE(t, READ_ONCE(slab_reap_passes[cpu]), start[cpu] + 2);
		KTEST_EXPECT_LT(t, ac_avail(c->array[cpu]), before[cpu]);
		ktest_info(t, "cpu %u: %u of %u objects left after %lu ticks (at most %lu)", cpu,
			   ac_avail(c->array[cpu]), before[cpu], waited,
			   (unsigned long)REAP_AGES_WAIT);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

/* Two CPUs free the same object at the same moment, many times over. */
#define DFREE_ROUNDS	400
struct double_free_race {
	struct kmem_cache *c;
	unsigned int cpu[2];
	void *obj[2 * DFREE_ROUNDS];	/* the even ones freed twice, the odd ones held */
	int arrived;
};

/* Waits until both CPUs have arrived n times in all (a two-CPU barrier). */
static void both_arrive(int *arrived, int n)
{
	__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL);
	while (smp_load_acquire(arrived) < n)
		spin_wait();
}

static void double_free_cpu(void *arg)
{
	struct double_free_race *r = arg;
	unsigned int me = smp_processor_id(), i;

	if (me != r->cpu[0] && me != r->cpu[1])
		return;
	for (i = 0; i < DFREE_ROUNDS; i++) {
		both_arrive(&r->arrived, 4 * (int)i + 2);
		kmem_cache_free(r->c, r->obj[2 * i]);
		both_arrive(&r->arrived, 4 * (int)i + 4);
	}
}

/*
 * What production promises for two CPUs freeing one object at once.  The
 * fast path writes nothing another CPU reads, so both frees succeed, each
 * into its own CPU's magazine; the second copy to go back to the slab (a
 * flush: a full magazine, the reaper, or here the shrink that drains every
 * CPU's) is reported there, once per object, and left out, so that the
 * object is free on its slab once.  What it does not promise: a copy that
 * is allocated before it is flushed is handed out while the other is
 * still cached.  kmem_debug= catches every such free as it is made
 * (test_kmem_debug.c: racing_double_free_reported_once).  The objects
 * between those freed twice stay held, so that no slab is destroyed while
 * a copy of one of its objects waits in a magazine: a flush would read the
 * struct page the page allocator is writing (a race, as with any pointer
 * freed into a slab being destroyed).
 */
static void racing_double_free_found_at_flush(struct ktest *t)
{
	static struct double_free_race r;
	unsigned long bad = kmem_bad_free_count, during;
	struct slab_counts n;
	unsigned int i;

	if (needs_two_cpus(t))
		return;
	memset(&r, 0, sizeof(r));
	r.c = kmem_cache_create("test_dfree", 32, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, r.c);
	r.cpu[0] = 0;				/* the boot CPU, and the next */
	r.cpu[1] = next_online_cpu(0);
	KTEST_ASSERT_TRUE(t, r.cpu[1] < NR_CPUS);
	for (i = 0; i < ARRAY_SIZE(r.obj); i++) {
		r.obj[i] = kmem_cache_alloc(r.c, GFP_KERNEL);
		KTEST_ASSERT_NOT_NULL(t, r.obj[i]);
	}
	ktest_expect_reports(t, DFREE_ROUNDS);	/* one per object: its second flush */
	kmem_debug_validate_hold(1);		/* the copies are an inconsistency */
	smp_run_on_all_cpus(double_free_cpu, &r);
	during = kmem_bad_free_count - bad;	/* full magazines flushed meanwhile */
	kmem_cache_shrink(r.c);			/* every CPU drains its magazine */
	kmem_debug_validate_hold(0);
	n = counts_of(r.c);
	KTEST_EXPECT_EQ(t, kmem_bad_free_count - bad, (unsigned long)DFREE_ROUNDS);
	KTEST_EXPECT_EQ(t, n.cached, 0UL);
	KTEST_EXPECT_EQ(t, n.held, (unsigned long)DFREE_ROUNDS);	/* the odd ones */
	KTEST_EXPECT_EQ(t, n.active_objs, (unsigned long)DFREE_ROUNDS);	/* each even one free once */
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	ktest_info(t, "%d rounds: %lu reports while the CPUs freed, %lu at the shrink",
		   DFREE_ROUNDS, during, kmem_bad_free_count - bad - during);
	for (i = 1; i < ARRAY_SIZE(r.obj); i += 2)
		kmem_cache_free(r.c, r.obj[i]);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(r.c), 0);
}

/* What a function's comment says of its caller ("interrupts off", "LOCK
 * held") is checked with CONFIG_DEBUG_ASSERT (the debug configurations,
 * every host test build): a helper called the wrong way is reported, a
 * WARNING or a spinlock BUG line, and does its work all the same.
 * cpu_cache() wants interrupts off, cache_get_counts() c->lock as well.
 * The lock's check is exact where the holder is recorded (DEBUG_SPINLOCK),
 * or where no other CPU can hold the lock meanwhile. */
static void broken_rules_are_reported(struct ktest *t)
{
	struct kmem_cache *c = kmalloc_class(64);
	int lock_exact = IS_ENABLED(CONFIG_DEBUG_SPINLOCK) ||
			 (IS_ENABLED(CONFIG_SMP) && num_online_cpus() == 1);
	struct slab_counts n;
	unsigned long flags;

	if (!IS_ENABLED(CONFIG_DEBUG_ASSERT)) {
		ktest_skip(t, "CONFIG_DEBUG_ASSERT is off: the assertions compile to nothing");
		return;
	}
	ktest_expect_reports(t, 1 + lock_exact);
	KTEST_EXPECT_PTR_EQ(t, cpu_cache(c), this_magazine(c));	/* interrupts on: one */
	local_irq_save(flags);
	KTEST_EXPECT_PTR_EQ(t, cpu_cache(c), this_magazine(c));	/* kept: none */
	if (lock_exact)
		cache_get_counts(c, &n);			/* no c->lock: one */
	spin_lock(&c->lock);
	cache_get_counts(c, &n);				/* both kept: none */
	spin_unlock(&c->lock);
	local_irq_restore(flags);
	KTEST_EXPECT_GE(t, n.num_objs, n.active_objs);
}

static const struct ktest_case slab_cases[] = {
	KTEST_CASE(order_follows_waste_rule),
	KTEST_CASE(creator_capacity_sizes_magazines),
	KTEST_CASE(large_objects_fit_fragmented_memory),
	KTEST_CASE(descriptor_on_or_off_slab),
	KTEST_CASE(colour_offsets_cycle),
	KTEST_CASE(ctor_once_per_object),
	KTEST_CASE(zeroing_constructed_object_refused),
	KTEST_CASE(array_cache_sizes),
	KTEST_CASE(array_cache_batches),
	KTEST_CASE(reap_timer_gives_pages_back),
	KTEST_CASE(shrink_gives_pages_back),
	KTEST_CASE(destroy_refuses_live_objects),
	KTEST_CASE(slabinfo_counts_match),
	KTEST_CASE(kmalloc_size_classes),
	KTEST_CASE(kmalloc_classes_pack_pages),
	KTEST_CASE(kmalloc_large_takes_exact_pages),
	KTEST_CASE(owner_found_from_page),
	KTEST_CASE(bad_frees_change_nothing),
	KTEST_CASE(internal_objects_refused),
	KTEST_CASE(injected_page_failure),
	KTEST_CASE(create_failure_leaks_nothing),
	KTEST_CASE(grow_failure_gives_pages_back),
	KTEST_CASE(fallback_slabs_serve_fragmented_memory),
	KTEST_CASE(validator_finds_corruption),
	KTEST_CASE(tune_resizes_magazines),
	KTEST_CASE(magazines_only_for_cpus_that_run),
	KTEST_CASE(shrink_waits_for_each_cpu),
	KTEST_CASE(tune_swaps_on_each_cpu),
	KTEST_CASE(destroy_waits_for_each_cpu),
	KTEST_CASE(reaper_ages_every_cpu),
	KTEST_CASE(validate_sound_while_others_allocate),
	KTEST_CASE(racing_double_free_found_at_flush),
	KTEST_CASE(broken_rules_are_reported),
	{}
};

static const struct ktest_suite slab_suite = {
	.name = "slab",
	.cases = slab_cases,
	.init = allocator_suite_init,
	.exit = slab_exit,
};
KTEST_SUITE(slab_suite);
