/* fuzz_kmem.c - a libFuzzer target that drives the object allocator.
 *
 * Each input is a program, run on FUZZ_MEM_MB of memory.  Every operation
 * starts with three bytes (the operation, a slot, a cache) and reads what
 * else it needs from the bytes after them (ops[] maps the first byte to
 * the operation).  The operations:
 * - kmalloc, kzalloc, kcalloc, krealloc, kfree (of NULL too), GFP_KERNEL
 *   or GFP_ATOMIC, with or without __GFP_ZERO;
 * - cache create (any size, any power-of-two alignment up to 4 pages,
 *   with or without constructor and destructor; and requests it must
 *   refuse), alloc, free, free-and-alloc-again, shrink, destroy;
 * - timer ticks; reclaim;
 * - taking free pages away from the page allocator and giving them back
 *   (squeeze, release); allocating until failure (fill) and freeing that
 *   again (unfill);
 * - bad pointers given to kfree, ksize and kmem_cache_free (bad_cases[]).
 *
 * What is checked:
 * - every object holds the pattern of its slot until it is freed;
 *   zeroed memory is zero; constructed objects are constructed;
 * - the validators after every operation (the page allocator's every 32);
 * - no page goes missing: free pages + allocator pages + pages the fuzzer
 *   holds stay equal to the total, after every operation;
 * - constructors and destructors as slab.h promises: SLOB runs them on
 *   exactly the object allocated or freed; SLAB and SLUB run the
 *   constructor only when a slab is made and the destructor only on
 *   objects out of use (kmem_ctor_every_alloc tells which); no
 *   constructor runs for a failed allocation; a destroyed or reclaimed
 *   empty cache has destructed everything it constructed;
 * - a small allocation fails only when the page allocator could not give
 *   a slab, and a failure leaves every object and structure intact;
 * - a bad pointer is reported once (ksize: returns 0) and changes nothing;
 *   a good free is never reported;
 * - at the end everything is freed and, after a reclaim, the allocator
 *   holds exactly as many pages as before the input: no leak.
 * Any failure aborts, which libFuzzer records as a crash.
 *
 * The same file serves the corpus replay in "make test" (fuzz_main.c feeds
 * it the files of tests/host/corpus) and "make fuzz" (libFuzzer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/kconfig.h>
#include <tiny/irqflags.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"
#include "../../mm/slab_common.h"	/* the bad calls, kmem_bad_free_count */
#if IS_ENABLED(CONFIG_SLUB)
#endif

#define FUZZ_MEM_MB	2		/* small: squeezes and page checks stay cheap */
#define SLOTS		64
#define CACHES		4
#define SPILL_MAX	256		/* objects the fills may hold */
#define HELD_MAX	((FUZZ_MEM_MB << 20) >> PAGE_SHIFT)
#define SMALL_REQUEST	256		/* bytes: needs at most one slab of ... */
#define SPARE_ORDER	5		/* ... 2^5 pages (SLAB_MAX_ORDER) */

#define CTOR_BYTE	0xc7		/* first byte of a constructed object */
#define LIVE_BYTE	0x1e		/* ... while a caller holds it */
#define DTOR_BYTE	0xd7		/* ... once destructed */

extern unsigned long page_bad_free_count;

struct object {
	u8 *p;
	size_t len;
	int cache;		/* -1: kmalloc */
	unsigned int seed;	/* picks the pattern */
	int light;		/* pattern in the first 16 and the last byte only */
};

struct fuzz_cache {
	struct kmem_cache *c;
	size_t size, align;
	int has_ctor, has_dtor;
	long live;
	unsigned long ctor_calls, dtor_calls;
	void *last_ctor, *last_dtor;
};

struct held_block {
	struct page *page;
	unsigned int order;
};

static struct object obj[SLOTS];
static struct object spill[SPILL_MAX];
static unsigned int nr_spill;
static struct fuzz_cache caches[CACHES];
static struct held_block held[HELD_MAX];
static unsigned int nr_held;
static unsigned long held_page_count;
static unsigned long baseline_pages, baseline_free;
static const u8 *in;
static size_t in_len;

/* What the inputs exercised, for fuzz_summary(). */
static struct {
	unsigned long ops, failures, squeezes, ctor_calls, dtor_calls;
	unsigned long bad[24];		/* by bad_cases[] index */
} counts;

/* ---- reporting and input ------------------------------------------------- */

