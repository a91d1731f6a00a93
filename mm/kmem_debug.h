/* kmem_debug.h - the debugging layer's internal structures, shared by
 * kmem_debug.c (the layer: the object table, the quarantines, the API on
 * the allocator's raw entry points) and kmem_debug_info.c (its settings,
 * reports, kmem_check, the leak listing and the console commands).  Not a
 * public header: callers use <tiny/kmem_debug.h>.
 */
#ifndef MM_KMEM_DEBUG_H
#define MM_KMEM_DEBUG_H

#include <tiny/kernel.h>
#include <tiny/kmem_debug.h>
#include "slab_common.h"

enum { OBJ_LIVE = 1, OBJ_FREED };

/* A debugged cache; the public handle stays the allocator's cache. */
struct kdbg_cache {
	struct kdbg_cache *next;	/* in its caches[] bucket */
	struct kmem_cache *raw;
	const char *name;
	size_t size;			/* the object size asked for */
	size_t off;			/* object offset in the raw object */
	kmem_cache_ctor_t ctor, dtor;
	unsigned int flags;		/* KMEM_DEBUG_* */
};

/* At the start of every debugged block; magic last, nearest the object. */
struct kdbg_obj {
	struct kdbg_obj *hnext;		/* object table chain */
	struct kdbg_obj *qnext;		/* quarantine FIFO */
	struct kdbg_cache *cache;	/* NULL: a kmalloc() block */
	void *obj;			/* the caller's pointer */
	size_t size;			/* asked for */
	size_t rz_end;			/* bytes from obj to the block's end */
	void *alloc_site, *free_site;
	unsigned long alloc_jiffies, free_jiffies;
	unsigned int flags;		/* the letters it was allocated with */
	unsigned int state;		/* OBJ_LIVE or OBJ_FREED (quarantined) */
	uintptr_t magic;		/* its address ^ KDBG_MAGIC */
};

/* The name of o's cache in reports and trace lines. */
static inline const char *kdbg_cache_name(const struct kdbg_obj *o)
{
	return o->cache ? o->cache->name : "kmalloc";
}

/* ---- kmem_debug.c ------------------------------------------------------------ */

/* Calls visit(o, arg) on every object the object table has, each under
 * its bucket's lock; a chain is not followed past a damaged header.
 * Returns how many damaged headers stopped a chain.  Takes the object
 * table's locks in turn. */
unsigned long kdbg_for_each_obj(void (*visit)(const struct kdbg_obj *o, void *arg), void *arg);
/* Check o's red zones (and, quarantined, its poison); report and repair
 * what they find.  Return the damage found. */
int kdbg_check_redzones(const struct kdbg_obj *o, const char *when);
int kdbg_check_freed(const struct kdbg_obj *o, const char *when);

struct kdbg_counts {
	long tracked;			/* objects in the object table */
	unsigned long quarantined, quarantined_bytes;	/* in every CPU's quarantine */
	unsigned long caches;		/* debugged caches */
};
/* Takes the quarantines' locks in turn. */
void kdbg_get_counts(struct kdbg_counts *c);

/* ---- kmem_debug_info.c ---------------------------------------------------------- */

extern unsigned int kdbg_kmalloc_flags;	/* the letters for kmalloc() */
/* The letters for a cache called name ("kmalloc": the kmalloc() blocks). */
unsigned int kdbg_flags_for(const struct kmem_debug_settings *s, const char *name);

/* Starts kmem_debug_last for a report on o (NULL: none). */
void kdbg_report_begin(enum kmem_debug_kind kind, const struct kdbg_obj *o);
/* Reports bytes [bad, end) of o's block found wrong (what says which). */
void kdbg_report_damage(enum kmem_debug_kind kind, const struct kdbg_obj *o, const u8 *bad,
			const u8 *end, const char *what, const char *when);
/* A second free (by caller, through fn) of the quarantined object copy
 * is a copy of: reported with both sites. */
void kdbg_report_double_free(const struct kdbg_obj *copy, const char *fn, const void *p,
			     void *caller);
/* Prints one T line and keeps it in kmem_debug_last_trace. */
__printf(1, 2) void kdbg_trace_line(const char *fmt, ...);

/* The live objects (of only, or all) grouped by cache and site, most bytes
 * first; the number of groups, max + 1 if some did not fit. */
unsigned int kdbg_leaks_collect(const struct kdbg_cache *only, struct kmem_leak_group *g,
				unsigned int max);
/* Prints the live objects (of only, or all) by site; returns how many. */
unsigned long kdbg_leaks_print(const struct kdbg_cache *only);

#endif /* MM_KMEM_DEBUG_H */
