/* apic.c - the local APIC: enabling it, IPIs, the per-CPU timer tick.
 *
 * The boot CPU stays in "virtual wire" mode: the 8259's interrupts still
 * reach it through LINT0 as the firmware set it up, so the serial line
 * works as on a uniprocessor.  The 8254 PIT serves once, to calibrate the
 * TSC and the APIC timer (channel 2, which has no interrupt, for 50 ms);
 * after that every CPU ticks HZ times a second from its own APIC timer,
 * and the PIT's IRQ 0 stays masked.
 */
#include <tiny/kernel.h>
#include <tiny/smp.h>
#include <tiny/timer.h>
#include <asm/apic.h>
#include <asm/smpboot.h>
#include <asm/desc.h>
#include <asm/io.h>
#include <asm/processor.h>

#define MSR_APIC_BASE		0x1b
#define MSR_APIC_BASE_ENABLE	0x800

#define PIT_FREQ		1193182UL
#define PIT_CH2			0x42
#define PIT_MODE		0x43
#define PIT_CH2_ONESHOT		0xb0	/* channel 2, lobyte/hibyte, mode 0 */
#define PORT_B			0x61	/* bit 0: channel 2 gate, bit 5: its output */
#define CALIBRATE_MS		50

unsigned long apic_phys_base = APIC_DEFAULT_BASE;
int apic_usable;
static unsigned long apic_timer_per_tick;	/* APIC timer counts (divide by 16) per jiffy */

static volatile u32 *apic_reg(u32 reg)
{
	return (volatile u32 *)(uintptr_t)(apic_phys_base + reg);
}

u32 apic_read(u32 reg)
{
	return *apic_reg(reg);
}

void apic_write(u32 reg, u32 value)
{
	*apic_reg(reg) = value;
}

unsigned int apic_read_id(void)
{
	return apic_read(APIC_ID) >> 24;
}

static void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

void apic_enable_this_cpu(int boot_cpu)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | MSR_APIC_BASE_ENABLE);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	apic_write(APIC_LVT_ERROR, APIC_LVT_MASKED | SPURIOUS_VECTOR);
	if (!boot_cpu)		/* the 8259 is wired to the boot CPU only */
		apic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_EOI, 0);
}

int apic_send_ipi(unsigned int apic_id, u32 icr)
{
	unsigned long flags;
	unsigned long spins;

	local_irq_save(flags);
	apic_write(APIC_ICR_HIGH, apic_id << 24);
	apic_write(APIC_ICR_LOW, icr);
	for (spins = 0; apic_read(APIC_ICR_LOW) & ICR_PENDING; spins++) {
		if (spins > 1000) {
			udelay(100);
			if (spins > 2000) {
				local_irq_restore(flags);
				return -1;
			}
		}
		cpu_relax();
	}
	local_irq_restore(flags);
	return 0;
}

/* Spins until the TSC has moved on by usecs. */
static void delay_us(u64 usecs)
{
	u64 khz = tsc_khz ? tsc_khz : 4000000;	/* uncalibrated: assume a fast CPU */
	u64 end = rdtsc() + usecs * khz / 1000;

	while (rdtsc() < end)
		cpu_relax();
}

void udelay(unsigned long usecs)
{
	delay_us(usecs);
}

/* One deadline for the whole delay: a virtual CPU descheduled now and
 * then (TCG on a busy host) must not add a time slice per millisecond. */
void mdelay(unsigned long msecs)
{
	delay_us((u64)msecs * 1000);
}

/* Counts PIT channel 2 down from CALIBRATE_MS worth of its clock and
 * returns how far the TSC and the APIC timer moved meanwhile. */
static void measure_against_pit(u64 *tsc, u32 *apic)
{
	unsigned long count = PIT_FREQ * CALIBRATE_MS / 1000;
	u64 t0;
	u32 a0;

	outb((inb(PORT_B) & ~0x02) | 0x01, PORT_B);	/* gate on, speaker off */
	outb(PIT_CH2_ONESHOT, PIT_MODE);
	outb(count & 0xff, PIT_CH2);
	outb((count >> 8) & 0xff, PIT_CH2);	/* mode 0: counting starts now */
	t0 = rdtsc();
	a0 = apic_read(APIC_TIMER_CUR);
	while (!(inb(PORT_B) & 0x20))
		;
	*tsc = rdtsc() - t0;
	*apic = a0 - apic_read(APIC_TIMER_CUR);
}

void apic_calibrate(void)
{
	u64 tsc;
	u32 apic;

	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, 0xffffffffU);
	measure_against_pit(&tsc, &apic);
	apic_write(APIC_TIMER_INIT, 0);
	tsc_khz = (unsigned long)(tsc / CALIBRATE_MS);
	apic_timer_per_tick = (unsigned long)((u64)apic * 1000 / CALIBRATE_MS / HZ);
	if (!apic_timer_per_tick)
		apic_timer_per_tick = 1;
	pr_info("apic: TSC %lu.%03lu MHz, APIC timer %lu counts per tick at HZ=%d (against the PIT)\n",
		tsc_khz / 1000, tsc_khz % 1000, apic_timer_per_tick, HZ);
}

void apic_timer_start(void)
{
	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, (u32)apic_timer_per_tick);
}

static void local_timer_interrupt(void)
{
	this_cpu()->ticks++;
	timer_tick();
}

void do_apic_interrupt(struct pt_regs *regs)
{
	u32 v = regs->vector;

	if (v == SPURIOUS_VECTOR)
		return;		/* no EOI for a spurious interrupt */
	irq_enter();
	apic_write(APIC_EOI, 0);	/* before the handler: the timer may be slow */
	if (v == LOCAL_TIMER_VECTOR)
		local_timer_interrupt();
	else if (v == CALL_FUNCTION_VECTOR)
		smp_call_function_interrupt();
	/* WAKEUP_VECTOR: waking the CPU from hlt was all it had to do */
	irq_exit();
}
