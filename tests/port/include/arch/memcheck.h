/* arch/memcheck.h (port example) - no memory checker to tell: no-ops. */
#ifndef ARCH_MEMCHECK_H
#define ARCH_MEMCHECK_H

#define ARCH_MEMCHECK_WATCHES	0

static inline void arch_memcheck_alloc(const void *p, size_t size, int initialised)
{
	(void)p, (void)size, (void)initialised;
}

static inline void arch_memcheck_free(const void *p, size_t size)
{
	(void)p, (void)size;
}

static inline void arch_memcheck_internal(const void *p, size_t size)
{
	(void)p, (void)size;
}

static inline void arch_memcheck_noaccess(const void *p, size_t size)
{
	(void)p, (void)size;
}

#endif /* ARCH_MEMCHECK_H */
