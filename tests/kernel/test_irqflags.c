/* test_irqflags.c - self-tests of interrupt-state nesting, the two ways a
 * CPU waits for a spinlock, and spinlock debugging. */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>

static void save_restore_nests(struct ktest *t)
{
	unsigned long outer, inner;

	KTEST_ASSERT_FALSE(t, irqs_disabled());
	local_irq_save(outer);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	KTEST_EXPECT_FALSE(t, irqs_disabled_flags(outer));
	local_irq_save(inner);
	KTEST_EXPECT_TRUE(t, irqs_disabled_flags(inner));
	local_irq_restore(inner);
	KTEST_EXPECT_TRUE(t, irqs_disabled());		/* still inside outer */
	local_irq_restore(outer);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

static void disabled_irqs_hold_off_ticks(struct ktest *t)
{
	unsigned long flags, start;
	volatile unsigned long spin;

	local_irq_save(flags);
	start = jiffies;
	for (spin = 0; spin < 3000000; spin++)
		;
	KTEST_EXPECT_EQ(t, jiffies, start);	/* no tick while disabled */
	local_irq_restore(flags);
	ktest_wait_ticks(1);
	KTEST_EXPECT_GT(t, jiffies, start);
}

static void spin_lock_irqsave_nests(struct ktest *t)
{
	DEFINE_SPINLOCK(a);
	DEFINE_SPINLOCK(b);
	unsigned long fa, fb;

	spin_lock_irqsave(&a, fa);
	spin_lock_irqsave(&b, fb);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	spin_unlock_irqrestore(&b, fb);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	spin_unlock_irqrestore(&a, fa);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

/* ---- ticket and test-and-set waits (<tiny/spinlock_smp.h>) ------------------- */

/* Two CPUs: more waiting CPUs than host cores would make the ticket way
 * crawl under an emulator (that is why test-and-set exists). */
#define EXCLUSION_CPUS	2
#define EXCLUSION_LOOPS	20000

static struct {
	spinlock_t lock;
	unsigned long count;			/* under lock */
	unsigned long done[EXCLUSION_CPUS];	/* each CPU's increments */
	atomic_t finished;			/* CPUs past EXCLUSION_LOOPS */
	atomic_t start;
	unsigned int cpu[EXCLUSION_CPUS];	/* this one and another */
} excl = { .lock = __SPIN_LOCK_UNLOCKED(excl.lock) };

/* Read, dawdle, write under the lock: without mutual exclusion other
 * CPUs' increments in between are lost.  Each CPU goes on until both are
 * past EXCLUSION_LOOPS, so that their runs overlap however the host
 * schedules them. */
static void exclusion_cpu(void *arg)
{
	unsigned int me = smp_processor_id() == excl.cpu[0] ? 0 : 1;
	unsigned long flags, v, i;
	volatile unsigned int j;

	(void)arg;
	if (smp_processor_id() != excl.cpu[me])
		return;
	atomic_inc(&excl.start);
	while (atomic_read(&excl.start) < EXCLUSION_CPUS)
		cpu_relax();
	for (i = 0; i < EXCLUSION_LOOPS || atomic_read(&excl.finished) < EXCLUSION_CPUS; i++) {
		if (i == EXCLUSION_LOOPS)
			atomic_inc(&excl.finished);
		spin_lock_irqsave(&excl.lock, flags);
		v = excl.count;
		for (j = 0; j < 200; j++)
			;
		excl.count = v + 1;
		spin_unlock_irqrestore(&excl.lock, flags);
	}
	excl.done[me] = i;
}

static int need_two_cpus(struct ktest *t)
{
	if (num_online_cpus() >= 2)
		return 1;
	ktest_skip(t, "needs 2 CPUs, %u online", num_online_cpus());
	return 0;
}

/* An online CPU other than this one (need_two_cpus() first). */
static unsigned int other_cpu(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			return cpu;
	return smp_processor_id();
}

/* Two CPUs increment one counter under one lock, waiting for it the given
 * way; the count must come out exact. */
static void lock_excludes(struct ktest *t, int tas)
{
	int was;

	if (!need_two_cpus(t))
		return;
	was = spin_lock_set_tas(tas);
	excl.count = 0;
	excl.cpu[0] = smp_processor_id();
	excl.cpu[1] = other_cpu();
	atomic_set(&excl.start, 0);
	atomic_set(&excl.finished, 0);
	smp_run_on_all_cpus(exclusion_cpu, NULL);
	spin_lock_set_tas(was);
	ktest_info(t, "CPU %u and CPU %u: %lu + %lu increments, count %lu", excl.cpu[0],
		   excl.cpu[1], excl.done[0], excl.done[1], excl.count);
	KTEST_EXPECT_EQ(t, excl.count, excl.done[0] + excl.done[1]);
	KTEST_EXPECT_FALSE(t, spin_is_locked(&excl.lock));
}

static void ticket_wait_excludes(struct ktest *t)
{
	lock_excludes(t, 0);
}

static void test_and_set_wait_excludes(struct ktest *t)
{
	lock_excludes(t, 1);
}

#define ORDER_WAIT_TICKS	KTEST_SECONDS(60)	/* about a minute */

static struct {
	spinlock_t lock;
	struct ktest *t;
	unsigned int holder, waiter;	/* the CPU running the suite, another */
	int held;			/* the holder holds the lock */
	int holder_tried;		/* the holder has let it go and tried again */
	int waiter_done;		/* the waiter has had the lock and let it go */
} order = { .lock = __SPIN_LOCK_UNLOCKED(order.lock) };

/* Waits (interrupts on) up to ORDER_WAIT_TICKS ticks until cond(); returns
 * its last value, and says so if the time ran out. */
static int wait_ticks_for(struct ktest *t, int (*cond)(void), const char *what)
{
	unsigned long ticks;

	for (ticks = 0; ticks < ORDER_WAIT_TICKS && !cond(); ticks++)
		ktest_wait_ticks(1);
	if (cond())
		return 1;
	ktest_info(t, "%s: not after %lu ticks", what, ORDER_WAIT_TICKS);
	return 0;
}

static int order_contended(void)
{
	return spin_is_contended(&order.lock);
}

static int order_waiter_done(void)
{
	return __atomic_load_n(&order.waiter_done, __ATOMIC_ACQUIRE);
}

/* The waiter: takes the lock once the holder has it, and keeps it until
 * the holder has tried to take it back. */
static void order_waiter(void)
{
	while (!__atomic_load_n(&order.held, __ATOMIC_ACQUIRE))
		cpu_relax();
	spin_lock(&order.lock);
	while (!__atomic_load_n(&order.holder_tried, __ATOMIC_ACQUIRE))
		cpu_relax();
	spin_unlock(&order.lock);
	__atomic_store_n(&order.waiter_done, 1, __ATOMIC_RELEASE);
}

/* The holder keeps the lock until the waiter waits for it in line (holds
 * a ticket), then lets it go: the lock is the waiter's at once, so the
 * holder's trylock right after fails.  A lock (or a debug lock) whose
 * waiter retries instead of queueing would let the holder take it back. */
static void order_holder(void)
{
	struct ktest *t = order.t;

	spin_lock(&order.lock);
	__atomic_store_n(&order.held, 1, __ATOMIC_RELEASE);
	KTEST_EXPECT_TRUE(t, wait_ticks_for(t, order_contended, "a CPU waiting in line"));
	spin_unlock(&order.lock);
	if (spin_trylock(&order.lock)) {
		KTEST_EXPECT_TRUE(t, !"the holder took the lock back from a waiting CPU");
		spin_unlock(&order.lock);
	}
	__atomic_store_n(&order.holder_tried, 1, __ATOMIC_RELEASE);
	KTEST_EXPECT_TRUE(t, wait_ticks_for(t, order_waiter_done, "the waiter done"));
}

static void order_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id();

	(void)arg;
	if (cpu == order.holder)
		order_holder();
	else if (cpu == order.waiter)
		order_waiter();
}

/* The holder and a waiter that waits by ticket (see above). */
static void ticket_waiter_gets_the_lock_next(struct ktest *t)
{
	int was;

	if (!need_two_cpus(t))
		return;
	order.t = t;
	order.holder = smp_processor_id();
	order.waiter = other_cpu();
	order.held = order.holder_tried = order.waiter_done = 0;
	was = spin_lock_set_tas(0);
	smp_run_on_all_cpus(order_cpu, NULL);
	spin_lock_set_tas(was);
	KTEST_EXPECT_FALSE(t, spin_is_locked(&order.lock));
}

/* Four times a waiter's patience (SPIN_TAS_PATIENCE, 256, hand-overs):
 * a waiter that has not queued by then never will, and the case fails
 * in a second rather than backing off 100,000 times. */
#define HAND_OVERS	1024

/* One CPU plays both sides on a raw lock: "another CPU" holds it (a
 * trylock), a test-and-set wait fails, and the holder hands the lock over
 * (unlock, trylock) as often as given between the wait's steps.  Returns
 * the number of failed steps before the waiter queued (took a ticket), or
 * 0 if it never did; the lock is left with the holder and any queued
 * waiter served and the lock free. */
static unsigned long steps_until_queued(struct ktest *t, unsigned long steps,
					unsigned int hand_overs_per_step)
{
	arch_spinlock_t l = __ARCH_SPIN_LOCK_UNLOCKED;
	struct arch_spin_wait w;
	unsigned long step, queued = 0;
	unsigned int i;
	int was;

	KTEST_EXPECT_TRUE(t, arch_spin_trylock(&l));
	was = spin_lock_set_tas(1);
	arch_spin_wait_begin(&l, &w);
	spin_lock_set_tas(was);
	for (step = 1; step <= steps && !queued; step++) {
		KTEST_EXPECT_FALSE(t, arch_spin_wait_step(&l, &w));
		if (arch_spin_is_contended(&l))
			queued = step;
		for (i = 0; i < hand_overs_per_step && !queued; i++) {
			arch_spin_unlock(&l);
			KTEST_EXPECT_TRUE(t, arch_spin_trylock(&l));
		}
	}
	arch_spin_unlock(&l);
	if (queued) {		/* the lock is the waiter's now */
		KTEST_EXPECT_FALSE(t, arch_spin_trylock(&l));
		KTEST_EXPECT_TRUE(t, arch_spin_wait_step(&l, &w));
		arch_spin_unlock(&l);
	}
	KTEST_EXPECT_FALSE(t, arch_spin_is_locked(&l));
	return queued;
}

/* A test-and-set waiter that sees the lock change hands again and again
 * without getting it takes a ticket (here without the time it must also
 * wait, to be quick), and the lock is its next. */
static void starved_test_and_set_waiter_queues(struct ktest *t)
{
	unsigned long queued;
	unsigned int was;

	if (!IS_ENABLED(CONFIG_SMP)) {
		ktest_skip(t, "uniprocessor: no lock word");
		return;
	}
	was = spin_lock_set_patience(0);
	queued = steps_until_queued(t, HAND_OVERS, 1);
	spin_lock_set_patience(was);
	ktest_info(t, "queued at step %lu, the lock handed over once between steps", queued);
	KTEST_EXPECT_GT(t, queued, 1ul);
	KTEST_EXPECT_LT(t, queued, (unsigned long)HAND_OVERS);
}

/* A holder that keeps the lock (its CPU not running, say) hands nothing
 * over: its test-and-set waiters do not queue behind it however long they
 * wait (the time they must wait is lowered to nothing here), so the lock
 * goes to whichever runs when it is let go. */
static void slow_holder_makes_nobody_queue(struct ktest *t)
{
	unsigned int was;

	if (!IS_ENABLED(CONFIG_SMP)) {
		ktest_skip(t, "uniprocessor: no lock word");
		return;
	}
	was = spin_lock_set_patience(0);
	KTEST_EXPECT_EQ(t, steps_until_queued(t, 2000, 0), 0ul);
	spin_lock_set_patience(was);
}

static void lock_misuse_detected(struct ktest *t)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	DEFINE_SPINLOCK(l);
	unsigned long before = spin_bug_count;

	ktest_expect_reports(t, 2);
	spin_lock(&l);
	spin_lock(&l);			/* recursion */
	KTEST_EXPECT_EQ(t, spin_bug_count, before + 1);
	spin_unlock(&l);
	spin_unlock(&l);		/* not held any more */
	KTEST_EXPECT_EQ(t, spin_bug_count, before + 2);
#else
	ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
#endif
}

