/* traps.c - the IDT, CPU exception reports and the trap dispatcher.
 *
 * All 32 exception vectors get a handler that prints what happened (name,
 * error code, the faulting address for page faults), the registers and the
 * stack, with text addresses named by kallsyms (%pS), then panics: the kernel has no way to recover from its own faults.
 * Vectors 32-47 are the 8259 interrupts, passed to do_irq().
 */
#include <tiny/kernel.h>
#include <asm/desc.h>
#include <asm/smpboot.h>
#include <asm/processor.h>
#include <tiny/string.h>
#include <tiny/arch.h>
#include <tiny/oops.h>
#include <tiny/smp.h>
#ifdef CONFIG_SMP
#include <asm/apic.h>
#endif

struct idt_entry {
	u16 offset_low;
	u16 selector;
	u8 zero;
	u8 type_attr;
	u16 offset_high;
} __packed;

struct idt_ptr {
	u16 limit;
	u32 base;
} __packed;

#define IDT_INTERRUPT_GATE	0x8e	/* present, ring 0, 32-bit interrupt gate */
#define IDT_TASK_GATE		0x85	/* present, ring 0, task gate */

static struct idt_entry idt[256] __aligned(8);
static void set_gate(int vector, u32 offset, u16 selector, u8 type);
extern const u32 trap_stubs[FIRST_IRQ_VECTOR + NR_IRQS];
#ifdef CONFIG_SMP
extern const u32 apic_stubs[NR_APIC_VECTORS];

static void set_apic_gates(void)
{
	int v;

	for (v = 0; v < NR_APIC_VECTORS; v++)
		set_gate(APIC_FIRST_VECTOR + v, apic_stubs[v], __KERNEL_CS, IDT_INTERRUPT_GATE);
}

static int apic_vector(u32 v)
{
	return v >= APIC_FIRST_VECTOR;
}

/* An NMI is how panic() stops the other CPUs (smp_stop_other_cpus()). */
static void nmi_stop_check(void)
{
	smp_nmi_stop_check();
}
#else
static void set_apic_gates(void) { }
static int apic_vector(u32 v) { (void)v; return 0; }
static void do_apic_interrupt(struct pt_regs *regs) { (void)regs; }
static void nmi_stop_check(void) { }
#endif


static const char *const exception_names[32] = {
	"divide error", "debug", "non-maskable interrupt", "breakpoint",
	"overflow", "bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack-segment fault", "general protection fault", "page fault", "reserved (15)",
	"x87 floating-point error", "alignment check", "machine check", "SIMD floating-point error",
	"virtualization exception", "control protection", "reserved (22)", "reserved (23)",
	"reserved (24)", "reserved (25)", "reserved (26)", "reserved (27)",
	"hypervisor injection", "VMM communication", "security exception", "reserved (31)",
};

static void set_gate(int vector, u32 offset, u16 selector, u8 type)
{
	idt[vector].offset_low = offset & 0xffff;
	idt[vector].selector = selector;
	idt[vector].zero = 0;
	idt[vector].type_attr = type;
	idt[vector].offset_high = offset >> 16;
}

/* Loads the (shared) IDT on this CPU.  Interrupts off. */
void idt_load(void)
{
	struct idt_ptr ptr;

	ptr.limit = sizeof(idt) - 1;
	ptr.base = (u32)(uintptr_t)idt;
	__asm__ __volatile__("lidt %0" : : "m"(ptr));
}

/* Fills and loads the IDT.  Boot CPU, interrupts off. */
void trap_init(void)
{
	int v;

	for (v = 0; v < FIRST_IRQ_VECTOR + NR_IRQS; v++)
		set_gate(v, trap_stubs[v], __KERNEL_CS, IDT_INTERRUPT_GATE);
	/* A double fault switches to a task with a fresh stack. */
	set_gate(8, 0, GDT_DF_TSS, IDT_TASK_GATE);
	set_apic_gates();
	idt_load();
}

void show_regs(const struct pt_regs *regs)
{
	printk(KERN_EMERG "EIP: %04x:%08x EFLAGS: %08x (%pS)\n", regs->cs, regs->eip, regs->eflags,
	       (void *)(uintptr_t)regs->eip);
	printk(KERN_EMERG "EAX: %08x EBX: %08x ECX: %08x EDX: %08x\n",
	       regs->eax, regs->ebx, regs->ecx, regs->edx);
	printk(KERN_EMERG "ESI: %08x EDI: %08x EBP: %08x ESP: %08lx\n",
	       regs->esi, regs->edi, regs->ebp,
	       (unsigned long)(uintptr_t)&regs->eflags + sizeof(regs->eflags));
	printk(KERN_EMERG "DS: %04x ES: %04x FS: %04x GS: %04x\n",
	       regs->ds & 0xffff, regs->es & 0xffff, regs->fs & 0xffff, regs->gs & 0xffff);
	printk(KERN_EMERG "CR0: %08lx CR2: %08lx CR3: %08lx CR4: %08lx\n",
	       read_cr0(), read_cr2(), read_cr3(), read_cr4());
}

