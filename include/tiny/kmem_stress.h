/* kmem_stress.h - the allocator stress workload and the SMP scaling measure.
 *
 * kmem_stress_run() runs the same allocation workload on ncpus online CPUs
 * at once, the calling one and the next online ones by number, holes
 * skipped (smp_run_on_all_cpus(); the other online CPUs return at once):
 * ops_per_cpu allocations and frees each, sizes and lifetimes
 * shaped after the shipped Linux boot trace (tests/traces), from kmalloc()
 * and from two caches all CPUs share, every object tagged and checked when
 * freed.  It is the smp self-test's load and the figure behind the
 * console's "smpbench" and the host's bench-smp; on the calling CPU alone,
 * from kmalloc() only, it is the console's "stress" (kmem_stress_kmalloc()).  Ctrl-C on the console
 * (console_interrupted(), seen by the calling CPU) stops every CPU within
 * a few dozen operations; each then frees what it holds.
 */
#ifndef TINY_KMEM_STRESS_H
#define TINY_KMEM_STRESS_H

#include <tiny/types.h>
#include <tiny/smp.h>

/* Indexed by slot, 0..ncpus-1 (slot 0: the calling CPU); cpu[] says
 * which CPU had each slot. */
struct kmem_stress_result {
	unsigned int ncpus;			/* CPUs that ran it */
	int interrupted;			/* stopped by Ctrl-C */
	int no_memory;				/* a CPU had no memory for its slot table */
	unsigned int cpu[NR_CPUS];		/* the CPU of each slot */
	unsigned long ops[NR_CPUS];		/* allocations + frees done */
	unsigned long long cycles[NR_CPUS];	/* get_cycles() over those ops */
	unsigned long allocs[NR_CPUS];		/* allocations tried */
	unsigned long failures[NR_CPUS];	/* allocations that returned NULL */
	unsigned long errors[NR_CPUS];		/* objects found damaged */
};

/*
 * Runs the workload (see above) and fills *res (res->interrupted and
 * fewer ops than asked if Ctrl-C stopped it).  Returns 0, or -1 if an
 * object was damaged, a cache or a slot table could not be made, a cache
 * not destroyed, ncpus is 0 or more than the online CPUs, or a run is in
 * progress already.  Process context, interrupts enabled; on the host,
 * CPU 0.
 */
int kmem_stress_run(unsigned int ncpus, unsigned long ops_per_cpu,
		    struct kmem_stress_result *res);

/*
 * The console's "stress": the same workload on the calling CPU alone
 * (slot 0 of *res), every object from kmalloc(), allocations that fail
 * counted and not reported (__GFP_NOWARN), Ctrl-C looked for before every
 * operation.  Returns as kmem_stress_run() does.
 */
int kmem_stress_kmalloc(unsigned long ops, struct kmem_stress_result *res);

/*
 * The console's "smpbench": after an untimed warm-up run on one CPU (at
 * most 20000 operations), runs ops_per_cpu operations on 1, 2, 4 ...
 * CPUs up to every online one (and all of them) and prints, for each
 * count, the throughput (every CPU's operations per million cycles of
 * the slowest), its ratio to the one-CPU throughput (x2.00 at 2 CPUs =
 * perfect scaling) and each CPU's cycles per operation.  Ctrl-C stops
 * it, saying how far it got.  Returns 0, or -1 if a run failed
 * (reported) or was interrupted.  Process context.  A uniprocessor
 * kernel has nothing to scale: it says so and returns -1.
 */
int kmem_stress_report(unsigned long ops_per_cpu);

#endif /* TINY_KMEM_STRESS_H */
