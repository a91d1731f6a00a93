/* replay.c - replays a recorded allocation trace against the object allocator.
 *
 * The trace (format in <tiny/replay.h>) is a sequence of kmalloc, cache
 * allocation, free and time ops.  Every allocated object is filled with a
 * pattern derived from its slot and checked when it is freed, so any
 * corruption by the allocator fails the run; memory asked for zeroed is
 * checked to be zero first.  Caches are created the first time an op
 * uses them.
 *
 * The run uses the trace's own clock: interrupts are off, and a TIME op
 * advances jiffies and runs the kernel timers (the SLOB shrinker, the SLAB
 * reaper) tick by tick up to the traced time.  The allocator thus sees the
 * same sequence of events on every run, in the kernel and in the host
 * benchmark, and the footprint figures repeat exactly.
 *
 * Platform independent: the kernel runs it on a boot module, the host
 * benchmark on a file.
 */
#include <tiny/kernel.h>
#include <tiny/console.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include <arch/timex.h>

#include "replay_internal.h"

#define SETTLE_SECONDS	3	/* virtual time given to the periodic reclaim at the end */
#define PHASE_SECONDS	2	/* the periods of the allocators' timers divide this */
/* The largest block the page allocator gives: a request above it fails on
 * any machine, however much memory it has. */
#define LARGEST_BLOCK	((u64)PAGE_SIZE << (MAX_ORDER - 1))
#define PROGRESS_STEPS	10	/* a person sees 10%, 20%, ... while a replay runs */

unsigned int replay_output;	/* REPLAY_PROGRESS, REPLAY_DATA: <tiny/replay.h> */
unsigned long replay_map_op = ~0UL;

unsigned long replay_held_pages(void)
{
	struct kmem_stats st;

	kmem_get_pages(&st);
	return st.slab_pages + st.large_pages;
}

/* ---- checking the trace -------------------------------------------------- */

/*
 * The whole file is checked before anything is allocated, with the same
 * rules and in the same order as scripts/trace2replay --dump: a malformed
 * file is refused with the first problem found and costs nothing.
 * Every size computed from it is bounded first, so nothing overflows: at
 * most REPLAY_MAX_CACHES caches and REPLAY_MAX_SLOTS slots (the op's slot
 * field is 24 bits), the length is compared in 64 bits.
 */
static int check_header(const struct replay_header *h, size_t len)
{
	unsigned long long need;

	if (len < sizeof(*h) || memcmp(h->magic, REPLAY_MAGIC, 4)) {
		pr_err("replay: not a replay trace (no \"%s\" header); convert ftrace text with "
		       "scripts/trace2replay\n", REPLAY_MAGIC);
		return -1;
	}
	if (h->version != REPLAY_VERSION) {
		pr_err("replay: trace format version %u, this kernel reads version %u\n",
		       h->version, REPLAY_VERSION);
		return -1;
	}
	if (h->nr_caches > REPLAY_MAX_CACHES) {
		pr_err("replay: %u caches, the format allows %u\n", h->nr_caches, REPLAY_MAX_CACHES);
		return -1;
	}
	if (h->nr_slots > REPLAY_MAX_SLOTS || h->nr_slots > h->nr_allocs) {
		pr_err("replay: %u slots for %u allocations; the format allows at most %u, and "
		       "no more than the allocations\n", h->nr_slots, h->nr_allocs, REPLAY_MAX_SLOTS);
		return -1;
	}
	need = sizeof(*h) + (unsigned long long)h->nr_caches * sizeof(struct replay_cache) +
	       (unsigned long long)h->nr_ops * sizeof(struct replay_op);
	if (need != len) {
		pr_err("replay: trace is %zu bytes, its header describes %llu (%u caches, %u ops); "
		       "truncated?\n", len, need, h->nr_caches, h->nr_ops);
		return -1;
	}
	return 0;
}

