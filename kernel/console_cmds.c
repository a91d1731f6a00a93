/* console_cmds.c - the console's commands: the table "help" lists, each
 * command's cmd_*() and console_execute(), which splits a line into words
 * and runs the command it names.  kernel/console.c reads the lines (the
 * input ring, the line editor and the loop) and hands each here.  Ctrl-C
 * stops a long command (stress, smpbench, slabtest, selftest between two
 * cases, replay: each asks console_interrupted()); the others are short.
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/console.h>
#include <tiny/fault_inject.h>
#include <tiny/kmem_debug.h>
#include <tiny/cmdline.h>
#include <tiny/ktest.h>
#include <tiny/kmem_stress.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/string.h>
#include <tiny/timer.h>

#define MAX_ARGS	4

struct command {
	const char *name;
	const char *args;
	int min_args, max_args;		/* words after the command name */
	const char *help;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

/* Prints the usage line of the named command; returns -1. */
static int usage(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			printk("usage: %s %s\n", c->name, c->args[0] ? c->args : "(takes no arguments)");
	return -1;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		printk("  %-10s %-12s %s\n", c->name, c->args, c->help);
	printk("Kernel command-line parameters (given at boot):\n");
	show_kernel_params();
	return 0;
}

static int cmd_meminfo(int argc, char **argv)
{
	show_meminfo();
	return 0;
}

static int cmd_buddyinfo(int argc, char **argv)
{
	show_buddyinfo();
	return 0;
}

static int cmd_kmem(int argc, char **argv)
{
	kmem_report();
	return 0;
}

extern const struct ktest_suite *const __start_ktest_suites[], *const __stop_ktest_suites[];

/* Ends a selftest command: prints its verdict; returns the command's status. */
static int selftest_verdict(int failed, int stopped, unsigned long long done,
			    unsigned long long total)
{
	if (stopped)
		printk("selftest: interrupted after %llu of %llu runs\n", done, total);
	else
		printk("selftest: %s\n", failed ? "FAIL" : "PASS");
	return failed || stopped ? -1 : 0;
}

/* The number of non-empty items in a comma-separated list. */
static int count_items(const char *list)
{
	int n = 0;

	for (; *list; list++)
		n += *list != ',' && (list[1] == ',' || !list[1]);
	return n;
}

/* One round of a selftest command: each item of list (every suite if list
 * is NULL) run once, until Ctrl-C; counts the runs in *done.  The list is
 * left as it was, for the next round.  Returns whether a run failed. */
static int selftest_round(char *list, unsigned long long *done)
{
	const struct ktest_suite *const *sp;
	char *item, *next;
	int failed = 0;

	if (!list) {
		for (sp = __start_ktest_suites; sp < __stop_ktest_suites && !console_interrupted();
		     sp++, (*done)++)
			failed |= ktest_run((*sp)->name) != 0;
		return failed;
	}
	for (item = list; item && !console_interrupted(); item = next) {
		next = strchr(item, ',');
		if (next)
			*next = '\0';
		if (*item) {
			failed |= ktest_run(item) != 0;
			(*done)++;
		}
		if (next)
			*next++ = ',';
	}
	return failed;
}

static int parse_count(const char *cmd, const char *arg, unsigned long *n);

/*
 * Runs the self-tests one suite (or, with a list, one item of it) at a
 * time, so that Ctrl-C can stop them between two: each run prints its own
 * KTAP report.  An unknown name fails its run and lists the suites.  With
 * a count, the list ("all": every suite) is run that many rounds over.
 */
static int cmd_selftest(int argc, char **argv)
{
	char *list = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL;
	unsigned long rounds = 1, round;
	unsigned long long done = 0, total;
	int failed = 0;

	if (argc > 2 && parse_count("selftest", argv[2], &rounds))
		return -1;
	total = list ? count_items(list) : (int)(__stop_ktest_suites - __start_ktest_suites);
	if (!total)		/* nothing to run one by one: let the runner say so */
		return selftest_verdict(ktest_run(list) != 0, 0, 0, 0);
	total *= rounds;
	for (round = 0; round < rounds && !console_interrupted(); round++)
		failed |= selftest_round(list, &done);
	return selftest_verdict(failed, done < total || console_interrupted(), done, total);
}

