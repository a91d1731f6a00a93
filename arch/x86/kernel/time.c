/* time.c - the 8254 PIT as the periodic tick at CONFIG_HZ. */
#include <tiny/kernel.h>
#include <tiny/timer.h>
#include <tiny/arch.h>
#include <asm/desc.h>
#include <asm/io.h>
#ifdef CONFIG_SMP
#include <tiny/smp.h>
#include <asm/apic.h>
#endif

/* The TSC's rate (<arch/timex.h>): calibrated against the PIT with the
 * local APIC timer (apic.c); 0 on a uniprocessor kernel, which never
 * calibrates it (printk's console wait then assumes a fast CPU). */
unsigned long tsc_khz;

#define PIT_FREQ	1193182UL	/* input clock, Hz */
#define PIT_CH0		0x40
#define PIT_MODE	0x43
#define PIT_CH0_RATE	0x34	/* channel 0, lobyte/hibyte, mode 2 (rate generator) */

/* The TSC's rate (<arch/timex.h>): set by the local APIC's calibration
 * (apic.c, SMP); 0 on a uniprocessor kernel, whose users then assume one. */
unsigned long tsc_khz;

static void timer_interrupt(struct pt_regs *regs)
{
	(void)regs;
#ifdef CONFIG_SMP
	x86_cpus[0].ticks++;
#endif
	timer_tick();
}

/* Programs channel 0 to interrupt HZ times a second and installs the handler. */
static void pit_time_init(void)
{
	unsigned long divisor = (PIT_FREQ + HZ / 2) / HZ;

	BUILD_BUG_ON(CONFIG_HZ < 19 || CONFIG_HZ > 10000);
	outb(PIT_CH0_RATE, PIT_MODE);
	outb(divisor & 0xff, PIT_CH0);
	outb((divisor >> 8) & 0xff, PIT_CH0);
	request_irq(0, timer_interrupt);
	printk(KERN_INFO "time: 8254 PIT at %d Hz (divisor %lu)\n", HZ, divisor);
}

/* SMP: every CPU ticks from its local APIC timer, calibrated here once
 * against the PIT; without a usable APIC, the PIT as on a uniprocessor. */
void arch_time_init(void)
{
#ifdef CONFIG_SMP
	if (apic_usable) {
		apic_calibrate();
		apic_timer_start();
		printk(KERN_INFO "time: local APIC timer at %d Hz on every CPU (PIT not used)\n", HZ);
		return;
	}
#endif
	pit_time_init();
}

#ifdef CONFIG_SMP
static const char *const cpu_state_names[] = {
	[CPU_ABSENT] = "absent", [CPU_LISTED] = "not started", [CPU_BOOTING] = "booting",
	[CPU_ONLINE] = "online", [CPU_FAILED] = "failed to start", [CPU_STOPPED] = "stopped",
};

void arch_show_cpus(void)
{
	unsigned int cpu;

	printk("CPU  APIC  state            ticks     calls\n");
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct x86_cpu *c = &x86_cpus[cpu];

		if (c->state == CPU_ABSENT)
			continue;
		printk("%3u  %4u  %-15s %6lu %9lu%s\n", cpu, c->apic_id, cpu_state_names[c->state],
		       c->ticks, c->calls, cpu == smp_processor_id() ? "  (this CPU)" : "");
	}
	printk("%u of %d CPUs online, tick: %s\n", num_online_cpus(), NR_CPUS,
	       apic_usable ? "local APIC timer" : "8254 PIT");
}
#else
void arch_show_cpus(void)
{
	printk("CPU  APIC  state            ticks\n");
	printk("%3u  %4s  %-15s %6lu  (this CPU)\n", 0u, "-", "online", jiffies);
	printk("uniprocessor kernel (CONFIG_SMP=n), tick: 8254 PIT\n");
}
#endif
