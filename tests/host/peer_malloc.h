/* peer_malloc.h - the peer_*() calls on the process's malloc(), for the
 * benchmark's peers that provide it (glibc's own, or jemalloc, which
 * replaces it in the whole process).  Included by peer_glibc.h and
 * peer_jemalloc.h, which add the name and the footprint. */
#include <malloc.h>
#include <stdlib.h>

static inline void *peer_malloc(size_t size)
{
	return malloc(size);
}

static inline void *peer_calloc(size_t size)
{
	return calloc(1, size);
}

static inline void peer_free(void *p)
{
	free(p);
}

static inline size_t peer_usable_size(void *p)
{
	return malloc_usable_size(p);
}
