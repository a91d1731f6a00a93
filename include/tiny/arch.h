/* arch.h - what the architecture code (arch/x86) provides to the rest of
 * the kernel.  The host build of mm/ does not use this header. */
#ifndef TINY_ARCH_H
#define TINY_ARCH_H

#include <tiny/types.h>
#include <tiny/compiler.h>

/* Brings up the consoles (serial, VGA text) so that printk works. */
void arch_console_init(void);
/* Early setup: GDT, IDT, paging, and the boot information from
 * the Multiboot loader (filled into boot_info).  Interrupts stay off. */
void arch_setup(unsigned long magic, void *multiboot_info);
/* Starts the periodic tick at HZ. */
void arch_time_init(void);

/* Writes to every console (16550 serial, VGA text); any context. */
void arch_console_write(const char *s, size_t len);
/* Enables console input: received bytes go to console_input, and
 * arch_console_poll() (<tiny/console.h>) fetches them on demand. */
void arch_console_input_init(void);
/* Waits for an interrupt (the caller must have interrupts enabled). */
void arch_idle(void);

/* Prints one line per CPU: number, APIC id, state, ticks (the console's
 * "cpus").  Process context. */
void arch_show_cpus(void);

/* The hypervisor that runs this kernel as CPUID names it (QEMU's TCG:
 * "TCGTCGTCGTCG", KVM: "KVMKVMKVM"), or NULL on a real CPU.  Any context. */
const char *arch_hypervisor(void);

/* Ends the run: under QEMU (isa-debug-exit device) with a status that says
 * pass or fail, elsewhere by halting. */
#define EXIT_PASS	0
#define EXIT_FAIL	1
__noreturn void arch_exit(int status);
__noreturn void arch_halt(void);

/* Deliberately raises a CPU exception of the given kind ("divide", "null",
 * "opcode", "gpf", "stack"), to check exception reporting; returns -1 for
 * an unknown kind. */
int arch_trigger_fault(const char *kind);

#endif /* TINY_ARCH_H */
