/* bench_replay.c - the trace replay of the kernel, on the host, timed.
 *
 * usage: bench_replay [--mem MB | --layout SPEC] [--count alloc|free]
 *                     [--cycles FILE] [--paths FILE] [--no-footprint]
 *                     [--step N | --warm] TRACE.replay
 * Runs kernel/replay.c on the same mm/ code as the kernel (build it -m32 to
 * get the kernel's object sizes), prints the kernel's replay report, and
 * adds what the host can measure better: nanoseconds per allocation and
 * per free (TSC cycles of the replay, converted with a TSC rate measured
 * against CLOCK_MONOTONIC during the run), the host page faults taken
 * during the replay (0 expected: the memory standing in for RAM is backed
 * beforehand), and what an empty call costs through the same pair of TSC
 * reads (the floor under every per-call figure).
 *
 * Instructions per operation come from the callgrind build (bench-cg) run
 * under callgrind with --collect-atstart=no: --count picks whether the
 * allocations or the frees are counted (scripts/bench).
 *
 * The timed build (bench-timed, with bench_timex.h) also keeps the cycles
 * of every single allocator call: it prints their p50, p99, p99.9 and
 * maximum and, with --cycles, writes them to FILE (u32 count of
 * allocations, u32 count of frees, then one u32 per call in trace order,
 * allocations first; little-endian host order), from which scripts/bench
 * takes each call's minimum over several runs.  It keeps the path each
 * call took as well (<tiny/call_path.h>: the allocators' slow steps, built
 * in with -DHOST_CALL_PATH), prints the slowest call's, and with --paths
 * writes them to FILE in the same layout (u32 a call: the CALL_PATH_*
 * bits, and the heap pages walked above CALL_PATH_WALK_SHIFT).
 *
 * The same file, linked with tests/host/peer_kmem.c instead of mm/ and
 * host.c, replays the trace against a user-space malloc (the peer-*
 * binaries): the harness, and so the work around each call, is the same.
 * --no-footprint tells a peer not to sample its footprint, which it
 * would do at every new peak of live bytes (jemalloc's statistics
 * refresh there made its allocations 1.6 times slower): scripts/bench times the
 * peers without it and takes their footprint from a run of its own.
 * SLAB's and SLOB's counts cost next to nothing and are always taken.
 *
 * --step N (x86 builds, i386 or 64-bit) counts the instructions of every N-th
 * allocator call the replay makes by single-stepping it: a breakpoint
 * (int3) on the entry of kmalloc, kmem_cache_alloc, kfree and
 * kmem_cache_free stops each call; for a call sampled, the x86 trap flag
 * then raises SIGTRAP after each instruction until the call returns to the
 * replay, and the handler counts them.  Everything the call runs is
 * counted (the page allocator too), nothing of the harness.  Allocations
 * asked to be zeroed are left out (their extra is a memset of the object,
 * and a rep string instruction traps once per iteration), and so are calls
 * made by kmem_cache_create/destroy and the clean-up frees after the
 * trace.  It prints the maximum and the mean per allocation and per free
 * over the calls stepped.  Slow (a signal per instruction, about 90 us on a
 * virtual machine): scripts/bench runs it once, apart.
 *
 * --warm replays the trace once, untimed, before the replay measured, so
 * that every allocator is timed on a heap that has already grown to the
 * trace's peak once: the host pages a peer takes as it grows are faulted
 * in then, as SLAB's and SLOB's RAM is written before any replay (what a
 * peer then gives back to the host kernel, and faults in again, scripts/
 * bench's settings for the peers decide: see docs/benchmarks.md).  The
 * figures printed are the second replay's; the page faults row counts only
 * its faults.
 *
 * With --layout (the "replay-layout:" line of a kernel replay) the page
 * allocator starts in the kernel's state and the footprint figures must
 * come out exactly as the kernel's.
 * Exit status: 0 clean run, 1 allocation failures or corruption (counted
 * in the report), any report printed (a bad pointer, BUG, WARNING, or
 * the debugging layer's heap damage) or a malformed trace, 2 bad usage or
 * a host failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <signal.h>
#include <ucontext.h>

#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/call_path.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <arch/timex.h>
#include "host.h"
#include "../../mm/slab_common.h"

#define FLOOR_SAMPLES	10001	/* empty calls timed for the floor */

