/* arch/percpu.h (host) - the kernel's per-CPU layout on threads as CPUs.
 *
 * The same layout as the i386 kernel: CPU i's copy of a per-CPU object
 * lies ARCH_PERCPU_STRIDE * i bytes after CPU 0's.  A CPU here is a thread
 * (tests/host/smp.c), its number the thread-local host_cpu_id, so this
 * CPU's copy is the address plus the stride times that number (the kernel
 * reaches it through %fs instead).
 *
 * The operations on this CPU's copy keep the kernel's contract: atomic
 * against this CPU's "interrupts" (signals taken on the same thread, or
 * calls made from a signal handler), and written by this CPU only.  They
 * are __atomic builtins, which ThreadSanitizer understands: the
 * double-word compare-and-exchange is a 16-byte one on a 64-bit host
 * (cmpxchg16b, inlined with -mcx16) and an 8-byte one at -m32.  Unlike the
 * kernel's they carry a lock prefix, which changes their cost, not what
 * they do.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

extern __thread unsigned int host_cpu_id;	/* tests/host/smp.c */

#define ARCH_PERCPU_STRIDE	64

typedef unsigned long percpu_off_t;

#if __SIZEOF_LONG__ == 8
typedef unsigned __int128 host_percpu_pair_t;
#else
typedef unsigned long long host_percpu_pair_t;
#endif

static inline percpu_off_t arch_percpu_off(const void *p)
{
	return (unsigned long)p;
}

static inline void *arch_per_cpu_ptr(percpu_off_t off, unsigned int cpu)
{
	return (char *)off + (unsigned long)cpu * ARCH_PERCPU_STRIDE;
}

static inline void *arch_this_cpu_ptr(percpu_off_t off)
{
	return arch_per_cpu_ptr(off, host_cpu_id);
}

static inline unsigned long arch_this_cpu_read(percpu_off_t off)
{
	return __atomic_load_n((unsigned long *)arch_this_cpu_ptr(off), __ATOMIC_RELAXED);
}

/* One add on this thread's copy: a signal cannot split it, and other
 * threads only read the word. */
static inline void arch_this_cpu_add(percpu_off_t off, long v)
{
	__atomic_fetch_add((unsigned long *)arch_this_cpu_ptr(off), (unsigned long)v,
			   __ATOMIC_RELAXED);
}

/*
 * A self-test's "interrupt" inside a fast path: with -DHOST_PERCPU_TEST_HOOK
 * (the self-test programs, not the benchmarks), a function set on this
 * thread runs once just before its next double-word exchange, as an
 * interrupt between the fast path's reads and its cmpxchg8b would.
 * Returns 0, or -1 where no hook exists (the kernel; the benchmarks).
 */
#ifdef HOST_PERCPU_TEST_HOOK
extern __thread void (*host_percpu_hook)(void);	/* tests/host/smp.c */

static inline int arch_percpu_set_test_hook(void (*fn)(void))
{
	host_percpu_hook = fn;
	return 0;
}

static inline void host_percpu_interrupt(void)
{
	void (*fn)(void) = host_percpu_hook;

	if (__builtin_expect(fn != 0, 0)) {
		host_percpu_hook = 0;
		fn();
	}
}
#else
static inline int arch_percpu_set_test_hook(void (*fn)(void))
{
	(void)fn;
	return -1;
}

static inline void host_percpu_interrupt(void)
{
}
#endif

static inline int arch_this_cpu_cmpxchg_double(percpu_off_t off, unsigned long o1,
					       unsigned long o2, unsigned long n1,
					       unsigned long n2)
{
	host_percpu_pair_t old = o1 | (host_percpu_pair_t)o2 << (8 * sizeof(long));
	host_percpu_pair_t new = n1 | (host_percpu_pair_t)n2 << (8 * sizeof(long));

	host_percpu_interrupt();
	return __atomic_compare_exchange_n((host_percpu_pair_t *)arch_this_cpu_ptr(off), &old, new,
					   0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

#endif /* ARCH_PERCPU_H */
