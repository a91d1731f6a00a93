/* kmem_stress.c - the same allocation workload on several CPUs at once: the
 * smp self-test's load and the scaling figure (console "smpbench", host
 * bench-smp).  Built on the allocator API and <tiny/smp.h> alone.
 *
 * Each CPU keeps a table of STRESS_SLOTS object slots.  An operation picks
 * a slot: a full one is checked and freed, an empty one gets a new object.
 * Half the picks go to the first STRESS_HOT slots, so most objects live a
 * few operations and the rest live hundreds, as in the boot trace
 * (tests/traces), whose sizes the table below follows, weighted by their
 * counts there.  Objects of 192 and 640 bytes (the trace's dentry- and
 * inode-sized ones) come half the time from two caches that every CPU
 * shares.  Each object carries a tag in its first and last four bytes,
 * checked when it is freed.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/console.h>
#include <tiny/kmem_stress.h>
#include <tiny/random.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <arch/timex.h>

#define STRESS_SLOTS	512
#define STRESS_HOT	16

struct stress_slot {
	u32 *obj;
	u32 size;
	u32 tag;
	int cache;		/* -1: kmalloc(), else the index of the cache */
};

/* Sizes of the trace's 25 commonest allocations, weighted by their counts
 * (in hundreds, rounded up). */
static const struct {
	u16 size;
	u16 weight;
} stress_sizes[] = {
	{ 32, 144 }, { 128, 122 }, { 192, 114 }, { 640, 100 }, { 8, 51 }, { 80, 45 },
	{ 64, 41 }, { 56, 32 }, { 96, 23 }, { 4096, 22 }, { 72, 22 }, { 16, 19 },
	{ 152, 15 }, { 256, 12 }, { 104, 8 }, { 784, 6 }, { 584, 5 }, { 512, 4 },
	{ 48, 4 }, { 1152, 4 }, { 2048, 4 }, { 1024, 4 }, { 2112, 3 }, { 6208, 3 },
	{ 24, 3 },
};

static const u32 stress_cache_sizes[2] = { 192, 640 };

/* How often (in operations) a CPU looks whether the run was stopped, and
 * the CPU that started it whether Ctrl-C was typed: SLOB with four CPUs
 * on two host cores takes about a million cycles an operation. */
#define STRESS_CHECK	32

struct stress_run {
	unsigned int ncpus;
	unsigned long ops;
	int slot[NR_CPUS];		/* each CPU's result slot, -1: not in this run */
	unsigned int caller;		/* the CPU that started it: watches for Ctrl-C */
	int stop;			/* Ctrl-C: every CPU stops at its next check */
	struct kmem_cache *cache[2];
	atomic_t ready;			/* CPUs at the starting line */
	struct kmem_stress_result *res;
};

static u32 stress_weight_total(void)
{
	u32 total = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stress_sizes); i++)
		total += stress_sizes[i].weight;
	return total;
}

static u32 pick_size(struct rnd_state *rnd, u32 total)
{
	u32 w = prandom_below(rnd, total);
	unsigned int i;

	for (i = 0; w >= stress_sizes[i].weight; i++)
		w -= stress_sizes[i].weight;
	return stress_sizes[i].size;
}

/* Fills an empty slot; returns 0, or -1 if the allocator had no memory. */
static int stress_alloc(struct stress_run *run, struct stress_slot *s, struct rnd_state *rnd,
			u32 total, u32 tag)
{
	u32 size = pick_size(rnd, total);
	int cache = -1;

	if ((size == stress_cache_sizes[0] || size == stress_cache_sizes[1]) &&
	    (prandom_u32(rnd) & 1))
		cache = size == stress_cache_sizes[1];
	s->obj = cache < 0 ? kmalloc(size, GFP_KERNEL) :
		 kmem_cache_alloc(run->cache[cache], GFP_KERNEL);
	if (!s->obj)
		return -1;
	s->size = size;
	s->tag = tag;
	s->cache = cache;
	s->obj[0] = tag;
	s->obj[size / 4 - 1] = ~tag;
	return 0;
}

