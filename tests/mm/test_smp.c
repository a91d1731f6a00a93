/* test_smp.c - the smp suite: locks, timers, cross-CPU calls and both
 * allocators with every online CPU working at once.
 *
 * The cases run their bodies on all CPUs together (smp_run_on_all_cpus())
 * and check afterwards, on the CPU that runs the suite, what each CPU
 * counted: a spinlock torture whose counters must end exact, calls and
 * timers landing on the right CPU, objects allocated on one CPU and freed
 * on the next through per-CPU hand-off rings, every CPU allocating from
 * its timer interrupt while its process context does too, caches created
 * and destroyed while other CPUs use theirs, kmem_cache_shrink() while
 * others allocate, and the scaling workload (kmem_stress).  Every object
 * is pattern-checked; after each case the validator runs and the free
 * page count must be back where it was.  With one CPU online the
 * multi-CPU cases skip.  The same suite runs in the kernel and on the
 * host (one thread per CPU: ktest-* --cpus N).
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/fault_inject.h>
#include <tiny/irqflags.h>
#include <tiny/kmem_stress.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/random.h>
#include <tiny/slab.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include "../../mm/slab_common.h"	/* struct page, large blocks */

/* Skips the case unless n CPUs are online; returns nonzero if it may run. */
static int need_cpus(struct ktest *t, unsigned int n)
{
	if (num_online_cpus() >= n)
		return 1;
	ktest_skip(t, "needs %u CPUs, %u online", n, num_online_cpus());
	return 0;
}

/* Every CPU meets here before going on. */
static void barrier_wait(atomic_t *b, unsigned int n)
{
	atomic_inc(b);
	while (atomic_read(b) < (int)n)
		cpu_relax();
}

/* The first online CPU after this one's number: the other CPU a two-CPU
 * case uses (the online CPUs' numbers may have holes). */
static unsigned int other_cpu(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			return cpu;
	return smp_processor_id();
}

/* The online CPU after cpu, wrapping round: a ring over the online CPUs. */
static unsigned int next_online_cpu(unsigned int cpu)
{
	unsigned int next;

	for (next = cpu + 1; next < NR_CPUS; next++)
		if (cpu_online(next))
			return next;
	for (next = 0; next < cpu; next++)
		if (cpu_online(next))
			return next;
	return cpu;
}

/* Waits, interrupts on, until fn(arg) holds or about ten seconds of ticks
 * pass (said, with the bound, in the case's output); returns whether it
 * held.  For events that need another CPU's tick or progress. */
static int wait_until(struct ktest *t, int (*fn)(void *arg), void *arg, const char *what)
{
	unsigned long ticks;

	for (ticks = 0; ticks < KTEST_SECONDS(10); ticks++) {
		if (fn(arg))
			return 1;
		ktest_wait_ticks(1);
	}
	if (fn(arg))
		return 1;
	ktest_info(t, "gave up waiting after %lu ticks (10 s) for %s", KTEST_SECONDS(10), what);
	return 0;
}

/* ---- the page count and the validator around every allocating case --------- */

struct smp_fixture {
	unsigned long free_pages;
};

static struct smp_fixture fixture;

/* Makes this CPU use every kmalloc size and the cache of caches once: SLAB
 * gives a CPU its magazine of a cache on first use and keeps it, so the
 * first case to run on a CPU would otherwise count those as lost pages. */
static void warm_up_cpu(void *unused)
{
	struct kmem_cache *c;
	char name[16];
	size_t size;

	(void)unused;
	for (size = 8; size <= PAGE_SIZE; size += 8)
		kfree(kmalloc(size, GFP_KERNEL));
	snprintf(name, sizeof(name), "smp_warm%u", smp_processor_id());
	c = kmem_cache_create(name, 64, 0, 0, NULL, NULL);
	if (c) {
		kmem_cache_free(c, kmem_cache_alloc(c, GFP_KERNEL));
		kmem_cache_destroy(c);
	}
}

static int smp_init(struct ktest *t)
{
	(void)t;
	smp_run_on_all_cpus(warm_up_cpu, NULL);
	kmem_reclaim();
	fixture.free_pages = nr_free_pages();
	return 0;
}

static void smp_exit(struct ktest *t)
{
	if (t->status != KTEST_PASS)
		return;
	kmem_reclaim();
	KTEST_EXPECT_EQ(t, kmem_validate(), 0);
	/* no page lost (a reap timer may have given one back meanwhile) */
	KTEST_EXPECT_GE(t, nr_free_pages(), fixture.free_pages);
}

/* ---- locks ---------------------------------------------------------------------- */

static void trylock_takes_only_a_free_lock(struct ktest *t)
{
	DEFINE_SPINLOCK(l);
	unsigned long flags;
	int again;

	KTEST_EXPECT_EQ(t, spin_trylock(&l), 1);
	if (num_online_cpus() > 1)	/* several CPUs need a real lock */
		KTEST_EXPECT_TRUE(t, spin_is_locked(&l));
	again = spin_trylock(&l);
	if (again)
		spin_unlock(&l);	/* the uniprocessor lock is empty */
	if (num_online_cpus() > 1 || IS_ENABLED(CONFIG_DEBUG_SPINLOCK))
		KTEST_EXPECT_EQ(t, again, 0);
	spin_unlock(&l);
	KTEST_EXPECT_FALSE(t, spin_is_locked(&l));
	KTEST_ASSERT_EQ(t, spin_trylock_irqsave(&l, flags), 1);
	KTEST_EXPECT_TRUE(t, irqs_disabled());
	spin_unlock_irqrestore(&l, flags);
	KTEST_EXPECT_FALSE(t, irqs_disabled());
}

#define TORTURE_ROUNDS	20000

struct torture {
	spinlock_t lock;
	unsigned long counter;		/* under lock */
	unsigned long unlocked;		/* touched under lock by trylock rounds */
	int stop;
	unsigned long proc[NR_CPUS];	/* each CPU's own count of its increments */
	unsigned long irq[NR_CPUS];
	struct timer_list timer[NR_CPUS];
	atomic_t start;
	unsigned int n;
};

