/* slab_test.h - the allocator microbenchmark after Christoph Lameter's
 * slab_test module (Linux, 2007-2015): cycles per kmalloc, per kfree and
 * per kmalloc+kfree pair at sizes 8 to 16384 bytes, and on SMP the same
 * calls made on several CPUs at once.  The console's "slabtest", the host's
 * bench-slabtest and make slabtest (scripts/slabtest) run it; built on the
 * allocator API, <tiny/smp.h> and get_cycles() alone, so the same code
 * runs in the kernel and in the host harness.
 *
 * The tests, each at every size (powers of two, SLAB_TEST_MIN_SIZE to
 * SLAB_TEST_MAX_SIZE), n calls per CPU and phase:
 *   single      one CPU: n kmalloc, then those n kfree; then n kmalloc
 *               each followed at once by its kfree (the pair);
 *   concurrent  every CPU the same at once (slab_test's "N*alloc N*free"
 *               and "N*(alloc free)");
 *   remote      every CPU n kmalloc; then every CPU frees the n objects
 *               the next CPU allocated, all at once (slab_test's remote
 *               free test had CPU 0 free everybody's);
 *   one_alloc   one CPU allocates while the others free: CPU slot 0 makes
 *               n kmalloc for each other CPU and hands each object over as
 *               soon as it has it; each of the others frees its n as they
 *               come (its cycles include waiting for them: slab_test's
 *               "1 alloc N free").
 * Each phase is timed as a whole (two get_cycles() around the loop, as
 * slab_test does) and divided by its calls.  Every object gets one byte
 * written after its kmalloc (the tag of the CPU slot that made it) and
 * read before its kfree: frees of another slot's objects are counted
 * (remote_frees), which the self-tests check.
 *
 * Memory.  slab_test holds n objects per CPU at once (160 MB at 16 KiB);
 * here a CPU holds at most a batch of min(n, SLAB_TEST_BATCH_OBJECTS,
 * SLAB_TEST_BATCH_BYTES / size) objects: n calls are made in batches of
 * that many (printed with each line), so the run fits a small machine.
 * An allocation that fails is counted (failures) and timed like the
 * others; nothing is left allocated at the end.
 *
 * Ctrl-C (console_interrupted(), seen by the CPU that started the run)
 * stops it between two batches: res->interrupted, fewer calls.
 */
#ifndef TINY_SLAB_TEST_H
#define TINY_SLAB_TEST_H

#include <tiny/types.h>
#include <tiny/smp.h>
#include <tiny/printk.h>

#define SLAB_TEST_MIN_SIZE	8
#define SLAB_TEST_MAX_SIZE	16384
#define SLAB_TEST_DEFAULT_CALLS	10000UL
#define SLAB_TEST_BATCH_OBJECTS	16384UL
#define SLAB_TEST_BATCH_BYTES	(4UL << 20)

enum slab_test_kind {
	SLAB_TEST_SINGLE,
	SLAB_TEST_CONCURRENT,
	SLAB_TEST_REMOTE,
	SLAB_TEST_ONE_ALLOC,
	SLAB_TEST_KINDS
};

/* What each CPU slot timed: kmalloc, kfree and the kmalloc+kfree pair. */
enum slab_test_phase {
	SLAB_TEST_KMALLOC,
	SLAB_TEST_KFREE,
	SLAB_TEST_PAIR,
	SLAB_TEST_PHASES
};

/* Indexed by slot, 0..ncpus-1 (slot 0: the calling CPU). */
struct slab_test_result {
	enum slab_test_kind kind;
	unsigned int size, ncpus;
	unsigned long batch;			/* objects a CPU holds at most */
	unsigned int cpu[NR_CPUS];		/* the CPU of each slot */
	unsigned long calls[NR_CPUS][SLAB_TEST_PHASES];
	unsigned long long cycles[NR_CPUS][SLAB_TEST_PHASES];
	unsigned long failures;			/* kmalloc calls that returned NULL */
	unsigned long remote_frees;		/* objects freed by another slot than made them */
	int interrupted;			/* stopped by Ctrl-C */
};

/* The batch a CPU uses for objects of size bytes with n calls (>= 1). */
unsigned long slab_test_batch(unsigned int size, unsigned long n);

/*
 * The single test on this CPU (see above); fills *res (slot 0).  Returns
 * 0, or -1 if size or n is 0 or there is no memory for the table of
 * objects (nothing run).  Process context.
 */
int slab_test_single(unsigned int size, unsigned long n, struct slab_test_result *res);

/* The name the report prints for a kind ("single", "concurrent", ...). */
const char *slab_test_kind_name(enum slab_test_kind kind);

/*
 * The console's "slabtest": every test at every size, n calls each, one
 * line per test and size with each phase's cycles per call (the mean over
 * the CPUs that made such calls, then each slot's), and a last line with
 * the failures; the SMP tests on every online CPU when there are two or
 * more.  Returns 0, or -1 if a test could not run (said) or Ctrl-C
 * stopped it (it says where).  Process context.
 */
int slab_test_report(unsigned long n);

/*
 * The same for one test alone (its lines, then the last line): the
 * console's "slabtest n TEST".  Returns -1 also if kind is not a test or,
 * for a test on several CPUs, fewer than two are online (said).
 */
int slab_test_report_kind(unsigned long n, enum slab_test_kind kind);

/* The test a name ("single", "concurrent", ...) names; SLAB_TEST_KINDS if none. */
enum slab_test_kind slab_test_kind_by_name(const char *name);

#ifdef CONFIG_SMP
/*
 * One SMP test (kind other than SLAB_TEST_SINGLE) on ncpus online CPUs,
 * this one (slot 0) and the next online ones by number; fills *res.
 * Returns 0, or -1 if ncpus is below 2 or above the online CPUs, size or n
 * is 0, another SMP run is in progress, or there is no memory for the
 * tables (nothing run).  Process context, interrupts enabled; on the host,
 * CPU 0.
 */
int slab_test_smp(enum slab_test_kind kind, unsigned int size, unsigned long n,
		  unsigned int ncpus, struct slab_test_result *res);
#else
/* A uniprocessor kernel has no other CPU to test with. */
static inline int slab_test_smp(enum slab_test_kind kind, unsigned int size, unsigned long n,
				unsigned int ncpus, struct slab_test_result *res)
{
	(void)kind;
	(void)size;
	(void)n;
	(void)ncpus;
	(void)res;
	return -1;
}
#endif

#endif /* TINY_SLAB_TEST_H */
