/* arch/spinlock.h (host) - the raw lock of the host build.
 *
 * With CONFIG_SMP the harness runs one thread per CPU (tests/host/smp.c)
 * and the lock is the kernel's own, <tiny/spinlock_smp.h>: this header
 * gives it only the spin-wait hint and the cycle counter.  cpu_relax() is
 * the x86 pause hint, and also the harness's polling point: a CPU
 * spinning with interrupts on takes the interrupts (ticks,
 * smp_call_function() requests) sent to it meanwhile, as a real CPU would.
 * The harness's CPUs are threads that the host deschedules at will, as a
 * hypervisor does virtual CPUs, so CPUs wait by test-and-set
 * (arch_spin_tas = 1, tests/host/smp.c), as the kernel does under a
 * hypervisor; tests and bench-smp --lock switch it.
 * Without CONFIG_SMP it is the empty uniprocessor lock.
 */
#ifndef ARCH_SPINLOCK_H
#define ARCH_SPINLOCK_H

#include <tiny/kconfig.h>
#include <tiny/types.h>

/* The lock is the kernel's own C (<tiny/spinlock_smp.h>): its lock-prefixed
 * instructions run on the host as in the kernel (scripts/kernel_cost.py). */
#define HOST_EXECUTED_INSNS_SPINLOCK	"lock cmpxchg"

/* Runs the interrupts pending on this thread's CPU if its interrupt flag
 * is on (tests/host/smp.c). */
void host_poll_irqs(void);

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
	host_poll_irqs();
}

#ifdef CONFIG_SMP
static inline u64 arch_spin_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

#include <tiny/spinlock_smp.h>

static inline void arch_spin_lock_setup(void) { }
#else
#include <tiny/spinlock_up.h>

static inline void arch_spin_lock_setup(void) { }
#endif

#endif /* ARCH_SPINLOCK_H */
