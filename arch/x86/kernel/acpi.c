/* acpi.c - finding the CPUs in the firmware's tables: the ACPI MADT, or
 * else the Intel MP specification's configuration table.
 *
 * Both live in memory the firmware filled; neither is trusted.  Every
 * table is found by its signature, its length is checked against a sane
 * limit before it is summed, its checksum must be zero, and every entry
 * must fit inside its table.  A malformed table is reported (what is
 * wrong, and where) and ignored as a whole; with no usable table the
 * kernel runs on the boot CPU alone.  Finding a table (scanning the BIOS
 * areas) is apart from parsing it (the fw_parse_* functions, which the
 * "firmware" self-tests feed malformed tables of their own).
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/smp.h>
#include <asm/apic.h>
#include <asm/firmware.h>

#define EBDA_SEG_PTR	0x40e		/* BIOS data area: the EBDA's segment */
#define BASE_MEM_KB_PTR	0x413		/* BIOS data area: base memory in KiB */
#define BIOS_ROM_START	0xe0000UL
#define BIOS_ROM_END	0x100000UL
#define TABLE_MAX_LEN	0x10000U	/* longer than any table QEMU or a PC makes */
#define LOW_LIMIT	0x1000UL	/* page 0 is unmapped (NULL) */
#define APIC_ADDR_MIN	0x100000UL	/* a local APIC below 1 MiB is nonsense */
#define APIC_ADDR_MAX	0xfffff000UL

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	u8 checksum;			/* of the first 20 bytes */
	char oem_id[6];
	u8 revision;
	u32 rsdt;
} __packed;