/* Reports a broken promise with the validators' details, then aborts. */
static void fail(const char *what, unsigned long detail)
{
	console_loglevel = 7;
	fprintf(stderr, "fuzz_kmem: %s (%lu)\n", what, detail);
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

static unsigned int next_u16(void)
{
	unsigned int lo = next_byte();

	return lo | next_byte() << 8;
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

/* 0 (the default) half of the time, else a power of two up to 4 pages. */
static size_t next_align(void)
{
	unsigned int b = next_byte();

	return b & 0x80 ? 0 : (size_t)1 << (b % (PAGE_SHIFT + 3));
}

/* GFP_KERNEL or GFP_ATOMIC, sometimes with __GFP_ZERO. */
static gfp_t next_gfp(void)
{
	unsigned int b = next_byte();

	return (b & 1 ? GFP_ATOMIC : GFP_KERNEL) | (b & 2 ? __GFP_ZERO : 0) | __GFP_NOWARN;
}

/* ---- object contents -------------------------------------------------------- */

static u8 pattern(unsigned int seed, size_t i)
{
	return (u8)(seed * 37 + i * 11 + 1);
}

static int constructed(const struct object *o)
{
	return o->cache >= 0 && caches[o->cache].has_ctor;
}

/* What byte i of a live object holds: its pattern, except the first byte
 * of a constructed object, which says "live". */
static inline u8 expected(const struct object *o, size_t i)
{
	return i == 0 && constructed(o) ? LIVE_BYTE : pattern(o->seed, i);
}

/* Bytes of an object that carry the pattern: the first 256, then every
 * 29th, and the last (enough to see overlap, cheap for large blocks); of a
 * light object (what a fill takes) the first 16 and the last. */
static size_t next_index(const struct object *o, size_t i)
{
	size_t len = o->len;

	if (i + 1 >= len || i < (o->light ? 15 : 256))
		return i + 1;
	if (o->light)
		return len - 1;
	return i + 29 < len ? i + 29 : len - 1;
}

static void fill(struct object *o)
{
	size_t i;

	for (i = 0; i < o->len; i = next_index(o, i))
		o->p[i] = expected(o, i);
}

/* Checks the pattern in bytes from..to-1 (those fill() wrote: from must
 * be 0, or the last byte). */
static void check_range(const struct object *o, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to && i < o->len; i = next_index(o, i))
		if (o->p[i] != expected(o, i))
			fail(i ? "object contents changed" : "first byte changed", o->seed);
}

static void check(const struct object *o)
{
	check_range(o, 0, o->len);
}

/* The first 16 and the last byte of every live object: cheap enough to
 * run after every bad pointer and failed allocation (a free checks all). */
static void check_all(void)
{
	unsigned int i;
	const struct object *o;

	for (i = 0; i < SLOTS + nr_spill; i++) {
		o = i < SLOTS ? &obj[i] : &spill[i - SLOTS];
		if (o->p) {
			check_range(o, 0, 16);
			check_range(o, o->len - 1, o->len);
		}
	}
}

/* The first live object that match accepts, or NULL. */
static struct object *find_object(int (*match)(const struct object *o, const void *arg),
				  const void *arg)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++)
		if (obj[i].p && match(&obj[i], arg))
			return &obj[i];
	for (i = 0; i < nr_spill; i++)
		if (match(&spill[i], arg))
			return &spill[i];
	return NULL;
}

static int starts_at(const struct object *o, const void *p)
{
	return o->p == p;
}

static int covers(const struct object *o, const void *p)
{
	return (const u8 *)p >= o->p && (const u8 *)p < o->p + o->len;
}

/* An allocator given a bad pointer may look at the unit before it (SLOB
 * looks for a kmalloc header there).  Where that is inside one of our
 * objects, writes those bytes (fill() skips most of a big object) with
 * the values the checks expect, so that valgrind sees them defined. */
static void define_bytes_before(const void *p)
{
	const u8 *b = p;
	struct object *o;
	size_t back;

	for (back = 1; back <= 2 * sizeof(void *); back++) {
		o = find_object(covers, b - back);
		if (o)
			o->p[b - back - o->p] = expected(o, (size_t)(b - back - o->p));
	}
}

/* ---- constructors and destructors ------------------------------------------------ */

static void on_ctor(unsigned int k, void *p)
{
	struct fuzz_cache *fc = &caches[k];

	fc->ctor_calls++;
	counts.ctor_calls++;
	fc->last_ctor = p;
	if (fc->align && (uintptr_t)p % fc->align)
		fail("constructor got a misaligned object", k);
	*(u8 *)p = CTOR_BYTE;
}

static void on_dtor(unsigned int k, void *p)
{
	struct fuzz_cache *fc = &caches[k];

	fc->dtor_calls++;
	counts.dtor_calls++;
	fc->last_dtor = p;
	if (fc->has_ctor && *(u8 *)p != CTOR_BYTE)
		fail("destructor got an object not in constructed state (live, or destructed twice)", k);
	if (fc->has_ctor)
		*(u8 *)p = DTOR_BYTE;
}

#define CACHE_HOOKS(k) \
	static void ctor_##k(void *p) { on_ctor(k, p); } \
	static void dtor_##k(void *p) { on_dtor(k, p); }
CACHE_HOOKS(0)
CACHE_HOOKS(1)
CACHE_HOOKS(2)
CACHE_HOOKS(3)
static const kmem_cache_ctor_t ctors[CACHES] = { ctor_0, ctor_1, ctor_2, ctor_3 };
static const kmem_cache_ctor_t dtors[CACHES] = { dtor_0, dtor_1, dtor_2, dtor_3 };

/* Constructed minus destructed objects: on SLOB exactly the live ones; on
 * SLAB and SLUB at least those (free objects stay constructed in their
 * slabs). */
static void check_hook_counts(void)
{
	unsigned int k;

	for (k = 0; k < CACHES; k++) {
		struct fuzz_cache *fc = &caches[k];
		long made;

		if (!fc->c || !fc->has_ctor || !fc->has_dtor)
			continue;
		made = (long)(fc->ctor_calls - fc->dtor_calls);
		if (made < fc->live || (kmem_ctor_every_alloc && made != fc->live))
			fail("constructor and destructor calls do not match the live objects", k);
	}
}

/* After a reclaim or destroy, a cache with no live object has destructed
 * every object it constructed. */
static void check_all_destructed(const struct fuzz_cache *fc)
{
	if (fc->has_ctor && fc->has_dtor && !fc->live && fc->ctor_calls != fc->dtor_calls)
		fail("an empty cache kept constructed objects after reclaim or destroy",
		     fc->ctor_calls - fc->dtor_calls);
}

/* ---- validators and accounting ------------------------------------------------------ */

/* The object allocator after every operation; the page allocator, whose
 * check walks all of free memory, every 32 operations and at the end. */
static void validate(int full)
{
	static unsigned int count;

	if (kmem_validate() || ((full || ++count % 32 == 0) && page_alloc_validate()))
		fail("allocator structures are inconsistent", 0);
}

/* Pages the object allocator holds (slabs or heap, and large blocks). */
static unsigned long allocator_pages(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.slab_pages + st.large_pages;
}

