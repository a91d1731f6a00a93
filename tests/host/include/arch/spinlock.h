/* arch/spinlock.h (host) - the harness is single-threaded (interrupts are
 * emulated on the same thread), so like the i386 kernel it uses the empty
 * uniprocessor raw lock; the emulated interrupt flag does the rest. */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/spinlock_up.h>

#endif /* ARCH_SPINLOCK_H */
