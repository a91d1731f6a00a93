/* smpboot.c - starting the application processors.
 *
 * smp_detect() (boot CPU, early) lists the CPUs the firmware tables name
 * and enables the boot CPU's local APIC.  smp_boot_cpus() (once the page
 * allocator and the tick run) starts each AP in turn, as the Intel MP
 * specification prescribes: INIT (asserted, then deasserted), 10 ms, a
 * start-up IPI whose vector is the trampoline's page number, 200 us, a
 * second start-up IPI, 200 us.  The AP runs trampoline.S, then
 * ap_start_kernel() here on a stack of its own: it loads its own GDT,
 * TSS and double-fault task (gdt.c) with its per-CPU area, the shared
 * IDT, enables its local APIC and timer, claims itself online and idles
 * (smp.c) taking calls.  An AP that has not claimed itself online within
 * AP_TIMEOUT_MS is claimed failed by the boot CPU, reported, sent INIT
 * again (so that it cannot wake up later on a stale stack) and left out.
 *
 * The two claims race: an AP may answer just as the wait ends.  Each is a
 * compare-and-swap of the CPU's state from CPU_BOOTING, to CPU_ONLINE by
 * the AP or to CPU_FAILED by the boot CPU, so exactly one wins.  An AP
 * that loses parks itself (its timer masked, interrupts off, halted)
 * until the INIT comes; a boot CPU that loses counts the AP online after
 * all.  Only the boot CPU counts CPUs online (nr_online_cpus), after it
 * has seen the claim, so the count never includes a parked CPU.
 */
#include <tiny/kernel.h>
#include <tiny/boot.h>
#include <tiny/cmdline.h>
#include <tiny/mm.h>
#include <tiny/smp.h>
#include <tiny/string.h>
#include <tiny/timer.h>
#include <asm/apic.h>
#include <asm/firmware.h>
#include <asm/smpboot.h>
#include <asm/paging.h>
#include <asm/desc.h>
#include <asm/processor.h>

#define AP_STACK_PAGES	4		/* 16 KiB, as the boot stack */
#define AP_STACK_ORDER	3		/* the block the stack and its guard come from */
#define AP_TIMEOUT_MS	2000		/* multi-threaded TCG on a busy host is slow */
#define LOW_RAM_END	0xa0000UL	/* the trampoline must sit below it */
#define CPUID_APIC	(1u << 9)

struct x86_cpu x86_cpus[NR_CPUS] = { [0] = { .self = &x86_cpus[0] } };
unsigned int nr_online_cpus = 1;

/* What ap_entry32 (trampoline.S) loads for the AP being started. */
unsigned long ap_boot_cr0, ap_boot_cr3, ap_boot_cr4, ap_boot_stack;
static volatile unsigned int ap_boot_cpu;
static unsigned long trampoline_page;	/* physical, below 1 MiB; 0 if none */
static unsigned int max_cpus = NR_CPUS;
static unsigned int skip_sipi_cpu;	/* test aid: this CPU gets no start-up IPI */
static unsigned int delay_ap_cpu;	/* test aid: this CPU claims itself online ... */
static unsigned long delay_ap_ms;	/* ... this late */
static unsigned int nr_listed_cpus = 1;

extern const char trampoline_start[], trampoline_end[];
extern char boot_stack[], boot_stack_top[];

static int maxcpus_setup(const char *val)
{
	unsigned long n;
	int r = parse_ulong(val, 1, NR_CPUS, &n);

	if (r)
		return r;
	max_cpus = (unsigned int)n;
	return 0;
}
kernel_param("maxcpus", maxcpus_setup, "=N: start at most N CPUs (the boot CPU included)");

static int skip_sipi_setup(const char *val)
{
	unsigned long n;
	int r = parse_ulong(val, 1, NR_CPUS - 1, &n);

	if (r)
		return r;
	skip_sipi_cpu = (unsigned int)n;
	return 0;
}
kernel_param("smp_skip_sipi", skip_sipi_setup,
	     "=CPU: send that CPU no start-up IPI (to see one that does not answer)");

int parse_cpu_ms(const char *val, unsigned int *cpu, unsigned long *ms)
{
	char num[12];
	const char *comma = strchr(val, ',');
	unsigned long n, t;
	int r;

	if (!comma || (size_t)(comma - val) >= sizeof(num))
		return PARSE_BAD;
	memcpy(num, val, (size_t)(comma - val));
	num[comma - val] = '\0';
	r = parse_ulong(num, 1, NR_CPUS - 1, &n);
	if (!r)
		r = parse_ulong(comma + 1, 0, 60000, &t);
	if (r)
		return r;
	*cpu = (unsigned int)n;
	*ms = t;
	return 0;
}

static int delay_ap_setup(const char *val)
{
	return parse_cpu_ms(val, &delay_ap_cpu, &delay_ap_ms);
}
kernel_param("smp_delay_ap", delay_ap_setup,
	     "=CPU,MS: that CPU claims itself online MS ms late (to see an AP that answers "
	     "after the boot CPU gave up: the boot CPU then waits for its claim before the INIT)");