/* The cycles and the path of each measured call of one kind, in trace order. */
struct call_log {
	u32 *cycles;
	u32 *path;			/* <tiny/call_path.h> */
	unsigned long cap, n;
	unsigned long long seen;	/* the replay's total when the last call ended */
};

static struct replay_result res;
static struct call_log calls[2];	/* [0] allocations, [1] frees */
int host_measure_mask;
int bench_sample_footprint = 1;		/* read by peer_kmem.c */
unsigned int call_path_taken;		/* <tiny/call_path.h>; bench_timex.h clears it */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Anonymous memory outside every allocator measured, written once so that
 * no first touch happens during the replay; exits on failure. */
static void *backed_table(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("bench: mmap");
		exit(2);
	}
	memset(p, 0, bytes);
	return p;
}

/* ---- the overhead at the peak (--breakdown, the timed build) -----------------------
 * The replay's calls come in trace order, so following the trace op by op
 * beside them gives the live bytes after each call; at every new peak the
 * SLAB or SLUB build takes its breakdown (slab_get_breakdown(), weak: SLOB
 * and the peers have none). */
void slab_get_breakdown(struct slab_breakdown *b) __attribute__((weak));

static struct {
	int wanted, on;
	const struct replay_cache *caches;
	const struct replay_op *op, *end;
	u32 *slot_size;
	unsigned long long live, peak;
	struct slab_breakdown at_peak;
} bd;

static void breakdown_start(const void *data, size_t len)
{
	const struct replay_header *h = data;

	if (!slab_get_breakdown || len < sizeof(*h) ||
	    len < sizeof(*h) + (size_t)h->nr_caches * sizeof(*bd.caches) +
		  (size_t)h->nr_ops * sizeof(*bd.op))
		return;
	bd.caches = (const void *)(h + 1);
	bd.op = (const void *)(bd.caches + h->nr_caches);
	bd.end = bd.op + h->nr_ops;
	bd.slot_size = backed_table((size_t)h->nr_slots * sizeof(u32) + 1);
	bd.on = 1;
}

/* Follows the trace to the op of the call just made (kind) and takes the
 * breakdown at a new peak of live bytes. */
static void breakdown_step(int kind)
{
	u32 code, slot, size;

	while (bd.op < bd.end && (bd.op->code & REPLAY_OP_MASK) == REPLAY_TIME)
		bd.op++;
	if (bd.op == bd.end || ((bd.op->code & REPLAY_OP_MASK) == REPLAY_FREE) !=
			       (kind == MEASURE_FREE)) {
		bd.on = 0;			/* out of step (a failed allocation) */
		return;
	}
	code = bd.op->code & REPLAY_OP_MASK;
	slot = bd.op->code >> REPLAY_SLOT_SHIFT;
	bd.op++;
	if (code == REPLAY_FREE) {
		bd.live -= bd.slot_size[slot];
		return;
	}
	size = code == REPLAY_KMALLOC ? bd.op[-1].arg : bd.caches[bd.op[-1].arg].object_size;
	bd.slot_size[slot] = size;
	bd.live += size;
	if (bd.live > bd.peak) {
		bd.peak = bd.live;
		slab_get_breakdown(&bd.at_peak);
	}
}

static void breakdown_print(void)
{
	const struct slab_breakdown *b = &bd.at_peak;
	double live = (double)bd.peak / 100;

	if (!bd.on) {
		printf("bench: breakdown: not taken (not SLAB's or SLUB's bench-timed, or a failed "
		       "allocation)\n");
		return;
	}
	printf("bench: breakdown at the peak, %% of %llu live bytes: held %llu (%.2f%% over); "
	       "rounding %.2f, tail %.2f, descriptors %.2f, free in slabs %.2f, "
	       "magazines %.2f, own objects %.2f\n", bd.peak, b->held,
	       (double)(b->held - bd.peak) / live,
	       ((double)b->callers + (double)b->large_bytes - (double)bd.peak) / live,
	       (double)b->tail / live, (double)b->mgmt / live, (double)b->free_objs / live,
	       (double)b->cached / live, (double)b->internal / live);
}

/* The replay calls this after each measured call (see bench_timex.h): the
 * call's cycles are what the replay's total for its kind grew by. */
