/* peer_jemalloc.h - jemalloc (Debian's libjemalloc2) as a peer of SLAB and
 * SLOB in the benchmark.
 *
 * Force-included (-include) into tests/host/peer_kmem.c; the binary links
 * -ljemalloc, whose malloc() replaces glibc's in the whole process.
 * Footprint: mallctl "stats.resident" after an "epoch" refresh: the bytes
 * of the allocator's pages that are physically resident, its metadata
 * included ("stats.active", pages of live extents only, would leave out
 * dirty pages it keeps for reuse).
 */
#include <stdint.h>
#include <jemalloc/jemalloc.h>
#include "peer_malloc.h"

#define PEER_NAME	"jemalloc " JEMALLOC_VERSION
#define PEER_FOOTPRINT	"mallctl stats.resident"

/* Bytes of the allocator's pages resident now; 0 if the statistics are
 * not built in (the footprint then reads 0, visibly). */
static inline size_t peer_footprint(void)
{
	uint64_t epoch = 1;
	size_t resident = 0, len = sizeof(epoch);

	if (mallctl("epoch", &epoch, &len, &epoch, sizeof(epoch)))
		return 0;
	len = sizeof(resident);
	if (mallctl("stats.resident", &resident, &len, NULL, 0))
		return 0;
	return resident;
}
