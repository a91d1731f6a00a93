/* spinlock.c - how CPUs wait for a held lock: ticket or test-and-set.
 *
 * <arch/spinlock.h> describes the two ways.  The boot CPU chooses before
 * any other CPU starts: test-and-set with backoff when CPUID leaf 1 sets
 * ECX bit 31 (a hypervisor runs us, so a virtual CPU next in line may not
 * be running), else the fair ticket lock.  "spinlock=ticket|tas" on the
 * command line overrides the choice.
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/string.h>
#include <tiny/spinlock.h>

#define CPUID_1_ECX_HYPERVISOR	(1u << 31)

int arch_spin_tas;
unsigned int arch_spin_patience_shift = 28;

static void set_tas(int on, const char *why)
{
	__atomic_store_n(&arch_spin_tas, on, __ATOMIC_RELAXED);
	pr_info("spinlock: %s (%s)\n", on ? "test-and-set with backoff" : "ticket", why);
}

void arch_spin_lock_setup(void)
{
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (c & CPUID_1_ECX_HYPERVISOR)
		set_tas(1, "CPUID: under a hypervisor");
	else
		set_tas(0, "CPUID: no hypervisor");
}

static int spinlock_setup(const char *val)
{
	if (!strcmp(val, "ticket"))
		set_tas(0, "spinlock=ticket");
	else if (!strcmp(val, "tas"))
		set_tas(1, "spinlock=tas");
	else
		return PARSE_BAD;
	return 0;
}
kernel_param("spinlock", spinlock_setup,
	     "=ticket|tas: how CPUs wait for a lock (default: tas under a hypervisor, else ticket)");

/* Nonzero if a test-and-set waiter has been starved long enough to queue:
 * the lock changed hands SPIN_TAS_PATIENCE times since its first failed
 * try, and 2^arch_spin_patience_shift cycles passed. */
static int starved(struct arch_spin_wait *w, u16 head)
{
	return (u16)(head - w->head) >= SPIN_TAS_PATIENCE &&
	       (rdtsc() - w->since) >> __atomic_load_n(&arch_spin_patience_shift,
							__ATOMIC_RELAXED);
}

/* One try; on failure waits w->backoff pauses and doubles it (up to
 * SPIN_BACKOFF_MAX), or, once starved(), takes a ticket (the wait goes on
 * by ticket).  1 if the lock is now this CPU's. */
int arch_spin_tas_step(arch_spinlock_t *lock, struct arch_spin_wait *w)
{
	u16 head = (u16)lock->slock;
	unsigned int i;

	if (arch_spin_trylock(lock))
		return 1;
	if (w->backoff == 1) {
		w->head = head;
		w->since = rdtsc();
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