static struct torture torture = { .lock = __SPIN_LOCK_UNLOCKED(torture.lock) };

/* Each CPU's tick takes the lock too (interrupts are off in a timer). */
static void torture_timer(unsigned long cpu)
{
	spin_lock(&torture.lock);
	torture.counter++;
	spin_unlock(&torture.lock);
	torture.irq[cpu]++;
	if (!__atomic_load_n(&torture.stop, __ATOMIC_RELAXED))
		mod_timer(&torture.timer[cpu], jiffies + 1);
}

static void torture_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id(), i;
	unsigned long flags;

	(void)arg;
	setup_timer(&torture.timer[cpu], torture_timer, cpu);
	mod_timer(&torture.timer[cpu], jiffies + 1);
	barrier_wait(&torture.start, torture.n);
	for (i = 0; i < TORTURE_ROUNDS; i++) {
		if (i % 4 == 3) {
			while (!spin_trylock_irqsave(&torture.lock, flags))
				cpu_relax();
		} else {
			spin_lock_irqsave(&torture.lock, flags);
		}
		torture.counter++;
		torture.unlocked += 2;
		spin_unlock_irqrestore(&torture.lock, flags);
		torture.proc[cpu]++;
		if (i % 1024 == 0)
			ktest_wait_ticks(1);	/* let the timer in, whatever the tick mode */
	}
	/* the timer must have taken the lock at least once: wait for it, at
	 * most ten seconds of ticks, rather than hope a tick fell inside */
	for (i = 0; i < KTEST_SECONDS(10) && !__atomic_load_n(&torture.irq[cpu], __ATOMIC_RELAXED); i++)
		ktest_wait_ticks(1);
	__atomic_store_n(&torture.stop, 1, __ATOMIC_RELAXED);
	del_timer_sync(&torture.timer[cpu]);
}

static void lock_torture_counts_exact(struct ktest *t)
{
	unsigned long proc = 0, irq = 0;
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	memset(&torture.proc, 0, sizeof(torture.proc));
	memset(&torture.irq, 0, sizeof(torture.irq));
	torture.counter = torture.unlocked = 0;
	torture.stop = 0;
	torture.n = num_online_cpus();
	atomic_set(&torture.start, 0);
	KTEST_ASSERT_EQ(t, smp_run_on_all_cpus(torture_cpu, NULL), torture.n);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_EQ(t, torture.proc[cpu], (unsigned long)TORTURE_ROUNDS);
		if (!torture.irq[cpu])
			ktest_info(t, "CPU %u's timer never ran in 10 s of ticks", cpu);
		KTEST_EXPECT_GT(t, torture.irq[cpu], 0UL);
		proc += torture.proc[cpu];
		irq += torture.irq[cpu];
	}
	KTEST_EXPECT_EQ(t, torture.counter, proc + irq);
	KTEST_EXPECT_EQ(t, torture.unlocked, 2 * proc);
	ktest_info(t, "%u CPUs: %lu locked increments, %lu of them from timers", torture.n,
		   proc + irq, irq);
}

#ifdef CONFIG_DEBUG_SPINLOCK
struct misuse {
	spinlock_t lock;
	unsigned int holder;	/* the other CPU: holds the lock */
	int held;		/* the holder holds the lock */
	int released;		/* the holder let it go */
	unsigned long bugs_before;
	int got_it;		/* CPU 0 took it after the lockup report */
};

static struct misuse misuse = { .lock = __SPIN_LOCK_UNLOCKED(misuse.lock) };

/* The holder keeps the lock until two reports came (wrong-CPU unlock and
 * the lockup of CPU 0 waiting for it), or ten seconds passed. */
static void misuse_holder(void)
{
	unsigned long ticks;

	spin_lock(&misuse.lock);
	__atomic_store_n(&misuse.held, 1, __ATOMIC_RELEASE);
	for (ticks = 0; ticks < KTEST_SECONDS(10); ticks++) {
		if (counter_read(&spin_bug_count) >= misuse.bugs_before + 2)
			break;
		ktest_wait_ticks(1);
	}
	/* marked before the unlock: CPU 0, waiting, takes the lock at once */
	__atomic_store_n(&misuse.released, 1, __ATOMIC_RELEASE);
	spin_unlock(&misuse.lock);
}

static void misuse_cpu(void *arg)
{
	struct ktest *t = arg;

	if (smp_processor_id() == misuse.holder) {
		misuse_holder();
		return;
	}
	if (smp_processor_id() != 0)
		return;
	while (!__atomic_load_n(&misuse.held, __ATOMIC_ACQUIRE))
		cpu_relax();
	spin_unlock(&misuse.lock);		/* the holder has it: reported, kept */
	KTEST_EXPECT_TRUE(t, spin_is_locked(&misuse.lock));
	KTEST_EXPECT_EQ(t, counter_read(&spin_bug_count), misuse.bugs_before + 1);
	/* this lock's budget only: a few ms; every other lock keeps seconds */
	__atomic_store_n(&misuse.lock.lockup_shift, 22, __ATOMIC_RELAXED);
	spin_lock(&misuse.lock);		/* lockup reported once, then waits */
	__atomic_store_n(&misuse.lock.lockup_shift, 0, __ATOMIC_RELAXED);
	misuse.got_it = __atomic_load_n(&misuse.released, __ATOMIC_ACQUIRE);
	spin_unlock(&misuse.lock);
}
#endif

static void debug_lock_reports_other_cpus(struct ktest *t)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	if (!need_cpus(t, 2))
		return;
	misuse.held = misuse.released = misuse.got_it = 0;
	misuse.holder = other_cpu();
	misuse.bugs_before = counter_read(&spin_bug_count);
	ktest_expect_reports(t, 2);
	smp_run_on_all_cpus(misuse_cpu, t);
	KTEST_EXPECT_EQ(t, counter_read(&spin_bug_count), misuse.bugs_before + 2);
	KTEST_EXPECT_EQ(t, misuse.got_it, 1);	/* it waited for the holder after reporting */
	KTEST_EXPECT_FALSE(t, spin_is_locked(&misuse.lock));
