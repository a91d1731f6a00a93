/* test_firmware.c - self-tests of the firmware table parsers (suite
 * "firmware"): the ACPI MADT and RSDT and the MP configuration table.
 *
 * Each case builds its tables in a buffer of its own, right or malformed
 * on purpose (bad checksums, lengths that lie, entries of length zero or
 * running past the end, unknown entry types, unusable addresses, more CPUs
 * than NR_CPUS, a CPU listed twice, an implausible local APIC address),
 * hands them to the parser, and checks what it listed and that every
 * malformation was reported exactly once (fw_table_reports).  A parser
 * that looped on a zero-length entry would hang the case; one that read
 * past a table would list what lies beyond it.  The live CPUs are not
 * touched: the parsers fill a struct fw_cpus, not x86_cpus.
 * Built with CONFIG_SMP only.
 */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/string.h>
#include <asm/apic.h>
#include <asm/firmware.h>

#define ACPI_HDR_LEN	36
#define MADT_HDR_LEN	44
#define MP_HDR_LEN	44
#define BOOT_APIC	2

/* A table being built: its bytes and how many are used. */
struct table {
	u8 b[1024] __aligned(16);
	unsigned int len;
};

static struct table madt, rsdt, other, mp;
static struct fw_cpus cpus;

static void put_u16(u8 *p, u16 v) { memcpy(p, &v, sizeof(v)); }
static void put_u32(u8 *p, u32 v) { memcpy(p, &v, sizeof(v)); }

static void table_start(struct table *t, const char *sig, unsigned int hdr_len)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, sig, 4);
	t->len = hdr_len;
}

static void table_add(struct table *t, const u8 *entry, unsigned int len)
{
	memcpy(t->b + t->len, entry, len);
	t->len += len;
}

/* Makes the bytes of b[0..len) sum to zero by changing b[at]. */
static void fix_checksum(u8 *b, unsigned int len, unsigned int at)
{
	u8 s = 0;
	unsigned int i;

	b[at] = 0;
	for (i = 0; i < len; i++)
		s += b[i];
	b[at] = (u8)-s;
}

/* ACPI tables: length at 4, checksum at 9. */
static void acpi_finish(struct table *t)
{
	put_u32(t->b + 4, t->len);
	fix_checksum(t->b, t->len, 9);
}

static void madt_start(u32 lapic_addr)
{
	table_start(&madt, "APIC", MADT_HDR_LEN);
	put_u32(madt.b + 36, lapic_addr);
	put_u32(madt.b + 40, 1);		/* PC-AT compatible */
}

static void madt_add_lapic(u8 apic_id, u32 flags)
{
	u8 e[8] = { 0, 8, apic_id, apic_id };

	put_u32(e + 4, flags);
	table_add(&madt, e, sizeof(e));
}

static void madt_add_override(u32 addr)
{
	u8 e[12] = { 5, 12 };

	put_u32(e + 4, addr);
	table_add(&madt, e, sizeof(e));
}

static void mp_start(unsigned int entries)
{
	table_start(&mp, "PCMP", MP_HDR_LEN);
	mp.b[6] = 4;				/* spec revision 1.4 */
	put_u16(mp.b + 34, entries);
	put_u32(mp.b + 36, APIC_DEFAULT_BASE);
}

static void mp_add_cpu(u8 apic_id, u8 flags)
{
	u8 e[20] = { 0, apic_id, 0x14, flags };

	table_add(&mp, e, sizeof(e));
}

static void mp_add_bus(void)
{
	u8 e[8] = { 1, 0, 'I', 'S', 'A', ' ', ' ', ' ' };

	table_add(&mp, e, sizeof(e));
}

/* MP configuration table: length at 4 (16 bits), checksum at 7. */
static void mp_finish(void)
{
	put_u16(mp.b + 4, mp.len);
	fix_checksum(mp.b, mp.len, 7);
}

