/* smp.c - the host harness's CPUs: one thread per CPU, each with its own
 * emulated interrupt flag, timer tick and smp_call_function() requests.
 *
 * CPU 0 is the main thread.  host_smp_start(n) starts CPUs 1..n-1: each
 * thread sets its CPU number (thread-local), then idles, waiting for work
 * from smp_run_on_all_cpus() or for an interrupt.  Until then the harness
 * has one CPU and runs exactly as the single-threaded harness always did.
 *
 * Interrupts.  A CPU's pending interrupts are its tick (tick_due[cpu])
 * and the calls other CPUs sent it (calls_pending[cpu], one bit per
 * sender).  They arrive:
 *   - from a signal directed at the CPU's thread: SIGALRM from a per-thread
 *     POSIX timer (the tick; one-shot, re-armed once the tick has run, so
 *     process context always gets a whole period between two) or SIGUSR1
 *     from a CPU that posted a call;
 *   - or synchronously (host_tick(), and ktest_wait_ticks() with
 *     --sync-ticks, which ticks every CPU).
 * The signal handler, running on the interrupted thread, runs them at once
 * when that CPU's interrupt flag is on and otherwise leaves them pending
 * for local_irq_enable()/restore().  cpu_relax() (every spin loop) and the
 * idle loop poll them too: a sanitizer may hold a signal back until the
 * thread calls into the C library, and a spinning CPU must still answer.
 * A tick is a signal aimed at the thread rather than a synchronous call
 * from the thread's own loop because the code under test (a lock, an
 * allocation) must be interruptible anywhere, as in the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <arch/percpu.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>
#include "host.h"

#define SIG_TICK	SIGALRM
#define SIG_IPI		SIGUSR1

__thread volatile sig_atomic_t host_irqs_off;
__thread volatile sig_atomic_t host_irq_pending;
__thread unsigned int host_cpu_id;
__thread unsigned long host_percpu_offset;	/* <arch/percpu.h> */
__thread void (*host_percpu_hook)(void);	/* <arch/percpu.h> */
static __thread volatile sig_atomic_t irq_depth;
static __thread unsigned int relax_count;
unsigned int host_nr_online = 1;
unsigned int host_nr_possible = 1;
/* CPUs wait for locks by test-and-set: threads are descheduled at will,
 * as virtual CPUs are (<tiny/spinlock_smp.h>). */
int arch_spin_tas = 1;

/* One smp_call_function() in flight from each CPU. */
struct call_data {
	smp_call_func_t fn;
	void *info;
	int taken;		/* CPUs that have read fn and info */
	int done;		/* CPUs that have returned from fn */
};

struct host_cpu {
	pthread_t thread;
	pid_t tid;
	timer_t tick_timer;
	int has_timer;
	int tick_due;			/* atomic: a tick waits */
	unsigned long calls_pending;	/* atomic: bit n = a call from CPU n waits */
	/* smp_run_on_all_cpus() work: posted with work_gen, finished with done_gen */
	smp_call_func_t work_fn;
	void *work_arg;
	unsigned long work_gen, done_gen;
	int stop;
	pthread_mutex_t idle_lock;
	pthread_cond_t idle_wake;
};

static struct host_cpu cpus[NR_CPUS];
static struct call_data calls[NR_CPUS];
static unsigned int tick_usec;	/* atomic: ticks this far apart; 0: only synchronous ones */
static int sync_ticks = 1;	/* no timer armed: ktest_wait_ticks() ticks */

int in_interrupt(void)
{
	return irq_depth;
}

static void arm_tick(struct host_cpu *c, unsigned int usec)
{
	struct itimerspec it;

	if (!c->has_timer)
		return;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_nsec = (long)usec * 1000;
	timer_settime(c->tick_timer, 0, &it, NULL);
}

/* The idle loop's guard against a lost tick: the one-shot tick timer is
 * re-armed only when its tick runs, so a signal that never reaches the
 * handler (a sanitizer holds signals back and may drop one) would stop
 * this CPU's ticks for good.  If the timer has fired and no tick is due,
 * the tick is taken from here.  Interrupts on. */
