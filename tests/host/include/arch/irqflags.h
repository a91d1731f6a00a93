/* arch/irqflags.h (host) - an emulated interrupt flag.
 *
 * The host harness delivers "timer interrupts" from a SIGALRM handler (or
 * synchronously, in the fuzzer and benchmark).  local_irq_save() sets
 * host_irqs_off; an interrupt that arrives meanwhile is only marked
 * pending and runs when the flag is cleared again, exactly as a CPU holds
 * an interrupt until IF is set.  The flag lives in one thread; the
 * compiler barriers keep accesses from moving across the transitions.
 */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

#include <signal.h>

extern volatile sig_atomic_t host_irqs_off;
extern volatile sig_atomic_t host_irq_pending;
void host_run_pending_irq(void);

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = host_irqs_off;

	host_irqs_off = 1;
	__asm__ __volatile__("" ::: "memory");
	return flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("" ::: "memory");
	host_irqs_off = (sig_atomic_t)flags;
	if (!flags && host_irq_pending)
		host_run_pending_irq();
}

static inline void arch_local_irq_disable(void)
{
	(void)arch_local_irq_save();
}

static inline void arch_local_irq_enable(void)
{
	arch_local_irq_restore(0);
}

static inline int arch_irqs_disabled_flags(unsigned long flags)
{
	return flags != 0;
}

static inline int arch_irqs_disabled(void)
{
	return host_irqs_off != 0;
}

#endif /* ARCH_IRQFLAGS_H */
