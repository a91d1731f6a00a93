/* kmem_debug.c - heap debugging (CONFIG_DEBUG_KMEM), one layer for every
 * allocator: it implements the public API of <tiny/slab.h> on top of the
 * allocator's raw entry points (__kmalloc, __kmem_cache_alloc, ...: see
 * mm/slab_common.h, whose KMEM_PUBLIC() leaves the public names to this
 * file when CONFIG_DEBUG_KMEM is set).
 *
 * An object debugged (kmem_debug= letters, <tiny/kmem_debug.h>) lives in
 * a larger block of the allocator:
 *
 *   [struct kdbg_obj][left red zone][object][right red zone ... block end]
 *
 * The header is aligned as the cache asked (the object offset is a
 * multiple of the alignment), the right red zone runs to the end of what
 * the allocator gave (raw ksize: a size class's or a large block's slack
 * too).  Every debugged object is in the object table (a hash of headers by the
 * caller's pointer): a pointer is trusted only when the object table has it,
 * so a bad pointer never makes the layer read a header.  A debugged cache
 * refuses any pointer the object table does not know.  Other pointers the
 * object table does not know go to the allocator, whose own checks report
 * them, naming the layer's caller (forward_begin(), kmem_debug_bad_free()):
 * kfree() cannot tell a block allocated while kmalloc() was not debugged.
 * What the layer can know: a debugged object's pointer lies inside an
 * allocator block (after the header), never at its start, so once the
 * object table has forgotten it (freed, and out of the quarantine) the
 * allocator's object-start check refuses it.  Every double free of a
 * debugged object is therefore reported, also those the allocator itself
 * does not catch (SLAB: after other frees, or from two CPUs at once).
 * The site recorded is the caller of the API, or for kmalloc_track_caller()
 * and its kin (the helpers of mm/util.c) the caller it is given.  Freed
 * objects with P are poisoned and wait in a FIFO quarantine (bounded by
 * count and bytes) before the allocator gets them back; their
 * poison and red zones are checked when they leave.  A debugged cache with
 * a constructor gets it run by the layer on every allocation and its
 * destructor on every free (SLOB's contract, for SLAB too), so the whole
 * object may be poisoned in between.  Reports name the object, its cache,
 * the bad bytes and the owners (%pS), and repair what they report, so a
 * damage is reported once.
 *
 * Quarantines.  Each CPU has its own, and a free puts the object in the
 * freeing CPU's.  An object leaves a quarantine only under that
 * quarantine's lock, which stays held until the allocator has the object
 * back, so an object a caller has freed is always either in a quarantine
 * or back with the allocator, never in a list only one CPU can see.  A
 * flush takes every CPU's quarantine lock in turn and empties each: when it
 * returns, every object freed before it began is back with the allocator,
 * also those another CPU was giving back meanwhile (it waited for them),
 * and a destroy after a flush finds the cache empty (objects on
 * their way out of another CPU's quarantine were once in neither place,
 * and the destroy failed on them).  Per CPU rather than per cache: a free
 * takes only its own CPU's lock, which no other CPU takes but a flush, so
 * no lock is the one every CPU queues on (with a quarantine per cache,
 * every CPU's kmalloc() frees would share one), and a flush visits one
 * quarantine per CPU.  The bounds hold per CPU.
 *
 * Locks, none taken by every CPU on every call:
 *   - obj_table_locks[]: bucket h of the object table is guarded by
 *     obj_table_locks[h % OBJ_TABLE_LOCKS]: its chain, and the state and free
 *     site of the objects on it;
 *   - quarantines[cpu].lock: that CPU's FIFO and its counts;
 *   - cache_locks[]: one per CPU for the table of debugged caches (and the
 *     descriptor pool): a lookup takes its own CPU's, a create or destroy
 *     every CPU's, in CPU order;
 *   - report_lock: kmem_debug_last, for the allocators' bad-pointer reports.
 * All are taken with interrupts saved.  Lock order: a quarantine's lock,
 * then an object table lock or the allocator's locks (never both at once: the
 * allocator is called with no object table or cache lock held), then
 * report_lock, which the allocator takes to report.  cache_locks nest in
 * CPU order and nothing else is taken inside them.
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/kmem_debug.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "slab_common.h"

/* Letters in force before any setting (the host benchmarks preset them). */
#ifndef KMEM_DEBUG_INITIAL
#define KMEM_DEBUG_INITIAL	0
#endif

#define KDBG_ALL		(KMEM_DEBUG_REDZONE | KMEM_DEBUG_POISON | KMEM_DEBUG_USER)
#define RZ_BYTES		16		/* least red zone on each side */
#define RZ_BYTE			0xcc
#define POISON_BYTE		0x6b
#define KDBG_MAGIC		0x6b646267UL
#define QUARANTINE_OBJECTS	256
#define QUARANTINE_BYTES	(256UL << 10)
#define OBJ_TABLE_BITS		14
#define OBJ_TABLE_LOCKS		64		/* a power of 2 */
#define MAX_DEBUG_CACHES	128		/* later caches are not debugged */
#define CACHE_BUCKETS		64
#define LEAK_GROUPS		64

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

