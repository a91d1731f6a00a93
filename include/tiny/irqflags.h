/* irqflags.h - saving, disabling and restoring the local interrupt state.
 *
 * The arch glue (<arch/irqflags.h>) provides five primitives: reading the
 * state as flags (arch_local_save_flags()), disabling and enabling
 * interrupts, restoring saved flags, and telling whether flags say
 * "disabled" (arch_irqs_disabled_flags()); on i386 the EFLAGS.IF bit via
 * pushf/cli/sti/popf, on the host build an emulated flag.  What is built
 * on them is here, once: local_irq_save/restore nest, restore putting
 * back exactly the saved state.
 *
 * assert_irqs_disabled() states that the caller has interrupts off (the
 * rule "interrupts off" of a function's comment): with CONFIG_DEBUG_ASSERT
 * (the debug configurations, and every host test build) a broken rule is
 * reported, one "WARNING: at FILE:LINE: ..." line; without it the
 * assertion is not even compiled into a test.
 */
#ifndef TINY_IRQFLAGS_H
#define TINY_IRQFLAGS_H

#include <tiny/bug.h>
#include <tiny/compiler.h>
#include <tiny/kconfig.h>
#include <arch/irqflags.h>

/* Disables interrupts and returns the previous state. */
static __always_inline unsigned long local_irq_save_flags(void)
{
	unsigned long flags = arch_local_save_flags();

	arch_local_irq_disable();
	return flags;
}

#define local_irq_save(flags)	((flags) = local_irq_save_flags())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define local_irq_disable()	arch_local_irq_disable()
#define local_irq_enable()	arch_local_irq_enable()
#define irqs_disabled_flags(flags) arch_irqs_disabled_flags(flags)
#define irqs_disabled()		arch_irqs_disabled_flags(arch_local_save_flags())

#define assert_irqs_disabled() do {						\
	if (IS_ENABLED(CONFIG_DEBUG_ASSERT) && unlikely(!irqs_disabled()))	\
		__warn(__FILE__, __LINE__, "assert_irqs_disabled(): interrupts are on"); \
} while (0)

#endif /* TINY_IRQFLAGS_H */
