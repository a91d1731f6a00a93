/* spinlock.h - spinlock_t and its lock/unlock calls.
 *
 * A spinlock gives one CPU at a time the data it guards.  The raw lock
 * comes from <arch/spinlock.h>: on an SMP build the lock of
 * <tiny/spinlock_smp.h>, the same for every arch.  On an SMP build it is a ticket lock word
 * that a CPU waits for either by ticket (fair; bare metal) or by
 * test-and-set with exponential backoff (under a hypervisor, and in the
 * host harness, whose CPUs are threads: a virtual CPU next in line for a
 * ticket may not be running).  On a uniprocessor build it is the empty
 * lock of <tiny/spinlock_up.h>: disabling interrupts is all the exclusion
 * there is.  The kernel never preempts, so spin_lock() only has to keep
 * other CPUs out; data an interrupt handler also touches needs
 * spin_lock_irqsave() (or _irq), or an interrupt on the holder's own CPU
 * would spin on it forever.
 *
 * spin_trylock() takes the lock if it is free and returns 1, else returns
 * 0 at once.  assert_spin_held(lock) states that this CPU holds the lock
 * (the rule "LOCK held" of a function's comment): checked exactly with
 * CONFIG_DEBUG_SPINLOCK (which records the holder), checked that some CPU
 * holds it with CONFIG_DEBUG_ASSERT on SMP (a "WARNING: at FILE:LINE"
 * report), nothing otherwise.  assert_spin_not_held(lock) states that
 * this CPU does not hold it ("LOCK not held"): checked with
 * CONFIG_DEBUG_SPINLOCK only, since without the holder recorded another
 * CPU's hold looks the same.  Both are expressions of type void.
 *
 * With CONFIG_DEBUG_SPINLOCK each lock records the CPU that holds it and
 * the address it was taken from, and reports (one "BUG: spinlock ..." line
 * each, counted in spin_bug_count and by count_report()):
 *   - recursion: a CPU taking a lock it holds already (on SMP a deadlock):
 *     reported, and the lock is left as it was, held once;
 *   - unlocking a lock nobody holds, or one another CPU holds: reported,
 *     and the lock is left as it was;
 *   - a lockup: a lock that makes no progress (no CPU takes it: its
 *     head ticket stays put) for far longer than any critical section
 *     takes (2^spin_lockup_shift cycles of get_cycles()) while a CPU
 *     waits for it: the lock, the holder CPU and where it took the lock
 *     are reported once, then the CPU keeps waiting.  A long wait in a
 *     queue that moves is no lockup: behind three CPUs whose virtual CPUs
 *     the host runs late, a ticket waits for each hand-over in turn;
 *   - a bad magic number (a lock never initialised, or overwritten): the
 *     call is reported and does nothing;
 *   - assert_spin_held() on a lock this CPU does not hold ("not held"; on
 *     a uniprocessor build the owner is recorded too, so it is checked
 *     there as well), assert_spin_not_held() on one it holds ("held").
 */
#ifndef TINY_SPINLOCK_H
#define TINY_SPINLOCK_H

#include <tiny/types.h>
#include <tiny/compiler.h>
#include <tiny/kconfig.h>
#include <tiny/irqflags.h>
#include <arch/spinlock.h>

#define SPINLOCK_MAGIC	0xdead4eadU
#define SPIN_NO_OWNER	(-1)

typedef struct spinlock {
	arch_spinlock_t raw;
#ifdef CONFIG_DEBUG_SPINLOCK
	unsigned int magic;
	int owner_cpu;		/* the CPU holding it, SPIN_NO_OWNER if free */
	const char *name;
	void *owner_pc;		/* where the holder (or the last one) took it */
	unsigned char lockup_shift; /* this lock's lockup budget; 0: spin_lockup_shift */
#endif
} spinlock_t;

/* The address of the code that expands it: where a lock was taken. */
#define _THIS_IP_ ({ __label__ __here; __here: (void *)&&__here; })