/* Offset of a kmalloc() object in its block. */
#define KM_OFF	ALIGN(sizeof(struct kdbg_obj) + RZ_BYTES, KMALLOC_MIN_ALIGN)

struct kmem_debug_settings kmem_debug_settings = { .flags = KMEM_DEBUG_INITIAL };
struct kmem_debug_report kmem_debug_last;
unsigned long kmem_debug_reports;

static unsigned int kmalloc_flags = KMEM_DEBUG_INITIAL;	/* letters for kmalloc() */

/* A lock on a cache line of its own. */
struct kdbg_lock {
	spinlock_t lock;
} __aligned(L1_CACHE_BYTES);

/* One CPU's quarantine: a FIFO of poisoned objects, oldest first. */
struct quarantine {
	spinlock_t lock;
	struct kdbg_obj *head, *tail;
	unsigned long count, bytes;
} __aligned(L1_CACHE_BYTES);

static struct kdbg_lock obj_table_locks[OBJ_TABLE_LOCKS] = {
	[0 ... OBJ_TABLE_LOCKS - 1] = { .lock = __SPIN_LOCK_UNLOCKED(obj_table_lock) },
};
static struct kdbg_lock cache_locks[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = { .lock = __SPIN_LOCK_UNLOCKED(cache_lock) },
};
static struct quarantine quarantines[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = { .lock = __SPIN_LOCK_UNLOCKED(quarantine.lock) },
};
static DEFINE_SPINLOCK(report_lock);
static struct kdbg_obj *obj_table[1 << OBJ_TABLE_BITS];
static struct kdbg_cache *caches[CACHE_BUCKETS];
static atomic_long_t nr_tracked;
static unsigned long nr_caches;		/* written under every cache lock, read anywhere */
unsigned long kmem_debug_flush_waits;	/* counter_inc() */
void (*kmem_debug_leaving_hook)(const void *obj);
static int leaks_at_boot;
/* Descriptors of debugged caches: a static pool, so that they take no
 * memory the allocator would count as handed out (bytes_used). */
static struct kdbg_cache cache_pool[MAX_DEBUG_CACHES];
static struct kdbg_cache *pool_free;
static unsigned int pool_used;
char kmem_debug_last_trace[KMEM_DEBUG_TRACE_LEN];
unsigned long kmem_debug_traces;

/*
 * A call the layer forwards to the allocator, one per CPU: while it runs,
 * the allocator's bad-pointer reports on obj or obj2 name caller (the
 * layer's caller), not the layer.  Saved and put back around the call, so
 * an interrupt forwarding its own call in between changes nothing.
 */
struct kdbg_forward {
	const void *obj, *obj2;
	void *caller;
};
static struct kdbg_forward forwarding[NR_CPUS];

/* ---- object table and cache table ---------------------------------------- */

static unsigned int obj_hash(const void *p)
{
	return ((u32)((uintptr_t)p >> 3) * 2654435761u) >> (32 - OBJ_TABLE_BITS);
}

/* The lock of object table bucket h (and of every OBJ_TABLE_LOCKS-th bucket
 * from h % OBJ_TABLE_LOCKS). */
static spinlock_t *bucket_lock(unsigned int h)
{
	return &obj_table_locks[h % OBJ_TABLE_LOCKS].lock;
}

/* The lock of the object table bucket of the caller's pointer p. */
static spinlock_t *obj_table_lock(const void *p)
{
	return bucket_lock(obj_hash(p));
}

static int header_ok(const struct kdbg_obj *o)
{
	return o->magic == ((uintptr_t)o ^ KDBG_MAGIC);
}

/* The tracked object whose caller's pointer is p, or NULL.  A chain with a
 * damaged header is not followed past it (kmem_check reports it).
 * obj_table_lock(p) held. */
static struct kdbg_obj *obj_table_find(const void *p)
{
	struct kdbg_obj *o;

	assert_spin_held(obj_table_lock(p));
	for (o = obj_table[obj_hash(p)]; o; o = o->hnext) {
		if (!header_ok(o))
			return NULL;
		if (o->obj == p)
			return o;
	}
	return NULL;
}

/* obj_table_lock(o->obj) held, for both. */
static void obj_table_add(struct kdbg_obj *o)
{
	unsigned int h = obj_hash(o->obj);

	assert_spin_held(bucket_lock(h));
	o->hnext = obj_table[h];
	obj_table[h] = o;
	atomic_long_inc(&nr_tracked);
}

static void obj_table_del(struct kdbg_obj *o)
{
	struct kdbg_obj **pp;

	assert_spin_held(obj_table_lock(o->obj));
	for (pp = &obj_table[obj_hash(o->obj)]; *pp; pp = &(*pp)->hnext)
		if (*pp == o) {
			*pp = o->hnext;
			atomic_long_dec(&nr_tracked);
			return;
		}
}

/* Takes o (tracked) out of the object table.  Takes its lock. */
static void obj_table_forget(struct kdbg_obj *o)
{
	spinlock_t *lock = obj_table_lock(o->obj);
	unsigned long save;

	spin_lock_irqsave(lock, save);
	obj_table_del(o);
	spin_unlock_irqrestore(lock, save);
}