struct acpi_header {
	char signature[4];
	u32 length;			/* of the whole table, header included */
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

struct acpi_madt {
	struct acpi_header h;
	u32 lapic_addr;
	u32 flags;
} __packed;

#define MADT_LAPIC		0
#define MADT_LAPIC_OVERRIDE	5
#define MADT_LAPIC_ENABLED	0x1

struct mp_floating {
	char signature[4];		/* "_MP_" */
	u32 config;			/* physical address of the configuration table */
	u8 length;			/* in 16-byte units: 1 */
	u8 revision;
	u8 checksum;
	u8 features[5];
} __packed;

struct mp_config {
	char signature[4];		/* "PCMP" */
	u16 length;			/* of the base table */
	u8 revision;
	u8 checksum;
	char oem[8];
	char product[12];
	u32 oem_table;
	u16 oem_size;
	u16 entries;
	u32 lapic_addr;
	u16 ext_length;
	u8 ext_checksum;
	u8 reserved;
} __packed;

#define MP_PROCESSOR		0
#define MP_PROCESSOR_LEN	20
#define MP_OTHER_LEN		8
#define MP_CPU_ENABLED		0x1

unsigned int fw_table_reports;

int fw_tables_crafted;

/* One complaint about a table, on one line: marked expected when the
 * self-tests hand the parser a table they broke on purpose. */
#define fw_mark()	(READ_ONCE(fw_tables_crafted) ? " (expected: a self-test's table)" : "")
#define fw_err(fmt, ...)	do {						\
	fw_table_reports++;							\
	pr_err(fmt "%s\n", ##__VA_ARGS__, fw_mark());				\
} while (0)

static u8 sum_bytes(const void *p, size_t len)
{
	const u8 *b = p;
	u8 s = 0;

	while (len--)
		s += *b++;
	return s;
}

/* A physical range we may read: above page 0 and below 4 GiB. */
static int readable(unsigned long addr, unsigned long len)
{
	return addr >= LOW_LIMIT && len <= TABLE_MAX_LEN && addr + len > addr;
}

void fw_cpus_init(struct fw_cpus *l, unsigned int boot_apic)
{
	memset(l, 0, sizeof(*l));
	l->boot_apic = boot_apic;
	l->apic_base = APIC_DEFAULT_BASE;
}

static int fw_cpus_has(const struct fw_cpus *l, unsigned int apic_id)
{
	unsigned int i;

	if (l->boot_listed && l->apic_id[0] == apic_id)
		return 1;
	for (i = 1; i <= l->nr_others; i++)
		if (l->apic_id[i] == apic_id)
			return 1;
	return 0;
}

/* Lists an enabled CPU; the boot CPU goes to slot 0. */
static void list_cpu(struct fw_cpus *l, unsigned int apic_id, const char *src)
{
	if (fw_cpus_has(l, apic_id)) {
		pr_warn("smp: %s lists APIC id %u twice; ignoring the second%s\n", src, apic_id,
			fw_mark());
	} else if (apic_id == l->boot_apic) {
		l->apic_id[0] = apic_id;
		l->boot_listed = 1;
	} else if (l->nr_others + 1 >= CONFIG_NR_CPUS) {
		pr_warn("smp: %s lists APIC id %u beyond NR_CPUS=%d: ignored%s\n", src, apic_id,
			CONFIG_NR_CPUS, fw_mark());
		l->dropped++;
	} else {
		l->apic_id[++l->nr_others] = apic_id;
	}
}

static unsigned int fw_cpus_enabled(const struct fw_cpus *l)
{
	return l->boot_listed + l->nr_others + l->dropped;
}

/* Takes a local APIC address a table gives, if it is a plausible one. */
static void set_apic_base(struct fw_cpus *l, u64 addr, const char *src)
{
	if (addr < APIC_ADDR_MIN || addr >= APIC_ADDR_MAX || (addr & 0xfff)) {
		fw_err("smp: %s: local APIC address %#llx is implausible; keeping %#lx", src,
		       (unsigned long long)addr, l->apic_base);
		return;
	}
	l->apic_base = (unsigned long)addr;
}

/* Checks an ACPI table's length and checksum; 0 if usable. */
static int acpi_table_ok(const struct acpi_header *h, size_t min)
{
	unsigned long addr = (uintptr_t)h;

	if (!readable(addr, sizeof(*h))) {
		fw_err("smp: ACPI table at %#lx: address unusable", addr);
		return -1;
	}
	if (h->length < min || !readable(addr, h->length)) {
		fw_err("smp: ACPI %.4s at %#lx: bad length %u", h->signature, addr, h->length);
		return -1;
	}
	if (sum_bytes(h, h->length)) {
		fw_err("smp: ACPI %.4s at %#lx: bad checksum", h->signature, addr);
		return -1;
	}
	return 0;
}

static int parse_madt_entries(const struct acpi_madt *m, struct fw_cpus *l)
{
	const u8 *e = (const u8 *)(m + 1), *end = (const u8 *)m + m->h.length;
	unsigned int cpus = 0;

	while (e < end) {
		if (end - e < 2 || e[1] < 2 || e[1] > end - e) {
			fw_err("smp: ACPI MADT: entry at offset %u runs past the table (length %u)",
			       (unsigned int)(e - (const u8 *)m), end - e < 2 ? 0 : e[1]);
			return -1;
		}
		if (e[0] == MADT_LAPIC && e[1] >= 8) {
			u32 flags;

			memcpy(&flags, e + 4, sizeof(flags));
			cpus++;
			if (flags & MADT_LAPIC_ENABLED)
				list_cpu(l, e[3], "ACPI MADT");
		} else if (e[0] == MADT_LAPIC_OVERRIDE && e[1] >= 12) {
			u64 addr;

			memcpy(&addr, e + 4, sizeof(addr));
			set_apic_base(l, addr, "ACPI MADT override");
		}
		e += e[1];
	}
	pr_info("smp: ACPI MADT: %u local APIC(s), %u enabled, local APIC at %#lx\n",
		cpus, fw_cpus_enabled(l), l->apic_base);
	return 0;
}

int fw_parse_madt(const void *table, struct fw_cpus *l)
{
	const struct acpi_madt *m = table;

	if (acpi_table_ok(&m->h, sizeof(*m)))
		return -1;
	if (memcmp(m->h.signature, "APIC", 4)) {
		fw_err("smp: ACPI table at %p is %.4s, not a MADT", table, m->h.signature);
		return -1;
	}
	set_apic_base(l, m->lapic_addr, "ACPI MADT");
	return parse_madt_entries(m, l);
}

int fw_parse_rsdt(const void *table, struct fw_cpus *l)
{
	const struct acpi_header *rsdt = table;
	unsigned int i, n;

	if (acpi_table_ok(rsdt, sizeof(*rsdt)))
		return -1;
	if (memcmp(rsdt->signature, "RSDT", 4)) {
		fw_err("smp: ACPI table at %p is %.4s, not an RSDT", table, rsdt->signature);
		return -1;
	}
	n = (rsdt->length - sizeof(*rsdt)) / 4;
	for (i = 0; i < n; i++) {
		u32 addr;
		const struct acpi_header *h;

		memcpy(&addr, (const u8 *)(rsdt + 1) + 4 * i, sizeof(addr));
		h = (const void *)(uintptr_t)addr;
		if (!readable(addr, sizeof(*h))) {
			fw_err("smp: ACPI RSDT entry %u: address %#x unusable; skipped", i, addr);
			continue;
		}
		if (!memcmp(h->signature, "APIC", 4))
			return fw_parse_madt(h, l);
	}
	pr_warn("smp: ACPI RSDT has no MADT\n");
	return -1;
}

static int parse_mp_entries(const struct mp_config *c, struct fw_cpus *l)
{
	const u8 *e = (const u8 *)(c + 1), *end = (const u8 *)c + c->length;
	unsigned int i;

	for (i = 0; i < c->entries; i++) {
		size_t len = e < end && e[0] == MP_PROCESSOR ? MP_PROCESSOR_LEN : MP_OTHER_LEN;

		if (e >= end || (size_t)(end - e) < len || e[0] > 4) {
			fw_err("smp: MP table: entry %u of %u at offset %u is bad or past the end",
			       i, c->entries, (unsigned int)(e - (const u8 *)c));
			return -1;
		}
		if (e[0] == MP_PROCESSOR && (e[3] & MP_CPU_ENABLED))
			list_cpu(l, e[1], "MP table");
		e += len;
	}
	return 0;
}

int fw_parse_mp_config(const void *table, struct fw_cpus *l)
{
	const struct mp_config *c = table;
	unsigned long addr = (uintptr_t)table;

	if (!readable(addr, sizeof(*c)) || memcmp(c->signature, "PCMP", 4) ||
	    c->length < sizeof(*c) || sum_bytes(c, c->length)) {
		fw_err("smp: MP configuration table at %#lx: bad signature, length or checksum",
		       addr);
		return -1;
	}
	set_apic_base(l, c->lapic_addr, "MP table");
	if (parse_mp_entries(c, l))
		return -1;
	pr_info("smp: MP table: %u CPU(s) enabled, local APIC at %#lx\n", fw_cpus_enabled(l),
		l->apic_base);
	return 0;
}

/* Finds signature (len bytes) on a 16-byte boundary in [start, end). */
static unsigned long scan(unsigned long start, unsigned long end, const char *sig, size_t len)
{
	unsigned long p;

	for (p = start; p + 16 <= end; p += 16)
		if (!memcmp((const void *)(uintptr_t)p, sig, len))
			return p;
	return 0;
}

static unsigned long bda_ebda, bda_base_kb;

/* Reads a word of the BIOS data area (page 0, which paging leaves unmapped). */
static u16 read_bda_word(unsigned long addr)
{
	u16 v;

	__asm__ __volatile__("movw (%1), %0" : "=r"(v) : "r"(addr));
	return v;
}

void firmware_save_bda(void)
{
	bda_ebda = (unsigned long)read_bda_word(EBDA_SEG_PTR) << 4;
	bda_base_kb = read_bda_word(BASE_MEM_KB_PTR);
}

static unsigned long ebda_start(void)
{
	unsigned long ebda = bda_ebda;

	return ebda >= 0x80000 && ebda < 0xa0000 ? ebda : 0;
}

/* A valid RSDP in the EBDA's first KiB or the BIOS ROM area, or 0. */
static const struct acpi_rsdp *find_rsdp(void)
{
	unsigned long ebda = ebda_start(), p = 0, from = BIOS_ROM_START;

	if (ebda)
		p = scan(ebda, ebda + 1024, "RSD PTR ", 8);
	while (!p || sum_bytes((const void *)(uintptr_t)p, sizeof(struct acpi_rsdp))) {
		if (p && p >= BIOS_ROM_START)
			fw_err("smp: ACPI RSDP at %#lx: bad checksum; looking on", p);
		if (p >= BIOS_ROM_START)
			from = p + 16;
		p = scan(from, BIOS_ROM_END, "RSD PTR ", 8);
		if (!p)
			return NULL;
	}
	return (const struct acpi_rsdp *)(uintptr_t)p;
}

/* The CPUs from the ACPI MADT; -1 if there is no usable one. */
static int acpi_find_cpus(struct fw_cpus *l)
{
	const struct acpi_rsdp *rsdp = find_rsdp();

	if (!rsdp)
		return -1;
	if (!readable(rsdp->rsdt, sizeof(struct acpi_header))) {
		fw_err("smp: ACPI RSDP at %p: RSDT address %#x unusable", (const void *)rsdp,
		       rsdp->rsdt);
		return -1;
	}
	return fw_parse_rsdt((const void *)(uintptr_t)rsdp->rsdt, l);
}

/* A valid MP floating pointer structure, or NULL. */
static const struct mp_floating *find_mp_floating(void)
{
	unsigned long ebda = ebda_start();
	unsigned long base_kb = bda_base_kb;
	unsigned long where[3][2] = {
		{ ebda, ebda + 1024 },
		{ base_kb * 1024 - 1024, base_kb * 1024 },
		{ 0xf0000, BIOS_ROM_END },
	};
	unsigned long p;
	int i;

	for (i = 0; i < 3; i++) {
		if (where[i][0] < 0x80000 || where[i][1] > BIOS_ROM_END)
			continue;
		for (p = where[i][0]; (p = scan(p, where[i][1], "_MP_", 4)); p += 16) {
			const struct mp_floating *f = (const void *)(uintptr_t)p;

			if (f->length == 1 && !sum_bytes(f, 16))
				return f;
			fw_err("smp: MP floating pointer at %#lx: bad length or checksum", p);
		}
	}
	return NULL;
}

/* The CPUs from the MP configuration table; -1 if there is no usable one. */
static int mp_find_cpus(struct fw_cpus *l)
{
	const struct mp_floating *f = find_mp_floating();

	if (!f)
		return -1;
	if (!f->config) {
		fw_err("smp: MP default configuration %u (no table) is not supported",
		       f->features[0]);
		return -1;
	}
	return fw_parse_mp_config((const void *)(uintptr_t)f->config, l);
}

/* Makes what a table listed the kernel's CPUs: the boot CPU is CPU 0. */
static unsigned int take_cpus(const struct fw_cpus *l)
{
	unsigned int i;

	for (i = 0; i <= l->nr_others; i++) {
		x86_cpus[i].apic_id = l->apic_id[i];
		x86_cpus[i].state = CPU_LISTED;
	}
	apic_phys_base = l->apic_base;
	return l->nr_others + 1;
}

unsigned int firmware_find_cpus(void)
{
	static struct fw_cpus l;	/* __init data in spirit: used once, at boot */
	unsigned int boot_apic = apic_read_id();

	fw_cpus_init(&l, boot_apic);
	if (acpi_find_cpus(&l)) {
		fw_cpus_init(&l, boot_apic);
		if (mp_find_cpus(&l)) {
			pr_warn("smp: no usable ACPI MADT or MP table: one CPU\n");
			return 0;
		}
	}
	if (!l.boot_listed) {
		pr_err("smp: the firmware tables do not list the boot CPU (APIC id %u): one CPU\n",
		       boot_apic);
		return 0;
	}
	if (l.apic_base != APIC_DEFAULT_BASE)
		pr_info("smp: local APIC at a non-default address %#lx\n", l.apic_base);
	return take_cpus(&l);
}
