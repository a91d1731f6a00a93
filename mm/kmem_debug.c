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
 *
 * The settings (kmem_debug=, the letters), the reports, kmem_check, the
 * leak listing and the console commands are in kmem_debug_info.c, which
 * walks the object table through kdbg_for_each_obj(); what both files
 * share is in mm/kmem_debug.h.
 */
#include <tiny/kernel.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "kmem_debug.h"

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

/* Offset of a kmalloc() object in its block. */
#define KM_OFF	ALIGN(sizeof(struct kdbg_obj) + RZ_BYTES, KMALLOC_MIN_ALIGN)

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
/* Descriptors of debugged caches: a static pool, so that they take no
 * memory the allocator would count as handed out (bytes_used). */
static struct kdbg_cache cache_pool[MAX_DEBUG_CACHES];
static struct kdbg_cache *pool_free;
static unsigned int pool_used;

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

/* ---- checks ------------------------------------------------------------------- */

/* Checks one red zone of o; reports and repairs it.  1 if it was broken. */
static int check_zone(const struct kdbg_obj *o, u8 *zone, size_t n, const char *what,
		      const char *when)
{
	const u8 *bad = memchr_inv(zone, RZ_BYTE, n);

	if (!bad)
		return 0;
	kdbg_report_damage(KDBG_REDZONE, o, bad, zone + n, what, when);
	memset(zone, RZ_BYTE, n);
	return 1;
}

int kdbg_check_redzones(const struct kdbg_obj *o, const char *when)
{
	u8 *obj = o->obj, *left = (u8 *)(o + 1);

	if (!(o->flags & KMEM_DEBUG_REDZONE))
		return 0;
	return check_zone(o, left, (size_t)(obj - left), "red zone overwritten before", when) +
	       check_zone(o, obj + o->size, o->rz_end - o->size, "red zone overwritten after", when);
}

int kdbg_check_freed(const struct kdbg_obj *o, const char *when)
{
	int bad = kdbg_check_redzones(o, when);
	const u8 *b;

	if (!(o->flags & KMEM_DEBUG_POISON))
		return bad;
	b = memchr_inv(o->obj, POISON_BYTE, o->size);
	if (!b)
		return bad;
	kdbg_report_damage(KDBG_USE_AFTER_FREE, o, b, (const u8 *)o->obj + o->size,
			   "write after free to", when);
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
		kdbg_trace_line("kmem_debug: alloc %s %zu bytes = %p by %pS", kdbg_cache_name(o), size, obj,
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
	bad = kdbg_check_freed(o, "leaving the quarantine");
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

/* Copies what a report on the quarantined object o reads, under o's table
 * lock; not qnext, which its quarantine's lock guards (another CPU may be
 * queueing behind o meanwhile). */
static void copy_for_report(struct kdbg_obj *copy, const struct kdbg_obj *o)
{
	*copy = (struct kdbg_obj){
		.cache = o->cache, .obj = o->obj, .size = o->size, .rz_end = o->rz_end,
		.alloc_site = o->alloc_site, .free_site = o->free_site,
		.alloc_jiffies = o->alloc_jiffies, .free_jiffies = o->free_jiffies,
		.flags = o->flags, .state = o->state, .magic = o->magic,
	};
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
		twice = 1, copy_for_report(&copy, o);
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
		kdbg_report_double_free(&copy, fn, p, caller);
		return 1;
	}
	kdbg_check_redzones(o, "on free");
	if (o->flags & KMEM_DEBUG_TRACE)
		kdbg_trace_line("kmem_debug: free %s %zu bytes %p by %pS", kdbg_cache_name(o), o->size, p,
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
	kdbg_report_begin(KDBG_BAD_FREE, NULL);
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
	unsigned int flags = kdbg_kmalloc_flags;
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
	unsigned int dflags = kdbg_flags_for(&kmem_debug_settings, name);
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
	if (kdbg_leaks_collect(dc, &g, 1)) {
		pr_err("kmem_cache_destroy: cache %s still has objects in use; not destroyed; "
		       "they were allocated:\n", dc->name);
		kdbg_leaks_print(dc);
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

/* ---- what kmem_debug_info.c reads ---------------------------------------------- */

unsigned long kdbg_for_each_obj(void (*visit)(const struct kdbg_obj *o, void *arg), void *arg)
{
	unsigned long headers = 0, save;
	struct kdbg_obj *o;
	unsigned int l, h;

	for (l = 0; l < OBJ_TABLE_LOCKS; l++) {
		spin_lock_irqsave(bucket_lock(l), save);
		for (h = l; h < ARRAY_SIZE(obj_table); h += OBJ_TABLE_LOCKS)
			for (o = obj_table[h]; o; o = o->hnext) {
				if (!header_ok(o)) {
					headers++;
					break;
				}
				visit(o, arg);
			}
		spin_unlock_irqrestore(bucket_lock(l), save);
	}
	return headers;
}

void kdbg_get_counts(struct kdbg_counts *c)
{
	unsigned long save;
	unsigned int cpu;

	c->quarantined = c->quarantined_bytes = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		spin_lock_irqsave(&quarantines[cpu].lock, save);
		c->quarantined += quarantines[cpu].count;
		c->quarantined_bytes += quarantines[cpu].bytes;
		spin_unlock_irqrestore(&quarantines[cpu].lock, save);
	}
	c->tracked = atomic_long_read(&nr_tracked);
	c->caches = READ_ONCE(nr_caches);
}
