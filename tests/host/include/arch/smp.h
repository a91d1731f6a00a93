/* arch/smp.h (host) - TRANSITIONAL: one CPU until the SMP bring-up lands. */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

static inline unsigned int smp_processor_id(void) { return 0; }
static inline unsigned int num_online_cpus(void) { return 1; }
static inline int cpu_online(unsigned int cpu) { return cpu == 0; }
static inline int smp_call_function(void (*fn)(void *), void *info, int wait)
{
	(void)fn; (void)info; (void)wait;
	return 0;
}
static inline unsigned int smp_run_on_all_cpus(void (*fn)(void *), void *arg)
{
	fn(arg);
	return 1;
}

#endif /* ARCH_SMP_H */