static void rsdt_build(const u32 *tables, unsigned int n)
{
	unsigned int i;

	table_start(&rsdt, "RSDT", ACPI_HDR_LEN);
	for (i = 0; i < n; i++) {
		put_u32(rsdt.b + rsdt.len, tables[i]);
		rsdt.len += 4;
	}
	acpi_finish(&rsdt);
}

static u32 addr_of(const struct table *t)
{
	return (u32)(uintptr_t)t->b;
}

/* The usual machine: CPUs 0, 2 (boot) and 3 enabled, 1 disabled. */
static void build_good_madt(void)
{
	madt_start(APIC_DEFAULT_BASE);
	madt_add_lapic(0, 1);
	madt_add_lapic(1, 0);
	madt_add_lapic(BOOT_APIC, 1);
	madt_add_lapic(3, 1);
	acpi_finish(&madt);
}

static void expect_good_list(struct ktest *t)
{
	KTEST_EXPECT_TRUE(t, cpus.boot_listed);
	KTEST_EXPECT_EQ(t, cpus.apic_id[0], (unsigned int)BOOT_APIC);
	KTEST_EXPECT_EQ(t, cpus.nr_others, 2u);
	KTEST_EXPECT_EQ(t, cpus.apic_id[1], 0u);
	KTEST_EXPECT_EQ(t, cpus.apic_id[2], 3u);
	KTEST_EXPECT_EQ(t, cpus.dropped, 0u);
	KTEST_EXPECT_EQ(t, cpus.apic_base, APIC_DEFAULT_BASE);
}

/* Parses with parse(); checks the result and how many reports it made. */
static int parse_counting(int (*parse)(const void *, struct fw_cpus *), const void *table,
			  int *reports)
{
	unsigned int before = fw_table_reports;
	int ret;

	fw_cpus_init(&cpus, BOOT_APIC);
	WRITE_ONCE(fw_tables_crafted, 1);
	ret = parse(table, &cpus);
	WRITE_ONCE(fw_tables_crafted, 0);
	*reports = (int)(fw_table_reports - before);
	return ret;
}

static void madt_lists_enabled_cpus_boot_first(struct ktest *t)
{
	int reports;

	build_good_madt();
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), 0);
	KTEST_EXPECT_EQ(t, reports, 0);
	expect_good_list(t);
}

static void madt_bad_checksum_refused(struct ktest *t)
{
	int reports;

	build_good_madt();
	madt.b[MADT_HDR_LEN + 3] ^= 0x40;	/* CPU 0 becomes 64: the sum is no longer 0 */
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
	KTEST_EXPECT_EQ(t, cpus.nr_others + cpus.boot_listed, 0u);
}

/* A length of 4 GiB - 1 would sum far past the buffer; one shorter than
 * the MADT's own header would read fields that are not there. */
static void madt_lying_lengths_refused(struct ktest *t)
{
	static const u32 lengths[] = { 0xffffffffu, 0x10001, MADT_HDR_LEN - 1, 0 };
	unsigned int i;
	int reports;

	for (i = 0; i < ARRAY_SIZE(lengths); i++) {
		build_good_madt();
		put_u32(madt.b + 4, lengths[i]);
		KTEST_EXPECT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), -1);
		KTEST_EXPECT_EQ(t, reports, 1);
		KTEST_EXPECT_EQ(t, cpus.nr_others + cpus.boot_listed, 0u);
	}
}

/* An entry of length 0 or 1 would make the walk stand still. */
static void madt_entry_of_length_zero_refused(struct ktest *t)
{
	static const u8 bad_len[] = { 0, 1 };
	unsigned int i;
	int reports;

	for (i = 0; i < ARRAY_SIZE(bad_len); i++) {
		madt_start(APIC_DEFAULT_BASE);
		madt_add_lapic(BOOT_APIC, 1);
		madt_add_lapic(5, 1);
		madt.b[MADT_HDR_LEN + 8 + 1] = bad_len[i];
		acpi_finish(&madt);
		KTEST_EXPECT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), -1);
		KTEST_EXPECT_EQ(t, reports, 1);
	}
}

