/* slab_test_smp.c - slab_test's tests on several CPUs at once (concurrent,
 * remote, one_alloc; <tiny/slab_test.h> says what each measures).
 *
 * Every CPU of the run takes a slot (slot 0: the CPU that started it) and
 * runs the test's share for its slot under smp_run_on_all_cpus().  The
 * CPUs meet at a barrier before each batch and between the phases of a
 * batch, so that each phase starts on every CPU at once and a table is
 * never filled while another CPU still frees from it.  Ctrl-C is seen by
 * the starting CPU at a barrier; it names the barrier at which every CPU
 * stops (stop_at), so that all leave the same batch, whichever comes late.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/console.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <arch/timex.h>
#include "slab_test_loops.h"

struct smp_run {
	enum slab_test_kind kind;
	unsigned int size, ncpus;
	unsigned long n;
	int slot[NR_CPUS];		/* each CPU's slot, -1: not in this run */
	unsigned int caller;		/* the CPU that started it: watches for Ctrl-C */
	void **table[NR_CPUS];		/* each slot's objects, by slot */
	unsigned long failures[NR_CPUS], remote[NR_CPUS];	/* by slot */
	atomic_t arrived;		/* CPUs at the current barrier */
	int gen;			/* barriers completed */
	int stop_at;			/* 0, or the barrier (gen + 1) at which all stop */
	struct slab_test_result *res;
};

/* What the producer of one_alloc hands over when its kmalloc failed. */
static char failed_mark;

/* Waits until every CPU of the run has come; returns nonzero if the run
 * stops here (the same answer on every CPU: see the top of the file). */
static int run_barrier(struct smp_run *run, unsigned int cpu)
{
	int gen = smp_load_acquire(&run->gen), stop_at;

	if (cpu == run->caller && console_interrupted() && !run->stop_at)
		__atomic_store_n(&run->stop_at, gen + 1, __ATOMIC_RELAXED);
	if (atomic_inc_return(&run->arrived) == (int)run->ncpus) {
		atomic_set(&run->arrived, 0);
		smp_store_release(&run->gen, gen + 1);
	} else {
		while (smp_load_acquire(&run->gen) == gen)
			cpu_relax();
	}
	stop_at = __atomic_load_n(&run->stop_at, __ATOMIC_RELAXED);
	return stop_at && stop_at <= gen + 1;
}

static void add_phase(struct smp_run *run, int slot, enum slab_test_phase ph,
		      unsigned long calls, u64 cycles)
{
	run->res->calls[slot][ph] += calls;
	run->res->cycles[slot][ph] += cycles;
}

/* Every CPU: a batch of kmalloc, then (all at once) its kfree; then pairs. */
static void concurrent_share(struct smp_run *run, unsigned int cpu, int slot)
{
	unsigned long done, count, batch = run->res->batch;
	u8 tag = (u8)(slot + 1);

	for (done = 0; done < run->n; done += count) {
		count = min(batch, run->n - done);
		if (run_barrier(run, cpu))
			return;
		add_phase(run, slot, SLAB_TEST_KMALLOC, count,
			  slab_test_alloc_loop(run->table[slot], count, run->size, tag,
					       &run->failures[slot]));
		run_barrier(run, cpu);		/* a stop here is seen at the next */
		add_phase(run, slot, SLAB_TEST_KFREE, count,
			  slab_test_free_loop(run->table[slot], count, tag, &run->remote[slot]));
	}
	for (done = 0; done < run->n; done += count) {
		count = min(batch, run->n - done);
		if (run_barrier(run, cpu))
			return;
		add_phase(run, slot, SLAB_TEST_PAIR, count,
			  slab_test_pair_loop(count, run->size, tag, &run->failures[slot]));
	}
}

/* Every CPU: a batch of kmalloc; then each frees the next slot's batch. */
static void remote_share(struct smp_run *run, unsigned int cpu, int slot)
{
	unsigned long done, count, batch = run->res->batch;
	int next = (slot + 1) % (int)run->ncpus;
	u8 tag = (u8)(slot + 1);

	for (done = 0; done < run->n; done += count) {
		count = min(batch, run->n - done);
		if (run_barrier(run, cpu))
			return;
		add_phase(run, slot, SLAB_TEST_KMALLOC, count,
			  slab_test_alloc_loop(run->table[slot], count, run->size, tag,
					       &run->failures[slot]));
		run_barrier(run, cpu);
		add_phase(run, slot, SLAB_TEST_KFREE, count,
			  slab_test_free_loop(run->table[next], count, tag, &run->remote[slot]));
	}
}

