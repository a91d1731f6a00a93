/* arch/irqflags.h (host) - an emulated interrupt flag, one per CPU thread.
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
 */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

#include <signal.h>

extern __thread volatile sig_atomic_t host_irqs_off;
extern __thread volatile sig_atomic_t host_irq_pending;
/* Runs this CPU's pending interrupts (tests/host/smp.c). */
void host_run_pending_irq(void);

static inline unsigned long arch_local_save_flags(void)
{
	return host_irqs_off;
}

static inline void arch_local_irq_disable(void)
{
	host_irqs_off = 1;
	__asm__ __volatile__("" ::: "memory");
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("" ::: "memory");
	host_irqs_off = (sig_atomic_t)flags;
	if (!flags && host_irq_pending)
		host_run_pending_irq();
}

static inline void arch_local_irq_enable(void)
{
	arch_local_irq_restore(0);
}

static inline int arch_irqs_disabled_flags(unsigned long flags)
{
	return flags != 0;
}

#endif /* ARCH_IRQFLAGS_H */