void bench_call_done(int kind)
{
	struct call_log *log = &calls[kind == MEASURE_FREE];
	unsigned long long total = kind == MEASURE_FREE ? res.free_cycles : res.alloc_cycles;
	unsigned long long d = total - log->seen;

	log->seen = total;
	if (bd.on)
		breakdown_step(kind);
	if (log->n < log->cap) {
		log->cycles[log->n] = d > UINT32_MAX ? UINT32_MAX : (u32)d;
		log->path[log->n] = call_path_taken;
	}
	log->n++;
}

/* Room for one entry per op the file can hold (8 bytes an op): enough for
 * every call whatever its header claims (the replay checks the header). */
static void make_call_logs(size_t trace_len)
{
	unsigned long most = (unsigned long)(trace_len / sizeof(struct replay_op));
	int i;

	for (i = 0; i < 2; i++) {
		calls[i].cycles = backed_table(most * sizeof(u32));
		calls[i].path = backed_table(most * sizeof(u32));
		calls[i].cap = most;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The q-th quantile (q in 0..1) of sorted[0..n-1], by the nearest rank. */
static u32 quantile(const u32 *sorted, unsigned long n, double q)
{
	unsigned long rank = (unsigned long)(q * (double)n + 0.999999);

	return sorted[rank ? rank - 1 : 0];
}

/* The path bits' names, in <tiny/call_path.h>'s order. */
static const char *const path_names[CALL_PATH_BITS] = {
	"refill", "new slab", "page alloc", "page free", "flush", "slab freed", "large"
};

/* Writes a call's path ("fast" if it took no slow step) into buf. */
static const char *path_text(u32 path, char *buf, size_t size)
{
	unsigned int walked = path >> CALL_PATH_WALK_SHIFT;
	size_t n = 0;
	int b;

	buf[0] = '\0';
	for (b = 0; b < CALL_PATH_BITS; b++)
		if (path & (1u << b))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "+" : "", path_names[b]);
	if (walked && n < size)
		snprintf(buf + n, size - n, "%sheap walk %u page%s", n ? "+" : "", walked,
			 walked == 1 ? "" : "s");
	return buf[0] ? buf : "fast";
}

/* The index of the slowest call of log (the first, if several). */
static unsigned long slowest_call(const struct call_log *log)
{
	unsigned long i, most = 0;

	for (i = 1; i < log->n && i < log->cap; i++)
		if (log->cycles[i] > log->cycles[most])
			most = i;
	return most;
}

static void print_call_stats(const char *what, const struct call_log *log)
{
	unsigned long slow;
	char buf[160];
	u32 *sorted;

	if (!log->n)
		return;
	sorted = backed_table(log->n * sizeof(u32));
	memcpy(sorted, log->cycles, log->n * sizeof(u32));
	qsort(sorted, log->n, sizeof(u32), cmp_u32);
	slow = slowest_call(log);
	printf("bench: cycles per %s call (TSC, this run): p50 %u, p99 %u, p99.9 %u, max %u "
	       "(call %lu: %s)\n", what, quantile(sorted, log->n, 0.5),
	       quantile(sorted, log->n, 0.99), quantile(sorted, log->n, 0.999), sorted[log->n - 1],
	       slow, path_text(log->path[slow], buf, sizeof(buf)));
	munmap(sorted, log->n * sizeof(u32));
}

/* Writes the per-call cycles, or their paths (format above); 0 or -1
 * (reported). */
static int write_call_logs(const char *path, int paths)
{
	u32 counts[2] = { (u32)calls[0].n, (u32)calls[1].n };
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		perror(path);
		return -1;
	}
	ok = fwrite(counts, sizeof(counts), 1, f) == 1 &&
	     fwrite(paths ? calls[0].path : calls[0].cycles, sizeof(u32), calls[0].n, f) ==
		     calls[0].n &&
	     fwrite(paths ? calls[1].path : calls[1].cycles, sizeof(u32), calls[1].n, f) ==
		     calls[1].n;
	if (fclose(f) || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

/* Stands for an allocator that does nothing: the floor of the bracket. */
static noinline void *empty_call(size_t size)
{
	__asm__ __volatile__("" ::: "memory");
	return (void *)(uintptr_t)size;
}

/* The median cycles of an empty call timed as the replay times a call. */
static u32 bracket_floor(void)
{
	static u32 samples[FLOOR_SAMPLES];
	unsigned long long t0;
	int i;

	for (i = 0; i < FLOOR_SAMPLES; i++) {
		t0 = get_cycles();
		empty_call((size_t)i);
		samples[i] = (u32)(get_cycles() - t0);
	}
	qsort(samples, FLOOR_SAMPLES, sizeof(u32), cmp_u32);
	return samples[FLOOR_SAMPLES / 2];
}

/* ---- --step: the instructions of each call, single-stepped ------------ */

#if defined(__i386__) || defined(__x86_64__)
#define STEP_TF		0x100UL		/* EFLAGS.TF */
/* gregs[] slots (<sys/ucontext.h> names them only with _GNU_SOURCE, which
 * the force-included bench_timex.h comes before).  At a function's entry
 * the return address is at the stack pointer; i386 passes the arguments
 * on the stack above it, x86-64 in RDI and RSI. */
#ifdef __i386__
#define STEP_ESP	7
#define STEP_EIP	14
#define STEP_EFL	16
#define STEP_ARG(r, n)	(((uintptr_t *)(uintptr_t)(r)[STEP_ESP])[1 + (n)])
#else
#define STEP_ESP	15		/* REG_RSP */
#define STEP_EIP	16		/* REG_RIP */
#define STEP_EFL	17		/* REG_EFL */
#define STEP_RDI	8
#define STEP_RSI	9
#define STEP_ARG(r, n)	((uintptr_t)(r)[(n) ? STEP_RSI : STEP_RDI])
#endif

/* The entry points stopped at: the four calls counted, then the two whose
 * inner calls are not counted. */
enum { STEP_KMALLOC, STEP_CACHE_ALLOC, STEP_KFREE, STEP_CACHE_FREE, STEP_CREATE, STEP_DESTROY,
       STEP_ENTRIES };
#define STEP_KEEP	(1 << 17)	/* counts kept per kind: every call of the shipped trace */

static struct {
	unsigned char *entry[STEP_ENTRIES], saved[STEP_ENTRIES];
	int inside;			/* -1, or the entry whose call is being stepped */
	int running;			/* running a call not stepped to its return */
	unsigned char ret_saved;	/* the byte under its breakpoint */
	uintptr_t writable;		/* a text page made writable already */
	unsigned long every, seen;	/* step every "every"-th call; calls seen */
	uintptr_t ret;			/* where that call returns */
	uintptr_t arg, gfp;		/* its first argument; an allocation's gfp */
	uintptr_t max_arg;		/* the first argument of the largest allocation */
	unsigned long count, calls[2], frees_left;
	unsigned long long total[2];
	unsigned long max[2], max_op[2];	/* [0] allocations, [1] frees */
	u32 kept[2][STEP_KEEP];		/* each stepped call's count, for the median */
	const struct replay_op *ops;
	unsigned long nr_ops;
} step;

static void step_arm(int e, int on)
{
	*step.entry[e] = on ? 0xcc : step.saved[e];
}

/* Notes the call just returned: its kind, its count. */
static void step_done(int e)
{
	int kind = e >= STEP_KFREE;
	unsigned long n = step.count;

	if (e >= STEP_CREATE || (kind && !step.frees_left))
		return;
	if (step.calls[kind] < STEP_KEEP)
		step.kept[kind][step.calls[kind]] = (u32)n;
	step.calls[kind]++;
	step.total[kind] += n;
	if (n > step.max[kind]) {
		step.max[kind] = n;
		step.max_op[kind] = step.calls[kind];
		if (!kind)
			step.max_arg = e == STEP_KMALLOC ? step.arg : 0;
	}
}

/* Makes the text page of p writable (exits on failure). */
static void step_writable(uintptr_t p)
{
	uintptr_t page = p & ~(uintptr_t)4095;

	if (page == step.writable)
		return;
	if (mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("bench: mprotect");
		exit(2);
	}
	step.writable = page;
}

/* Lets the call run at full speed to its return address ret. */
static void step_run_to(uintptr_t ret)
{
	step_writable(ret);
	step.ret_saved = *(unsigned char *)ret;
	*(unsigned char *)ret = 0xcc;
	step.running = 1;
}

/* SIGTRAP: a breakpoint at an entry starts stepping its call; each step in
 * it counts one instruction until it is back at the return address. */
static void step_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *r = uc->uc_mcontext.gregs;
	uintptr_t ip = (uintptr_t)r[STEP_EIP];
	int e;

	(void)sig;
	(void)si;
	if (step.running) {		/* back from a call not stepped */
		if (ip != step.ret + 1)
			return;
		*(unsigned char *)step.ret = step.ret_saved;
		r[STEP_EIP] = (greg_t)step.ret;
		for (e = 0; e < STEP_ENTRIES; e++)
			step_arm(e, 1);
		step.running = 0;
		return;
	}
	if (step.inside >= 0) {
		if (ip != step.ret) {
			step.count++;
			return;
		}
		step_done(step.inside);
		r[STEP_EFL] &= ~STEP_TF;
		for (e = 0; e < STEP_ENTRIES; e++)
			step_arm(e, 1);
		step.inside = -1;
		return;
	}
	for (e = 0; e < STEP_ENTRIES && ip != (uintptr_t)step.entry[e] + 1; e++)
		;
	if (e == STEP_ENTRIES)
		return;
	for (e = 0; e < STEP_ENTRIES; e++)
		step_arm(e, 0);
	for (e = 0; e < STEP_ENTRIES && ip != (uintptr_t)step.entry[e] + 1; e++)
		;
	r[STEP_EIP] = (greg_t)(ip - 1);
	r[STEP_EFL] |= STEP_TF;
	step.ret = ((uintptr_t *)(uintptr_t)r[STEP_ESP])[0];
	step.arg = STEP_ARG(r, 0);
	step.gfp = STEP_ARG(r, 1);
	if (e >= STEP_KFREE && e < STEP_CREATE && step.frees_left)
		step.frees_left--;
	else if (e >= STEP_KFREE && e < STEP_CREATE)
		e = STEP_CREATE;		/* a clean-up free: not counted */
	if (e < STEP_KFREE && (step.gfp & __GFP_ZERO))
		e = STEP_CREATE;		/* zeroed: not counted */
	if (e >= STEP_CREATE || step.seen++ % step.every) {
		step_run_to(step.ret);	/* with its inner calls, uncounted */
		r[STEP_EFL] &= ~STEP_TF;
		return;
	}
	step.inside = e;
	step.count = 0;
}

/* Breakpoints on the entries and the SIGTRAP handler; exits on failure. */
static void step_setup(const void *data, unsigned long every)
{
	void *fn[STEP_ENTRIES] = { (void *)kmalloc, (void *)kmem_cache_alloc, (void *)kfree,
				   (void *)kmem_cache_free, (void *)kmem_cache_create,
				   (void *)kmem_cache_destroy };
	const struct replay_header *h = data;
	struct sigaction sa;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = step_trap;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGTRAP, &sa, NULL)) {
		perror("bench: sigaction");
		exit(2);
	}
	for (e = 0; e < STEP_ENTRIES; e++) {
		step_writable((uintptr_t)fn[e]);
		step.entry[e] = fn[e];
		step.saved[e] = *step.entry[e];
		step_arm(e, 1);
	}
	step.inside = -1;
	step.frees_left = h->nr_frees;
	step.every = every ? every : 1;
}

