/* arch/timex.h (i386) - the cycle counter: the TSC. */
#ifndef ARCH_TIMEX_H
#define ARCH_TIMEX_H

#include <asm/processor.h>

static inline u64 get_cycles(void)
{
	return rdtsc();
}

/* get_cycles() per millisecond: the TSC's rate, calibrated at boot against
 * the PIT (arch/x86/kernel/apic.c); 0 until then, and on a uniprocessor
 * kernel (arch/x86/kernel/time.c). */
extern unsigned long tsc_khz;
static inline unsigned long cycles_per_ms(void)
{
	return __atomic_load_n(&tsc_khz, __ATOMIC_RELAXED);
}

/* Brackets the allocator calls a benchmark measures (kind: MEASURE_ALLOC or
 * MEASURE_FREE).  Nothing to do here; the host build counts instructions
 * between them under callgrind. */
#define MEASURE_ALLOC	1
#define MEASURE_FREE	2
static inline void measure_begin(int kind) { (void)kind; }
static inline void measure_end(int kind) { (void)kind; }

#endif /* ARCH_TIMEX_H */
