/* test_slab_test.c - self-tests of the slab_test microbenchmark
 * (kernel/slab_test*.c, the console's "slabtest", make slabtest).
 *
 * Run in the kernel and in the host harness, with a handful of calls:
 * each test must make exactly the calls it reports, in the right CPU
 * slots, free everything it allocated (the allocator's bytes in use back
 * where they were), count failed allocations, and the remote and one_alloc
 * tests must really free on another CPU what one CPU allocated (each
 * object carries its allocating slot's tag).  The SMP cases skip with
 * fewer than two CPUs online.  No figure is judged: cycles are only
 * required to have been counted.  The report the console prints
 * (slab_test_report(), every test at every size) is run by the system
 * tests at the console, on one CPU and on two (tests/system/run.py:
 * console_*, slabtest_ctrl_c): its 36 runs on every CPU are slow under
 * TCG with more CPUs than host cores.
 */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/slab_test.h>
#include <tiny/smp.h>

static struct slab_test_result res;	/* large: keep it off the stack */

static unsigned long bytes_used(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.bytes_used;
}

static int need_cpus(struct ktest *t, unsigned int n)
{
	if (num_online_cpus() >= n)
		return 1;
	ktest_skip(t, "needs %u CPUs, %u online", n, num_online_cpus());
	return 0;
}

static void expect_phase(struct ktest *t, unsigned int slot, enum slab_test_phase ph,
			 unsigned long calls)
{
	KTEST_EXPECT_EQ(t, res.calls[slot][ph], calls);
	if (calls)
		KTEST_EXPECT_GT(t, res.cycles[slot][ph], 0ULL);
	else
		KTEST_EXPECT_EQ(t, res.cycles[slot][ph], 0ULL);
}