/* Checks and frees a slot's object; returns 1 if it was damaged. */
static int stress_free(struct stress_run *run, struct stress_slot *s)
{
	int bad = s->obj[0] != s->tag || s->obj[s->size / 4 - 1] != ~s->tag;

	if (bad)
		pr_err("kmem_stress: CPU#%u: %u-byte object %p damaged (tag %08x, found %08x ... %08x)\n",
		       smp_processor_id(), s->size, (void *)s->obj, s->tag, s->obj[0],
		       s->obj[s->size / 4 - 1]);
	if (s->cache < 0)
		kfree(s->obj);
	else
		kmem_cache_free(run->cache[s->cache], s->obj);
	s->obj = NULL;
	return bad;
}

/* Whether the run was stopped; the CPU that started it stops it on Ctrl-C. */
static int stress_stopped(struct stress_run *run, unsigned int cpu)
{
	if (cpu == run->caller && console_interrupted())
		__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED);
}

/* One CPU's share: wait for the others, run the operations timed, then
 * free what is left (untimed).  Its figures go to its slot. */
static void stress_cpu(void *arg)
{
	struct stress_run *run = arg;
	unsigned int cpu = smp_processor_id(), i;
	int slot = run->slot[cpu];
	struct kmem_stress_result *res = run->res;
	struct stress_slot *slots;
	struct rnd_state rnd;
	u32 total = stress_weight_total();
	unsigned long op, fails = 0, errors = 0;
	u64 start;

	if (slot < 0)
		return;
	res->cpu[slot] = cpu;
	slots = kzalloc(STRESS_SLOTS * sizeof(*slots), GFP_KERNEL);
	atomic_inc(&run->ready);
	while (atomic_read(&run->ready) < (int)run->ncpus)
		cpu_relax();
	if (!slots) {
		res->errors[slot] = 1;
		return;
	}
	prandom_seed(&rnd, 0x5eed0000u + cpu * 7919u);
	start = get_cycles();
	for (op = 0; op < run->ops; op++) {
		u32 r = prandom_u32(&rnd);
		struct stress_slot *s = &slots[(r & 1) ? (r >> 1) % STRESS_HOT :
					       (r >> 1) % STRESS_SLOTS];

		if (op % STRESS_CHECK == 0 && stress_stopped(run, cpu))
			break;
		if (s->obj)
			errors += stress_free(run, s);
		else if (stress_alloc(run, s, &rnd, total, (cpu << 24) ^ (u32)op ^ 0x5a000000u))
			fails++;
	}
	res->cycles[slot] = get_cycles() - start;
	for (i = 0; i < STRESS_SLOTS; i++)
		if (slots[i].obj)
			errors += stress_free(run, &slots[i]);
	kfree(slots);
	res->ops[slot] = op;
	res->failures[slot] = fails;
	res->errors[slot] = errors;
}

/* Gives the run's slots to the calling CPU and the next ncpus - 1 online
 * ones; -1 if fewer are online. */
static int assign_slots(struct stress_run *run, unsigned int ncpus)
{
	run->caller = smp_processor_id();
	return smp_assign_slots(run->slot, ncpus);
}

static atomic_t stress_busy;

int kmem_stress_run(unsigned int ncpus, unsigned long ops_per_cpu,
		    struct kmem_stress_result *res)
{
	static struct stress_run run;	/* one run at a time (stress_busy) */
	unsigned int slot;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (!ncpus || ncpus > NR_CPUS || atomic_xchg(&stress_busy, 1))
		return -1;
	if (assign_slots(&run, ncpus)) {
		atomic_set(&stress_busy, 0);
		return -1;
	}
	run.ncpus = ncpus;
	run.ops = ops_per_cpu;
	run.res = res;
	run.stop = 0;
	atomic_set(&run.ready, 0);
	run.cache[0] = kmem_cache_create("kstress_192", stress_cache_sizes[0], 0, 0, NULL, NULL);
	run.cache[1] = kmem_cache_create("kstress_640", stress_cache_sizes[1], 0,
					 SLAB_HWCACHE_ALIGN, NULL, NULL);
	if (run.cache[0] && run.cache[1]) {
		res->ncpus = ncpus;
		if (smp_run_on_all_cpus(stress_cpu, &run) < ncpus)
			ret = -1;
	} else {
		ret = -1;
	}
	res->interrupted = run.stop;
	for (slot = 0; slot < ncpus; slot++)
		if (res->errors[slot])
			ret = -1;
	if ((run.cache[0] && kmem_cache_destroy(run.cache[0])) ||
	    (run.cache[1] && kmem_cache_destroy(run.cache[1])))
		ret = -1;
	atomic_set(&stress_busy, 0);
	return ret;
}

