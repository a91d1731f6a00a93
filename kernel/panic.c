/* panic.c - the end of the line: panic(), BUG() and WARN reports.
 *
 * panic() prints its message and stops the machine.  When the kernel runs
 * its self-tests (or was told to power off when done), it ends the QEMU
 * run with a failure status so that a test runner sees the crash at once
 * instead of waiting for a timeout.  WARN and BUG name the function that
 * raised them (%pS, with kallsyms).  Every report counts itself in
 * reports_printed, which the self-test runner checks per case.
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/irqflags.h>
#include <tiny/init.h>
#include <tiny/ktest.h>
#include <tiny/smp.h>

#ifndef CONFIG_SMP
static inline void smp_stop_other_cpus(void) { }
#endif

unsigned long reports_printed;

/* The first CPU to panic reports; any other that panics meanwhile stops
 * (it will be halted by the first anyway, and two reports would mix). */
static int panic_cpu = -1;

void panic(const char *fmt, ...)
{
	static char buf[256];
	va_list args;
	int none = -1;

	local_irq_disable();
	if (IS_ENABLED(CONFIG_SMP) && !__atomic_compare_exchange_n(&panic_cpu, &none, (int)smp_processor_id(), 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&
	    panic_cpu != (int)smp_processor_id())
		arch_halt();
	smp_stop_other_cpus();
	oops_in_progress = 1;
	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", buf);
	if (IS_ENABLED(CONFIG_SMP))
		printk(KERN_EMERG "(on CPU %u; the other CPUs are stopped)\n", smp_processor_id());
	if (exit_when_done)
		arch_exit(EXIT_FAIL);
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", buf);
	arch_halt();
}

void __warn(const char *file, int line, const char *cond)
{
	count_report();
	printk(KERN_WARNING "WARNING: at %s:%d: %s (in %pS)\n", file, line, cond,
	       __builtin_return_address(0));
}

void __bug(const char *file, int line, const char *cond)
{
	count_report();
	printk(KERN_EMERG "kernel BUG at %s:%d: %s (in %pS)\n", file, line, cond,
	       __builtin_return_address(0));
	panic("BUG");
}
