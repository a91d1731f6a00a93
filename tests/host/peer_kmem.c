/* peer_kmem.c - the kernel allocator API on a user-space malloc, so that
 * the benchmark's replay (kernel/replay.c, driven by bench_replay.c) runs
 * unchanged against glibc malloc, jemalloc or mimalloc.
 *
 * The peer comes from a header force-included by the Makefile
 * (peer_glibc.h, peer_jemalloc.h, peer_mimalloc.h): PEER_NAME,
 * PEER_FOOTPRINT and peer_malloc(), peer_calloc(), peer_free(),
 * peer_usable_size(), peer_footprint().  The trace's ops map as a kernel
 * built on that malloc would make them:
 *   kmalloc(size)             -> peer_malloc(size)
 *   kmem_cache_alloc(cache)   -> peer_malloc(the cache's object size)
 *   either with __GFP_ZERO    -> peer_calloc(size) (the allocator zeroes,
 *                                as the allocators do inside their call)
 *   kfree, kmem_cache_free    -> peer_free()
 *   ksize                     -> peer_usable_size()
 * The replay fills and checks every object exactly as for the allocators.
 * The "Slab" figures of the replay's report are the peer's footprint
 * (peer_footprint(), in pages rounded up), taken at the same moments.
 * Nothing else the harness needs comes from the peer: the trace, the
 * replay's tables and stdout's buffer live in mmap()ed memory, backed
 * before the replay starts.
 *
 * Also here: the rest of what the replay and kernel/timer.c call in the
 * kernel (printk, the interrupt flag, pages for the tables) and the
 * host.h calls bench_replay.c makes.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiny/kernel.h>
#include <tiny/irqflags.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"

struct kmem_cache {
	size_t size;
};

const char kmem_allocator_name[] = PEER_NAME;
/* One CPU, no interrupts: the harness's per-CPU state, never raised. */
__thread volatile sig_atomic_t host_irqs_off;
__thread volatile sig_atomic_t host_irq_pending;
__thread unsigned int host_cpu_id;
__thread unsigned long host_percpu_offset;
unsigned int host_nr_online = 1;
/* Locks as in tests/host/smp.c: test-and-set (kernel/timer.c takes them;
 * their waits are kernel/spinlock_wait.c). */
int arch_spin_tas = 1;
static long rss_start_kb = -1;	/* VmRSS when the replay started */

/* ---- the allocator API ----------------------------------------------------- */

void *kmalloc(size_t size, gfp_t flags)
{
	return (flags & __GFP_ZERO) ? peer_calloc(size) : peer_malloc(size);
}

void kfree(const void *obj)
{
	peer_free((void *)obj);
}

size_t ksize(const void *obj)
{
	return obj ? peer_usable_size((void *)obj) : 0;
}

/* A cache is only its object size; alignments beyond what malloc() gives
 * are refused (NULL: the replay counts the cache's objects as failures). */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned long flags, kmem_cache_ctor_t ctor,
				     kmem_cache_ctor_t dtor)
{
	struct kmem_cache *c;

	if (align > __alignof__(max_align_t) || ctor || dtor) {
		printk("peer: cache %s: alignment %zu or a constructor: not supported\n", name,
		       align);
		return NULL;
	}
	c = peer_malloc(sizeof(*c));
	if (c)
		c->size = size;
	return c;
}

int kmem_cache_destroy(struct kmem_cache *cache)
{
	peer_free(cache);
	return 0;
}

void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t flags)
{
	return (flags & __GFP_ZERO) ? peer_calloc(cache->size) : peer_malloc(cache->size);
}

void kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	peer_free(obj);
}

extern int bench_sample_footprint;	/* bench_replay --no-footprint clears it */

/* The footprint in pages, rounded up; 0 with bench_replay --no-footprint,
 * for the timed and the callgrind runs: the replay samples the footprint
 * at every new peak of live bytes (43,194 in the shipped trace), and
 * jemalloc's statistics refresh there made its allocations 1.6 times
 * slower, and takes a minute and more under callgrind. */
void kmem_get_stats(struct kmem_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (bench_sample_footprint)
		stats->slab_pages = (peer_footprint() + PAGE_SIZE - 1) / PAGE_SIZE;
}

/* What a malloc() keeps in its thread caches is its own business: it
 * tells nobody, so the replay's line at the peak says 0. */
