/* slab_test.c - the allocator microbenchmark after Christoph Lameter's
 * slab_test: the timed loops, the single-CPU test and the console report
 * (<tiny/slab_test.h> says what is measured and how).  The tests on
 * several CPUs at once are in slab_test_smp.c (CONFIG_SMP).
 *
 * A loop is timed as a whole, two get_cycles() around it, and divided by
 * its calls, as slab_test does: the TSC reads cost nothing per call, and
 * what a call leaves to the next (a magazine to refill, a slab to grow)
 * is counted where it happens.  The loops run a batch at a time; between
 * two batches, untimed, the CPU that started the run looks for Ctrl-C.
 */
#include <tiny/kernel.h>
#include <tiny/console.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/smp.h>
#include <tiny/string.h>
#include <arch/timex.h>
#include "slab_test_loops.h"

static const char *const kind_names[SLAB_TEST_KINDS] = {
	[SLAB_TEST_SINGLE] = "single",
	[SLAB_TEST_CONCURRENT] = "concurrent",
	[SLAB_TEST_REMOTE] = "remote",
	[SLAB_TEST_ONE_ALLOC] = "one_alloc",
};

const char *slab_test_kind_name(enum slab_test_kind kind)
{
	return kind < SLAB_TEST_KINDS ? kind_names[kind] : "?";
}

unsigned long slab_test_batch(unsigned int size, unsigned long n)
{
	unsigned long batch = min(n, SLAB_TEST_BATCH_OBJECTS);

	if (size && batch > SLAB_TEST_BATCH_BYTES / size)
		batch = SLAB_TEST_BATCH_BYTES / size;
	return batch ? batch : 1;
}

/* ---- the timed loops (slab_test_loops.h) ------------------------------------ */

u64 slab_test_alloc_loop(void **v, unsigned long count, unsigned int size, u8 tag,
			 unsigned long *failures)
{
	unsigned long i, failed = 0;
	u64 start = get_cycles();

	for (i = 0; i < count; i++) {
		u8 *p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);

		if (p)
			*p = tag;
		else
			failed++;
		v[i] = p;
	}
	start = get_cycles() - start;
	*failures += failed;
	return start;
}

u64 slab_test_free_loop(void **v, unsigned long count, u8 tag, unsigned long *remote)
{
	unsigned long i, others = 0;
	u64 start = get_cycles();

	for (i = 0; i < count; i++) {
		u8 *p = v[i];

		if (p) {
			others += *p != tag;
			kfree(p);
		}
		v[i] = NULL;
	}
	start = get_cycles() - start;
	*remote += others;
	return start;
}

u64 slab_test_pair_loop(unsigned long count, unsigned int size, u8 tag, unsigned long *failures)
{
	unsigned long i, failed = 0;
	u64 start = get_cycles();

	for (i = 0; i < count; i++) {
		u8 *p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);

		if (p) {
			*p = tag;
			kfree(p);
		} else {
			failed++;
		}
	}
	start = get_cycles() - start;
	*failures += failed;
	return start;
}

/* The table of a batch's objects: whole zeroed pages from the page
 * allocator, so that the allocator measured holds none of the harness. */
void **slab_test_table_alloc(unsigned long batch)
{
	return (void **)__get_free_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
					 get_order(batch * sizeof(void *)));
}

void slab_test_table_free(void **table, unsigned long batch)
{
	if (table)
		free_pages((unsigned long)(uintptr_t)table, get_order(batch * sizeof(void *)));
}

void slab_test_result_init(struct slab_test_result *res, enum slab_test_kind kind,
			   unsigned int size, unsigned long n, unsigned int ncpus)
{
	memset(res, 0, sizeof(*res));
	res->kind = kind;
	res->size = size;
	res->ncpus = ncpus;
	res->batch = slab_test_batch(size, n);
}

/* ---- one CPU ------------------------------------------------------------------ */

int slab_test_single(unsigned int size, unsigned long n, struct slab_test_result *res)
{
	unsigned long done, count;
	void **v;

	slab_test_result_init(res, SLAB_TEST_SINGLE, size, n, 1);
	if (!size || !n)
		return -1;
	v = slab_test_table_alloc(res->batch);
	if (!v)
		return -1;
	res->cpu[0] = smp_processor_id();
	for (done = 0; done < n && !res->interrupted; done += count) {
		count = min(res->batch, n - done);
		if (console_interrupted()) {
			res->interrupted = 1;
			break;
		}
		res->cycles[0][SLAB_TEST_KMALLOC] += slab_test_alloc_loop(v, count, size, 1,
									  &res->failures);
		res->cycles[0][SLAB_TEST_KFREE] += slab_test_free_loop(v, count, 1,
								       &res->remote_frees);
		res->calls[0][SLAB_TEST_KMALLOC] += count;
		res->calls[0][SLAB_TEST_KFREE] += count;
	}
	for (done = 0; done < n && !res->interrupted; done += count) {
		count = min(res->batch, n - done);
		if (console_interrupted()) {
			res->interrupted = 1;
			break;
		}
		res->cycles[0][SLAB_TEST_PAIR] += slab_test_pair_loop(count, size, 1, &res->failures);
		res->calls[0][SLAB_TEST_PAIR] += count;
	}
	slab_test_table_free(v, res->batch);
	return 0;
}

