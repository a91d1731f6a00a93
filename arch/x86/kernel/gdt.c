/* gdt.c - our own flat GDT and the two task-state segments.
 *
 * Code and data segments cover all 4 GiB.  The first TSS is the task we run
 * in (the CPU saves our registers there when it switches away); the second
 * is the double-fault task, entered through a task gate with a stack of its
 * own, so that even a kernel stack overflow is reported instead of
 * resetting the machine.
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <arch/desc.h>
#include <arch/processor.h>

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

static u64 gdt[GDT_ENTRIES] __aligned(8);
struct tss main_tss;
static struct tss df_tss;
static u32 df_stack[1024] __aligned(16);

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

static void setup_df_task(void)
{
	memset(&df_tss, 0, sizeof(df_tss));
	df_tss.eip = (u32)(uintptr_t)double_fault_task;
	df_tss.esp = (u32)(uintptr_t)&df_stack[ARRAY_SIZE(df_stack)];
	df_tss.cs = __KERNEL_CS;
	df_tss.ds = df_tss.es = df_tss.ss = df_tss.fs = df_tss.gs = __KERNEL_DS;
	df_tss.eflags = 0x2;		/* interrupts off */
	df_tss.iomap_base = sizeof(df_tss);
}

/* Loads the GDT, reloads every segment register and the task register.
 * Boot CPU, interrupts off. */
void gdt_init(void)
{
	struct gdt_ptr ptr;

	memset(&main_tss, 0, sizeof(main_tss));
	main_tss.iomap_base = sizeof(main_tss);
	setup_df_task();

	gdt[0] = 0;
	gdt[__KERNEL_CS >> 3] = make_desc(0, 0xfffff, 0x9a, 0xc);	/* code, ring 0 */
	gdt[__KERNEL_DS >> 3] = make_desc(0, 0xfffff, 0x92, 0xc);	/* data, ring 0 */
	gdt[GDT_TSS >> 3] = make_desc((u32)(uintptr_t)&main_tss, sizeof(main_tss) - 1, 0x89, 0);
	gdt[GDT_DF_TSS >> 3] = make_desc((u32)(uintptr_t)&df_tss, sizeof(df_tss) - 1, 0x89, 0);

	ptr.limit = sizeof(gdt) - 1;
	ptr.base = (u32)(uintptr_t)gdt;
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movl %2, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%fs\n\t"
		"movl %%eax, %%gs\n\t"
		"movl %%eax, %%ss\n\t"
		"movw %3, %%ax\n\t"
		"ltr %%ax"
		: : "m"(ptr), "i"(__KERNEL_CS), "i"(__KERNEL_DS), "i"(GDT_TSS)
		: "eax", "memory");
}

/* The double-fault task needs the page directory we run on. */
void gdt_set_df_cr3(unsigned long cr3)
{
	df_tss.cr3 = cr3;
}

/* Entered by a task switch when a fault happens while delivering a fault
 * (typically a stack overflow).  Reports the interrupted task's registers,
 * which the CPU saved in main_tss, and panics. */
void double_fault_task(void)
{
	printk(KERN_EMERG "*** double fault (vector 8): the kernel stack is probably exhausted\n");
	printk(KERN_EMERG "EIP: %08x  ESP: %08x  EBP: %08x  EFLAGS: %08x\n",
	       main_tss.eip, main_tss.esp, main_tss.ebp, main_tss.eflags);
	printk(KERN_EMERG "EAX: %08x  EBX: %08x  ECX: %08x  EDX: %08x\n",
	       main_tss.eax, main_tss.ebx, main_tss.ecx, main_tss.edx);
	printk(KERN_EMERG "ESI: %08x  EDI: %08x  CR2: %08lx\n",
	       main_tss.esi, main_tss.edi, read_cr2());
	panic("double fault");
}
