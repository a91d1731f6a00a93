/* arch/timex.h (host) - the cycle counter: the TSC, read with the compiler's
 * builtin, as the kernel reads it. */
#ifndef ARCH_TIMEX_H
#define ARCH_TIMEX_H

#include <stdint.h>

static inline uint64_t get_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

#endif /* ARCH_TIMEX_H */
