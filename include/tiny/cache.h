/* cache.h - the size of a CPU cache line (<arch/cache.h>), for aligning
 * data that CPUs share so that no two share a line. */
#ifndef TINY_CACHE_H
#define TINY_CACHE_H

#include <arch/cache.h>

#define L1_CACHE_BYTES		ARCH_L1_CACHE_BYTES

#endif /* TINY_CACHE_H */
