/* irq.c - the two 8259 interrupt controllers and IRQ dispatch.
 *
 * The PICs are remapped so that IRQ 0-15 arrive on vectors 32-47, away
 * from the CPU exceptions.  Handlers run with interrupts disabled (the IDT
 * uses interrupt gates) and are told nothing but the saved frame.
 */
#include <tiny/kernel.h>
#include <tiny/smp.h>
#include <asm/desc.h>
#include <asm/io.h>

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define PIC_EOI		0x20
#define PIC_READ_ISR	0x0b
#define ICW1_INIT_ICW4	0x11	/* edge triggered, cascade, ICW4 follows */
#define ICW4_8086	0x01

static void (*irq_handlers[NR_IRQS])(struct pt_regs *regs);
#ifdef CONFIG_SMP
#define irq_depth	(this_cpu()->irq_depth)	/* each CPU's own */

/* Brackets an interrupt handler for in_interrupt() (the APIC's too). */
void irq_enter(void)
{
	irq_depth++;
}

void irq_exit(void)
{
	irq_depth--;
}
#else
static int irq_depth;
#define irq_enter()	(irq_depth++)
#define irq_exit()	(irq_depth--)
#endif

int in_interrupt(void)
{
	return irq_depth;
}

/* Reprograms both PICs (ICW1-4) for vectors 32-47, everything masked but the cascade. */
void irq_init(void)
{
	outb(ICW1_INIT_ICW4, PIC1_CMD);
	io_delay();
	outb(ICW1_INIT_ICW4, PIC2_CMD);
	io_delay();
	outb(FIRST_IRQ_VECTOR, PIC1_DATA);	/* ICW2: vector base */
	io_delay();
	outb(FIRST_IRQ_VECTOR + 8, PIC2_DATA);
	io_delay();
	outb(1 << 2, PIC1_DATA);		/* ICW3: slave on IRQ 2 */
	io_delay();
	outb(2, PIC2_DATA);			/* ICW3: slave identity */
	io_delay();
	outb(ICW4_8086, PIC1_DATA);
	io_delay();
	outb(ICW4_8086, PIC2_DATA);
	io_delay();
	outb(0xff & ~(1 << 2), PIC1_DATA);	/* mask all but the cascade */
	outb(0xff, PIC2_DATA);
}

static void unmask_irq(unsigned int irq)
{
	u16 port = irq < 8 ? PIC1_DATA : PIC2_DATA;

	outb(inb(port) & ~(1 << (irq & 7)), port);
}

void request_irq(unsigned int irq, void (*handler)(struct pt_regs *regs))
{
	BUG_ON(irq >= NR_IRQS);
	irq_handlers[irq] = handler;
	unmask_irq(irq);
}

/* IRQ 7 and 15 also arrive when a request vanished before it was
 * acknowledged; the in-service register tells a real one from a spurious one. */
static int spurious(unsigned int irq)
{
	u16 cmd = irq == 7 ? PIC1_CMD : PIC2_CMD;

	if (irq != 7 && irq != 15)
		return 0;
	outb(PIC_READ_ISR, cmd);
	if (inb(cmd) & 0x80)
		return 0;
	if (irq == 15)
		outb(PIC_EOI, PIC1_CMD);	/* the master did see the cascade */
	return 1;
}

void do_irq(struct pt_regs *regs)
{
	unsigned int irq = regs->vector - FIRST_IRQ_VECTOR;

	if (spurious(irq))
		return;
	irq_enter();
	if (irq_handlers[irq])
		irq_handlers[irq](regs);
	irq_exit();
	if (irq >= 8)
		outb(PIC_EOI, PIC2_CMD);
	outb(PIC_EOI, PIC1_CMD);
}
