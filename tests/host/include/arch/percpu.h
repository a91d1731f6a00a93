/* arch/percpu.h (host) - the kernel's per-CPU layout on threads as CPUs.
 *
 * The same layout as the i386 kernel: CPU i's copy of a per-CPU object
 * lies ARCH_PERCPU_STRIDE * i bytes after CPU 0's.  A CPU here is a thread
 * (tests/host/smp.c), and this CPU's copy is the address plus the
 * thread-local host_percpu_offset (the stride times host_cpu_id, set with
 * it).  Thread-local storage is %fs-relative on x86-64 (%gs at -m32), so
 * the host reaches this CPU's copy as the kernel does, through the segment
 * register, but in two instructions where the kernel has one: a load of
 * the offset through %fs added to the address (one add with a %fs operand
 * where the compiler folds it), then the access itself; the kernel's
 * access carries the %fs prefix itself.  The extra add (and, at -m32, the
 * %gs base) is listed with its cost in docs/benchmarks.md.
 *
 * The operations on this CPU's copy keep the kernel's contract: atomic
 * against this CPU's "interrupts" (signals taken on the same thread, or
 * calls made from a signal handler), and written by this CPU only.  As in
 * the kernel, each is one instruction without a lock prefix (add,
 * cmpxchg16b on a 64-bit host, cmpxchg8b at -m32): a signal comes between
 * two instructions, never inside one, and other threads only read these
 * words.  Under ThreadSanitizer, which does not see inside inline asm,
 * they are __atomic builtins instead (the compare-and-exchange inlined as
 * lock cmpxchg16b with -mcx16), so that it sees every access; the lock
 * prefix changes their cost there, not what they do.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

extern __thread unsigned int host_cpu_id;	/* tests/host/smp.c */
/* ARCH_PERCPU_STRIDE * host_cpu_id, set with it (tests/host/smp.c) */
extern __thread unsigned long host_percpu_offset;

#define ARCH_PERCPU_STRIDE	64

/* The kernel's instruction classes of this file that the host executes as
 * the kernel does (scripts/kernel_cost.py): the double-word exchange
 * (cmpxchg16b on a 64-bit host, where the kernel's is cmpxchg8b: the cost
 * differs, docs/benchmarks.md) and the segment-relative access. */
#define HOST_EXECUTED_INSNS_PERCPU	"cmpxchg8b seg"

typedef unsigned long percpu_off_t;

#if __SIZEOF_LONG__ == 8
typedef unsigned __int128 host_percpu_pair_t;
#define HOST_CMPXCHG_DOUBLE	"cmpxchg16b"
#else
typedef unsigned long long host_percpu_pair_t;
#define HOST_CMPXCHG_DOUBLE	"cmpxchg8b"
#endif

/* ThreadSanitizer's builds use the __atomic builtins (above). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HOST_PERCPU_ATOMICS	1
#endif
#endif
#ifndef HOST_PERCPU_ATOMICS
#define HOST_PERCPU_ATOMICS	0
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
	return (char *)off + host_percpu_offset;
}

static inline unsigned long arch_this_cpu_read(percpu_off_t off)
{
	return __atomic_load_n((unsigned long *)arch_this_cpu_ptr(off), __ATOMIC_RELAXED);
}

/* One add on this thread's copy: a signal cannot split it, and other
 * threads only read the word. */
static inline void arch_this_cpu_add(percpu_off_t off, long v)
{
	unsigned long *p = arch_this_cpu_ptr(off);

	if (HOST_PERCPU_ATOMICS)
		__atomic_fetch_add(p, (unsigned long)v, __ATOMIC_RELAXED);
	else
		__asm__ __volatile__("add %1, %0" : "+m"(*p) : "r"(v) : "memory", "cc");
}

/*
 * A self-test's "interrupt" inside a fast path: with -DHOST_PERCPU_TEST_HOOK
 * (the self-test programs, not the benchmarks), a function set on this
 * thread runs once just before its next double-word exchange, as an
 * interrupt between the fast path's reads and its cmpxchg8b would, or just
 * after its next one-word write (arch_this_cpu_write()), as an interrupt
 * right after the sheaves' fast path took its flag would.
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

/* One store to this thread's copy; then the test hook, if one is set. */
static inline void arch_this_cpu_write(percpu_off_t off, unsigned long v)
{
	__atomic_store_n((unsigned long *)arch_this_cpu_ptr(off), v, __ATOMIC_RELAXED);
	host_percpu_interrupt();
}

static inline int arch_this_cpu_cmpxchg_double(percpu_off_t off, unsigned long o1,
					       unsigned long o2, unsigned long n1,
					       unsigned long n2)
{
	host_percpu_pair_t old = o1 | (host_percpu_pair_t)o2 << (8 * sizeof(long));
	host_percpu_pair_t new = n1 | (host_percpu_pair_t)n2 << (8 * sizeof(long));

	host_percpu_pair_t *p = arch_this_cpu_ptr(off);
	int done;

	host_percpu_interrupt();
	if (HOST_PERCPU_ATOMICS)
		return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_RELAXED,
						   __ATOMIC_RELAXED);
	(void)old;
	(void)new;
	__asm__ __volatile__(HOST_CMPXCHG_DOUBLE " %1"
			     : "=@ccz"(done), "+m"(*p), "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2) : "memory");
	return done;
}

#endif /* ARCH_PERCPU_H */
