/* gdt.c - each CPU's flat GDT and its two task-state segments.
 *
 * Code and data segments cover all 4 GiB.  The first TSS is the task a CPU
 * runs in (the CPU saves its registers there when it switches away); the
 * second is its double-fault task, entered through a task gate with a
 * stack of its own, so that even a kernel stack overflow is reported
 * instead of resetting the machine.  With CONFIG_SMP every CPU has its own
 * set (a TSS is busy while in use, so CPUs cannot share one), plus a data
 * segment based at its per-CPU area, which %fs holds (see <arch/smp.h>);
 * its limit is 4 GiB like the others', so that %fs-relative addresses
 * reach per-CPU copies anywhere in memory (<arch/percpu.h>).
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/mm.h>
#include <tiny/oops.h>
#include <tiny/smp.h>
#include <asm/desc.h>
#include <asm/processor.h>

struct tss {
	u32 link, esp0, ss0, esp1, ss1, esp2, ss2;
	u32 cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
	u32 es, cs, ss, ds, fs, gs, ldt;
	u16 trap, iomap_base;
} __packed;

struct gdt_ptr {
	u16 limit;
	u32 base;
} __packed;

/* One CPU's descriptor tables and double-fault stack. */
struct cpu_tables {
	u64 gdt[GDT_ENTRIES];
	struct tss tss;
	struct tss df_tss;
	u32 df_stack[1024] __aligned(16);
} __aligned(8);

static struct cpu_tables cpu_tables[NR_CPUS];
static unsigned long df_cr3;

static u64 make_desc(u32 base, u32 limit, u8 access, u8 flags)
{
	u64 d;

	d = limit & 0xffffULL;
	d |= (u64)(base & 0xffffffU) << 16;
	d |= (u64)access << 40;
	d |= (u64)((limit >> 16) & 0xf) << 48;
	d |= (u64)(flags & 0xf) << 52;
	d |= (u64)((base >> 24) & 0xff) << 56;
	return d;
}

static void setup_df_task(struct cpu_tables *ct)
{
	struct tss *t = &ct->df_tss;

	memset(t, 0, sizeof(*t));
	t->eip = (u32)(uintptr_t)double_fault_task;
	t->esp = (u32)(uintptr_t)&ct->df_stack[ARRAY_SIZE(ct->df_stack)];
	t->cs = __KERNEL_CS;
	t->ds = t->es = t->ss = t->fs = t->gs = __KERNEL_DS;
#ifdef CONFIG_SMP
	t->fs = __KERNEL_PERCPU;	/* smp_processor_id() works in the task */
#endif
	t->eflags = 0x2;		/* interrupts off */
	t->iomap_base = sizeof(*t);
	t->cr3 = df_cr3;
}

/* Fills the GDT of ct; percpu is the base of the per-CPU segment (SMP). */
static void fill_gdt(struct cpu_tables *ct, void *percpu)
{
	memset(&ct->tss, 0, sizeof(ct->tss));
	ct->tss.iomap_base = sizeof(ct->tss);
	setup_df_task(ct);

	ct->gdt[0] = 0;
	ct->gdt[__KERNEL_CS >> 3] = make_desc(0, 0xfffff, 0x9a, 0xc);	/* code, ring 0 */
	ct->gdt[__KERNEL_DS >> 3] = make_desc(0, 0xfffff, 0x92, 0xc);	/* data, ring 0 */
	ct->gdt[GDT_TSS >> 3] = make_desc((u32)(uintptr_t)&ct->tss, sizeof(ct->tss) - 1, 0x89, 0);
	ct->gdt[GDT_DF_TSS >> 3] = make_desc((u32)(uintptr_t)&ct->df_tss,
					     sizeof(ct->df_tss) - 1, 0x89, 0);
#ifdef CONFIG_SMP
	/* 4 GiB (4 KiB granularity): %fs also reaches this CPU's copies of
	 * per-CPU objects, which lie anywhere relative to the base
	 * (<arch/percpu.h>) */
	ct->gdt[__KERNEL_PERCPU >> 3] = make_desc((u32)(uintptr_t)percpu, 0xfffff, 0x92, 0xc);
#else
	(void)percpu;
#endif
}

#ifdef CONFIG_SMP
#define PERCPU_SEL	__KERNEL_PERCPU
#else
#define PERCPU_SEL	__KERNEL_DS
#endif

/* Loads ct's GDT, reloads every segment register and the task register. */
static void load_gdt(struct cpu_tables *ct)
{
	struct gdt_ptr ptr;

	ptr.limit = sizeof(ct->gdt) - 1;
	ptr.base = (u32)(uintptr_t)ct->gdt;
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movl %2, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%gs\n\t"
		"movl %%eax, %%ss\n\t"
		"movl %3, %%eax\n\t"
		"movl %%eax, %%fs\n\t"
		"movw %4, %%ax\n\t"
		"ltr %%ax"
		: : "m"(ptr), "i"(__KERNEL_CS), "i"(__KERNEL_DS), "i"(PERCPU_SEL), "i"(GDT_TSS)
		: "eax", "memory");
}

void gdt_init_cpu(unsigned int cpu, void *percpu)
{
	fill_gdt(&cpu_tables[cpu], percpu);
	load_gdt(&cpu_tables[cpu]);
}

/* The boot CPU's tables.  Interrupts off. */
void gdt_init(void)
{
#ifdef CONFIG_SMP
	gdt_init_cpu(0, &x86_cpus[0]);
#else
	gdt_init_cpu(0, NULL);
#endif
}

/* The double-fault tasks need the page directory we run on. */
void gdt_set_df_cr3(unsigned long cr3)
{
	unsigned int i;

	df_cr3 = cr3;
	for (i = 0; i < NR_CPUS; i++)
		cpu_tables[i].df_tss.cr3 = cr3;
}

/* Says whether esp ran into the guard page below this CPU's stack. */
static void explain_stack_overflow(unsigned int cpu, unsigned long esp)
{
	unsigned long lo, hi;

	arch_stack_bounds(&lo, &hi);
	if (esp >= lo - PAGE_SIZE && esp <= lo)
		printk(KERN_EMERG "stack overflow: ESP %08lx is in the guard page below CPU %u's "
		       "stack %08lx-%08lx\n", esp, cpu, lo, hi - 1);
	else
		printk(KERN_EMERG "ESP %08lx; CPU %u's stack is %08lx-%08lx\n", esp, cpu, lo, hi - 1);
}

/* Entered by a task switch when a fault happens while delivering a fault
 * (typically a stack overflow).  Reports the interrupted task's registers,
 * which the CPU saved in its TSS, and panics. */
void double_fault_task(void)
{
	unsigned int cpu = smp_processor_id();
	const struct tss *t = &cpu_tables[cpu].tss;

	oops_begin();
	printk(KERN_EMERG "*** double fault (vector 8) on CPU %u: the kernel stack is probably exhausted\n",
	       cpu);
	explain_stack_overflow(cpu, t->esp);
	printk(KERN_EMERG "EIP: %08x  ESP: %08x  EBP: %08x  EFLAGS: %08x\n",
	       t->eip, t->esp, t->ebp, t->eflags);
	printk(KERN_EMERG "EAX: %08x  EBX: %08x  ECX: %08x  EDX: %08x\n",
	       t->eax, t->ebx, t->ecx, t->edx);
	printk(KERN_EMERG "ESI: %08x  EDI: %08x  CR2: %08lx\n",
	       t->esi, t->edi, read_cr2());
	panic("double fault");
}
