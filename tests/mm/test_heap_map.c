/* test_heap_map.c - the heap map (kmem_heap_map()) draws what the
 * allocator holds, for every allocator.
 *
 * SLAB and SLUB draw a row per cache: a new cache with one slab full and
 * one half full must show one slab's pages as '#' and the other's as '+'
 * (and nothing else but empty slabs).  SLOB draws its heap pages by list:
 * its cells must be the heap's pages, pages filled with small blocks must
 * show (nearly) full, and a large block as '#' cells in the large row.  The map is
 * read line by line through kmem_heap_map_lines(), as the console shows it.
 */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/string.h>
#include "../../mm/slab_common.h"	/* kmem_heap_visit() */
#include "allocator_suite.h"

#define CACHE_NAME	"heapmap_test"
#define NAME_FIELD	18		/* a row's group name and its blank */

/* The cells of the map's rows whose group name starts with prefix. */
struct map_cells {
	const char *prefix;
	int in_group;
	unsigned long shade[256];	/* cells of each shade */
	unsigned long cells, heap_cells, large_cells;
};

/* heap_map_emit_t: counts the cells of a row (the legend and the summary
 * are no rows: they start with "heap map"). */
static void count_cells(void *arg, const char *line)
{
	struct map_cells *m = arg;
	const char *p;

	if (!strncmp(line, "heap map", 8) || strlen(line) <= NAME_FIELD)
		return;
	if (line[0] != ' ')
		m->in_group = !strncmp(line, m->prefix, strlen(m->prefix));
	for (p = line + NAME_FIELD; *p; p++) {
		if (m->in_group) {
			m->shade[(unsigned char)*p]++;
			m->cells++;
		}
		if (!strncmp(line, "large kmalloc", 13))
			m->large_cells++;
		else
			m->heap_cells++;
	}
}

static void read_map(struct map_cells *m, const char *prefix)
{
	memset(m, 0, sizeof(*m));
	m->prefix = prefix;
	kmem_heap_map_lines(count_cells, m);
}

/* What the allocator tells the map of the test cache's slabs. */
struct slab_shape_seen {
	unsigned long slabs, pages, capacity;
};

static void see_slab(void *arg, const char *group, unsigned long pages, unsigned long used,
		     unsigned long capacity)
{
	struct slab_shape_seen *s = arg;

	if (strcmp(group, CACHE_NAME))
		return;
	s->slabs++;
	s->pages = pages;
	s->capacity = capacity;
}

static void no_ctor(void *obj)
{
}

static int heap_map_init(struct ktest *t)
{
	return allocator_suite_init(t);
}

/* The slab of obj: slabs of pages pages are aligned to their size. */
static uintptr_t slab_of(const void *obj, unsigned long pages)
{
	return (uintptr_t)obj / (pages * PAGE_SIZE);
}

/* Of objs[0..n), keeps those on the first two slabs that hold only
 * objects of objs (cap each): all of the first, half of the second;
 * frees the others.  Returns how many it kept (cap + cap / 2 if found). */
static unsigned long keep_full_and_half(void **objs, unsigned long n, unsigned long cap,
					unsigned long pages, struct kmem_cache *c)
{
	uintptr_t full = 0, half = 0;
	unsigned long i, j, kept = 0, in_half = 0;

	for (i = 0; i < n && !half; i++) {
		uintptr_t s = slab_of(objs[i], pages);
		unsigned long count = 0;

		for (j = 0; j < n; j++)
			count += slab_of(objs[j], pages) == s;
		if (count == cap && s != full)
			*(full ? &half : &full) = s;
	}
	for (i = 0; i < n; i++) {
		uintptr_t s = slab_of(objs[i], pages);

		if (half && (s == full || (s == half && in_half++ < cap / 2))) {
			kept++;
			continue;
		}
		kmem_cache_free(c, objs[i]);
		objs[i] = NULL;
	}
	return kept;
}

static void cache_row_shows_full_and_half_slab(struct ktest *t)
{
	struct slab_shape_seen seen = { 0, 0, 0 };
	struct map_cells m;
	struct kmem_cache *c;
	unsigned long i, n, kept;
	void *first, **objs;

	c = kmem_cache_create(CACHE_NAME, 344, 0, 0, no_ctor, NULL);	/* a ctor: not merged */
	KTEST_ASSERT_NOT_NULL(t, c);
	first = kmem_cache_alloc(c, GFP_KERNEL);
	kmem_heap_visit(see_slab, &seen);
	if (!seen.slabs) {
		kmem_cache_free(c, first);
		kmem_cache_destroy(c);
		ktest_skip(t, "%s draws no row per cache", kmem_allocator_name);
		return;
	}
	KTEST_ASSERT_GE(t, seen.capacity, 3UL);
	n = 4 * seen.capacity;
	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, objs);
	objs[0] = first;
	for (i = 1; i < n; i++)
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
	for (i = 0; i < n; i++)
		KTEST_ASSERT_NOT_NULL(t, objs[i]);
	kmem_reclaim();		/* objects the CPUs keep go back to their slabs */
	kept = keep_full_and_half(objs, n, seen.capacity, seen.pages, c);
	KTEST_EXPECT_EQ(t, kept, seen.capacity + seen.capacity / 2);
	kmem_reclaim();
	read_map(&m, CACHE_NAME);
	KTEST_EXPECT_EQ(t, m.shade['#'], seen.pages);
	KTEST_EXPECT_EQ(t, m.shade['+'], seen.pages);
	KTEST_EXPECT_EQ(t, m.cells, m.shade['#'] + m.shade['+'] + m.shade['.']);
	for (i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	kfree(objs);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(c), 0);
}

