/* bench_timex.h - <arch/timex.h> for the timed benchmark builds.
 *
 * The Makefile force-includes this file (-include) into bench-timed and
 * the peer-* binaries.  It takes the place of tests/host/include/arch/
 * timex.h by defining the same include guard first: the cycle counter is
 * the same TSC read, and measure_end() additionally hands each measured
 * allocator call to the benchmark (bench_call_done() in bench_replay.c),
 * which keeps the cycles of every call, and measure_begin() clears the
 * path the call then takes (<tiny/call_path.h>, -DHOST_CALL_PATH).
 * measure_begin() runs before the replay reads the counter the first
 * time and measure_end() after it reads it the second time, so they add
 * nothing to the cycles measured.
 */
#ifndef ARCH_TIMEX_H
#define ARCH_TIMEX_H

#include <stdint.h>

static inline uint64_t get_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

#define MEASURE_ALLOC	1
#define MEASURE_FREE	2

/* Called once after every measured allocation (MEASURE_ALLOC) or free
 * (MEASURE_FREE), once its cycles are added to the replay's totals. */
void bench_call_done(int kind);
/* The path of the call being timed (<tiny/call_path.h>): cleared before it. */
extern unsigned int call_path_taken;

static inline void measure_begin(int kind)
{
	(void)kind;
	call_path_taken = 0;
}

static inline void measure_end(int kind)
{
	bench_call_done(kind);
}

#endif /* ARCH_TIMEX_H */
