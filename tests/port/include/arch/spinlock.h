/* arch/spinlock.h (port example) - one CPU: the empty lock of
 * <tiny/spinlock_up.h> (interrupts off is all the exclusion there is),
 * and what a spinning CPU does: nothing (kernel/timer.c spins only while
 * another CPU moves a timer). */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/spinlock_up.h>

static inline void cpu_relax(void)
{
}

#endif /* ARCH_SPINLOCK_H */
