/* page_alloc.c - the binary buddy page allocator.
 *
 * Every page frame of RAM has a struct page in mem_map.  Free memory is
 * kept as naturally aligned blocks of 2^order pages on free_area[order]
 * lists; a free block is marked on its first page (PG_buddy, order), an
 * allocated block likewise (PG_head, order), so alloc and free touch only
 * list heads and a handful of struct pages: O(MAX_ORDER), never a walk.
 * Allocation takes the smallest free block that fits and splits it,
 * putting the unused halves back one order down.  Free merges the block
 * with its buddy (the block whose pfn differs in bit "order") for as long
 * as the buddy is free and of the same order, so freeing everything always
 * rebuilds the same maximal blocks.
 *
 * Bad frees (not a block head, wrong order, already free, outside
 * mem_map) are reported and ignored, so the lists stay consistent.
 *
 * Locking.  zone_lock protects the free lists, the counters and the flags
 * and order of every page (the object allocators change a page's PG_slab,
 * PG_large, ... only through page_update_flags() and
 * page_update_counted(), mm/page_alloc.h).  It is taken with
 * interrupts saved: the SLOB shrinker and GFP_ATOMIC callers allocate from
 * the timer interrupt.  Lock order: it is the innermost lock; the object
 * allocators' locks (slab_caches_lock, slob_lock, a SLAB cache's lock)
 * are taken before it, never after.
 *
 * Nothing here touches hardware: the host build manages a host buffer.
 */
#include <tiny/kernel.h>
#include <tiny/call_path.h>
#include <tiny/fault_inject.h>
#include <tiny/memcheck.h>
#include <tiny/mm.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include "page_alloc.h"

#define PAGE_POISON	0xaa

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;		/* blocks on free_list */
};

static struct free_area free_area[MAX_ORDER];
static DEFINE_SPINLOCK(zone_lock);	/* free_area, counters, page flags/order */

struct page *mem_map;			/* see page_alloc.h: virt_to_page() reads these */
unsigned long first_pfn, end_pfn;	/* mem_map covers [first_pfn, end_pfn) */
static unsigned long managed_pages;		/* pages given to the allocator at boot */
static unsigned long free_page_count;
static unsigned long reserved_ram_pages;	/* RAM pages kept out (kernel, mem_map, ...) */
static unsigned long reserve_pages;		/* left to __GFP_HIGH callers */
static unsigned long failure_count;		/* allocation failures, for the report */
unsigned long page_bad_free_count;		/* bad frees reported (tests check it) */
unsigned long page_poison_errors;		/* poison mismatches found */
unsigned long page_alloc_fail_countdown;	/* <tiny/fault_inject.h> */

/* ---- pfn, page and address conversions ------------------------------- */

static inline unsigned long page_to_pfn(const struct page *page)
{
	return first_pfn + (unsigned long)(page - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return &mem_map[pfn - first_pfn];
}

static inline int pfn_valid(unsigned long pfn)
{
	return pfn >= first_pfn && pfn < end_pfn;
}

void *page_address(const struct page *page)
{
	return (void *)(uintptr_t)(page_to_pfn(page) << PAGE_SHIFT);
}

/* Is page a pointer to an element of mem_map? */
static int page_in_map(const struct page *page)
{
	uintptr_t p = (uintptr_t)page, base = (uintptr_t)mem_map;

	return mem_map && p >= base && p < base + (end_pfn - first_pfn) * sizeof(*page) &&
	       (p - base) % sizeof(*page) == 0;
}

/* ---- free lists --------------------------------------------------------- */

static void add_to_free_list(struct page *page, unsigned int order)
{
	WRITE_ONCE(page->flags, (page->flags & ~PG_head) | PG_buddy);
	page->order = order;
	list_add(&page->lru, &free_area[order].free_list);
	free_area[order].nr_free++;
}

static void del_from_free_list(struct page *page, unsigned int order)
{
	list_del(&page->lru);
	WRITE_ONCE(page->flags, page->flags & ~PG_buddy);
	free_area[order].nr_free--;
}

/* Merges the free block at page with its buddies and lists the result.
 * zone_lock held (page_alloc_init() takes it too, although nobody else
 * runs yet at boot). */
static void buddy_merge(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);

	assert_spin_held(&zone_lock);
	while (order < MAX_ORDER - 1) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct page *buddy;

		if (!pfn_valid(buddy_pfn))
			break;
		buddy = pfn_to_page(buddy_pfn);
		if (!(buddy->flags & PG_buddy) || buddy->order != order)
			break;
		del_from_free_list(buddy, order);
		pfn &= ~(1UL << order);
		order++;
	}
	add_to_free_list(pfn_to_page(pfn), order);
}

