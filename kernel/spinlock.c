/* spinlock.c - CONFIG_DEBUG_SPINLOCK: catching lock misuse.
 *
 * Each lock remembers the CPU holding it and where that CPU took it.  A
 * CPU taking a lock it holds (a deadlock on SMP, silent on one CPU), a
 * release of a lock that nobody or another CPU holds, and a CPU spinning
 * far longer than any critical section lasts are reported with the lock's
 * name, the CPUs and the addresses involved (see <tiny/spinlock.h>).  A
 * misuse is reported and leaves the lock as it was; a lockup is reported
 * once and the CPU goes on waiting.  A CPU waits for a held lock the way
 * the production lock makes it wait (ticket, or test-and-set under a
 * hypervisor), so a debug kernel is exactly as fair.  assert_spin_held()
 * reports a lock this CPU does not hold, assert_spin_not_held() one it
 * holds.
 *
 * The owner fields are read by other CPUs while they wait, so every access
 * to them is a relaxed atomic one; the raw lock orders the data.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/ktest.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <arch/timex.h>

unsigned long spin_bug_count;
/* About two seconds of a 3 GHz TSC: no critical section comes near it,
 * even under TCG, a sanitizer, or a host that deschedules the holder. */
unsigned int spin_lockup_shift = 33;

static int owner_cpu(spinlock_t *lock)
{
	return __atomic_load_n(&lock->owner_cpu, __ATOMIC_RELAXED);
}

static void *owner_pc(spinlock_t *lock)
{
	return __atomic_load_n(&lock->owner_pc, __ATOMIC_RELAXED);
}

/* One report line: what went wrong, where, and who holds the lock. */
static void spin_bug(spinlock_t *lock, const char *msg, void *pc)
{
	int owner = owner_cpu(lock);
	const char *mark;

	counter_inc(&spin_bug_count);
	mark = count_report();
	if (owner == SPIN_NO_OWNER)
		printk(KERN_ERR "BUG: spinlock %s on CPU#%u: lock %s (%p), caller %p, "
		       "not held, last taken by %p%s\n", msg, smp_processor_id(),
		       lock->name ? lock->name : "?", (void *)lock, pc, owner_pc(lock), mark);
	else
		printk(KERN_ERR "BUG: spinlock %s on CPU#%u: lock %s (%p), caller %p, "
		       "held by CPU#%d, taken at %p%s\n", msg, smp_processor_id(),
		       lock->name ? lock->name : "?", (void *)lock, pc, owner, owner_pc(lock),
		       mark);
}

/* Nonzero (and reported) if the lock's magic is wrong. */
static int bad_magic(spinlock_t *lock, void *pc)
{
	if (__atomic_load_n(&lock->magic, __ATOMIC_RELAXED) == SPINLOCK_MAGIC)
		return 0;
	spin_bug(lock, "bad magic (not initialised, or overwritten)", pc);
	return 1;
}

void debug_spin_lock_init(spinlock_t *lock, const char *name)
{
	lock->magic = SPINLOCK_MAGIC;
	lock->owner_cpu = SPIN_NO_OWNER;
	lock->name = name;
	lock->owner_pc = NULL;
	lock->lockup_shift = 0;
}

/* The raw lock is ours: record it. */
static void set_owner(spinlock_t *lock, void *pc)
{
	__atomic_store_n(&lock->owner_pc, pc, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->owner_cpu, (int)smp_processor_id(), __ATOMIC_RELAXED);
}

/* Nonzero (and reported) if this CPU holds the lock already. */
static int recursion(spinlock_t *lock, void *pc)
{
	if (owner_cpu(lock) != (int)smp_processor_id())
		return 0;
	spin_bug(lock, "recursion", pc);
	return 1;
}

void lockup_watch_start(struct lockup_watch *w, u16 head, u64 now)
{
	w->head = head;
	w->since = now;
}

int lockup_watch_expired(struct lockup_watch *w, u16 head, u64 now, u64 budget)
{
	if (head != w->head) {
		lockup_watch_start(w, head, now);
		return 0;
	}
	return now - w->since > budget;
}

u64 spin_lockup_budget(spinlock_t *lock)
{
	unsigned int shift = __atomic_load_n(&lock->lockup_shift, __ATOMIC_RELAXED);

	if (!shift)
		shift = __atomic_load_n(&spin_lockup_shift, __ATOMIC_RELAXED);
	return 1ULL << shift;
}

/* Waits for the raw lock the way the production lock waits (a ticket, or
 * test-and-set with backoff: <tiny/spinlock_smp.h>), reporting a lockup once
 * if the lock makes no progress for its lockup budget meanwhile. */
static void spin_wait(spinlock_t *lock, void *pc)
{
	struct arch_spin_wait w;
	struct lockup_watch watch;
	int reported = 0;

	lockup_watch_start(&watch, arch_spin_head(&lock->raw), get_cycles());
	arch_spin_wait_begin(&lock->raw, &w);
	while (!arch_spin_wait_step(&lock->raw, &w)) {
		if (!reported && lockup_watch_expired(&watch, arch_spin_head(&lock->raw),
						      get_cycles(), spin_lockup_budget(lock))) {
			spin_bug(lock, "lockup suspected", pc);
			reported = 1;
		}
	}
}

void debug_spin_lock(spinlock_t *lock, void *pc)
{
	if (bad_magic(lock, pc) || recursion(lock, pc))
		return;
	if (!arch_spin_trylock(&lock->raw))
		spin_wait(lock, pc);
	set_owner(lock, pc);
}

/* Fails, unreported, on a lock this CPU holds: what a real lock does,
 * which the uniprocessor one cannot tell. */
int debug_spin_trylock(spinlock_t *lock, void *pc)
{
	if (bad_magic(lock, pc) || owner_cpu(lock) == (int)smp_processor_id())
		return 0;
	if (!arch_spin_trylock(&lock->raw))
		return 0;
	set_owner(lock, pc);
	return 1;
}

void debug_spin_unlock(spinlock_t *lock, void *pc)
{
	int owner;

	if (bad_magic(lock, pc))
		return;
	owner = owner_cpu(lock);
	if (owner == SPIN_NO_OWNER) {
		spin_bug(lock, "already unlocked", pc);
		return;
	}
	if (owner != (int)smp_processor_id()) {
		spin_bug(lock, "unlocked by the wrong CPU", pc);
		return;
	}
	__atomic_store_n(&lock->owner_cpu, SPIN_NO_OWNER, __ATOMIC_RELAXED);
	arch_spin_unlock(&lock->raw);
}

/* Reports (once per call) a lock that this CPU does not hold. */
void debug_spin_assert_held(spinlock_t *lock, void *pc)
{
	if (bad_magic(lock, pc) || owner_cpu(lock) == (int)smp_processor_id())
		return;
	spin_bug(lock, "not held", pc);
}

/* Reports (once per call) a lock that this CPU holds. */
void debug_spin_assert_not_held(spinlock_t *lock, void *pc)
{
	if (bad_magic(lock, pc) || owner_cpu(lock) != (int)smp_processor_id())
		return;
	spin_bug(lock, "held", pc);
}
