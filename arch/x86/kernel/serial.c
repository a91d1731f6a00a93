/* serial.c - the 16550 UART on COM1 as the system console (115200 8N1).
 *
 * Output polls the transmitter.  Input is interrupt-driven (IRQ 4): the
 * handler puts every received byte in the console's input ring
 * (console_input).  When that ring is full the handler stops taking
 * bytes and masks the receive interrupt, so that the UART holds them back
 * (QEMU then stops feeding it; a real line without flow control overruns
 * the UART's FIFO, which the line status register reports and the console
 * is told of).  serial_poll() does the handler's work on demand: with
 * interrupts off, and to let input in again once the console has read.
 */
#include <tiny/kernel.h>
#include <tiny/console.h>
#include <tiny/irqflags.h>
#include <asm/desc.h>
#include <asm/io.h>

#define COM1		0x3f8
#define UART_RBR	0	/* receive buffer (read) */
#define UART_THR	0	/* transmit holding (write) */
#define UART_DLL	0	/* divisor latch low (DLAB=1) */
#define UART_IER	1	/* interrupt enable */
#define UART_DLM	1	/* divisor latch high (DLAB=1) */
#define UART_FCR	2	/* FIFO control */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */
#define LSR_DATA_READY	0x01
#define LSR_OVERRUN	0x02	/* a byte arrived with the FIFO full; cleared by reading LSR */
#define LSR_THR_EMPTY	0x20
#define LSR_TX_EMPTY	0x40	/* the holding and shift registers both empty */
#define LCR_DLAB	0x80
#define LCR_8N1		0x03
#define MCR_DTR_RTS_OUT2 0x0b	/* OUT2 gates the UART's interrupt line */
#define MCR_LOOP	0x10	/* loopback: what is sent is received, nothing goes out */
#define IER_RX		0x01
#define FCR_ENABLE_CLEAR 0xc7	/* enable and clear both FIFOs, 14-byte trigger */

static int rx_irq_enabled;	/* set up by serial_enable_rx_irq() */
static int rx_throttled;	/* the ring was full: the receive interrupt is masked */
static int overrun_seen;	/* LSR said overrun: report it after the FIFO's bytes */

void serial_init(void)
{
	outb(0x00, COM1 + UART_IER);
	outb(LCR_DLAB, COM1 + UART_LCR);
	outb(1, COM1 + UART_DLL);		/* 115200 / 1 */
	outb(0, COM1 + UART_DLM);
	outb(LCR_8N1, COM1 + UART_LCR);
	outb(FCR_ENABLE_CLEAR, COM1 + UART_FCR);
	outb(MCR_DTR_RTS_OUT2, COM1 + UART_MCR);
}

/* Reads the line status.  Reading clears the overrun bit, so every read
 * keeps it for serial_drain(), whoever reads. */
static u8 read_lsr(void)
{
	u8 lsr = inb(COM1 + UART_LSR);

	if (lsr & LSR_OVERRUN)
		overrun_seen = 1;
	return lsr;
}

/* Waits (boundedly: no UART may answer) for the line status bit. */
static void wait_lsr(u8 bit)
{
	int spins = 100000;

	while (!(read_lsr() & bit) && --spins)
		;
}

void serial_putc(char c)
{
	wait_lsr(LSR_THR_EMPTY);
	outb((u8)c, COM1 + UART_THR);
}

/*
 * Moves received bytes into ring r until the UART has none or r is full
 * (then, unless drop_when_full, the rest stays in the UART).  An overrun
 * is put after the bytes the FIFO held when it happened: those came
 * before the lost ones.  Returns 1 if bytes were left behind for want of
 * room.  Interrupts off.
 */
static int serial_drain(struct input_ring *r, int drop_when_full)
{
	for (;;) {
		if (!(read_lsr() & LSR_DATA_READY))
			break;
		if (!drop_when_full && input_ring_full(r))
			return 1;
		input_ring_put(r, inb(COM1 + UART_RBR));
	}
	if (overrun_seen) {
		overrun_seen = 0;
		input_ring_overrun(r);
	}
	return 0;
}

/* Masks or unmasks the receive interrupt to match whether the ring has room. */
static void serial_throttle(int full)
{
	rx_throttled = full;
	if (rx_irq_enabled)
		outb(full ? 0 : IER_RX, COM1 + UART_IER);
}

static void serial_interrupt(struct pt_regs *regs)
{
	(void)regs;
	if (serial_drain(&console_input, 0))
		serial_throttle(1);
}

void serial_enable_rx_irq(void)
{
	request_irq(4, serial_interrupt);
	rx_irq_enabled = 1;
	outb(IER_RX, COM1 + UART_IER);
}

void serial_poll(int drop_when_full)
{
	unsigned long flags;
	int full;

	local_irq_save(flags);
	full = serial_drain(&console_input, drop_when_full);
	if (full != rx_throttled)
		serial_throttle(full);
	local_irq_restore(flags);
}

/*
 * Reads the line status a while longer (as long as wait_lsr() may spin)
 * and throws away what the receiver still shows.  In loopback nothing can
 * come from the line, so it is a late echo or an emulator's phantom: Bochs
 * raises data-ready when its FIFO timeout fires even if the FIFO was
 * emptied before, and RBR then repeats the last byte, which the console
 * would take as typed once loopback is off.
 */
static void discard_late_input(void)
{
	int spins = 100000;

	while (--spins)
		if (read_lsr() & LSR_DATA_READY)
			inb(COM1 + UART_RBR);
}

int serial_loopback(struct input_ring *r, const char *s, size_t n)
{
	u8 ier = inb(COM1 + UART_IER), mcr = inb(COM1 + UART_MCR);
	int saw_overrun;

	outb(0, COM1 + UART_IER);
	serial_drain(&console_input, 0);	/* real input stays the console's */
	wait_lsr(LSR_TX_EMPTY);		/* the console's output goes out first */
	outb(mcr | MCR_LOOP, COM1 + UART_MCR);
	if (!(inb(COM1 + UART_MCR) & MCR_LOOP)) {
		outb(ier, COM1 + UART_IER);
		return -1;
	}
	saw_overrun = overrun_seen;
	overrun_seen = 0;
	while (n--)
		serial_putc(*s++);
	wait_lsr(LSR_TX_EMPTY);
	serial_drain(r, 1);
	discard_late_input();
	outb(mcr, COM1 + UART_MCR);
	overrun_seen = saw_overrun;
	outb(ier, COM1 + UART_IER);
	return 0;
}
