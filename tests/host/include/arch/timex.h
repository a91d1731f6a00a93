/* arch/timex.h (host) - the cycle counter: the TSC, read with the compiler's
 * builtin, as the kernel reads it. */
#ifndef ARCH_TIMEX_H
#define ARCH_TIMEX_H

#include <stdint.h>

static inline uint64_t get_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * Brackets the allocator calls a benchmark measures.  In the callgrind
 * build of the benchmark (-DHOST_CALLGRIND, run with --collect-atstart=no)
 * they switch instruction counting on and off for the kinds selected in
 * host_measure_mask (bench_replay --count alloc|free).
 */
#define MEASURE_ALLOC	1
#define MEASURE_FREE	2
#ifdef HOST_CALLGRIND
#include <valgrind/callgrind.h>
extern int host_measure_mask;
static inline void measure_begin(int kind)
{
	if (host_measure_mask & kind)
		CALLGRIND_TOGGLE_COLLECT;
}
static inline void measure_end(int kind)
{
	if (host_measure_mask & kind)
		CALLGRIND_TOGGLE_COLLECT;
}
#else
static inline void measure_begin(int kind) { (void)kind; }
static inline void measure_end(int kind) { (void)kind; }
#endif

#endif /* ARCH_TIMEX_H */