#else
	ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
#endif
}

/* The lockup clock restarts on every hand-over: a wait in a queue that moves
 * is no lockup, however long (a ticket behind CPUs whose virtual CPUs the host
 * runs late: the smp suite once saw every CPU report slob_lock, "not held", while the
 * smp suite went on); a lock whose head stays put is one.  No CPU needed:
 * the clock is fed the heads and times a wait would see. */
static void lockup_clock_restarts_on_every_hand_over(struct ktest *t)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	const u64 budget = 1000;
	struct lockup_watch w;
	u64 now;
	u16 head = 7;

	lockup_watch_start(&w, head, 0);
	for (now = 0; now <= 20 * budget; now += budget / 4) {	/* a hand-over each 2 steps */
		if (now % (budget / 2) == 0)
			head++;
		KTEST_EXPECT_FALSE(t, lockup_watch_expired(&w, head, now, budget));
	}
	now = 20 * budget;				/* the last hand-over */
	KTEST_EXPECT_FALSE(t, lockup_watch_expired(&w, head, now + budget / 2, budget));
	KTEST_EXPECT_TRUE(t, lockup_watch_expired(&w, head, now + budget + 1, budget));
	lockup_watch_start(&w, (u16)0xffff, 0);		/* the 16-bit head wraps */
	KTEST_EXPECT_FALSE(t, lockup_watch_expired(&w, 0, 2 * budget, budget));
	KTEST_EXPECT_TRUE(t, lockup_watch_expired(&w, 0, 3 * budget + 1, budget));
#else
	ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
#endif
}

/* A test lowers one lock's lockup budget, not every lock's: with the global
 * budget lowered to a few ms while debug_lock_reports_other_cpus waited, a
 * reap timer's wait for a cache lock whose holder the host had descheduled
 * for a few ms was a "lockup" too, a report no case declared. */
static void lockup_budget_is_the_locks_own(struct ktest *t)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	DEFINE_SPINLOCK(lowered);
	DEFINE_SPINLOCK(other);
	u64 normal = 1ULL << __atomic_load_n(&spin_lockup_shift, __ATOMIC_RELAXED);

	KTEST_EXPECT_EQ(t, spin_lockup_budget(&lowered), normal);
	__atomic_store_n(&lowered.lockup_shift, 22, __ATOMIC_RELAXED);
	KTEST_EXPECT_EQ(t, spin_lockup_budget(&lowered), 1ULL << 22);
	KTEST_EXPECT_EQ(t, spin_lockup_budget(&other), normal);
	spin_lock_init(&lowered);			/* a fresh lock: the global budget */
	KTEST_EXPECT_EQ(t, spin_lockup_budget(&lowered), normal);
#else
	ktest_skip(t, "CONFIG_DEBUG_SPINLOCK is off");
#endif
}

/* ---- smp_call_function ------------------------------------------------------- */

struct call_probe {
	int ran[NR_CPUS];
	int in_irq[NR_CPUS];
	int irqs_off[NR_CPUS];
};

static void call_probe_fn(void *info)
{
	struct call_probe *p = info;
	unsigned int cpu = smp_processor_id();

	p->ran[cpu]++;
	p->in_irq[cpu] = in_interrupt() != 0;
	p->irqs_off[cpu] = irqs_disabled();
}

static void call_function_reaches_every_other_cpu(struct ktest *t)
{
	struct call_probe p;
	unsigned int cpu, me = smp_processor_id();

	if (!need_cpus(t, 2))
		return;
	memset(&p, 0, sizeof(p));
	KTEST_EXPECT_EQ(t, smp_call_function(call_probe_fn, &p, 1), 0);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		KTEST_EXPECT_EQ(t, p.ran[cpu], cpu_online(cpu) && cpu != me ? 1 : 0);
		if (cpu_online(cpu) && cpu != me) {
			KTEST_EXPECT_EQ(t, p.in_irq[cpu], 1);
			KTEST_EXPECT_EQ(t, p.irqs_off[cpu], 1);
		}
	}
	memset(&p, 0, sizeof(p));
	on_each_cpu(call_probe_fn, &p, 1);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KTEST_EXPECT_EQ(t, p.ran[cpu], cpu_online(cpu) ? 1 : 0);
}

/* With interrupts off smp_call_function() runs fn nowhere, warns and
 * returns -1, and on_each_cpu() runs it here only: the same contract in
 * the kernel and on the host, at one CPU or several (<tiny/smp.h>). */
static void call_function_refused_with_interrupts_off(struct ktest *t)
{
	struct call_probe p;
	unsigned int cpu, me = smp_processor_id();
	unsigned long flags;
	int r, each;

	memset(&p, 0, sizeof(p));
	ktest_expect_reports(t, 2);
	local_irq_save(flags);
	r = smp_call_function(call_probe_fn, &p, 1);
	each = on_each_cpu(call_probe_fn, &p, 1);
	local_irq_restore(flags);
	KTEST_EXPECT_EQ(t, r, -1);
	KTEST_EXPECT_EQ(t, each, -1);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KTEST_EXPECT_EQ(t, p.ran[cpu], cpu == me ? 1 : 0);
}

/* ---- timers ------------------------------------------------------------------- */

struct cpu_timer {
	struct timer_list timer;
	int fired;
	int fired_on;		/* the CPU its function ran on */
	int running;		/* inside the function now */
	int rearm;		/* re-arms itself while set */
	int hold;		/* the next run stays inside until del_timer_sync() */
	unsigned int spin;	/* cpu_relax() rounds inside the function */
};

static struct cpu_timer cpu_timers[NR_CPUS], moved, cancelled, busy;
static unsigned int timers_other;	/* the CPU that arms moved, cancelled, busy */

/* A held run: re-armed and marked running, it stays inside until
 * del_timer_sync() has taken the re-armed timer off its list (and so is
 * waiting for this run), at most about ten seconds; then it dawdles, so
 * that a del_timer_sync() that did not wait would return with it running. */
