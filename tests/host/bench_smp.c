/* bench_smp.c - the allocator's scaling on the host: allocations + frees
 * per second with 1, 2, 4 ... CPU threads running kmem_stress at once.
 *
 * usage: bench-smp [--threads 1,2,4,...] [--lock tas,ticket] [--ops N]
 *                  [--mem MB] [--runs R]
 * Each CPU thread runs N operations (default 1,000,000) of the
 * replay-shaped workload of kernel/kmem_stress.c; a run's rate is every
 * thread's operations over the run's wall-clock time (CLOCK_MONOTONIC, the
 * threads' start and the frees of what is left included: under 1% at the
 * default N).  Of R runs (default 5) of each count, taking turns with
 * the other counts, it prints the best, the machine's other load being
 * noise, and the median, the figure a goal quotes; each with its ratio to
 * one thread's same statistic.  --threads defaults to
 * the powers of two up to the host's online CPUs, and that count itself
 * (at most NR_CPUS); --lock to the lock the host build uses
 * (test-and-set, <tiny/spinlock_smp.h>); giving both measures the two in the
 * same run.  Prints one line per lock and thread count: the rate and its
 * ratio to one thread's with the same lock; exits 1 on any damaged
 * object, 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tiny/kernel.h>
#include <tiny/kmem_stress.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include "host.h"

#define MAX_COUNTS	16

struct options {
	unsigned int threads[MAX_COUNTS];
	unsigned int nthreads;
	int locks[2];		/* arch_spin_tas values to measure */
	unsigned int nlocks;
	unsigned long ops, mb;
	int runs;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define MAX_RUNS	64

struct rates {
	double best, median;	/* operations per second */
};

static int by_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run's rate (operations per second) on n CPUs; -1 on damage.
 * A run's time is the wall-clock time of the whole kmem_stress_run(), not
 * each thread's own: threads that the host runs one after the other (more
 * threads than free cores) then show as slow, not as fast. */
static double run_rate(unsigned int n, unsigned long ops)
{
	static struct kmem_stress_result res;
	unsigned long total = 0;
	unsigned int cpu;
	double start = now_seconds(), seconds;

	if (kmem_stress_run(n, ops, &res))
		return -1;
	seconds = now_seconds() - start;
	for (cpu = 0; cpu < n; cpu++)
		total += res.ops[cpu];
	return (double)total / seconds;
}

/* The best and the median of runs rates (sorted here; the mean of the
 * middle two when runs is even). */
static struct rates best_and_median(double *rate, int runs)
{
	struct rates out;

	qsort(rate, (size_t)runs, sizeof(rate[0]), by_rate);
	out.best = rate[runs - 1];
	out.median = (rate[(runs - 1) / 2] + rate[runs / 2]) / 2;
	return out;
}

static const char *lock_name(int tas)
{
	return tas ? "test-and-set" : "ticket";
}

/* "2,4": the thread counts, each 1..NR_CPUS, after 1 (the ratios' base,
 * measured first whether named or not); 0 if malformed. */
static int parse_threads(const char *s, struct options *o)
{
	char *end;

	o->threads[0] = 1;
	for (o->nthreads = 1; *s; s = end + (*end == ',')) {
		unsigned long n = strtoul(s, &end, 10);

		if (end == s || n < 1 || n > NR_CPUS || o->nthreads == MAX_COUNTS ||
		    (*end && *end != ','))
			return 0;
		if (n > 1)
			o->threads[o->nthreads++] = (unsigned int)n;
	}
	return 1;
}

