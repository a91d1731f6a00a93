/* bench_replay.c - the trace replay of the kernel, on the host, timed.
 *
 * usage: bench_replay [--mem MB | --layout SPEC] [--count alloc|free] TRACE.replay
 * Runs kernel/replay.c on the same mm/ code as the kernel (build it -m32 to
 * get the kernel's object sizes), prints the kernel's replay report, and
 * adds what the host can measure better: nanoseconds per allocation and
 * per free (TSC cycles of the replay, converted with a TSC rate measured
 * against CLOCK_MONOTONIC during the run).  Instructions per operation
 * come from the callgrind build (bench-cg) run under callgrind with
 * --collect-atstart=no: --count picks whether the allocations or the frees
 * are counted (scripts/bench).
 * With --layout (the "replay-layout:" line of a kernel replay) the page
 * allocator starts in the kernel's state and the footprint figures must
 * come out exactly as the kernel's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <arch/timex.h>
#include "host.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct replay_result res;
int host_measure_mask;

int main(int argc, char **argv)
{
	unsigned long mb = 32;
	const char *path = NULL, *layout = NULL;
	double t0, t1, ghz;
	u64 c0, c1;
	size_t len;
	void *data;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mem") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--layout") && i + 1 < argc)
			layout = argv[++i];
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			host_measure_mask = !strcmp(argv[++i], "alloc") ? MEASURE_ALLOC : MEASURE_FREE;
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			fprintf(stderr, "usage: %s [--mem MB | --layout SPEC] [--count alloc|free] "
				"TRACE.replay\n", argv[0]);
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: %s [--mem MB | --layout SPEC] [--count alloc|free] "
			"TRACE.replay\n", argv[0]);
		return 2;
	}
	data = host_read_file(path, &len);
	if (layout)
		host_mm_init_layout(layout);
	else
		host_mm_init(mb);
	t0 = now_ns();
	c0 = get_cycles();
	r = replay_run(data, len, &res);
	c1 = get_cycles();
	t1 = now_ns();
	if (r < 0)
		return 1;
	replay_report(&res, path);
	ghz = (double)(c1 - c0) / (t1 - t0);
	printf("bench: TSC %.3f GHz; ns per op: alloc %.1f, free %.1f\n", ghz,
	       res.allocs ? res.alloc_cycles / ghz / res.allocs : 0.0,
	       res.frees ? res.free_cycles / ghz / res.frees : 0.0);
	printf("bench: MemTotal %lu kB\n", totalram_pages() << (PAGE_SHIFT - 10));
	printf("replay: %s\n", r == 0 ? "PASS" : "FAIL");
	free(data);
	return r;
}