static void cpu_timer_hold(struct cpu_timer *ct)
{
	unsigned long end = jiffies + KTEST_SECONDS(10);
	unsigned int i;

	mod_timer(&ct->timer, jiffies + 1);
	__atomic_store_n(&ct->hold, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ct->running, 1, __ATOMIC_RELEASE);
	while (timer_pending(&ct->timer) && time_before(jiffies, end))
		cpu_relax();
	for (i = 0; i < ct->spin; i++)
		cpu_relax();
}

static void cpu_timer_fn(unsigned long data)
{
	struct cpu_timer *ct = (struct cpu_timer *)data;
	unsigned int i;

	__atomic_store_n(&ct->fired_on, (int)smp_processor_id(), __ATOMIC_RELAXED);
	if (__atomic_load_n(&ct->hold, __ATOMIC_RELAXED)) {
		cpu_timer_hold(ct);
	} else {
		__atomic_store_n(&ct->running, 1, __ATOMIC_RELAXED);
		for (i = 0; i < ct->spin; i++)
			cpu_relax();
		if (__atomic_load_n(&ct->rearm, __ATOMIC_RELAXED))
			mod_timer(&ct->timer, jiffies + 1);
	}
	__atomic_store_n(&ct->running, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ct->fired, 1, __ATOMIC_RELEASE);
}

static void cpu_timer_init(struct cpu_timer *ct, int rearm, unsigned int spin)
{
	memset(ct, 0, sizeof(*ct));
	ct->fired_on = -1;
	ct->rearm = rearm;
	ct->spin = spin;
	setup_timer(&ct->timer, cpu_timer_fn, (unsigned long)ct);
}

/* Each CPU arms its own timer; the other CPU also arms the ones CPU 0
 * then moves, cancels and waits for.  moved and cancelled are far in the
 * future: CPU 0 finds them pending however late it gets there. */
static void arm_timers_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id();

	(void)arg;
	mod_timer(&cpu_timers[cpu].timer, jiffies + 2);
	if (cpu == timers_other) {
		mod_timer(&moved.timer, jiffies + 100000);
		mod_timer(&cancelled.timer, jiffies + 100000);
		mod_timer(&busy.timer, jiffies + 1);
	}
}

static int timer_fired(void *arg)
{
	struct cpu_timer *ct = arg;

	return __atomic_load_n(&ct->fired, __ATOMIC_ACQUIRE) >= 1;
}

static int busy_fired_thrice(void *arg)
{
	(void)arg;
	return __atomic_load_n(&busy.fired, __ATOMIC_ACQUIRE) >= 3;
}

/* busy's held run has begun (it clears hold, then says it runs). */
static int busy_held(void *arg)
{
	(void)arg;
	return __atomic_load_n(&busy.running, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&busy.hold, __ATOMIC_RELAXED);
}

static void timers_run_where_armed(struct ktest *t)
{
	unsigned int cpu;
	int fired;

	if (!need_cpus(t, 2))
		return;
	timers_other = other_cpu();
	for_each_online_cpu(cpu)
		cpu_timer_init(&cpu_timers[cpu], 0, 0);
	cpu_timer_init(&moved, 0, 0);
	cpu_timer_init(&cancelled, 0, 0);
	cpu_timer_init(&busy, 1, 20000);
	smp_run_on_all_cpus(arm_timers_cpu, NULL);
	/* from CPU 0: move one of the other CPU's timers here, cancel another */
	KTEST_EXPECT_EQ(t, mod_timer(&moved.timer, jiffies + 2), 1);
	KTEST_EXPECT_EQ(t, del_timer(&cancelled.timer), 1);
	for_each_online_cpu(cpu)
		KTEST_EXPECT_TRUE(t, wait_until(t, timer_fired, &cpu_timers[cpu], "a CPU's timer"));
	KTEST_EXPECT_TRUE(t, wait_until(t, timer_fired, &moved, "the moved timer"));
	KTEST_EXPECT_TRUE(t, wait_until(t, busy_fired_thrice, NULL, "busy to fire 3 times"));
	for_each_online_cpu(cpu)
		KTEST_EXPECT_EQ(t, cpu_timers[cpu].fired_on, (int)cpu);
	KTEST_EXPECT_EQ(t, moved.fired_on, (int)smp_processor_id());
	KTEST_EXPECT_EQ(t, __atomic_load_n(&busy.fired_on, __ATOMIC_RELAXED),
			(int)timers_other);	/* re-arms stay on its CPU */
	/* busy re-arms itself every tick; its next run holds on until
	 * del_timer_sync() waits for it, which must return with it neither
	 * pending nor running */
	__atomic_store_n(&busy.hold, 1, __ATOMIC_RELAXED);
	KTEST_EXPECT_TRUE(t, wait_until(t, busy_held, NULL, "busy's held run"));
	del_timer_sync(&busy.timer);
	KTEST_EXPECT_EQ(t, __atomic_load_n(&busy.running, __ATOMIC_RELAXED), 0);
	KTEST_EXPECT_FALSE(t, timer_pending(&busy.timer));
	fired = __atomic_load_n(&busy.fired, __ATOMIC_ACQUIRE);
	ktest_wait_ticks(3);
	KTEST_EXPECT_EQ(t, __atomic_load_n(&busy.fired, __ATOMIC_ACQUIRE), fired);
	KTEST_EXPECT_EQ(t, cancelled.fired, 0);
	del_timer_sync(&moved.timer);
	for_each_online_cpu(cpu)
		del_timer_sync(&cpu_timers[cpu].timer);
}

/* ---- objects handed to the next CPU to free ------------------------------------ */

#define RING_SIZE	64
/* Each CPU's objects; with SLOB's one lock at -smp 4 on two busy host
 * cores an operation can take a millisecond, so not many more. */
#define HANDOFF_OPS	2000

struct handoff_obj {
	void *p;
	u32 size;		/* 0: from handoff_cache */
	u32 tag;
};

