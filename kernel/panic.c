/* panic.c - the end of the line: panic(), BUG_ON() and WARN reports.
 *
 * panic() claims the crash report (<tiny/oops.h>), stops the other CPUs
 * and waits for them, at most PANIC_STOP_MS, so that nothing else prints
 * or changes memory under the report, then prints its message on a
 * console nobody else can hold (printk_bust()) and stops the machine.
 * When the kernel runs its self-tests (or was told to power off when
 * done), it ends the QEMU run with a failure status so that a test runner
 * sees the crash at once instead of waiting for a timeout.  WARN and BUG
 * name the function that raised them (%pS, with kallsyms).  Every report
 * counts itself in reports_printed, which the self-test runner checks per
 * case.
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/irqflags.h>
#include <tiny/init.h>
#include <tiny/ktest.h>
#include <tiny/oops.h>
#include <tiny/smp.h>

/* A CPU takes an NMI in microseconds; the bound is for one that cannot
 * (a virtual CPU on a busy host may wait its turn for a while). */
#define PANIC_STOP_MS	3000

unsigned long reports_printed;
unsigned long reports_expected_until;
int oops_cpu = -1;
static int oops_depth;		/* the owner's reports in progress */

/* Past OOPS_DEPTH_MAX: every report faults; end without one more. */
static __noreturn void oops_give_up(void)
{
	if (exit_when_done)
		arch_exit(EXIT_FAIL);
	arch_halt();
}

int oops_begin(void)
{
	int me = (int)smp_processor_id(), owner = -1;

	if (!__atomic_compare_exchange_n(&oops_cpu, &owner, me, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && owner != me)
		smp_stop_this_cpu();	/* another CPU reports, and will stop us anyway */
	if (++oops_depth > OOPS_DEPTH_MAX)
		oops_give_up();
	return oops_depth;
}

int oops_on_this_cpu(void)
{
	return __atomic_load_n(&oops_cpu, __ATOMIC_RELAXED) == (int)smp_processor_id();
}

/* Says whether the other CPUs stopped (left: how many did not). */
static void report_stopped_cpus(unsigned int left)
{
	if (!IS_ENABLED(CONFIG_SMP))
		return;
	if (left)
		printk(KERN_EMERG "(on CPU %u; %u other CPU(s) did not stop within %d ms)\n",
		       smp_processor_id(), left, PANIC_STOP_MS);
	else
		printk(KERN_EMERG "(on CPU %u; the other CPUs are stopped)\n", smp_processor_id());
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list args;
	unsigned int left;

	local_irq_disable();
	oops_begin();
	left = smp_stop_other_cpus(PANIC_STOP_MS);
	printk_bust();
	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", buf);
	report_stopped_cpus(left);
	if (exit_when_done)
		arch_exit(EXIT_FAIL);
	printk(KERN_EMERG "---[ end Kernel panic - not syncing: %s ]---\n", buf);
	arch_halt();
}

void __warn(const char *file, int line, const char *cond)
{
	const char *mark = count_report();

	printk(KERN_WARNING "WARNING: at %s:%d: %s (in %pS)%s\n", file, line, cond,
	       __builtin_return_address(0), mark);
}

void __bug(const char *file, int line, const char *cond)
{
	local_irq_disable();
	oops_begin();
	count_report();
	printk(KERN_EMERG "kernel BUG at %s:%d: %s (in %pS)\n", file, line, cond,
	       __builtin_return_address(0));
	panic("BUG");
}
