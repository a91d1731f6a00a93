/* host.c - the kernel services mm/ needs, provided on a Linux host.
 *
 * The host build compiles mm/ (and kernel/timer.c, kernel/ktest.c,
 * kernel/replay.c) unchanged; this file supplies what arch/ and the rest
 * of kernel/ give them in the kernel: printk, panic and BUG reports and
 * "physical" memory (one aligned host mapping, every page of it backed
 * before the allocators start).  The CPUs, their interrupt flags, timer
 * ticks and cross-CPU calls are in smp.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <tiny/console.h>
#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/timer.h>
#include "host.h"

int console_loglevel = 7;
unsigned long reports_printed, reports_expected_until;	/* kernel/panic.c's, which is not linked here */

/* ---- log, panic, BUG ------------------------------------------------------ */

int vprintk(const char *fmt, va_list args)
{
	unsigned long flags;
	int level = printk_level(&fmt), n;

	local_irq_save(flags);	/* no tick may print in the middle */
	if (level <= console_loglevel) {
		n = vprintf(fmt, args);
		fflush(stdout);
	} else {
		n = vsnprintf(NULL, 0, fmt, args);
	}
	local_irq_restore(flags);
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
	fflush(stdout);
	abort();
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

/* ---- memory --------------------------------------------------------------- */

/* Writes a zero into every host page of [start, start + size): the host
 * kernel then backs them all, and no first touch (a host page fault, some
 * microseconds) lands inside an allocator call that the benchmark times.
 * The contents stay zero, as mmap() gave them. */
static void prefault(unsigned long start, unsigned long size)
{
	long host_page = sysconf(_SC_PAGESIZE);
	volatile char *p = (volatile char *)(uintptr_t)start;
	unsigned long off;

	for (off = 0; off < size; off += (unsigned long)host_page)
		p[off] = 0;
}

/* Maps size bytes of host memory at an address aligned like physical
 * address 0 (to the largest buddy block), backed before it is used
 * (prefault()), and returns it. */
static unsigned long host_map(unsigned long size)
{
	unsigned long align = PAGE_SIZE << (MAX_ORDER - 1), base;
	char *map;

	map = mmap(NULL, size + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("host: mmap");
		exit(2);
	}
	base = ALIGN((unsigned long)(uintptr_t)map, align);
	prefault(base, size);
	return base;
}

static void start_allocators(const struct mem_region *ram, int nr_ram,
			     const struct mem_region *reserved, int nr_reserved)
{
	unsigned long flags;

	if (page_alloc_init(ram, nr_ram, reserved, nr_reserved)) {
		fprintf(stderr, "host: page_alloc_init failed\n");
		exit(2);
	}
	local_irq_save(flags);		/* as the kernel's boot calls it */
	kmem_cache_init();
	local_irq_restore(flags);
	kmem_cache_init_late();
}

/* Parses "a-b,c-d" (hex or decimal) into regions offset by base; returns
 * the count, or -1 if malformed. */
static int parse_ranges(const char *s, size_t len, unsigned long base,
			struct mem_region *r, int max)
{
	const char *end = s + len;
	char *p;
	int n = 0;

	while (s < end) {
		if (n == max)
			return -1;
		r[n].start = base + strtoul(s, &p, 0);
		if (*p != '-')
			return -1;
		r[n].end = base + strtoul(p + 1, &p, 0);
		n++;
		s = p;
		if (s < end && *s++ != ',')
			return -1;
	}
	return n;
}

void host_mm_init_layout(const char *spec)
{
	struct mem_region ram[32], reserved[32];
	const char *semi = strchr(spec, ';');
	unsigned long base, top = 0;
	int nr_ram, nr_reserved, i;

	if (strncmp(spec, "ram=", 4) || !semi || strncmp(semi, ";reserved=", 10))
		goto bad;
	nr_ram = parse_ranges(spec + 4, (size_t)(semi - spec - 4), 0, ram, 32);
	if (nr_ram <= 0)
		goto bad;
	for (i = 0; i < nr_ram; i++)
		top = max(top, ram[i].end);
	base = host_map(top);
	nr_ram = parse_ranges(spec + 4, (size_t)(semi - spec - 4), base, ram, 32);
	nr_reserved = parse_ranges(semi + 10, strlen(semi + 10), base, reserved, 32);
	if (nr_reserved < 0)
		goto bad;
	start_allocators(ram, nr_ram, reserved, nr_reserved);
	return;
bad:
	fprintf(stderr, "host: bad layout \"%s\" (want ram=A-B,...;reserved=C-D,...)\n", spec);
	exit(2);
}

void host_mm_init(unsigned long mb)
{
	struct mem_region ram;

	ram.start = host_map(mb << 20);
	ram.end = ram.start + (mb << 20);
	start_allocators(&ram, 1, NULL, 0);
}

void *host_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* kernel/replay.c asks the console whether Ctrl-C was typed; the host
 * harness has no console to type it at. */
int console_interrupted(void)
{
	return 0;
}