/* One ring per CPU: the previous online CPU puts, this one takes. */
struct handoff_ring {
	struct handoff_obj slot[RING_SIZE];
	unsigned int head;	/* next put (producer) */
	unsigned int tail;	/* next take (consumer) */
	int producer_done;
} __aligned(64);

struct handoff {
	struct handoff_ring ring[NR_CPUS];
	struct kmem_cache *cache;
	unsigned long errors[NR_CPUS];
	unsigned long handed[NR_CPUS];	/* objects this CPU freed for another */
	unsigned long fails[NR_CPUS];
	atomic_t start;
	unsigned int n;
};

static struct handoff handoff;

static void handoff_fill(void *p, size_t size, u32 tag)
{
	u32 *w = p;
	size_t i;

	for (i = 0; i < size / 4; i++)
		w[i] = tag + (u32)i;
}

static int handoff_intact(const void *p, size_t size, u32 tag)
{
	const u32 *w = p;
	size_t i;

	for (i = 0; i < size / 4; i++)
		if (w[i] != tag + (u32)i)
			return 0;
	return 1;
}

static size_t handoff_obj_size(const struct handoff_obj *o)
{
	return o->size ? o->size : kmem_cache_size(handoff.cache);
}

/* Checks an object made on another CPU and frees it here. */
static void handoff_free(struct handoff_obj *o, unsigned int cpu)
{
	if (!handoff_intact(o->p, handoff_obj_size(o), o->tag))
		handoff.errors[cpu]++;
	if (o->size)
		kfree(o->p);
	else
		kmem_cache_free(handoff.cache, o->p);
}

/* Takes and frees what the previous CPU handed over; returns the count. */
static unsigned int handoff_take(unsigned int cpu)
{
	struct handoff_ring *r = &handoff.ring[cpu];
	unsigned int tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), n = 0;

	while (tail != head) {
		handoff_free(&r->slot[tail % RING_SIZE], cpu);
		tail++;
		n++;
	}
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	handoff.handed[cpu] += n;
	return n;
}

/* Hands an object to the next CPU; 0 if its ring is full. */
static int handoff_put(unsigned int to, const struct handoff_obj *o)
{
	struct handoff_ring *r = &handoff.ring[to];
	unsigned int head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == RING_SIZE)
		return 0;
	r->slot[head % RING_SIZE] = *o;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

static void handoff_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id(), next = next_online_cpu(cpu);
	unsigned int i;
	struct rnd_state rnd;
	struct handoff_obj o;

	(void)arg;
	prandom_seed(&rnd, 1000 + cpu);
	barrier_wait(&handoff.start, handoff.n);
	for (i = 0; i < HANDOFF_OPS; i++) {
		o.size = prandom_below(&rnd, 4) ? 8 * (1 + prandom_below(&rnd, 128)) : 0;
		o.tag = (cpu << 24) ^ i;
		o.p = o.size ? kmalloc(o.size, GFP_KERNEL) : kmem_cache_alloc(handoff.cache, GFP_KERNEL);
		if (!o.p) {
			handoff.fails[cpu]++;
			continue;
		}
		handoff_fill(o.p, handoff_obj_size(&o), o.tag);
		while (!handoff_put(next, &o)) {	/* full: free our own share meanwhile */
			handoff_take(cpu);
			cpu_relax();
		}
		if (i % 8 == 0)
			handoff_take(cpu);
	}
	__atomic_store_n(&handoff.ring[next].producer_done, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&handoff.ring[cpu].producer_done, __ATOMIC_ACQUIRE)) {
		handoff_take(cpu);
		cpu_relax();
	}
	handoff_take(cpu);
}

static void frees_handed_to_other_cpus(struct ktest *t)
{
	unsigned long handed = 0, fails = 0;
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	memset(&handoff, 0, sizeof(handoff));
	handoff.n = num_online_cpus();
	handoff.cache = kmem_cache_create("smp_handoff", 120, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, handoff.cache);
	smp_run_on_all_cpus(handoff_cpu, NULL);
	for_each_online_cpu(cpu) {
		KTEST_EXPECT_EQ(t, handoff.errors[cpu], 0UL);
		KTEST_EXPECT_EQ(t, handoff.ring[cpu].head, handoff.ring[cpu].tail);
		handed += handoff.handed[cpu];
		fails += handoff.fails[cpu];
	}
	KTEST_EXPECT_EQ(t, fails, 0UL);
	KTEST_EXPECT_EQ(t, handed, (unsigned long)HANDOFF_OPS * handoff.n);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(handoff.cache), 0);
	ktest_info(t, "%u CPUs: %lu objects freed by the CPU after the one that made them",
		   handoff.n, handed);
}

/* ---- the timer interrupt and process context allocating on every CPU ---------- */

#define IRQ_KEEP	8
#define PROC_OPS	8000

struct irq_alloc {
	struct timer_list timer;
	void *keep[IRQ_KEEP];		/* the timer's objects, oldest freed first */
	u32 keep_size[IRQ_KEEP];
	unsigned int next;
	int fired;
	unsigned long errors, proc_errors, fails;
	int stop;
} __aligned(64);

static struct irq_alloc irq_alloc[NR_CPUS];
static struct kmem_cache *irq_cache;
static atomic_t irq_start;

static void irq_alloc_fn(unsigned long cpu)
{
	struct irq_alloc *a = &irq_alloc[cpu];
	unsigned int k = a->next++ % IRQ_KEEP;
	u32 size = 16 + (a->next * 40) % 700;

	if (a->keep[k]) {
		if (!handoff_intact(a->keep[k], a->keep_size[k], (u32)cpu << 20))
			a->errors++;
		kfree(a->keep[k]);
	}
	a->keep[k] = kmalloc(size, GFP_ATOMIC);
	a->keep_size[k] = size;
	if (a->keep[k])
		handoff_fill(a->keep[k], size, (u32)cpu << 20);
	else
		a->fails++;
	__atomic_fetch_add(&a->fired, 1, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&a->stop, __ATOMIC_RELAXED))
		mod_timer(&a->timer, jiffies + 1);
}