static int same_pages(const struct kmem_stats *a, const struct kmem_stats *b)
{
	return a->slab_pages == b->slab_pages && a->large_pages == b->large_pages;
}

/* Reads the map between two page counts that agree, so that no page
 * changed hands while it was drawn: other CPUs' timers run meanwhile (on
 * SLOB the shrinker gives free heap pages back on any CPU's tick).  Returns
 * the number of reads it took, or 0 if no read was quiet. */
static unsigned int read_map_quietly(struct map_cells *m, struct kmem_stats *st)
{
	struct kmem_stats before;
	unsigned int tries;

	for (tries = 1; tries <= 1000; tries++) {
		kmem_get_pages(&before);
		read_map(m, "");
		kmem_get_pages(st);
		if (same_pages(&before, st))
			return tries;
	}
	return 0;
}

/* Every page the allocator holds is a cell: SLOB's heap pages, SLAB's
 * and SLUB's slabs (descriptors and the per-CPU structs' pages
 * included), and the large blocks in their row. */
static void heap_cells_are_the_heap_pages(struct ktest *t)
{
	struct kmem_stats st;
	struct map_cells m;

	KTEST_ASSERT_NE(t, read_map_quietly(&m, &st), 0U);
	KTEST_EXPECT_EQ(t, m.heap_cells, st.slab_pages);
	KTEST_EXPECT_EQ(t, m.large_cells, st.large_pages);
}

/* Small blocks fill heap pages: four pages' worth leave at least three
 * drawn (nearly) full, and a page with no free byte (SLOB's "heap full"
 * list) is '#'. */
static void small_blocks_fill_pages(struct ktest *t)
{
	enum { N = 4 * PAGE_SIZE / 64 };
	static void *objs[N];
	struct map_cells m, listed_full;
	unsigned long i;

	for (i = 0; i < N; i++)
		objs[i] = kmalloc(64, GFP_KERNEL);
	read_map(&m, "");
	read_map(&listed_full, "heap full");
	KTEST_EXPECT_GE(t, m.shade['#'] + m.shade['*'], 3UL);
	KTEST_EXPECT_EQ(t, listed_full.cells, listed_full.shade['#']);
	for (i = 0; i < N; i++)
		kfree(objs[i]);
}

/* A large block is its pages in the large row, each full. */
static void large_block_is_full_cells(struct ktest *t)
{
	struct map_cells before, after;
	void *p;

	read_map(&before, "large kmalloc");
	p = kmalloc(16 * PAGE_SIZE, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, p);
	read_map(&after, "large kmalloc");
	kfree(p);
	KTEST_EXPECT_EQ(t, after.shade['#'], before.shade['#'] + 16);
	KTEST_EXPECT_EQ(t, after.cells, after.shade['#']);
}

/* Rows wrap: no line is longer than the name field and HEAP_MAP_WIDTH. */
static void check_width(void *arg, const char *line)
{
	unsigned long *longest = arg;

	if (strncmp(line, "heap map", 8))
		*longest = max(*longest, (unsigned long)strlen(line));
}

static void rows_wrap(struct ktest *t)
{
	unsigned long longest = 0;
	void *p = kmalloc(2 * HEAP_MAP_WIDTH * PAGE_SIZE, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, p);
	kmem_heap_map_lines(check_width, &longest);
	kfree(p);
	KTEST_EXPECT_EQ(t, longest, (unsigned long)(NAME_FIELD + HEAP_MAP_WIDTH));
}

static const struct ktest_case heap_map_cases[] = {
	KTEST_CASE(cache_row_shows_full_and_half_slab),
	KTEST_CASE(heap_cells_are_the_heap_pages),
	KTEST_CASE(small_blocks_fill_pages),
	KTEST_CASE(large_block_is_full_cells),
	KTEST_CASE(rows_wrap),
	{}
};

static const struct ktest_suite heap_map_suite = {
	.name = "heap_map",
	.cases = heap_map_cases,
	.init = heap_map_init,
};
KTEST_SUITE(heap_map_suite);
