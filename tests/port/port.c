/* port.c - the worked example of docs/porting.md: a one-CPU "kernel" on a
 * Linux host that takes mm/ and one allocator and runs the API suite
 * (tests/mm/test_kmem_api.c) against it.
 *
 * It is built only against what the guide names: include/tiny/, the
 * allocator's files in mm/ (SLUB's with kernel/parse.c), kernel/timer.c and
 * kernel/ktest.c, and this directory's own glue (its include/arch/ and
 * config-ALLOC.h); never the i386 kernel's headers nor the host harness's
 * (tests/host).  What the guide's "What your kernel provides" lists is
 * here, in its order.
 *
 * usage: port-kmem-api    (exit status 0 if every case passed)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <tiny/kernel.h>
#include <tiny/console.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/timer.h>

#define PORT_RAM_BYTES	(16UL << 20)

/* ---- messages and reports ------------------------------------------------ */

int console_loglevel = 7;
unsigned long reports_printed, reports_expected_until;

/* fmt with each "%pS" (a code address, printed by the kernel's vsnprintf
 * as a symbol) made "%p": the C library's printf would print the pointer
 * and then a stray "S".  Formats longer than the buffer are cut. */
static const char *c_library_format(const char *fmt, char *buf, size_t len)
{
	size_t n = 0;

	while (*fmt && n + 1 < len) {
		buf[n++] = *fmt;
		if (fmt[0] == '%' && fmt[1] == 'p' && fmt[2] == 'S') {
			buf[n++] = 'p';
			fmt += 3;
			continue;
		}
		fmt++;
	}
	buf[n] = 0;
	return buf;
}

int vprintk(const char *fmt, va_list args)
{
	int level = printk_level(&fmt), n;
	char buf[256];

	fmt = c_library_format(fmt, buf, sizeof(buf));
	if (level > console_loglevel)
		return vsnprintf(NULL, 0, fmt, args);
	n = vprintf(fmt, args);
	fflush(stdout);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vprintk(fmt, args);
	va_end(args);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list args;

	printf("Kernel panic - not syncing: ");
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
	exit(2);
}

void __warn(const char *file, int line, const char *cond)
{
	const char *mark = count_report();

	printk(KERN_WARNING "WARNING: at %s:%d: %s%s\n", file, line, cond, mark);
}

void __bug(const char *file, int line, const char *cond)
{
	count_report();
	printk(KERN_EMERG "kernel BUG at %s:%d: %s\n", file, line, cond);
	panic("BUG");
}

/* ---- interrupts: the timer tick ------------------------------------------ */

volatile unsigned long port_irqs_off;
static int tick_pending, in_tick;

int in_interrupt(void)
{
	return in_tick;
}

/* One timer interrupt: jiffies and the timers (kernel/timer.c), with
 * interrupts off, as a CPU takes it. */
static void tick(void)
{
	unsigned long flags;

	local_irq_save(flags);
	in_tick = 1;
	timer_tick();
	in_tick = 0;
	local_irq_restore(flags);
}

void port_run_pending_tick(void)
{
	if (tick_pending && !in_tick) {
		tick_pending = 0;
		tick();
	}
}

/* The ticks come when a case waits for them: one each, at once, or when
 * interrupts are on again. */
void ktest_wait_ticks(unsigned long ticks)
{
	while (ticks--) {
		tick_pending = 1;
		if (!port_irqs_off)
			port_run_pending_tick();
	}
}

unsigned long ktest_ticks_per_second(void)
{
	return HZ;
}

/* Nobody types Ctrl-C here. */
int console_interrupted(void)
{
	return 0;
}

/* ---- memory ---------------------------------------------------------------- */

/* PORT_RAM_BYTES of "RAM" at an address aligned to the largest buddy block,
 * as physical memory is: the page allocator merges blocks by address. */
static struct mem_region port_ram(void)
{
	unsigned long align = PAGE_SIZE << (MAX_ORDER - 1);
	char *p = mmap(NULL, PORT_RAM_BYTES + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long start;

	if (p == MAP_FAILED)
		panic("port: no memory for the page allocator");
	start = ALIGN((unsigned long)p, align);
	return (struct mem_region){ start, start + PORT_RAM_BYTES };
}

int main(void)
{
	struct mem_region ram = port_ram();
	unsigned long flags;

	if (page_alloc_init(&ram, 1, NULL, 0))
		panic("port: page_alloc_init failed");
	local_irq_save(flags);		/* boot: interrupts off */
	kmem_cache_init();
	local_irq_restore(flags);
	kmem_cache_init_late();		/* timers work now */
	printk("port: %s on %lu pages\n", kmem_allocator_name, totalram_pages());
	return ktest_run("kmem_api") ? 1 : 0;
}