/* Is p the header of a tracked kmalloc() block (p is no caller's pointer)?
 * Takes the lock of that block's bucket. */
static int header_at(const void *p)
{
	const void *obj = (const char *)p + KM_OFF;
	spinlock_t *lock = obj_table_lock(obj);
	struct kdbg_obj *o;
	unsigned long save;

	spin_lock_irqsave(lock, save);
	o = obj_table_find(obj);
	spin_unlock_irqrestore(lock, save);
	return o && !o->cache;
}

static unsigned int cache_hash(const struct kmem_cache *c)
{
	return ((u32)((uintptr_t)c >> 4) * 2654435761u) >> (32 - 6);
}

/* The debugged cache whose handle is c, or NULL.  Takes this CPU's cache
 * lock. */
static struct kdbg_cache *cache_find(const struct kmem_cache *c)
{
	struct kdbg_cache *dc;
	unsigned long save;
	spinlock_t *lock;

	if (!READ_ONCE(nr_caches))
		return NULL;
	local_irq_save(save);
	lock = &cache_locks[smp_processor_id()].lock;
	spin_lock(lock);
	for (dc = caches[cache_hash(c)]; dc && dc->raw != c; dc = dc->next)
		;
	spin_unlock(lock);
	local_irq_restore(save);
	return dc;
}

/* Takes every CPU's cache lock, in CPU order, with interrupts saved (the
 * value returned, for caches_unlock_all()): the cache table and the pool
 * are then this CPU's to change. */
static unsigned long caches_lock_all(void)
{
	unsigned long save;
	unsigned int cpu;

	local_irq_save(save);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		spin_lock(&cache_locks[cpu].lock);
	return save;
}

static void caches_unlock_all(unsigned long save)
{
	unsigned int cpu = NR_CPUS;

	while (cpu--)
		spin_unlock(&cache_locks[cpu].lock);
	local_irq_restore(save);
}

/* Adds dc to the table, or takes it out.  Every cache lock held. */
static void cache_link(struct kdbg_cache *dc)
{
	struct kdbg_cache **head = &caches[cache_hash(dc->raw)];

	assert_spin_held(&cache_locks[smp_processor_id()].lock);
	dc->next = *head;
	*head = dc;
	WRITE_ONCE(nr_caches, nr_caches + 1);
}

static void cache_unlink(struct kdbg_cache *dc)
{
	struct kdbg_cache **pp;

	assert_spin_held(&cache_locks[smp_processor_id()].lock);
	for (pp = &caches[cache_hash(dc->raw)]; *pp != dc; pp = &(*pp)->next)
		;
	*pp = dc->next;
	WRITE_ONCE(nr_caches, nr_caches - 1);
}

/* A free descriptor from the pool, or NULL.  Every cache lock held. */
static struct kdbg_cache *desc_get(void)
{
	struct kdbg_cache *dc = pool_free;

	assert_spin_held(&cache_locks[smp_processor_id()].lock);	/* and every other */
	if (dc)
		pool_free = dc->next;
	else if (pool_used < MAX_DEBUG_CACHES)
		dc = &cache_pool[pool_used++];
	return dc;
}

static void desc_put(struct kdbg_cache *dc)
{
	assert_spin_held(&cache_locks[smp_processor_id()].lock);	/* and every other */
	dc->next = pool_free;
	pool_free = dc;
}

/* ---- settings ---------------------------------------------------------------- */

/* The letters for a cache called name ("kmalloc": the kmalloc() blocks). */
static unsigned int flags_for(const struct kmem_debug_settings *s, const char *name)
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
	kmalloc_flags = flags_for(s, "kmalloc");
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

/* The name of o's cache in reports and trace lines. */
static const char *cache_name(const struct kdbg_obj *o)
{
	return o->cache ? o->cache->name : "kmalloc";
}

/* Starts kmem_debug_last for a report on o (NULL: none). */
static void report_begin(enum kmem_debug_kind kind, const struct kdbg_obj *o)
{
	memset(&kmem_debug_last, 0, sizeof(kmem_debug_last));
	kmem_debug_last.kind = kind;
	text_len = 0;
	if (!o)
		return;
	kmem_debug_last.obj = o->obj;
	kmem_debug_last.cache = cache_name(o);
	kmem_debug_last.size = o->size;
	kmem_debug_last.alloc_site = o->alloc_site;
	kmem_debug_last.free_site = o->free_site;
}