static void irq_alloc_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id(), i, k;
	struct irq_alloc *a = &irq_alloc[cpu];
	void *p[4] = { NULL, NULL, NULL, NULL };
	u32 tag = (cpu << 24) | 0x10000;

	(void)arg;
	setup_timer(&a->timer, irq_alloc_fn, cpu);
	mod_timer(&a->timer, jiffies + 1);
	barrier_wait(&irq_start, num_online_cpus());
	for (i = 0; i < PROC_OPS; i++) {
		k = i % 4;
		if (p[k]) {
			if (!handoff_intact(p[k], kmem_cache_size(irq_cache), tag + k))
				a->proc_errors++;
			kmem_cache_free(irq_cache, p[k]);
		}
		p[k] = (i & 4) ? kmem_cache_alloc(irq_cache, GFP_KERNEL) : NULL;
		if (p[k])
			handoff_fill(p[k], kmem_cache_size(irq_cache), tag + k);
		kfree(kmalloc(32 + i % 200, GFP_KERNEL));
		if (i % 256 == 255)
			ktest_wait_ticks(1);
	}
	/* the timer must have run three times, with process context busy in
	 * between: wait for that, at most ten seconds of ticks */
	for (i = 0; i < KTEST_SECONDS(10) && __atomic_load_n(&a->fired, __ATOMIC_RELAXED) < 3; i++) {
		kfree(kmalloc(32 + i % 200, GFP_KERNEL));
		ktest_wait_ticks(1);
	}
	for (k = 0; k < 4; k++)
		if (p[k])
			kmem_cache_free(irq_cache, p[k]);
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELAXED);
	del_timer_sync(&a->timer);
	for (k = 0; k < IRQ_KEEP; k++)
		kfree(a->keep[k]);
}

static void timer_and_process_allocate_on_every_cpu(struct ktest *t)
{
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	memset(irq_alloc, 0, sizeof(irq_alloc));
	atomic_set(&irq_start, 0);
	irq_cache = kmem_cache_create("smp_irq", 200, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, irq_cache);
	smp_run_on_all_cpus(irq_alloc_cpu, NULL);
	for_each_online_cpu(cpu) {
		if (irq_alloc[cpu].fired < 3)
			ktest_info(t, "CPU %u's timer ran %d times in 10 s of ticks", cpu,
				   irq_alloc[cpu].fired);
		KTEST_EXPECT_GE(t, irq_alloc[cpu].fired, 3);
		KTEST_EXPECT_EQ(t, irq_alloc[cpu].errors, 0UL);
		KTEST_EXPECT_EQ(t, irq_alloc[cpu].proc_errors, 0UL);
		KTEST_EXPECT_EQ(t, irq_alloc[cpu].fails, 0UL);
	}
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(irq_cache), 0);
}

/* ---- caches made and destroyed while other CPUs use theirs ---------------------- */

#define CACHE_ROUNDS	40
#define CACHE_OBJS	24

static char cache_names[NR_CPUS][24];
static unsigned long cache_errors[NR_CPUS];
static atomic_t cache_start;

static void cache_churn_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id(), r, i;
	void *obj[CACHE_OBJS];
	struct kmem_cache *c;
	size_t size;

	(void)arg;
	snprintf(cache_names[cpu], sizeof(cache_names[cpu]), "smp_churn%u", cpu);
	barrier_wait(&cache_start, num_online_cpus());
	for (r = 0; r < CACHE_ROUNDS; r++) {
		size = 8 + ((r * 56 + cpu * 24) % 1000);
		c = kmem_cache_create(cache_names[cpu], size, 0, 0, NULL, NULL);
		if (!c) {
			cache_errors[cpu]++;
			continue;
		}
		for (i = 0; i < CACHE_OBJS; i++) {
			obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
			if (obj[i])
				handoff_fill(obj[i], size, (cpu << 24) ^ (r << 8) ^ i);
			else
				cache_errors[cpu]++;
		}
		for (i = 0; i < CACHE_OBJS; i++) {
			if (!obj[i])
				continue;
			if (!handoff_intact(obj[i], size, (cpu << 24) ^ (r << 8) ^ i))
				cache_errors[cpu]++;
			kmem_cache_free(c, obj[i]);
		}
		if (kmem_cache_destroy(c))
			cache_errors[cpu]++;
	}
}

static void caches_come_and_go_on_every_cpu(struct ktest *t)
{
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	memset(cache_errors, 0, sizeof(cache_errors));
	atomic_set(&cache_start, 0);
	smp_run_on_all_cpus(cache_churn_cpu, NULL);
	for_each_online_cpu(cpu)
		KTEST_EXPECT_EQ(t, cache_errors[cpu], 0UL);
}

/* ---- kmem_cache_shrink() on one CPU while the others allocate ------------------- */

#define SHRINK_OPS	6000

static struct kmem_cache *shrink_cache;
static unsigned long shrink_errors[NR_CPUS], shrinks, shrink_waits_lost;
static unsigned int shrinker;		/* the CPU that shrinks: the suite's */
static atomic_t shrink_workers_done, shrink_start;

/* A worker halfway through its allocations waits until the shrinker has
 * shrunk again since the worker began (at most about ten seconds of
 * ticks), so that shrinks overlap every worker's allocations however the
 * CPUs are scheduled; returns 0 if it gave up. */
static int wait_for_a_shrink(unsigned long since)
{
	unsigned long end = jiffies + KTEST_SECONDS(10);

	while (__atomic_load_n(&shrinks, __ATOMIC_RELAXED) == since)
		if (time_after(jiffies, end))
			return 0;
		else
			cpu_relax();
	return 1;
}

