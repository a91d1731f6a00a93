/* ktest_main.c - runs the mm/ self-test suites on the host, in KTAP.
 *
 * usage: host_ktest [--mem MB] [--sync-ticks] [--cpus N] [--fault NAME=SPEC]...
 *                   [--kmem-debug SPEC] [SUITE[,SUITE...]]
 * The same suites as in the kernel (buddy, kmem_api, the allocator's, timer,
 * irqflags, smp), against the same mm/ code.  Timer interrupts come from
 * SIGALRM every 200 us unless --sync-ticks asks for them to be delivered
 * only when a test waits.  --cpus N runs with N CPUs online (one thread
 * each; default 1, the harness as it always was), as a kernel booted with
 * N CPUs runs its suites.  --fault failslab=SPEC (or fail_page_alloc=)
 * sets fault injection before the suites run, as the kernel's boot
 * parameters do (CONFIG_FAULT_INJECTION builds).  --kmem-debug SPEC sets
 * heap debugging as the kernel's kmem_debug=SPEC does (CONFIG_DEBUG_KMEM
 * builds).  Exit status 0 if every case passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/fault_inject.h>
#include <tiny/kmem_debug.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"

/* "NAME=SPEC", as the console's "fault NAME SPEC"; 0 or -1. */
static int set_fault(const char *arg)
{
	char name[32], *eq = strchr(arg, '=');
	char *args[3] = { "fault", name, eq ? eq + 1 : NULL };

	if (!eq || (size_t)(eq - arg) >= sizeof(name))
		return -1;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	return fault_inject_command(3, args);
}

int main(int argc, char **argv)
{
	unsigned long mb = 32, ncpus = 1;
	const char *filter = NULL, *faults[4], *kmem_debug = NULL;
	int sync_ticks = 0, i, failed, nr_faults = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mem") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			ncpus = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--fault") && i + 1 < argc && nr_faults < 4)
			faults[nr_faults++] = argv[++i];
		else if (!strcmp(argv[i], "--kmem-debug") && i + 1 < argc)
			kmem_debug = argv[++i];
		else if (!strcmp(argv[i], "--sync-ticks"))
			sync_ticks = 1;
		else if (argv[i][0] != '-')
			filter = argv[i];
		else {
			fprintf(stderr, "usage: %s [--mem MB] [--sync-ticks] [--cpus N] "
				"[--fault NAME=SPEC]... [--kmem-debug SPEC] [SUITE,...]\n", argv[0]);
			return 2;
		}
	}
	if (ncpus < 1 || ncpus > NR_CPUS) {
		fprintf(stderr, "%s: --cpus takes 1 to %d\n", argv[0], NR_CPUS);
		return 2;
	}
	host_smp_possible((unsigned int)ncpus);
	host_mm_init(mb);
	host_smp_start((unsigned int)ncpus);
	for (i = 0; i < nr_faults; i++)
		if (set_fault(faults[i])) {
			fprintf(stderr, "%s: --fault %s: not set\n", argv[0], faults[i]);
			return 2;
		}
	if (kmem_debug && kmem_debug_set(kmem_debug)) {
		fprintf(stderr, "%s: --kmem-debug %s: not set (a bad setting, or no "
			"CONFIG_DEBUG_KMEM)\n", argv[0], kmem_debug);
		return 2;
	}
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
