/* asm/processor.h (i386) - control registers, halting, the time-stamp counter. */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include <tiny/types.h>

static inline unsigned long read_cr0(void)
{
	unsigned long v;

	__asm__ __volatile__("movl %%cr0, %0" : "=r"(v));
	return v;
}

static inline unsigned long read_cr2(void)
{
	unsigned long v;

	__asm__ __volatile__("movl %%cr2, %0" : "=r"(v));
	return v;
}

static inline unsigned long read_cr3(void)
{
	unsigned long v;

	__asm__ __volatile__("movl %%cr3, %0" : "=r"(v));
	return v;
}

static inline unsigned long read_cr4(void)
{
	unsigned long v;

	__asm__ __volatile__("movl %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr0(unsigned long v)
{
	__asm__ __volatile__("movl %0, %%cr0" : : "r"(v) : "memory");
}

static inline void write_cr3(unsigned long v)
{
	__asm__ __volatile__("movl %0, %%cr3" : : "r"(v) : "memory");
}

static inline void write_cr4(unsigned long v)
{
	__asm__ __volatile__("movl %0, %%cr4" : : "r"(v) : "memory");
}

static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

/* Waits for the next interrupt (with interrupts enabled, or forever). */
static inline void halt(void)
{
	__asm__ __volatile__("hlt" : : : "memory");
}

/* Enables interrupts and halts in one step, so no interrupt is missed between. */
static inline void safe_halt(void)
{
	__asm__ __volatile__("sti; hlt" : : : "memory");
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" : : : "memory");
}

#endif /* ASM_PROCESSOR_H */