/* The median of the counts kept for kind (the typical call: the fast path). */
static unsigned int step_median(int kind)
{
	unsigned long n = step.calls[kind] < STEP_KEEP ? step.calls[kind] : STEP_KEEP;

	if (!n)
		return 0;
	qsort(step.kept[kind], n, sizeof(u32), cmp_u32);
	return step.kept[kind][n / 2];
}

static void step_report(void)
{
	int e;

	for (e = 0; e < STEP_ENTRIES; e++)
		step_arm(e, 0);
	printf("bench: instructions per call, single-stepped (every %lu-th call, zeroed "
	       "allocations left out): allocation max %lu (stepped call %lu%s%lu), mean %.1f, "
	       "median %u; free max %lu (stepped call %lu), mean %.1f, median %u; "
	       "%lu allocations, %lu frees stepped\n",
	       step.every, step.max[0], step.max_op[0], step.max_arg ? ", kmalloc " : "",
	       (unsigned long)step.max_arg,
	       step.calls[0] ? (double)step.total[0] / step.calls[0] : 0, step_median(0),
	       step.max[1], step.max_op[1],
	       step.calls[1] ? (double)step.total[1] / step.calls[1] : 0, step_median(1),
	       step.calls[0], step.calls[1]);
}
#else
static void step_setup(const void *data, unsigned long every)
{
	(void)data;
	(void)every;
	fprintf(stderr, "bench: --step needs an x86 build (i386 or x86-64)\n");
	exit(2);
}

