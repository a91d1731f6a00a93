/* bench_insns.c - what the instructions of the kernel's fast paths cost on
 * this CPU, in user mode (make bench; scripts/kernel_cost.py reads it).
 *
 * usage: bench-insns [ROUNDS]
 *
 * Each figure is one instruction sequence repeated in a loop, UNROLL times
 * per turn, timed with rdtscp around ITERS turns: the fewest TSC ticks of
 * ROUNDS tries (default 15), less the same loop's with nothing in it,
 * divided by the sequences run.  So it is TSC cycles per sequence, back to
 * back: a throughput where the sequences are independent, a latency where
 * each depends on the last (the compare-and-exchanges all hit one word, so
 * each waits for the one before, as the kernel's retry loop would).  One
 * line each:
 *
 *   bench-insns: NAME CYCLES   (what NAME is)
 *
 * cli and sti fault in user mode and are not measured here: their cost is
 * cited in scripts/kernel_cost.py.  popf in user mode does not change IF
 * (IOPL 0), but runs the same microcoded instruction as the kernel's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS	20000
#define UNROLL	8

static __thread unsigned long tls_word = 64;
static unsigned long plain_word = 64;
static uint64_t pair8 __attribute__((aligned(16)));
#if defined(__x86_64__)
static unsigned __int128 pair16 __attribute__((aligned(16)));
#endif

static inline uint64_t rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

#define REP8(s)	s s s s s s s s

/* One timed loop of ITERS turns over BODY (UNROLL copies); the ticks. */
#define TIMED(body, ...) ({							\
	uint64_t t0 = rdtscp();							\
	for (unsigned int i = 0; i < ITERS; i++)				\
		__asm__ __volatile__(REP8(body) __VA_ARGS__);			\
	rdtscp() - t0;								\
})

struct figure {
	const char *name, *what;
	uint64_t best;
};

static uint64_t t_empty(void)
{
	return TIMED("", : : : "memory");
}

static uint64_t t_pushf_pop(void)
{
	unsigned long f;

	return TIMED("pushf; pop %0;", : "=r"(f) : : "memory");
}

static uint64_t t_push_popf(void)
{
	unsigned long f;

	__asm__ __volatile__("pushf; pop %0" : "=r"(f));
	return TIMED("push %0; popf;", : : "r"(f) : "memory", "cc");
}

static uint64_t t_save_restore(void)
{
	unsigned long f;

	return TIMED("pushf; pop %0; push %0; popf;", : "=&r"(f) : : "memory", "cc");
}

static uint64_t t_cmpxchg8b(void)
{
	uint32_t a = 0, d = 0;

	pair8 = 0;
	return TIMED("cmpxchg8b %0;", : "+m"(pair8), "+a"(a), "+d"(d) : "b"(0), "c"(0) : "memory", "cc");
}

static uint64_t t_lock_cmpxchg8b(void)
{
	uint32_t a = 0, d = 0;

	pair8 = 0;
	return TIMED("lock cmpxchg8b %0;", : "+m"(pair8), "+a"(a), "+d"(d) : "b"(0), "c"(0) :
		     "memory", "cc");
}

#if defined(__x86_64__)
static uint64_t t_cmpxchg16b(void)
{
	uint64_t a = 0, d = 0;

	pair16 = 0;
	return TIMED("cmpxchg16b %0;", : "+m"(pair16), "+a"(a), "+d"(d) : "b"(0UL), "c"(0UL) :
		     "memory", "cc");
}

static uint64_t t_lock_cmpxchg16b(void)
{
	uint64_t a = 0, d = 0;

	pair16 = 0;
	return TIMED("lock cmpxchg16b %0;", : "+m"(pair16), "+a"(a), "+d"(d) : "b"(0UL), "c"(0UL) :
		     "memory", "cc");
}
#endif

