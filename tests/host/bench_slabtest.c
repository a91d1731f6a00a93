/* bench_slabtest.c - the slab_test microbenchmark on the host: the
 * kernel's own kernel/slab_test*.c (the console's "slabtest") on the host
 * build of mm/, cycles from the host's TSC, CPUs as threads.
 *
 * usage: bench-slabtest [--calls N] [--cpus C] [--runs R] [--mem MB]
 * Prints R reports (default 3) of N calls per test, size and CPU (default
 * 10000), each exactly as the kernel's "slabtest N" prints it: the single
 * test on CPU 0, then the concurrent, remote and one_alloc tests on C CPU
 * threads (default 2; 1 leaves them out).  scripts/slabtest takes the
 * median of the R reports.  The allocator gets MB MiB (default 64),
 * every host page of it written before the run, so that no host page
 * fault is timed.  Exits 1 if a test could not run, 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/smp.h>
#include "host.h"

struct options {
	unsigned long calls, mb;
	unsigned int cpus;
	int runs;
};

/* A decimal number from lo to hi; 0 if malformed or out of range. */
static int parse_number(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return 0;
	*out = v;
	return 1;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	unsigned long v;
	int i;

	o->calls = SLAB_TEST_DEFAULT_CALLS;
	o->mb = 64;
	o->cpus = 2;
	o->runs = 3;
	for (i = 1; i + 1 < argc; i += 2) {
		const char *arg = argv[i], *val = argv[i + 1];

		if (!strcmp(arg, "--calls") && parse_number(val, 1, ~0UL, &v))
			o->calls = v;
		else if (!strcmp(arg, "--mem") && parse_number(val, 8, 4096, &v))
			o->mb = v;
		else if (!strcmp(arg, "--cpus") && parse_number(val, 1, NR_CPUS, &v))
			o->cpus = (unsigned int)v;
		else if (!strcmp(arg, "--runs") && parse_number(val, 1, 100, &v))
			o->runs = (int)v;
		else
			return 0;
	}
	return i == argc;
}

int main(int argc, char **argv)
{
	struct options o;
	int r;

	if (!parse_options(argc, argv, &o)) {
		fprintf(stderr, "usage: %s [--calls N] [--cpus 1..%d] [--runs 1..100] [--mem 8..4096]\n",
			argv[0], NR_CPUS);
		return 2;
	}
	host_smp_possible(o.cpus);
	host_mm_init(o.mb);
	if (o.cpus > 1)
		host_smp_start(o.cpus);
	printf("bench-slabtest: %s, %zu-bit host build, %u CPU thread(s), %d run(s)\n",
	       kmem_allocator_name, sizeof(void *) * 8, o.cpus, o.runs);
	for (r = 0; r < o.runs; r++)
		if (slab_test_report(o.calls))
			return 1;
	if (o.cpus > 1)
		host_smp_stop();
	return 0;
}
