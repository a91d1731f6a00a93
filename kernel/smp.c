/* smp.c - the part of <tiny/smp.h>'s contract every arch shares, written
 * once: smp_call_function() refuses to run with interrupts off (two CPUs
 * calling each other so would wait for each other for ever), warning, and
 * has nothing to do with one CPU online; the rest, the IPIs and the
 * waiting, is the arch's arch_smp_call_function() (<arch/smp.h>); and
 * smp_assign_slots(), which numbers the CPUs of a run on several of them
 * (kmem_stress.c, slab_test_smp.c).  Built with CONFIG_SMP, in the kernel
 * and in the host build.
 */
#include <tiny/kernel.h>
#include <tiny/smp.h>

int smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	if (WARN_ON(irqs_disabled()))
		return -1;
	if (num_online_cpus() == 1)
		return 0;
	return arch_smp_call_function(fn, info, wait);
}

int smp_assign_slots(int slot[NR_CPUS], unsigned int ncpus)
{
	unsigned int cpu, caller = smp_processor_id(), n = 1;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		slot[cpu] = -1;
	slot[caller] = 0;
	for_each_online_cpu(cpu)
		if (cpu != caller && n < ncpus)
			slot[cpu] = (int)n++;
	return n == ncpus ? 0 : -1;
}
