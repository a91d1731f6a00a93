/* arch/irqflags.h (port example) - the interrupt flag of a one-CPU kernel
 * whose "interrupts" are the timer ticks port.c delivers: a flag in
 * memory, nonzero while interrupts are off.  A tick that comes while they
 * are off waits until they are on again, as a CPU holds an interrupt. */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

extern volatile unsigned long port_irqs_off;
/* Runs the tick that came while interrupts were off (port.c). */
void port_run_pending_tick(void);

static inline unsigned long arch_local_save_flags(void)
{
	return port_irqs_off;
}

static inline void arch_local_irq_disable(void)
{
	port_irqs_off = 1;
	__asm__ __volatile__("" ::: "memory");
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("" ::: "memory");
	port_irqs_off = flags;
	if (!flags)
		port_run_pending_tick();
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