/* Every page is free, the allocator's, or held by the fuzzer. */
static void check_pages_add_up(void)
{
	unsigned long now = nr_free_pages() + allocator_pages() + held_page_count;

	if (now != baseline_free + baseline_pages)
		fail("pages went missing (or appeared)", now);
}

/* Could the page allocator give a slab of 2^SPARE_ORDER pages? */
static int pages_to_spare(gfp_t gfp)
{
	unsigned long keep = (gfp & __GFP_HIGH) ? 0 : min_free_pages();
	struct buddy_snapshot s;
	unsigned int o;

	page_alloc_snapshot(&s);
	if (s.free_pages < keep + (1UL << SPARE_ORDER))
		return 0;
	for (o = SPARE_ORDER; o < MAX_ORDER; o++)
		if (s.nr_free[o])
			return 1;
	return 0;
}

/* After an allocation of size bytes failed: that must have been for want
 * of memory (a small request needs at most a slab of 2^SPARE_ORDER pages),
 * and must have left every object and structure intact. */
static void check_failure(size_t size, size_t align, gfp_t gfp, const char *what)
{
	if (size <= SMALL_REQUEST && align <= SMALL_REQUEST && pages_to_spare(gfp))
		fail(what, size);
	counts.failures++;
	check_all();
	validate(0);
}

/* ---- freeing what the fuzzer holds ------------------------------------------------- */

static void free_cache_object(struct object *o)
{
	struct fuzz_cache *fc = &caches[o->cache];
	unsigned long ctor_calls = fc->ctor_calls, dtor_calls = fc->dtor_calls;

	if (fc->has_ctor)
		o->p[0] = CTOR_BYTE;	/* returned in constructed state */
	kmem_cache_free(fc->c, o->p);
	fc->live--;
	if (fc->ctor_calls != ctor_calls)
		fail("kmem_cache_free ran the constructor", o->cache);
	if (kmem_ctor_every_alloc && fc->has_dtor &&
	    (fc->dtor_calls != dtor_calls + 1 || fc->last_dtor != o->p))
		fail("SLOB did not destruct exactly the object freed", o->cache);
}

static void free_object(struct object *o)
{
	unsigned long bad = kmem_bad_free_count;

	check(o);
	if (o->cache < 0)
		kfree(o->p);
	else
		free_cache_object(o);
	if (kmem_bad_free_count != bad)
		fail("a good free was reported as bad", o->seed);
	o->p = NULL;
}

static void free_slot(unsigned int slot)
{
	if (obj[slot].p)
		free_object(&obj[slot]);
}

/* ---- kmalloc and friends ------------------------------------------------------------- */

/* Takes a fresh kmalloc() block p of n bytes (zeroed if zero) into o;
 * seed is the slot, or SLOTS + the index in spill[] (a light object). */
static void adopt_block(struct object *o, u8 *p, size_t n, int zero, unsigned int seed)
{
	size_t i;

	if (ksize(p) < n || (uintptr_t)p % KMALLOC_MIN_ALIGN)
		fail("ksize too small or block misaligned", seed);
	*o = (struct object){ .p = p, .len = n, .cache = -1, .seed = seed, .light = seed >= SLOTS };
	for (i = 0; zero && i < n; i = next_index(o, i))
		if (p[i])
			fail("zeroed memory is not zero", seed);
	fill(o);
}

/* kmalloc (kzalloc if zero) of n bytes into slot. */
static void alloc_block(unsigned int slot, size_t n, int zero, gfp_t gfp)
{
	u8 *p = zero ? kzalloc(n, gfp) : kmalloc(n, gfp);

	zero |= (gfp & __GFP_ZERO) != 0;
	if (!n) {
		if (p != ZERO_SIZE_PTR)
			fail("size 0 did not give ZERO_SIZE_PTR", slot);
		return;
	}
	if (!p)
		check_failure(n, 0, gfp, "a small kmalloc failed with memory to spare");
	else
		adopt_block(&obj[slot], p, n, zero, slot);
}

static void op_kmalloc(unsigned int slot, unsigned int k)
{
	size_t n = next_size();

	free_slot(slot);
	alloc_block(slot, n, 0, next_gfp());
}

static void op_kzalloc(unsigned int slot, unsigned int k)
{
	size_t n = next_size();

	free_slot(slot);
	alloc_block(slot, n, 1, next_gfp() & ~__GFP_ZERO);
}

static void op_kcalloc(unsigned int slot, unsigned int k)
{
	size_t n = next_size(), m;
	u8 *p;

	free_slot(slot);
	m = next_byte() % 4 == 0 ? (size_t)-1 / 2 + next_byte() : next_byte() % 16 + 1;
	p = kcalloc(m, n, GFP_KERNEL | __GFP_NOWARN);
	if (n && m > (size_t)-1 / n) {
		if (p)
			fail("kcalloc overflow not refused", slot);
		return;
	}
	if (!(n * m)) {
		if (p != ZERO_SIZE_PTR)
			fail("kcalloc of 0 bytes did not give ZERO_SIZE_PTR", slot);
		return;
	}
	if (!p)
		check_failure(n * m, 0, GFP_KERNEL, "a small kcalloc failed with memory to spare");
	else
		adopt_block(&obj[slot], p, n * m, 1, slot);
}

static void op_krealloc(unsigned int slot, unsigned int k)
{
	struct object *o = &obj[slot];
	size_t n = next_size();
	u8 *q;

	if (!o->p || o->cache >= 0)
		return;
	check(o);
	q = krealloc(o->p, n, GFP_KERNEL | __GFP_NOWARN);
	if (!n) {
		if (q != ZERO_SIZE_PTR)
			fail("krealloc to 0 did not free", slot);
		o->p = NULL;
		return;
	}
	if (!q) {
		check_failure(n, 0, GFP_KERNEL, "a small krealloc failed with memory to spare");
		return;			/* check_failure saw the block left alone */
	}
	o->p = q;
	check_range(o, 0, min(n, o->len));
	o->len = n;
	fill(o);
}

