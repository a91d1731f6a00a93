/* arch/irqflags.h (i386) - the interrupt flag (EFLAGS.IF) as saved state:
 * the primitives <tiny/irqflags.h> builds on. */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

#define X86_EFLAGS_IF	0x00000200UL

static inline unsigned long arch_local_save_flags(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushfl; popl %0" : "=rm"(flags) : : "memory");
	return flags;
}

static inline void arch_local_irq_disable(void)
{
	__asm__ __volatile__("cli" : : : "memory");
}

static inline void arch_local_irq_enable(void)
{
	__asm__ __volatile__("sti" : : : "memory");
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("pushl %0; popfl" : : "g"(flags) : "memory", "cc");
}

static inline int arch_irqs_disabled_flags(unsigned long flags)
{
	return !(flags & X86_EFLAGS_IF);
}

#endif /* ARCH_IRQFLAGS_H */