static int page_is_free_low_ram(unsigned long p)
{
	int i, in_ram = 0;

	for (i = 0; i < boot_info.nr_ram; i++)
		if (p >= boot_info.ram[i].start && p + PAGE_SIZE <= boot_info.ram[i].end)
			in_ram = 1;
	for (i = 0; i < boot_info.nr_reserved; i++)
		if (p < boot_info.reserved[i].end && p + PAGE_SIZE > boot_info.reserved[i].start)
			return 0;
	return in_ram;
}

void smp_reserve_trampoline(void)
{
	unsigned long p;

	firmware_save_bda();
	for (p = LOW_RAM_END - PAGE_SIZE; p >= PAGE_SIZE; p -= PAGE_SIZE)
		if (page_is_free_low_ram(p)) {
			trampoline_page = p;
			boot_reserve(p, p + PAGE_SIZE, "SMP trampoline");
			return;
		}
	pr_warn("smp: no free page of low RAM for the AP trampoline: one CPU\n");
}

void smp_detect(void)
{
	struct x86_cpu *c = &x86_cpus[0];
	u32 a, b, cx, d;

	c->stack_lo = (unsigned long)(uintptr_t)boot_stack;
	c->stack_hi = (unsigned long)(uintptr_t)boot_stack_top;
	cpuid(1, &a, &b, &cx, &d);
	c->apic_id = b >> 24;
	if (!(d & CPUID_APIC)) {
		pr_warn("smp: this CPU has no local APIC: one CPU, PIT tick\n");
		c->state = CPU_ONLINE;
		return;
	}
	nr_listed_cpus = firmware_find_cpus();
	if (!nr_listed_cpus) {
		nr_listed_cpus = 1;
		c->apic_id = b >> 24;
	}
	c->state = CPU_ONLINE;
	paging_set_uncached(apic_phys_base);
	apic_enable_this_cpu(1);
	apic_usable = 1;
	if (apic_read_id() != c->apic_id)
		pr_warn("smp: boot CPU's APIC id is %u, CPUID said %u\n", apic_read_id(), c->apic_id);
}

/* Moves c's state from CPU_BOOTING to to; nonzero if this call did it. */
static int claim(struct x86_cpu *c, int to)
{
	int booting = CPU_BOOTING;

	return __atomic_compare_exchange_n(&c->state, &booting, to, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/* Called by ap_entry32 on the AP's own stack, interrupts off. */
void ap_start_kernel(void)
{
	struct x86_cpu *c = &x86_cpus[ap_boot_cpu];

	gdt_init_cpu(c->cpu, c);
	idt_load();
	apic_enable_this_cpu(0);
	apic_timer_start();
	c->online_tsc = rdtsc();
	if (c->cpu == delay_ap_cpu)
		mdelay(delay_ap_ms);
	if (claim(c, CPU_ONLINE))
		smp_idle_loop();
	/* the boot CPU gave up on us: never run, wait for its INIT */
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | LOCAL_TIMER_VECTOR);
	__atomic_store_n(&c->answered_late, 1, __ATOMIC_RELEASE);
	for (;;)
		halt();
}

unsigned int num_possible_cpus(void)
{
	return nr_listed_cpus;
}

unsigned int smp_expected_cpus(void)
{
	return nr_listed_cpus < max_cpus ? nr_listed_cpus : max_cpus;
}

/* Sends INIT, then two start-up IPIs (MP specification, appendix B.4). */
static int send_init_sipi_sipi(unsigned int cpu, unsigned int apic_id)
{
	u32 vector = trampoline_page >> 12;
	int i, err;

	apic_write(APIC_ESR, 0);
	err = apic_send_ipi(apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
	mdelay(10);
	err |= apic_send_ipi(apic_id, ICR_INIT | ICR_LEVEL);
	if (cpu == skip_sipi_cpu) {
		pr_info("smp: smp_skip_sipi=%u: no start-up IPI for CPU %u\n", cpu, cpu);
		return err;
	}
	for (i = 0; i < 2 && !err; i++) {
		err |= apic_send_ipi(apic_id, ICR_STARTUP | vector);
		udelay(200);
	}
	return err;
}

/* Waits for the AP to claim itself online, at most AP_TIMEOUT_MS, then
 * claims it failed; returns 0 if the AP won, -1 if this CPU did. */
static int wait_online(struct x86_cpu *c)
{
	u64 end = rdtsc() + (u64)tsc_khz * AP_TIMEOUT_MS;

	while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) != CPU_ONLINE) {
		if (rdtsc() > end)
			return claim(c, CPU_FAILED) ? -1 : 0;
		cpu_relax();
	}
	return 0;
}

/* smp_delay_ap=: waits (at most its delay and a second) for the late AP
 * to find that it lost, so that the test sees the AP's side of the race. */
static void wait_for_late_claim(struct x86_cpu *c)
{
	u64 end = rdtsc() + (u64)tsc_khz * (delay_ap_ms + 1000);

	if (c->cpu != delay_ap_cpu)
		return;
	while (!__atomic_load_n(&c->answered_late, __ATOMIC_ACQUIRE) && rdtsc() < end)
		cpu_relax();
	if (c->answered_late)
		pr_info("smp: CPU %u answered after that and parked itself\n", c->cpu);
}

