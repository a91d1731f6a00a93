/* kallsyms.h - function names for kernel text addresses, from a table that
 * scripts/kallsyms generates from the linked vmlinux (CONFIG_KALLSYMS).
 *
 * Reports use it through printk's %pS ("func+0x1c/0x80") and %ps ("func").
 * Without CONFIG_KALLSYMS every lookup fails and %pS prints the address.
 */
#ifndef TINY_KALLSYMS_H
#define TINY_KALLSYMS_H

#include <tiny/types.h>
#include <tiny/kconfig.h>

#if IS_ENABLED(CONFIG_KALLSYMS)
/*
 * The function that contains addr: returns its name (NUL-terminated, in the
 * table) and sets *offset to addr minus its start and *size
 * to its length (up to the next function).  Returns NULL, setting nothing,
 * for an address outside the kernel's text.  Any context, no lock.
 */
const char *kallsyms_lookup(unsigned long addr, unsigned long *offset, unsigned long *size);
/* The start of the function called name, or 0 if there is none. */
unsigned long kallsyms_lookup_name(const char *name);
/* Number of functions in the table (0 in the first link). */
unsigned long kallsyms_count(void);
#else
static inline const char *kallsyms_lookup(unsigned long addr, unsigned long *offset,
					  unsigned long *size)
{
	return NULL;
}
static inline unsigned long kallsyms_lookup_name(const char *name)
{
	return 0;
}
static inline unsigned long kallsyms_count(void)
{
	return 0;
}
#endif

#endif /* TINY_KALLSYMS_H */
