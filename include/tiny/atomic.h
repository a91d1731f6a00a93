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

/* ---- atomic_t ---------------------------------------------------------------- */

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

static inline void atomic_dec(atomic_t *v)
{
	atomic_add(-1, v);
}

/* Adds i and returns the new value. */
static inline int atomic_add_return(int i, atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline int atomic_inc_return(atomic_t *v)
{
	return atomic_add_return(1, v);
}

static inline int atomic_dec_return(atomic_t *v)
{
	return atomic_add_return(-1, v);
}

/* Nonzero if the decrement reached zero. */
static inline int atomic_dec_and_test(atomic_t *v)
{
	return atomic_dec_return(v) == 0;
}

/* Stores new if the value is old; returns the value found either way. */
static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

/* Stores new and returns the old value. */
static inline int atomic_xchg(atomic_t *v, int new)
{
	return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);
}

/* ---- atomic_long_t ----------------------------------------------------------- */

static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_set(atomic_long_t *v, long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
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

static inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline long atomic_long_inc_return(atomic_long_t *v)
{
	return atomic_long_add_return(1, v);
}

static inline long atomic_long_dec_return(atomic_long_t *v)
{
	return atomic_long_add_return(-1, v);
}

static inline long atomic_long_cmpxchg(atomic_long_t *v, long old, long new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline long atomic_long_xchg(atomic_long_t *v, long new)
{
	return __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);
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
