/* arch/spinlock.h (i386) - this kernel is uniprocessor: the empty raw lock.
 * An SMP port would put its atomic test-and-set here instead. */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/spinlock_up.h>
#include <arch/processor.h>		/* cpu_relax(), which the contract has here */

#endif /* ARCH_SPINLOCK_H */
