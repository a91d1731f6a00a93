/* arch/timex.h (i386) - the cycle counter: the TSC. */
#ifndef ARCH_TIMEX_H
#define ARCH_TIMEX_H

#include <arch/processor.h>

static inline u64 get_cycles(void)
{
	return rdtsc();
}

#endif /* ARCH_TIMEX_H */