static void recover_lost_tick(struct host_cpu *c)
{
	struct itimerspec left;

	if (!c->has_timer || !__atomic_load_n(&tick_usec, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&c->tick_due, __ATOMIC_ACQUIRE) ||
	    timer_gettime(c->tick_timer, &left) ||
	    left.it_value.tv_sec || left.it_value.tv_nsec)
		return;
	host_tick();
}

/* Runs the calls other CPUs posted to this one.  Interrupts off. */
static void run_calls(struct host_cpu *me)
{
	unsigned long pending = __atomic_exchange_n(&me->calls_pending, 0, __ATOMIC_ACQUIRE);
	unsigned int src;

	for (src = 0; pending; src++, pending >>= 1) {
		struct call_data *d = &calls[src];
		smp_call_func_t fn;
		void *info;

		if (!(pending & 1))
			continue;
		fn = __atomic_load_n(&d->fn, __ATOMIC_ACQUIRE);
		info = __atomic_load_n(&d->info, __ATOMIC_RELAXED);
		__atomic_fetch_add(&d->taken, 1, __ATOMIC_RELEASE);
		fn(info);
		__atomic_fetch_add(&d->done, 1, __ATOMIC_RELEASE);
	}
}

/* One interrupt entry: the tick if due, then the calls; interrupts off. */
static void host_interrupt(void)
{
	struct host_cpu *me = &cpus[host_cpu_id];
	unsigned int usec;

	irq_depth++;
	if (__atomic_exchange_n(&me->tick_due, 0, __ATOMIC_ACQUIRE)) {
		timer_tick();
		usec = __atomic_load_n(&tick_usec, __ATOMIC_RELAXED);
		if (usec)
			arm_tick(me, usec);
	}
	run_calls(me);
	irq_depth--;
}

static int work_waits(struct host_cpu *me)
{
	return __atomic_load_n(&me->tick_due, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&me->calls_pending, __ATOMIC_RELAXED);
}

void host_run_pending_irq(void)
{
	struct host_cpu *me = &cpus[host_cpu_id];

	while (!host_irqs_off && (host_irq_pending || work_waits(me))) {
		host_irqs_off = 1;	/* from here no signal handler runs one */
		host_irq_pending = 0;
		host_interrupt();
		host_irqs_off = 0;
	}
}

/* cpu_relax()'s part: take what is pending if interrupts are on, and
 * every 64 spins give the host CPU away (more CPU threads than host
 * cores: the lock holder may be waiting for this very core). */
void host_poll_irqs(void)
{
	if (!host_irqs_off && work_waits(&cpus[host_cpu_id]))
		host_run_pending_irq();
	if (++relax_count % 64 == 0)
		sched_yield();
}

/* Marks an interrupt pending on this CPU and runs it if interrupts are on. */
static void raise_here(void)
{
	host_irq_pending = 1;
	if (!host_irqs_off)
		host_run_pending_irq();
}

void host_tick(void)
{
	__atomic_store_n(&cpus[host_cpu_id].tick_due, 1, __ATOMIC_RELEASE);
	raise_here();
}

static void tick_signal(int sig)
{
	int saved = errno;

	(void)sig;
	host_tick();
	errno = saved;
}

static void ipi_signal(int sig)
{
	int saved = errno;

	(void)sig;
	raise_here();
	errno = saved;
}

static void install_handlers(void)
{
	static int done;
	struct sigaction sa;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = tick_signal;
	sigaction(SIG_TICK, &sa, NULL);
	sa.sa_handler = ipi_signal;
	sigaction(SIG_IPI, &sa, NULL);
}

/* Gives the calling thread its CPU number and its tick timer. */
static void cpu_setup(unsigned int cpu)
{
	struct host_cpu *c = &cpus[cpu];
	struct sigevent sev;

	host_cpu_id = cpu;
	host_percpu_offset = (unsigned long)cpu * ARCH_PERCPU_STRIDE;
	c->tid = (pid_t)syscall(SYS_gettid);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIG_TICK;
	sev._sigev_un._tid = c->tid;	/* sigev_notify_thread_id: newer glibc names it */
	if (timer_create(CLOCK_MONOTONIC, &sev, &c->tick_timer)) {
		perror("host: timer_create");
		exit(2);
	}
	c->has_timer = 1;
}

