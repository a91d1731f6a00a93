/* arch/percpu.h (i386) - per-CPU data reached from any CPU in one
 * instruction, and changed without a lock prefix or interrupts off.
 *
 * Layout.  A per-CPU object has one copy per possible CPU, the copies
 * ARCH_PERCPU_STRIDE bytes apart: CPU i's copy of the object whose CPU 0
 * copy is at p lies at p + i * ARCH_PERCPU_STRIDE.  The allocator that
 * lays them out (SLUB's, mm/slub_cpu.c) packs objects of up to the stride
 * side by side in such a chunk of NR_CPUS strides.
 *
 * Addressing.  With SMP every CPU's %fs segment has its struct x86_cpu as
 * its base (<arch/smp.h>), the x86_cpus[] entries are ARCH_PERCPU_STRIDE
 * bytes apart, and the segment's limit is 4 GiB (arch/x86/kernel/gdt.c):
 * so %fs:(p - &x86_cpus[0]) is this CPU's copy of p on every CPU, without
 * reading the CPU number.  That difference is the object's percpu_off_t,
 * computed once (arch_percpu_off()).  Uniprocessor: there is one copy, the
 * offset is its address, and the same instructions run without %fs.
 *
 * Atomicity.  An interrupt comes between two instructions, never inside
 * one, and only this CPU writes its copies (other CPUs may read a word of
 * them).  So one instruction that reads and writes this CPU's copy (an
 * add, a cmpxchg8b) is atomic against everything that can touch it, and
 * needs no lock prefix and no interrupt disable: an interrupt either runs
 * wholly before or wholly after it.  A sequence of them is not: SLUB's
 * fast path reads a transaction id first and lets cmpxchg8b fail if an
 * interrupt changed it meanwhile; SLUB's sheaves (mm/slub_sheaves.c)
 * take a per-CPU flag with a plain read and a plain write instead.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <tiny/types.h>
#include <tiny/kconfig.h>
#include <tiny/smp.h>

#define ARCH_PERCPU_STRIDE	64

/* What reaches a per-CPU object from any CPU: %fs-relative (SMP), or its
 * address (UP). */
typedef unsigned long percpu_off_t;

/* A self-test's hook into the double-word exchange: the host harness has
 * one (<arch/percpu.h> there); the kernel has none: -1. */
static inline int arch_percpu_set_test_hook(void (*fn)(void))
{
	(void)fn;
	return -1;
}

#ifdef CONFIG_SMP
/* The per-CPU segment's base for CPU i is &x86_cpus[i]: the stride. */
_Static_assert(sizeof(struct x86_cpu) == ARCH_PERCPU_STRIDE,
	       "struct x86_cpu must be ARCH_PERCPU_STRIDE bytes: per-CPU copies follow its stride");

/* The offset of the object whose CPU 0 copy is at p. */
static inline percpu_off_t arch_percpu_off(const void *p)
{
	return (unsigned long)p - (unsigned long)x86_cpus;
}

/* CPU cpu's copy. */
static inline void *arch_per_cpu_ptr(percpu_off_t off, unsigned int cpu)
{
	return (char *)&x86_cpus[cpu] + off;
}

/* This CPU's copy, as a pointer (for code that runs with interrupts off). */
static inline void *arch_this_cpu_ptr(percpu_off_t off)
{
	return (char *)this_cpu() + off;
}

/* The word at off in this CPU's copy. */
static inline unsigned long arch_this_cpu_read(percpu_off_t off)
{
	unsigned long v;

	__asm__ __volatile__("movl %%fs:%1, %0" : "=r"(v) : "m"(*(unsigned long *)off) : "memory");
	return v;
}

/* Sets the word at off in this CPU's copy to v: one plain store. */
static inline void arch_this_cpu_write(percpu_off_t off, unsigned long v)
{
	__asm__ __volatile__("movl %1, %%fs:%0" : "=m"(*(unsigned long *)off) : "ri"(v) : "memory");
}

/* Adds v to the word at off in this CPU's copy: one instruction. */
static inline void arch_this_cpu_add(percpu_off_t off, long v)
{
	__asm__ __volatile__("addl %1, %%fs:%0" : "+m"(*(unsigned long *)off) : "ri"(v) : "memory",
			     "cc");
}

/* If the two words at off (8-byte aligned) in this CPU's copy are o1, o2,
 * makes them n1, n2 and returns nonzero; else returns 0.  cmpxchg8b with
 * %fs, no lock prefix. */
static inline int arch_this_cpu_cmpxchg_double(percpu_off_t off, unsigned long o1,
					       unsigned long o2, unsigned long n1,
					       unsigned long n2)
{
	int done;

	__asm__ __volatile__("cmpxchg8b %%fs:%1"
			     : "=@ccz"(done), "+m"(*(u64 *)off), "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2) : "memory");
	return done;
}
#else
static inline percpu_off_t arch_percpu_off(const void *p)
{
	return (unsigned long)p;
}

static inline void *arch_per_cpu_ptr(percpu_off_t off, unsigned int cpu)
{
	(void)cpu;
	return (void *)off;
}

static inline void *arch_this_cpu_ptr(percpu_off_t off)
{
	return (void *)off;
}

static inline unsigned long arch_this_cpu_read(percpu_off_t off)
{
	return *(volatile unsigned long *)off;
}

static inline void arch_this_cpu_write(percpu_off_t off, unsigned long v)
{
	__asm__ __volatile__("movl %1, %0" : "=m"(*(unsigned long *)off) : "ri"(v) : "memory");
}

static inline void arch_this_cpu_add(percpu_off_t off, long v)
{
	__asm__ __volatile__("addl %1, %0" : "+m"(*(unsigned long *)off) : "ri"(v) : "memory", "cc");
}

static inline int arch_this_cpu_cmpxchg_double(percpu_off_t off, unsigned long o1,
					       unsigned long o2, unsigned long n1,
					       unsigned long n2)
{
	int done;

	__asm__ __volatile__("cmpxchg8b %1"
			     : "=@ccz"(done), "+m"(*(u64 *)off), "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2) : "memory");
	return done;
}
#endif

#endif /* ARCH_PERCPU_H */