/* Is name a NUL-terminated run of printable ASCII? */
static int printable_name(const char *name, size_t size)
{
	size_t i;

	for (i = 0; i < size && name[i]; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return 0;
	return i < size && i > 0;
}

static int check_caches(const struct replay_cache *caches, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		const struct replay_cache *c = &caches[i];

		if (!c->object_size || !printable_name(c->name, sizeof(c->name)) ||
		    (c->align && !is_power_of_2(c->align))) {
			pr_err("replay: cache %u is malformed (object_size %u, align %u, name not "
			       "printable or not terminated?)\n", i, c->object_size, c->align);
			return -1;
		}
	}
	return 0;
}

/* Checks op n against the slots in use (state[slot] != SLOT_EMPTY) and
 * updates them; returns its opcode, or -1 after reporting the problem. */
static int check_op(const struct replay_header *h, u32 n, const struct replay_op *op,
		    struct slot *slots)
{
	u32 opcode = op->code & REPLAY_OP_MASK, slot = op->code >> REPLAY_SLOT_SHIFT;
	const char *why = NULL;

	if ((op->code & 0xf8u) ||
	    ((op->code & REPLAY_FLAG_ZERO) && opcode != REPLAY_KMALLOC &&
	     opcode != REPLAY_CACHE_ALLOC))
		why = "bad flags";
	else if (opcode == REPLAY_TIME)
		why = slot ? "TIME op with a slot" : NULL;
	else if (slot >= h->nr_slots)
		why = "slot beyond the header's slots";
	else if (opcode == REPLAY_FREE)
		why = op->arg ? "FREE with an argument" :
		      slots[slot].state == SLOT_EMPTY ? "FREE of an empty slot" : NULL;
	else if (slots[slot].state != SLOT_EMPTY)
		why = "allocation into a slot in use";
	else if (opcode == REPLAY_CACHE_ALLOC && op->arg >= h->nr_caches)
		why = "cache beyond the header's caches";
	if (why) {
		pr_err("replay: op %u is malformed (code %#x, arg %u): %s\n", n, op->code, op->arg,
		       why);
		return -1;
	}
	if (opcode != REPLAY_TIME)
		slots[slot].state = opcode == REPLAY_FREE ? SLOT_EMPTY : SLOT_LIVE;
	return (int)opcode;
}

/* Checks every op, their TIME order, and the header's counts; leaves the
 * slot table empty again.  0 or -1 (reported). */
int replay_check_ops(struct replay_state *rs)
{
	const struct replay_header *h = rs->hdr;
	u32 n, allocs = 0, frees = 0, last_time = 0;
	int opcode;

	for (n = 0; n < h->nr_ops; n++) {
		opcode = check_op(h, n, &rs->ops[n], rs->slots);
		if (opcode < 0)
			return -1;
		if (opcode == REPLAY_FREE) {
			frees++;
		} else if (opcode != REPLAY_TIME) {
			allocs++;
		} else if (rs->ops[n].arg < last_time || rs->ops[n].arg > h->duration_us) {
			pr_err("replay: op %u: TIME %u us out of order (previous %u, duration %u)\n",
			       n, rs->ops[n].arg, last_time, h->duration_us);
			return -1;
		} else {
			last_time = rs->ops[n].arg;
		}
	}
	memset(rs->slots, 0, (size_t)h->nr_slots * sizeof(struct slot));
	if (allocs != h->nr_allocs || frees != h->nr_frees) {
		pr_err("replay: the header counts %u allocations and %u frees, the ops %u and %u\n",
		       h->nr_allocs, h->nr_frees, allocs, frees);
		return -1;
	}
	return 0;
}

int replay_check_header(const void *data, size_t len, struct replay_state *rs)
{
	const struct replay_header *h = data;

	if (check_header(h, len))
		return -1;
	rs->hdr = h;
	rs->caches = (const void *)(h + 1);
	rs->ops = (const void *)(rs->caches + h->nr_caches);
	return check_caches(rs->caches, h->nr_caches);
}

/* ---- bookkeeping memory (from the page allocator, outside Slab) ----------- */

