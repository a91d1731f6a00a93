/* arch/spinlock.h (i386) - the raw lock under <tiny/spinlock.h>.
 *
 * SMP: the lock of <tiny/spinlock_smp.h>, written once for every arch;
 * x86 gives it the spin-wait hint ("pause", cpu_relax()) and the cycle
 * counter (the TSC), and chooses at boot how CPUs wait
 * (arch_spin_lock_setup(), arch/x86/kernel/spinlock.c): by test-and-set
 * under a hypervisor, else by ticket.
 *
 * Uniprocessor (SMP=n): the empty lock of <tiny/spinlock_up.h>, so a UP
 * kernel is exactly as small as before.
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/kconfig.h>
#include <asm/processor.h>	/* cpu_relax(), rdtsc() */

#ifdef CONFIG_SMP
static inline u64 arch_spin_cycles(void)
{
	return rdtsc();
}

#include <tiny/spinlock_smp.h>

/* Chooses how CPUs wait: test-and-set if CPUID says a hypervisor runs
 * this kernel (leaf 1, ECX bit 31), else ticket. */
void arch_spin_lock_setup(void);
#else
#include <tiny/spinlock_up.h>

static inline void arch_spin_lock_setup(void) { }
#endif

#endif /* ARCH_SPINLOCK_H */