/* Frees the object in slot; an empty slot frees NULL and ZERO_SIZE_PTR,
 * which must be quiet no-ops (and ksize of them 0). */
static void op_free(unsigned int slot, unsigned int k)
{
	unsigned long bad = kmem_bad_free_count;

	if (obj[slot].p) {
		free_slot(slot);
		return;
	}
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	if (caches[k].c)
		kmem_cache_free(caches[k].c, NULL);
	if (ksize(NULL) || ksize(ZERO_SIZE_PTR) || kmem_bad_free_count != bad)
		fail("freeing NULL or ZERO_SIZE_PTR is not a quiet no-op", k);
}

/* ---- caches ----------------------------------------------------------------------- */

/* A request kmem_cache_create() must refuse (returning NULL): size 0, an
 * alignment not a power of two, an object or alignment larger than the
 * largest block of pages. */
static void create_refused(unsigned int k)
{
	static const struct { size_t size, align; } bad[] = {
		{ 0, 0 }, { 64, 24 }, { 64, 3 },
		{ (PAGE_SIZE << (MAX_ORDER - 1)) + 1, 0 }, { 64, PAGE_SIZE << MAX_ORDER },
	};
	unsigned int i = next_byte() % ARRAY_SIZE(bad);

	if (kmem_cache_create("fuzz", bad[i].size, bad[i].align, 0, NULL, NULL))
		fail("kmem_cache_create accepted a bad request", i);
}

/* Cache names are unique, one per slot: where the kernel keeps the cache
 * registry (CONFIG_SLAB_REGISTRY) a taken name is refused; SLOB's
 * production build does not check names (include/tiny/slab.h). */
static const char *const cache_names[CACHES] = { "fuzz0", "fuzz1", "fuzz2", "fuzz3" };

static void op_cache_create(unsigned int slot, unsigned int k)
{
	struct fuzz_cache *fc = &caches[k];
	unsigned long flags = 0;
	size_t align;
	unsigned int b;

	if (fc->c)
		return;
	fc->size = next_size() + 1;
	align = next_align();
	b = next_byte();
	if ((b & 0x70) == 0x70) {
		create_refused(k);
		return;
	}
	fc->has_ctor = b & 1;
	fc->has_dtor = (b >> 1) & 1;
	if (b & 4)
		flags |= SLAB_HWCACHE_ALIGN;	/* a hint: nothing to check */
	if (b & 8)
		flags |= SLAB_MUST_HWCACHE_ALIGN;
	fc->align = flags & SLAB_MUST_HWCACHE_ALIGN ? max_t(size_t, align, L1_CACHE_BYTES) : align;
	fc->live = 0;
	fc->ctor_calls = fc->dtor_calls = 0;
	fc->c = kmem_cache_create(cache_names[k], fc->size, align, flags,
				  fc->has_ctor ? ctors[k] : NULL, fc->has_dtor ? dtors[k] : NULL);
	if (!fc->c)
		check_failure(0, 0, GFP_KERNEL, "kmem_cache_create failed with memory to spare");
	else if (kmem_cache_size(fc->c) != fc->size || strcmp(kmem_cache_name(fc->c), cache_names[k]))
		fail("kmem_cache_size or kmem_cache_name is wrong", k);
	else if (IS_ENABLED(CONFIG_SLAB_REGISTRY) &&
		 kmem_cache_create(cache_names[k], 8, 0, 0, NULL, NULL))
		fail("a second cache of a taken name was created", k);
}

/* One object of cache k, or NULL; checks what the allocation promised. */
static u8 *cache_alloc_checked(unsigned int k, gfp_t gfp)
{
	struct fuzz_cache *fc = &caches[k];
	unsigned long ctor_calls = fc->ctor_calls, dtor_calls = fc->dtor_calls;
	u8 *p;
	size_t i;

	if (fc->has_ctor)
		gfp &= ~__GFP_ZERO;	/* would undo the constructor */
	p = kmem_cache_alloc(fc->c, gfp);
	if (fc->dtor_calls != dtor_calls)
		fail("kmem_cache_alloc ran the destructor", k);
	if (!p) {
		if (fc->ctor_calls != ctor_calls)
			fail("a constructor ran for a failed allocation", k);
		check_failure(fc->size, fc->align, gfp, "a small cache allocation failed with memory to spare");
		return NULL;
	}
	if (fc->align && (uintptr_t)p % fc->align)
		fail("cache object misaligned", k);
	if (kmem_ctor_every_alloc && fc->has_ctor &&
	    (fc->ctor_calls != ctor_calls + 1 || fc->last_ctor != p))
		fail("SLOB did not construct exactly the object allocated", k);
	if (fc->has_ctor && p[0] != CTOR_BYTE)
		fail("cache object not constructed", k);
	for (i = 0; (gfp & __GFP_ZERO) && i < fc->size; i += 1 + i / 16)
		if (p[i])
			fail("zeroed cache object is not zero", k);
	fc->live++;
	return p;
}

static void adopt_cache_object(struct object *o, u8 *p, unsigned int k, unsigned int seed)
{
	*o = (struct object){ .p = p, .len = caches[k].size, .cache = (int)k, .seed = seed,
			      .light = seed >= SLOTS };
	fill(o);
}

static void op_cache_alloc(unsigned int slot, unsigned int k)
{
	gfp_t gfp = next_gfp();
	u8 *p;

	if (!caches[k].c)
		return;
	free_slot(slot);
	p = cache_alloc_checked(k, gfp);
	if (p)
		adopt_cache_object(&obj[slot], p, k, slot);
}

