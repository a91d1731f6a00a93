/* peer_glibc.h - glibc's malloc as a peer of the allocators in the benchmark.
 *
 * Force-included (-include) into tests/host/peer_kmem.c, which builds the
 * kernel API on the peer_*() calls (peer_malloc.h).  Footprint: what the heap holds
 * from the host kernel, mallinfo2()'s arena (the main arena's brk memory,
 * free chunks and top included) plus hblkhd (chunks mmap()ed whole).
 */
#include "peer_malloc.h"

#define PEER_NAME	"glibc malloc"
#define PEER_FOOTPRINT	"mallinfo2() arena + hblkhd"

/* Bytes the allocator holds from the host kernel now. */
static inline size_t peer_footprint(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.arena + mi.hblkhd;
}