unsigned long kmem_cached_bytes(void)
{
	return 0;
}

/* The peer's figures are one measure: pages and bytes alike. */
void kmem_get_pages(struct kmem_stats *stats)
{
	kmem_get_stats(stats);
}

/* One "NAME: N kB" field of /proc/self/status; -1 if absent. */
static long status_kb(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			kb = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}

/* Anonymous resident pages of the process (statm: resident - shared, the
 * shared ones being file-backed); 0 if unreadable. */
static unsigned long anon_resident_pages(void)
{
	char buf[128];
	unsigned long size, resident, shared;
	int fd = open("/proc/self/statm", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3 || shared > resident)
		return 0;
	return resident - shared;
}

static unsigned long anon_start_pages;	/* when the replay started */

size_t anon_resident_growth(void)
{
	unsigned long now = anon_resident_pages();

	return now > anon_start_pages ? (now - anon_start_pages) * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* The replay calls this once, just before its first op: the peer has
 * nothing to give back, and the host's resident-memory counts start
 * here (the high-water mark reset, where the kernel allows it). */
unsigned long kmem_reclaim(void)
{
	int fd;

	if (rss_start_kb < 0) {
		fd = open("/proc/self/clear_refs", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "5", 1) != 1)
				printk("peer: could not reset VmHWM\n");
			close(fd);
		}
		rss_start_kb = status_kb("VmRSS");
		anon_start_pages = anon_resident_pages();
	}
	return 0;
}

/* The replay's end-of-trace report: the footprint now, and how far the
 * process's resident memory grew over the replay. */
void kmem_report(void)
{
	long hwm = status_kb("VmHWM");

	printk("peer: %s; footprint (%s) now %zu kB\n", PEER_NAME, PEER_FOOTPRINT,
	       peer_footprint() / 1024);
	if (hwm >= 0 && rss_start_kb >= 0)
		printk("peer: resident memory grew by %ld kB at most (VmHWM - VmRSS at the "
		       "start)\n", hwm - rss_start_kb);
}

/* "replay map" (never asked on the host): a malloc() keeps no map of its
 * pages to draw. */
void kmem_heap_map(void)
{
	printk("peer: %s has no heap map\n", PEER_NAME);
}

/* ---- what else the replay and the timers call ------------------------------ */

/* The reports the bench counts (bench_replay.c): a malloc() prints none. */
unsigned long reports_printed;

int vprintk(const char *fmt, va_list args)
{
	int n;

	printk_level(&fmt);	/* every level is printed */
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

void __warn(const char *file, int line, const char *cond)
{
	printk("WARNING: at %s:%d: %s\n", file, line, cond);
}

void __bug(const char *file, int line, const char *cond)
{
	printk("kernel BUG at %s:%d: %s\n", file, line, cond);
	abort();
}

void host_run_pending_irq(void)
{
	host_irq_pending = 0;	/* nothing raises interrupts here */
}

void host_poll_irqs(void)
{
}

/* Backed anonymous memory for the replay's tables; 0 on failure. */
unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	memset(p, 0, bytes);
	return (unsigned long)(uintptr_t)p;
}

void free_pages(unsigned long addr, unsigned int order)
{
	munmap((void *)(uintptr_t)addr, PAGE_SIZE << order);
}

void page_alloc_sort_free_lists(void)
{
}

unsigned long nr_free_pages(void)
{
	return 0;	/* no page allocator: the report's MemFree reads 0 */
}

unsigned long totalram_pages(void)
{
	return 0;
}

/* ---- host.h --------------------------------------------------------------- */

void host_mm_init(unsigned long mb)
{
}

void host_mm_init_layout(const char *spec)
{
}

/* The file in backed anonymous memory (not the peer's heap); exits on
 * failure. */
void *host_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;
	size_t done = 0;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		exit(2);
	}
	buf = mmap(NULL, st.st_size ? (size_t)st.st_size : 1, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror(path);
		exit(2);
	}
	while (done < (size_t)st.st_size && (n = read(fd, buf + done, st.st_size - done)) > 0)
		done += (size_t)n;
	close(fd);
	if (done != (size_t)st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		exit(2);
	}
	*len = done;
	return buf;
}

/* kernel/replay.c asks the console whether Ctrl-C was typed; there is no
 * console here. */
int console_interrupted(void)
{
	return 0;
}