/* Frees a cache object and allocates one again at once: the object just
 * freed is there to be had, so this cannot fail.  SLAB hands out a
 * constructed object without running the constructor (SLUB may have given
 * the emptied slab back, with its destructor, and construct a new one). */
static void op_cache_recycle(unsigned int slot, unsigned int k)
{
	struct object *o = &obj[slot];
	struct fuzz_cache *fc;
	unsigned long ctor_calls;
	u8 *p;

	if (!o->p || o->cache < 0)
		return;
	k = (unsigned int)o->cache;
	fc = &caches[k];
	free_object(o);
	ctor_calls = fc->ctor_calls;
	p = cache_alloc_checked(k, GFP_ATOMIC | __GFP_NOWARN);
	if (!p)
		fail("no object right after freeing one", k);
	if (IS_ENABLED(CONFIG_SLAB) && fc->ctor_calls != ctor_calls)
		fail("SLAB constructed objects with a free one at hand", k);
	adopt_cache_object(o, p, k, slot);
}

static void op_cache_shrink(unsigned int slot, unsigned int k)
{
	if (caches[k].c)
		kmem_cache_shrink(caches[k].c);
}

static void op_cache_destroy(unsigned int slot, unsigned int k)
{
	struct fuzz_cache *fc = &caches[k];
	int r;

	if (!fc->c)
		return;
	r = kmem_cache_destroy(fc->c);
	if (r != (fc->live ? -1 : 0))
		fail("kmem_cache_destroy gave the wrong answer", k);
	if (r)
		return;
	fc->c = NULL;
	check_all_destructed(fc);
}

/* ---- time and reclaim -------------------------------------------------------------- */

static void op_ticks(unsigned int slot, unsigned int k)
{
	unsigned int n;

	for (n = next_byte() % 64 + 1; n; n--)
		host_tick();
}

static void op_reclaim(unsigned int slot, unsigned int k)
{
	kmem_reclaim();
	for (k = 0; k < CACHES; k++)
		if (caches[k].c)
			check_all_destructed(&caches[k]);
}

/* ---- memory exhaustion ------------------------------------------------------------- */

/* Takes free pages (largest blocks first, reserve included) until at most
 * 0..31 are left (GFP_KERNEL leaves min_free_pages(), 8 here, alone). */
static void op_squeeze(unsigned int slot, unsigned int k)
{
	unsigned long target = next_byte() % 32, before = nr_free_pages();
	unsigned int order;
	struct page *page;

	for (order = MAX_ORDER; order-- > 0;) {
		while (nr_free_pages() >= target + (1UL << order) && nr_held < HELD_MAX) {
			page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN, order);
			if (!page)
				break;
			held[nr_held++] = (struct held_block){ page, order };
			held_page_count += 1UL << order;
		}
	}
	if (nr_free_pages() != min(before, target))
		fail("the page allocator would not give its free pages", nr_free_pages());
	counts.squeezes += before > target;
}

/* Gives the squeezed pages back: all of them, or the 1..7 blocks taken
 * last (the smallest: a squeeze then takes only those again). */
static void op_release(unsigned int slot, unsigned int k)
{
	unsigned int n = next_byte() % 8;

	if (!n)
		n = nr_held;
	for (; n && nr_held; n--) {
		nr_held--;
		__free_pages(held[nr_held].page, held[nr_held].order);
		held_page_count -= 1UL << held[nr_held].order;
	}
}

/* Allocates kmalloc blocks of one size, or objects of cache k, until one
 * fails (or SPILL_MAX are taken); keeps them in spill[]. */
static void op_fill(unsigned int slot, unsigned int k)
{
	int from_cache = (next_byte() & 1) && caches[k].c;
	size_t n = next_size();
	gfp_t gfp = next_gfp();
	u8 *p;

	if (!from_cache && !n)
		return;
	while (nr_spill < SPILL_MAX) {
		struct object *o = &spill[nr_spill];

		if (from_cache) {
			p = cache_alloc_checked(k, gfp);
			if (p)
				adopt_cache_object(o, p, k, SLOTS + nr_spill);
		} else {
			p = kmalloc(n, gfp);
			if (p)
				adopt_block(o, p, n, (gfp & __GFP_ZERO) != 0, SLOTS + nr_spill);
			else
				check_failure(n, 0, gfp, "kmalloc failed with memory to spare");
		}
		if (!p)
			break;
		nr_spill++;
	}
}

/* Frees what the fills took, oldest or newest first. */
static void op_unfill(unsigned int slot, unsigned int k)
{
	unsigned int i;

	if (next_byte() & 1) {
		for (i = 0; i < nr_spill; i++)
			free_object(&spill[i]);
	} else {
		for (i = nr_spill; i--;)
			free_object(&spill[i]);
	}
	nr_spill = 0;
}

/* ---- bad pointers ------------------------------------------------------------------- */

enum bad_call { BAD_KFREE, BAD_KSIZE, BAD_CACHE_FREE };

struct bad_ptr {
	u8 *ptr;
	struct kmem_cache *cache;	/* for BAD_CACHE_FREE */
	u8 *stack;			/* a buffer on the caller's stack */
};

/* A pick fills in b from live object slot (or the next suitable one) and
 * cache k; returns 0 if there is nothing suitable. */
typedef int (*bad_pick_t)(unsigned int slot, unsigned int k, struct bad_ptr *b);

static int is_kmalloc(const struct object *o, const void *unused)
{
	return o->cache < 0;
}

static int is_cached(const struct object *o, const void *unused)
{
	return o->cache >= 0;
}

static int in_other_cache(const struct object *o, const void *k)
{
	return o->cache >= 0 && o->cache != *(const int *)k;
}

/* The first live slot from slot on (wrapping) that match accepts. */
static struct object *live_slot(unsigned int slot, int (*match)(const struct object *, const void *),
				const void *arg)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++) {
		struct object *o = &obj[(slot + i) % SLOTS];

		if (o->p && match(o, arg))
			return o;
	}
	return NULL;
}

