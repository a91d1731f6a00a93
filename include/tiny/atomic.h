/* atomic.h - counters and flags that stay correct without a lock.
 *
 * Everything here is a compiler __atomic builtin, so the same code works in
 * the i386 kernel (lock-prefixed instructions) and in the host build (where
 * ThreadSanitizer understands them).  Ordering follows Linux: plain
 * read/set/add/inc/dec are relaxed (no ordering against other memory);
 * everything that returns a value computed from the old one (add_return,
 * cmpxchg, xchg, test_and_*) is fully ordered.
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

#define ATOMIC_INIT(v)		{ (v) }
#define ATOMIC_LONG_INIT(v)	{ (v) }

/* Publishing and picking up data: what was written before the release
 * store is seen by whoever sees the stored value with an acquire load. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* A full memory barrier. */
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

/* ---- atomic_t and atomic_long_t ---------------------------------------------
 *
 * One set of operations, written once and stamped out for both types:
 *   PFX_read(v), PFX_set(v, i), PFX_add(i, v), PFX_inc(v), PFX_dec(v): relaxed;
 *   PFX_add_return(i, v), PFX_inc_return(v), PFX_dec_return(v): the new value;
 *   PFX_dec_and_test(v): nonzero if the decrement reached zero;
 *   PFX_cmpxchg(v, old, new): stores new if the value is old, returns the
 *     value found either way;
 *   PFX_xchg(v, new): stores new, returns the old value;
 * where PFX is atomic (int) or atomic_long (long).  The last five are fully
 * ordered. */
#define ATOMIC_OPS(pfx, atype, T)						\
static inline T pfx##_read(const atype *v)					\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }			\
static inline void pfx##_set(atype *v, T i)					\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }				\
static inline void pfx##_add(T i, atype *v)					\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }			\
static inline void pfx##_inc(atype *v) { pfx##_add(1, v); }			\
static inline void pfx##_dec(atype *v) { pfx##_add(-1, v); }			\
static inline T pfx##_add_return(T i, atype *v)					\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static inline T pfx##_inc_return(atype *v) { return pfx##_add_return(1, v); }	\
static inline T pfx##_dec_return(atype *v) { return pfx##_add_return(-1, v); }	\
static inline int pfx##_dec_and_test(atype *v)					\
{ return pfx##_dec_return(v) == 0; }						\
static inline T pfx##_cmpxchg(atype *v, T old, T new)				\
{										\
	__atomic_compare_exchange_n(&v->counter, &old, new, 0,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	return old;								\
}										\
static inline T pfx##_xchg(atype *v, T new)					\
{ return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST); }

ATOMIC_OPS(atomic, atomic_t, int)
ATOMIC_OPS(atomic_long, atomic_long_t, long)

#undef ATOMIC_OPS

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

/* ---- bits in an unsigned long ------------------------------------------------ */

static inline void set_bit(unsigned int nr, unsigned long *addr)
{
	__atomic_fetch_or(addr, 1UL << nr, __ATOMIC_RELAXED);
}

static inline void clear_bit(unsigned int nr, unsigned long *addr)
{
	__atomic_fetch_and(addr, ~(1UL << nr), __ATOMIC_RELAXED);
}

static inline int test_bit(unsigned int nr, const unsigned long *addr)
{
	return (__atomic_load_n(addr, __ATOMIC_RELAXED) >> nr) & 1;
}

/* Sets the bit and returns its old value (fully ordered). */
static inline int test_and_set_bit(unsigned int nr, unsigned long *addr)
{
	return (__atomic_fetch_or(addr, 1UL << nr, __ATOMIC_SEQ_CST) >> nr) & 1;
}

/* Clears the bit and returns its old value (fully ordered). */
static inline int test_and_clear_bit(unsigned int nr, unsigned long *addr)
{
	return (__atomic_fetch_and(addr, ~(1UL << nr), __ATOMIC_SEQ_CST) >> nr) & 1;
}

#endif /* TINY_ATOMIC_H */
