/* irqflags.h - saving, disabling and restoring the local interrupt state.
 *
 * The arch glue (<arch/irqflags.h>) provides the primitives: on i386 the
 * EFLAGS.IF bit via pushf/cli/popf, on the host build an emulated flag.
 * local_irq_save/restore nest: restore puts back exactly the saved state.
 */
#ifndef TINY_IRQFLAGS_H
#define TINY_IRQFLAGS_H

#include <arch/irqflags.h>

#define local_irq_save(flags)	((flags) = arch_local_irq_save())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define local_irq_disable()	arch_local_irq_disable()
#define local_irq_enable()	arch_local_irq_enable()
#define irqs_disabled()		arch_irqs_disabled()
#define irqs_disabled_flags(flags) arch_irqs_disabled_flags(flags)

#endif /* TINY_IRQFLAGS_H */