/* An existing cache, k or the next one; NULL if none. */
static struct kmem_cache *some_cache(unsigned int k)
{
	unsigned int i;

	for (i = 0; i < CACHES; i++)
		if (caches[(k + i) % CACHES].c)
			return caches[(k + i) % CACHES].c;
	return NULL;
}

static int pick_inside(struct object *o, struct bad_ptr *b)
{
	size_t off = next_u16();

	if (!o || o->len < 2)
		return 0;
	b->ptr = o->p + 1 + off % (o->len - 1);
	b->cache = o->cache >= 0 ? caches[o->cache].c : NULL;
	return 1;
}

static int pick_kmalloc_inside(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_inside(live_slot(slot, is_kmalloc, NULL), b);
}

static int pick_cache_inside(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_inside(live_slot(slot, is_cached, NULL), b);
}

static int run_known_gaps;	/* FUZZ_KMEM_KNOWN_GAPS=1: every case, caught or not */

/* Is p in the header of a block whose body is body (the few bytes
 * before it)? */
static int header_before(const void *body, const void *p)
{
	return (const u8 *)p < (const u8 *)body &&
	       (size_t)((const u8 *)body - (const u8 *)p) <= 2 * sizeof(void *);
}

/* Is p a kmalloc() block's header? */
static int header_of(const struct object *o, const void *p)
{
	return o->cache < 0 && header_before(o->p, p);
}

/* Under SLOB, is p the header of one of the heap's tagged blocks that we
 * know of: a kmalloc() block of ours, or the struct of one of our caches
 * (SLOB keeps a cache's struct in its heap as a block of its own, with a
 * header as kmalloc()'s)?  A heap block starts there, as a cache object
 * of its size would: kmem_cache_free() of it is a free to the wrong cache
 * of the same size, which SLOB leaves to kmem_debug= (docs/design.md's
 * table; the fuzzer found SLOB's fast heap freeing a live kmalloc(24)
 * block this way, and then a cache's struct at the start of a page). */
static int slob_header_at(const void *p)
{
	unsigned int k;

	if (!IS_ENABLED(CONFIG_SLOB))
		return 0;
	if (find_object(header_of, p))
		return 1;
	for (k = 0; k < CACHES; k++)
		if (caches[k].c && header_before(caches[k].c, p))
			return 1;
	return 0;
}

/* Just past the end of the size asked for; not when that is where some
 * other live object of ours starts (freeing that would be right), nor
 * where a tagged block's header is under SLOB (slob_header_at(); the
 * fuzzer found SLOB's fast heap running a destructor on such a header). */
static int pick_end(struct object *o, struct bad_ptr *b)
{
	/* past a block that fills its slot lies the next one's start: where
	 * that one is free, the call is a double free after other frees */
	if (!o || find_object(starts_at, o->p + o->len) || slob_header_at(o->p + o->len) ||
	    (!run_known_gaps && !kmem_allocator_catches(KMEM_BAD_DOUBLE_FREE_LATER)))
		return 0;
	b->ptr = o->p + o->len;
	b->cache = o->cache >= 0 ? caches[o->cache].c : NULL;
	return 1;
}

static int pick_kmalloc_end(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_end(live_slot(slot, is_kmalloc, NULL), b);
}

static int pick_cache_end(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_end(live_slot(slot, is_cached, NULL), b);
}

/* Frees the object properly; the pointer is then freed already. */
static int pick_freed(struct object *o, struct bad_ptr *b)
{
	if (!o)
		return 0;
	b->ptr = o->p;
	b->cache = o->cache >= 0 ? caches[o->cache].c : NULL;
	free_object(o);
	return 1;
}

static int pick_kmalloc_freed(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_freed(live_slot(slot, is_kmalloc, NULL), b);
}

static int pick_cache_freed(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	return pick_freed(live_slot(slot, is_cached, NULL), b);
}

static int pick_stack(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	b->ptr = b->stack + next_byte() % 64;
	b->cache = some_cache(k);
	return 1;
}

static int pick_global(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	static u8 global[256];

	b->ptr = global + next_byte();
	b->cache = some_cache(k);
	return 1;
}

/* The start of a page up to 4 pages before or after a live object. */
static int pick_page_start(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	struct object *o = live_slot(slot, is_kmalloc, NULL);
	long delta = (long)(next_byte() % 9) - 4;
	u8 *p;

	if (!o)
		o = live_slot(slot, is_cached, NULL);
	if (!o)
		return 0;
	p = (u8 *)(((uintptr_t)o->p & PAGE_MASK) + delta * (long)PAGE_SIZE);
	/* A page start may be the start of a free object in a slab (SLAB's
	 * objects with their descriptor off the slab, SLUB's slabs): freeing
	 * it is a double free, which an allocator that leaves those to
	 * kmem_debug= does not catch.  There the pointer is one byte further:
	 * no object starts there, whatever the layout. */
	if (!kmem_allocator_catches(KMEM_BAD_DOUBLE_FREE_LATER))
		p++;
	/* Nor the header of a tagged block under SLOB (slob_header_at()). */
	if (find_object(starts_at, p) || slob_header_at(p))
		return 0;
	b->ptr = p;
	b->cache = some_cache(k);
	return 1;
}

/* A live cache object (for kfree and ksize). */
static int pick_cache_object(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	struct object *o = live_slot(slot, is_cached, NULL);

	if (!o)
		return 0;
	b->ptr = o->p;
	return 1;
}

/* A live kmalloc() block, to be freed into cache k (or another cache). */
static int pick_kmalloc_object(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	struct object *o = live_slot(slot, is_kmalloc, NULL);

	b->cache = some_cache(k);
	if (!o || !b->cache)
		return 0;
	b->ptr = o->p;
	return 1;
}

