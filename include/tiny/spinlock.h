/* spinlock.h - spinlock_t and its lock/unlock calls.
 *
 * This kernel is uniprocessor and never preempts, so a lock only has to
 * keep interrupt handlers out: spin_lock_irqsave() disables interrupts,
 * plain spin_lock() is for data never touched from interrupt context.  The
 * arch_spin_*() hooks are where an atomic test-and-set goes once there is
 * more than one CPU; on UP they compile to nothing.
 *
 * With CONFIG_DEBUG_SPINLOCK each lock records whether it is held and by
 * which caller, and misuse (taking a lock twice, releasing a lock that is
 * not held) is reported with the lock's name and the caller's address.
 */
#ifndef TINY_SPINLOCK_H
#define TINY_SPINLOCK_H

#include <tiny/types.h>
#include <tiny/compiler.h>
#include <tiny/kconfig.h>
#include <tiny/irqflags.h>
#include <arch/spinlock.h>

#define SPINLOCK_MAGIC	0xdead4eadU

typedef struct spinlock {
	arch_spinlock_t raw;
#ifdef CONFIG_DEBUG_SPINLOCK
	unsigned int magic;
	unsigned int locked;
	const char *name;
	void *owner_pc;		/* return address of the spin_lock() caller */
#endif
} spinlock_t;

#ifdef CONFIG_DEBUG_SPINLOCK
#define __SPIN_LOCK_UNLOCKED(lockname) \
	{ .raw = __ARCH_SPIN_LOCK_UNLOCKED, .magic = SPINLOCK_MAGIC, .name = #lockname }

/* Debug variants: check the lock state, report misuse (kernel/spinlock.c). */
void debug_spin_lock(spinlock_t *lock, void *pc);
void debug_spin_unlock(spinlock_t *lock, void *pc);
void debug_spin_lock_init(spinlock_t *lock, const char *name);
/* Number of misuse reports so far (the self-tests check it rises). */
extern unsigned long spin_bug_count;
#else
#define __SPIN_LOCK_UNLOCKED(lockname) { .raw = __ARCH_SPIN_LOCK_UNLOCKED }
static inline void debug_spin_lock(spinlock_t *lock, void *pc) { (void)lock; (void)pc; }
static inline void debug_spin_unlock(spinlock_t *lock, void *pc) { (void)lock; (void)pc; }
static inline void debug_spin_lock_init(spinlock_t *lock, const char *name)
{
	(void)lock;
	(void)name;
}
#endif

#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#define spin_lock_init(lock) do {				\
	arch_spin_lock_init(&(lock)->raw);			\
	debug_spin_lock_init((lock), #lock);			\
} while (0)

/* The address of the code that expands it: where a lock was taken. */
#define _THIS_IP_ ({ __label__ __here; __here: (void *)&&__here; })

#define spin_lock(lock) do {					\
	debug_spin_lock((lock), _THIS_IP_);			\
	arch_spin_lock(&(lock)->raw);				\
} while (0)

#define spin_unlock(lock) do {					\
	arch_spin_unlock(&(lock)->raw);				\
	debug_spin_unlock((lock), _THIS_IP_);			\
} while (0)

#define spin_lock_irqsave(lock, flags) do {			\
	local_irq_save(flags);					\
	spin_lock(lock);					\
} while (0)

#define spin_unlock_irqrestore(lock, flags) do {		\
	spin_unlock(lock);					\
	local_irq_restore(flags);				\
} while (0)

#define spin_lock_irq(lock) do { local_irq_disable(); spin_lock(lock); } while (0)
#define spin_unlock_irq(lock) do { spin_unlock(lock); local_irq_enable(); } while (0)

#endif /* TINY_SPINLOCK_H */