static int cmd_shrink(int argc, char **argv)
{
	unsigned long before = nr_free_pages(), freed = kmem_reclaim();

	printk("shrink: %lu pages given back; MemFree %lu kB -> %lu kB\n", freed,
	       before << (PAGE_SHIFT - 10), nr_free_pages() << (PAGE_SHIFT - 10));
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	int errors = page_alloc_validate() + kmem_validate() + kmem_check();

	printk("validate: %d inconsistencies found\n", errors);
	return errors ? -1 : 0;
}

/* Parses a command's count argument (1 to ULONG_MAX); says "out of range"
 * for a number that does not fit.  0, or -1 with the usage line. */
static int parse_count(const char *cmd, const char *arg, unsigned long *n)
{
	int bad = parse_ulong(arg, 1, ~0UL, n);

	if (bad == PARSE_RANGE)
		printk("%s: %pE is out of range (1 to %lu)\n", cmd, arg, ~0UL);
	return bad ? usage(cmd) : 0;
}

/* kmem_stress.c's workload on this CPU, from kmalloc() alone. */
static int cmd_stress(int argc, char **argv)
{
	static struct kmem_stress_result res;
	unsigned long rounds;
	int ret;

	if (parse_count("stress", argv[1], &rounds))
		return -1;
	ret = kmem_stress_kmalloc(rounds, &res);
	if (!res.ncpus || res.no_memory) {
		printk("stress: could not run (%s)\n", res.no_memory ? "no memory for its slot table"
								       : "a run is in progress");
		return -1;
	}
	printk("stress: %s%lu operations, %s", res.interrupted ? "interrupted after " : "",
	       res.ops[0], res.errors[0] ? "CORRUPTION FOUND" : "no corruption");
	if (res.failures[0])
		pr_cont(", %lu of %lu allocations failed", res.failures[0], res.allocs[0]);
	pr_cont("\n");
	return ret || res.interrupted ? -1 : 0;
}

/* One line before a console benchmark's figures where they cannot be a
 * real CPU's: under a hypervisor the cycles are the virtual CPU's (QEMU's
 * TCG emulates every instruction), and its virtual CPUs may outnumber the
 * host's cores, which then run them in turn. */
static void benchmark_caveat(const char *cmd)
{
	const char *hv = arch_hypervisor();

	if (hv)
		printk("%s: note: under a hypervisor (CPUID \"%s\"): cycles are the virtual "
		       "CPU's, and %u virtual CPU(s) may share fewer host cores; compare figures "
		       "of one run, not with real hardware\n", cmd, hv, num_online_cpus());
}

static int cmd_smpbench(int argc, char **argv)
{
	unsigned long ops = 20000;

	if (argc > 1 && parse_count("smpbench", argv[1], &ops))
		return -1;
	benchmark_caveat("smpbench");
	return kmem_stress_report(ops);
}

static int cmd_slabtest(int argc, char **argv)
{
	unsigned long calls = SLAB_TEST_DEFAULT_CALLS;
	enum slab_test_kind kind;

	if (argc > 1 && parse_count("slabtest", argv[1], &calls))
		return -1;
	if (argc > 2) {
		kind = slab_test_kind_by_name(argv[2]);
		if (kind == SLAB_TEST_KINDS) {
			printk("slabtest: %pE: not a test (single, concurrent, remote or one_alloc)\n",
			       argv[2]);
			return -1;
		}
	}
	benchmark_caveat("slabtest");
	return argc > 2 ? slab_test_report_kind(calls, kind) : slab_test_report(calls);
}

static int cmd_heapmap(int argc, char **argv)
{
	kmem_heap_map();
	return 0;
}

/* replay [data] [map]: each word adds its output to the progress line. */
static int cmd_replay(int argc, char **argv)
{
	unsigned int output = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "data")) {
			output |= REPLAY_DATA;
		} else if (!strcmp(argv[i], "map")) {
			output |= REPLAY_MAP;
		} else {
			printk("replay: %pE: unknown argument (replay [data] [map])\n", argv[i]);
			return -1;
		}
	}
	return replay_from_boot_module(output) ? -1 : 0;
}

