/* setup.c - early architecture setup and the Multiboot information.
 *
 * arch_setup() brings up the consoles and the CPU tables, then copies what
 * the boot loader passed (memory map, command line, modules) into
 * boot_info and reserves the memory that must not be handed out.
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/boot.h>
#include <tiny/arch.h>
#include <asm/desc.h>
#include <asm/smpboot.h>
#include <asm/paging.h>
#include <asm/multiboot.h>
#include <asm/processor.h>
#include <arch/spinlock.h>
#include <tiny/smp.h>

struct boot_info boot_info;

extern char __kernel_start[], _end[];

#define LOW_MEMORY_END	0x100000UL	/* the first MiB: BIOS, VGA, loader data */
#define ADDR_LIMIT	0xfffff000UL	/* what a 32-bit kernel without PAE can reach */

void boot_reserve(unsigned long start, unsigned long end, const char *what)
{
	int n = boot_info.nr_reserved;

	if (start >= end)
		return;		/* nothing to keep (an empty module list, say) */
	if (n == BOOT_MAX_REGIONS)
		panic("boot: too many reserved ranges (%s)", what);
	boot_info.reserved[n].start = start & PAGE_MASK;
	boot_info.reserved[n].end = PAGE_ALIGN(end);
	boot_info.reserved_what[n] = what;
	boot_info.nr_reserved = n + 1;
}

static void copy_string(char *dst, size_t size, u32 src)
{
	strscpy(dst, (const char *)(uintptr_t)src, size);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copies the loader's command line into boot_info.  A line too long for it
 * is cut before the first word that does not fit whole, and the cut is
 * reported: a cut word could otherwise be taken as a different value. */
static void copy_cmdline(const char *s)
{
	size_t n = strscpy(boot_info.cmdline, s, sizeof(boot_info.cmdline));
	char rest[24];

	if (!s[n])
		return;
	while (n && !is_blank(s[n]) && !is_blank(s[n - 1]))
		n--;
	boot_info.cmdline[n] = '\0';
	while (is_blank(s[n]))
		n++;
	strscpy(rest, s + n, sizeof(rest));
	pr_warn("Kernel command line longer than %zu characters: ignoring it from \"%pE...\" on\n",
		sizeof(boot_info.cmdline) - 1, rest);
}

/* The part of a memory-map entry a 32-bit kernel can use, as [start, end). */
static int clip_region(u64 addr, u64 len, struct mem_region *r)
{
	u64 end = addr + len;

	if (addr >= ADDR_LIMIT)
		return 0;
	if (end > ADDR_LIMIT)
		end = ADDR_LIMIT;
	r->start = (unsigned long)PAGE_ALIGN(addr);
	r->end = (unsigned long)end & PAGE_MASK;
	return r->start < r->end;
}

static void add_ram(u64 addr, u64 len)
{
	struct mem_region r;

	if (!clip_region(addr, len, &r))
		return;
	if (boot_info.nr_ram == BOOT_MAX_REGIONS) {
		pr_warn("boot: memory map has more than %d usable ranges; ignoring %08lx-%08lx\n",
			BOOT_MAX_REGIONS, r.start, r.end);
		return;
	}
	boot_info.ram[boot_info.nr_ram++] = r;
}

static void parse_memory_map(const struct multiboot_info *mbi)
{
	unsigned long p = mbi->mmap_addr, end = mbi->mmap_addr + mbi->mmap_length;
	static const char *const types[] = { "?", "usable", "reserved", "ACPI data",
					     "ACPI NVS", "bad memory" };

	pr_info("BIOS-provided physical RAM map:\n");
	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)(uintptr_t)p;

		pr_info(" [mem %#010llx-%#010llx] %s\n", e->addr, e->addr + e->len - 1,
			e->type < ARRAY_SIZE(types) ? types[e->type] : "unknown");
		if (e->type == MULTIBOOT_MEMORY_AVAILABLE)
			add_ram(e->addr, e->len);
		p += e->size + sizeof(e->size);
	}
	boot_reserve(mbi->mmap_addr, end, "multiboot memory map");
}

static void parse_modules(const struct multiboot_info *mbi)
{
	const struct multiboot_module *m = (const void *)(uintptr_t)mbi->mods_addr;
	u32 i;

	boot_reserve(mbi->mods_addr, mbi->mods_addr + mbi->mods_count * sizeof(*m),
		     "multiboot module list");
	for (i = 0; i < mbi->mods_count; i++) {
		struct boot_module *bm = &boot_info.modules[boot_info.nr_modules];

		if (boot_info.nr_modules == BOOT_MAX_MODULES) {
			pr_warn("boot: more than %d modules; ignoring the rest\n", BOOT_MAX_MODULES);
			break;
		}
		bm->start = m[i].mod_start;
		bm->end = m[i].mod_end;
		if (m[i].string)
			copy_string(bm->name, sizeof(bm->name), m[i].string);
		boot_reserve(bm->start, bm->end, "boot module");
		boot_info.nr_modules++;
		pr_info("module %u: [mem %#010lx-%#010lx] %lu bytes \"%pE\"\n", i, bm->start,
			bm->end - 1, bm->end - bm->start, bm->name);
	}
}

static void parse_multiboot(unsigned long magic, const struct multiboot_info *mbi)
{
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC)
		panic("boot: not started by a Multiboot loader (magic %08lx)", magic);
	boot_reserve((uintptr_t)mbi, (uintptr_t)mbi + sizeof(*mbi), "multiboot information");
	if (mbi->flags & MBI_LOADER_NAME)
		copy_string(boot_info.loader, sizeof(boot_info.loader), mbi->boot_loader_name);
	if (mbi->flags & MBI_CMDLINE) {
		const char *s = (const char *)(uintptr_t)mbi->cmdline;

		copy_cmdline(s);
		boot_reserve(mbi->cmdline, mbi->cmdline + strlen(s) + 1, "command line");
	}
	pr_info("boot loader: %pE\n", boot_info.loader[0] ? boot_info.loader : "(unnamed)");
	if (mbi->flags & MBI_MMAP)
		parse_memory_map(mbi);
	else if (mbi->flags & MBI_MEM)
		add_ram(LOW_MEMORY_END, (u64)mbi->mem_upper * 1024);
	else
		panic("boot: the loader gave no memory information");
	if (mbi->flags & MBI_MODS)
		parse_modules(mbi);
}

void arch_setup(unsigned long magic, void *multiboot_info)
{
	trap_init();		/* head.S ran gdt_init() already */
	irq_init();
	parse_multiboot(magic, multiboot_info);
	smp_reserve_trampoline();
	boot_reserve(0, LOW_MEMORY_END, "first MiB (BIOS, VGA)");
	boot_reserve((uintptr_t)__kernel_start, (uintptr_t)_end, "kernel image");
	paging_init();
	arch_spin_lock_setup();
	smp_detect();
}

#define CPUID_1_ECX_HYPERVISOR		(1u << 31)
#define CPUID_HYPERVISOR_VENDOR		0x40000000u

const char *arch_hypervisor(void)
{
	static char vendor[13];
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(c & CPUID_1_ECX_HYPERVISOR))
		return NULL;
	cpuid(CPUID_HYPERVISOR_VENDOR, &a, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	vendor[12] = '\0';
	return vendor[0] ? vendor : "unnamed";
}
