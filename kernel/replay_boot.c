/* replay_boot.c - the "replay" boot option and console command: replays the
 * trace that the boot loader loaded as the first module. */
#include <tiny/kernel.h>
#include <tiny/boot.h>
#include <tiny/replay.h>

static struct replay_result replay_res;	/* large: keep it off the stack */

int replay_from_boot_module(void)
{
	const struct boot_module *m = &boot_info.modules[0];
	int ret;

	if (!boot_info.nr_modules) {
		pr_err("replay: no trace loaded; boot with a module (QEMU -initrd FILE, "
		       "GRUB \"module FILE\")\n");
		return -1;
	}
	printk("replay: replaying %s (%lu bytes)\n", m->name[0] ? m->name : "module 0",
	       m->end - m->start);
	ret = replay_run((const void *)(uintptr_t)m->start, m->end - m->start, &replay_res);
	if (ret >= 0)
		replay_report(&replay_res, m->name[0] ? m->name : "module 0");
	printk("replay: %s\n", ret == 0 ? "PASS" : "FAIL");
	return ret;
}