static void shrink_cpu(void *arg)
{
	unsigned int cpu = smp_processor_id(), i, k;
	unsigned long seen;
	void *p[16];
	size_t size = kmem_cache_size(shrink_cache);

	(void)arg;
	memset(p, 0, sizeof(p));
	barrier_wait(&shrink_start, num_online_cpus());
	if (cpu == shrinker) {
		while (atomic_read(&shrink_workers_done) < (int)num_online_cpus() - 1) {
			kmem_cache_shrink(shrink_cache);
			if (__atomic_add_fetch(&shrinks, 1, __ATOMIC_RELAXED) % 8 == 0)
				kmem_reclaim();
			cpu_relax();
		}
		return;
	}
	seen = __atomic_load_n(&shrinks, __ATOMIC_RELAXED);
	for (i = 0; i < SHRINK_OPS; i++) {
		k = i % 16;
		if (i == SHRINK_OPS / 2 && !wait_for_a_shrink(seen))
			__atomic_add_fetch(&shrink_waits_lost, 1, __ATOMIC_RELAXED);
		if (p[k]) {
			if (!handoff_intact(p[k], size, (cpu << 24) ^ (i - 16)))
				shrink_errors[cpu]++;
			kmem_cache_free(shrink_cache, p[k]);
		}
		p[k] = kmem_cache_alloc(shrink_cache, GFP_KERNEL);
		if (p[k])
			handoff_fill(p[k], size, (cpu << 24) ^ i);
		else
			shrink_errors[cpu]++;
	}
	for (k = 0; k < 16; k++)
		kmem_cache_free(shrink_cache, p[k]);
	atomic_inc(&shrink_workers_done);
}

static void shrink_while_others_allocate(struct ktest *t)
{
	unsigned int cpu;

	if (!need_cpus(t, 2))
		return;
	memset(shrink_errors, 0, sizeof(shrink_errors));
	shrinks = shrink_waits_lost = 0;
	shrinker = smp_processor_id();
	atomic_set(&shrink_workers_done, 0);
	atomic_set(&shrink_start, 0);
	shrink_cache = kmem_cache_create("smp_shrink", 300, 0, 0, NULL, NULL);
	KTEST_ASSERT_NOT_NULL(t, shrink_cache);
	smp_run_on_all_cpus(shrink_cpu, NULL);
	for_each_online_cpu(cpu)
		KTEST_EXPECT_EQ(t, shrink_errors[cpu], 0UL);
	/* every worker saw a shrink during its run, or waited 10 s for one */
	KTEST_EXPECT_EQ(t, shrink_waits_lost, 0UL);
	KTEST_EXPECT_GT(t, shrinks, 0UL);
	KTEST_EXPECT_EQ(t, kmem_cache_destroy(shrink_cache), 0);
	ktest_info(t, "%lu shrinks while %u CPUs allocated", shrinks, num_online_cpus() - 1);
}

/* ---- bad-pointer checks while the pages under them come and go ---------------- */

/* The driver creates a cache, fills it, frees everything, destroys it and
 * gives the pages back, round after round; the other CPUs meanwhile ask
 * ksize() of a pointer to one of its objects, which is never a kmalloc()
 * block: each call must be refused (0, one report), whether the page under
 * it is a slab of the cache, free in the cache, back with the page
 * allocator or a slab again.  The check reads page flags and the
 * allocator's words that shrink and destroy write on another CPU: TSan and
 * ASan watch it on the host. */
#define STALE_CHECKS	150	/* per other CPU: each prints its report */
#define STALE_OBJS	24

static struct {
	void *stale;			/* an object of the driver's cache, or NULL */
	int no_cache;			/* the driver could make none: the others stop */
	atomic_t done;			/* other CPUs done */
	unsigned long accepted;		/* ksize() calls that took the pointer */
	unsigned long rounds;		/* the driver's */
} stale;

static void stale_driver(unsigned int others)
{
	void *obj[STALE_OBJS];
	struct kmem_cache *c;
	unsigned int i;

	while (atomic_read(&stale.done) < (int)others) {
		c = kmem_cache_create("smp_stale", 200, 0, 0, NULL, NULL);
		if (!c && !READ_ONCE(stale.stale))
			WRITE_ONCE(stale.no_cache, 1);
		for (i = 0; c && i < STALE_OBJS; i++)
			obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (c && obj[STALE_OBJS / 2])
			WRITE_ONCE(stale.stale, obj[STALE_OBJS / 2]);
		for (i = 0; c && i < STALE_OBJS; i++)
			kmem_cache_free(c, obj[i]);
		if (c)
			kmem_cache_destroy(c);
		kmem_reclaim();
		WRITE_ONCE(stale.rounds, stale.rounds + 1);
	}
}

/* Waits until the driver has begun another round after round, at most
 * about ten seconds. */
static void wait_for_round(unsigned long round)
{
	unsigned long end = jiffies + KTEST_SECONDS(10);

	while (READ_ONCE(stale.rounds) == round && time_before(jiffies, end))
		cpu_relax();
}

static void stale_cpu(void *arg)
{
	unsigned int *driver = arg, i;

	if (smp_processor_id() == *driver) {
		stale_driver(num_online_cpus() - 1);
		return;
	}
	while (!READ_ONCE(stale.stale) && !READ_ONCE(stale.no_cache))
		cpu_relax();
	if (!READ_ONCE(stale.stale)) {	/* no cache: the case fails on its reports */
		atomic_inc(&stale.done);
		return;
	}
	for (i = 0; i < STALE_CHECKS; i++) {
		if (i % 10 == 9)	/* spread over rounds: wait for the next one */
			wait_for_round(READ_ONCE(stale.rounds));
		if (ksize(READ_ONCE(stale.stale)))
			__atomic_fetch_add(&stale.accepted, 1, __ATOMIC_RELAXED);
		cpu_relax();
	}
	atomic_inc(&stale.done);
}

static void bad_pointer_checks_race_shrink_and_destroy(struct ktest *t)
{
	unsigned int driver = smp_processor_id();

	if (!need_cpus(t, 2))
		return;
	if (fault_inject_active()) {	/* the others wait for a cache to exist */
		ktest_skip(t, "fault injection is on");
		return;
	}
	memset(&stale, 0, sizeof(stale));
	ktest_expect_reports(t, STALE_CHECKS * (num_online_cpus() - 1));
	smp_run_on_all_cpus(stale_cpu, &driver);
	KTEST_EXPECT_EQ(t, stale.accepted, 0UL);
	ktest_info(t, "%u refused checks on %u CPUs during %lu rounds of create, free, destroy "
		   "and reclaim", STALE_CHECKS * (num_online_cpus() - 1), num_online_cpus() - 1,
		   stale.rounds);
}

