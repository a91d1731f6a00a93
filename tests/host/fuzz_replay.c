/* fuzz_replay.c - libFuzzer target for the replay-file parser: each input
 * is a replay module, given to kernel/replay.c's replay_run() exactly as
 * the kernel gives it a boot module (page-aligned, whole).
 *
 * Whatever the bytes, the run must refuse them with a message (-1) or
 * replay them, and leave everything as it found it: no crash or sanitizer
 * report, both validators clean, and after a reclaim the allocator holds
 * the pages it held before and the page allocator has as many free (the
 * replay frees every object and destroys its caches).  Inputs are capped
 * at 64 KiB and their TIME ops cover at most 2^32 us of virtual time, so
 * each runs in well under a second.  tests/host/corpus-replay holds crafted
 * headers (overflowing slot and cache counts, bad lengths, names, ops) and
 * small valid traces; "make test" replays them, "make fuzz" grows them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/printk.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include "host.h"

#define MAX_INPUT	(64 * 1024)

static unsigned long baseline_pages, baseline_free;
static struct replay_result result;	/* large: keep it off the stack */

static unsigned long held_pages(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	return st.slab_pages + st.large_pages;
}

static void fail(const char *what)
{
	console_loglevel = 7;
	fprintf(stderr, "fuzz_replay: %s: allocator holds %lu pages (was %lu), %lu free (was %lu)\n",
		what, held_pages(), baseline_pages, nr_free_pages(), baseline_free);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	host_mm_init(16);
	console_loglevel = 2;	/* refusals and replay reports stay quiet */
	kmem_reclaim();
	baseline_pages = held_pages();
	baseline_free = nr_free_pages();
	return 0;
}

static unsigned long refused, replayed;

/* fuzz_main.c's closing line: how the inputs ended. */
void fuzz_summary(void)
{
	printf("fuzz_replay: %lu inputs refused as malformed, %lu replayed\n", refused, replayed);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	void *module;
	int ret;

	if (size > MAX_INPUT)
		return 0;
	module = aligned_alloc(PAGE_SIZE, PAGE_ALIGN(size ? size : 1));
	if (!module)
		abort();
	memcpy(module, data, size);
	ret = replay_run(module, size, &result);
	free(module);
	if (ret == -1)
		refused++;
	else
		replayed++;
	if (ret < -1 || ret > 1)
		fail("replay_run returned an undocumented value");
	if (result.corruptions)
		fail("the replay saw an object's contents change");
	if (kmem_validate() || page_alloc_validate())
		fail("a validator found damage");
	kmem_reclaim();
	if (held_pages() != baseline_pages || nr_free_pages() != baseline_free)
		fail("leak");
	return 0;
}
