/* paging.c - identity-mapped paging, so that stray pointers fault.
 *
 * Virtual addresses equal physical ones, as before paging, but three kinds
 * of access now fault with a report instead of corrupting memory: the page
 * at address 0 (NULL pointer dereferences), the guard page below the boot
 * stack (stack overflow), and writes to kernel text and read-only data.
 * The first 4 MiB use a 4 KiB page table for that; the rest of the 4 GiB
 * is mapped with 4 MiB pages.
 */
#include <tiny/kernel.h>
#include <arch/desc.h>
#include <arch/processor.h>

#define PTE_PRESENT	0x001u
#define PTE_WRITE	0x002u
#define PDE_LARGE	0x080u	/* 4 MiB page (PSE) */
#define PTE_PWT		0x008u	/* write-through */
#define PTE_PCD		0x010u	/* cache disabled */
#define CR0_WP		0x00010000UL
#define CR0_PG		0x80000000UL
#define CR4_PSE		0x00000010UL
#define CPUID_PSE	(1u << 3)

static u32 page_dir[1024] __aligned(4096);
static u32 low_table[1024] __aligned(4096);	/* the first 4 MiB, page by page */

extern char _stext[], __end_rodata[], boot_stack_guard[];

static int read_only(unsigned long addr)
{
	return addr >= (unsigned long)(uintptr_t)_stext &&
	       addr < (unsigned long)(uintptr_t)__end_rodata;
}

static void map_low_4mib(void)
{
	unsigned long addr;
	unsigned int i;

	for (i = 0; i < 1024; i++) {
		addr = (unsigned long)i << 12;
		low_table[i] = addr | PTE_PRESENT | (read_only(addr) ? 0 : PTE_WRITE);
	}
	low_table[0] = 0;	/* NULL */
	low_table[(uintptr_t)boot_stack_guard >> 12] = 0;
}

/* Builds the page tables and turns paging on.  Boot CPU, interrupts off. */
void paging_init(void)
{
	u32 a, b, c, d;
	unsigned int i;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID_PSE))
		panic("paging: this CPU lacks 4 MiB pages (PSE), which tinyslab requires");

	map_low_4mib();
	page_dir[0] = (u32)(uintptr_t)low_table | PTE_PRESENT | PTE_WRITE;
	for (i = 1; i < 1024; i++)
		page_dir[i] = (i << 22) | PTE_PRESENT | PTE_WRITE | PDE_LARGE;

	write_cr4(read_cr4() | CR4_PSE);
	write_cr3((unsigned long)(uintptr_t)page_dir);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
	gdt_set_df_cr3((unsigned long)(uintptr_t)page_dir);
}

#ifdef CONFIG_SMP
#include <arch/apic.h>

/* Device registers (the local APIC's) must not be cached: marks the 4 MiB
 * page holding addr cache-disabled and write-through.  Boot CPU, after
 * paging_init(), before any other CPU runs. */
void paging_set_uncached(unsigned long addr)
{
	unsigned int i = addr >> 22;

	if (!i)
		return;		/* the first 4 MiB hold only RAM and ROM */
	page_dir[i] |= PTE_PCD | PTE_PWT;
	__asm__ __volatile__("invlpg (%0)" : : "r"(addr) : "memory");
}

/* The page directory, for the APs' start-up code. */
unsigned long paging_cr3(void)
{
	return (unsigned long)(uintptr_t)page_dir;
}
#endif
