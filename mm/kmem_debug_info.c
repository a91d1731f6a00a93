/* kmem_debug_info.c - the heap debugging layer's settings (kmem_debug=,
 * kmem_leaks, the letters), its reports (damage, double frees, T lines),
 * kmem_check, the leak listing and the console commands kmem_check,
 * kmem_leaks and kmem_debug.
 *
 * Kept apart from kmem_debug.c, the layer proper (the object table, the
 * quarantines, the API on the allocator's raw entry points), so that it can
 * be measured on its own (size mm/kmem_debug.o), as each allocator's
 * *_info.c is.  kmem_check and the leak listing walk the object table
 * through kdbg_for_each_obj() (mm/kmem_debug.h), under its locks.
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "kmem_debug.h"

/* Letters in force before any setting (the host benchmarks preset them). */
#ifndef KMEM_DEBUG_INITIAL
#define KMEM_DEBUG_INITIAL	0
#endif

#define KDBG_ALL		(KMEM_DEBUG_REDZONE | KMEM_DEBUG_POISON | KMEM_DEBUG_USER)
#define LEAK_GROUPS		64

struct kmem_debug_settings kmem_debug_settings = { .flags = KMEM_DEBUG_INITIAL };
unsigned int kdbg_kmalloc_flags = KMEM_DEBUG_INITIAL;
struct kmem_debug_report kmem_debug_last;
unsigned long kmem_debug_reports;
char kmem_debug_last_trace[KMEM_DEBUG_TRACE_LEN];
unsigned long kmem_debug_traces;
static int leaks_at_boot;

/* ---- settings ---------------------------------------------------------------- */

unsigned int kdbg_flags_for(const struct kmem_debug_settings *s, const char *name)
{
	unsigned int i;

	if (!s->nr_names)
		return s->flags;
	for (i = 0; name && i < s->nr_names; i++)
		if (!strcmp(s->names[i], name))
			return s->flags;
	return 0;
}

static int letter_flag(char c)
{
	switch (c) {
	case 'Z': case 'z': return KMEM_DEBUG_REDZONE;
	case 'P': case 'p': return KMEM_DEBUG_POISON;
	case 'U': case 'u': return KMEM_DEBUG_USER;
	case 'T': case 't': return KMEM_DEBUG_TRACE;
	case '-': return 0;
	}
	return -1;
}

/* Parses one ",NAME" list into s; 0 or -1. */
static int parse_names(struct kmem_debug_settings *s, const char *p)
{
	while (*p == ',') {
		const char *end = ++p;
		size_t n;

		while (*end && *end != ',')
			end++;
		n = (size_t)(end - p);
		if (!n || n >= KMEM_DEBUG_NAME_LEN || s->nr_names == KMEM_DEBUG_NAMES)
			return -1;
		memcpy(s->names[s->nr_names], p, n);
		s->names[s->nr_names++][n] = '\0';
		p = end;
	}
	return *p ? -1 : 0;
}

int kmem_debug_set(const char *spec)
{
	struct kmem_debug_settings s;
	const char *p = spec;
	int f, letters = 0;

	if (!spec)
		return -1;
	memset(&s, 0, sizeof(s));
	for (; *p && *p != ','; p++, letters++) {
		f = letter_flag(*p);
		if (f < 0)
			return -1;
		s.flags |= (unsigned int)f;
	}
	if (!letters)
		s.flags = KDBG_ALL;
	if (parse_names(&s, p))
		return -1;
	kmem_debug_apply(&s);
	return 0;
}

void kmem_debug_apply(const struct kmem_debug_settings *s)
{
	kmem_debug_settings = *s;
	kdbg_kmalloc_flags = kdbg_flags_for(s, "kmalloc");
}

int kmem_debug_active(void)
{
	return READ_ONCE(kmem_debug_settings.flags) != 0;
}

static int kmem_debug_param(const char *val)
{
	return kmem_debug_set(val ? val : "") ? PARSE_BAD : PARSE_OK;
}
kernel_param_opt("kmem_debug", kmem_debug_param,
		 "[=LETTERS][,CACHE...]: heap debugging: Z red zones, P poison, U owners, T trace, "
		 "- none (bare: ZPU); CACHE limits it, kmalloc names kmalloc()");

static int kmem_leaks_param(const char *val)
{
	leaks_at_boot = 1;
	return PARSE_OK;
}
kernel_flag("kmem_leaks", kmem_leaks_param,
	    ": list the live debugged objects by allocating site after the boot actions");

/* ---- reports ------------------------------------------------------------------ */

static size_t text_len;