static void explain_page_fault(const struct pt_regs *regs)
{
	unsigned long addr = read_cr2();
	u32 err = regs->error_code;

	printk(KERN_EMERG "BUG: %s %s at address %08lx%s\n",
	       (err & 1) ? "protection violation on" : "unmapped page",
	       (err & 2) ? "write" : ((err & 16) ? "instruction fetch" : "read"),
	       addr, addr < 4096 ? " (NULL pointer dereference)" : "");
}

/* Reports a CPU exception raised by kernel code (or an NMI) and panics.
 * One CPU reports (<tiny/oops.h>); a fault while reporting gets one line. */
static __noreturn void die(struct pt_regs *regs)
{
	u32 v = regs->vector;
	int in_printk = printk_depth();

	if (oops_begin() > 1) {
		printk(KERN_EMERG "*** %s (vector %u) at EIP %08x %pS, while reporting a crash\n",
		       exception_names[v], v, regs->eip, (void *)(uintptr_t)regs->eip);
		panic("Fatal exception while reporting one: %s", exception_names[v]);
	}
	printk(KERN_EMERG "*** %s (vector %u), error code %08x, at EIP %08x %pS\n",
	       exception_names[v], v, regs->error_code, regs->eip, (void *)(uintptr_t)regs->eip);
	if (in_printk)
		printk(KERN_EMERG "(it came inside a printk on this CPU; that message is lost or cut short)\n");
	if (v == 14)
		explain_page_fault(regs);
	show_regs(regs);
	show_stack((unsigned long)(uintptr_t)&regs->eflags + sizeof(regs->eflags));
	panic("Fatal exception: %s", exception_names[v]);
}

/*
 * probe_read_u32(addr, val): reads a word that may be unmapped.  A page
 * fault on its one load is not a crash: the fault handler finds the load
 * in exception_fixups[] and resumes at its fixup, which returns -1.
 */
__asm__(".text\n"
	".globl probe_read_u32\n"
	".type probe_read_u32, @function\n"
	"probe_read_u32:\n\t"
	"movl 4(%esp), %ecx\n"
	"probe_read_load:\n\t"
	"movl (%ecx), %eax\n\t"
	"movl 8(%esp), %ecx\n\t"
	"movl %eax, (%ecx)\n\t"
	"xorl %eax, %eax\n\t"
	"ret\n"
	"probe_read_fixup:\n\t"
	"movl $-1, %eax\n\t"
	"ret\n"
	".size probe_read_u32, . - probe_read_u32\n");

extern const char probe_read_load[], probe_read_fixup[];

/* Instructions allowed to fault, and where each goes on instead. */
static const struct {
	const char *insn, *fixup;
} exception_fixups[] = {
	{ probe_read_load, probe_read_fixup },
};

/* Resumes a fault of an instruction in exception_fixups[] at its fixup;
 * returns 0 if the instruction is not there. */
static int fixup_exception(struct pt_regs *regs)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exception_fixups); i++)
		if (regs->eip == (u32)(uintptr_t)exception_fixups[i].insn) {
			regs->eip = (u32)(uintptr_t)exception_fixups[i].fixup;
			return 1;
		}
	return 0;
}

/* Called by every stub in entry.S with the saved frame. */
void do_trap(struct pt_regs *regs)
{
	if (regs->vector >= FIRST_IRQ_VECTOR && regs->vector < FIRST_IRQ_VECTOR + NR_IRQS)
		do_irq(regs);
	else if (apic_vector(regs->vector))
		do_apic_interrupt(regs);
	else if (regs->vector == 14 && fixup_exception(regs))
		return;
	else {
		if (regs->vector == 2)
			nmi_stop_check();
		die(regs);
	}
}

extern char _stext[], _etext[], boot_stack[], boot_stack_top[];

void arch_stack_bounds(unsigned long *lo, unsigned long *hi)
{
#ifdef CONFIG_SMP
	if (this_cpu()->stack_hi) {
		*lo = this_cpu()->stack_lo;
		*hi = this_cpu()->stack_hi;
		return;
	}
#endif
	*lo = (unsigned long)(uintptr_t)boot_stack;
	*hi = (unsigned long)(uintptr_t)boot_stack_top;
}

