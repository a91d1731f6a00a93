/* arch/cache.h (host) - the same cache line size as the i386 kernel. */
#ifndef ARCH_CACHE_H
#define ARCH_CACHE_H

#define ARCH_L1_CACHE_BYTES	64

#endif /* ARCH_CACHE_H */