void kdbg_report_begin(enum kmem_debug_kind kind, const struct kdbg_obj *o)
{
	memset(&kmem_debug_last, 0, sizeof(kmem_debug_last));
	kmem_debug_last.kind = kind;
	text_len = 0;
	if (!o)
		return;
	kmem_debug_last.obj = o->obj;
	kmem_debug_last.cache = kdbg_cache_name(o);
	kmem_debug_last.size = o->size;
	kmem_debug_last.alloc_site = o->alloc_site;
	kmem_debug_last.free_site = o->free_site;
}

/* Prints one line of a report and keeps it in kmem_debug_last.text. */
static __printf(1, 2) void report_line(const char *fmt, ...)
{
	char line[200];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk(KERN_ERR "%s\n", line);
	n = strlen(line);
	if (text_len + n + 2 <= sizeof(kmem_debug_last.text)) {
		memcpy(kmem_debug_last.text + text_len, line, n);
		text_len += n;
		kmem_debug_last.text[text_len++] = '\n';
		kmem_debug_last.text[text_len] = '\0';
	}
}

void kdbg_trace_line(const char *fmt, ...)
{
	char line[KMEM_DEBUG_TRACE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("%s\n", line);
	memcpy(kmem_debug_last_trace, line, sizeof(line));
	kmem_debug_traces++;
}

static void report_owners(const struct kdbg_obj *o)
{
	if (!(o->flags & KMEM_DEBUG_USER)) {
		report_line("  owners not tracked (kmem_debug without U)");
		return;
	}
	report_line("  allocated by %pS at jiffies %lu", o->alloc_site, o->alloc_jiffies);
	if (o->state == OBJ_FREED)
		report_line("  freed by %pS at jiffies %lu", o->free_site, o->free_jiffies);
}

void kdbg_report_damage(enum kmem_debug_kind kind, const struct kdbg_obj *o, const u8 *bad,
			const u8 *end, const char *what, const char *when)
{
	char hex[8 * 3 + 1];
	unsigned int i;

	kdbg_report_begin(kind, o);
	kmem_debug_last.offset = (long)(bad - (const u8 *)o->obj);
	kmem_debug_last.right = bad >= (const u8 *)o->obj;
	for (i = 0; i < 8 && bad + i < end; i++) {
		kmem_debug_last.bytes[i] = bad[i];
		snprintf(hex + 3 * i, 4, " %02x", bad[i]);
	}
	kmem_debug_last.nr_bytes = i;
	hex[3 * i] = '\0';
	kmem_debug_reports++;
	report_line("BUG: kmem_debug: %s %s object %p (%zu bytes) at offset %ld:%s (found %s)%s",
		    what, kmem_debug_last.cache, o->obj, o->size, kmem_debug_last.offset, hex, when,
		    count_report());
	report_owners(o);
}

void kdbg_report_double_free(const struct kdbg_obj *copy, const char *fn, const void *p,
			     void *caller)
{
	kmem_bad_free(fn, p, "double free (the object waits in kmem_debug's quarantine)", caller);
	kdbg_report_begin(KDBG_DOUBLE_FREE, copy);
	kmem_debug_last.free_site2 = caller;
	report_line("  kmem_debug: double free of %s object %p (%zu bytes) by %pS",
		    kmem_debug_last.cache, p, copy->size, caller);
	report_owners(copy);
}

/* ---- checks and leak reports ------------------------------------------------- */

/* Checks o's red zones, and the poison of a quarantined one; adds the
 * damage found to *(int *)bad.  Its bucket's lock held. */
static void check_one(const struct kdbg_obj *o, void *bad)
{
	*(int *)bad += o->state == OBJ_LIVE ? kdbg_check_redzones(o, "by kmem_check")
					    : kdbg_check_freed(o, "by kmem_check");
}

int kmem_check(void)
{
	unsigned long damage0;
	int bad = 0;

	damage0 = kdbg_for_each_obj(check_one, &bad);
	if (damage0) {
		kdbg_report_begin(KDBG_HEADER, NULL);
		kmem_debug_reports++;
		report_line("BUG: kmem_debug: %lu damaged object headers (underflow past the red "
			    "zone?): their hash chains were not followed%s", damage0, count_report());
	}
	return bad + (int)damage0;
}

/* Adds o to the groups g[0..*n) (at most max); 1 if it did not fit. */
static int group_add(struct kmem_leak_group *g, unsigned int *n, unsigned int max,
		     const struct kdbg_obj *o)
{
	const char *cache = o->cache ? o->cache->name : "kmalloc";
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (g[i].site == o->alloc_site && g[i].cache == cache)
			break;
	if (i == *n) {
		if (*n == max)
			return 1;
		g[(*n)++] = (struct kmem_leak_group){ .cache = cache, .site = o->alloc_site,
						      .first_jiffies = o->alloc_jiffies };
	}
	g[i].count++;
	g[i].bytes += o->size;
	g[i].first_jiffies = min(g[i].first_jiffies, o->alloc_jiffies);
	g[i].last_jiffies = max(g[i].last_jiffies, o->alloc_jiffies);
	return 0;
}

/* Where kdbg_leaks_collect() groups the live objects (of only, or all). */
struct leak_walk {
	const struct kdbg_cache *only;
	struct kmem_leak_group *g;
	unsigned int n, max;
	int lost;			/* some did not fit */
};

/* Its bucket's lock held. */
static void leak_one(const struct kdbg_obj *o, void *arg)
{
	struct leak_walk *w = arg;

	if (o->state == OBJ_LIVE && (!w->only || o->cache == w->only))
		w->lost |= group_add(w->g, &w->n, w->max, o);
}

unsigned int kdbg_leaks_collect(const struct kdbg_cache *only, struct kmem_leak_group *g,
				unsigned int max)
{
	struct leak_walk w = { .only = only, .g = g, .max = max };
	unsigned int i, j;

	kdbg_for_each_obj(leak_one, &w);
	for (i = 1; i < w.n; i++)		/* insertion sort, most bytes first */
		for (j = i; j > 0 && g[j].bytes > g[j - 1].bytes; j--) {
			struct kmem_leak_group tmp = g[j];

			g[j] = g[j - 1];
			g[j - 1] = tmp;
		}
	return w.n + (unsigned int)w.lost;
}

unsigned int kmem_leaks_collect(struct kmem_leak_group *g, unsigned int max)
{
	return kdbg_leaks_collect(NULL, g, max);
}

static struct kmem_leak_group leak_groups[LEAK_GROUPS];	/* the printed reports' */

unsigned long kdbg_leaks_print(const struct kdbg_cache *only)
{
	unsigned int n = kdbg_leaks_collect(only, leak_groups, LEAK_GROUPS), i;
	unsigned long objects = 0;

	for (i = 0; i < n && i < LEAK_GROUPS; i++) {
		struct kmem_leak_group *g = &leak_groups[i];

		objects += g->count;
		printk("  %6lu objects %9lu bytes  %-20s allocated by %pS (jiffies %lu..%lu)\n",
		       g->count, g->bytes, g->cache, g->site, g->first_jiffies, g->last_jiffies);
	}
	if (n > LEAK_GROUPS)
		printk("  ... and more sites (only %d are listed)\n", LEAK_GROUPS);
	return objects;
}

unsigned long kmem_leaks_report(void)
{
	unsigned long objects;

	printk("kmem_leaks: live debugged objects by allocating site (%s):\n",
	       kmem_debug_settings.flags & KMEM_DEBUG_USER ? "U on" : "no U: sites unknown");
	objects = kdbg_leaks_print(NULL);
	printk("kmem_leaks: %lu live objects\n", objects);
	return objects;
}

void kmem_debug_show(void)
{
	const struct kmem_debug_settings *s = &kmem_debug_settings;
	struct kdbg_counts c;
	unsigned int i;

	printk("kmem_debug: letters %s%s%s%s%s, for %s", s->flags ? "" : "-",
	       s->flags & KMEM_DEBUG_REDZONE ? "Z" : "", s->flags & KMEM_DEBUG_POISON ? "P" : "",
	       s->flags & KMEM_DEBUG_USER ? "U" : "", s->flags & KMEM_DEBUG_TRACE ? "T" : "",
	       s->nr_names ? "" : "every cache and kmalloc()");
	for (i = 0; i < s->nr_names; i++)
		printk(KERN_CONT "%s%s", i ? "," : "", s->names[i]);
	printk(KERN_CONT "\n");
	kdbg_get_counts(&c);
	printk("kmem_debug: %ld objects tracked, quarantines %lu objects (%lu bytes), "
	       "%lu caches debugged, %lu damage reports\n", c.tracked, c.quarantined,
	       c.quarantined_bytes, c.caches, kmem_debug_reports);
	printk("kmem_debug: flushes waited %lu times for a CPU giving objects back\n",
	       counter_read(&kmem_debug_flush_waits));
}

int kmem_check_command(int argc, char **argv)
{
	int bad = kmem_check();
	struct kdbg_counts c;

	kdbg_get_counts(&c);
	printk("kmem_check: %ld objects checked, %d damaged\n", c.tracked, bad);
	return bad ? -1 : 0;
}

int kmem_leaks_command(int argc, char **argv)
{
	kmem_leaks_report();
	return 0;
}

int kmem_debug_command(int argc, char **argv)
{
	if (argc > 1 && kmem_debug_set(argv[1])) {
		printk("usage: kmem_debug [LETTERS(ZPUT or -)][,CACHE...]\n");
		return -1;
	}
	kmem_debug_show();
	return 0;
}

void kmem_debug_boot_done(void)
{
	if (leaks_at_boot)
		kmem_leaks_report();
}