/* Splits a free block of order high down to order low, listing the upper
 * halves, and returns the first page.  zone_lock held. */
static struct page *buddy_split(struct page *page, unsigned int low, unsigned int high)
{
	assert_spin_held(&zone_lock);
	while (high > low) {
		high--;
		add_to_free_list(page + (1UL << high), high);
	}
	return page;
}

/* Takes a block of the given order off the free lists, or NULL.  zone_lock held. */
static struct page *buddy_take(unsigned int order)
{
	unsigned int o;

	assert_spin_held(&zone_lock);
	for (o = order; o < MAX_ORDER; o++) {
		struct page *page;

		if (list_empty(&free_area[o].free_list))
			continue;
		page = list_first_entry(&free_area[o].free_list, struct page, lru);
		del_from_free_list(page, o);
		return buddy_split(page, order, o);
	}
	return NULL;
}

/* ---- poisoning (CONFIG_PAGE_POISONING) --------------------------------- */

/* Fills a block being freed with the poison pattern (CONFIG_PAGE_POISONING)
 * and tells a memory checker that nobody may touch it now. */
static void poison_block(struct page *page, unsigned int order)
{
	if (IS_ENABLED(CONFIG_PAGE_POISONING)) {
		kmem_mark_internal(page_address(page), PAGE_SIZE << order);
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	}
	kmem_mark_noaccess(page_address(page), PAGE_SIZE << order);
}

static void check_poison(struct page *page, unsigned int order)
{
	unsigned char *addr, *bad;

	if (!IS_ENABLED(CONFIG_PAGE_POISONING))
		return;
	addr = page_address(page);
	bad = memchr_inv(addr, PAGE_POISON, PAGE_SIZE << order);
	if (bad) {
		page_poison_errors++;
		pr_err("page_alloc: free memory was written to: byte %02x at %p in block %p (order %u)\n",
		       *bad, (void *)bad, (void *)addr, order);
	}
}

/* ---- allocation and free ------------------------------------------------ */

