/* asm/multiboot.h - the Multiboot (version 1) structures we read. */
#ifndef ASM_MULTIBOOT_H
#define ASM_MULTIBOOT_H

#define MULTIBOOT_HEADER_MAGIC		0x1BADB002
#define MULTIBOOT_BOOTLOADER_MAGIC	0x2BADB002
/* Header flags: align modules on pages, give us a memory map. */
#define MULTIBOOT_PAGE_ALIGN		0x00000001
#define MULTIBOOT_MEMORY_INFO		0x00000002

#ifndef __ASSEMBLER__
#include <tiny/types.h>
#include <tiny/compiler.h>

/* multiboot_info.flags bits */
#define MBI_MEM		(1u << 0)
#define MBI_CMDLINE	(1u << 2)
#define MBI_MODS	(1u << 3)
#define MBI_MMAP	(1u << 6)
#define MBI_LOADER_NAME	(1u << 9)

struct multiboot_info {
	u32 flags;
	u32 mem_lower;		/* KiB below 1 MiB */
	u32 mem_upper;		/* KiB above 1 MiB */
	u32 boot_device;
	u32 cmdline;
	u32 mods_count;
	u32 mods_addr;
	u32 syms[4];
	u32 mmap_length;
	u32 mmap_addr;
	u32 drives_length;
	u32 drives_addr;
	u32 config_table;
	u32 boot_loader_name;
} __packed;

#define MULTIBOOT_MEMORY_AVAILABLE	1

struct multiboot_mmap_entry {
	u32 size;		/* of the rest of this entry, not counting size itself */
	u64 addr;
	u64 len;
	u32 type;
} __packed;

struct multiboot_module {
	u32 mod_start;
	u32 mod_end;
	u32 string;
	u32 reserved;
} __packed;
#endif /* __ASSEMBLER__ */

#endif /* ASM_MULTIBOOT_H */
