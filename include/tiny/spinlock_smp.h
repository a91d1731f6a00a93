/* spinlock_smp.h - the raw lock of an SMP build, the same for every arch:
 * a ticket word that a CPU waits for by ticket or by test-and-set.
 *
 * The word holds two 16-bit counters, the ticket now served (head) and
 * the next ticket to hand out (tail); the lock is held while they differ,
 * and unlocking serves the next ticket.  A CPU waits for it one of two
 * ways, chosen with arch_spin_tas (spin_lock_set_tas() in <tiny/spinlock.h>):
 *   - ticket (bare metal): take a ticket with one fetch-and-add and spin
 *     until it is served.  CPUs get the lock in the order they asked, so
 *     none starves.
 *   - test-and-set with exponential backoff (under a hypervisor, as
 *     Linux's virt_spin_lock(), and in the host harness, whose CPUs are
 *     threads): take the lock only when nobody holds or waits for it (the
 *     trylock: head == tail, one compare-and-swap), and after each failure
 *     wait 1, 2, 4 ... up to SPIN_BACKOFF_MAX cpu_relax()es.  A ticket lock
 *     hands the lock to the next CPU in line; when that virtual CPU is not
 *     running on the host, every CPU behind it waits for the host to run
 *     it.  Test-and-set gives the lock to a CPU that is running.  It is
 *     unfair: CPUs that keep taking the lock could starve a waiter, so one
 *     that has waited 2^arch_spin_patience_shift cycles and seen the lock
 *     change hands SPIN_TAS_PATIENCE times meanwhile takes a ticket and
 *     waits in line (and no CPU gets the lock by test-and-set while a
 *     ticket waits).  A holder that is not running hands nothing over, so
 *     it makes nobody queue behind it.
 * Both ways keep the same word, so CPUs waiting either way exclude each
 * other correctly and the choice may change at any time (the self-tests
 * switch it); a waiter keeps the way it started with.
 *
 * Ordering.  A CPU that gets the lock does so with an acquire (the
 * compare-and-swap, or the load that finds its ticket served), and the
 * unlock is a release store of head: what the holder wrote is seen by the
 * next holder.  head is the word's first half, at the word's own address,
 * so that ThreadSanitizer, which tracks synchronisation per address, pairs
 * the release with either acquire.  On x86 the acquires are the locked
 * instructions and a plain load, the release a plain store.
 *
 * Written once, in C on the compiler's __atomic builtins, for the i386
 * kernel and for the host build of mm/ (whose ThreadSanitizer runs test
 * this very code).  The arch's <arch/spinlock.h> gives it two things
 * before it includes this header:
 *   cpu_relax()          what a spinning CPU does between two looks (x86:
 *                        "pause"; the host harness also takes the
 *                        interrupts pending on its CPU thread there);
 *   arch_spin_cycles()   a cycle counter for the patience (x86: the TSC).
 * The waits that do not fit inline, and the lock itself where the build
 * optimises for size, are in kernel/spinlock_wait.c.
 */
#ifndef TINY_SPINLOCK_SMP_H
#define TINY_SPINLOCK_SMP_H

#include <tiny/compiler.h>
#include <tiny/types.h>

typedef union {
	u32 slock;		/* both counters, for the compare-and-swap */
	struct {
		u16 head;	/* the ticket served: at the word's address */
		u16 tail;	/* the next ticket to hand out */
	} tickets;
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0 }
/* What adds one to tail in slock. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TICKET_SHIFT			16
#else
#define TICKET_SHIFT			0
#endif
#define SPIN_BACKOFF_MAX		4096	/* cpu_relax()es between two tries, at most */
#define SPIN_TAS_PATIENCE		256	/* hand-overs missed, then a ticket */

/* Nonzero: CPUs wait by test-and-set with backoff, else by ticket.  Set
 * by the arch (the kernel at boot: arch_spin_lock_setup(), "spinlock=";
 * the host harness: test-and-set) and by spin_lock_set_tas(); read with
 * relaxed atomic loads. */
