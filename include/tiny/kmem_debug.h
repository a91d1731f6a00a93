/* kmem_debug.h - heap debugging for every object allocator
 * (CONFIG_DEBUG_KMEM, mm/kmem_debug.c): red zones, poisoning with a
 * quarantine, owner tracking, leak reports, and the checks that find
 * damage.  The boot parameter kmem_debug= (and kmem_debug_set()) chooses:
 *
 *   kmem_debug=[LETTERS][,NAME...]
 *     Z  red zones before and after each object (up to the end of the
 *        allocator's block), checked on free, by kmem_check() and when a
 *        poisoned object leaves the quarantine
 *     P  poisoning: a freed object is filled with 0x6b and kept in a FIFO
 *        quarantine; its poison is checked when it leaves (and by
 *        kmem_check()); a second free of it is reported with both sites
 *     U  owner tracking: allocating and freeing call site and jiffies
 *     T  print each allocation and free, one line each:
 *          "kmem_debug: alloc CACHE SIZE bytes = OBJ by SITE" and
 *          "kmem_debug: free CACHE SIZE bytes OBJ by SITE" (SITE as %pS)
 *     -  nothing (no letter at all means ZPU)
 *   NAMEs limit the letters to the caches named; "kmalloc" names the
 *   kmalloc() blocks.  Without the parameter nothing is debugged.
 *
 * Settings apply to caches created and kmalloc() blocks allocated after
 * they are made; every object keeps the letters it was allocated with.
 * With any letter, every double free of such an object is reported, also
 * those the allocator does not catch by itself (kmem_checks in
 * mm/slab_common.h); with P the report names both freeing sites.
 * Without CONFIG_DEBUG_KMEM the calls below are no-ops returning 0.
 */
#ifndef TINY_KMEM_DEBUG_H
#define TINY_KMEM_DEBUG_H

#include <tiny/kconfig.h>
#include <tiny/types.h>

#define KMEM_DEBUG_REDZONE	0x1	/* Z */
#define KMEM_DEBUG_POISON	0x2	/* P */
#define KMEM_DEBUG_USER		0x4	/* U */
#define KMEM_DEBUG_TRACE	0x8	/* T */

#define KMEM_DEBUG_NAMES	8	/* caches a setting may name */
#define KMEM_DEBUG_NAME_LEN	24	/* bytes of a name, NUL included */
#define KMEM_DEBUG_TRACE_LEN	160	/* bytes of a T line kept, NUL included */

struct kmem_debug_settings {
	unsigned int flags;		/* KMEM_DEBUG_* */
	unsigned int nr_names;		/* 0: every cache and kmalloc() */
	char names[KMEM_DEBUG_NAMES][KMEM_DEBUG_NAME_LEN];
};

/* What the last report said, for the self-tests. */
enum kmem_debug_kind {
	KDBG_NONE, KDBG_REDZONE, KDBG_USE_AFTER_FREE, KDBG_DOUBLE_FREE, KDBG_BAD_FREE,
	KDBG_HEADER,
};
struct kmem_debug_report {
	enum kmem_debug_kind kind;
	const void *obj;		/* the caller's pointer */
	const char *cache;		/* "kmalloc" or the cache's name */
	size_t size;			/* the size asked for */
	long offset;			/* of the first bad byte from obj (negative: before) */
	int right;			/* red zone: 1 after the object, 0 before */
	unsigned char bytes[8];		/* the first bad bytes */
	unsigned int nr_bytes;
	void *alloc_site, *free_site;	/* NULL without U */
	void *free_site2;		/* double free: the second free */
	void *caller;			/* bad free: the caller the report names */
	char text[400];			/* the report's lines */
};

/* A group of live objects for the leak report. */
struct kmem_leak_group {
	const char *cache;
	void *site;			/* allocating call site (NULL without U) */
	unsigned long count, bytes;
	unsigned long first_jiffies, last_jiffies;
};

#if IS_ENABLED(CONFIG_DEBUG_KMEM)
extern struct kmem_debug_settings kmem_debug_settings;
extern struct kmem_debug_report kmem_debug_last;
extern unsigned long kmem_debug_reports;	/* damage reports printed */
extern char kmem_debug_last_trace[KMEM_DEBUG_TRACE_LEN];	/* the last T line */
extern unsigned long kmem_debug_traces;		/* T lines printed */

/* Parses "[LETTERS][,NAME...]" (above) into the settings; 0, or -1 with
 * the settings unchanged.  Process context. */
int kmem_debug_set(const char *spec);
/* Puts saved settings back (as kmem_debug_set() would have made them). */
void kmem_debug_apply(const struct kmem_debug_settings *s);
/* Prints the settings, the objects tracked and the quarantine. */
void kmem_debug_show(void);
/* Checks the red zones of every tracked object and the poison of every
 * quarantined one; reports (and repairs) each damage; returns the count. */
int kmem_check(void);
/* Empties every CPU's quarantine, checking each object; returns the damage
 * found.  On return every object freed before the call is back with the
 * allocator, also those another CPU was giving back meanwhile (it waits
 * for them). */
int kmem_debug_flush(void);
/* The times a flush found a CPU's quarantine busy (its CPU, or another
 * flush, giving objects back) and waited for it. */
extern unsigned long kmem_debug_flush_waits;
/* For the self-tests: called (if set) with each object's caller's pointer
 * as it leaves a quarantine, before the allocator has it back, on the CPU
 * that gives it back, interrupts off.  The window a flush must wait out. */
extern void (*kmem_debug_leaving_hook)(const void *obj);
/* Fills g (up to max) with the live tracked objects grouped by cache and
 * allocating site, most bytes first; returns the number of groups (more
 * than max if they did not fit). */
unsigned int kmem_leaks_collect(struct kmem_leak_group *g, unsigned int max);
/* Prints the leak report; returns the number of live objects tracked. */
unsigned long kmem_leaks_report(void);
/* Does a setting debug caches created or kmalloc() blocks allocated now
 * (any letter, for any cache)?  The allocators' own self-tests, which
 * read the allocator's layout behind the public handle, skip then. */
int kmem_debug_active(void);
/* Bytes from obj to the end of its allocator block (where its right red
 * zone ends) if obj is a tracked live object, else 0. */
size_t kmem_debug_block_end(const void *obj);
/* The console commands kmem_check, kmem_leaks and kmem_debug [SPEC]. */
int kmem_check_command(int argc, char **argv);
int kmem_leaks_command(int argc, char **argv);
int kmem_debug_command(int argc, char **argv);
/* After the boot actions: the leak report if the kmem_leaks flag asked. */
void kmem_debug_boot_done(void);
#else
static inline int kmem_debug_set(const char *spec)
{
	(void)spec;
	return -1;
}
static inline int kmem_check(void)
{
	return 0;
}
static inline int kmem_debug_active(void)
{
	return 0;
}
static inline void kmem_debug_boot_done(void)
{
}
#endif

#endif /* TINY_KMEM_DEBUG_H */
