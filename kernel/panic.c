/* panic.c - the end of the line: panic(), BUG() and WARN reports.
 *
 * panic() prints its message and stops the machine.  When the kernel runs
 * its self-tests (or was told to power off when done), it ends the QEMU
 * run with a failure status so that a test runner sees the crash at once
 * instead of waiting for a timeout.  WARN and BUG name the function that
 * raised them (%pS, with kallsyms).  Every report counts itself in
 * ktest_reports_printed, which the self-test runner checks per case.
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/irqflags.h>
#include <tiny/init.h>
#include <tiny/ktest.h>

unsigned long ktest_reports_printed;

void panic(const char *fmt, ...)
{
	static char buf[256];
	va_list args;

	local_irq_disable();
	oops_in_progress = 1;
	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", buf);
	if (exit_when_done)
		arch_exit(EXIT_FAIL);
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", buf);
	arch_halt();
}

void __warn(const char *file, int line, const char *cond)
{
	ktest_count_report();
	printk(KERN_WARNING "WARNING: at %s:%d: %s (in %pS)\n", file, line, cond,
	       __builtin_return_address(0));
}

void __bug(const char *file, int line, const char *cond)
{
	ktest_count_report();
	printk(KERN_EMERG "kernel BUG at %s:%d: %s (in %pS)\n", file, line, cond,
	       __builtin_return_address(0));
	panic("BUG");
}
