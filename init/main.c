/* main.c - the boot sequence, from the loader's jump to the console prompt. */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/boot.h>
#include <tiny/cmdline.h>
#include <tiny/console.h>
#include <tiny/init.h>
#include <tiny/irqflags.h>
#include <tiny/kmem_debug.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/fault_inject.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/smp.h>
#include <tiny/string.h>
#include <tiny/timer.h>

#ifndef CONFIG_SMP
static inline void smp_boot_cpus(void) { }
#endif

int exit_when_done;
static const char *selftest_filter;
static int selftest_requested;
static const char *fault_kind;
static int replay_requested;

static int selftest_setup(const char *val)
{
	selftest_requested = 1;
	selftest_filter = val;
	exit_when_done = 1;
	return 0;
}
kernel_param_opt("selftest", selftest_setup,
	     "[=suite,suite.case,...]: run the self-tests (all, or those named), print KTAP, exit");

static int poweroff_setup(const char *val)
{
	(void)val;
	exit_when_done = 1;
	return 0;
}
kernel_flag("poweroff", poweroff_setup,
	     "end the run after the boot actions instead of starting the console");

static int console_requested;

static int console_setup(const char *val)
{
	(void)val;
	console_requested = 1;
	return 0;
}
kernel_flag("console", console_setup,
	     "start the console after the boot actions, even after selftest or poweroff");

static int mem_setup(const char *val)
{
	unsigned long limit;
	int r = parse_size(val, &limit);

	if (r)
		return r;
	if (limit < (2UL << 20))
		return PARSE_RANGE;
	boot_info.mem_limit = limit;
	return 0;
}
kernel_param("mem", mem_setup,
	     "=SIZE[K|M|G]: use no RAM above this address (2M up to 4G - 1 byte)");

static int fault_setup(const char *val)
{
	if (!*val)
		return PARSE_BAD;
	fault_kind = val;
	return 0;
}
kernel_param("fault", fault_setup,
	     "=divide|null|opcode|gpf|stack|stack-ap|printk|console-stuck: raise this CPU exception on purpose (stack-ap: CPU 1 overflows its stack; printk: a page fault inside printk; console-stuck: a NULL read while CPU 1 holds the console, hung), to see the report");

static int replay_data;

static int replay_setup(const char *val)
{
	if (val && strcmp(val, "data"))
		return PARSE_BAD;
	replay_requested = 1;
	replay_data = val != NULL;
	return 0;
}
kernel_param_opt("replay", replay_setup,
	     "[=data]: replay the allocation trace loaded as the first boot module, then report "
	     "(=data: also the memory layout, the allocator's report and the footprint samples "
	     "the scripts parse)");

static unsigned long soak_rounds;

static int soak_setup(const char *val)
{
	return parse_ulong(val, 1, ~0UL, &soak_rounds);
}
kernel_param("soak", soak_setup,
	     "=ROUNDS: replay every trace loaded as a boot module, ROUNDS rounds back to back, "
	     "what each leaves live kept three rounds; a line of figures after each round");

static unsigned long slabtest_calls;

static int slabtest_setup(const char *val)
{
	if (!val) {
		slabtest_calls = SLAB_TEST_DEFAULT_CALLS;
		return 0;
	}
	return parse_ulong(val, 1, ~0UL, &slabtest_calls);
}
kernel_param_opt("slabtest", slabtest_setup,
	     "[=N]: run the console's slabtest (N calls, default 10000) after boot, before any "
	     "console, so that a run under QEMU -icount repeats exactly");

/* Cuts the usable RAM ranges at the mem= limit. */
static void apply_mem_limit(void)
{
	unsigned long limit = boot_info.mem_limit;
	int i;

	if (!limit)
		return;
	for (i = 0; i < boot_info.nr_ram; i++) {
		struct mem_region *r = &boot_info.ram[i];

		if (r->end > limit)
			r->end = limit > r->start ? (limit & PAGE_MASK) : r->start;
	}
	pr_info("mem=%luK: using RAM below %#lx only\n", limit >> 10, limit);
}

/* Lists what is kept out of the page allocator, so that the boot log
 * accounts for every page of RAM. */
static void show_reserved(void)
{
	int i;

	for (i = 0; i < boot_info.nr_reserved; i++)
		pr_info("reserved: [mem %#010lx-%#010lx] %s\n", boot_info.reserved[i].start,
			boot_info.reserved[i].end - 1, boot_info.reserved_what[i]);
}

static void mem_init(void)
{
	apply_mem_limit();
	show_reserved();
	if (page_alloc_init(boot_info.ram, boot_info.nr_ram,
			    boot_info.reserved, boot_info.nr_reserved))
		panic("mm: no usable memory");
}

/* Runs what the command line asked for; returns nonzero if something failed. */
static int run_boot_actions(void)
{
	int failed = 0;

	if (fault_kind && arch_trigger_fault(fault_kind) < 0)
		pr_err("fault=%s: unknown kind (divide, null, opcode, gpf, stack, stack-ap, printk, console-stuck)\n", fault_kind);
	if (selftest_requested) {
		int r = ktest_run(selftest_filter);

		failed |= r != 0;
		printk("selftest: %s\n", r == 0 ? "PASS" : "FAIL");
	}
	if (replay_requested)
		failed |= replay_from_boot_module(replay_data ? REPLAY_DATA : 0) != 0;
	if (soak_rounds)
		failed |= replay_soak(soak_rounds) != 0;
	if (slabtest_calls)
		failed |= slab_test_report(slabtest_calls) != 0;
	return failed;
}

void start_kernel(unsigned long magic, void *multiboot_info)
{
	int failed;

	arch_console_init();
	printk(KERN_NOTICE "tinyslab " TINYSLAB_VERSION " (i386, %s allocator, HZ=%d)\n",
	       kmem_allocator_name, HZ);
	arch_setup(magic, multiboot_info);
	parse_cmdline(boot_info.cmdline);
	mem_init();
	kmem_cache_init();
	arch_time_init();
	local_irq_enable();
	smp_boot_cpus();
	kmem_cache_init_late();
	fault_inject_boot_done();
	show_meminfo();
	show_buddyinfo();

	failed = run_boot_actions();
	kmem_debug_boot_done();
	if (exit_when_done && !console_requested)
		arch_exit(failed ? EXIT_FAIL : EXIT_PASS);
	console_run();
}
