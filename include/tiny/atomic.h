/* atomic.h - counters and flags that stay correct without a lock.
 *
 * Everything here is a compiler __atomic builtin, so the same code works in
 * the i386 kernel (lock-prefixed instructions) and in the host build (where
 * ThreadSanitizer understands them).  Ordering follows Linux: plain
 * read/set/add/inc are relaxed (no ordering against other memory); xchg,
 * which returns the old value, is fully ordered.  Only what the tree uses
 * is here (scripts/check-layout fails on a helper nothing calls): add an
 * operation the day a caller needs it.
 */
#ifndef TINY_ATOMIC_H
#define TINY_ATOMIC_H

#include <tiny/types.h>

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_LONG_INIT(v)	{ (v) }

/* Publishing and picking up data: what was written before the release
 * store is seen by whoever sees the stored value with an acquire load. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* ---- atomic_t: read, set, add, inc (relaxed); xchg (fully ordered) ---------- */

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_add(int i, atomic_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	atomic_add(1, v);
}

/* Adds 1, fully ordered; returns the new value. */
static inline int atomic_inc_return(atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

/* Stores new, returns the old value. */
static inline int atomic_xchg(atomic_t *v, int new)
{
	return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);
}

/* ---- atomic_long_t: read, add, inc, dec (relaxed) ------------------------------- */

static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_add(long i, atomic_long_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	atomic_long_add(1, v);
}

static inline void atomic_long_dec(atomic_long_t *v)
{
	atomic_long_add(-1, v);
}

/* ---- plain words used as counters -------------------------------------------- */

/* For counters that are plain unsigned long in an interface (the bad-free
 * and report counts the tests read): increments that two CPUs cannot lose.
 * A reader racing with them uses counter_read(). */
static inline void counter_inc(unsigned long *c)
{
	__atomic_fetch_add(c, 1UL, __ATOMIC_RELAXED);
}

static inline unsigned long counter_read(const unsigned long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* ---- a 32-bit word changed whole ---------------------------------------------- */

/* If *p is *old, stores new and returns 1; else puts the value found in
 * *old and returns 0.  Fully ordered. */
static inline int try_cmpxchg_u32(u32 *p, u32 *old, u32 new)
{
	return __atomic_compare_exchange_n(p, old, new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

#endif /* TINY_ATOMIC_H */