/* The units (two words each) of SLOB's block for a cache object of size
 * bytes: never fewer than two (mm/slob.c). */
static size_t slob_units(size_t size)
{
	return max_t(size_t, DIV_ROUND_UP(size, 2 * sizeof(void *)), 2);
}

/* The stride SLUB gives objects of a fuzzer cache (mm/slub.c), as far as
 * merging goes. */
/* Has SLUB merged the two caches (include/tiny/slab.h)?  Then they are one
 * cache, and an object freed to the other is a free, not a bad call. */
static int merged(const struct fuzz_cache *a, const struct fuzz_cache *b)
{
	return kmem_cache_slabs_of(a->c) == kmem_cache_slabs_of(b->c);
}

/* A live object of one cache, to be freed into another. */
static int pick_wrong_cache(unsigned int slot, unsigned int k, struct bad_ptr *b)
{
	struct kmem_cache *c = some_cache(k);
	int ck;
	struct object *o;

	if (!c)
		return 0;
	for (ck = 0; caches[ck].c != c; ck++)
		;
	o = live_slot(slot, in_other_cache, &ck);
	if (!o)
		return 0;
	/* objects of the same size in SLOB's units are KMEM_BAD_WRONG_CACHE_SAME_SIZE,
	 * another case: left out here */
	if (slob_units(caches[o->cache].size) == slob_units(caches[ck].size) ||
	    merged(&caches[o->cache], &caches[ck]))
		return 0;
	b->ptr = o->p;
	b->cache = c;
	return 1;
}

/*
 * The bad pointers, each a case of mm/slab_common.h's enum kmem_bad_call: run
 * where the allocator built catches that case by itself
 * (kmem_allocator_catches()); FUZZ_KMEM_KNOWN_GAPS=1 in the environment runs
 * the others too, which corrupt the heap.
 */
static const struct bad_case {
	const char *name;
	enum bad_call call;
	bad_pick_t pick;
	enum kmem_bad_call what;
} bad_cases[] = {
	{ "kfree: inside a live block",			BAD_KFREE, pick_kmalloc_inside, KMEM_BAD_INSIDE_KMALLOC },
	{ "kfree: just past a live block",		BAD_KFREE, pick_kmalloc_end, KMEM_BAD_INSIDE_KMALLOC },
	{ "kfree: a freed block (double free)",		BAD_KFREE, pick_kmalloc_freed, KMEM_BAD_DOUBLE_KFREE },
	{ "kfree: a stack address",			BAD_KFREE, pick_stack, KMEM_BAD_NOT_HEAP },
	{ "kfree: a global",				BAD_KFREE, pick_global, KMEM_BAD_NOT_HEAP },
	{ "kfree: a page start in the heap",		BAD_KFREE, pick_page_start, KMEM_BAD_INSIDE_KMALLOC },
	{ "kfree: a cache object",			BAD_KFREE, pick_cache_object, KMEM_BAD_OBJECT_TO_KFREE },
	{ "ksize: inside a live block",			BAD_KSIZE, pick_kmalloc_inside, KMEM_BAD_INSIDE_KMALLOC },
	{ "ksize: just past a live block",		BAD_KSIZE, pick_kmalloc_end, KMEM_BAD_INSIDE_KMALLOC },
	{ "ksize: a freed block",			BAD_KSIZE, pick_kmalloc_freed, KMEM_BAD_DOUBLE_KFREE },
	{ "ksize: a stack address",			BAD_KSIZE, pick_stack, KMEM_BAD_NOT_HEAP },
	{ "ksize: a global",				BAD_KSIZE, pick_global, KMEM_BAD_NOT_HEAP },
	{ "ksize: a page start in the heap",		BAD_KSIZE, pick_page_start, KMEM_BAD_INSIDE_KMALLOC },
	{ "ksize: a cache object",			BAD_KSIZE, pick_cache_object, KMEM_BAD_OBJECT_TO_KFREE },
	{ "kmem_cache_free: inside a live object",	BAD_CACHE_FREE, pick_cache_inside, KMEM_BAD_INSIDE_OBJECT },
	{ "kmem_cache_free: just past a live object",	BAD_CACHE_FREE, pick_cache_end, KMEM_BAD_INSIDE_OBJECT },
	{ "kmem_cache_free: a freed object (double free)", BAD_CACHE_FREE, pick_cache_freed, KMEM_BAD_DOUBLE_CACHE_FREE },
	{ "kmem_cache_free: a stack address",		BAD_CACHE_FREE, pick_stack, KMEM_BAD_NOT_HEAP },
	{ "kmem_cache_free: a global",			BAD_CACHE_FREE, pick_global, KMEM_BAD_NOT_HEAP },
	{ "kmem_cache_free: a page start in the heap",	BAD_CACHE_FREE, pick_page_start, KMEM_BAD_INSIDE_OBJECT },
	{ "kmem_cache_free: a kmalloc() block",		BAD_CACHE_FREE, pick_kmalloc_object, KMEM_BAD_KMALLOC_TO_CACHE },
	{ "kmem_cache_free: another cache's object",	BAD_CACHE_FREE, pick_wrong_cache, KMEM_BAD_WRONG_CACHE },
};
BUILD_BUG_ON(ARRAY_SIZE(bad_cases) > ARRAY_SIZE(counts.bad));

static int bad_case_enabled(const struct bad_case *bc)
{
	return run_known_gaps || kmem_allocator_catches(bc->what);
}

/* What a bad call may not change. */
struct bad_snapshot {
	unsigned long kmem_bad, page_bad, free_pages;
	struct kmem_stats stats;
	unsigned long hook_calls[CACHES];
};