static void report_failure(gfp_t gfp, unsigned int order)
{
	if (gfp & __GFP_NOWARN)
		return;
	if (++failure_count <= 5)
		pr_warn("page allocation failure: order:%u, mode:%#x, free:%lu pages%s\n",
			order, gfp, free_page_count,
			failure_count == 5 ? " (further failures not reported)" : "");
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = NULL;
	unsigned long flags;
	unsigned long keep;

	if (order >= MAX_ORDER || should_fail_alloc_page(order, gfp)) {
		report_failure(gfp, order);
		return NULL;
	}
	call_path(CALL_PATH_PAGE_ALLOC);
	keep = (gfp & __GFP_HIGH) ? 0 : reserve_pages;
	spin_lock_irqsave(&zone_lock, flags);
	if (free_page_count >= (1UL << order) + keep)
		page = buddy_take(order);
	if (page) {
		WRITE_ONCE(page->flags, page->flags | PG_head);
		page->order = order;
		free_page_count -= 1UL << order;
	}
	spin_unlock_irqrestore(&zone_lock, flags);

	if (!page) {
		report_failure(gfp, order);
		return NULL;
	}
	kmem_mark_internal(page_address(page), PAGE_SIZE << order);
	check_poison(page, order);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

#ifdef __OPTIMIZE_SIZE__
struct page *virt_to_page(const void *addr)
{
	return __virt_to_page(addr);
}
#endif

unsigned int page_update_flags(struct page *page, unsigned long nr, unsigned int set,
			       unsigned int clear)
{
	unsigned long flags, i;
	unsigned int old;

	spin_lock_irqsave(&zone_lock, flags);
	old = page->flags;
	for (i = 0; i < nr; i++)
		WRITE_ONCE(page[i].flags, (page[i].flags & ~clear) | set);
	spin_unlock_irqrestore(&zone_lock, flags);
	return old;
}

unsigned int page_update_counted(struct page *page, unsigned int set, unsigned int clear,
				 atomic_long_t *count)
{
	unsigned long flags;
	unsigned int old;

	spin_lock_irqsave(&zone_lock, flags);
	old = page->flags;
	WRITE_ONCE(page->flags, (old & ~clear) | set);
	if (set & ~old)
		atomic_long_add((long)page->nr_pages, count);
	if (clear & old)
		atomic_long_add(-(long)page->nr_pages, count);
	spin_unlock_irqrestore(&zone_lock, flags);
	return old;
}

/* The walk of page_flag_census() and page_flag_walk().  zone_lock held. */
static void walk_flag_locked(unsigned int flag, void (*fn)(struct page *page, void *arg),
			     void *arg)
{
	unsigned long pfn;

	assert_spin_held(&zone_lock);
	for (pfn = first_pfn; pfn < end_pfn; pfn++)
		if (pfn_to_page(pfn)->flags & flag)
			fn(pfn_to_page(pfn), arg);
}

struct census {
	unsigned long n, pages;
};

static void census_add(struct page *page, void *arg)
{
	struct census *c = arg;

	c->n++;
	c->pages += page->nr_pages;
}

unsigned long page_flag_census(unsigned int flag, unsigned long *pages, atomic_long_t *count,
			       long *counted)
{
	struct census c = { 0, 0 };
	unsigned long flags;

	spin_lock_irqsave(&zone_lock, flags);
	if (count)
		*counted = atomic_long_read(count);
	walk_flag_locked(flag, census_add, &c);
	spin_unlock_irqrestore(&zone_lock, flags);
	*pages = c.pages;
	return c.n;
}

void page_flag_walk(unsigned int flag, void (*fn)(struct page *page, void *arg), void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&zone_lock, flags);
	walk_flag_locked(flag, fn, arg);
	spin_unlock_irqrestore(&zone_lock, flags);
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	return page ? (unsigned long)(uintptr_t)page_address(page) : 0;
}

unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}

/* Why a free of (page, order) is invalid, or NULL if it is valid.
 * zone_lock held (the flags must not change under us). */
static const char *bad_free_reason(const struct page *page, unsigned int order)
{
	assert_spin_held(&zone_lock);
	if (order >= MAX_ORDER)
		return "order too large";
	if (page->flags & PG_buddy)
		return "double free (block is already free)";
	if (page->flags & PG_reserved)
		return "page is reserved, never allocated";
	if (!(page->flags & PG_head))
		return "not the first page of an allocated block";
	if (page->order != order)
		return "order differs from the allocation's";
	if (page->flags & (PG_slab | PG_large))
		return "page still owned by the object allocator";
	return NULL;
}

static void report_bad_free(unsigned long addr, unsigned int order, const char *why,
			    const struct page *page, void *caller)
{
	const char *mark;

	page_bad_free_count++;
	mark = count_report();
	pr_err("page_alloc: bad free of %#lx order %u from %p: %s", addr, order, caller, why);
	if (page)
		pr_cont(" (flags %#x, order %u)", page->flags, page->order);
	pr_cont("; ignored%s\n", mark);
}

/* Returns a validated block to the free lists.  zone_lock held. */
static void release_block(struct page *page, unsigned int order)
{
	assert_spin_held(&zone_lock);
	buddy_merge(page, order);
	free_page_count += 1UL << order;
}

