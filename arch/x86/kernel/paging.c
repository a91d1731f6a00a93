/* paging.c - identity-mapped paging, so that stray pointers fault.
 *
 * Virtual addresses equal physical ones, as before paging, but three kinds
 * of access now fault with a report instead of corrupting memory: the page
 * at address 0 (NULL pointer dereferences), the guard page below the boot
 * stack and below each AP's stack (stack overflow), and writes to kernel
 * text and read-only data.  The first 4 MiB use a 4 KiB page table for
 * that; the rest of the 4 GiB is mapped with 4 MiB pages, and a 4 MiB page
 * that comes to hold an AP's guard page is split into a page table of its
 * own, with the same frames and attributes.
 *
 * Other CPUs cache translations (TLB) and page-table entries (the
 * paging-structure caches) too.  Every change to a mapping made while
 * APs run is therefore shot down: this CPU reloads CR3 and asks every
 * other online CPU to do the same, waiting for all (flush_tlb_all()), and
 * a page table is freed only after that, so that no CPU walks a freed,
 * reused page.
 */
#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <asm/desc.h>
#include <asm/paging.h>
#include <asm/processor.h>

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
#include <tiny/smp.h>
#include <asm/apic.h>

/* This CPU's part of a shootdown (a cross-CPU call, or the caller). */
static void flush_tlb_local(void *unused)
{
	(void)unused;
	write_cr3(read_cr3());		/* no global pages: drops every translation */
	this_cpu()->tlb_flushes++;
}

/* Flushes the TLB of every online CPU and waits until all have.  Process
 * context, interrupts on (smp_call_function()'s rule). */
static void flush_tlb_all(void)
{
	on_each_cpu(flush_tlb_local, NULL, 1);
}

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

/* A page table mapping the 4 MiB page i exactly as its PDE did (same
 * frames, same cache attributes); -1 if no page for it. */
static int split_large_page(unsigned int i)
{
	u32 pde = page_dir[i], attrs = pde & (PTE_PRESENT | PTE_WRITE | PTE_PCD | PTE_PWT);
	u32 *table = (u32 *)(uintptr_t)__get_free_page(GFP_KERNEL);
	unsigned int j;

	if (!table)
		return -1;
	for (j = 0; j < 1024; j++)
		table[j] = ((u32)i << 22) + ((u32)j << 12) + attrs;
	page_dir[i] = (u32)(uintptr_t)table | PTE_PRESENT | PTE_WRITE;
	return 0;			/* the caller shoots the 4 MiB translation down */
}

/* Unmaps the page at addr (page-aligned), so that touching it faults on
 * every CPU once this returns: 0, or -1 if a page table could not be
 * had.  Process context, interrupts on. */
int paging_guard_page(unsigned long addr)
{
	unsigned int i = addr >> 22;
	u32 *table;

	if (i && (page_dir[i] & PDE_LARGE) && split_large_page(i))
		return -1;
	table = (u32 *)(uintptr_t)(page_dir[i] & ~0xfffu);
	table[(addr >> 12) & 1023] = 0;
	flush_tlb_all();
	return 0;
}

/* Makes the page table of 4 MiB page i one 4 MiB PDE again if it maps
 * every page as split_large_page() did, and frees the table. */
static void join_large_page(unsigned int i, u32 *table)
{
	u32 attrs = table[0] & (PTE_PRESENT | PTE_WRITE | PTE_PCD | PTE_PWT);
	unsigned int j;

	for (j = 0; j < 1024; j++)
		if ((table[j] & ~0xfffu) != ((u32)i << 22) + ((u32)j << 12) ||
		    (table[j] & (PTE_PRESENT | PTE_WRITE | PTE_PCD | PTE_PWT)) != attrs)
			return;
	page_dir[i] = ((u32)i << 22) | attrs | PDE_LARGE;
	flush_tlb_all();		/* no CPU walks the table any more ... */
	free_page((unsigned long)(uintptr_t)table);	/* ... so it may go */
}

/* Maps the page at addr again, writable, and undoes the split of its 4 MiB
 * page if that was all the split was for (the self-tests give a guarded
 * block back).  Process context, interrupts on, as paging_guard_page(). */
void paging_unguard_page(unsigned long addr)
{
	unsigned int i = addr >> 22;
	u32 *table = (u32 *)(uintptr_t)(page_dir[i] & ~0xfffu);

	/* No CPU caches an entry that is not present: nothing to shoot down
	 * for the mapping itself, only for the join (which frees a table). */
	table[(addr >> 12) & 1023] = (u32)(addr & ~0xfffUL) | PTE_PRESENT | PTE_WRITE;
	if (i)
		join_large_page(i, table);
}

/* The entry that maps addr: a 4 KiB PTE, or the 4 MiB PDE (PAGING_LARGE
 * set); 0 if addr is unmapped.  For the self-tests. */
u32 paging_entry(unsigned long addr)
{
	u32 pde = page_dir[addr >> 22];

	if (!(pde & PTE_PRESENT) || (pde & PDE_LARGE))
		return pde;
	return ((const u32 *)(uintptr_t)(pde & ~0xfffu))[(addr >> 12) & 1023];
}
#endif
