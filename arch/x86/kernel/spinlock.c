/* spinlock.c - how CPUs wait for a held lock on x86: ticket or test-and-set.
 *
 * <tiny/spinlock_smp.h> describes the two ways (and kernel/spinlock_wait.c
 * has the waits that are not inline).  The boot CPU chooses before
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
