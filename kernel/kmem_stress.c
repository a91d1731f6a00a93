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

struct stress_run {
	unsigned int ncpus;
	unsigned long ops;
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

/* One CPU's share: wait for the others, run the operations timed, then
 * free what is left (untimed). */
static void stress_cpu(void *arg)
{
	struct stress_run *run = arg;
	unsigned int cpu = smp_processor_id(), i;
	struct kmem_stress_result *res = run->res;
	struct stress_slot *slots;
	struct rnd_state rnd;
	u32 total = stress_weight_total();
	unsigned long op, fails = 0, errors = 0;
	u64 start;

	if (cpu >= run->ncpus)
		return;
	slots = kzalloc(STRESS_SLOTS * sizeof(*slots), GFP_KERNEL);
	atomic_inc(&run->ready);
	while (atomic_read(&run->ready) < (int)run->ncpus)
		cpu_relax();
	if (!slots) {
		res->errors[cpu] = 1;
		return;
	}
	prandom_seed(&rnd, 0x5eed0000u + cpu * 7919u);
	start = get_cycles();
	for (op = 0; op < run->ops; op++) {
		u32 r = prandom_u32(&rnd);
		struct stress_slot *s = &slots[(r & 1) ? (r >> 1) % STRESS_HOT :
					       (r >> 1) % STRESS_SLOTS];

		if (s->obj)
			errors += stress_free(run, s);
		else if (stress_alloc(run, s, &rnd, total, (cpu << 24) ^ (u32)op ^ 0x5a000000u))
			fails++;
	}
	res->cycles[cpu] = get_cycles() - start;
	for (i = 0; i < STRESS_SLOTS; i++)
		if (slots[i].obj)
			errors += stress_free(run, &slots[i]);
	kfree(slots);
	res->ops[cpu] = run->ops;
	res->failures[cpu] = fails;
	res->errors[cpu] = errors;
}

static atomic_t stress_busy;

int kmem_stress_run(unsigned int ncpus, unsigned long ops_per_cpu,
		    struct kmem_stress_result *res)
{
	static struct stress_run run;	/* one run at a time (stress_busy) */
	unsigned int cpu;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (!ncpus || ncpus > num_online_cpus() || atomic_xchg(&stress_busy, 1))
		return -1;
	run.ncpus = ncpus;
	run.ops = ops_per_cpu;
	run.res = res;
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
	for (cpu = 0; cpu < ncpus; cpu++)
		if (res->errors[cpu])
			ret = -1;
	if ((run.cache[0] && kmem_cache_destroy(run.cache[0])) ||
	    (run.cache[1] && kmem_cache_destroy(run.cache[1])))
		ret = -1;
	atomic_set(&stress_busy, 0);
	return ret;
}

/* Mean cycles per operation over the CPUs that ran, in hundredths. */
static unsigned long long mean_cycles_x100(const struct kmem_stress_result *res)
{
	unsigned long long sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < res->ncpus; cpu++)
		sum += res->cycles[cpu] * 100 / (res->ops[cpu] ? res->ops[cpu] : 1);
	return sum / res->ncpus;
}

/* One line of the report: n CPUs' figures against the one-CPU mean. */
static void report_line(const struct kmem_stress_result *res, unsigned long long base_x100)
{
	unsigned long long mean = mean_cycles_x100(res), ratio = mean * 100 / base_x100;
	unsigned int cpu;

	printk("smpbench: %2u CPU(s): %llu.%02llu cycles/op per CPU (x%llu.%02llu of 1 CPU):",
	       res->ncpus, mean / 100, mean % 100, ratio / 100, ratio % 100);
	for (cpu = 0; cpu < res->ncpus; cpu++)
		printk(KERN_CONT " %llu", res->cycles[cpu] / (res->ops[cpu] ? res->ops[cpu] : 1));
	printk(KERN_CONT "\n");
}

int kmem_stress_report(unsigned long ops_per_cpu)
{
	static struct kmem_stress_result res;
	unsigned int n = 1, online = num_online_cpus();
	unsigned long long base = 0;

	printk("smpbench: %lu allocations and frees per CPU, %s, %u CPU(s) online\n",
	       ops_per_cpu, kmem_allocator_name, online);
	for (;;) {
		if (kmem_stress_run(n, ops_per_cpu, &res)) {
			printk(KERN_ERR "smpbench: the run on %u CPU(s) failed\n", n);
			return -1;
		}
		if (!base)
			base = mean_cycles_x100(&res) ? mean_cycles_x100(&res) : 1;
		report_line(&res, base);
		if (n == online)
			return 0;
		n = n * 2 < online ? n * 2 : online;
	}
}