extern int arch_spin_tas;
/* A test-and-set waiter queues only after 2^this cycles (default 28, 90 ms
 * at 3 GHz: rarely; tests lower it). */
extern unsigned int arch_spin_patience_shift;

/* One CPU's wait for a lock: its ticket, or (test-and-set) its backoff. */
struct arch_spin_wait {
	u64 since;		/* test-and-set: the cycles at the first failed try */
	u16 ticket;
	u16 backoff;		/* cpu_relax()es after the next failed try; 0: ticket */
	u16 head;		/* test-and-set: head at the first failed try */
};

static inline void arch_spin_lock_init(arch_spinlock_t *lock)
{
	__atomic_store_n(&lock->slock, 0, __ATOMIC_RELAXED);
}

static inline u16 ticket_head(u32 slock)
{
	return (u16)(slock >> (16 - TICKET_SHIFT));
}

static inline u16 ticket_tail(u32 slock)
{
	return (u16)(slock >> TICKET_SHIFT);
}

/* Takes the lock only if nobody holds or waits for it: 1 if taken, else 0. */
static inline int arch_spin_trylock(arch_spinlock_t *lock)
{
	u32 old = __atomic_load_n(&lock->slock, __ATOMIC_RELAXED);

	if (ticket_head(old) != ticket_tail(old))
		return 0;
	return __atomic_compare_exchange_n(&lock->slock, &old, old + (1u << TICKET_SHIFT), 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Takes the next ticket (one fetch-and-add of tail). */
static inline u16 arch_spin_take_ticket(arch_spinlock_t *lock)
{
	return ticket_tail(__atomic_fetch_add(&lock->slock, 1u << TICKET_SHIFT, __ATOMIC_RELAXED));
}

/* 1 (with an acquire) if the ticket is served. */
static inline int arch_spin_served(arch_spinlock_t *lock, u16 ticket)
{
	return __atomic_load_n(&lock->tickets.head, __ATOMIC_ACQUIRE) == ticket;
}

/* Test-and-set: one try, then a backoff, or a ticket once starved
 * (kernel/spinlock_wait.c). */
int arch_spin_tas_step(arch_spinlock_t *lock, struct arch_spin_wait *w);
void arch_spin_lock_tas(arch_spinlock_t *lock);

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

/* Where the build optimises for size (-Os, the kernel's defconfigs), one
 * copy of the lock in kernel/spinlock_wait.c serves every lock site;
 * where for speed (-O2), each site has its own. */
#ifdef __OPTIMIZE_SIZE__
void arch_spin_lock(arch_spinlock_t *lock);
#else
#define arch_spin_lock(lock)	__arch_spin_lock(lock)
#endif

/* Serves the next ticket: only the holder writes head, so a load and a
 * release store of head + 1 (no locked instruction). */
static __always_inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	u16 next = (u16)(__atomic_load_n(&lock->tickets.head, __ATOMIC_RELAXED) + 1);

	__atomic_store_n(&lock->tickets.head, next, __ATOMIC_RELEASE);
}

/* The ticket now served: it moves on every hand-over (the debug lock's
 * lockup clock restarts then). */
static inline u16 arch_spin_head(arch_spinlock_t *lock)
{
	return __atomic_load_n(&lock->tickets.head, __ATOMIC_RELAXED);
}

static inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	u32 v = __atomic_load_n(&lock->slock, __ATOMIC_RELAXED);

	return ticket_head(v) != ticket_tail(v);
}

/* Nonzero if a CPU holds a ticket behind the holder's (a test-and-set
 * waiter holds none, so it does not count). */
static inline int arch_spin_is_contended(arch_spinlock_t *lock)
{
	u32 v = __atomic_load_n(&lock->slock, __ATOMIC_RELAXED);

	return (u16)(ticket_tail(v) - ticket_head(v)) > 1;
}

#endif /* TINY_SPINLOCK_SMP_H */