/* ---- the validator against large blocks on other CPUs ------------------------ */

/* The validator counts the pages of the PG_large blocks and checks them
 * against large_block_pages; the others allocate and free large blocks
 * meanwhile.  Both are read in one hold of zone_lock, under which both
 * change (page_update_counted()): the counter moved on its own once made
 * this report "large blocks hold 0 pages, the counter says 1". */
static struct {
	unsigned int driver;		/* the CPU that validates */
	int stop;			/* the driver is done: the others stop */
	unsigned int started;		/* other CPUs allocating */
	unsigned long rounds;		/* the others' large blocks, summed */
	unsigned long failed;		/* of them, not allocated */
} large_race;

#define LARGE_RACE_VALIDATIONS	300

static void large_race_others(void)
{
	void *block;

	__atomic_fetch_add(&large_race.started, 1, __ATOMIC_RELEASE);
	while (!smp_load_acquire(&large_race.stop)) {
		block = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
		if (!block)
			__atomic_fetch_add(&large_race.failed, 1, __ATOMIC_RELAXED);
		kfree(block);
		__atomic_fetch_add(&large_race.rounds, 1, __ATOMIC_RELEASE);
	}
}

/* The driver: once the others allocate, validates LARGE_RACE_VALIDATIONS
 * times and until the others made 100 blocks meanwhile (each wait bounded
 * by about ten seconds). */
static int large_race_started(void *arg)
{
	(void)arg;
	return __atomic_load_n(&large_race.started, __ATOMIC_ACQUIRE) + 1 >= num_online_cpus();
}

static void large_race_cpu(void *arg)
{
	struct ktest *t = arg;
	unsigned long i, errors = 0, from, end;

	if (smp_processor_id() != large_race.driver) {
		large_race_others();
		return;
	}
	KTEST_EXPECT_TRUE(t, wait_until(t, large_race_started, NULL, "the others to start"));
	from = __atomic_load_n(&large_race.rounds, __ATOMIC_ACQUIRE);
	end = jiffies + KTEST_SECONDS(10);
	for (i = 0; i < LARGE_RACE_VALIDATIONS ||
		    (__atomic_load_n(&large_race.rounds, __ATOMIC_ACQUIRE) - from < 100 &&
		     time_before(jiffies, end)); i++) {
		errors += (unsigned long)kmem_validate();
		if (i % 32 == 31)
			ktest_wait_ticks(1);	/* let time pass even with --sync-ticks */
	}
	KTEST_EXPECT_EQ(t, errors, 0UL);
	ktest_info(t, "%lu validations while the others made %lu large blocks", i,
		   __atomic_load_n(&large_race.rounds, __ATOMIC_ACQUIRE) - from);
	smp_store_release(&large_race.stop, 1);
}

static void large_blocks_validate_while_others_allocate(struct ktest *t)
{
	if (!need_cpus(t, 2))
		return;
	memset(&large_race, 0, sizeof(large_race));
	large_race.driver = smp_processor_id();
	smp_run_on_all_cpus(large_race_cpu, t);
	KTEST_EXPECT_GT(t, large_race.rounds, 0UL);
	if (!fault_inject_active())
		KTEST_EXPECT_EQ(t, large_race.failed, 0UL);
}

/* ---- the scaling workload, as a test ---------------------------------------------- */

#define STRESS_OPS	5000	/* per CPU: a minute of SLOB at -smp 4 on a busy host */

/* kmem_stress on every online CPU (the calling one in slot 0, the others
 * by number, holes skipped): every object intact, every operation done. */
static void stress_on_every_cpu(struct ktest *t)
{
	static struct kmem_stress_result res;
	unsigned int slot, cpu, n = num_online_cpus();

	if (!need_cpus(t, 2))
		return;
	KTEST_EXPECT_EQ(t, kmem_stress_run(n, STRESS_OPS, &res), 0);
	KTEST_EXPECT_EQ(t, res.ncpus, n);
	KTEST_EXPECT_EQ(t, res.interrupted, 0);
	for (slot = 0; slot < n; slot++) {
		KTEST_EXPECT_EQ(t, res.ops[slot], (unsigned long)STRESS_OPS);
		KTEST_EXPECT_EQ(t, res.errors[slot], 0UL);
	}
	slot = 0;
	for_each_online_cpu(cpu)	/* the slots are the online CPUs, in order */
		if (slot < n && res.cpu[slot] == cpu)
			slot++;
	KTEST_EXPECT_EQ(t, slot, n);
}

static const struct ktest_case smp_cases[] = {
	KTEST_CASE(trylock_takes_only_a_free_lock),
	KTEST_CASE(lock_torture_counts_exact),
	KTEST_CASE(debug_lock_reports_other_cpus),
	KTEST_CASE(lockup_clock_restarts_on_every_hand_over),
	KTEST_CASE(lockup_budget_is_the_locks_own),
	KTEST_CASE(call_function_reaches_every_other_cpu),
	KTEST_CASE(call_function_refused_with_interrupts_off),
	KTEST_CASE(timers_run_where_armed),
	KTEST_CASE(frees_handed_to_other_cpus),
	KTEST_CASE(timer_and_process_allocate_on_every_cpu),
	KTEST_CASE(caches_come_and_go_on_every_cpu),
	KTEST_CASE(shrink_while_others_allocate),
	KTEST_CASE(large_blocks_validate_while_others_allocate),
	KTEST_CASE(bad_pointer_checks_race_shrink_and_destroy),
	KTEST_CASE(stress_on_every_cpu),
	{}
};

static const struct ktest_suite smp_suite = {
	.name = "smp",
	.cases = smp_cases,
	.init = smp_init,
	.exit = smp_exit,
};
KTEST_SUITE(smp_suite);