static void buddy_free_checked(struct page *page, unsigned int order, void *caller)
{
	int poison = IS_ENABLED(CONFIG_PAGE_POISONING);
	unsigned long flags;
	const char *why;

	spin_lock_irqsave(&zone_lock, flags);
	why = bad_free_reason(page, order);
	if (!why) {
		WRITE_ONCE(page->flags, page->flags & ~PG_head);
		if (!poison) {
			kmem_mark_noaccess(page_address(page), PAGE_SIZE << order);
			release_block(page, order);
		}
	}
	spin_unlock_irqrestore(&zone_lock, flags);
	if (why) {
		report_bad_free((unsigned long)(uintptr_t)page_address(page), order, why, page, caller);
		return;
	}
	if (poison) {
		/* Poison outside the lock: nobody else can reach the block yet. */
		poison_block(page, order);
		spin_lock_irqsave(&zone_lock, flags);
		release_block(page, order);
		spin_unlock_irqrestore(&zone_lock, flags);
	}
}

void split_page_block(struct page *page, unsigned int order, unsigned long nr)
{
	unsigned long flags, i;

	spin_lock_irqsave(&zone_lock, flags);
	for (i = 0; i < nr; i++) {
		WRITE_ONCE(page[i].flags, page[i].flags | PG_head);
		page[i].order = 0;
	}
	while (i < (1UL << order)) {	/* the tail, in aligned blocks */
		unsigned int o = (unsigned int)__builtin_ctzl(i);

		poison_block(page + i, o);
		release_block(page + i, o);
		i += 1UL << o;
	}
	spin_unlock_irqrestore(&zone_lock, flags);
}

void __free_pages(struct page *page, unsigned int order)
{
	call_path(CALL_PATH_PAGE_FREE);
	if (!page_in_map(page)) {
		report_bad_free((unsigned long)(uintptr_t)page, order, "not a struct page of mem_map",
				NULL, __builtin_return_address(0));
		return;
	}
	buddy_free_checked(page, order, __builtin_return_address(0));
}

void free_pages(unsigned long addr, unsigned int order)
{
	struct page *page;

	if (!addr)
		return;
	if (addr & ~PAGE_MASK) {
		report_bad_free(addr, order, "not page aligned", NULL, __builtin_return_address(0));
		return;
	}
	page = virt_to_page((void *)(uintptr_t)addr);
	if (!page) {
		report_bad_free(addr, order, "outside managed memory", NULL,
				__builtin_return_address(0));
		return;
	}
	buddy_free_checked(page, order, __builtin_return_address(0));
}

static unsigned long clamp_reserve(unsigned long pages)
{
	return pages < 8 ? 8 : pages > 256 ? 256 : pages;
}

/* ---- boot-time setup ------------------------------------------------------ */

static int in_regions(unsigned long addr, const struct mem_region *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (addr >= r[i].start && addr < r[i].end)
			return 1;
	return 0;
}

struct boot_memory {
	const struct mem_region *ram, *reserved;
	int nr_ram, nr_reserved;
	unsigned long map_start, map_end;	/* where mem_map went */
};

/* Can the page at pfn be handed out? */
static int pfn_usable(const struct boot_memory *bm, unsigned long pfn)
{
	unsigned long addr = pfn << PAGE_SHIFT;

	return in_regions(addr, bm->ram, bm->nr_ram) &&
	       !in_regions(addr, bm->reserved, bm->nr_reserved) &&
	       !(addr >= bm->map_start && addr < bm->map_end);
}

/* Finds the first run of usable pages of the given size; returns its first
 * pfn, or 0 if there is none. */
static unsigned long find_free_run(const struct boot_memory *bm, unsigned long pages)
{
	unsigned long pfn, run = 0;

	for (pfn = first_pfn; pfn < end_pfn; pfn++) {
		run = pfn_usable(bm, pfn) ? run + 1 : 0;
		if (run == pages)
			return pfn + 1 - pages;
	}
	return 0;
}

/* Frees the usable run [pfn, end) in the largest aligned blocks. */
static void free_boot_run(unsigned long pfn, unsigned long end)
{
	while (pfn < end) {
		unsigned int order = 0;
		unsigned long i;

		while (order + 1 < MAX_ORDER && !(pfn & ((2UL << order) - 1)) &&
		       pfn + (2UL << order) <= end)
			order++;
		for (i = 0; i < (1UL << order); i++)
			pfn_to_page(pfn + i)->flags = 0;
		poison_block(pfn_to_page(pfn), order);
		buddy_merge(pfn_to_page(pfn), order);
		free_page_count += 1UL << order;
		managed_pages += 1UL << order;
		pfn += 1UL << order;
	}
}

