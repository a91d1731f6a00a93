/* boot.h - what the boot loader told us, in a form independent of Multiboot.
 *
 * arch/x86/kernel/setup.c fills boot_info from the Multiboot information
 * (copying the strings, since the loader's copies may be overwritten);
 * init/main.c and mm/ read it.
 */
#ifndef TINY_BOOT_H
#define TINY_BOOT_H

#include <tiny/types.h>
#include <tiny/mm.h>

#define BOOT_MAX_REGIONS	32
#define BOOT_MAX_MODULES	8
#define BOOT_CMDLINE_SIZE	512

struct boot_module {
	unsigned long start, end;	/* [start, end) */
	char name[64];			/* the module's command line, usually its path */
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_SIZE];
	char loader[48];		/* boot loader name, if given */
	int nr_ram;			/* usable RAM ranges from the memory map */
	struct mem_region ram[BOOT_MAX_REGIONS];
	int nr_reserved;		/* ranges to keep out of the page allocator */
	struct mem_region reserved[BOOT_MAX_REGIONS];
	const char *reserved_what[BOOT_MAX_REGIONS];
	int nr_modules;
	struct boot_module modules[BOOT_MAX_MODULES];
	unsigned long mem_limit;	/* from mem=, 0 if none */
};

extern struct boot_info boot_info;

/* Adds [start, end) to the reserved ranges (rounded out to whole pages). */
void boot_reserve(unsigned long start, unsigned long end, const char *what);

#endif /* TINY_BOOT_H */