static void single_counts_every_call(struct ktest *t)
{
	unsigned long before = bytes_used();

	KTEST_ASSERT_EQ(t, slab_test_single(64, 100, &res), 0);
	KTEST_EXPECT_EQ(t, res.ncpus, 1u);
	KTEST_EXPECT_EQ(t, res.cpu[0], smp_processor_id());
	KTEST_EXPECT_EQ(t, res.batch, 100UL);
	expect_phase(t, 0, SLAB_TEST_KMALLOC, 100);
	expect_phase(t, 0, SLAB_TEST_KFREE, 100);
	expect_phase(t, 0, SLAB_TEST_PAIR, 100);
	KTEST_EXPECT_EQ(t, res.failures, 0UL);
	KTEST_EXPECT_EQ(t, res.remote_frees, 0UL);
	KTEST_EXPECT_FALSE(t, res.interrupted);
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

/* 16 KiB objects: a CPU holds at most SLAB_TEST_BATCH_BYTES of them. */
static void large_sizes_run_in_batches(struct ktest *t)
{
	unsigned long before = bytes_used(), batch = SLAB_TEST_BATCH_BYTES / 16384;

	KTEST_EXPECT_EQ(t, slab_test_batch(16384, 10000), batch);
	KTEST_EXPECT_EQ(t, slab_test_batch(8, 10000), 10000UL);
	KTEST_EXPECT_EQ(t, slab_test_batch(8, 1000000), SLAB_TEST_BATCH_OBJECTS);
	KTEST_EXPECT_EQ(t, slab_test_batch(16 << 20, 10), 1UL);
	KTEST_ASSERT_EQ(t, slab_test_single(16384, batch + 3, &res), 0);
	KTEST_EXPECT_EQ(t, res.batch, batch);
	expect_phase(t, 0, SLAB_TEST_KMALLOC, batch + 3);
	expect_phase(t, 0, SLAB_TEST_KFREE, batch + 3);
	KTEST_EXPECT_EQ(t, res.failures, 0UL);
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

/* The buddy's largest block is 2^(MAX_ORDER-1) pages: twice that never
 * fits, so every kmalloc fails, is counted, and nothing is freed. */
static void failed_allocations_are_counted(struct ktest *t)
{
	unsigned int size = PAGE_SIZE << CONFIG_MAX_ORDER;
	unsigned long before = bytes_used();

	KTEST_ASSERT_EQ(t, slab_test_single(size, 5, &res), 0);
	KTEST_EXPECT_EQ(t, res.failures, 10UL);		/* 5 kmalloc, 5 pairs */
	expect_phase(t, 0, SLAB_TEST_KFREE, 5);
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

static void bad_arguments_are_refused(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, slab_test_single(0, 10, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_single(64, 0, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_CONCURRENT, 64, 10, 1, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_CONCURRENT, 64, 10, num_online_cpus() + 1, &res),
			-1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_SINGLE, 64, 10, 2, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_KINDS, 64, 10, 2, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_REMOTE, 0, 10, 2, &res), -1);
	KTEST_EXPECT_EQ(t, slab_test_smp(SLAB_TEST_REMOTE, 64, 0, 2, &res), -1);
}

/* Each slot's CPU is online, and no two slots share one. */
static void expect_distinct_cpus(struct ktest *t)
{
	unsigned int a, b;

	for (a = 0; a < res.ncpus; a++) {
		KTEST_EXPECT_TRUE(t, cpu_online(res.cpu[a]));
		for (b = a + 1; b < res.ncpus; b++)
			KTEST_EXPECT_NE(t, res.cpu[a], res.cpu[b]);
	}
}

static void concurrent_runs_on_every_cpu(struct ktest *t)
{
	unsigned long before = bytes_used();
	unsigned int n = num_online_cpus(), slot;

	if (!need_cpus(t, 2))
		return;
	KTEST_ASSERT_EQ(t, slab_test_smp(SLAB_TEST_CONCURRENT, 32, 200, n, &res), 0);
	KTEST_EXPECT_EQ(t, res.ncpus, n);
	KTEST_EXPECT_EQ(t, res.cpu[0], smp_processor_id());
	expect_distinct_cpus(t);
	for (slot = 0; slot < n; slot++) {
		expect_phase(t, slot, SLAB_TEST_KMALLOC, 200);
		expect_phase(t, slot, SLAB_TEST_KFREE, 200);
		expect_phase(t, slot, SLAB_TEST_PAIR, 200);
	}
	KTEST_EXPECT_EQ(t, res.remote_frees, 0UL);
	KTEST_EXPECT_EQ(t, res.failures, 0UL);
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

/* Every object is freed by the slot after the one that allocated it. */
static void remote_frees_are_remote(struct ktest *t)
{
	unsigned long before = bytes_used();
	unsigned int n = num_online_cpus(), slot;

	if (!need_cpus(t, 2))
		return;
	KTEST_ASSERT_EQ(t, slab_test_smp(SLAB_TEST_REMOTE, 128, 150, n, &res), 0);
	expect_distinct_cpus(t);
	for (slot = 0; slot < n; slot++) {
		expect_phase(t, slot, SLAB_TEST_KMALLOC, 150);
		expect_phase(t, slot, SLAB_TEST_KFREE, 150);
		expect_phase(t, slot, SLAB_TEST_PAIR, 0);
	}
	KTEST_EXPECT_EQ(t, res.remote_frees, 150UL * n);
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

/* Slot 0 allocates for each other slot, which frees all of it. */
static void one_alloc_hands_every_object_over(struct ktest *t)
{
	unsigned long before = bytes_used();
	unsigned int n = num_online_cpus(), slot;

	if (!need_cpus(t, 2))
		return;
	KTEST_ASSERT_EQ(t, slab_test_smp(SLAB_TEST_ONE_ALLOC, 256, 120, n, &res), 0);
	expect_distinct_cpus(t);
	expect_phase(t, 0, SLAB_TEST_KMALLOC, 120UL * (n - 1));
	expect_phase(t, 0, SLAB_TEST_KFREE, 0);
	for (slot = 1; slot < n; slot++) {
		expect_phase(t, slot, SLAB_TEST_KMALLOC, 0);
		expect_phase(t, slot, SLAB_TEST_KFREE, 120);
	}
	KTEST_EXPECT_EQ(t, res.remote_frees, 120UL * (n - 1));
	KTEST_EXPECT_EQ(t, bytes_used(), before);
}

static const struct ktest_case slab_test_cases[] = {
	KTEST_CASE(single_counts_every_call),
	KTEST_CASE(large_sizes_run_in_batches),
	KTEST_CASE(failed_allocations_are_counted),
	KTEST_CASE(bad_arguments_are_refused),
	KTEST_CASE(concurrent_runs_on_every_cpu),
	KTEST_CASE(remote_frees_are_remote),
	KTEST_CASE(one_alloc_hands_every_object_over),
	{}
};

static const struct ktest_suite slab_test_suite = {
	.name = "slab_test",
	.cases = slab_test_cases,
};
KTEST_SUITE(slab_test_suite);