void *replay_table_alloc(size_t bytes)
{
	unsigned int order = get_order(bytes);

	if (order >= MAX_ORDER)
		return NULL;
	return (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
}

void replay_table_free(void *p, size_t bytes)
{
	free_pages((unsigned long)(uintptr_t)p, get_order(bytes));
}

/* ---- the distribution of the calls' cycles ----------------------------------------
 *
 * Every measured call's cycles go into a histogram per kind, in units of
 * 2^CALL_UNIT_SHIFT cycles: under QEMU -icount shift=4 (scripts/qemu-run
 * --icount) the TSC advances 16 a guest instruction, so a unit is one
 * instruction and the figures repeat exactly.  Exact up to CALL_EXACT
 * units, then CALL_SUB buckets an octave (a bucket is named by its lower
 * bound: within 1/CALL_SUB of the value).  The slowest CALL_SLOWEST calls
 * of each kind are kept exactly, with their number among the calls of
 * their kind (the host benchmark numbers its calls the same way).  Static
 * (about 10 kB, one copy): the page allocator's figures do not change.
 */
#define CALL_UNIT_SHIFT	4
#define CALL_EXACT	512
#define CALL_EXACT_BITS	9		/* log2(CALL_EXACT) */
#define CALL_SUB_BITS	5
#define CALL_SUB	(1 << CALL_SUB_BITS)
#define CALL_BUCKETS	(CALL_EXACT + (32 - CALL_EXACT_BITS) * CALL_SUB)
#define CALL_SLOWEST	4

struct call_slow {
	u32 call, units;
};

static struct {
	u32 hist[2][CALL_BUCKETS];		/* [0] allocations, [1] frees */
	struct call_slow slowest[2][CALL_SLOWEST];	/* slowest first */
	u32 calls[2];
} call_dist;

static unsigned int call_bucket(u32 units)
{
	unsigned int msb;

	if (units < CALL_EXACT)
		return units;
	msb = 31 - (unsigned int)__builtin_clz(units);
	return CALL_EXACT + (msb - CALL_EXACT_BITS) * CALL_SUB +
	       ((units >> (msb - CALL_SUB_BITS)) & (CALL_SUB - 1));
}

/* The lower bound, in units, of bucket b. */
static u32 call_bucket_value(unsigned int b)
{
	unsigned int octave, sub;

	if (b < CALL_EXACT)
		return b;
	octave = (b - CALL_EXACT) / CALL_SUB + CALL_EXACT_BITS;
	sub = (b - CALL_EXACT) % CALL_SUB;
	return (u32)(CALL_SUB + sub) << (octave - CALL_SUB_BITS);
}

/* Notes one measured call of kind (0 allocation, 1 free) that took cycles. */
static void note_call(int kind, u64 cycles)
{
	u64 u = cycles >> CALL_UNIT_SHIFT;
	u32 units = u > 0xffffffffULL ? 0xffffffffU : (u32)u;
	struct call_slow *s = call_dist.slowest[kind];
	int i = CALL_SLOWEST;

	call_dist.hist[kind][call_bucket(units)]++;
	while (i > 0 && units > s[i - 1].units) {
		if (i < CALL_SLOWEST)
			s[i] = s[i - 1];
		i--;
	}
	if (i < CALL_SLOWEST) {
		s[i].call = call_dist.calls[kind];
		s[i].units = units;
	}
	call_dist.calls[kind]++;
}

/* "replay-calls: KIND CALLS unit CYCLES" a kind, then a "replay-hist:
 * KIND UNITS COUNT" line a bucket that has calls and a "replay-slowest:
 * KIND CALL UNITS" line for each of the slowest calls. */
static void replay_report_calls(void)
{
	static const char *const kinds[2] = { "alloc", "free" };
	unsigned int b;
	int k, i;

	for (k = 0; k < 2; k++) {
		printk("replay-calls: %s %u unit %u cycles\n", kinds[k], call_dist.calls[k],
		       1u << CALL_UNIT_SHIFT);
		for (b = 0; b < CALL_BUCKETS; b++)
			if (call_dist.hist[k][b])
				printk("replay-hist: %s %u %u\n", kinds[k], call_bucket_value(b),
				       call_dist.hist[k][b]);
		for (i = 0; i < CALL_SLOWEST && call_dist.slowest[k][i].units; i++)
			printk("replay-slowest: %s %u %u\n", kinds[k], call_dist.slowest[k][i].call,
			       call_dist.slowest[k][i].units);
	}
}

/* ---- one op ------------------------------------------------------------------ */

static u8 slot_byte(u32 slot)
{
	return (u8)(slot * 131u + 17u);
}

static void note_corruption(struct replay_state *rs, u32 op, const char *what, const void *p)
{
	if (++rs->res->corruptions <= 5)
		pr_err("replay: op %u: %s (object %p)\n", op, what, p);
}

static struct kmem_cache *cache_for(struct replay_state *rs, u32 idx)
{
	const struct replay_cache *c = &rs->caches[idx];

	if (!rs->cache_ptr[idx])
		rs->cache_ptr[idx] = kmem_cache_create(c->name, c->object_size, c->align, 0,
						       NULL, NULL);
	return rs->cache_ptr[idx];
}

static void take_sample(struct replay_state *rs, u32 op)
{
	struct replay_result *res = rs->res;
	struct replay_sample *s;

	if (res->nr_samples == REPLAY_SAMPLES)
		return;
	s = &res->samples[res->nr_samples++];
	s->op = op;
	s->held_pages = (u32)replay_held_pages();
	s->live_bytes = (u32)min_t(unsigned long long, rs->live_bytes, 0xffffffffULL);
}

static void note_peak(struct replay_state *rs)
{
	struct replay_result *res = rs->res;

	if (rs->live_bytes > res->peak_live_bytes) {
		res->peak_live_bytes = rs->live_bytes;
		res->held_pages_at_peak = replay_held_pages();
		res->memfree_at_peak = nr_free_pages();
	}
	res->peak_live_objects = max(res->peak_live_objects, rs->live_objects);
}

static void do_alloc(struct replay_state *rs, u32 n, u32 code, u32 arg, struct slot *s)
{
	int cache_op = (code & REPLAY_OP_MASK) == REPLAY_CACHE_ALLOC;
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | ((code & REPLAY_FLAG_ZERO) ? __GFP_ZERO : 0);
	struct kmem_cache *c = NULL;
	u32 size = arg;
	unsigned long injected0 = fault_injected_total();
	u64 t0, t1;
	void *p;

	if (cache_op) {
		size = rs->caches[arg].object_size;
		c = cache_for(rs, arg);
	}
	rs->res->allocs++;
	measure_begin(MEASURE_ALLOC);
	t0 = get_cycles();
	p = cache_op ? (c ? kmem_cache_alloc(c, gfp) : NULL) : kmalloc(size, gfp);
	t1 = get_cycles();
	rs->res->alloc_cycles += t1 - t0;
	measure_end(MEASURE_ALLOC);
	note_call(0, t1 - t0);
	if (!p) {
		rs->res->failures++;
		rs->res->largest_refused = max(rs->res->largest_refused, (unsigned long)size);
		if (fault_injected_total() != injected0)
			rs->res->injected++;
		else if (size > LARGEST_BLOCK)
			rs->res->too_large++;
		s->state = SLOT_FAILED;
		return;
	}
	if ((code & REPLAY_FLAG_ZERO) && memchr_inv(p, 0, size))
		note_corruption(rs, n, "memory asked for zeroed is not zero", p);
	if (!cache_op && ksize(p) < size)
		note_corruption(rs, n, "ksize() is smaller than the size asked for", p);
	s->ptr = p;
	s->state = SLOT_LIVE;
	s->size = size;
	s->cache = cache_op ? (u16)arg : NO_CACHE;
	s->pattern = slot_byte(code >> REPLAY_SLOT_SHIFT);
	memset(p, s->pattern, size);
	rs->live_bytes += size;
	rs->live_objects++;
	note_peak(rs);
}

/* Frees the object in slot s (op n of the trace, or n == nr_ops for the
 * final clean-up, which is not counted in the trace's figures). */
static void do_free(struct replay_state *rs, u32 n, struct slot *s)
{
	int traced = n < rs->hdr->nr_ops;
	u64 t0, t1;

	if (memchr_inv(s->ptr, s->pattern, s->size))
		note_corruption(rs, n, "object contents changed while it was allocated", s->ptr);
	if (traced)
		measure_begin(MEASURE_FREE);
	t0 = get_cycles();
	if (s->cache == NO_CACHE)
		kfree(s->ptr);
	else
		kmem_cache_free(rs->cache_ptr[s->cache], s->ptr);
	if (traced) {
		t1 = get_cycles();
		rs->res->frees++;
		rs->res->free_cycles += t1 - t0;
		measure_end(MEASURE_FREE);
		note_call(1, t1 - t0);
	}
	rs->live_bytes -= s->size;
	rs->live_objects--;
	s->ptr = NULL;
	s->state = SLOT_EMPTY;
}

/* Runs timers tick by tick until jiffies reach the trace time us (at most
 * a u32 of microseconds plus the settling time: about 72 minutes). */
static void advance_clock(struct replay_state *rs, u64 us)
{
	unsigned long target = rs->start_jiffies + (unsigned long)(us * HZ / 1000000);

	while (time_before(jiffies, target))
		timer_tick();
}

/* Executes op n, which replay_check_ops() found well-formed. */
static void replay_op(struct replay_state *rs, u32 n)
{
	u32 code = rs->ops[n].code, arg = rs->ops[n].arg;
	struct slot *s = &rs->slots[code >> REPLAY_SLOT_SHIFT];

	switch (code & REPLAY_OP_MASK) {
	case REPLAY_TIME:
		advance_clock(rs, arg);
		break;
	case REPLAY_KMALLOC:
	case REPLAY_CACHE_ALLOC:
		do_alloc(rs, n, code, arg, s);
		break;
	default:
		if (s->state == SLOT_LIVE)
			do_free(rs, n, s);
		s->state = SLOT_EMPTY;	/* the free of a failed allocation is a no-op */
	}
}

/* ---- the run ---------------------------------------------------------------- */

void replay_free_slot(struct replay_state *rs, struct slot *s)
{
	do_free(rs, rs->hdr->nr_ops, s);
}

static void free_everything(struct replay_state *rs)
{
	u32 i;

	for (i = 0; i < rs->hdr->nr_slots; i++)
		if (rs->slots[i].state == SLOT_LIVE)
			replay_free_slot(rs, &rs->slots[i]);
	for (i = 0; i < rs->hdr->nr_caches; i++)
		if (rs->cache_ptr[i])
			kmem_cache_destroy(rs->cache_ptr[i]);
}

/* "replay: 10% 20% ... 100%" on one line while the ops run, for a person
 * at the console (rs->progress_every ops a step). */
static void show_progress(struct replay_state *rs, u32 n)
{
	if (!rs->progress_every || n % rs->progress_every)
		return;
	if (!n)
		printk("replay: the kernel's clock follows the trace's timestamps, not real "
		       "time\nreplay: running");
	else
		pr_cont(" %u%%", n / rs->progress_every * (100 / PROGRESS_STEPS));
	if (n && (replay_output & REPLAY_MAP)) {
		pr_cont("\n");
		kmem_heap_map();
		printk("replay: running");
	}
}

/* What the allocator holds right after op n: the lines scripts/compare
 * parses for its heap pictures and its cached-objects row. */
static void replay_state_at(struct replay_state *rs, u32 n)
{
	struct kmem_stats st;

	kmem_get_pages(&st);
	printk("replay: at op %u: Slab %lu pages, live %llu bytes, cached by the per-CPU "
	       "layers %lu bytes\n", n, st.slab_pages + st.large_pages, rs->live_bytes,
	       kmem_cached_bytes());
	kmem_heap_map();
}

/* Runs every op (Ctrl-C at the console is looked at every 1024 ops). */
int replay_run_ops(struct replay_state *rs, u64 settle_us)
{
	int ret = 0;
	u32 n;

	for (n = 0; n < rs->hdr->nr_ops; n++) {
		if ((n & 1023) == 0 && console_interrupted()) {
			if (rs->progress_every)
				pr_cont("\n");
			printk("replay: interrupted at op %u of %u\n", n, rs->hdr->nr_ops);
			ret = -2;
			break;
		}
		show_progress(rs, n);
		replay_op(rs, n);
		rs->res->ops++;
		if (n + 1UL == rs->map_after)
			replay_state_at(rs, n);
		if (n % rs->sample_every == 0)
			take_sample(rs, n);
	}
	if (!ret) {
		if (rs->progress_every)
			pr_cont(" done\n");
		if (rs->progress_every && (replay_output & REPLAY_MAP))
			kmem_heap_map();
		take_sample(rs, n);
	}
	advance_clock(rs, rs->hdr->duration_us + settle_us);
	return ret;
}

/*
 * Starts the trace's clock from the same allocator state and timer phase
 * wherever the replay runs: everything spare is reclaimed first and the
 * page allocator's free lists put in address order (so the pages handed
 * out, which decide what SLOB can merge, do not depend on an earlier run),
 * then the clock runs on to a multiple of PHASE_SECONDS, where the
 * periodic timers (armed with round_jiffies_period()) stand at the start
 * of their period.
 */
void replay_start_in_step(struct replay_state *rs)
{
	unsigned long phase = PHASE_SECONDS * HZ;

	kmem_reclaim();
	page_alloc_sort_free_lists();
	while (jiffies % phase)
		timer_tick();
	rs->start_jiffies = jiffies;
}

static unsigned long max_sampled_pages(const struct replay_result *res)
{
	unsigned long i, most = res->held_pages_at_peak;

	for (i = 0; i < res->nr_samples; i++)
		most = max(most, (unsigned long)res->samples[i].held_pages);
	return most;
}

int replay_run(const void *data, size_t len, struct replay_result *res)
{
	size_t slots_bytes, caches_bytes;
	struct replay_state rs;
	unsigned long flags;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&rs, 0, sizeof(rs));
	memset(&call_dist, 0, sizeof(call_dist));
	if (replay_check_header(data, len, &rs))
		return -1;
	rs.res = res;
	rs.sample_every = rs.hdr->nr_ops / (REPLAY_SAMPLES - 2) + 1;
	if (replay_output & REPLAY_PROGRESS)
		rs.progress_every = rs.hdr->nr_ops / PROGRESS_STEPS + 1;
	rs.map_after = replay_map_op + 1;	/* ~0UL + 1: 0, none */
	slots_bytes = (size_t)rs.hdr->nr_slots * sizeof(struct slot) + 1;
	caches_bytes = (size_t)rs.hdr->nr_caches * sizeof(void *) + 1;
	rs.slots = replay_table_alloc(slots_bytes);
	rs.cache_ptr = replay_table_alloc(caches_bytes);
	if (!rs.slots || !rs.cache_ptr) {
		pr_err("replay: no memory for the tables of %u live objects and %u caches\n",
		       rs.hdr->nr_slots, rs.hdr->nr_caches);
		ret = -1;
		goto out;
	}
	ret = replay_check_ops(&rs);
	if (ret)
		goto out;

	local_irq_save(flags);
	replay_start_in_step(&rs);
	ret = replay_run_ops(&rs, SETTLE_SECONDS * 1000000ULL);
	res->memfree_end = nr_free_pages();
	res->held_pages_end = replay_held_pages();
	if (replay_output & REPLAY_DATA) {
		printk("replay: allocator report at the end of the trace:\n");
		kmem_report();
		printk("replay: end of allocator report\n");
	}
	free_everything(&rs);
	advance_clock(&rs, rs.hdr->duration_us + 2 * SETTLE_SECONDS * 1000000ULL);
	res->held_pages_after_free_all = replay_held_pages();
	local_irq_restore(flags);

	res->max_held_pages = max_sampled_pages(res);
	if (!ret && (res->failures || res->corruptions))
		ret = 1;
out:
	if (rs.slots)
		replay_table_free(rs.slots, slots_bytes);
	if (rs.cache_ptr)
		replay_table_free(rs.cache_ptr, caches_bytes);
	return ret;
}

