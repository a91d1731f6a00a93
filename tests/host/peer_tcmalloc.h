/* peer_tcmalloc.h - tcmalloc (Debian's gperftools, the minimal build:
 * libtcmalloc_minimal) as a peer of SLAB and SLOB in the benchmark.
 *
 * Force-included (-include) into tests/host/peer_kmem.c; the binary links
 * -ltcmalloc_minimal, whose malloc() replaces glibc's in the whole process
 * (the calls go through peer_malloc.h).  Footprint: its own statistics,
 * MallocExtension_GetNumericProperty("generic.heap_size") less
 * "tcmalloc.pageheap_unmapped_bytes": the bytes of the heap it took from
 * the host kernel and still holds mapped (objects handed out, its caches'
 * free objects and its free pages), as jemalloc's stats.resident counts
 * its dirty pages.  Its metadata (spans, the page map) is not in
 * heap_size; "generic.current_allocated_bytes" would be the live bytes
 * alone.
 */
#include <gperftools/malloc_extension_c.h>
#include "peer_malloc.h"

#define PEER_NAME	"tcmalloc (gperftools, minimal)"
#define PEER_FOOTPRINT	"generic.heap_size - tcmalloc.pageheap_unmapped_bytes"

/* Bytes of the heap held and mapped now; 0 if a property is unknown (the
 * footprint then reads 0, visibly). */
static inline size_t peer_footprint(void)
{
	size_t heap = 0, unmapped = 0;

	if (!MallocExtension_GetNumericProperty("generic.heap_size", &heap) ||
	    !MallocExtension_GetNumericProperty("tcmalloc.pageheap_unmapped_bytes", &unmapped))
		return 0;
	return heap - unmapped;
}