/* Every CPU's operations over the slowest one's cycles, per million
 * cycles, in hundredths: the run's throughput (the host's bench-smp gives
 * the same per second). */
static unsigned long long ops_per_mcycle_x100(const struct kmem_stress_result *res)
{
	unsigned long long ops = 0, slowest = 1;
	unsigned int slot;

	for (slot = 0; slot < res->ncpus; slot++) {
		ops += res->ops[slot];
		if (res->cycles[slot] > slowest)
			slowest = res->cycles[slot];
	}
	return ops * 100000000ULL / slowest;
}

/* One line of the report: n CPUs' throughput against one CPU's, then each
 * CPU's cycles per operation. */
static void report_line(const struct kmem_stress_result *res, unsigned long long base)
{
	unsigned long long rate = ops_per_mcycle_x100(res), ratio = rate * 100 / base;
	unsigned int slot;

	printk("smpbench: %2u CPU(s): %llu.%02llu allocs+frees per million cycles, "
	       "x%llu.%02llu of 1 CPU; cycles/op on CPU", res->ncpus, rate / 100, rate % 100,
	       ratio / 100, ratio % 100);
	for (slot = 0; slot < res->ncpus; slot++)
		printk(KERN_CONT " %u:%llu", res->cpu[slot],
		       res->cycles[slot] / (res->ops[slot] ? res->ops[slot] : 1));
	printk(KERN_CONT "\n");
}

/* Says how far an interrupted run got. */
static void report_interrupted(const struct kmem_stress_result *res, const char *run,
			       unsigned long ops_per_cpu)
{
	unsigned long done = 0;
	unsigned int slot;

	for (slot = 0; slot < res->ncpus; slot++)
		done += res->ops[slot];
	printk("smpbench: interrupted in the %s on %u CPU(s), after %lu of its %llu operations\n",
	       run, res->ncpus, done, (unsigned long long)ops_per_cpu * res->ncpus);
}

/* One run of the report; 0, or -1 if it failed or was interrupted (said). */
static int report_run(unsigned int n, unsigned long ops, struct kmem_stress_result *res,
		      const char *run)
{
	if (kmem_stress_run(n, ops, res)) {
		printk(KERN_ERR "smpbench: the %s on %u CPU(s) failed\n", run, n);
		return -1;
	}
	if (res->interrupted) {
		report_interrupted(res, run, ops);
		return -1;
	}
	return 0;
}

/* The warm-up run's operations: the first run grows the kmalloc classes
 * and would count that against one CPU's figure. */
#define STRESS_WARM_UP	20000UL

int kmem_stress_report(unsigned long ops_per_cpu)
{
	static struct kmem_stress_result res;
	unsigned int n = 1, online = num_online_cpus();
	unsigned long long base = 0;

	printk("smpbench: %lu allocations and frees per CPU, %s, %u CPU(s) online\n",
	       ops_per_cpu, kmem_allocator_name, online);
	if (report_run(1, min(ops_per_cpu, STRESS_WARM_UP), &res, "warm-up run"))
		return -1;
	for (;;) {
		if (report_run(n, ops_per_cpu, &res, "run"))
			return -1;
		if (!base)
			base = ops_per_mcycle_x100(&res) ? ops_per_mcycle_x100(&res) : 1;
		report_line(&res, base);
		if (n == online)
			return 0;
		n = n * 2 < online ? n * 2 : online;
	}
}
