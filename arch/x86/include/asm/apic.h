/* asm/apic.h (i386, CONFIG_SMP) - the local APIC: registers, vectors, calls.
 *
 * Each CPU's local APIC sits at the same physical address (0xfee00000
 * unless the firmware says otherwise) and shows that CPU its own
 * registers.  apic.c drives it; smpboot.c and smp.c use it for the
 * start-up IPIs, the per-CPU tick and cross-CPU calls.
 */
#ifndef ASM_APIC_H
#define ASM_APIC_H

#ifndef __ASSEMBLER__
#include <tiny/types.h>
#endif

#define APIC_DEFAULT_BASE	0xfee00000UL

#define APIC_ID		0x020	/* bits 24-31 */
#define APIC_TPR	0x080
#define APIC_EOI	0x0b0
#define APIC_SVR	0x0f0
#define APIC_ESR	0x280
#define APIC_ICR_LOW	0x300
#define APIC_ICR_HIGH	0x310	/* destination in bits 24-31 */
#define APIC_LVT_TIMER	0x320
#define APIC_LVT_LINT0	0x350
#define APIC_LVT_ERROR	0x370
#define APIC_TIMER_INIT	0x380
#define APIC_TIMER_CUR	0x390
#define APIC_TIMER_DIV	0x3e0

#define APIC_SVR_ENABLE		0x100
#define APIC_LVT_MASKED		0x10000
#define APIC_TIMER_PERIODIC	0x20000
#define APIC_TIMER_DIV_16	0x3

/* Interrupt command register (low word) */
#define ICR_FIXED		0x00000
#define ICR_NMI			0x00400
#define ICR_INIT		0x00500
#define ICR_STARTUP		0x00600
#define ICR_PENDING		0x01000	/* delivery status: not yet accepted */
#define ICR_ASSERT		0x04000
#define ICR_LEVEL		0x08000

/* The vectors the local APIC delivers (the stubs in entry.S cover
 * APIC_FIRST_VECTOR..255; class 15, above every 8259 interrupt). */
#define APIC_FIRST_VECTOR	0xf0
#define LOCAL_TIMER_VECTOR	0xf0
#define CALL_FUNCTION_VECTOR	0xf1
#define WAKEUP_VECTOR		0xf2
#define SPURIOUS_VECTOR		0xff
#define NR_APIC_VECTORS		(256 - APIC_FIRST_VECTOR)

#ifndef __ASSEMBLER__
extern unsigned long apic_phys_base;	/* from the firmware tables, or the MSR */
extern int apic_usable;			/* the boot CPU's local APIC is enabled */

u32 apic_read(u32 reg);
void apic_write(u32 reg, u32 value);
/* This CPU's APIC id, from the APIC itself. */
unsigned int apic_read_id(void);
/* Enables this CPU's local APIC (spurious vector, TPR 0, LVTs set for a
 * boot CPU in virtual-wire mode or for an AP).  Interrupts off. */
void apic_enable_this_cpu(int boot_cpu);
/* Sends an IPI (icr: delivery mode and flags, vector) to the APIC id; returns
 * 0 once the APIC accepted it, -1 if it stayed pending for 100 ms. */
int apic_send_ipi(unsigned int apic_id, u32 icr);
/* Measures the TSC and local APIC timer rates against the 8254 PIT (its
 * channel 2, for 50 ms).  Boot CPU, once. */
void apic_calibrate(void);
/* Starts this CPU's periodic local timer at HZ.  Interrupts off. */
void apic_timer_start(void);
/* Busy-waits (TSC; before calibration, a generous guess). */
void udelay(unsigned long usecs);
void mdelay(unsigned long msecs);
extern unsigned long tsc_khz;
/* The APIC interrupt dispatcher (entry.S -> do_trap). */
struct pt_regs;
void do_apic_interrupt(struct pt_regs *regs);
#endif /* __ASSEMBLER__ */

#endif /* ASM_APIC_H */
