/* arch/memcheck.h (host) - <tiny/memcheck.h> on top of a real checker:
 * valgrind's client requests when built with -DHOST_VALGRIND, else
 * AddressSanitizer's manual poisoning when ASan is on, else nothing. */
#ifndef ARCH_MEMCHECK_H
#define ARCH_MEMCHECK_H

#include <stddef.h>

#if defined(HOST_VALGRIND)
#include <valgrind/memcheck.h>

#define ARCH_MEMCHECK_WATCHES	1

static inline void arch_memcheck_alloc(const void *p, size_t size, int initialised)
{
	VALGRIND_MALLOCLIKE_BLOCK(p, size, 0, 0);
	if (initialised)
		VALGRIND_MAKE_MEM_DEFINED(p, size);
}

static inline void arch_memcheck_free(const void *p, size_t size)
{
	(void)size;
	VALGRIND_FREELIKE_BLOCK(p, 0);
}

static inline void arch_memcheck_internal(const void *p, size_t size)
{
	VALGRIND_MAKE_MEM_DEFINED(p, size);
}

static inline void arch_memcheck_noaccess(const void *p, size_t size)
{
	VALGRIND_MAKE_MEM_NOACCESS(p, size);
}

#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define HOST_ASAN 1
#endif

#ifdef HOST_ASAN
#define ARCH_MEMCHECK_WATCHES	1
#include <sanitizer/asan_interface.h>
#define host_poison(p, n)	__asan_poison_memory_region((p), (n))
#define host_unpoison(p, n)	__asan_unpoison_memory_region((p), (n))
#else
#define ARCH_MEMCHECK_WATCHES	0
#define host_poison(p, n)	((void)(p), (void)(n))
#define host_unpoison(p, n)	((void)(p), (void)(n))
#endif

static inline void arch_memcheck_alloc(const void *p, size_t size, int initialised)
{
	(void)initialised;
	host_unpoison(p, size);
}

static inline void arch_memcheck_free(const void *p, size_t size)
{
	host_poison(p, size);
}

static inline void arch_memcheck_internal(const void *p, size_t size)
{
	host_unpoison(p, size);
}

static inline void arch_memcheck_noaccess(const void *p, size_t size)
{
	host_poison(p, size);
}
#endif

#endif /* ARCH_MEMCHECK_H */