/* ---- the report ----------------------------------------------------------------- */

#define KB(pages)	((pages) << (PAGE_SHIFT - 10))

/* Prints x/y as a percentage with one decimal, without floating point. */
static void print_ratio(const char *label, unsigned long long x, unsigned long long y)
{
	unsigned long long permille = y ? x * 1000 / y : 0;

	printk("%s%llu.%llu%%\n", label, permille / 10, permille % 10);
}

void replay_report(const struct replay_result *res, const char *trace_name)
{
	unsigned long long held = (unsigned long long)res->held_pages_at_peak * PAGE_SIZE;
	unsigned long i;

	printk("replay: trace %s, allocator %s\n", trace_name, kmem_allocator_name);
	printk("replay: ops %lu (allocations %lu, frees %lu)\n", res->ops, res->allocs, res->frees);
	if (res->peak_live_bytes) {
		printk("replay: peak live %llu bytes in %lu objects at most\n",
		       res->peak_live_bytes, res->peak_live_objects);
		printk("replay: Slab at the peak %lu pages (%lu kB); highest sampled %lu pages\n",
		       res->held_pages_at_peak, KB(res->held_pages_at_peak), res->max_held_pages);
		print_ratio("replay: overhead (held - live) / live = ",
			    held > res->peak_live_bytes ? held - res->peak_live_bytes : 0,
			    res->peak_live_bytes);
		printk("replay: MemFree at the peak %lu kB, at the end %lu kB (Slab %lu kB) after "
		       "%d s of timers\n", KB(res->memfree_at_peak), KB(res->memfree_end),
		       KB(res->held_pages_end), SETTLE_SECONDS);
	} else {	/* nothing was measured at a peak: say so, print no zeros */
		printk("replay: %s; no peak\n", res->allocs > res->failures ?
		       "no allocation held a byte" : "no allocation succeeded");
		printk("replay: MemFree at the end %lu kB (Slab %lu kB) after %d s of timers\n",
		       KB(res->memfree_end), KB(res->held_pages_end), SETTLE_SECONDS);
	}
	printk("replay: Slab after freeing every object %lu kB\n", KB(res->held_pages_after_free_all));
	printk("replay: allocation failures %lu, corruptions %lu\n", res->failures, res->corruptions);
	if (res->failures)
		printk("replay: largest allocation refused %lu bytes\n", res->largest_refused);
	if (res->injected)
		printk("replay: NOTE: %lu of the failures were injected (failslab, fail_page_alloc), "
		       "not for want of memory\n", res->injected);
	if (res->too_large)
		printk("replay: NOTE: %lu of the failures asked for more than any block this kernel "
		       "allocates (%llu kB): they fail on every machine\n", res->too_large,
		       (unsigned long long)(LARGEST_BLOCK >> 10));
	if (res->failures > res->injected + res->too_large)
		printk("replay: NOTE: %lu allocations failed: this machine is too small for the trace "
		       "(give it more memory, e.g. MEM=64)\n",
		       res->failures - res->injected - res->too_large);
	printk("replay: cycles per op: alloc %llu, free %llu (TSC; emulated under QEMU TCG)\n",
	       res->allocs ? res->alloc_cycles / res->allocs : 0,
	       res->frees ? res->free_cycles / res->frees : 0);
	if (!(replay_output & REPLAY_DATA))
		return;
	for (i = 0; i < res->nr_samples; i++)
		printk("replay-sample: %u %u %u\n", res->samples[i].op, res->samples[i].held_pages,
		       res->samples[i].live_bytes);
	replay_report_calls();
}