/* The last entry claims 8 bytes where the table has 4 left: the bytes
 * beyond the table (an enabled CPU 7 here) must not be read as its end. */
static void madt_entry_past_end_refused(struct ktest *t)
{
	int reports;

	madt_start(APIC_DEFAULT_BASE);
	madt_add_lapic(BOOT_APIC, 1);
	madt_add_lapic(7, 1);
	madt.len -= 4;
	acpi_finish(&madt);
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
}

static void madt_cpu_listed_twice_counts_once(struct ktest *t)
{
	int reports;

	madt_start(APIC_DEFAULT_BASE);
	madt_add_lapic(BOOT_APIC, 1);
	madt_add_lapic(4, 1);
	madt_add_lapic(4, 1);
	madt_add_lapic(BOOT_APIC, 1);
	acpi_finish(&madt);
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), 0);
	KTEST_EXPECT_TRUE(t, cpus.boot_listed);
	KTEST_EXPECT_EQ(t, cpus.nr_others, 1u);
	KTEST_EXPECT_EQ(t, cpus.apic_id[1], 4u);
}

/* NR_CPUS + 2 enabled CPUs, the boot CPU last: it still gets slot 0, and
 * the two that do not fit are counted as dropped. */
static void madt_beyond_nr_cpus_dropped(struct ktest *t)
{
	unsigned int i;
	int reports;

	madt_start(APIC_DEFAULT_BASE);
	for (i = 0; i < CONFIG_NR_CPUS + 2; i++)
		if (i != BOOT_APIC)
			madt_add_lapic(i, 1);
	madt_add_lapic(BOOT_APIC, 1);
	acpi_finish(&madt);
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), 0);
	KTEST_EXPECT_TRUE(t, cpus.boot_listed);
	KTEST_EXPECT_EQ(t, cpus.apic_id[0], (unsigned int)BOOT_APIC);
	KTEST_EXPECT_EQ(t, cpus.nr_others, CONFIG_NR_CPUS - 1u);
	KTEST_EXPECT_EQ(t, cpus.dropped, 2u);
	/* the others in table order: 0, 1, 3, 4, ... (2 is the boot CPU) */
	KTEST_EXPECT_EQ(t, cpus.apic_id[CONFIG_NR_CPUS - 1],
			CONFIG_NR_CPUS - 1 > BOOT_APIC ? CONFIG_NR_CPUS - 1u : CONFIG_NR_CPUS - 2u);
}

/* A local APIC at 0 (or unaligned, or in the last page) would have the
 * kernel map and write registers there: refused, the default kept; a
 * plausible override is taken. */
static void madt_apic_address_checked(struct ktest *t)
{
	int reports;

	madt_start(0);
	madt_add_lapic(BOOT_APIC, 1);
	acpi_finish(&madt);
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), 0);
	KTEST_EXPECT_EQ(t, reports, 1);
	KTEST_EXPECT_EQ(t, cpus.apic_base, APIC_DEFAULT_BASE);

	madt_start(APIC_DEFAULT_BASE);
	madt_add_lapic(BOOT_APIC, 1);
	madt_add_override(0xfec01000u);
	madt_add_override(0xfec01234u);
	madt_add_override(0xfffff000u);
	acpi_finish(&madt);
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), 0);
	KTEST_EXPECT_EQ(t, reports, 2);
	KTEST_EXPECT_EQ(t, cpus.apic_base, 0xfec01000u);
}

static void madt_wrong_signature_refused(struct ktest *t)
{
	int reports;

	build_good_madt();
	memcpy(madt.b, "FACP", 4);
	acpi_finish(&madt);
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_madt, madt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
}

/* The RSDT's entries: an unusable address (skipped, reported), another
 * table, then the MADT. */
