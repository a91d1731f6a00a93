/* arch/spinlock.h (host) - the raw lock of the host build.
 *
 * With CONFIG_SMP the harness runs one thread per CPU (tests/host/smp.c),
 * so the lock is a real fair ticket lock on C11-style __atomic builtins:
 * take a ticket with one fetch-and-add, wait until it is served, serve the
 * next on release, as the i386 kernel's lock xadd version does.
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

static inline void arch_spin_lock_init(arch_spinlock_t *lock)
{
	__atomic_store_n(&lock->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
}

static inline void arch_spin_lock(arch_spinlock_t *lock)
{
	unsigned short me = __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
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
	 * as arch_spin_lock(), which ThreadSanitizer tracks per address. */
	(void)__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);
	return 1;
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
#else
#include <tiny/spinlock_up.h>
#endif

#endif /* ARCH_SPINLOCK_H */
