/* test_smp.c - self-tests of the x86 SMP primitives (suite smp_arch).
 *
 * Checks what the bring-up promises: every CPU the firmware listed is
 * online with its own identity, smp_call_function() and on_each_cpu()
 * reach every CPU in interrupt context with interrupts off,
 * smp_run_on_all_cpus() runs its function on all CPUs at the same time in
 * process context, every CPU's local timer ticks, and the ticket lock
 * keeps a shared counter exact under contention.  Waits are bounded (by
 * the TSC): a broken primitive fails the case instead of hanging it.
 * Built with CONFIG_SMP only; on one CPU the cases still run, trivially.
 */
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>
#include <tiny/string.h>
#include <asm/apic.h>
#include <asm/desc.h>
#include <asm/paging.h>
#include <asm/processor.h>

/* Bounds on waits for other CPUs: generous, as a busy host may leave a
 * virtual CPU unscheduled for a while; a wait that runs out says so. */
#define RENDEZVOUS_MS	10000
#define TORTURE_LOOPS	1000

static unsigned int load(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void inc(unsigned int *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
}

/* Spins until *p >= n or ms pass; returns 1 if it got there. */
static int wait_for_count(const unsigned int *p, unsigned int n, unsigned long ms)
{
	u64 end = rdtsc() + (u64)tsc_khz * ms;

	while (load(p) < n)
		if (rdtsc() > end)
			return 0;
		else
			cpu_relax();
	return 1;
}

static unsigned int online_mask(void)
{
	unsigned int cpu, mask = 0;

	for_each_online_cpu(cpu)
		mask |= 1u << cpu;
	return mask;
}

/* CPUs in the firmware tables, and those of them that failed to start. */
static void count_listed(unsigned int *listed, unsigned int *failed)
{
	unsigned int cpu;

	*listed = *failed = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		*listed += x86_cpus[cpu].state != CPU_ABSENT;
		*failed += x86_cpus[cpu].state == CPU_FAILED;
	}
}

/* Every CPU that should be online is, but those that failed to start
 * (smp_skip_sipi=, smp_delay_ap=): a failed CPU is left out and the next
 * one is started in its place (maxcpus= counts CPUs that came up). */
static void all_listed_cpus_online(struct ktest *t)
{
	unsigned int cpu, i, n = 0, listed, failed, want;

	count_listed(&listed, &failed);
	want = min(smp_expected_cpus(), listed - failed);
	ktest_info(t, "%u CPU(s) online, %u expected from the firmware tables and maxcpus=, "
		   "%u failed to start", num_online_cpus(), smp_expected_cpus(), failed);
	KTEST_EXPECT_EQ(t, num_online_cpus(), want);
	KTEST_EXPECT_TRUE(t, cpu_online(0));
	KTEST_EXPECT_EQ(t, smp_processor_id(), 0u);
	for_each_online_cpu(cpu) {
		n++;
		KTEST_EXPECT_EQ(t, x86_cpus[cpu].cpu, cpu);
		KTEST_EXPECT_PTR_EQ(t, x86_cpus[cpu].self, &x86_cpus[cpu]);
		for (i = 0; i < cpu; i++)
			if (cpu_online(i))
				KTEST_EXPECT_NE(t, x86_cpus[i].apic_id, x86_cpus[cpu].apic_id);
	}
	KTEST_EXPECT_EQ(t, n, num_online_cpus());
}

struct call_record {
	unsigned int mask;		/* CPUs that ran the function (atomic or) */
	unsigned int bad_context;	/* runs with interrupts on or outside an interrupt */
	unsigned int bad_id;		/* runs where this_cpu() disagreed with the APIC */
};

static void record_call(void *arg)
{
	struct call_record *r = arg;
	unsigned int me = smp_processor_id();

	__atomic_or_fetch(&r->mask, 1u << me, __ATOMIC_SEQ_CST);
	if (!irqs_disabled() || (me != 0 && !in_interrupt()))
		inc(&r->bad_context);
	if (apic_read_id() != x86_cpus[me].apic_id)
		inc(&r->bad_id);
}

static void call_function_reaches_others(struct ktest *t)
{
	struct call_record r = { 0, 0, 0 };

	KTEST_ASSERT_FALSE(t, irqs_disabled());
	KTEST_EXPECT_EQ(t, smp_call_function(record_call, &r, 1), 0);
	KTEST_EXPECT_EQ(t, r.mask, online_mask() & ~1u);
	KTEST_EXPECT_EQ(t, r.bad_context, 0u);
	KTEST_EXPECT_EQ(t, r.bad_id, 0u);
}