/* Prints one line of a report and keeps it in kmem_debug_last.text. */
static __printf(1, 2) void report_line(const char *fmt, ...)
{
	char line[160];
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

/* Prints one T line and keeps it in kmem_debug_last_trace. */
static __printf(1, 2) void trace_line(const char *fmt, ...)
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

/* Reports bytes [bad, end) of o's block found wrong (what says which). */
static void report_damage(enum kmem_debug_kind kind, const struct kdbg_obj *o, const u8 *bad,
			  const u8 *end, const char *what, const char *when)
{
	char hex[8 * 3 + 1];
	unsigned int i;

	report_begin(kind, o);
	kmem_debug_last.offset = (long)(bad - (const u8 *)o->obj);
	kmem_debug_last.right = bad >= (const u8 *)o->obj;
	for (i = 0; i < 8 && bad + i < end; i++) {
		kmem_debug_last.bytes[i] = bad[i];
		snprintf(hex + 3 * i, 4, " %02x", bad[i]);
	}
	kmem_debug_last.nr_bytes = i;
	hex[3 * i] = '\0';
	kmem_debug_reports++;
	count_report();
	report_line("BUG: kmem_debug: %s %s object %p (%zu bytes) at offset %ld:%s (found %s)",
		    what, kmem_debug_last.cache, o->obj, o->size, kmem_debug_last.offset, hex, when);
	report_owners(o);
}

/* Checks one red zone of o; reports and repairs it.  1 if it was broken. */
static int check_zone(const struct kdbg_obj *o, u8 *zone, size_t n, const char *what,
		      const char *when)
{
	const u8 *bad = memchr_inv(zone, RZ_BYTE, n);

	if (!bad)
		return 0;
	report_damage(KDBG_REDZONE, o, bad, zone + n, what, when);
	memset(zone, RZ_BYTE, n);
	return 1;
}

static int check_redzones(const struct kdbg_obj *o, const char *when)
{
	u8 *obj = o->obj, *left = (u8 *)(o + 1);

	if (!(o->flags & KMEM_DEBUG_REDZONE))
		return 0;
	return check_zone(o, left, (size_t)(obj - left), "red zone overwritten before", when) +
	       check_zone(o, obj + o->size, o->rz_end - o->size, "red zone overwritten after", when);
}

/* Checks a quarantined object's red zones and poison; reports and repairs. */
static int check_freed(const struct kdbg_obj *o, const char *when)
{
	int bad = check_redzones(o, when);
	const u8 *b;

	if (!(o->flags & KMEM_DEBUG_POISON))
		return bad;
	b = memchr_inv(o->obj, POISON_BYTE, o->size);
	if (!b)
		return bad;
	report_damage(KDBG_USE_AFTER_FREE, o, b, (const u8 *)o->obj + o->size, "write after free to",
		      when);
	memset(o->obj, POISON_BYTE, o->size);
	return bad + 1;
}

/* ---- allocation and free ---------------------------------------------------- */

static void *raw_alloc(struct kdbg_cache *dc, size_t size, gfp_t gfp)
{
	return dc ? __kmem_cache_alloc(dc->raw, gfp) : __kmalloc(size, gfp);
}

static void raw_release(struct kdbg_obj *o)
{
	if (o->cache)
		__kmem_cache_free(o->cache->raw, o);
	else
		__kfree(o);
}

/* Lays out a debugged object in raw and tracks it; returns the caller's pointer. */
static void *obj_setup(void *raw, struct kdbg_cache *dc, size_t off, size_t size,
		       size_t rz_end, unsigned int flags, gfp_t gfp, void *caller)
{
	struct kdbg_obj *o = raw;
	u8 *obj = (u8 *)raw + off;
	unsigned long save;

	memset(o, 0, sizeof(*o));
	o->cache = dc;
	o->obj = obj;
	o->size = size;
	o->rz_end = rz_end;
	o->flags = flags;
	o->state = OBJ_LIVE;
	o->magic = (uintptr_t)o ^ KDBG_MAGIC;
	if (flags & KMEM_DEBUG_USER) {
		o->alloc_site = caller;
		o->alloc_jiffies = jiffies;
	}
	if (flags & KMEM_DEBUG_REDZONE) {
		memset(o + 1, RZ_BYTE, off - sizeof(*o));
		memset(obj + size, RZ_BYTE, rz_end - size);
	}
	if (gfp & __GFP_ZERO)
		memset(obj, 0, size);
	spin_lock_irqsave(obj_table_lock(obj), save);
	obj_table_add(o);
	spin_unlock_irqrestore(obj_table_lock(obj), save);
	if (flags & KMEM_DEBUG_TRACE)
		trace_line("kmem_debug: alloc %s %zu bytes = %p by %pS", cache_name(o), size, obj,
			   caller);
	return obj;
}

/* Gives a poisoned object leaving its quarantine back to the allocator:
 * forgets it, checks it (the object table no longer has it, so no kmem_check
 * checks it meanwhile), releases it.  Returns the damage found.  Its
 * quarantine's lock held: until this returns, a flush waits for it. */
static int release_one(struct kdbg_obj *o)
{
	void (*hook)(const void *) = READ_ONCE(kmem_debug_leaving_hook);
	int bad;

	if (hook)
		hook(o->obj);
	obj_table_forget(o);
	bad = check_freed(o, "leaving the quarantine");
	raw_release(o);
	return bad;
}

static size_t block_bytes(const struct kdbg_obj *o)
{
	return (size_t)((const u8 *)o->obj - (const u8 *)o) + o->rz_end;
}

static int over_bounds(const struct quarantine *q)
{
	return q->count > QUARANTINE_OBJECTS || (q->bytes > QUARANTINE_BYTES && q->count > 1);
}

/* Releases q's oldest objects: all of them, or those beyond its bounds.
 * Returns the damage found.  q->lock held (through every release). */
static int quarantine_release(struct quarantine *q, int all)
{
	struct kdbg_obj *old;
	int bad = 0;

	assert_spin_held(&q->lock);
	while (q->head && (all || over_bounds(q))) {
		old = q->head;
		q->head = old->qnext;
		if (!q->head)
			q->tail = NULL;
		q->count--;
		q->bytes -= block_bytes(old);
		bad += release_one(old);
	}
	return bad;
}

/* Puts a poisoned object at the tail of this CPU's quarantine; releases
 * the oldest ones beyond its bounds. */
static void quarantine_add(struct kdbg_obj *o)
{
	struct quarantine *q;
	unsigned long save;

	local_irq_save(save);
	q = &quarantines[smp_processor_id()];
	spin_lock(&q->lock);
	o->qnext = NULL;
	if (q->tail)
		q->tail->qnext = o;
	else
		q->head = o;
	q->tail = o;
	q->count++;
	q->bytes += block_bytes(o);
	quarantine_release(q, 0);
	spin_unlock_irqrestore(&q->lock, save);
}

/* Empties q.  Counts in kmem_debug_flush_waits a wait for q's lock: its CPU
 * (or another flush) is giving objects back meanwhile. */
static int quarantine_empty(struct quarantine *q)
{
	unsigned long save;
	int bad;

	local_irq_save(save);
	if (!spin_trylock(&q->lock)) {
		counter_inc(&kmem_debug_flush_waits);
		spin_lock(&q->lock);
	}
	bad = quarantine_release(q, 1);
	spin_unlock_irqrestore(&q->lock, save);
	return bad;
}

int kmem_debug_flush(void)
{
	unsigned int cpu;
	int bad = 0;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		bad += quarantine_empty(&quarantines[cpu]);
	return bad;
}

/* A second free of a quarantined object: reported with both sites. */
static void report_double_free(const struct kdbg_obj *copy, const char *fn, const void *p,
			       void *caller)
{
	kmem_bad_free(fn, p, "double free (the object waits in kmem_debug's quarantine)", caller);
	report_begin(KDBG_DOUBLE_FREE, copy);
	kmem_debug_last.free_site2 = caller;
	report_line("  kmem_debug: double free of %s object %p (%zu bytes) by %pS",
		    kmem_debug_last.cache, p, copy->size, caller);
	report_owners(copy);
}

/*
 * Frees the tracked object p for fn (want: its cache, NULL for kfree).
 * Returns 0 if the object table does not know p (nor is p a kmalloc() block's
 * header): the caller decides.  Otherwise 1: freed, or reported and left
 * alone.  Any context.
 */
static int obj_release(const void *p, struct kdbg_cache *want, const char *fn, void *caller)
{
	struct kdbg_obj *o, copy;
	const char *why = NULL;
	unsigned long save;
	int twice = 0;

	if (!atomic_long_read(&nr_tracked))
		return 0;
	spin_lock_irqsave(obj_table_lock(p), save);
	o = obj_table_find(p);
	if (o && o->state == OBJ_FREED)
		twice = 1, copy = *o;
	else if (o && !want && o->cache)
		why = "an object of a cache, not a kmalloc() block";
	else if (o && want && o->cache != want)
		why = "not a live object of this cache (another cache's, or a kmalloc() block)";
	else if (o) {
		o->state = OBJ_FREED;
		if (o->flags & KMEM_DEBUG_USER) {
			o->free_site = caller;
			o->free_jiffies = jiffies;
		}
	}
	spin_unlock_irqrestore(obj_table_lock(p), save);
	if (!o && header_at(p))
		why = "the kmem_debug header of a kmalloc() block, not its start";
	if (why) {
		kmem_bad_free(fn, p, why, caller);
		return 1;
	}
	if (!o)
		return 0;
	if (twice) {
		report_double_free(&copy, fn, p, caller);
		return 1;
	}
	check_redzones(o, "on free");
	if (o->flags & KMEM_DEBUG_TRACE)
		trace_line("kmem_debug: free %s %zu bytes %p by %pS", cache_name(o), o->size, p,
			   caller);
	if (o->cache && o->cache->dtor)
		o->cache->dtor(o->obj);
	if (o->flags & KMEM_DEBUG_POISON) {
		memset(o->obj, POISON_BYTE, o->size);
		quarantine_add(o);
		return 1;
	}
	obj_table_forget(o);
	raw_release(o);
	return 1;
}

/* ---- the public API ------------------------------------------------------------ */

/* Starts forwarding a call on obj (and obj2) for caller; returns what
 * forward_end() puts back. */
static struct kdbg_forward forward_begin(const void *obj, const void *obj2, void *caller)
{
	struct kdbg_forward *f = &forwarding[smp_processor_id()], prev = *f;

	f->caller = NULL;		/* an interrupt meanwhile matches nothing */
	barrier();
	f->obj = obj;
	f->obj2 = obj2;
	barrier();
	f->caller = caller;
	return prev;
}

static void forward_end(struct kdbg_forward prev)
{
	forwarding[smp_processor_id()] = prev;
}

/* Any CPU, from the allocator's report (perhaps under the allocator's own
 * lock, which report_lock nests inside). */
void *kmem_debug_bad_free(const void *obj, void *caller)
{
	const struct kdbg_forward *f = &forwarding[smp_processor_id()];
	unsigned long save;

	if (f->caller && (obj == f->obj || obj == f->obj2))
		caller = f->caller;
	spin_lock_irqsave(&report_lock, save);
	report_begin(KDBG_BAD_FREE, NULL);
	kmem_debug_last.obj = obj;
	kmem_debug_last.caller = caller;
	spin_unlock_irqrestore(&report_lock, save);
	return caller;
}

static void forward_kfree(const void *p, void *caller)
{
	struct kdbg_forward prev = forward_begin(p, NULL, caller);

	__kfree(p);
	forward_end(prev);
}

static size_t forward_ksize(const void *p, void *caller)
{
	struct kdbg_forward prev = forward_begin(p, NULL, caller);
	size_t size = __ksize(p);

	forward_end(prev);
	return size;
}

void *kmalloc_track_caller(size_t size, gfp_t gfp, void *caller)
{
	unsigned int flags = kmalloc_flags;
	void *raw;

	if (!flags || !size)
		return __kmalloc(size, gfp);
	if (size > (size_t)-1 / 2)
		return NULL;
	raw = raw_alloc(NULL, KM_OFF + size + RZ_BYTES, gfp & ~__GFP_ZERO);
	if (!raw)
		return NULL;
	return obj_setup(raw, NULL, KM_OFF, size, __ksize(raw) - KM_OFF, flags, gfp, caller);
}

void *kmalloc(size_t size, gfp_t gfp)
{
	return kmalloc_track_caller(size, gfp, __builtin_return_address(0));
}

void kfree_track_caller(const void *p, void *caller)
{
	if (ZERO_OR_NULL_PTR(p))
		return;
	if (!obj_release(p, NULL, "kfree", caller))
		forward_kfree(p, caller);
}

void kfree(const void *p)
{
	kfree_track_caller(p, __builtin_return_address(0));
}

size_t ksize_track_caller(const void *p, void *caller)
{
	struct kdbg_obj *o = NULL;
	size_t size = 0;
	unsigned long save;
	int known = 0;

	if (ZERO_OR_NULL_PTR(p))
		return 0;
	if (atomic_long_read(&nr_tracked)) {
		spin_lock_irqsave(obj_table_lock(p), save);
		o = obj_table_find(p);
		if (o && o->state == OBJ_LIVE && !o->cache)
			size = o->size;
		spin_unlock_irqrestore(obj_table_lock(p), save);
		known = o || header_at(p);
	}
	if (!known)
		return forward_ksize(p, caller);
	if (!size)
		kmem_bad_free("ksize", p, "not a live kmalloc() block", caller);
	return size;
}

size_t ksize(const void *p)
{
	return ksize_track_caller(p, __builtin_return_address(0));
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor)
{
	unsigned int dflags = flags_for(&kmem_debug_settings, name);
	size_t a = max_t(size_t, align, KMALLOC_MIN_ALIGN), off;
	struct kdbg_cache *dc;
	struct kmem_cache *raw;
	unsigned long save;

	if (flags & (SLAB_HWCACHE_ALIGN | SLAB_MUST_HWCACHE_ALIGN))
		a = max_t(size_t, a, L1_CACHE_BYTES);
	if (!dflags || !name || !size || size > (size_t)-1 / 4 || !is_power_of_2(a) ||
	    a > (size_t)-1 / 4)
		return __kmem_cache_create(name, size, align, flags, ctor, dtor);
	off = ALIGN(sizeof(struct kdbg_obj) + RZ_BYTES, a);
	save = caches_lock_all();
	dc = desc_get();
	caches_unlock_all(save);
	if (!dc) {
		pr_warn("kmem_debug: more than %d debugged caches: %s is not debugged\n",
			MAX_DEBUG_CACHES, name);
		return __kmem_cache_create(name, size, align, flags, ctor, dtor);
	}
	raw = __kmem_cache_create(name, off + size + RZ_BYTES, align,
				  flags | SLAB_NO_MERGE | SLAB_KMEM_DEBUGGED, NULL, NULL);
	save = caches_lock_all();
	if (!raw) {
		desc_put(dc);
		caches_unlock_all(save);
		return NULL;
	}
	*dc = (struct kdbg_cache){ .raw = raw, .name = __kmem_cache_name(raw), .size = size,
				   .off = off, .ctor = ctor, .dtor = dtor, .flags = dflags };
	cache_link(dc);
	caches_unlock_all(save);
	return raw;
}

/* A cache the layer does not debug, used while letters are set: is it a
 * live one?  Reports a destroyed (or never created) cache, which the
 * allocators do not catch (KMEM_BAD_DESTROYED_CACHE): their cache struct
 * is freed memory.  O(caches). */
static int cache_refused(struct kmem_cache *c, const char *fn, void *caller)
{
	if (!READ_ONCE(kmem_debug_settings.flags) || kmem_cache_listed(c))
		return 0;
	kmem_bad_free(fn, c, KMEM_NOT_CACHE, caller);
	return 1;
}

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	void *caller = __builtin_return_address(0), *raw, *obj;
	struct kdbg_cache *dc = cache_find(c);
	struct kdbg_forward prev;

	if (!dc && cache_refused(c, "kmem_cache_alloc", caller))
		return NULL;
	if (!dc) {
		prev = forward_begin(c, NULL, caller);
		obj = __kmem_cache_alloc(c, gfp);
		forward_end(prev);
		return obj;
	}
	if ((gfp & __GFP_ZERO) && dc->ctor && !kmem_ctor_every_alloc) {
		pr_err("kmem_cache_alloc: __GFP_ZERO on cache %s, which has a constructor: refused\n",
		       dc->name);
		return NULL;
	}
	raw = raw_alloc(dc, 0, gfp & ~__GFP_ZERO);
	if (!raw)
		return NULL;
	obj = obj_setup(raw, dc, dc->off, dc->size, dc->size + RZ_BYTES, dc->flags, gfp, caller);
	if (dc->ctor)
		dc->ctor(obj);
	return obj;
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	void *caller = __builtin_return_address(0);
	struct kdbg_forward prev;
	struct kdbg_cache *dc;

	if (!p)
		return;
	dc = cache_find(c);
	if (!dc && cache_refused(c, "kmem_cache_free", caller))
		return;
	if (!dc) {
		prev = forward_begin(p, c, caller);
		__kmem_cache_free(c, p);
		forward_end(prev);
	} else if (!obj_release(p, dc, "kmem_cache_free", caller)) {
		kmem_bad_free("kmem_cache_free", p, KMEM_NOT_CACHE_OBJECT, caller);
	}
}

