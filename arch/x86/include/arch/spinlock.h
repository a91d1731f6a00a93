/* arch/spinlock.h (i386) - the raw lock under <tiny/spinlock.h>.
 *
 * SMP: one 32-bit lock word of two 16-bit counters, the ticket now served
 * (head, bits 0-15) and the next ticket to hand out (tail, bits 16-31); the
 * lock is held while they differ, and unlocking serves the next ticket.
 * A CPU waits for it in one of two ways, chosen at boot
 * (arch/x86/kernel/spinlock.c):
 *   - ticket (bare metal): take a ticket with one "lock xadd" and spin
 *     (with "pause") until it is served.  CPUs get the lock in the order
 *     they asked, so none starves.
 *   - test-and-set with exponential backoff (under a hypervisor, as
 *     Linux's virt_spin_lock()): take the lock only when nobody holds or
 *     waits for it (the trylock: head == tail, one "lock cmpxchg"), and
 *     after each failure wait 1, 2, 4 ... up to SPIN_BACKOFF_MAX pauses.
 *     A ticket lock hands the lock to the next CPU in line; when that
 *     virtual CPU is not running on the host, every CPU behind it waits
 *     for the host to run it.  Test-and-set gives the lock to a CPU that
 *     is running.  It is unfair: CPUs that keep taking the lock could
 *     starve a waiter, so one that has waited 2^arch_spin_patience_shift
 *     TSC cycles and seen the lock change hands SPIN_TAS_PATIENCE times
 *     meanwhile takes a ticket and waits in line (and no CPU gets the lock
 *     by test-and-set while a ticket waits).  A holder that the host does
 *     not run hands nothing over, so it makes nobody queue behind it.
 * Both ways keep the same word, so CPUs waiting either way exclude each
 * other correctly and the choice may change at any time (the self-tests
 * switch it); a waiter keeps the way it started with.
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
#define SPIN_BACKOFF_MAX		4096	/* pauses between two tries, at most */
#define SPIN_TAS_PATIENCE		256	/* hand-overs missed, then a ticket */

/* Nonzero: CPUs wait by test-and-set with backoff, else by ticket.  Set
 * once at boot (arch_spin_lock_setup(), "spinlock="); read with relaxed
 * atomic loads. */
extern int arch_spin_tas;
/* A test-and-set waiter queues only after 2^this TSC cycles (default 28,
 * 90 ms at 3 GHz: rarely; tests lower it). */
extern unsigned int arch_spin_patience_shift;

/* Chooses how CPUs wait: test-and-set if CPUID says a hypervisor runs
 * this kernel (leaf 1, ECX bit 31), else ticket. */
void arch_spin_lock_setup(void);

/* One CPU's wait for a lock: its ticket, or (test-and-set) its backoff. */
struct arch_spin_wait {
	u64 since;		/* test-and-set: the TSC at the first failed try */
	u16 ticket;
	u16 backoff;		/* pauses after the next failed try; 0: ticket */
	u16 head;		/* test-and-set: head at the first failed try */
};

static inline void arch_spin_lock_init(arch_spinlock_t *lock)
{
	lock->slock = 0;
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

/* Test-and-set: one try, then a backoff (arch/x86/kernel/spinlock.c). */
int arch_spin_tas_step(arch_spinlock_t *lock, struct arch_spin_wait *w);
void arch_spin_lock_tas(arch_spinlock_t *lock);

/* Takes the next ticket with one "lock xadd". */
static inline u16 arch_spin_take_ticket(arch_spinlock_t *lock)
{
	u32 t = 1u << TICKET_SHIFT;

	__asm__ __volatile__("lock; xaddl %0, %1" : "+r"(t), "+m"(lock->slock) : : "memory");
	return (u16)(t >> TICKET_SHIFT);
}

/* 1 (and later loads not moved before it) if the ticket is served. */
static inline int arch_spin_served(arch_spinlock_t *lock, u16 ticket)
{
	if ((u16)lock->slock != ticket)
		return 0;
	__asm__ __volatile__("" : : : "memory");
	return 1;
}

/* Starts a wait the way CPUs wait now (by ticket: takes the ticket). */
static inline void arch_spin_wait_begin(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	if (__atomic_load_n(&arch_spin_tas, __ATOMIC_RELAXED)) {
		w->backoff = 1;
		return;
	}
	w->backoff = 0;
	w->ticket = arch_spin_take_ticket(lock);
}

/* 1 once the lock is this CPU's; else waits a little and returns 0. */
static inline int arch_spin_wait_step(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	if (w->backoff)
		return arch_spin_tas_step(lock, w);
	if (arch_spin_served(lock, w->ticket))
		return 1;
	cpu_relax();
	return 0;
}

/* Waits until the lock is this CPU's.  Never fails. */
static inline void __arch_spin_lock(arch_spinlock_t *lock)
{
	u16 ticket;

	if (__atomic_load_n(&arch_spin_tas, __ATOMIC_RELAXED)) {
		if (!arch_spin_trylock(lock))
			arch_spin_lock_tas(lock);
		return;
	}
	ticket = arch_spin_take_ticket(lock);
	while (!arch_spin_served(lock, ticket))
		cpu_relax();
}

/* Serves the next ticket.  Only the holder writes head, and x86 keeps
 * stores in order, so a plain 16-bit increment after a compiler barrier
 * publishes the critical section's writes first. */
/* Where the kernel is built for size (-Os, the defconfigs), one copy of
 * the lock in arch/x86/kernel/spinlock.c serves every lock site; where for
 * speed (-O2), each site has its own. */
#ifdef __OPTIMIZE_SIZE__
void arch_spin_lock(arch_spinlock_t *lock);
#else
#define arch_spin_lock(lock)	__arch_spin_lock(lock)
#endif

static inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	__asm__ __volatile__("incw %0" : "+m"(*(volatile u16 *)&lock->slock) : : "memory", "cc");
}

static inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	u32 v = lock->slock;

	return (u16)v != (u16)(v >> TICKET_SHIFT);
}

/* Nonzero if a CPU holds a ticket behind the holder's (a test-and-set
 * waiter holds none, so it does not count). */
static inline int arch_spin_is_contended(arch_spinlock_t *lock)
{
	u32 v = lock->slock;

	return (u16)((v >> TICKET_SHIFT) - v) > 1;
}
#else
#include <tiny/spinlock_up.h>

static inline void arch_spin_lock_setup(void) { }
#endif

#endif /* ARCH_SPINLOCK_H */