/* Wakes a CPU: its idle loop, and (with a signal) a busy thread. */
static void kick(unsigned int cpu)
{
	struct host_cpu *c = &cpus[cpu];

	pthread_mutex_lock(&c->idle_lock);
	pthread_cond_signal(&c->idle_wake);
	pthread_mutex_unlock(&c->idle_lock);
	pthread_kill(c->thread, SIG_IPI);
}

/* Work posted by smp_run_on_all_cpus(), or 0. */
static int work_posted(struct host_cpu *me, unsigned long *gen)
{
	*gen = __atomic_load_n(&me->work_gen, __ATOMIC_ACQUIRE);
	return *gen != __atomic_load_n(&me->done_gen, __ATOMIC_RELAXED);
}

static int should_stop(struct host_cpu *me)
{
	return __atomic_load_n(&me->stop, __ATOMIC_ACQUIRE);
}

/* An idle CPU: interrupts on; sleeps until work, an interrupt or the end. */
static void *cpu_thread(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;
	struct host_cpu *me = &cpus[cpu];
	unsigned long gen;
	unsigned int usec;

	cpu_setup(cpu);
	usec = __atomic_load_n(&tick_usec, __ATOMIC_RELAXED);
	if (usec)
		arm_tick(me, usec);
	__atomic_store_n(&host_nr_online, cpu + 1, __ATOMIC_RELEASE);
	while (!should_stop(me)) {
		host_run_pending_irq();
		if (work_posted(me, &gen)) {
			me->work_fn(me->work_arg);
			__atomic_store_n(&me->done_gen, gen, __ATOMIC_RELEASE);
			continue;
		}
		pthread_mutex_lock(&me->idle_lock);
		if (!work_waits(me) && !work_posted(me, &gen) && !should_stop(me)) {
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 1000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&me->idle_wake, &me->idle_lock, &until);
		}
		pthread_mutex_unlock(&me->idle_lock);
		recover_lost_tick(me);
	}
	if (me->has_timer)
		timer_delete(me->tick_timer);
	return NULL;
}

static void init_cpu_struct(unsigned int cpu)
{
	pthread_mutex_init(&cpus[cpu].idle_lock, NULL);
	pthread_cond_init(&cpus[cpu].idle_wake, NULL);
}

static void cpu0_setup(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	install_handlers();
	init_cpu_struct(0);
	cpus[0].thread = pthread_self();
	cpu_setup(0);
}

void host_smp_possible(unsigned int ncpus)
{
	if (ncpus < 1 || ncpus > NR_CPUS) {
		fprintf(stderr, "host: %u CPUs possible asked for, NR_CPUS is %d\n", ncpus, NR_CPUS);
		exit(2);
	}
	host_nr_possible = ncpus;
}

void host_smp_start(unsigned int ncpus)
{
	unsigned int cpu;

	if (ncpus > host_nr_possible) {
		fprintf(stderr, "host: %u CPUs asked for, %u possible (host_smp_possible())\n",
			ncpus, host_nr_possible);
		exit(2);
	}
	cpu0_setup();
	for (cpu = num_online_cpus(); cpu < ncpus; cpu++) {
		init_cpu_struct(cpu);
		if (pthread_create(&cpus[cpu].thread, NULL, cpu_thread, (void *)(uintptr_t)cpu)) {
			perror("host: pthread_create");
			exit(2);
		}
		while (num_online_cpus() <= cpu)
			sched_yield();
	}
}

void host_smp_stop(void)
{
	unsigned int cpu, n = num_online_cpus();

	for (cpu = 1; cpu < n; cpu++) {
		__atomic_store_n(&cpus[cpu].stop, 1, __ATOMIC_RELEASE);
		kick(cpu);
		pthread_join(cpus[cpu].thread, NULL);
	}
	__atomic_store_n(&host_nr_online, 1, __ATOMIC_RELEASE);
}

void host_start_ticks(unsigned int usec)
{
	unsigned int cpu;

	cpu0_setup();
	__atomic_store_n(&tick_usec, usec, __ATOMIC_RELAXED);
	sync_ticks = 0;
	for_each_online_cpu(cpu)
		arm_tick(&cpus[cpu], usec);
}

void host_stop_ticks(void)
{
	unsigned int cpu;

	__atomic_store_n(&tick_usec, 0, __ATOMIC_RELAXED);
	for_each_online_cpu(cpu)
		arm_tick(&cpus[cpu], 0);	/* a zero value disarms it */
	sync_ticks = 1;
}