static unsigned int leaks_collect(const struct kdbg_cache *only, struct kmem_leak_group *g,
				  unsigned int max);
static void leaks_print(const struct kdbg_cache *only);

int kmem_cache_destroy(struct kmem_cache *c)
{
	struct kdbg_cache *dc = cache_find(c);
	struct kdbg_forward prev;
	struct kmem_leak_group g;
	unsigned long save;
	int ret;

	if (!dc) {
		prev = forward_begin(c, NULL, __builtin_return_address(0));
		ret = __kmem_cache_destroy(c);
		forward_end(prev);
		return ret;
	}
	kmem_debug_flush();
	if (leaks_collect(dc, &g, 1)) {
		pr_err("kmem_cache_destroy: cache %s still has objects in use; not destroyed; "
		       "they were allocated:\n", dc->name);
		leaks_print(dc);
		return -1;
	}
	save = caches_lock_all();
	cache_unlink(dc);
	caches_unlock_all(save);
	if (__kmem_cache_destroy(c)) {
		save = caches_lock_all();
		cache_link(dc);
		caches_unlock_all(save);
		return -1;
	}
	save = caches_lock_all();
	desc_put(dc);
	caches_unlock_all(save);
	return 0;
}

size_t kmem_cache_size(struct kmem_cache *c)
{
	struct kdbg_cache *dc = cache_find(c);

	return dc ? dc->size : __kmem_cache_size(c);
}

