/* console.c - the kernel console on this PC: COM1 and the VGA text screen. */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/console.h>
#include <asm/desc.h>
#include <asm/processor.h>

void arch_console_init(void)
{
	serial_init();
	vga_init();
}

/* Serial terminals want CR LF; the screen handles LF itself. */
void arch_console_write(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
	vga_write(s, len);
}

void arch_console_input_init(void)
{
	serial_enable_rx_irq();
}

void arch_console_poll(int drop_when_full)
{
	serial_poll(drop_when_full);
}

int arch_console_loopback(struct input_ring *r, const char *s, size_t n)
{
	return serial_loopback(r, s, n);
}

void arch_idle(void)
{
	safe_halt();
}
