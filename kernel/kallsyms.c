/* kallsyms.c - looks up the function that holds a kernel text address.
 *
 * The tables are generated after a first link by scripts/kallsyms (from
 * "nm -n vmlinux") and linked into .rodata, after the text, so that adding
 * them moves no function (the Makefile relinks until the table it
 * generates from the result is the one already linked in).  Their layout
 * is described in scripts/kallsyms.
 */
#include <tiny/kernel.h>
#include <tiny/kallsyms.h>
#include <tiny/string.h>

#define KALLSYMS_MARKER_EVERY	32	/* as in scripts/kallsyms */

extern const u32 kallsyms_num, kallsyms_end;
extern const u32 kallsyms_addresses[], kallsyms_markers[];
extern const char kallsyms_names[];

unsigned long kallsyms_count(void)
{
	return kallsyms_num;
}

/* The name of symbol i (< kallsyms_num). */
static const char *symbol_name(unsigned long i)
{
	const char *p = kallsyms_names + kallsyms_markers[i / KALLSYMS_MARKER_EVERY];
	unsigned long skip = i % KALLSYMS_MARKER_EVERY;

	while (skip--)
		p += strlen(p) + 1;
	return p;
}

/* The index of the last symbol starting at or below addr, or -1. */
static long symbol_index(unsigned long addr)
{
	unsigned long lo = 0, hi = kallsyms_num;

	if (!kallsyms_num || addr < kallsyms_addresses[0] || addr >= kallsyms_end)
		return -1;
	while (hi - lo > 1) {		/* addresses[lo] <= addr < addresses[hi] */
		unsigned long mid = lo + (hi - lo) / 2;

		if (kallsyms_addresses[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

const char *kallsyms_lookup(unsigned long addr, unsigned long *offset, unsigned long *size)
{
	long i = symbol_index(addr);
	unsigned long end;

	if (i < 0)
		return NULL;
	end = (unsigned long)i + 1 < kallsyms_num ? kallsyms_addresses[i + 1] : kallsyms_end;
	if (offset)
		*offset = addr - kallsyms_addresses[i];
	if (size)
		*size = end - kallsyms_addresses[i];
	return symbol_name((unsigned long)i);
}

unsigned long kallsyms_lookup_name(const char *name)
{
	const char *p = kallsyms_names;
	unsigned long i;

	for (i = 0; i < kallsyms_num; i++, p += strlen(p) + 1)
		if (!strcmp(p, name))
			return kallsyms_addresses[i];
	return 0;
}
