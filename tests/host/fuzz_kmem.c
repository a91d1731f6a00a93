/* fuzz_kmem.c - a libFuzzer target that drives the object allocator.
 *
 * Each input is a program: every byte picks an operation (kmalloc, kzalloc,
 * kcalloc, krealloc, kfree, cache create/alloc/free/destroy, timer ticks,
 * reclaim) and the following bytes its slot, size and alignment.  Every
 * object is filled with a pattern that depends on its slot and checked
 * before it is resized or freed; zeroed memory is checked to be zero;
 * constructed objects to be constructed.  After every operation the
 * allocator's validator runs (the page allocator's every 32 operations).  At the end everything is freed and, after a
 * reclaim, the allocator must hold exactly as many pages as before the
 * input: no leak.  Any failure aborts, which libFuzzer records as a crash.
 *
 * The same file serves the corpus replay in "make test" (fuzz_main.c feeds
 * it the files of tests/host/corpus) and "make fuzz" (libFuzzer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"

#define SLOTS		64
#define CACHES		4
#define CTOR_BYTE	0xc7

struct object {
	u8 *p;
	size_t len;
	int cache;		/* -1: kmalloc */
};

struct fuzz_cache {
	struct kmem_cache *c;
	size_t size, align;
	int has_ctor;
	long live;
};

static struct object obj[SLOTS];
static struct fuzz_cache caches[CACHES];
static unsigned long baseline_pages, baseline_free;
static const u8 *in;
static size_t in_len;

/* Reports a broken promise with the validators' details, then aborts. */
static void fail(const char *what, unsigned int slot)
{
	console_loglevel = 7;
	fprintf(stderr, "fuzz_kmem: %s (slot %u)\n", what, slot);
	kmem_validate();
	page_alloc_validate();
	abort();
}

static unsigned int next_byte(void)
{
	if (!in_len)
		return 0;
	in_len--;
	return *in++;
}

/* A size with a skewed distribution: mostly small, sometimes pages. */
static size_t next_size(void)
{
	unsigned int sel = next_byte(), lo = next_byte(), hi = next_byte();

	switch (sel % 8) {
	case 0:
		return 0;
	case 1:
		return (((size_t)hi << 8) | lo) * 4 % (20 * PAGE_SIZE);
	case 2:
		return ((size_t)hi << 8 | lo) % 4096;
	default:
		return lo % 256 + 1;
	}
}

static u8 pattern(unsigned int slot, size_t i)
{
	return (u8)(slot * 37 + i * 11 + 1);
}

/* Bytes of an object that carry the pattern: all of a small one, then
 * every 29th and the last (enough to see overlap, cheap for big blocks). */
static size_t next_index(size_t i, size_t len)
{
	if (i < 256 || i + 1 == len)
		return i + 1;
	return i + 29 < len ? i + 29 : len - 1;
}

static void fill(unsigned int slot)
{
	struct object *o = &obj[slot];
	size_t i;

	for (i = (o->cache >= 0 && caches[o->cache].has_ctor); i < o->len; i = next_index(i, o->len))
		o->p[i] = pattern(slot, i);
}

static void check(unsigned int slot, size_t len)
{
	struct object *o = &obj[slot];
	size_t i = (o->cache >= 0 && caches[o->cache].has_ctor);

	if (i && o->p[0] != CTOR_BYTE)
		fail("constructed byte changed", slot);
	for (; i < len && i < o->len; i = next_index(i, o->len))
		if (o->p[i] != pattern(slot, i))
			fail("object contents changed", slot);
}

static void fuzz_ctor(void *p)
{
	*(u8 *)p = CTOR_BYTE;
}

/* The object allocator after every operation; the page allocator, whose
 * check walks all of free memory, every 32 operations and at the end. */
static void validate(int full)
{
	static unsigned int count;

	if (kmem_validate() || ((full || ++count % 32 == 0) && page_alloc_validate()))
		fail("allocator structures are inconsistent", 0);
}

static unsigned long held_pages(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.slab_pages + st.large_pages;
}

static void free_object(unsigned int slot)
{
	struct object *o = &obj[slot];

	check(slot, o->len);
	if (o->cache < 0) {
		kfree(o->p);
	} else {
		kmem_cache_free(caches[o->cache].c, o->p);
		caches[o->cache].live--;
	}
	o->p = NULL;
}

