/* asm/paging.h (i386) - the kernel's page tables: 4 MiB pages identity-
 * mapping RAM, split into a page table where a page must be unmapped (a
 * stack's guard page) or uncached (the local APIC's registers). */
#ifndef ASM_PAGING_H
#define ASM_PAGING_H

#include <tiny/types.h>

#define PAGING_PRESENT	0x001u
#define PAGING_LARGE	0x080u

/* Builds the page directory, maps RAM and enables paging.  Boot CPU, once. */
void paging_init(void);
/* Makes the 4 MiB page holding addr uncached (for the APIC's registers). */
void paging_set_uncached(unsigned long addr);
/* Unmaps the page at addr (page-aligned) so that touching it faults on
 * every CPU (the change is shot down on all online CPUs), for a stack's
 * guard page: 0, or -1 (no page for a page table).  Process context,
 * interrupts on. */
int paging_guard_page(unsigned long addr);
/* Maps a guard page again, writable, and joins a 4 MiB page the guard
 * split back into one, freeing its page table once no CPU can use it. */
void paging_unguard_page(unsigned long addr);
/* The 4 KiB PTE or 4 MiB PDE (PAGING_LARGE set) mapping addr, 0 if none. */
u32 paging_entry(unsigned long addr);

#endif /* ASM_PAGING_H */
