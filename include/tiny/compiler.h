/* compiler.h - attributes and small compiler helpers used everywhere. */
#ifndef TINY_COMPILER_H
#define TINY_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define __used		__attribute__((__used__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __packed	__attribute__((__packed__))
#define __section(s)	__attribute__((__section__(s)))
#define __noreturn	__attribute__((__noreturn__))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#define noinline	__attribute__((__noinline__))
#ifndef __always_inline		/* the host C library may define it too */
#define __always_inline	inline __attribute__((__always_inline__))
#endif
/* A function whose loads AddressSanitizer does not check (the host build):
 * for a read that may land on memory given back meanwhile, on purpose. */
#define __no_sanitize_address	__attribute__((__no_sanitize_address__))

/* Compiler barrier: memory accesses are not moved across it. */
#define barrier()	__asm__ __volatile__("" ::: "memory")

/* One whole load or store of a word that another CPU may change or read
 * at the same time, with no ordering: relaxed atomics, so that the
 * compiler neither tears, merges nor repeats them and ThreadSanitizer
 * sees what is meant (plain moves on x86). */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

/* Fails the build when cond is true (cond must be a constant). */
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON: " #cond)

#endif /* TINY_COMPILER_H */
