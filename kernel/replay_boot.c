/* replay_boot.c - the "replay" boot option and console command: replays the
 * trace that the boot loader loaded as the first module.  A person sees a
 * progress line and the summary; "replay=data" (the console's "replay
 * data") adds what the scripts parse: the memory layout for the host
 * benchmark, the allocator's report and the footprint samples. */
#include <tiny/kernel.h>
#include <tiny/boot.h>
#include <tiny/replay.h>

#include <tiny/cmdline.h>

static struct replay_result replay_res;	/* large: keep it off the stack */

/* Prints the ranges page_alloc_init() was given, so that the host
 * benchmark (bench_replay --layout) can lay out its memory the same way
 * and reproduce this run's footprint figures exactly. */
static void print_layout(void)
{
	int i;

	printk("replay-layout: ram=");
	for (i = 0; i < boot_info.nr_ram; i++)
		pr_cont("%s%#lx-%#lx", i ? "," : "", boot_info.ram[i].start, boot_info.ram[i].end);
	pr_cont(";reserved=");
	for (i = 0; i < boot_info.nr_reserved; i++)
		pr_cont("%s%#lx-%#lx", i ? "," : "", boot_info.reserved[i].start,
			boot_info.reserved[i].end);
	pr_cont("\n");
}

int replay_from_boot_module(unsigned int output)
{
	const struct boot_module *m = &boot_info.modules[0];
	int data = (output & REPLAY_DATA) != 0, ret;

	if (!boot_info.nr_modules) {
		pr_err("replay: no trace loaded; boot with a module (QEMU -initrd FILE, "
		       "GRUB \"module FILE\")\n");
		return -1;
	}
	replay_output = REPLAY_PROGRESS | (output & (REPLAY_DATA | REPLAY_MAP));
	if (data)
		print_layout();
	printk("replay: replaying %s (%lu bytes)\n", m->name[0] ? m->name : "module 0",
	       m->end - m->start);
	ret = replay_run((const void *)(uintptr_t)m->start, m->end - m->start, &replay_res);
	if (ret >= 0)
		replay_report(&replay_res, m->name[0] ? m->name : "module 0");
	printk("replay: %s\n", ret == 0 ? "PASS" : ret == -2 ? "interrupted" : "FAIL");
	return ret;
}

static int replay_map_at_setup(const char *val)
{
	return parse_ulong(val, 0, ~0UL - 1, &replay_map_op);
}
kernel_param("replay_map_at", replay_map_at_setup,
	     "=OP: with replay, after operation OP (0 is the first) print the pages held, the "
	     "live bytes, the bytes the per-CPU layers cache and the heap map (scripts/compare "
	     "passes the peak of live bytes)");
