/* bench_smp.c - the allocator's scaling on the host: allocations + frees
 * per second with 1 and with 2 CPU threads running kmem_stress at once.
 *
 * usage: bench-smp [--ops N] [--mem MB] [--runs R]
 * Each CPU thread runs N operations (default 2,000,000) of the
 * replay-shaped workload of kernel/kmem_stress.c; a run's rate is every
 * thread's operations over the slowest thread's time (TSC cycles,
 * calibrated against CLOCK_MONOTONIC).  The best of R runs (default 5)
 * counts, the machine's other load being noise.  Prints one line per
 * thread count and the scaling factor; exits 1 on any damaged object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tiny/kernel.h>
#include <tiny/kmem_stress.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <arch/timex.h>
#include "host.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* TSC ticks per second, over a 200 ms sleep. */
static double tsc_hz(void)
{
	struct timespec pause = { 0, 200000000 };
	double t0 = now_seconds(), t1;
	uint64_t c0 = get_cycles(), c1;

	nanosleep(&pause, NULL);
	c1 = get_cycles();
	t1 = now_seconds();
	return (double)(c1 - c0) / (t1 - t0);
}

/* Best rate (operations per second) of runs runs on n CPUs; -1 on damage. */
static double best_rate(unsigned int n, unsigned long ops, int runs, double hz)
{
	static struct kmem_stress_result res;
	double best = 0;
	int r;

	for (r = 0; r < runs; r++) {
		unsigned long long slowest = 0;
		unsigned long total = 0;
		unsigned int cpu;
		double rate;

		if (kmem_stress_run(n, ops, &res))
			return -1;
		for (cpu = 0; cpu < n; cpu++) {
			total += res.ops[cpu];
			if (res.cycles[cpu] > slowest)
				slowest = res.cycles[cpu];
		}
		rate = (double)total / ((double)slowest / hz);
		if (rate > best)
			best = rate;
	}
	return best;
}

int main(int argc, char **argv)
{
	unsigned long ops = 2000000, mb = 64;
	int runs = 5, i;
	double hz, one, two;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--mem") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--ops N] [--mem MB] [--runs R]\n", argv[0]);
			return 2;
		}
	}
	host_mm_init(mb);
	host_smp_start(2);
	hz = tsc_hz();
	one = best_rate(1, ops, runs, hz);
	two = best_rate(2, ops, runs, hz);
	host_smp_stop();
	if (one < 0 || two < 0) {
		printf("bench-smp: %s: DAMAGED OBJECTS (see above)\n", kmem_allocator_name);
		return 1;
	}
	printf("bench-smp: %s: 1 thread %.2f M allocs+frees/s, 2 threads %.2f M/s, "
	       "scaling x%.2f (best of %d runs of %lu ops per thread)\n",
	       kmem_allocator_name, one / 1e6, two / 1e6, two / one, runs, ops);
	return 0;
}
