/* arch/spinlock.h (i386) - the raw lock under <tiny/spinlock.h>.
 *
 * SMP: a fair ticket lock.  The 32-bit word holds two 16-bit counters:
 * the low half is the ticket now served (head), the high half the next
 * ticket to hand out (tail).  A locker takes a ticket with one "lock xadd"
 * of 0x10000 and spins (with "pause") until head reaches it; unlocking
 * serves the next ticket.  CPUs get the lock in the order they asked, so
 * none starves; up to 65535 CPUs may wait at once.
 *
 * Uniprocessor (SMP=n): the empty lock of <tiny/spinlock_up.h>, so a UP
 * kernel is exactly as small as before.
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/kconfig.h>
#include <asm/processor.h>	/* cpu_relax() */

#ifdef CONFIG_SMP
#include <tiny/types.h>

typedef struct {
	volatile u32 slock;	/* head in bits 0-15, tail in bits 16-31 */
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0 }
#define TICKET_SHIFT			16

static inline void arch_spin_lock_init(arch_spinlock_t *lock)
{
	lock->slock = 0;
}

/* Takes a ticket and waits for it to be served.  Never fails. */
static inline void arch_spin_lock(arch_spinlock_t *lock)
{
	u32 t = 1u << TICKET_SHIFT;

	__asm__ __volatile__("lock; xaddl %0, %1" : "+r"(t), "+m"(lock->slock) : : "memory");
	while ((u16)(t >> TICKET_SHIFT) != (u16)lock->slock)
		cpu_relax();
	__asm__ __volatile__("" : : : "memory");
}

/* Serves the next ticket.  Only the holder writes head, and x86 keeps
 * stores in order, so a plain 16-bit increment after a compiler barrier
 * publishes the critical section's writes first. */
static inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	__asm__ __volatile__("incw %0" : "+m"(*(volatile u16 *)&lock->slock) : : "memory", "cc");
}

/* Takes the lock only if nobody holds or waits for it: 1 if taken, else 0. */
static inline int arch_spin_trylock(arch_spinlock_t *lock)
{
	u32 old = lock->slock, prev;

	if ((u16)old != (u16)(old >> TICKET_SHIFT))
		return 0;
	__asm__ __volatile__("lock; cmpxchgl %2, %1"
			     : "=a"(prev), "+m"(lock->slock)
			     : "r"(old + (1u << TICKET_SHIFT)), "0"(old) : "memory", "cc");
	return prev == old;
}

static inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	u32 v = lock->slock;

	return (u16)v != (u16)(v >> TICKET_SHIFT);
}
#else
#include <tiny/spinlock_up.h>
#endif

#endif /* ARCH_SPINLOCK_H */