static void take_snapshot(struct bad_snapshot *s)
{
	unsigned int k;

	s->kmem_bad = kmem_bad_free_count;
	s->page_bad = page_bad_free_count;
	s->free_pages = nr_free_pages();
	kmem_get_stats(&s->stats);
	for (k = 0; k < CACHES; k++)
		s->hook_calls[k] = caches[k].ctor_calls + caches[k].dtor_calls;
}

static void check_unchanged(const struct bad_snapshot *before, const struct bad_case *bc)
{
	struct bad_snapshot now;

	take_snapshot(&now);
	now.kmem_bad -= 1;				/* the one report */
	if (memcmp(&now, before, sizeof(now))) {
		console_loglevel = 7;
		fprintf(stderr, "fuzz_kmem: %s: reports %lu (want %lu), page reports %lu (want %lu), "
			"free pages %lu (want %lu), bytes used %lu (want %lu)\n", bc->name,
			kmem_bad_free_count, before->kmem_bad + 1,
			now.page_bad, before->page_bad, now.free_pages, before->free_pages,
			now.stats.bytes_used, before->stats.bytes_used);
		fail("a bad pointer was not reported exactly once, or changed something",
		     (unsigned long)(bc - bad_cases));
	}
	check_all();
	validate(0);
}

static void op_bad_pointer(unsigned int slot, unsigned int k)
{
	const struct bad_case *bc = &bad_cases[next_byte() % ARRAY_SIZE(bad_cases)];
	u8 stack[64] __attribute__((aligned(16)));
	struct bad_ptr b = { .stack = stack };
	struct bad_snapshot before;

	if (!bad_case_enabled(bc) || !bc->pick(slot, k, &b))
		return;
	if (bc->call == BAD_CACHE_FREE && !b.cache)
		return;
	define_bytes_before(b.ptr);
	take_snapshot(&before);
	switch (bc->call) {
	case BAD_KFREE:
		kfree(b.ptr);
		break;
	case BAD_KSIZE:
		if (ksize(b.ptr)) {
			fprintf(stderr, "fuzz_kmem: %s: ksize gave %zu\n", bc->name, ksize(b.ptr));
			fail("ksize of a bad pointer is not 0", (unsigned long)(bc - bad_cases));
		}
		break;
	case BAD_CACHE_FREE:
		kmem_cache_free(b.cache, b.ptr);
		break;
	}
	check_unchanged(&before, bc);
	counts.bad[bc - bad_cases]++;
}

/* ---- the interpreter ---------------------------------------------------------------- */

typedef void (*op_t)(unsigned int slot, unsigned int k);

/* Operations by their first byte (modulo the count); repeats weight them. */
static const op_t ops[] = {
	op_kmalloc, op_kmalloc, op_kzalloc, op_kcalloc, op_krealloc, op_free, op_free,
	op_cache_create, op_cache_alloc, op_cache_alloc, op_cache_recycle, op_cache_shrink,
	op_cache_destroy, op_ticks, op_reclaim, op_squeeze, op_release, op_fill, op_unfill,
	op_bad_pointer, op_bad_pointer,
};

static void run_op(void)
{
	unsigned int op = next_byte(), slot = next_byte() % SLOTS, k = next_byte() % CACHES;

	ops[op % ARRAY_SIZE(ops)](slot, k);
	counts.ops++;
	validate(0);
	check_pages_add_up();
	check_hook_counts();
}

/* Frees everything this input holds and checks for leaks. */
static void cleanup(void)
{
	unsigned int i;

	in_len = 0;		/* the ops below read 0: release all, newest first */
	op_release(0, 0);
	op_unfill(0, 0);
	for (i = 0; i < SLOTS; i++)
		free_slot(i);
	for (i = 0; i < CACHES; i++) {
		if (caches[i].c && kmem_cache_destroy(caches[i].c))
			fail("kmem_cache_destroy of an empty cache failed", i);
		if (caches[i].c)
			check_all_destructed(&caches[i]);
		caches[i].c = NULL;
	}
	validate(1);
	kmem_reclaim();
	if (allocator_pages() != baseline_pages || nr_free_pages() != baseline_free) {
		console_loglevel = 7;
		fprintf(stderr, "fuzz_kmem: leak: allocator holds %lu pages (was %lu), %lu free (was %lu)\n",
			allocator_pages(), baseline_pages, nr_free_pages(), baseline_free);
		abort();
	}
}

/* Prints what the inputs so far exercised (fuzz_main.c, after a replay). */
void fuzz_summary(void)
{
	unsigned long bad = 0;
	unsigned int i, kinds = 0, enabled = 0;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		bad += counts.bad[i];
		kinds += counts.bad[i] != 0;
		enabled += bad_case_enabled(&bad_cases[i]);
		printf("fuzz_kmem: %6lu x %s%s\n", counts.bad[i], bad_cases[i].name,
		       bad_case_enabled(&bad_cases[i]) ? "" : " (known gap, skipped)");
	}
	printf("fuzz_kmem: %lu operations, %lu allocation failures, %lu squeezes, "
	       "%lu constructor and %lu destructor calls, %lu bad pointers of %u kinds "
	       "(%u of %zu kinds enabled)\n", counts.ops, counts.failures, counts.squeezes,
	       counts.ctor_calls, counts.dtor_calls, bad, kinds, enabled, ARRAY_SIZE(bad_cases));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *gaps = getenv("FUZZ_KMEM_KNOWN_GAPS");

	(void)argc;
	(void)argv;
	run_known_gaps = gaps && *gaps == '1';
	host_mm_init(FUZZ_MEM_MB);
	console_loglevel = 2;	/* the expected refusals and reports stay quiet */
	kmem_reclaim();
	baseline_pages = allocator_pages();
	baseline_free = nr_free_pages();
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	in = data;
	in_len = size;
	while (in_len)
		run_op();
	cleanup();
	return 0;
}