/* Prints the top of the stack and every word on it that points into kernel
 * text (return addresses, most likely), named by kallsyms when it is built
 * in (otherwise look them up in System.map). */
void show_stack(unsigned long esp)
{
	unsigned long lo, hi;
	u32 *sp = (u32 *)esp, *top;
	int i;

	arch_stack_bounds(&lo, &hi);
	top = (u32 *)hi;
	if (esp < lo || esp >= hi) {
		printk(KERN_EMERG "Stack: %08lx is outside this CPU's stack\n", esp);
		return;
	}
	printk(KERN_EMERG "Stack:");
	for (i = 0; i < 16 && sp + i < top; i++)
		printk(KERN_CONT "%s %08x", (i % 8) ? "" : "\n ", sp[i]);
	printk(KERN_CONT "\n");
	printk(KERN_EMERG "Call Trace (guessed from the stack):\n");
	for (; sp < top; sp++)
		if (*sp >= (u32)(uintptr_t)_stext && *sp < (u32)(uintptr_t)_etext)
			printk(KERN_EMERG " [<%08x>] %pS\n", *sp, (void *)(uintptr_t)*sp);
}

/* Recurses until the stack runs into its guard page.  Each frame hands its
 * buffer to the next, so the compiler cannot turn the recursion into a loop. */
static noinline int recurse_forever(volatile char *prev)
{
	volatile char pad[256];

	pad[0] = prev[0] + 1;
	pad[1] = prev[1];
	if (pad[1])		/* never: start[1] is 0; keeps the compiler from calling this infinite */
		return 0;
	return recurse_forever(pad) + pad[1];
}

#ifdef CONFIG_SMP
/* Runs on every other CPU (IPI); overflows CPU 1's stack, the others return. */
static void overflow_cpu1_stack(void *unused)
{
	volatile char start[2] = { 0, 0 };

	(void)unused;
	if (smp_processor_id() == 1)
		recurse_forever(start);
}

/* Runs on every other CPU (IPI): CPU 1 takes the console and hangs. */
static void hold_console_on_cpu1(void *held)
{
	if (smp_processor_id() == 1)
		printk_hold_console(held);
}

/* fault=console-stuck: CPU 1 holds the console for good, then this CPU
 * faults; its report must still come out. */
static int trigger_fault_with_console_stuck(void)
{
	static int held;
	volatile uintptr_t null = 0;
	unsigned int ms;

	if (!cpu_online(1)) {
		pr_err("fault=console-stuck: CPU 1 is not online (boot with 2 CPUs or more)\n");
		return 0;
	}
	smp_call_function(hold_console_on_cpu1, &held, 0);
	for (ms = 0; ms < 2000 && !__atomic_load_n(&held, __ATOMIC_ACQUIRE); ms++)
		mdelay(1);
	return *(volatile int *)null;
}

/* fault=stack-ap: makes CPU 1 overflow its own stack, from an IPI. */
static int trigger_ap_stack_overflow(void)
{
	if (!cpu_online(1)) {
		pr_err("fault=stack-ap: CPU 1 is not online (boot with 2 CPUs or more)\n");
		return 0;
	}
	smp_call_function(overflow_cpu1_stack, NULL, 0);
	mdelay(2000);		/* CPU 1's double fault panics and stops this CPU first */
	pr_err("fault=stack-ap: CPU 1 did not fault\n");
	return 0;
}
#else
static int trigger_ap_stack_overflow(void)
{
	pr_err("fault=stack-ap: needs an SMP kernel\n");
	return 0;
}

static int trigger_fault_with_console_stuck(void)
{
	pr_err("fault=console-stuck: needs an SMP kernel\n");
	return 0;
}
#endif

int arch_trigger_fault(const char *kind)
{
	volatile int zero = 0, dividend = 1;
	volatile char start[2] = { 0, 0 };
	const char *volatile bad_string = (const char *)8;

	if (!strcmp(kind, "divide"))
		return dividend / zero;
	if (!strcmp(kind, "null"))
		return *(volatile int *)(uintptr_t)zero;
	if (!strcmp(kind, "opcode"))
		__asm__ __volatile__("ud2");
	else if (!strcmp(kind, "gpf"))
		__asm__ __volatile__("movl %0, %%ds" : : "r"(0x7f8));
	else if (!strcmp(kind, "stack"))
		return recurse_forever(start);
	else if (!strcmp(kind, "stack-ap"))
		return trigger_ap_stack_overflow();
	else if (!strcmp(kind, "console-stuck"))
		return trigger_fault_with_console_stuck();
	else if (!strcmp(kind, "printk"))	/* a page fault inside printk */
		return printk(KERN_EMERG "fault=printk: %s\n", bad_string);
	return -1;
}
