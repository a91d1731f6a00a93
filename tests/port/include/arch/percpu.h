/* arch/percpu.h (port example) - SLUB's per-CPU glue for a one-CPU kernel
 * in plain C: one copy of each per-CPU object, at its own address, and
 * each operation on it made with interrupts off, so that no interrupt
 * (port.c's tick) comes between its read and its write.  Correct on any
 * one-CPU kernel; a kernel with a double-word compare-and-exchange that
 * touches memory in one instruction (cmpxchg8b) needs no interrupt
 * disable (arch/x86/include/arch/percpu.h, uniprocessor part). */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <arch/irqflags.h>

#define ARCH_PERCPU_STRIDE	64

typedef unsigned long percpu_off_t;

static inline int arch_percpu_set_test_hook(void (*fn)(void))
{
	(void)fn;
	return -1;
}

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

/* One plain store: an interrupt comes before or after it. */
static inline void arch_this_cpu_write(percpu_off_t off, unsigned long v)
{
	*(volatile unsigned long *)off = v;
}

static inline void arch_this_cpu_add(percpu_off_t off, long v)
{
	unsigned long flags = arch_local_save_flags();

	arch_local_irq_disable();
	*(volatile unsigned long *)off += (unsigned long)v;
	arch_local_irq_restore(flags);
}

static inline int arch_this_cpu_cmpxchg_double(percpu_off_t off, unsigned long o1,
					       unsigned long o2, unsigned long n1,
					       unsigned long n2)
{
	volatile unsigned long *p = (volatile unsigned long *)off;
	unsigned long flags = arch_local_save_flags();
	int done;

	arch_local_irq_disable();
	done = p[0] == o1 && p[1] == o2;
	if (done) {
		p[0] = n1;
		p[1] = n2;
	}
	arch_local_irq_restore(flags);
	return done;
}

#endif /* ARCH_PERCPU_H */