/* assert_spin_held() reports a lock this CPU does not hold, once per call,
 * and says nothing about one it holds; assert_spin_not_held() the other
 * way round. */
static void assert_spin_held_reports_unheld_lock(struct ktest *t)
{
	DEFINE_SPINLOCK(l);

	if (!IS_ENABLED(CONFIG_DEBUG_SPINLOCK)) {
		ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
		return;
	}
	ktest_expect_reports(t, 2);
	assert_spin_held(&l);
	assert_spin_not_held(&l);
	spin_lock(&l);
	assert_spin_held(&l);
	assert_spin_not_held(&l);
	spin_unlock(&l);
}

static const struct ktest_case irqflags_cases[] = {
	KTEST_CASE(save_restore_nests),
	KTEST_CASE(disabled_irqs_hold_off_ticks),
	KTEST_CASE(spin_lock_irqsave_nests),
	KTEST_CASE(ticket_wait_excludes),
	KTEST_CASE(test_and_set_wait_excludes),
	KTEST_CASE(ticket_waiter_gets_the_lock_next),
	KTEST_CASE(starved_test_and_set_waiter_queues),
	KTEST_CASE(slow_holder_makes_nobody_queue),
	KTEST_CASE(lock_misuse_detected),
	KTEST_CASE(assert_spin_held_reports_unheld_lock),
	{}
};

static const struct ktest_suite irqflags_suite = { .name = "irqflags", .cases = irqflags_cases };
KTEST_SUITE(irqflags_suite);
