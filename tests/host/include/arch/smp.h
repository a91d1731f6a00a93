/* arch/smp.h (host) - CPUs as threads (tests/host/smp.c).
 *
 * CPU 0 is the harness's main thread.  host_smp_start(n) brings CPUs
 * 1..n-1 online, one thread each, which then idle until work or an
 * interrupt comes; until it is called (the default) the harness has one
 * CPU and behaves exactly as a uniprocessor one.  The CPU number is a
 * thread-local variable, stable for the thread's life.  The calls keep
 * the contracts of <tiny/smp.h>; host details:
 *   smp_call_function() marks the call pending on each other CPU and sends
 *     that thread a signal: it runs the call as an interrupt at once if its
 *     interrupt flag is on, else at its next local_irq_enable()/restore(),
 *     cpu_relax() or idle wake-up.  Every call returns only once every CPU
 *     has taken the call (with wait: finished it), so its data may live on
 *     the caller's stack.
 *   smp_run_on_all_cpus() must be called from CPU 0 (the main thread,
 *     where the suites run): the idle threads take the work from there.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

extern __thread unsigned int host_cpu_id;
extern unsigned int host_nr_online, host_nr_possible;

static inline unsigned int smp_processor_id(void)
{
	return host_cpu_id;
}

static inline unsigned int num_online_cpus(void)
{
	return __atomic_load_n(&host_nr_online, __ATOMIC_ACQUIRE);
}

/* As many as the harness said before it started the allocators
 * (host_smp_possible()), as a kernel's firmware does before
 * kmem_cache_init(). */
static inline unsigned int num_possible_cpus(void)
{
	return host_nr_possible;
}

/* CPUs come online in order and never go away: 0..num_online_cpus()-1. */
static inline int cpu_online(unsigned int cpu)
{
	return cpu < num_online_cpus();
}

/* smp_call_function() once kernel/smp.c has checked the contract
 * (interrupts on, another CPU online): the IPIs and the waiting. */
int arch_smp_call_function(smp_call_func_t fn, void *info, int wait);
unsigned int smp_run_on_all_cpus(smp_call_func_t fn, void *arg);

#endif /* ARCH_SMP_H */