const char *kmem_cache_name(struct kmem_cache *c)
{
	return __kmem_cache_name(c);
}

int kmem_cache_shrink(struct kmem_cache *c)
{
	kmem_debug_flush();
	return __kmem_cache_shrink(c);
}

/* Quarantined objects are no caller's: the figures count live ones. */
void kmem_get_stats(struct kmem_stats *st)
{
	kmem_debug_flush();
	__kmem_get_stats(st);
}

void kmem_get_pages(struct kmem_stats *st)
{
	kmem_debug_flush();
	__kmem_get_pages(st);
}

unsigned long kmem_reclaim(void)
{
	kmem_debug_flush();
	return __kmem_reclaim();
}

size_t kmem_debug_block_end(const void *p)
{
	struct kdbg_obj *o;
	unsigned long save;
	size_t end = 0;

	spin_lock_irqsave(obj_table_lock(p), save);
	o = obj_table_find(p);
	if (o && o->state == OBJ_LIVE)
		end = o->rz_end;
	spin_unlock_irqrestore(obj_table_lock(p), save);
	return end;
}

/* ---- checks and leak reports ------------------------------------------------- */

/* Checks the objects in the object table buckets of lock l (red zones, and
 * the poison of the quarantined ones); returns the damage found, and
 * counts in *headers each damaged header, past which its chain is not
 * followed.  Takes the lock. */