/* ---- the report ---------------------------------------------------------------- */

static const char *const phase_names[SLAB_TEST_PHASES] = { "kmalloc", "kfree", "pair" };

/* Cycles per call of one phase over every slot that made such calls;
 * -1 if none did. */
static long long phase_mean(const struct slab_test_result *res, enum slab_test_phase ph)
{
	unsigned long long cycles = 0, calls = 0;
	unsigned int slot;

	for (slot = 0; slot < res->ncpus; slot++) {
		cycles += res->cycles[slot][ph];
		calls += res->calls[slot][ph];
	}
	return calls ? (long long)(cycles / calls) : -1;
}

/* "slabtest: remote 64 bytes, 2 CPUs, batches of 10000: kmalloc 80 kfree 95;
 *  per CPU kmalloc/kfree/pair: 0:78/90/- 1:82/100/-" */
static void print_result(const struct slab_test_result *res)
{
	unsigned int slot, ph;

	printk("slabtest: %s %u bytes, %u CPU%s, batches of %lu:", slab_test_kind_name(res->kind),
	       res->size, res->ncpus, res->ncpus == 1 ? "" : "s", res->batch);
	for (ph = 0; ph < SLAB_TEST_PHASES; ph++)
		if (phase_mean(res, ph) >= 0)
			pr_cont(" %s %lld", phase_names[ph], phase_mean(res, ph));
	if (res->failures)
		pr_cont(" failed %lu", res->failures);
	if (res->ncpus > 1) {
		pr_cont("; per CPU kmalloc/kfree/pair:");
		for (slot = 0; slot < res->ncpus; slot++) {
			pr_cont(" %u:", res->cpu[slot]);
			for (ph = 0; ph < SLAB_TEST_PHASES; ph++) {
				if (res->calls[slot][ph])
					pr_cont("%s%llu", ph ? "/" : "",
						res->cycles[slot][ph] / res->calls[slot][ph]);
				else
					pr_cont("%s-", ph ? "/" : "");
			}
		}
	}
	pr_cont("\n");
}

/* Runs one test at one size and prints its line; 0, or -1 if it could not
 * run or was interrupted (said). */
static int report_one(enum slab_test_kind kind, unsigned int size, unsigned long n,
		      unsigned int ncpus, unsigned long *failures)
{
	static struct slab_test_result res;	/* large: keep it off the stack */
	unsigned long calls = 0;
	unsigned int ph;
	int r = kind == SLAB_TEST_SINGLE ? slab_test_single(size, n, &res) :
		slab_test_smp(kind, size, n, ncpus, &res);

	if (r) {
		printk(KERN_ERR "slabtest: the %s test at %u bytes could not run (no memory for "
		       "its tables, or another run in progress)\n", slab_test_kind_name(kind), size);
		return -1;
	}
	if (res.interrupted) {
		for (ph = 0; ph < SLAB_TEST_PHASES; ph++)
			calls += res.calls[0][ph];
		printk("slabtest: interrupted in the %s test at %u bytes, after %lu calls on "
		       "CPU %u\n", slab_test_kind_name(kind), size, calls, res.cpu[0]);
		return -1;
	}
	print_result(&res);
	*failures += res.failures;
	return 0;
}

enum slab_test_kind slab_test_kind_by_name(const char *name)
{
	enum slab_test_kind kind;

	for (kind = SLAB_TEST_SINGLE; kind < SLAB_TEST_KINDS; kind++)
		if (!strcmp(name, kind_names[kind]))
			break;
	return kind;
}

/* The tests first to last, each at every size; see slab_test_report(). */
static int report_kinds(unsigned long n, enum slab_test_kind first, enum slab_test_kind last)
{
	unsigned int online = num_online_cpus(), size;
	unsigned long failures = 0;
	enum slab_test_kind kind;

	printk("slabtest: %s, %lu calls per test, size and CPU, %u CPU(s) online; "
	       "cycles per call (TSC)\n", kmem_allocator_name, n, online);
	for (kind = first; kind <= last; kind++) {
		if (kind != SLAB_TEST_SINGLE && online < 2) {
			printk("slabtest: the tests on several CPUs need 2 or more online (%u here%s)\n",
			       online, IS_ENABLED(CONFIG_SMP) ? "" : ": a uniprocessor kernel");
			if (first == last)
				return -1;	/* the one test asked for cannot run */
			break;
		}
		for (size = SLAB_TEST_MIN_SIZE; size <= SLAB_TEST_MAX_SIZE; size *= 2)
			if (report_one(kind, size, n, online, &failures))
				return -1;
	}
	printk("slabtest: done, %lu allocations failed\n", failures);
	return 0;
}

int slab_test_report(unsigned long n)
{
	return report_kinds(n, SLAB_TEST_SINGLE, SLAB_TEST_KINDS - 1);
}

int slab_test_report_kind(unsigned long n, enum slab_test_kind kind)
{
	return kind < SLAB_TEST_KINDS ? report_kinds(n, kind, kind) : -1;
}
