/* replay_soak.c - the soak: every trace loaded as a boot module replayed
 * back to back, round after round, on one allocator that is never reset.
 *
 * Rounds.  Round r replays every trace once, beginning with trace
 * r mod N, so that each trace follows another one from round to round
 * and no pair always meets in the same order.
 *
 * What stays live.  What a trace leaves live at its end stays allocated
 * for SOAK_KEEP_ROUNDS rounds and is freed just before the same trace runs
 * again SOAK_KEEP_ROUNDS rounds later: each trace has SOAK_KEEP_ROUNDS
 * slot tables, used in turn, and a table's objects are freed when its turn
 * comes back.  In the traced kernels these are the dentries, inodes, page
 * tables and socket buffers that outlive the work that made them.  Three
 * rounds: the heap then always holds survivors of three ages of every
 * trace, interleaved with each other and with the short-lived objects of
 * the trace running, and every free of a generation punches holes among
 * two younger ones, which is what fragments a heap over an uptime; fewer
 * rounds (two) leaves one younger generation, more only multiplies the
 * memory the soak needs.  The first SOAK_KEEP_ROUNDS - 1 rounds fill the
 * pipeline; from round SOAK_KEEP_ROUNDS on, the end of every round holds
 * the same objects (the same sizes in the same number), so the pages held
 * then can be compared round against round.
 *
 * Caches.  A cache is created when a trace first uses it and kept to the
 * end of the soak.  A trace's cache whose name another trace already uses
 * shares that cache if its object size and alignment are the same (one
 * kernel's dentry cache), else it is created under the name with "~N".
 *
 * Clock.  One clock runs through the soak: every trace starts where the
 * last ended, and after each the clock runs 3 s of timers (the reaper, the
 * shrinker).  Nothing is reclaimed and no free list is sorted between
 * traces or rounds: the allocator sees what a long uptime shows it.  The
 * run is still deterministic (trace clocks, interrupts off).
 *
 * Figures.  After each round, one "soak-round:" line: the pages the object
 * allocator holds, the free pages, the page allocator's largest free block
 * (pages), the largest free block of SLOB's heap (bytes; 0 for an
 * allocator without one heap), the bytes and objects kept live, and the
 * validators' verdict (page allocator, object allocator, kmem_debug=).
 */
#include <tiny/kernel.h>
#include <tiny/boot.h>
#include <tiny/irqflags.h>
#include <tiny/kmem_debug.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "replay_internal.h"

#define SOAK_KEEP_ROUNDS	3
#define SOAK_SETTLE_US		3000000ULL
#define SOAK_NAME_SIZE		24	/* as struct replay_cache's name */

struct soak_trace {
	const char *name;
	int ready;			/* checked, its caches made */
	struct replay_state rs;		/* the checked trace; rs.slots is the table in use */
	struct slot *tables[SOAK_KEEP_ROUNDS];
	size_t table_bytes, caches_bytes;
	struct kmem_cache **caches;	/* by the trace's cache index, made on first use */
	unsigned long long kept_bytes[SOAK_KEEP_ROUNDS];
	unsigned long kept_objects[SOAK_KEEP_ROUNDS];
};

struct soak {
	struct soak_trace traces[BOOT_MAX_MODULES];
	int nr;
	char (*names)[SOAK_NAME_SIZE];	/* the names of caches made under "~N" */
	unsigned long nr_names, max_names;
	size_t names_bytes;
	unsigned long failures, corruptions, validate_errors;
};

static struct soak soak;		/* large: off the stack */
static struct replay_result soak_res;	/* each trace's run; only its counts are read */

/* ---- caches ---------------------------------------------------------------- */

/* The soak's cache named name, or NULL; with c, only one of c's size and
 * alignment. */
static struct kmem_cache *soak_cache(const char *name, const struct replay_cache *c)
{
	int t;
	u32 i;

	for (t = 0; t < soak.nr; t++) {
		const struct soak_trace *st = &soak.traces[t];

		for (i = 0; st->ready && i < st->rs.hdr->nr_caches; i++) {
			struct kmem_cache *made = st->caches[i];

			if (made && !strcmp(kmem_cache_name(made), name) &&
			    (!c || (st->rs.caches[i].object_size == c->object_size &&
				    st->rs.caches[i].align == c->align)))
				return made;
		}
	}
	return NULL;
}

/* Creates c under "name~N", the first N whose name is free; NULL if none. */
static struct kmem_cache *create_renamed(const struct replay_cache *c)
{
	char *name;
	int n;

	if (soak.nr_names == soak.max_names)
		return NULL;
	name = soak.names[soak.nr_names];
	for (n = 2; n < 100; n++) {
		struct kmem_cache *made;

		snprintf(name, SOAK_NAME_SIZE, "%.19s~%d", c->name, n);
		if (soak_cache(name, NULL))
			continue;
		made = kmem_cache_create(name, c->object_size, c->align, 0, NULL, NULL);
		if (made) {
			soak.nr_names++;
			return made;
		}
	}
	return NULL;
}

