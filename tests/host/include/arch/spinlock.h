/* arch/spinlock.h (host) - the raw lock of the host build.
 *
 * With CONFIG_SMP the harness runs one thread per CPU (tests/host/smp.c),
 * so the lock is the i386 kernel's, on C11-style __atomic builtins: a
 * word of two 16-bit counters, the ticket now served (owner) and the next
 * to hand out (next), held while they differ; unlocking serves the next
 * ticket.  A CPU waits for it one of the kernel's two ways:
 *   - ticket: take a ticket with one fetch-and-add and wait until it is
 *     served (fair: first come, first served);
 *   - test-and-set with exponential backoff: take the lock only when
 *     nobody holds or waits for it (the trylock), backing off 1, 2, 4 ...
 *     up to SPIN_BACKOFF_MAX pauses after each failed try; once the lock
 *     has changed hands SPIN_TAS_PATIENCE times without it and
 *     2^arch_spin_patience_shift TSC cycles have passed, take a ticket and
 *     wait in line, so that CPUs that keep taking the lock starve nobody
 *     (a holder that is not running hands nothing over).
 * The harness's CPUs are threads that the host deschedules at will, as a
 * hypervisor does virtual CPUs, so the host build waits by test-and-set
 * (arch_spin_tas, tests/host/smp.c), as the kernel does under a
 * hypervisor; tests and bench-smp --lock switch it.  Every acquire is an
 * acquire load of owner, which the last unlock's release store wrote, so
 * ThreadSanitizer sees each lock hand-over.
 * cpu_relax() is the x86 pause hint, and also the harness's polling point:
 * a CPU spinning with interrupts on takes the interrupts (ticks,
 * smp_call_function() requests) sent to it meanwhile, as a real CPU would.
 * Without CONFIG_SMP it is the empty uniprocessor lock.
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/kconfig.h>

/* Runs the interrupts pending on this thread's CPU if its interrupt flag
 * is on (tests/host/smp.c). */
void host_poll_irqs(void);

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
	host_poll_irqs();
}

#ifdef CONFIG_SMP
typedef struct {
	unsigned short next;	/* the ticket the next comer takes */
	unsigned short owner;	/* the ticket being served */
} __attribute__((aligned(4))) arch_spinlock_t;	/* one lock-free 32-bit word */

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0, 0 }
#define SPIN_BACKOFF_MAX		4096	/* pauses between two tries, at most */
#define SPIN_TAS_PATIENCE		256	/* hand-overs missed, then a ticket */

/* Nonzero: CPUs wait by test-and-set with backoff, else by ticket
 * (tests/host/smp.c; relaxed atomic loads and stores). */
extern int arch_spin_tas;
/* A test-and-set waiter queues only after 2^this TSC cycles (default 28,
 * 90 ms at 3 GHz: rarely; tests lower it). */
extern unsigned int arch_spin_patience_shift;

static inline void arch_spin_lock_setup(void) { }

/* One CPU's wait for a lock: its ticket, or (test-and-set) its backoff. */
struct arch_spin_wait {
	unsigned long long since;	/* test-and-set: the TSC at the first failed try */
	unsigned short ticket;
	unsigned short backoff;	/* pauses after the next failed try; 0: ticket */
	unsigned short owner;	/* test-and-set: owner at the first failed try */
};

static inline void arch_spin_lock_init(arch_spinlock_t *lock)
{
	__atomic_store_n(&lock->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
}

/* Takes a ticket only if it would be served at once: both halves compared
 * and swapped as one 32-bit word. */
static inline int arch_spin_trylock(arch_spinlock_t *lock)
{
	arch_spinlock_t old, new;

	__atomic_load(lock, &old, __ATOMIC_RELAXED);
	if (old.next != old.owner)
		return 0;
	new = old;
	new.next++;
	if (!__atomic_compare_exchange(lock, &old, &new, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	/* Acquire from the half the last unlock released: the same pairing
	 * as the ticket wait, which ThreadSanitizer tracks per address. */
	(void)__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);
	return 1;
}

/* Takes the next ticket. */
static inline unsigned short arch_spin_take_ticket(arch_spinlock_t *lock)
{
	return __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);
}

static inline int arch_spin_served(arch_spinlock_t *lock, unsigned short ticket)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) == ticket;
}

/* Nonzero if a test-and-set waiter has been starved long enough to queue:
 * the lock changed hands SPIN_TAS_PATIENCE times since its first failed
 * try, and 2^arch_spin_patience_shift cycles passed. */
static inline int arch_spin_starved(struct arch_spin_wait *w, unsigned short owner)
{
	return (unsigned short)(owner - w->owner) >= SPIN_TAS_PATIENCE &&
	       (__builtin_ia32_rdtsc() - w->since) >>
			__atomic_load_n(&arch_spin_patience_shift, __ATOMIC_RELAXED);
}

/* One try; on failure waits w->backoff pauses and doubles it (up to
 * SPIN_BACKOFF_MAX), or, once starved, takes a ticket (the wait goes on by
 * ticket).  1 if the lock is now this CPU's. */
static inline int arch_spin_tas_step(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	unsigned short owner = __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);
	unsigned int i;

	if (arch_spin_trylock(lock))
		return 1;
	if (w->backoff == 1) {
		w->owner = owner;
		w->since = __builtin_ia32_rdtsc();
	} else if (arch_spin_starved(w, owner)) {
		w->backoff = 0;
		w->ticket = arch_spin_take_ticket(lock);
		return arch_spin_served(lock, w->ticket);
	}
	for (i = 0; i < w->backoff; i++)
		cpu_relax();
	if (w->backoff < SPIN_BACKOFF_MAX)
		w->backoff <<= 1;
	return 0;
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

static inline void arch_spin_lock(arch_spinlock_t *lock)
{
	struct arch_spin_wait w;

	arch_spin_wait_begin(lock, &w);
	while (!arch_spin_wait_step(lock, &w))
		;
}

static inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	unsigned short next = __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) + 1;

	__atomic_store_n(&lock->owner, next, __ATOMIC_RELEASE);
}

static inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	arch_spinlock_t now;

	__atomic_load(lock, &now, __ATOMIC_RELAXED);
	return now.next != now.owner;
}

/* Nonzero if a CPU holds a ticket behind the holder's (a test-and-set
 * waiter holds none, so it does not count). */
static inline int arch_spin_is_contended(arch_spinlock_t *lock)
{
	arch_spinlock_t now;

	__atomic_load(lock, &now, __ATOMIC_RELAXED);
	return (unsigned short)(now.next - now.owner) > 1;
}
#else
#include <tiny/spinlock_up.h>

static inline void arch_spin_lock_setup(void) { }
#endif

#endif /* ARCH_SPINLOCK_H */