static void op_kmalloc(unsigned int slot, int zero, int calloc)
{
	struct object *o = &obj[slot];
	size_t n = next_size(), m = 1;
	size_t i;

	if (o->p)
		free_object(slot);
	if (calloc) {
		m = next_byte() % 4 == 0 ? (size_t)-1 / 2 + next_byte() : next_byte() % 16 + 1;
		o->p = kcalloc(m, n, GFP_KERNEL | __GFP_NOWARN);
		if (o->p && (n && m > (size_t)-1 / n))
			fail("kcalloc overflow not refused", slot);
		zero = 1;
		n *= m;
	} else {
		o->p = zero ? kzalloc(n, GFP_KERNEL | __GFP_NOWARN) : kmalloc(n, GFP_KERNEL | __GFP_NOWARN);
	}
	if (!n) {
		if (o->p && o->p != ZERO_SIZE_PTR)
			fail("size 0 did not give ZERO_SIZE_PTR", slot);
		o->p = NULL;
		return;
	}
	if (!o->p)
		return;
	if (ksize(o->p) < n || (uintptr_t)o->p % KMALLOC_MIN_ALIGN)
		fail("ksize too small or block misaligned", slot);
	for (i = 0; zero && i < n; i = next_index(i, n))
		if (o->p[i])
			fail("zeroed memory is not zero", slot);
	o->len = n;
	o->cache = -1;
	fill(slot);
}

static void op_krealloc(unsigned int slot)
{
	struct object *o = &obj[slot];
	size_t n = next_size();
	u8 *q;

	if (!o->p || o->cache >= 0)
		return;
	check(slot, o->len);
	q = krealloc(o->p, n, GFP_KERNEL | __GFP_NOWARN);
	if (!n) {
		if (q != ZERO_SIZE_PTR)
			fail("krealloc to 0 did not free", slot);
		o->p = NULL;
		return;
	}
	if (!q) {
		check(slot, o->len);	/* failure leaves the block alone */
		return;
	}
	o->p = q;
	check(slot, min(n, o->len));
	o->len = n;
	fill(slot);
}

static void op_cache_create(unsigned int k)
{
	struct fuzz_cache *fc = &caches[k];
	static const size_t aligns[] = { 0, 0, 8, 16, 64, 256 };

	if (fc->c)
		return;
	fc->size = next_size() + 1;
	fc->align = aligns[next_byte() % ARRAY_SIZE(aligns)];
	fc->has_ctor = next_byte() & 1;
	fc->c = kmem_cache_create("fuzz", fc->size, fc->align, 0,
				  fc->has_ctor ? fuzz_ctor : NULL, NULL);
	if (!fc->c)
		fail("kmem_cache_create failed", k);
	fc->live = 0;
}

static void op_cache_alloc(unsigned int slot, unsigned int k)
{
	struct fuzz_cache *fc = &caches[k];
	struct object *o = &obj[slot];

	if (!fc->c)
		return;
	if (o->p)
		free_object(slot);
	o->p = kmem_cache_alloc(fc->c, GFP_KERNEL | __GFP_NOWARN);
	if (!o->p)
		return;
	if (fc->align && (uintptr_t)o->p % fc->align)
		fail("cache object misaligned", slot);
	if (fc->has_ctor && o->p[0] != CTOR_BYTE)
		fail("cache object not constructed", slot);
	o->len = fc->size;
	o->cache = (int)k;
	fc->live++;
	fill(slot);
}

static void op_cache_destroy(unsigned int k)
{
	struct fuzz_cache *fc = &caches[k];
	int r;

	if (!fc->c)
		return;
	r = kmem_cache_destroy(fc->c);
	if (r != (fc->live ? -1 : 0))
		fail("kmem_cache_destroy gave the wrong answer", k);
	if (!r)
		fc->c = NULL;
}

static void run_op(unsigned int op)
{
	unsigned int slot = next_byte() % SLOTS, k = next_byte() % CACHES, n;

	switch (op % 12) {
	case 0: case 1: op_kmalloc(slot, 0, 0); break;
	case 2: op_kmalloc(slot, 1, 0); break;
	case 3: op_kmalloc(slot, 1, 1); break;
	case 4: op_krealloc(slot); break;
	case 5: case 6: if (obj[slot].p) free_object(slot); break;
	case 7: op_cache_create(k); break;
	case 8: op_cache_alloc(slot, k); break;
	case 9: op_cache_destroy(k); break;
	case 10:
		for (n = next_byte() % 64 + 1; n; n--)
			host_tick();
		break;
	default: kmem_reclaim(); break;
	}
}

/* Frees every object and cache of this input and checks for leaks. */
static void cleanup(void)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++)
		if (obj[i].p)
			free_object(i);
	for (i = 0; i < CACHES; i++) {
		if (caches[i].c && kmem_cache_destroy(caches[i].c))
			fail("kmem_cache_destroy of an empty cache failed", i);
		caches[i].c = NULL;
	}
	validate(1);
	kmem_reclaim();
	if (held_pages() != baseline_pages || nr_free_pages() != baseline_free) {
		console_loglevel = 7;
		fprintf(stderr, "fuzz_kmem: leak: allocator holds %lu pages (was %lu), %lu free (was %lu)\n",
			held_pages(), baseline_pages, nr_free_pages(), baseline_free);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	host_mm_init(16);
	console_loglevel = 2;	/* the expected refusals and reports stay quiet */
	kmem_reclaim();
	baseline_pages = held_pages();
	baseline_free = nr_free_pages();
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	in = data;
	in_len = size;
	while (in_len) {
		run_op(next_byte());
		validate(0);
	}
	cleanup();
	return 0;
}