/* Makes the caches of trace st: shared with another trace's cache of the
 * same name, size and alignment, renamed if only the name is the same. */
static void make_caches(struct soak_trace *st)
{
	u32 i;

	for (i = 0; i < st->rs.hdr->nr_caches; i++) {
		const struct replay_cache *c = &st->rs.caches[i];

		st->caches[i] = soak_cache(c->name, c);
		if (!st->caches[i])
			st->caches[i] = soak_cache(c->name, NULL) ? create_renamed(c) :
				kmem_cache_create(c->name, c->object_size, c->align, 0, NULL, NULL);
	}
}

/* ---- setting up and tearing down ------------------------------------------------- */

/* Checks module m and gives it its tables and caches; 0 or -1 (reported). */
static int add_trace(const struct boot_module *m)
{
	struct soak_trace *st = &soak.traces[soak.nr];
	struct replay_state *rs = &st->rs;
	int g;

	memset(st, 0, sizeof(*st));
	soak.nr++;		/* its tables are freed with the others from here on */
	st->name = m->name[0] ? m->name : "module";
	if (replay_check_header((const void *)(uintptr_t)m->start, m->end - m->start, rs))
		return -1;
	st->table_bytes = (size_t)rs->hdr->nr_slots * sizeof(struct slot) + 1;
	st->caches_bytes = (size_t)rs->hdr->nr_caches * sizeof(void *) + 1;
	st->caches = replay_table_alloc(st->caches_bytes);
	for (g = 0; g < SOAK_KEEP_ROUNDS; g++)
		st->tables[g] = replay_table_alloc(st->table_bytes);
	for (g = 0; g < SOAK_KEEP_ROUNDS; g++)
		if (!st->tables[g])
			break;
	if (!st->caches || g < SOAK_KEEP_ROUNDS) {
		pr_err("soak: %s: no memory for %d tables of %u live objects\n", st->name,
		       SOAK_KEEP_ROUNDS, rs->hdr->nr_slots);
		return -1;
	}
	rs->slots = st->tables[0];
	if (replay_check_ops(rs))
		return -1;
	make_caches(st);
	st->ready = 1;
	return 0;
}

/* Frees the objects of trace st's table g (left there SOAK_KEEP_ROUNDS rounds ago). */
static void free_kept(struct soak_trace *st, int g)
{
	struct replay_state *rs = &st->rs;
	u32 i;

	rs->slots = st->tables[g];
	rs->res = &soak_res;
	rs->live_bytes = st->kept_bytes[g];
	rs->live_objects = st->kept_objects[g];
	soak_res.corruptions = 0;
	for (i = 0; i < rs->hdr->nr_slots; i++) {
		if (rs->slots[i].state == SLOT_LIVE)
			replay_free_slot(rs, &rs->slots[i]);
		rs->slots[i].state = SLOT_EMPTY;
	}
	soak.corruptions += soak_res.corruptions;
	st->kept_bytes[g] = 0;
	st->kept_objects[g] = 0;
}

static void free_all(void)
{
	int t, g;

	for (t = 0; t < soak.nr; t++)
		for (g = 0; g < SOAK_KEEP_ROUNDS; g++)
			if (soak.traces[t].tables[g])
				free_kept(&soak.traces[t], g);
}

/* Destroys the caches (each once: traces share some) and frees the tables. */
static void tear_down(void)
{
	int t, u, g;
	u32 i, j;

	for (t = 0; t < soak.nr; t++) {
		struct soak_trace *st = &soak.traces[t];

		for (i = 0; st->caches && i < st->rs.hdr->nr_caches; i++) {
			struct kmem_cache *c = st->caches[i];

			if (!c)
				continue;
			for (u = t; u < soak.nr; u++)	/* forget every reference to c */
				for (j = 0; soak.traces[u].caches && j < soak.traces[u].rs.hdr->nr_caches; j++)
					if (soak.traces[u].caches[j] == c)
						soak.traces[u].caches[j] = NULL;
			kmem_cache_destroy(c);
		}
		for (g = 0; g < SOAK_KEEP_ROUNDS; g++)
			if (st->tables[g])
				replay_table_free(st->tables[g], st->table_bytes);
		if (st->caches)
			replay_table_free(st->caches, st->caches_bytes);
	}
	if (soak.names)
		replay_table_free(soak.names, soak.names_bytes);
	soak.nr = 0;
}

/* ---- a round ------------------------------------------------------------------------ */

