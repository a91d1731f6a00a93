/* serial.c - the 16550 UART on COM1 as the system console (115200 8N1).
 *
 * Output polls the transmitter; input is interrupt-driven (IRQ 4) into a
 * small ring buffer that the console reads.
 */
#include <tiny/kernel.h>
#include <arch/desc.h>
#include <arch/io.h>

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
#define LSR_THR_EMPTY	0x20
#define LCR_DLAB	0x80
#define LCR_8N1		0x03
#define MCR_DTR_RTS_OUT2 0x0b	/* OUT2 gates the UART's interrupt line */
#define IER_RX		0x01

#define RX_BUF_SIZE	256	/* a power of two */

static u8 rx_buf[RX_BUF_SIZE];
static volatile unsigned int rx_head, rx_tail;	/* written by the IRQ, read by the console */

void serial_init(void)
{
	outb(0x00, COM1 + UART_IER);
	outb(LCR_DLAB, COM1 + UART_LCR);
	outb(1, COM1 + UART_DLL);		/* 115200 / 1 */
	outb(0, COM1 + UART_DLM);
	outb(LCR_8N1, COM1 + UART_LCR);
	outb(0xc7, COM1 + UART_FCR);		/* enable and clear FIFOs, 14-byte trigger */
	outb(MCR_DTR_RTS_OUT2, COM1 + UART_MCR);
}

void serial_putc(char c)
{
	int spins = 100000;	/* do not hang if no UART answers */

	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY) && --spins)
		;
	outb((u8)c, COM1 + UART_THR);
}

static void serial_interrupt(struct pt_regs *regs)
{
	(void)regs;
	while (inb(COM1 + UART_LSR) & LSR_DATA_READY) {
		u8 c = inb(COM1 + UART_RBR);

		if (rx_head - rx_tail < RX_BUF_SIZE) {
			rx_buf[rx_head % RX_BUF_SIZE] = c;
			rx_head++;
		}
	}
}

void serial_enable_rx_irq(void)
{
	request_irq(4, serial_interrupt);
	outb(IER_RX, COM1 + UART_IER);
}

/* Next received byte or -1.  Process context (the IRQ only appends). */
int serial_getc(void)
{
	int c;

	if (rx_tail == rx_head)
		return -1;
	c = rx_buf[rx_tail % RX_BUF_SIZE];
	rx_tail++;
	return c;
}