static void step_report(void)
{
}
#endif

static long page_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--mem MB | --layout SPEC] [--count alloc|free] "
		"[--cycles FILE] [--paths FILE] [--no-footprint] [--breakdown | --step N | --warm] "
		"TRACE.replay\n",
		prog);
	return 2;
}

/* --warm: the whole replay once, its figures and call logs dropped; 0, or
 * 1 if the trace is malformed (reported). */
static int warm_up(const void *data, size_t len)
{
	int k;

	if (replay_run(data, len, &res) < 0)
		return 1;
	for (k = 0; k < 2; k++) {
		calls[k].n = 0;
		calls[k].seen = 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char outbuf[BUFSIZ];
	unsigned long mb = 32;
	const char *path = NULL, *layout = NULL, *cycles_path = NULL, *paths_path = NULL;
	double t0, t1, ghz;
	u64 c0, c1;
	long faults;
	size_t len;
	void *data;
	u32 floor;
	unsigned long stepping = 0;
	int i, r, warm = 0;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));	/* no buffer from the heap measured */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mem") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--layout") && i + 1 < argc)
			layout = argv[++i];
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			host_measure_mask = !strcmp(argv[++i], "alloc") ? MEASURE_ALLOC : MEASURE_FREE;
		else if (!strcmp(argv[i], "--cycles") && i + 1 < argc)
			cycles_path = argv[++i];
		else if (!strcmp(argv[i], "--paths") && i + 1 < argc)
			paths_path = argv[++i];
		else if (!strcmp(argv[i], "--breakdown"))
			bd.wanted = 1;
		else if (!strcmp(argv[i], "--no-footprint"))
			bench_sample_footprint = 0;
		else if (!strcmp(argv[i], "--step") && i + 1 < argc)
			stepping = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--warm"))
			warm = 1;
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			return usage(argv[0]);
	}
	if (!path)
		return usage(argv[0]);
	data = host_read_file(path, &len);
	make_call_logs(len);
	if (bd.wanted)
		breakdown_start(data, len);
	if (layout)
		host_mm_init_layout(layout);
	else
		host_mm_init(mb);
	floor = bracket_floor();
	if (warm && (stepping || bd.wanted))
		return usage(argv[0]);
	if (stepping)
		step_setup(data, stepping);
	if (warm && warm_up(data, len))
		return 1;
	faults = page_faults();
	t0 = now_ns();
	c0 = get_cycles();
	r = replay_run(data, len, &res);
	c1 = get_cycles();
	t1 = now_ns();
	faults = page_faults() - faults;
	if (r < 0)
		return 1;
	replay_report(&res, path);
	if (stepping)
		step_report();
	ghz = (double)(c1 - c0) / (t1 - t0);
	printf("bench: the replay took %.3f s\n", (t1 - t0) / 1e9);
	printf("bench: TSC %.3f GHz; ns per op: alloc %.1f, free %.1f\n", ghz,
	       res.allocs ? res.alloc_cycles / ghz / res.allocs : 0.0,
	       res.frees ? res.free_cycles / ghz / res.frees : 0.0);
	printf("bench: an empty call through the same TSC reads: %u cycles (median)\n", floor);
	printf("bench: host page faults during the replay: %ld\n", faults);
	print_call_stats("allocation", &calls[0]);
	print_call_stats("free", &calls[1]);
	if (bd.wanted)
		breakdown_print();
	if (totalram_pages())
		printf("bench: MemTotal %lu kB\n", totalram_pages() << (PAGE_SHIFT - 10));
	if (counter_read(&reports_printed)) {
		/* The allocator or the debugging layer saw damage or a bad
		 * pointer: the replay itself makes neither. */
		printf("bench: %lu report(s) printed (bad pointer, BUG, WARNING or heap damage)\n",
		       counter_read(&reports_printed));
		r = 1;
	}
	printf("replay: %s\n", r == 0 ? "PASS" : "FAIL");
	fflush(stdout);
	if (cycles_path || paths_path) {
		if (calls[0].n != res.allocs || calls[1].n != res.frees) {
			fprintf(stderr, "bench: this build does not record each call (%lu of %lu "
				"allocations): --cycles and --paths need bench-timed\n", calls[0].n,
				res.allocs);
			return 2;
		}
		if ((cycles_path && write_call_logs(cycles_path, 0)) ||
		    (paths_path && write_call_logs(paths_path, 1)))
			return 2;
	}
	return r;
}
