/* ktest_main.c - runs the mm/ self-test suites on the host, in KTAP.
 *
 * usage: host_ktest [--mem MB] [--sync-ticks] [--cpus N] [SUITE[,SUITE...]]
 * The same suites as in the kernel (buddy, kmem_api, slob or slab, timer,
 * irqflags, smp), against the same mm/ code.  Timer interrupts come from
 * SIGALRM every 200 us unless --sync-ticks asks for them to be delivered
 * only when a test waits.  --cpus N runs with N CPUs online (one thread
 * each; default 1, the harness as it always was), as a kernel booted with
 * N CPUs runs its suites.  Exit status 0 if every case passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"

int main(int argc, char **argv)
{
	unsigned long mb = 32, ncpus = 1;
	const char *filter = NULL;
	int sync_ticks = 0, i, failed;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mem") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			ncpus = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--sync-ticks"))
			sync_ticks = 1;
		else if (argv[i][0] != '-')
			filter = argv[i];
		else {
			fprintf(stderr, "usage: %s [--mem MB] [--sync-ticks] [--cpus N] [SUITE,...]\n", argv[0]);
			return 2;
		}
	}
	if (ncpus < 1 || ncpus > NR_CPUS) {
		fprintf(stderr, "%s: --cpus takes 1 to %d\n", argv[0], NR_CPUS);
		return 2;
	}
	host_mm_init(mb);
	host_smp_start((unsigned int)ncpus);
	printk("# host harness: %s allocator, %zu-bit, PAGE_SIZE %lu, %lu MiB, %u CPU(s)\n",
	       kmem_allocator_name, sizeof(void *) * 8, PAGE_SIZE, mb, num_online_cpus());
	if (!sync_ticks)
		host_start_ticks(200);
	failed = ktest_run(filter);
	host_stop_ticks();
	host_smp_stop();
	printk("selftest: %s\n", failed == 0 ? "PASS" : "FAIL");
	return failed == 0 ? 0 : 1;
}
