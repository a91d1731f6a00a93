/* arch/spinlock.h (host) - the harness is single-threaded (interrupts are
 * emulated on the same thread), so like the i386 UP kernel the raw lock is
 * empty and mutual exclusion comes from the emulated interrupt flag. */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

typedef struct { } arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ }

static inline void arch_spin_lock_init(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_lock(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_unlock(arch_spinlock_t *lock) { (void)lock; }

#endif /* ARCH_SPINLOCK_H */