static void free_usable_pages(const struct boot_memory *bm)
{
	unsigned long pfn = first_pfn, start;

	while (pfn < end_pfn) {
		if (!pfn_usable(bm, pfn)) {
			if (in_regions(pfn << PAGE_SHIFT, bm->ram, bm->nr_ram))
				reserved_ram_pages++;
			pfn++;
			continue;
		}
		start = pfn;
		while (pfn < end_pfn && pfn_usable(bm, pfn))
			pfn++;
		free_boot_run(start, pfn);
	}
}

static void compute_pfn_range(const struct mem_region *ram, int nr_ram)
{
	int i;

	first_pfn = (unsigned long)-1;
	end_pfn = 0;
	for (i = 0; i < nr_ram; i++) {
		if (ram[i].end <= ram[i].start)
			continue;
		first_pfn = min(first_pfn, ram[i].start >> PAGE_SHIFT);
		end_pfn = max(end_pfn, ram[i].end >> PAGE_SHIFT);
	}
}

static void init_mem_map(void)
{
	unsigned long i, n = end_pfn - first_pfn;

	for (i = 0; i < n; i++) {
		mem_map[i].flags = PG_reserved;
		mem_map[i].order = 0;
		INIT_LIST_HEAD(&mem_map[i].lru);
		mem_map[i].slab_cache = NULL;
		mem_map[i].slab = NULL;
	}
}

int page_alloc_init(const struct mem_region *ram, int nr_ram,
		    const struct mem_region *reserved, int nr_reserved)
{
	struct boot_memory bm = { ram, reserved, nr_ram, nr_reserved, 0, 0 };
	unsigned long map_pages, map_pfn, flags;
	unsigned int o;

	for (o = 0; o < MAX_ORDER; o++)
		INIT_LIST_HEAD(&free_area[o].free_list);
	compute_pfn_range(ram, nr_ram);
	if (end_pfn <= first_pfn)
		return -1;
	map_pages = PAGE_ALIGN((end_pfn - first_pfn) * sizeof(struct page)) >> PAGE_SHIFT;
	map_pfn = find_free_run(&bm, map_pages);
	if (!map_pfn)
		return -1;
	bm.map_start = map_pfn << PAGE_SHIFT;
	bm.map_end = (map_pfn + map_pages) << PAGE_SHIFT;
	mem_map = (struct page *)(uintptr_t)bm.map_start;
	init_mem_map();
	spin_lock_irqsave(&zone_lock, flags);
	free_usable_pages(&bm);
	spin_unlock_irqrestore(&zone_lock, flags);
	reserve_pages = clamp_reserve(managed_pages / 256);
	pr_info("Memory: %luK/%luK available (%luK reserved, of which %luK mem_map at %#lx)\n",
		managed_pages << (PAGE_SHIFT - 10),
		(managed_pages + reserved_ram_pages) << (PAGE_SHIFT - 10),
		reserved_ram_pages << (PAGE_SHIFT - 10), map_pages << (PAGE_SHIFT - 10),
		bm.map_start);
	return managed_pages ? 0 : -1;
}

/* ---- counters, reports and the validator ---------------------------------- */

/* Links page into the free list head so that the list stays in descending
 * address order.  zone_lock held. */
static void insert_descending(struct page *page, struct list_head *head)
{
	struct list_head *pos = head->next;

	assert_spin_held(&zone_lock);
	while (pos != head && list_entry(pos, struct page, lru) > page)
		pos = pos->next;
	list_add_tail(&page->lru, pos);
}

void page_alloc_sort_free_lists(void)
{
	struct list_head unsorted;
	unsigned long flags;
	unsigned int o;

	spin_lock_irqsave(&zone_lock, flags);
	for (o = 0; o < MAX_ORDER; o++) {
		struct list_head *head = &free_area[o].free_list;

		if (list_empty(head))
			continue;
		unsorted = *head;		/* take the whole chain over */
		unsorted.next->prev = &unsorted;
		unsorted.prev->next = &unsorted;
		INIT_LIST_HEAD(head);
		while (!list_empty(&unsorted)) {
			struct page *page = list_first_entry(&unsorted, struct page, lru);

			list_del(&page->lru);
			insert_descending(page, head);
		}
	}
	spin_unlock_irqrestore(&zone_lock, flags);
}