/* Slot 0 allocates for every other slot, handing each object over at once. */
static u64 produce(struct smp_run *run, unsigned long count)
{
	unsigned long i, failed = 0;
	unsigned int s;
	u64 start = get_cycles();

	for (i = 0; i < count; i++) {
		for (s = 1; s < run->ncpus; s++) {
			u8 *p = kmalloc(run->size, GFP_KERNEL | __GFP_NOWARN);

			if (p)
				*p = 1;
			else
				failed++;
			smp_store_release(&run->table[s][i], p ? (void *)p : (void *)&failed_mark);
		}
	}
	start = get_cycles() - start;
	run->failures[0] += failed;
	return start;
}

/* A slot other than 0 frees what slot 0 hands it, as it comes. */
static u64 consume(struct smp_run *run, int slot, unsigned long count)
{
	void **v = run->table[slot];
	unsigned long i, others = 0;
	u64 start = get_cycles();

	for (i = 0; i < count; i++) {
		u8 *p;

		while (!(p = smp_load_acquire(&v[i])))
			cpu_relax();
		if (p != (u8 *)&failed_mark) {
			others += *p != (u8)(slot + 1);
			kfree(p);
		}
		v[i] = NULL;
	}
	start = get_cycles() - start;
	run->remote[slot] += others;
	return start;
}

static void one_alloc_share(struct smp_run *run, unsigned int cpu, int slot)
{
	unsigned long done, count, batch = run->res->batch;

	for (done = 0; done < run->n; done += count) {
		count = min(batch, run->n - done);
		if (run_barrier(run, cpu))
			return;
		if (slot == 0)
			add_phase(run, 0, SLAB_TEST_KMALLOC, count * (run->ncpus - 1),
				  produce(run, count));
		else
			add_phase(run, slot, SLAB_TEST_KFREE, count, consume(run, slot, count));
	}
}

static void run_cpu(void *arg)
{
	struct smp_run *run = arg;
	unsigned int cpu = smp_processor_id();
	int slot = run->slot[cpu];

	if (slot < 0)
		return;
	run->res->cpu[slot] = cpu;
	if (run->kind == SLAB_TEST_CONCURRENT)
		concurrent_share(run, cpu, slot);
	else if (run->kind == SLAB_TEST_REMOTE)
		remote_share(run, cpu, slot);
	else
		one_alloc_share(run, cpu, slot);
}

/* Gives the run's slots to the calling CPU and the next ncpus - 1 online
 * ones; -1 if fewer are online. */
static int assign_slots(struct smp_run *run, unsigned int ncpus)
{
	run->caller = smp_processor_id();
	return smp_assign_slots(run->slot, ncpus);
}

static void free_tables(struct smp_run *run)
{
	unsigned int s;

	for (s = 0; s < run->ncpus; s++) {
		slab_test_table_free(run->table[s], run->res->batch);
		run->table[s] = NULL;
	}
}

static int alloc_tables(struct smp_run *run)
{
	unsigned int s;

	for (s = 0; s < run->ncpus; s++) {
		run->table[s] = slab_test_table_alloc(run->res->batch);
		if (!run->table[s]) {
			free_tables(run);
			return -1;
		}
	}
	return 0;
}

/* Whether the arguments make an SMP run this machine can do. */
static int smp_args_ok(enum slab_test_kind kind, unsigned int size, unsigned long n,
		       unsigned int ncpus)
{
	return kind > SLAB_TEST_SINGLE && kind < SLAB_TEST_KINDS && size && n &&
	       ncpus >= 2 && ncpus <= num_online_cpus() && ncpus <= NR_CPUS;
}

static atomic_t smp_busy;

int slab_test_smp(enum slab_test_kind kind, unsigned int size, unsigned long n,
		  unsigned int ncpus, struct slab_test_result *res)
{
	static struct smp_run run;	/* one run at a time (smp_busy) */
	unsigned int s;
	int ret = 0;

	slab_test_result_init(res, kind, size, n, ncpus);
	if (!smp_args_ok(kind, size, n, ncpus) || atomic_xchg(&smp_busy, 1))
		return -1;
	memset(&run, 0, sizeof(run));
	run.kind = kind;
	run.size = size;
	run.ncpus = ncpus;
	run.n = n;
	run.res = res;
	if (assign_slots(&run, ncpus) || alloc_tables(&run)) {
		atomic_set(&smp_busy, 0);
		return -1;
	}
	if (smp_run_on_all_cpus(run_cpu, &run) < ncpus)
		ret = -1;
	for (s = 0; s < ncpus; s++) {
		res->failures += run.failures[s];
		res->remote_frees += run.remote[s];
	}
	res->interrupted = run.stop_at != 0;
	free_tables(&run);
	atomic_set(&smp_busy, 0);
	return ret;
}
