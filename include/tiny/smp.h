/* smp.h - which CPU we are on, which CPUs are up, and running a function
 * on the others.
 *
 * This is the one SMP interface mm/ and kernel/ use.  With CONFIG_SMP the
 * calls come from <arch/smp.h>: the i386 kernel's (local APIC, IPIs) or the
 * host harness's (one thread per CPU).  Without it they are the
 * uniprocessor ones below: CPU 0, always alone.
 *
 * Contracts (both implementations keep them):
 *   smp_processor_id()  this CPU's number, 0..NR_CPUS-1.  Stable: nothing
 *                       migrates a running context to another CPU.
 *   num_online_cpus()   CPUs started and taking calls (at least 1).  A
 *                       count, never a bound: the online CPUs' numbers
 *                       may have holes (a CPU that failed to start), so
 *                       loops over CPUs use for_each_online_cpu().
 *   cpu_online(cpu)     nonzero if that CPU is up.
 *   num_possible_cpus() CPUs this machine may bring online: those its
 *                       firmware lists, at most NR_CPUS, at least 1
 *                       (Linux's nr_cpu_ids).  Known before
 *                       kmem_cache_init() and fixed from then on: SLUB
 *                       sizes its slabs by it.
 *   for_each_online_cpu(cpu)
 *                       loops over the online CPUs' numbers, rising.
 *   smp_call_function(fn, info, wait)
 *                       runs fn(info) on every other online CPU, in
 *                       interrupt context with interrupts off; with wait,
 *                       returns once all have returned.  Returns 0.
 *                       Call it from process context with interrupts
 *                       enabled: with interrupts off (where two CPUs
 *                       calling each other would wait for ever) it runs
 *                       fn nowhere, warns (one report) and returns -1,
 *                       however many CPUs are online, with or without
 *                       CONFIG_SMP.
 *   on_each_cpu(fn, info, wait)
 *                       the same, and fn(info) here too, interrupts off
 *                       (with interrupts off: here only, and -1).
 *   smp_run_on_all_cpus(fn, arg)
 *                       runs fn(arg) in process context, interrupts
 *                       enabled, on every online CPU at once (this one
 *                       included) and returns when all have returned: the
 *                       smp self-tests and the scaling benchmark.
 *                       Returns the number of CPUs that ran it.
 *
 * Kernel only (panic() and <tiny/oops.h>):
 *   smp_stop_other_cpus(timeout_ms)
 *                       stops every other online CPU for good (even one
 *                       spinning with interrupts off) and waits until
 *                       they are stopped, at most timeout_ms; returns how
 *                       many are still running.  Any context.
 *   smp_stop_this_cpu() marks this CPU stopped and halts it for good.
 */
#ifndef TINY_SMP_H
#define TINY_SMP_H

#include <tiny/kconfig.h>
#include <tiny/compiler.h>
#include <tiny/irqflags.h>
#include <tiny/bug.h>

#define NR_CPUS		CONFIG_NR_CPUS

typedef void (*smp_call_func_t)(void *info);

#ifdef CONFIG_SMP
#include <arch/smp.h>

/* kernel/smp.c: refuses with interrupts off, then arch_smp_call_function(). */
int smp_call_function(smp_call_func_t fn, void *info, int wait);
/* kernel/smp.c: numbers the CPUs of a run of smp_run_on_all_cpus() on ncpus
 * of them: slot[calling CPU] = 0, the next ncpus - 1 online CPUs by number
 * (holes skipped) 1, 2, ..., every other slot[] -1.  0, or -1 if fewer
 * than ncpus are online. */
int smp_assign_slots(int slot[NR_CPUS], unsigned int ncpus);
#else
static inline unsigned int smp_processor_id(void)
{
	return 0;
}

static inline unsigned int num_online_cpus(void)
{
	return 1;
}

static inline int cpu_online(unsigned int cpu)
{
	return cpu == 0;
}

static inline unsigned int num_possible_cpus(void)
{
	return 1;
}

static inline int smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	(void)fn;
	(void)info;
	(void)wait;
	return WARN_ON(irqs_disabled()) ? -1 : 0;
}

static inline unsigned int smp_run_on_all_cpus(smp_call_func_t fn, void *arg)
{
	fn(arg);
	return 1;
}

static inline unsigned int smp_stop_other_cpus(unsigned long timeout_ms)
{
	(void)timeout_ms;
	return 0;
}

__noreturn void arch_halt(void);	/* <tiny/arch.h> */

static inline __noreturn void smp_stop_this_cpu(void)
{
	arch_halt();
}
#endif

/* smp_call_function(), then fn(info) on this CPU with interrupts off. */
static inline int on_each_cpu(smp_call_func_t fn, void *info, int wait)
{
	unsigned long flags;
	int r = smp_call_function(fn, info, wait);

	local_irq_save(flags);
	fn(info);
	local_irq_restore(flags);
	return r;
}

#define for_each_online_cpu(cpu) \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++) if (!cpu_online(cpu)) {} else

#endif /* TINY_SMP_H */
