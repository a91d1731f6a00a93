/* spinlock_wait.c - the waits of the SMP lock that are not inline
 * (<tiny/spinlock_smp.h> has the algorithm): a test-and-set waiter's
 * steps, with its backoff and its patience, and (where the build
 * optimises for size) the one copy of the lock every lock site calls.
 *
 * Built with CONFIG_SMP, in the kernel and in the host build of mm/
 * alike: the same code that ThreadSanitizer runs on the host is the
 * kernel's.
 */
#include <tiny/spinlock.h>

unsigned int arch_spin_patience_shift = 28;

/* Nonzero if a test-and-set waiter has been starved long enough to queue:
 * the lock changed hands SPIN_TAS_PATIENCE times since its first failed
 * try, and 2^arch_spin_patience_shift cycles passed. */
static int starved(const struct arch_spin_wait *w, u16 head)
{
	return (u16)(head - w->head) >= SPIN_TAS_PATIENCE &&
	       (arch_spin_cycles() - w->since) >> __atomic_load_n(&arch_spin_patience_shift,
								   __ATOMIC_RELAXED);
}

/* One try; on failure waits w->backoff cpu_relax()es and doubles it (up to
 * SPIN_BACKOFF_MAX), or, once starved(), takes a ticket (the wait goes on
 * by ticket).  1 if the lock is now this CPU's. */
int arch_spin_tas_step(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	u16 head = __atomic_load_n(&lock->tickets.head, __ATOMIC_RELAXED);
	unsigned int i;

	if (arch_spin_trylock(lock))
		return 1;
	if (w->backoff == 1) {
		w->head = head;
		w->since = arch_spin_cycles();
	} else if (starved(w, head)) {
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

/* arch_spin_lock()'s test-and-set wait, after its first try failed. */
void arch_spin_lock_tas(arch_spinlock_t *lock)
{
	struct arch_spin_wait w = { .backoff = 1 };

	while (!arch_spin_wait_step(lock, &w))
		;
}

#ifdef __OPTIMIZE_SIZE__
void arch_spin_lock(arch_spinlock_t *lock)
{
	__arch_spin_lock(lock);
}
#endif
