/* peer_mimalloc.h - mimalloc (Debian's libmimalloc2.0) as a peer of SLAB
 * and SLOB in the benchmark.
 *
 * Force-included (-include) into tests/host/peer_kmem.c; the calls are
 * mimalloc's own mi_*() (the library also replaces malloc() in the whole
 * process).  Footprint: the growth of the process's anonymous resident
 * memory since the replay started (/proc/self/statm, resident - shared),
 * which only mimalloc adds to during the replay.  Its own figures cannot
 * serve: this build's committed and reserved counts read 32 MiB from the
 * first allocation on (a segment region mapped whole, mostly untouched),
 * and its page statistics are compiled out.
 */
#include <mimalloc.h>

#define PEER_NAME	"mimalloc"
#define PEER_FOOTPRINT	"anonymous resident memory grown since the start"

static inline void *peer_malloc(size_t size)
{
	return mi_malloc(size);
}

static inline void *peer_calloc(size_t size)
{
	return mi_calloc(1, size);
}

static inline void peer_free(void *p)
{
	mi_free(p);
}

static inline size_t peer_usable_size(void *p)
{
	return mi_usable_size(p);
}

size_t anon_resident_growth(void);	/* peer_kmem.c */

static inline size_t peer_footprint(void)
{
	return anon_resident_growth();
}