/* Replays trace st into its table g, leaving what it leaves live there. */
static int run_trace(struct soak_trace *st, int g)
{
	struct replay_state *rs = &st->rs;
	int ret;

	free_kept(st, g);
	memset(&soak_res, 0, sizeof(soak_res));
	rs->res = &soak_res;
	rs->cache_ptr = st->caches;
	rs->slots = st->tables[g];
	rs->live_bytes = 0;
	rs->live_objects = 0;
	rs->sample_every = rs->hdr->nr_ops + 1;
	rs->progress_every = 0;
	rs->start_jiffies = jiffies;
	ret = replay_run_ops(rs, SOAK_SETTLE_US);
	st->kept_bytes[g] = rs->live_bytes;
	st->kept_objects[g] = rs->live_objects;
	soak.failures += soak_res.failures;
	soak.corruptions += soak_res.corruptions;
	return ret;
}

/* The page allocator's largest free block, in pages. */
static unsigned long largest_free_block(void)
{
	struct buddy_snapshot snap;
	int o;

	page_alloc_snapshot(&snap);
	for (o = MAX_ORDER - 1; o >= 0; o--)
		if (snap.nr_free[o])
			return 1UL << o;
	return 0;
}

static void report_round(unsigned long round)
{
	unsigned long long live = 0;
	unsigned long objects = 0;
	int t, g, errors;

	for (t = 0; t < soak.nr; t++)
		for (g = 0; g < SOAK_KEEP_ROUNDS; g++) {
			live += soak.traces[t].kept_bytes[g];
			objects += soak.traces[t].kept_objects[g];
		}
	errors = page_alloc_validate() + kmem_validate() + kmem_check();
	printk("soak-round: %lu held %lu free %lu largest_block %lu heap_largest %lu live_bytes %llu "
	       "live_objects %lu validate %d failures %lu corruptions %lu\n", round,
	       replay_held_pages(), nr_free_pages(), largest_free_block(), kmem_heap_largest_free(),
	       live, objects, errors, soak.failures, soak.corruptions);
	soak.validate_errors += errors;
}

/* ---- the soak ------------------------------------------------------------------------ */

static int set_up(void)
{
	int m;

	memset(&soak, 0, sizeof(soak));
	soak.max_names = 256;
	soak.names_bytes = soak.max_names * SOAK_NAME_SIZE;
	soak.names = replay_table_alloc(soak.names_bytes);
	if (!soak.names) {
		pr_err("soak: no memory for its tables\n");
		return -1;
	}
	for (m = 0; m < boot_info.nr_modules; m++)
		if (add_trace(&boot_info.modules[m]))
			return -1;
	return 0;
}

/* Runs the rounds; 0, or -2 after Ctrl-C.  Interrupts off. */
static int run_rounds(unsigned long rounds)
{
	unsigned long r;
	int i;

	replay_start_in_step(&soak.traces[0].rs);
	report_round(0);
	for (r = 1; r <= rounds; r++) {
		for (i = 0; i < soak.nr; i++)
			if (run_trace(&soak.traces[(r + i) % soak.nr], r % SOAK_KEEP_ROUNDS) == -2)
				return -2;
		report_round(r);
	}
	return 0;
}

static void settle(void)
{
	unsigned long end = jiffies + 2 * SOAK_SETTLE_US / 1000000 * HZ;

	while (time_before(jiffies, end))
		timer_tick();
}

int replay_soak(unsigned long rounds)
{
	unsigned long flags, held_before, held_after;
	int t, ret;

	if (!boot_info.nr_modules) {
		pr_err("soak: no trace loaded; boot with modules (QEMU -initrd \"A,B\", GRUB "
		       "\"module FILE\" lines)\n");
		return -1;
	}
	kmem_reclaim();
	held_before = replay_held_pages();
	ret = set_up();
	if (!ret) {
		printk("soak: %lu rounds of %d traces on %s, what each leaves live kept %d rounds:",
		       rounds, soak.nr, kmem_allocator_name, SOAK_KEEP_ROUNDS);
		for (t = 0; t < soak.nr; t++)
			pr_cont(" %s", soak.traces[t].name);
		pr_cont("\n");
		local_irq_save(flags);
		ret = run_rounds(rounds);
		free_all();
		local_irq_restore(flags);
	}
	tear_down();
	local_irq_save(flags);
	settle();
	local_irq_restore(flags);
	kmem_reclaim();
	held_after = replay_held_pages();
	printk("soak: Slab %lu kB before, %lu kB after freeing everything (both reclaimed); "
	       "failures %lu, corruptions %lu, validate errors %lu\n",
	       held_before << (PAGE_SHIFT - 10), held_after << (PAGE_SHIFT - 10), soak.failures,
	       soak.corruptions, soak.validate_errors);
	if (soak.failures)
		printk("soak: NOTE: %lu allocations failed: this machine is too small for the "
		       "traces kept live (give it more memory)\n", soak.failures);
	if (held_after > held_before)
		printk("soak: NOTE: %lu pages more held than before: a leak\n",
		       held_after - held_before);
	if (!ret && (soak.failures || soak.corruptions || soak.validate_errors ||
		     held_after > held_before))
		ret = 1;
	printk("soak: %s\n", ret == 0 ? "PASS" : ret == -2 ? "interrupted" : "FAIL");
	return ret;
}
