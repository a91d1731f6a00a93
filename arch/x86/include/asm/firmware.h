/* firmware.h - parsing the firmware's CPU tables (ACPI MADT/RSDT, the MP
 * configuration table) into a list, apart from finding them in memory, so
 * that the self-tests can feed the parsers tables they built themselves,
 * malformed on purpose (suite "firmware", tests/kernel/test_firmware.c).
 *
 * Every parser checks before it reads: a table's length against a sane
 * limit and its checksum, every entry against the table's end.  A parser
 * that finds something wrong reports it (pr_err, counted in
 * fw_table_reports) and returns -1; what it had listed is then worthless
 * and the caller starts again from fw_cpus_init().
 */
#ifndef ASM_FIRMWARE_H
#define ASM_FIRMWARE_H

#include <tiny/types.h>

/* The CPUs one table lists.  Slot 0 is kept for the boot CPU, whatever
 * its place in the table; the others fill slots 1.. in table order. */
struct fw_cpus {
	unsigned int boot_apic;			/* in: the boot CPU's APIC id */
	unsigned int apic_id[CONFIG_NR_CPUS];	/* [0] the boot CPU's, once listed */
	unsigned int nr_others;			/* slots 1..nr_others are filled */
	unsigned int dropped;			/* enabled CPUs beyond NR_CPUS */
	int boot_listed;			/* the table listed boot_apic */
	unsigned long apic_base;		/* the local APIC's physical address */
};

/* Complaints about malformed tables since boot (the self-tests count them). */
extern unsigned int fw_table_reports;
/* Set by the self-tests while the parsers read a table they made (and
 * broke on purpose): each complaint then says it is expected. */
extern int fw_tables_crafted;

/* Empties l for a table, for the boot CPU with APIC id boot_apic. */
void fw_cpus_init(struct fw_cpus *l, unsigned int boot_apic);
/* The enabled CPUs of an ACPI MADT ("APIC") at table: 0, or -1 reported. */
int fw_parse_madt(const void *table, struct fw_cpus *l);
/* The first MADT an ACPI RSDT at table points to: 0, or -1 reported (no
 * MADT, or a malformed RSDT or MADT). */
int fw_parse_rsdt(const void *table, struct fw_cpus *l);
/* The enabled processors of an MP configuration table ("PCMP"): 0, or -1
 * reported. */
int fw_parse_mp_config(const void *table, struct fw_cpus *l);

/* Finds the CPUs in the ACPI MADT or the MP table (acpi.c); returns how
 * many it listed in x86_cpus (state CPU_LISTED, boot CPU first), 0 if no
 * usable table. */
unsigned int firmware_find_cpus(void);
/* Keeps the EBDA's address and the base memory size from the BIOS data
 * area for firmware_find_cpus().  Before paging_init() unmaps page 0. */
void firmware_save_bda(void);

#endif /* ASM_FIRMWARE_H */
