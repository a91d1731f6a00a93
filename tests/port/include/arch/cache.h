/* arch/cache.h (port example) - the cache line mm/ aligns and colours to. */
#ifndef ARCH_CACHE_H
#define ARCH_CACHE_H

#define ARCH_L1_CACHE_BYTES	64

#endif /* ARCH_CACHE_H */