unsigned long nr_free_pages(void)
{
	unsigned long flags, n;

	spin_lock_irqsave(&zone_lock, flags);	/* other CPUs free pages meanwhile */
	n = free_page_count;
	spin_unlock_irqrestore(&zone_lock, flags);
	return n;
}

unsigned long totalram_pages(void)
{
	return managed_pages;
}

unsigned long nr_reserved_pages(void)
{
	return reserved_ram_pages;
}

unsigned long min_free_pages(void)
{
	return reserve_pages;
}

void page_alloc_snapshot(struct buddy_snapshot *snap)
{
	unsigned long flags;
	unsigned int o;

	spin_lock_irqsave(&zone_lock, flags);
	snap->free_pages = free_page_count;
	for (o = 0; o < MAX_ORDER; o++)
		snap->nr_free[o] = free_area[o].nr_free;
	spin_unlock_irqrestore(&zone_lock, flags);
}

void show_buddyinfo(void)
{
	struct buddy_snapshot snap;
	unsigned int o;

	page_alloc_snapshot(&snap);
	printk("Node 0, zone   Normal");
	for (o = 0; o < MAX_ORDER; o++)
		pr_cont(" %6lu", snap.nr_free[o]);
	pr_cont("\n");
}

#define validate_err(...) do { errors++; pr_err("page_alloc: validate: " __VA_ARGS__); } while (0)

/* Checks one free block and the pages it covers.  zone_lock held. */
static int validate_free_block(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), i, buddy_pfn;
	int errors = 0;

	assert_spin_held(&zone_lock);
	if (!(page->flags & PG_buddy) || page->order != order)
		validate_err("block at pfn %#lx on order-%u list has flags %#x order %u\n",
			     pfn, order, page->flags, page->order);
	if (pfn & ((1UL << order) - 1))
		validate_err("block at pfn %#lx is not aligned to order %u\n", pfn, order);
	if (pfn + (1UL << order) > end_pfn)
		validate_err("block at pfn %#lx order %u runs past mem_map\n", pfn, order);
	else
		for (i = 1; i < (1UL << order); i++)
			if (page[i].flags & (PG_buddy | PG_head | PG_reserved))
				validate_err("free block at pfn %#lx order %u overlaps pfn %#lx (flags %#x)\n",
					     pfn, order, pfn + i, page[i].flags);
	buddy_pfn = pfn ^ (1UL << order);
	if (order < MAX_ORDER - 1 && pfn_valid(buddy_pfn) &&
	    (pfn_to_page(buddy_pfn)->flags & PG_buddy) && pfn_to_page(buddy_pfn)->order == order)
		validate_err("free buddies at pfn %#lx and %#lx (order %u) were not merged\n",
			     pfn, buddy_pfn, order);
	return errors;
}

int page_alloc_validate(void)
{
	unsigned long flags, pages = 0, limit = end_pfn - first_pfn;
	int errors = 0;
	unsigned int o;

	spin_lock_irqsave(&zone_lock, flags);
	for (o = 0; o < MAX_ORDER; o++) {
		struct list_head *pos;
		unsigned long n = 0;

		list_for_each(pos, &free_area[o].free_list) {
			struct page *page = list_entry(pos, struct page, lru);

			if (!page_in_map(page) || ++n > limit) {
				validate_err("order-%u free list is corrupt at %p\n", o, (void *)page);
				break;
			}
			errors += validate_free_block(page, o);
			pages += 1UL << o;
		}
		if (n != free_area[o].nr_free)
			validate_err("order-%u list holds %lu blocks, counter says %lu\n",
				     o, n, free_area[o].nr_free);
	}
	if (pages != free_page_count)
		validate_err("free lists hold %lu pages, counter says %lu\n", pages, free_page_count);
	spin_unlock_irqrestore(&zone_lock, flags);
	return errors;
}
