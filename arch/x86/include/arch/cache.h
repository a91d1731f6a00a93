/* arch/cache.h (i386) - the L1 cache line size used for alignment and colouring. */
#ifndef ARCH_CACHE_H
#define ARCH_CACHE_H

#define ARCH_L1_CACHE_BYTES	64

#endif /* ARCH_CACHE_H */