static int cmd_soak(int argc, char **argv)
{
	unsigned long rounds = 3;

	if (argc > 1 && parse_count("soak", argv[1], &rounds))
		return -1;
	return replay_soak(rounds) ? -1 : 0;
}

static int cmd_cpus(int argc, char **argv)
{
	arch_show_cpus();
	return 0;
}

static int cmd_halt(int argc, char **argv)
{
	printk("System halting.\n");
	arch_exit(EXIT_PASS);
}

static const struct command commands[] = {
	{ "help", "", 0, 0, "this list", cmd_help },
	{ "meminfo", "", 0, 0, "MemTotal, MemFree, Slab", cmd_meminfo },
	{ "buddyinfo", "", 0, 0, "free blocks per order", cmd_buddyinfo },
	{ "slabinfo", "", 0, 0, "the object allocator's report (slabinfo or SLOB heap)", cmd_kmem },
	{ "heap", "", 0, 0, "the same report, by its SLOB name", cmd_kmem },
	{ "heapmap", "", 0, 0, "a cell per page the object allocator holds, by cache, shaded "
	  "by how full", cmd_heapmap },
	{ "selftest", "[suite,...|all [rounds]]", 0, 2, "run self-tests (all, or the suites named; "
	  "rounds times over)", cmd_selftest },
	{ "stress", "<n>", 1, 1, "n (1..4294967295) random kmalloc/kfree operations, contents checked",
	  cmd_stress },
	{ "smpbench", "[ops]", 0, 1, "allocator throughput on 1, 2, 4... CPUs at once (1..4294967295 ops each)",
	  cmd_smpbench },
	{ "slabtest", "[n [test]]", 0, 2, "slab_test: cycles per kmalloc, kfree and pair, 8 to 16384 "
	  "bytes, n calls each (10000; 1..4294967295), on 1 CPU then all (or the one test named)",
	  cmd_slabtest },
	{ "shrink", "", 0, 0, "give every spare page back to the page allocator now", cmd_shrink },
	{ "validate", "", 0, 0, "check the page and object allocators' structures", cmd_validate },
	{ "replay", "[data] [map]", 0, 2, "replay the allocation trace loaded as a boot module "
	  "(data: also the figures the scripts parse; map: the heap map at each step)",
	  cmd_replay },
	{ "soak", "[rounds]", 0, 1, "replay every trace module, rounds times over (3), what each "
	  "leaves live kept three rounds", cmd_soak },
#ifdef CONFIG_FAULT_INJECTION
	{ "fault", "[name spec|off]", 0, 2, "show or set fault injection (failslab, fail_page_alloc)",
	  fault_inject_command },
#endif
	{ "cpus", "", 0, 0, "each CPU: number, APIC id, state, timer ticks", cmd_cpus },
#ifdef CONFIG_DEBUG_KMEM
	{ "kmem_check", "", 0, 0, "check every debugged object's red zones and poison", kmem_check_command },
	{ "kmem_leaks", "", 0, 0, "list the live debugged objects by allocating site", kmem_leaks_command },
	{ "kmem_debug", "[letters,cache...]", 0, 1, "show or set heap debugging (ZPUT or -)",
	  kmem_debug_command },
#endif
	{ "halt", "", 0, 0, "stop the machine (ends the QEMU run)", cmd_halt },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

static int split_args(char *line, char **argv)
{
	int argc = 0;

	while (*line) {
		while (*line == ' ' || *line == '\t')
			*line++ = '\0';
		if (!*line)
			break;
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
	}
	return argc;
}

int console_execute(char *line)
{
	const struct command *c;
	char *argv[MAX_ARGS];
	int argc = split_args(line, argv);

	if (argc == 0)
		return 0;
	if (argc < 0)
		argc = MAX_ARGS + 1;	/* too many words: the usage check below catches it */
	for (c = commands; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (argc - 1 < c->min_args || argc - 1 > c->max_args)
			return usage(c->name);
		return c->run(argc, argv);
	}
	printk("unknown command \"%pE\"; type \"help\" for the list\n", argv[0]);
	return -1;
}
