/* reboot.c - ending the run: QEMU's isa-debug-exit device, ACPI off, or halt.
 *
 * The test runner starts QEMU with -device isa-debug-exit,iobase=0xf4.  A
 * byte v written there makes QEMU exit with status (v << 1) | 1, so
 * EXIT_PASS gives 33 and EXIT_FAIL gives 35 (scripts/qemu-run maps them).
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/irqflags.h>
#include <asm/io.h>
#include <asm/processor.h>

#define DEBUG_EXIT_PORT		0xf4
#define DEBUG_EXIT_PASS		0x10
#define DEBUG_EXIT_FAIL		0x11
#define PIIX4_PM1A_CNT		0x604	/* QEMU's ACPI power management, i440FX */
#define ACPI_SLP_EN_S5		0x2000

void arch_halt(void)
{
	local_irq_disable();
	for (;;)
		halt();
}

void arch_exit(int status)
{
	local_irq_disable();
	outb(status == EXIT_PASS ? DEBUG_EXIT_PASS : DEBUG_EXIT_FAIL, DEBUG_EXIT_PORT);
	/* No debug-exit device: power off through ACPI where QEMU offers it. */
	outw(ACPI_SLP_EN_S5, PIIX4_PM1A_CNT);
	printk(KERN_EMERG "System halted (exit status %d).\n", status);
	arch_halt();
}