/* Without wait the call returns once every CPU took it; each then runs it. */
static void call_function_nowait_gets_there(struct ktest *t)
{
	static struct call_record r;	/* outlives the call */
	unsigned int want = online_mask() & ~1u;
	u64 end;

	r.mask = r.bad_context = r.bad_id = 0;
	KTEST_EXPECT_EQ(t, smp_call_function(record_call, &r, 0), 0);
	end = rdtsc() + (u64)tsc_khz * RENDEZVOUS_MS;
	while (load(&r.mask) != want && rdtsc() < end)
		cpu_relax();
	if (load(&r.mask) != want)
		ktest_info(t, "waited %d ms for every CPU to run the call", RENDEZVOUS_MS);
	KTEST_EXPECT_EQ(t, load(&r.mask), want);
	KTEST_EXPECT_EQ(t, load(&r.bad_context), 0u);
}

static void on_each_cpu_includes_this_one(struct ktest *t)
{
	struct call_record r = { 0, 0, 0 };

	on_each_cpu(record_call, &r, 1);
	KTEST_EXPECT_EQ(t, r.mask, online_mask());
	KTEST_EXPECT_EQ(t, r.bad_context, 0u);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

struct rendezvous {
	unsigned int arrived;
	unsigned int met;		/* CPUs that saw everyone arrive in time */
	unsigned int bad_context;	/* runs with interrupts off or in an interrupt */
	unsigned int mask;
	int gave_up;			/* a CPU waited RENDEZVOUS_MS in vain */
};

/* Each CPU arrives and waits for all the others: only CPUs running at the
 * same time can all get through. */
static void meet_everyone(void *arg)
{
	struct rendezvous *r = arg;

	if (irqs_disabled() || in_interrupt())
		inc(&r->bad_context);
	__atomic_or_fetch(&r->mask, 1u << smp_processor_id(), __ATOMIC_SEQ_CST);
	inc(&r->arrived);
	if (wait_for_count(&r->arrived, num_online_cpus(), RENDEZVOUS_MS))
		inc(&r->met);
	else
		r->gave_up = 1;
}

static void run_on_all_cpus_is_concurrent(struct ktest *t)
{
	struct rendezvous r = { 0, 0, 0, 0, 0 };

	KTEST_EXPECT_EQ(t, smp_run_on_all_cpus(meet_everyone, &r), num_online_cpus());
	if (r.gave_up)
		ktest_info(t, "a CPU waited %d ms for the others to arrive", RENDEZVOUS_MS);
	KTEST_EXPECT_EQ(t, r.mask, online_mask());
	KTEST_EXPECT_EQ(t, r.met, num_online_cpus());
	KTEST_EXPECT_EQ(t, r.bad_context, 0u);
}

/* Online CPUs whose local timer has ticked fewer than twice since before[]. */
static unsigned int cpus_not_ticked(const unsigned long *before)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		n += READ_ONCE(x86_cpus[cpu].ticks) - before[cpu] < 2;
	return n;
}

/* Every CPU's own timer ticks: each must tick twice, within ten seconds of
 * jiffies (CPU 0's ticks), however the host schedules the others. */
static void every_cpu_ticks(struct ktest *t)
{
	unsigned long before[NR_CPUS], waited;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		before[cpu] = READ_ONCE(x86_cpus[cpu].ticks);
	for (waited = 0; waited < 10UL * HZ && cpus_not_ticked(before); waited++)
		ktest_wait_ticks(1);
	for_each_online_cpu(cpu)
		if (READ_ONCE(x86_cpus[cpu].ticks) - before[cpu] < 2)
			ktest_info(t, "CPU %u ticked %lu times in %lu jiffies (10 s)", cpu,
				   READ_ONCE(x86_cpus[cpu].ticks) - before[cpu], waited);
	KTEST_EXPECT_EQ(t, cpus_not_ticked(before), 0u);
}

static struct {
	arch_spinlock_t lock;
	volatile unsigned long count;
	unsigned int loops;
	unsigned int arrived;		/* a start line, so that all CPUs overlap */
} torture = { __ARCH_SPIN_LOCK_UNLOCKED, 0, 0, 0 };

/* Read, dawdle, write: without mutual exclusion other CPUs' increments
 * between the two are lost. */
