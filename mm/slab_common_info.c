/* slab_common_info.c - the reports' part of what the allocators share:
 * the report of a bad pointer, the validator run after each operation
 * (CONFIG_DEBUG_KMEM_VALIDATE), counting and validating the large
 * blocks of mm/slab_common.c, found by their head pages in mem_map, and
 * the heap map, drawn from each allocator's kmem_heap_visit().  Kept
 * apart, as the allocators' own reports are (slab_info.c, slob_info.c),
 * so that size(1) of the allocator objects measures the allocators. */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/string.h>
#include "slab_common.h"

unsigned long kmem_bad_free_count;	/* any CPU adds to it: atomically */

void kmem_bad_free(const char *fn, const void *obj, const char *why, void *caller)
{
	const char *mark;

	counter_inc(&kmem_bad_free_count);
	mark = count_report();
	caller = kmem_debug_bad_free(obj, caller);
	pr_err("%s: bad pointer %p from %pS: %s; ignored%s\n", fn, obj, caller, why, mark);
}

static atomic_t validate_held;
static atomic_t validating;	/* a CPU is in kmem_validate() for an operation */

void kmem_debug_validate_hold(int hold)
{
	atomic_add(hold ? 1 : -1, &validate_held);
}

/* One CPU validates at a time; an operation that ends while another CPU
 * validates is not followed by a validation of its own (the next one sees
 * what it did).  Every CPU validating after every operation would queue
 * them all on the validator's walk of every cache: with ticket locks at
 * -smp 4 a self-test crawled for minutes, printing nothing. */
void __kmem_debug_validate(const char *op, const void *obj)
{
	static atomic_t reported;

	if (atomic_read(&reported) || atomic_read(&validate_held) || atomic_xchg(&validating, 1))
		return;
	if (kmem_validate() && !atomic_xchg(&reported, 1))
		pr_err("kmem: heap inconsistent after %s(%p); further checks off\n", op, obj);
	atomic_set(&validating, 0);
}

void large_blocks_count(unsigned long *blocks, unsigned long *pages)
{
	*blocks = page_flag_census(PG_large, pages, NULL, NULL);
}

/* The pages of the blocks marked PG_large against large_block_pages, both
 * read in one hold of zone_lock, under which both change. */
int large_blocks_validate(void)
{
	unsigned long pages;
	long counted;

	page_flag_census(PG_large, &pages, &large_block_pages, &counted);
	if ((long)pages == counted)
		return 0;
	pr_err("kmem: validate: large blocks hold %lu pages, the counter says %ld\n", pages,
	       counted);
	return 1;
}

/* ---- the heap map ------------------------------------------------------------- */

#define HEAP_MAP_NAME	18	/* the group's name (17 characters) and a blank */

/* A map being drawn: the row being filled, and what the map holds so far. */
struct heap_map {
	heap_map_emit_t emit;
	void *arg;
	char group[32];				/* the group of the row */
	char row[HEAP_MAP_NAME + HEAP_MAP_WIDTH + 1];
	unsigned int cells;			/* cells in row */
	unsigned long pages, groups;
};

/* The shade of a slab or page with used of capacity in use. */
static char heap_shade(unsigned long used, unsigned long capacity)
{
	static const char shades[] = ".-+*#";

	if (!used || !capacity)
		return shades[0];
	if (used >= capacity)
		return shades[4];
	return shades[1 + min(3 * used / capacity, 2UL)];
}

/* Emits the row, if it has cells; the next one continues the group. */
static void heap_map_flush(struct heap_map *m)
{
	if (m->cells) {
		m->row[HEAP_MAP_NAME + m->cells] = '\0';
		m->emit(m->arg, m->row);
	}
	memset(m->row, ' ', HEAP_MAP_NAME);
	m->cells = 0;
}

static void heap_map_group(struct heap_map *m, const char *group)
{
	heap_map_flush(m);
	snprintf(m->group, sizeof(m->group), "%s", group);
	snprintf(m->row, HEAP_MAP_NAME + 1, "%-*.*s ", HEAP_MAP_NAME - 1, HEAP_MAP_NAME - 1,
		 group);
	m->groups++;
}

/* heap_visit_t: a cell of the slab's shade for each of its pages. */
static void heap_map_visit(void *arg, const char *group, unsigned long pages,
			   unsigned long used, unsigned long capacity)
{
	struct heap_map *m = arg;
	char shade = heap_shade(used, capacity);

	if (strncmp(group, m->group, sizeof(m->group) - 1))
		heap_map_group(m, group);
	m->pages += pages;
	while (pages--) {
		if (m->cells == HEAP_MAP_WIDTH)
			heap_map_flush(m);
		m->row[HEAP_MAP_NAME + m->cells++] = shade;
	}
}

/* A large block's head page: its pages, all in use. */
static void heap_map_large(struct page *page, void *arg)
{
	heap_map_visit(arg, "large kmalloc", page->nr_pages, 1, 1);
}

void kmem_heap_map_lines(heap_map_emit_t emit, void *arg)
{
	struct heap_map m = { .emit = emit, .arg = arg };
	char line[80];

	snprintf(line, sizeof(line), "heap map (%s): .=empty -=<1/3 +=<2/3 *=<full #=full page",
		 kmem_allocator_name);
	emit(arg, line);
	kmem_heap_visit(heap_map_visit, &m);
	page_flag_walk(PG_large, heap_map_large, &m);
	heap_map_flush(&m);
	snprintf(line, sizeof(line), "heap map: %lu pages in %lu groups", m.pages, m.groups);
	emit(arg, line);
}

static void heap_map_print(void *arg, const char *line)
{
	printk("%s\n", line);
}

void kmem_heap_map(void)
{
	kmem_heap_map_lines(heap_map_print, NULL);
}
