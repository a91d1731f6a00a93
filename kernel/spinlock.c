/* spinlock.c - CONFIG_DEBUG_SPINLOCK: catching lock misuse.
 *
 * On one CPU a lock taken twice would deadlock an SMP kernel and silently
 * "work" here; releasing a lock nobody holds means the caller's idea of
 * the lock state is wrong.  Both are reported with the lock's name, where
 * it was taken and where the bad call came from.
 */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/spinlock.h>

unsigned long spin_bug_count;

static void spin_bug(spinlock_t *lock, const char *msg, void *pc)
{
	spin_bug_count++;
	ktest_count_report();
	printk(KERN_ERR "BUG: spinlock %s: lock %s (%p), caller %p, last taken by %p\n",
	       msg, lock->name ? lock->name : "?", (void *)lock, pc, lock->owner_pc);
}

void debug_spin_lock_init(spinlock_t *lock, const char *name)
{
	lock->magic = SPINLOCK_MAGIC;
	lock->locked = 0;
	lock->name = name;
	lock->owner_pc = NULL;
}

void debug_spin_lock(spinlock_t *lock, void *pc)
{
	if (lock->magic != SPINLOCK_MAGIC)
		spin_bug(lock, "bad magic (not initialised, or overwritten)", pc);
	else if (lock->locked)
		spin_bug(lock, "recursion", pc);
	lock->locked = 1;
	lock->owner_pc = pc;
}

void debug_spin_unlock(spinlock_t *lock, void *pc)
{
	if (lock->magic != SPINLOCK_MAGIC)
		spin_bug(lock, "bad magic (not initialised, or overwritten)", pc);
	else if (!lock->locked)
		spin_bug(lock, "already unlocked", pc);
	lock->locked = 0;
}
