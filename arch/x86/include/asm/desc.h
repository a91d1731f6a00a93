/* asm/desc.h (i386) - segment selectors and the saved register frame. */
#ifndef ASM_DESC_H
#define ASM_DESC_H

#define __KERNEL_CS	0x08
#define __KERNEL_DS	0x10
#define GDT_TSS		0x18	/* the task we run in */
#define GDT_DF_TSS	0x20	/* the double-fault task, with its own stack */
#ifdef CONFIG_SMP
#define __KERNEL_PERCPU	0x28	/* based at this CPU's struct x86_cpu; in %fs */
#define GDT_ENTRIES	6
#else
#define GDT_ENTRIES	5
#endif

#define FIRST_IRQ_VECTOR	32
#define NR_IRQS			16

#ifndef __ASSEMBLER__
#include <tiny/types.h>

/* The frame the trap stubs in entry.S build on the stack, lowest address first. */
struct pt_regs {
	u32 gs, fs, es, ds;
	u32 edi, esi, ebp, esp_at_pusha, ebx, edx, ecx, eax;
	u32 vector;
	u32 error_code;
	u32 eip, cs, eflags;	/* pushed by the CPU */
};

void do_trap(struct pt_regs *regs);
void do_irq(struct pt_regs *regs);
void gdt_init(void);
/* Loads CPU cpu's own GDT, TSS and double-fault task (its per-CPU segment
 * based at percpu) on the calling CPU.  Interrupts off. */
void gdt_init_cpu(unsigned int cpu, void *percpu);
void trap_init(void);
void idt_load(void);
void irq_init(void);
void serial_init(void);
void vga_init(void);
void serial_enable_rx_irq(void);
void serial_putc(char c);
void vga_write(const char *s, size_t len);
/* Moves received bytes into the console's ring (see serial.c); any context. */
void serial_poll(int drop_when_full);
/* arch_console_loopback() for COM1. */
struct input_ring;
int serial_loopback(struct input_ring *r, const char *s, size_t n);
/* Installs handler for ISA interrupt irq (0-15) and unmasks it. */
void request_irq(unsigned int irq, void (*handler)(struct pt_regs *regs));
/* Bracket every interrupt handler (in_interrupt() counts them). */
void irq_enter(void);
void irq_exit(void);
/* Reads the word at addr into *val: 0, or -1 (*val untouched) if the
 * read page-faulted, which is then no crash (traps.c's fixup table). */
int probe_read_u32(const void *addr, u32 *val);
/* Prints the registers of a frame (used by exception and panic reports). */
void show_regs(const struct pt_regs *regs);
void show_stack(unsigned long esp);
/* The running CPU's kernel stack, [*lo, *hi). */
void arch_stack_bounds(unsigned long *lo, unsigned long *hi);
/* The double-fault task's entry point (entry is a task switch, not a call). */
__attribute__((__noreturn__)) void double_fault_task(void);
/* Gives the double-fault task the page directory (called by paging_init). */
void gdt_set_df_cr3(unsigned long cr3);
#endif

#endif /* ASM_DESC_H */
