/* arch/smp.h (i386, CONFIG_SMP) - per-CPU identity and cross-CPU calls.
 *
 * Every CPU has a struct x86_cpu, its per-CPU area, and a GDT of its own
 * whose __KERNEL_PERCPU segment has that area as its base.  %fs holds
 * that selector for good (the trap entry saves and restores it but never
 * reloads it), so smp_processor_id() is one %fs-relative load.
 *
 * <tiny/smp.h> includes this with CONFIG_SMP and documents the contract
 * of smp_processor_id(), num_online_cpus(), cpu_online(),
 * smp_call_function() and smp_run_on_all_cpus(); they live in
 * arch/x86/kernel/smp.c and smpboot.c.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <tiny/types.h>
#include <tiny/compiler.h>

/* What a CPU is doing, as the console's "cpus" shows it. */
enum cpu_state {
	CPU_ABSENT,		/* no such CPU in the firmware tables */
	CPU_LISTED,		/* listed, not started (maxcpus=, or not yet) */
	CPU_BOOTING,		/* INIT-SIPI-SIPI sent, waiting for it */
	CPU_ONLINE,		/* running its idle loop, taking calls */
	CPU_FAILED,		/* did not answer in time: left out */
	/* BOOTING becomes ONLINE (by the AP) or FAILED (by the boot CPU) by
	 * a compare-and-swap: exactly one of the two claims it (smpboot.c). */
	CPU_STOPPED,		/* halted by panic() */
};

struct x86_cpu {
	struct x86_cpu *self;		/* %fs:0 */
	unsigned int cpu;		/* %fs:4: smp_processor_id() */
	unsigned int apic_id;
	volatile int state;		/* enum cpu_state */
	volatile unsigned long ticks;	/* local timer interrupts taken */
	int irq_depth;			/* in_interrupt() */
	unsigned long stack_lo, stack_hi; /* this CPU's kernel stack */
	unsigned int run_seen;		/* last smp_run_on_all_cpus() generation run */
	unsigned long calls;		/* smp_call_function() requests served */
	u64 online_tsc;			/* TSC when it came online (its own TSC) */
	int answered_late;		/* came up after the boot CPU claimed it failed */
	unsigned long tlb_flushes;	/* shootdowns done (paging.c) */
} __aligned(64);

extern struct x86_cpu x86_cpus[CONFIG_NR_CPUS];
extern unsigned int nr_online_cpus;

/* This CPU's number.  Not volatile: it never changes under a context. */
static inline unsigned int smp_processor_id(void)
{
	unsigned int id;

	__asm__("movl %%fs:%c1, %0" : "=r"(id) : "i"(__builtin_offsetof(struct x86_cpu, cpu)));
	return id;
}

static inline struct x86_cpu *this_cpu(void)
{
	struct x86_cpu *p;

	__asm__("movl %%fs:0, %0" : "=r"(p));
	return p;
}

static inline unsigned int num_online_cpus(void)
{
	return __atomic_load_n(&nr_online_cpus, __ATOMIC_RELAXED);
}

static inline int cpu_online(unsigned int cpu)
{
	return cpu < CONFIG_NR_CPUS && x86_cpus[cpu].state == CPU_ONLINE;
}

/* smp_call_function() once kernel/smp.c has checked the contract
 * (interrupts on, another CPU online): the IPIs and the waiting. */
int arch_smp_call_function(smp_call_func_t fn, void *info, int wait);
unsigned int smp_run_on_all_cpus(void (*fn)(void *), void *arg);

/* Boot-time bring-up, called by init/main.c and arch code (smpboot.c). */
/* Finds the CPUs in the firmware tables, maps and enables this CPU's local
 * APIC.  Boot CPU, interrupts off, after paging_init(). */
void smp_detect(void);
/* Starts every listed CPU (up to maxcpus= and NR_CPUS) and prints which
 * came online and how long it took.  Boot CPU, process context,
 * interrupts on, after the page allocator and the tick are up. */
void smp_boot_cpus(void);
/* The CPUs that should be online: those the firmware listed (up to
 * NR_CPUS), at most maxcpus=. */
unsigned int smp_expected_cpus(void);
/* See <tiny/smp.h>: the CPUs the firmware listed (up to NR_CPUS; maxcpus=
 * does not change it), known once smp_detect() has run. */
unsigned int num_possible_cpus(void);
/* See <tiny/smp.h> (kernel only, for panic() and <tiny/oops.h>). */
unsigned int smp_stop_other_cpus(unsigned long timeout_ms);
__noreturn void smp_stop_this_cpu(void);

#endif /* ARCH_SMP_H */