static int check_stripe(unsigned int l, unsigned long *headers)
{
	struct kdbg_obj *o;
	unsigned long save;
	unsigned int h;
	int bad = 0;

	spin_lock_irqsave(bucket_lock(l), save);
	for (h = l; h < ARRAY_SIZE(obj_table); h += OBJ_TABLE_LOCKS)
		for (o = obj_table[h]; o; o = o->hnext) {
			if (!header_ok(o)) {
				(*headers)++;
				break;
			}
			bad += o->state == OBJ_LIVE ? check_redzones(o, "by kmem_check")
						    : check_freed(o, "by kmem_check");
		}
	spin_unlock_irqrestore(bucket_lock(l), save);
	return bad;
}

int kmem_check(void)
{
	unsigned long damage0 = 0;
	unsigned int l;
	int bad = 0;

	for (l = 0; l < OBJ_TABLE_LOCKS; l++)
		bad += check_stripe(l, &damage0);
	if (damage0) {
		report_begin(KDBG_HEADER, NULL);
		kmem_debug_reports++;
		count_report();
		report_line("BUG: kmem_debug: %lu damaged object headers (underflow past the red "
			    "zone?): their hash chains were not followed", damage0);
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

/* The live objects (of only, or all) grouped by cache and site, most bytes
 * first; the number of groups, max + 1 if some did not fit. */
static unsigned int leaks_collect(const struct kdbg_cache *only, struct kmem_leak_group *g,
				  unsigned int max)
{
	unsigned int l, h, n = 0, i, j, lost = 0;
	struct kdbg_obj *o;
	unsigned long save;

	for (l = 0; l < OBJ_TABLE_LOCKS; l++) {
		spin_lock_irqsave(bucket_lock(l), save);
		for (h = l; h < ARRAY_SIZE(obj_table); h += OBJ_TABLE_LOCKS)
			for (o = obj_table[h]; o && header_ok(o); o = o->hnext)
				if (o->state == OBJ_LIVE && (!only || o->cache == only))
					lost |= group_add(g, &n, max, o);
		spin_unlock_irqrestore(bucket_lock(l), save);
	}
	for (i = 1; i < n; i++)			/* insertion sort, most bytes first */
		for (j = i; j > 0 && g[j].bytes > g[j - 1].bytes; j--) {
			struct kmem_leak_group tmp = g[j];

			g[j] = g[j - 1];
			g[j - 1] = tmp;
		}
	return n + lost;
}

unsigned int kmem_leaks_collect(struct kmem_leak_group *g, unsigned int max)
{
	return leaks_collect(NULL, g, max);
}

static struct kmem_leak_group leak_groups[LEAK_GROUPS];	/* the printed reports' */

/* Prints the live objects (of only, or all) by site; returns how many. */
static unsigned long leaks_print_groups(const struct kdbg_cache *only)
{
	unsigned int n = leaks_collect(only, leak_groups, LEAK_GROUPS), i;
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

static void leaks_print(const struct kdbg_cache *only)
{
	leaks_print_groups(only);
}

unsigned long kmem_leaks_report(void)
{
	unsigned long objects;

	printk("kmem_leaks: live debugged objects by allocating site (%s):\n",
	       kmem_debug_settings.flags & KMEM_DEBUG_USER ? "U on" : "no U: sites unknown");
	objects = leaks_print_groups(NULL);
	printk("kmem_leaks: %lu live objects\n", objects);
	return objects;
}

/* The objects and bytes in every CPU's quarantine.  Takes their locks. */
static void quarantine_totals(unsigned long *count, unsigned long *bytes)
{
	unsigned long save;
	unsigned int cpu;

	*count = *bytes = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		spin_lock_irqsave(&quarantines[cpu].lock, save);
		*count += quarantines[cpu].count;
		*bytes += quarantines[cpu].bytes;
		spin_unlock_irqrestore(&quarantines[cpu].lock, save);
	}
}

void kmem_debug_show(void)
{
	const struct kmem_debug_settings *s = &kmem_debug_settings;
	unsigned long q_count, q_bytes;
	unsigned int i;

	printk("kmem_debug: letters %s%s%s%s%s, for %s", s->flags ? "" : "-",
	       s->flags & KMEM_DEBUG_REDZONE ? "Z" : "", s->flags & KMEM_DEBUG_POISON ? "P" : "",
	       s->flags & KMEM_DEBUG_USER ? "U" : "", s->flags & KMEM_DEBUG_TRACE ? "T" : "",
	       s->nr_names ? "" : "every cache and kmalloc()");
	for (i = 0; i < s->nr_names; i++)
		printk(KERN_CONT "%s%s", i ? "," : "", s->names[i]);
	printk(KERN_CONT "\n");
	quarantine_totals(&q_count, &q_bytes);
	printk("kmem_debug: %ld objects tracked, quarantines %lu objects (%lu bytes), "
	       "%lu caches debugged, %lu damage reports\n", atomic_long_read(&nr_tracked),
	       q_count, q_bytes, READ_ONCE(nr_caches), kmem_debug_reports);
	printk("kmem_debug: flushes waited %lu times for a CPU giving objects back\n",
	       counter_read(&kmem_debug_flush_waits));
}

int kmem_check_command(int argc, char **argv)
{
	int bad = kmem_check();

	printk("kmem_check: %ld objects checked, %d damaged\n", atomic_long_read(&nr_tracked), bad);
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
