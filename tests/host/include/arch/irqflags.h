/* arch/irqflags.h (host) - an emulated interrupt flag, one per CPU thread,
 * saved and restored with the kernel's instructions.
 *
 * The host harness delivers "interrupts" (timer ticks, smp_call_function()
 * requests) to a CPU thread from a signal directed at that thread, or
 * synchronously (the fuzzer and benchmark, --sync-ticks).  Disabling sets
 * the thread's host_irqs_off (these are the primitives <tiny/irqflags.h>
 * builds on); an interrupt that arrives meanwhile is only marked pending
 * and runs when the flag is cleared again, exactly as a CPU holds an
 * interrupt until IF is set.  Both words are thread-local:
 * each CPU has its own flag, as each real CPU has its own EFLAGS.IF.  The
 * compiler barriers keep accesses from moving across the transitions (a
 * signal handler runs on the same thread, so no fence is needed).
 *
 * What the kernel executes (arch/x86/include/arch/irqflags.h), the host
 * executes too, where user mode allows it: saving reads the real EFLAGS
 * with pushf and a pop, restoring writes the saved word back with a push
 * and popf (in user mode popf leaves IF alone, so the emulated flag stands
 * in the IF bit of the saved word: set means interrupts on, as on i386).
 * cli and sti fault in user mode: disabling and enabling only write the
 * emulated flag, and their cost is charged instead, per instruction
 * (HOST_CHARGED_INSNS below; the figure and its source are
 * scripts/kernel_cost.py's, printed by make bench beside each allocator).
 * The figures of the host glue against the kernel's: docs/benchmarks.md,
 * "What the host executes of the kernel's fast paths".
 */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

#include <signal.h>

#define X86_EFLAGS_IF	0x00000200UL

/* The kernel's instructions of this file that the host does not execute but
 * charges (read by scripts/kernel_cost.py and its test). */
#define HOST_CHARGED_INSNS	"cli sti"
/* Those the host executes as the kernel does. */
#define HOST_EXECUTED_INSNS	"pushf popf"

extern __thread volatile sig_atomic_t host_irqs_off;
extern __thread volatile sig_atomic_t host_irq_pending;
/* Runs this CPU's pending interrupts (tests/host/smp.c). */
void host_run_pending_irq(void);

static inline unsigned long arch_local_save_flags(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushf; pop %0" : "=r"(flags) : : "memory");
	return host_irqs_off ? flags & ~X86_EFLAGS_IF : flags | X86_EFLAGS_IF;
}

static inline void arch_local_irq_disable(void)
{
	host_irqs_off = 1;
	__asm__ __volatile__("" ::: "memory");
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("push %0; popf" : : "r"(flags) : "memory", "cc");
	host_irqs_off = !(flags & X86_EFLAGS_IF);
	if ((flags & X86_EFLAGS_IF) && host_irq_pending)
		host_run_pending_irq();
}

static inline void arch_local_irq_enable(void)
{
	host_irqs_off = 0;
	__asm__ __volatile__("" ::: "memory");
	if (host_irq_pending)
		host_run_pending_irq();
}

static inline int arch_irqs_disabled_flags(unsigned long flags)
{
	return !(flags & X86_EFLAGS_IF);
}

#endif /* ARCH_IRQFLAGS_H */