/* "tas", "ticket" or both, comma-separated; 0 if malformed. */
static int parse_locks(const char *s, struct options *o)
{
	char buf[32], *word, *save;

	if (strlen(s) >= sizeof(buf))
		return 0;
	strcpy(buf, s);
	o->nlocks = 0;
	for (word = strtok_r(buf, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		if (o->nlocks == 2 || (strcmp(word, "tas") && strcmp(word, "ticket")))
			return 0;
		o->locks[o->nlocks++] = !strcmp(word, "tas");
	}
	return o->nlocks > 0;
}

/* 1, 2, 4 ... below the host's online CPUs, then that count (at most NR_CPUS). */
static void default_threads(struct options *o)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int top = online < 1 ? 1 : online > NR_CPUS ? NR_CPUS : (unsigned int)online;
	unsigned int n;

	o->nthreads = 0;
	for (n = 1; n < top && o->nthreads < MAX_COUNTS - 1; n *= 2)
		o->threads[o->nthreads++] = n;
	o->threads[o->nthreads++] = top;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->ops = 1000000;
	o->mb = 64;
	o->runs = 5;
	o->locks[o->nlocks++] = __atomic_load_n(&arch_spin_tas, __ATOMIC_RELAXED);
	default_threads(o);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val)
			return 0;
		i++;
		if (!strcmp(arg, "--ops"))
			o->ops = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--mem"))
			o->mb = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--runs"))
			o->runs = atoi(val);
		else if (!strcmp(arg, "--threads")) {
			if (!parse_threads(val, o))
				return 0;
		} else if (!strcmp(arg, "--lock")) {
			if (!parse_locks(val, o))
				return 0;
		} else
			return 0;
	}
	return o->ops > 0 && o->mb > 0 && o->runs > 0 && o->runs <= MAX_RUNS;
}

static unsigned int most_threads(const struct options *o)
{
	unsigned int i, most = 1;

	for (i = 0; i < o->nthreads; i++)
		if (o->threads[i] > most)
			most = o->threads[i];
	return most;
}

/* One lock's lines; 0, or -1 if an object was damaged.  The runs of the
 * thread counts take turns (1, 2, 4, 1, 2, 4, ...), so that a slow spell
 * of the host falls on every count alike and not on one count's runs. */
static int measure_lock(const struct options *o, int tas)
{
	static double rate[MAX_COUNTS][MAX_RUNS];
	struct rates one = { 0, 0 }, r;
	unsigned int i;
	int run;

	spin_lock_set_tas(tas);
	for (run = 0; run < o->runs; run++)
		for (i = 0; i < o->nthreads; i++) {
			rate[i][run] = run_rate(o->threads[i], o->ops);
			if (rate[i][run] < 0) {
				printf("bench-smp: %s: DAMAGED OBJECTS (see above)\n",
				       kmem_allocator_name);
				return -1;
			}
		}
	for (i = 0; i < o->nthreads; i++) {
		unsigned int n = o->threads[i];

		r = best_and_median(rate[i], o->runs);
		if (n == 1)
			one = r;
		printf("bench-smp: %s  %-12s  %2u thread%s  %8.2f M allocs+frees/s  x%.2f"
		       "  median %8.2f M  x%.2f\n",
		       kmem_allocator_name, lock_name(tas), n, n == 1 ? " " : "s", r.best / 1e6,
		       r.best / one.best, r.median / 1e6, r.median / one.median);
	}
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	unsigned int i;

	if (!parse_options(argc, argv, &o)) {
		fprintf(stderr, "usage: %s [--threads N,N,...] [--lock tas,ticket] [--ops N] "
			"[--mem MB] [--runs R]\n(thread counts 1..%d, runs 1..%d)\n", argv[0], NR_CPUS,
			MAX_RUNS);
		return 2;
	}
	host_smp_possible(most_threads(&o));
	host_mm_init(o.mb);
	host_smp_start(most_threads(&o));
	printf("bench-smp: %s, %zu-bit, NR_CPUS %d, best and median of %d runs of %lu ops "
	       "per thread; ratio: against 1 thread's same figure with the same lock\n",
	       kmem_allocator_name, sizeof(void *) * 8, NR_CPUS, o.runs, o.ops);
	for (i = 0; i < o.nlocks; i++)
		if (measure_lock(&o, o.locks[i]))
			return 1;
	host_smp_stop();
	return 0;
}