static uint64_t t_load(void)
{
	unsigned long v;

	return TIMED("mov %1, %0;", : "=r"(v) : "m"(plain_word) : "memory");
}

/* A load through the thread pointer's segment (%fs on x86-64, %gs at -m32),
 * as a kernel per-CPU read through %fs. */
static uint64_t t_seg_load(void)
{
	unsigned long v;

	return TIMED("mov %1, %0;", : "=r"(v) : "m"(tls_word) : "memory");
}

/* The host's per-CPU address: the thread-local offset added to a register. */
static uint64_t t_seg_add(void)
{
	unsigned long v = 0;

	return TIMED("add %1, %0;", : "+r"(v) : "m"(tls_word) : "memory", "cc");
}

static uint64_t t_add_mem(void)
{
	return TIMED("addl $1, %0;", : "+m"(plain_word) : : "memory", "cc");
}

static uint64_t t_lock_add_mem(void)
{
	return TIMED("lock addl $1, %0;", : "+m"(plain_word) : : "memory", "cc");
}

static uint64_t t_xchg_mem(void)
{
	unsigned long v = 0;

	return TIMED("xchg %0, %1;", : "+r"(v), "+m"(plain_word) : : "memory");
}

struct test {
	const char *name, *what;
	uint64_t (*fn)(void);
};

static const struct test tests[] = {
	{ "pushf_pop", "pushf; pop reg: reading EFLAGS (local_irq_save without cli)", t_pushf_pop },
	{ "push_popf", "push reg; popf: writing EFLAGS (local_irq_restore)", t_push_popf },
	{ "save_restore", "pushf; pop; push; popf: a save and a restore", t_save_restore },
	{ "cmpxchg8b", "cmpxchg8b mem, no lock prefix, dependent", t_cmpxchg8b },
	{ "lock_cmpxchg8b", "lock cmpxchg8b mem, dependent", t_lock_cmpxchg8b },
#if defined(__x86_64__)
	{ "cmpxchg16b", "cmpxchg16b mem, no lock prefix, dependent", t_cmpxchg16b },
	{ "lock_cmpxchg16b", "lock cmpxchg16b mem, dependent", t_lock_cmpxchg16b },
#endif
	{ "load", "mov mem, reg", t_load },
	{ "seg_load", "mov %fs:mem, reg (thread-local; %gs at -m32)", t_seg_load },
	{ "seg_add", "add %fs:mem, reg: the host's per-CPU offset", t_seg_add },
	{ "add_mem", "add imm, mem, no lock prefix, dependent", t_add_mem },
	{ "lock_add_mem", "lock add imm, mem, dependent", t_lock_add_mem },
	{ "xchg_mem", "xchg reg, mem (lock implied), dependent", t_xchg_mem },
};

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	size_t n = sizeof(tests) / sizeof(tests[0]);
	uint64_t empty = UINT64_MAX, best[sizeof(tests) / sizeof(tests[0])];

	if (rounds < 1) {
		fprintf(stderr, "usage: bench-insns [ROUNDS]\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		best[i] = UINT64_MAX;
	/* Rounds over all the tests, so a busy moment hits one try of each. */
	for (int r = 0; r < rounds; r++) {
		uint64_t e = t_empty();

		empty = e < empty ? e : empty;
		for (size_t i = 0; i < n; i++) {
			uint64_t t = tests[i].fn();

			best[i] = t < best[i] ? t : best[i];
		}
	}
	printf("bench-insns: TSC cycles per sequence, best of %d rounds of %d x %d, less the "
	       "empty loop's %.2f\n", rounds, ITERS, UNROLL, (double)empty / (ITERS * UNROLL));
	for (size_t i = 0; i < n; i++) {
		double c = ((double)best[i] - (double)empty) / (ITERS * UNROLL);

		printf("bench-insns: %-16s %6.2f   (%s)\n", tests[i].name, c < 0 ? 0 : c,
		       tests[i].what);
	}
	return 0;
}
