/* smp.c - cross-CPU calls (IPIs), the APs' idle loop, stopping CPUs.
 *
 * smp_call_function(): one call at a time (call_lock); the caller fills a
 * call block on its stack, sends CALL_FUNCTION_VECTOR to every other
 * online CPU and waits until each has taken the block (started) and,
 * with wait, until each has run it (finished).  A CPU that takes more
 * than CALL_TIMEOUT_MS is a lockup: panic names it.
 *
 * smp_run_on_all_cpus(): work for the APs' idle loops.  The caller
 * publishes fn/arg under a new generation number, wakes the APs with
 * WAKEUP_VECTOR, runs fn itself, and waits for every AP to report done.
 * Each AP runs it in process context with interrupts on, so all CPUs
 * truly run it at once.
 *
 * smp_stop_other_cpus(): an NMI to every other CPU, which then halts for
 * good (smp_stop_this_cpu()); even a CPU spinning with interrupts off
 * stops.  The caller waits until none is online but itself, or the
 * timeout.
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>
#include <tiny/smp.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>
#include <asm/apic.h>
#include <asm/smpboot.h>
#include <asm/desc.h>
#include <asm/processor.h>

#define CALL_TIMEOUT_MS	10000

struct call_block {
	smp_call_func_t fn;
	void *info;
	int wait;
	unsigned int started, finished;	/* CPUs that took / ran it (atomic) */
};

static DEFINE_SPINLOCK(call_lock);
static struct call_block *volatile call_current;

static struct {
	smp_call_func_t fn;
	void *arg;
	unsigned int generation;	/* odd while work is published */
	unsigned int done;		/* APs finished with this generation */
} run_work;
static DEFINE_SPINLOCK(run_lock);

static int stopping;
static unsigned int delay_stop_cpu;	/* test aid: this CPU stops ... */
static unsigned long delay_stop_ms;	/* ... this late */

static int delay_stop_setup(const char *val)
{
	return parse_cpu_ms(val, &delay_stop_cpu, &delay_stop_ms);
}
kernel_param("smp_delay_stop", delay_stop_setup,
	     "=CPU,MS: that CPU takes MS ms to stop when panic() stops the CPUs (to see "
	     "panic() wait for it, at most 3000 ms)");

static unsigned int load(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void inc(unsigned int *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
}

/* Sends vector (or an NMI) to every other online CPU; returns how many. */
static unsigned int ipi_others(u32 icr)
{
	unsigned int cpu, n = 0, me = smp_processor_id();

	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		if (apic_send_ipi(x86_cpus[cpu].apic_id, icr))
			pr_err("smp: CPU %u's APIC did not accept IPI %#x\n", cpu, icr);
		n++;
	}
	return n;
}

/* Spins until *count reaches n; panics naming the lockup after the timeout. */
static void wait_count(unsigned int *count, unsigned int n, const char *what)
{
	u64 end = rdtsc() + (u64)tsc_khz * CALL_TIMEOUT_MS;

	while (load(count) < n) {
		if (rdtsc() > end)
			panic("smp: %u of %u CPUs %s a cross-CPU call within %d ms",
			      n - load(count), n, what, CALL_TIMEOUT_MS);
		cpu_relax();
	}
}

int arch_smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	struct call_block b = { fn, info, wait, 0, 0 };
	unsigned int n;

	spin_lock(&call_lock);	/* interrupts stay on: we may be called meanwhile */
	call_current = &b;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	n = ipi_others(ICR_FIXED | CALL_FUNCTION_VECTOR);
	wait_count(&b.started, n, "did not take");
	if (wait)
		wait_count(&b.finished, n, "did not finish");
	call_current = NULL;
	spin_unlock(&call_lock);
	return 0;
}

/* CALL_FUNCTION_VECTOR: interrupt context, interrupts off. */
void smp_call_function_interrupt(void)
{
	struct call_block *b = call_current;
	smp_call_func_t fn;
	void *info;
	int wait;

	if (!b)
		return;		/* a late duplicate: the call is over */
	fn = b->fn;
	info = b->info;
	wait = b->wait;
	this_cpu()->calls++;
	inc(&b->started);	/* without wait, b may vanish from here on */
	fn(info);
	if (wait)
		inc(&b->finished);
}

/* Runs the published work if this CPU has not run this generation yet. */
static int run_pending_work(struct x86_cpu *c)
{
	unsigned int gen = load(&run_work.generation);
	smp_call_func_t fn;
	void *arg;

	if (!(gen & 1) || c->run_seen == gen)
		return 0;
	c->run_seen = gen;
	fn = run_work.fn;
	arg = run_work.arg;
	local_irq_enable();
	fn(arg);
	inc(&run_work.done);
	return 1;
}

void smp_idle_loop(void)
{
	struct x86_cpu *c = this_cpu();

	for (;;) {
		local_irq_disable();
		if (run_pending_work(c))
			continue;
		safe_halt();	/* sti; hlt: a wake-up IPI cannot slip between */
	}
}

unsigned int smp_run_on_all_cpus(smp_call_func_t fn, void *arg)
{
	unsigned int n;

	spin_lock(&run_lock);
	run_work.fn = fn;
	run_work.arg = arg;
	__atomic_store_n(&run_work.done, 0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&run_work.generation, 1, __ATOMIC_SEQ_CST);	/* now odd */
	n = ipi_others(ICR_FIXED | WAKEUP_VECTOR);
	fn(arg);
	while (load(&run_work.done) < n)
		cpu_relax();
	__atomic_add_fetch(&run_work.generation, 1, __ATOMIC_SEQ_CST);	/* even: none */
	spin_unlock(&run_lock);
	return n + 1;
}

/* Other CPUs still online. */
static unsigned int others_online(void)
{
	unsigned int cpu, n = 0;

	for_each_online_cpu(cpu)
		n += cpu != smp_processor_id();
	return n;
}

unsigned int smp_stop_other_cpus(unsigned long timeout_ms)
{
	u64 end = rdtsc() + (u64)tsc_khz * timeout_ms;

	if (!apic_usable)
		return others_online();
	__atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
	ipi_others(ICR_NMI);
	while (others_online() && rdtsc() < end)
		cpu_relax();
	return others_online();
}

void smp_stop_this_cpu(void)
{
	struct x86_cpu *c = this_cpu();

	local_irq_disable();
	if (c->cpu == delay_stop_cpu)
		mdelay(delay_stop_ms);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	if (__atomic_exchange_n(&c->state, CPU_STOPPED, __ATOMIC_SEQ_CST) == CPU_ONLINE)
		__atomic_sub_fetch(&nr_online_cpus, 1, __ATOMIC_SEQ_CST);
	for (;;)
		halt();		/* an NMI may still come; it finds this CPU stopped */
}

void smp_nmi_stop_check(void)
{
	if (__atomic_load_n(&stopping, __ATOMIC_SEQ_CST))
		smp_stop_this_cpu();
}