static void rsdt_finds_madt_past_others(struct ktest *t)
{
	u32 tables[3];
	int reports;

	table_start(&other, "FACP", ACPI_HDR_LEN);
	acpi_finish(&other);
	build_good_madt();
	tables[0] = 0;
	tables[1] = addr_of(&other);
	tables[2] = addr_of(&madt);
	rsdt_build(tables, 3);
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_rsdt, rsdt.b, &reports), 0);
	KTEST_EXPECT_EQ(t, reports, 1);
	expect_good_list(t);
}

static void rsdt_without_madt_or_broken_refused(struct ktest *t)
{
	u32 tables[1];
	int reports;

	table_start(&other, "FACP", ACPI_HDR_LEN);
	acpi_finish(&other);
	tables[0] = addr_of(&other);
	rsdt_build(tables, 1);
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_rsdt, rsdt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 0);		/* a warning: nothing malformed */

	build_good_madt();
	tables[0] = addr_of(&madt);
	rsdt_build(tables, 1);
	rsdt.b[ACPI_HDR_LEN] ^= 1;		/* bad checksum */
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_rsdt, rsdt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);

	rsdt_build(tables, 1);
	madt.b[9] ^= 1;				/* the MADT's checksum */
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_rsdt, rsdt.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
	KTEST_EXPECT_EQ(t, cpus.nr_others + cpus.boot_listed, 0u);
}

static void mp_config_lists_enabled_processors(struct ktest *t)
{
	int reports;

	mp_start(5);
	mp_add_cpu(0, 1);
	mp_add_cpu(1, 0);
	mp_add_bus();
	mp_add_cpu(BOOT_APIC, 1 | 2);
	mp_add_cpu(3, 1);
	mp_finish();
	KTEST_ASSERT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), 0);
	KTEST_EXPECT_EQ(t, reports, 0);
	expect_good_list(t);
}

static void mp_config_malformed_refused(struct ktest *t)
{
	int reports;

	/* an entry type the specification does not define */
	mp_start(2);
	mp_add_cpu(BOOT_APIC, 3);
	mp_add_bus();
	mp.b[MP_HDR_LEN + 20] = 9;
	mp_finish();
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);

	/* more entries counted than the table holds */
	mp_start(3);
	mp_add_cpu(BOOT_APIC, 3);
	mp_add_cpu(4, 1);
	mp_finish();
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);

	/* a processor entry cut short by the table's end */
	mp_start(2);
	mp_add_cpu(BOOT_APIC, 3);
	mp_add_cpu(4, 1);
	mp.len -= 8;
	mp_finish();
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);

	/* a bad checksum, then a length shorter than the header */
	mp_start(1);
	mp_add_cpu(BOOT_APIC, 3);
	mp_finish();
	mp.b[MP_HDR_LEN + 1] ^= 1;
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
	mp_start(0);
	mp_finish();
	put_u16(mp.b + 4, MP_HDR_LEN - 4);
	fix_checksum(mp.b, MP_HDR_LEN - 4, 7);
	KTEST_EXPECT_EQ(t, parse_counting(fw_parse_mp_config, mp.b, &reports), -1);
	KTEST_EXPECT_EQ(t, reports, 1);
}

static const struct ktest_case firmware_cases[] = {
	KTEST_CASE(madt_lists_enabled_cpus_boot_first),
	KTEST_CASE(madt_bad_checksum_refused),
	KTEST_CASE(madt_lying_lengths_refused),
	KTEST_CASE(madt_entry_of_length_zero_refused),
	KTEST_CASE(madt_entry_past_end_refused),
	KTEST_CASE(madt_cpu_listed_twice_counts_once),
	KTEST_CASE(madt_beyond_nr_cpus_dropped),
	KTEST_CASE(madt_apic_address_checked),
	KTEST_CASE(madt_wrong_signature_refused),
	KTEST_CASE(rsdt_finds_madt_past_others),
	KTEST_CASE(rsdt_without_madt_or_broken_refused),
	KTEST_CASE(mp_config_lists_enabled_processors),
	KTEST_CASE(mp_config_malformed_refused),
	{}
};

static const struct ktest_suite firmware_suite = { .name = "firmware", .cases = firmware_cases };
KTEST_SUITE(firmware_suite);