static void torture_lock(void *arg)
{
	unsigned int i;
	volatile unsigned int j;

	(void)arg;
	inc(&torture.arrived);
	wait_for_count(&torture.arrived, num_online_cpus(), RENDEZVOUS_MS);
	for (i = 0; i < torture.loops; i++) {
		unsigned long v;

		arch_spin_lock(&torture.lock);
		v = torture.count;
		for (j = 0; j < 500; j++)
			;
		torture.count = v + 1;
		arch_spin_unlock(&torture.lock);
	}
}

static void ticket_lock_keeps_count_exact(struct ktest *t)
{
	unsigned int n;

	torture.count = 0;
	torture.arrived = 0;
	torture.loops = TORTURE_LOOPS;
	n = smp_run_on_all_cpus(torture_lock, NULL);
	ktest_info(t, "%u CPUs x %u increments: %lu", n, TORTURE_LOOPS, torture.count);
	KTEST_EXPECT_EQ(t, torture.count, (unsigned long)n * TORTURE_LOOPS);
	KTEST_EXPECT_FALSE(t, arch_spin_is_locked(&torture.lock));
}

static void ticket_lock_trylock(struct ktest *t)
{
	arch_spinlock_t l = __ARCH_SPIN_LOCK_UNLOCKED;

	KTEST_EXPECT_FALSE(t, arch_spin_is_locked(&l));
	KTEST_EXPECT_TRUE(t, arch_spin_trylock(&l));
	KTEST_EXPECT_TRUE(t, arch_spin_is_locked(&l));
	KTEST_EXPECT_FALSE(t, arch_spin_trylock(&l));
	arch_spin_unlock(&l);
	KTEST_EXPECT_FALSE(t, arch_spin_is_locked(&l));
	arch_spin_lock(&l);
	KTEST_EXPECT_TRUE(t, arch_spin_is_locked(&l));
	arch_spin_unlock(&l);
	KTEST_EXPECT_TRUE(t, arch_spin_trylock(&l));
	arch_spin_unlock(&l);
}

/* Every AP runs on its own stack with an unmapped page right below it. */
static void ap_stacks_have_guard_pages(struct ktest *t)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		const struct x86_cpu *c = &x86_cpus[cpu];

		if (!cpu)
			continue;
		KTEST_EXPECT_EQ(t, c->stack_hi - c->stack_lo, 4 * PAGE_SIZE);
		KTEST_EXPECT_EQ(t, paging_entry(c->stack_lo - PAGE_SIZE) & PAGING_PRESENT, 0u);
		KTEST_EXPECT_NE(t, paging_entry(c->stack_lo) & PAGING_PRESENT, 0u);
		KTEST_EXPECT_NE(t, paging_entry(c->stack_hi - 1) & PAGING_PRESENT, 0u);
	}
}

static unsigned long flushes_before[NR_CPUS];

static void note_tlb_flushes(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		flushes_before[cpu] = x86_cpus[cpu].tlb_flushes;
}

/* Online CPUs that have not flushed their TLB since note_tlb_flushes(). */
static unsigned int cpus_not_flushed(void)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		n += x86_cpus[cpu].tlb_flushes == flushes_before[cpu];
	return n;
}

/* A guard page inside a 4 MiB page splits it into a page table that maps
 * the other 1023 pages exactly as before; the guard's own entry is empty;
 * unguarding joins the 4 MiB page again and frees the table (no page
 * lost), once every online CPU flushed its TLB. */
static void guard_page_splits_a_large_page(struct ktest *t)
{
	unsigned long free_before = nr_free_pages();
	struct page *block = alloc_pages(GFP_KERNEL, MAX_ORDER - 1);
	unsigned long base, guard, a;
	u32 before, e;
	unsigned int bad = 0;

	if (!block) {
		ktest_skip(t, "no free 4 MiB block");
		return;
	}
	base = (unsigned long)(uintptr_t)page_address(block);
	guard = base + 5 * PAGE_SIZE;
	before = paging_entry(guard);
	if (!(before & PAGING_LARGE)) {
		__free_pages(block, MAX_ORDER - 1);
		ktest_skip(t, "the block at %#lx is not mapped by a 4 MiB page", base);
		return;
	}
	note_tlb_flushes();
	KTEST_ASSERT_EQ(t, paging_guard_page(guard), 0);
	KTEST_EXPECT_EQ(t, cpus_not_flushed(), 0u);
	KTEST_EXPECT_EQ(t, paging_entry(guard), 0u);
	for (a = base & ~0x3fffffUL; a < (base & ~0x3fffffUL) + 0x400000UL; a += PAGE_SIZE) {
		e = paging_entry(a);
		if (a != guard && (e & PAGING_LARGE || (e & ~0xfffu) != a ||
				   (e & 0x1f) != (before & 0x1f)))
			bad++;
	}
	KTEST_EXPECT_EQ(t, bad, 0u);
	note_tlb_flushes();
	paging_unguard_page(guard);
	KTEST_EXPECT_EQ(t, cpus_not_flushed(), 0u);
	/* joined again: the 4 MiB page as before (the CPU may have set its
	 * accessed and dirty bits), and the page table given back */
	KTEST_EXPECT_EQ(t, paging_entry(guard) & ~0x60u, before & ~0x60u);
	__free_pages(block, MAX_ORDER - 1);
	KTEST_EXPECT_EQ(t, nr_free_pages(), free_before);
}