int arch_smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	unsigned int me = smp_processor_id(), n = num_online_cpus(), cpu;
	struct call_data *d = &calls[me];
	int *counter = wait ? &d->done : &d->taken;

	__atomic_store_n(&d->taken, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->info, info, __ATOMIC_RELAXED);
	__atomic_store_n(&d->fn, fn, __ATOMIC_RELEASE);
	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		__atomic_fetch_or(&cpus[cpu].calls_pending, 1UL << me, __ATOMIC_RELEASE);
		kick(cpu);
	}
	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) != (int)n - 1)
		cpu_relax();
	/* the slot is reused only once every CPU has read it: wait for taken */
	while (__atomic_load_n(&d->taken, __ATOMIC_ACQUIRE) != (int)n - 1)
		cpu_relax();
	return 0;
}

unsigned int smp_run_on_all_cpus(smp_call_func_t fn, void *arg)
{
	unsigned int n = num_online_cpus(), cpu;
	unsigned long gen;

	if (smp_processor_id() != 0) {
		WARN_ON(smp_processor_id() != 0);	/* only CPU 0 posts work here */
		return 0;
	}
	for_each_online_cpu(cpu) {
		struct host_cpu *c = &cpus[cpu];

		if (!cpu)
			continue;
		gen = __atomic_load_n(&c->done_gen, __ATOMIC_RELAXED) + 1;
		c->work_fn = fn;
		c->work_arg = arg;
		__atomic_store_n(&c->work_gen, gen, __ATOMIC_RELEASE);
		kick(cpu);
	}
	fn(arg);
	for_each_online_cpu(cpu) {
		struct host_cpu *c = &cpus[cpu];

		while (__atomic_load_n(&c->done_gen, __ATOMIC_ACQUIRE) !=
		       __atomic_load_n(&c->work_gen, __ATOMIC_RELAXED))
			cpu_relax();
	}
	return n;
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --sync-ticks: waits until every other CPU has taken the tick it was
 * sent, at most SYNC_TICK_WAIT seconds, so that a CPU slow in an interrupt
 * slows the ticks down instead of missing them: a test waiting "ten
 * seconds of ticks" for another CPU then waits about as long as that. */
#define SYNC_TICK_WAIT	0.01
static void wait_others_ticked(void)
{
	double end = seconds_now() + SYNC_TICK_WAIT;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		while (cpu != smp_processor_id() &&
		       __atomic_load_n(&cpus[cpu].tick_due, __ATOMIC_ACQUIRE) &&
		       seconds_now() < end)
			cpu_relax();
}

/* With a ticking timer, its ticks in a second; synchronous ticks come as
 * fast as the CPUs take them: HZ, as in the kernel. */
unsigned long ktest_ticks_per_second(void)
{
	unsigned int usec = __atomic_load_n(&tick_usec, __ATOMIC_RELAXED);

	return usec ? 1000000UL / usec : HZ;
}

/* The self-tests' wait: with a ticking timer, sleep until jiffies has
 * moved on; without one (--sync-ticks), tick every CPU that many times
 * (this one at once, the others as soon as they take the interrupt, each
 * tick after the others took the last) and then wait for CPU 0's ticks
 * to move jiffies. */
void ktest_wait_ticks(unsigned long ticks)
{
	unsigned long end = jiffies + ticks;
	struct timespec pause = { 0, 20000 };
	unsigned int cpu;

	if (sync_ticks) {
		while (ticks--) {
			for_each_online_cpu(cpu) {
				if (cpu == smp_processor_id())
					continue;
				__atomic_store_n(&cpus[cpu].tick_due, 1, __ATOMIC_RELEASE);
				kick(cpu);
			}
			host_tick();
			/* the others' ticks and ours stay in step */
			while (time_before(jiffies, end - ticks))
				cpu_relax();
			wait_others_ticked();
		}
		return;
	}
	while (time_before(jiffies, end)) {
		nanosleep(&pause, NULL);
		if (!host_irqs_off)
			recover_lost_tick(&cpus[host_cpu_id]);	/* CPU 0's ticks stalled too */
	}
}