/* Gives CPU cpu a stack of AP_STACK_PAGES with an unmapped guard page
 * below it (an overflow double-faults with a report instead of corrupting
 * the page below): 0, or -1 reported.  The pages past the stack go back
 * to the page allocator.  Boot CPU, before any AP runs (paging_guard_page). */
static int alloc_guarded_stack(unsigned int cpu)
{
	struct x86_cpu *c = &x86_cpus[cpu];
	struct page *page = alloc_pages(GFP_KERNEL, AP_STACK_ORDER);
	unsigned long guard;

	if (!page) {
		pr_err("smp: no memory for CPU %u's stack: left out\n", cpu);
		return -1;
	}
	split_page_block(page, AP_STACK_ORDER, AP_STACK_PAGES + 1);
	guard = (unsigned long)(uintptr_t)page_address(page);
	if (paging_guard_page(guard))
		pr_warn("smp: no page table for CPU %u's stack guard: its stack is unguarded\n",
			cpu);
	c->stack_lo = guard + PAGE_SIZE;
	c->stack_hi = c->stack_lo + AP_STACK_PAGES * PAGE_SIZE;
	return 0;
}

static void boot_one_cpu(unsigned int cpu)
{
	struct x86_cpu *c = &x86_cpus[cpu];

	c->self = c;
	c->cpu = cpu;
	ap_boot_stack = c->stack_hi;
	ap_boot_cpu = cpu;
	c->state = CPU_BOOTING;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (send_init_sipi_sipi(cpu, c->apic_id))
		pr_err("smp: CPU %u (APIC id %u): the APIC did not accept the IPIs (ESR %#x)\n",
		       cpu, c->apic_id, apic_read(APIC_ESR));
	if (wait_online(c)) {
		pr_err("smp: CPU %u (APIC id %u) did not answer in %d ms: left out\n",
		       cpu, c->apic_id, AP_TIMEOUT_MS);
		wait_for_late_claim(c);
		apic_send_ipi(c->apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);	/* park it */
		return;		/* its stack stays allocated: it may have run on it */
	}
	__atomic_add_fetch(&nr_online_cpus, 1, __ATOMIC_SEQ_CST);
	pr_info("smp: CPU %u (APIC id %u) online\n", cpu, c->apic_id);
}

/* Gives the stack of a CPU that is not started back (guard page mapped
 * again, the pages to the page allocator). */
static void free_guarded_stack(struct x86_cpu *c)
{
	unsigned long guard = c->stack_lo - PAGE_SIZE, i;

	paging_unguard_page(guard);
	for (i = 0; i <= AP_STACK_PAGES; i++)
		free_page(guard + i * PAGE_SIZE);
	c->stack_lo = c->stack_hi = 0;
}

/* Every listed CPU gets its stack before any AP runs (the guard pages are
 * made while only this CPU has translations cached); one that has none
 * is reported and left out. */
static void prepare_cpus(void)
{
	unsigned int cpu;

	for (cpu = 1; cpu < NR_CPUS; cpu++)
		if (x86_cpus[cpu].state == CPU_LISTED && alloc_guarded_stack(cpu))
			x86_cpus[cpu].state = CPU_FAILED;
}

static unsigned long tsc_to_us(u64 cycles)
{
	return tsc_khz ? (unsigned long)(cycles * 1000 / tsc_khz) : 0;
}

void smp_boot_cpus(void)
{
	unsigned int cpu;
	u64 t0;

	pr_info("smp: %u CPU(s) listed by the firmware, boot CPU APIC id %u, NR_CPUS=%d\n",
		nr_listed_cpus, x86_cpus[0].apic_id, NR_CPUS);
	if (!apic_usable || nr_listed_cpus == 1 || !trampoline_page)
		return;
	memcpy((void *)(uintptr_t)trampoline_page, trampoline_start,
	       (size_t)(trampoline_end - trampoline_start));
	ap_boot_cr0 = read_cr0();
	ap_boot_cr3 = read_cr3();
	ap_boot_cr4 = read_cr4();
	t0 = rdtsc();
	prepare_cpus();
	for (cpu = 1; cpu < NR_CPUS; cpu++) {
		struct x86_cpu *c = &x86_cpus[cpu];

		if (c->state != CPU_LISTED)
			continue;
		if (num_online_cpus() >= max_cpus) {	/* counts only CPUs that came up */
			pr_info("smp: CPU %u (APIC id %u) left out: maxcpus=%u\n",
				cpu, c->apic_id, max_cpus);
			free_guarded_stack(c);
			continue;
		}
		boot_one_cpu(cpu);
	}
	pr_info("smp: %u of %u CPUs online; starting the APs took %lu us, "
		"all online %lu ms after the machine's reset (both by the TSC)\n",
		num_online_cpus(), nr_listed_cpus, tsc_to_us(rdtsc() - t0), tsc_to_us(rdtsc()) / 1000);
}
