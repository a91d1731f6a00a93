/* spinlock_up.h - the raw lock of a uniprocessor build: empty.
 *
 * With one CPU and no preemption, disabling interrupts is all the mutual
 * exclusion needed, so the raw lock holds nothing.  An SMP port replaces
 * these hooks (in its <arch/spinlock.h>) with a real lock word.  Both the
 * i386 kernel and the single-threaded host harness use this.
 */
#ifndef TINY_SPINLOCK_UP_H
#define TINY_SPINLOCK_UP_H

typedef struct { } arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ }

static inline void arch_spin_lock_init(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_lock(arch_spinlock_t *lock) { (void)lock; }
static inline void arch_spin_unlock(arch_spinlock_t *lock) { (void)lock; }
/* Always succeeds: with interrupts off nobody else can hold it. */
static inline int arch_spin_trylock(arch_spinlock_t *lock) { (void)lock; return 1; }
static inline int arch_spin_is_locked(arch_spinlock_t *lock) { (void)lock; return 0; }
static inline int arch_spin_is_contended(arch_spinlock_t *lock) { (void)lock; return 0; }
static inline u16 arch_spin_head(arch_spinlock_t *lock) { (void)lock; return 0; }

/* A wait for the lock (the debug lock's loop) ends at once. */
struct arch_spin_wait { };
static inline void arch_spin_wait_begin(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	(void)lock;
	(void)w;
}

static inline int arch_spin_wait_step(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	(void)lock;
	(void)w;
	return 1;
}

#endif /* TINY_SPINLOCK_UP_H */
