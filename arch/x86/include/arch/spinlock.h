/* arch/spinlock.h (i386, uniprocessor) - the raw lock word.
 *
 * With one CPU and no preemption, disabling interrupts is all the mutual
 * exclusion needed, so the raw lock is empty.  An SMP port replaces these
 * four hooks with an atomic exchange loop on a lock word.
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

typedef struct { } arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ }

static inline void arch_spin_lock_init(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_lock(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_unlock(arch_spinlock_t *lock) { (void)lock; }

#endif /* ARCH_SPINLOCK_H */
