/* atomic.h - counters that stay correct without a lock (compiler builtins,
 * so the same code works on i386 and in the host build). */
#ifndef TINY_ATOMIC_H
#define TINY_ATOMIC_H

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_LONG_INIT(v)	{ (v) }

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

#endif /* TINY_ATOMIC_H */