struct probe {
	unsigned long addr;
	int faulted[NR_CPUS];
	u32 value[NR_CPUS];
};

/* Each CPU reads the probe's address, a fault caught (probe_read_u32()). */
static void probe_here(void *arg)
{
	struct probe *p = arg;
	unsigned int cpu = smp_processor_id();

	p->faulted[cpu] = probe_read_u32((const void *)p->addr, &p->value[cpu]) != 0;
}

/* Online CPUs other than this one whose read faulted, and whose read got
 * a value other than want. */
static void probe_others(struct probe *p, unsigned int *faults, unsigned int *wrong, u32 want)
{
	unsigned int cpu;

	memset(p->faulted, 0, sizeof(p->faulted));
	memset(p->value, 0, sizeof(p->value));
	smp_call_function(probe_here, p, 1);
	*faults = *wrong = 0;
	for_each_online_cpu(cpu) {
		if (cpu == smp_processor_id())
			continue;
		*faults += p->faulted[cpu];
		*wrong += !p->faulted[cpu] && p->value[cpu] != want;
	}
}

/* A page made a guard while the other CPUs run faults on each of them at
 * once, although each had just read it (its TLB held the translation):
 * the unmap is shot down everywhere.  Mapped again, it reads again. */
static void guard_made_while_others_run_faults_there(struct ktest *t)
{
	unsigned long page = __get_free_page(GFP_KERNEL);
	unsigned int faults, wrong, others = num_online_cpus() - 1;
	struct probe p;

	if (!others) {
		ktest_skip(t, "needs 2 CPUs, 1 online");
		free_page(page);
		return;
	}
	KTEST_ASSERT_NE(t, page, 0ul);
	*(volatile u32 *)page = 0x5a5aa5a5u;
	p.addr = page;
	probe_others(&p, &faults, &wrong, 0x5a5aa5a5u);
	KTEST_EXPECT_EQ(t, faults, 0u);
	KTEST_EXPECT_EQ(t, wrong, 0u);
	KTEST_ASSERT_EQ(t, paging_guard_page(page), 0);
	probe_others(&p, &faults, &wrong, 0x5a5aa5a5u);
	ktest_info(t, "the read faulted on %u of the %u other CPUs", faults, others);
	KTEST_EXPECT_EQ(t, faults, others);
	paging_unguard_page(page);
	probe_others(&p, &faults, &wrong, 0x5a5aa5a5u);
	KTEST_EXPECT_EQ(t, faults, 0u);
	KTEST_EXPECT_EQ(t, wrong, 0u);
	free_page(page);
}

static const struct ktest_case smp_arch_cases[] = {
	KTEST_CASE(all_listed_cpus_online),
	KTEST_CASE(call_function_reaches_others),
	KTEST_CASE(call_function_nowait_gets_there),
	KTEST_CASE(on_each_cpu_includes_this_one),
	KTEST_CASE(run_on_all_cpus_is_concurrent),
	KTEST_CASE(every_cpu_ticks),
	KTEST_CASE(ticket_lock_trylock),
	KTEST_CASE(ticket_lock_keeps_count_exact),
	KTEST_CASE(ap_stacks_have_guard_pages),
	KTEST_CASE(guard_page_splits_a_large_page),
	KTEST_CASE(guard_made_while_others_run_faults_there),
	{}
};

static const struct ktest_suite smp_arch_suite = { .name = "smp_arch", .cases = smp_arch_cases };
KTEST_SUITE(smp_arch_suite);