#ifdef CONFIG_DEBUG_SPINLOCK
#define __SPIN_LOCK_UNLOCKED(lockname)						\
	{ .raw = __ARCH_SPIN_LOCK_UNLOCKED, .magic = SPINLOCK_MAGIC,		\
	  .owner_cpu = SPIN_NO_OWNER, .name = #lockname }

/* The checked lock calls (kernel/spinlock.c); pc is the caller. */
void debug_spin_lock(spinlock_t *lock, void *pc);
int debug_spin_trylock(spinlock_t *lock, void *pc);
void debug_spin_unlock(spinlock_t *lock, void *pc);
void debug_spin_lock_init(spinlock_t *lock, const char *name);
void debug_spin_assert_held(spinlock_t *lock, void *pc);
void debug_spin_assert_not_held(spinlock_t *lock, void *pc);
/* Number of misuse reports so far (the self-tests check it rises). */
extern unsigned long spin_bug_count;
/* A lockup is reported after 2^spin_lockup_shift cycles without progress
 * (a 32-bit word, so that i386 changes it atomically), or after
 * 2^lockup_shift for a lock whose lockup_shift is set: a test lowers one
 * lock's budget, not every lock's, so a wait elsewhere on a busy host
 * (a holder the host descheduled for a few ms) is not reported then. */
extern unsigned int spin_lockup_shift;
/* The cycles without progress after which a wait for lock is a lockup. */
u64 spin_lockup_budget(spinlock_t *lock);

/* The lockup clock of one wait: restarted whenever the lock's head ticket
 * moves (a CPU took the lock and let it go). */
struct lockup_watch {
	u64 since;		/* cycles when the head last moved */
	u16 head;		/* the head seen then */
};
/* Starts the clock at now with the lock's head. */
void lockup_watch_start(struct lockup_watch *w, u16 head, u64 now);
/* Nonzero once the head has stayed put for more than budget cycles. */
int lockup_watch_expired(struct lockup_watch *w, u16 head, u64 now, u64 budget);

#define spin_lock(lock)		debug_spin_lock((lock), _THIS_IP_)
#define spin_trylock(lock)	debug_spin_trylock((lock), _THIS_IP_)
#define spin_unlock(lock)	debug_spin_unlock((lock), _THIS_IP_)
#define assert_spin_held(lock)	debug_spin_assert_held((lock), _THIS_IP_)
#define assert_spin_not_held(lock) debug_spin_assert_not_held((lock), _THIS_IP_)
#else
#define __SPIN_LOCK_UNLOCKED(lockname) { .raw = __ARCH_SPIN_LOCK_UNLOCKED }
static inline void debug_spin_lock_init(spinlock_t *lock, const char *name)
{
	(void)lock;
	(void)name;
}

#define spin_lock(lock)		arch_spin_lock(&(lock)->raw)
#define spin_trylock(lock)	arch_spin_trylock(&(lock)->raw)
#define spin_unlock(lock)	arch_spin_unlock(&(lock)->raw)
/* Without the holder recorded, a free lock is what can be caught; a
 * uniprocessor lock holds nothing, so there nothing is. */
#define assert_spin_held(lock)							\
	((void)(IS_ENABLED(CONFIG_DEBUG_ASSERT) && IS_ENABLED(CONFIG_SMP) &&	\
		unlikely(!spin_is_locked(lock)) &&				\
		(__warn(__FILE__, __LINE__, "assert_spin_held(" #lock "): not held"), 0)))
#define assert_spin_not_held(lock)	((void)sizeof(lock))	/* not evaluated */
#endif

#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#define spin_lock_init(lock) do {				\
	arch_spin_lock_init(&(lock)->raw);			\
	debug_spin_lock_init((lock), #lock);			\
} while (0)

/* Nonzero if some CPU holds the lock (always 0 on a uniprocessor build). */
#define spin_is_locked(lock)	arch_spin_is_locked(&(lock)->raw)
/* Nonzero if a CPU waits for it by ticket behind the holder. */
#define spin_is_contended(lock)	arch_spin_is_contended(&(lock)->raw)

/* spin_lock_set_tas() sets how CPUs wait for a held lock from now on (1:
 * test-and-set with backoff, 0: ticket; <tiny/spinlock_smp.h>) and returns the
 * previous way.  Safe at any time: both ways share the lock word, and a
 * CPU already waiting goes on as it started.  spin_lock_set_patience()
 * (for tests) sets 2^shift, the TSC cycles a starved test-and-set waiter
 * waits at least before it takes a ticket, and returns the previous shift.
 * Uniprocessor: both do nothing and return 0. */
#ifdef CONFIG_SMP
static inline int spin_lock_set_tas(int tas)
{
	return __atomic_exchange_n(&arch_spin_tas, tas, __ATOMIC_RELAXED);
}

static inline unsigned int spin_lock_set_patience(unsigned int shift)
{
	return __atomic_exchange_n(&arch_spin_patience_shift, shift, __ATOMIC_RELAXED);
}
#else
static inline int spin_lock_set_tas(int tas)
{
	(void)tas;
	return 0;
}

static inline unsigned int spin_lock_set_patience(unsigned int shift)
{
	(void)shift;
	return 0;
}
#endif

#define spin_lock_irqsave(lock, flags) do {			\
	local_irq_save(flags);					\
	spin_lock(lock);					\
} while (0)

#define spin_unlock_irqrestore(lock, flags) do {		\
	spin_unlock(lock);					\
	local_irq_restore(flags);				\
} while (0)

/* Interrupts saved and off, then the lock if free: 1 with both, else 0
 * with the interrupt state put back. */
#define spin_trylock_irqsave(lock, flags) ({			\
	int __got;						\
	local_irq_save(flags);					\
	__got = spin_trylock(lock);				\
	if (!__got)						\
		local_irq_restore(flags);			\
	__got;							\
})


#endif /* TINY_SPINLOCK_H */
