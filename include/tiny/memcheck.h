/* memcheck.h - telling a memory checker which parts of the heap are live.
 *
 * The allocators call these at the moments that matter: a block handed to
 * a caller, a block taken back, allocator bookkeeping written inside
 * managed memory, pages given back to the page allocator.  In the kernel
 * they compile to nothing; the host build maps them to AddressSanitizer
 * poisoning or to valgrind's client requests (<arch/memcheck.h>), so that
 * a use after free or an overrun into free heap memory is caught even
 * though the memory never went back to the C library.
 */
#ifndef TINY_MEMCHECK_H
#define TINY_MEMCHECK_H

#include <tiny/types.h>
#include <arch/memcheck.h>

/* Whether a checker watches (the host's valgrind and ASan builds): it must
 * then hear of a free only once the allocator has checked the pointer. */
static inline int kmem_memcheck_watches(void)
{
	return ARCH_MEMCHECK_WATCHES;
}

/* size bytes at p now belong to a caller (contents undefined, or defined
 * when the allocator initialised them: zeroed or constructed). */
static inline void kmem_mark_allocated(const void *p, size_t size, int initialised)
{
	arch_memcheck_alloc(p, size, initialised);
}

/* The caller's block at p (size bytes) is back with the allocator. */
static inline void kmem_mark_freed(const void *p, size_t size)
{
	arch_memcheck_free(p, size);
}

/* The allocator is about to keep its own data in [p, p + size). */
static inline void kmem_mark_internal(const void *p, size_t size)
{
	arch_memcheck_internal(p, size);
}

/* Nobody may touch [p, p + size) until it is allocated again. */
static inline void kmem_mark_noaccess(const void *p, size_t size)
{
	arch_memcheck_noaccess(p, size);
}

#endif /* TINY_MEMCHECK_H */
