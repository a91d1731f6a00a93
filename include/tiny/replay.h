/* replay.h - replaying a recorded allocation trace against the allocator.
 *
 * scripts/trace2replay converts an ftrace log of kmalloc, kfree,
 * kmem_cache_alloc and kmem_cache_free events into this binary format
 * (all fields little-endian):
 *
 *   header   struct replay_header (32 bytes)
 *   caches   nr_caches x struct replay_cache (32 bytes each)
 *   ops      nr_ops x struct replay_op (8 bytes each)
 *
 * Every live object occupies a slot (0 .. nr_slots-1) from its
 * allocation to its free; the converter hands out the lowest free slot, so
 * nr_slots is the peak number of live objects.  A TIME op carries the
 * trace's clock (microseconds since its first event): the replay runs on
 * that clock, advancing jiffies and running timers (the SLOB shrinker, the
 * SLAB reaper) when the traced kernel would have, which keeps the run
 * deterministic.
 */
#ifndef TINY_REPLAY_H
#define TINY_REPLAY_H

#include <tiny/types.h>

#define REPLAY_MAGIC		"TSRP"
#define REPLAY_VERSION		1

struct replay_header {
	char magic[4];		/* "TSRP" */
	u32 version;		/* REPLAY_VERSION */
	u32 nr_caches;
	u32 nr_ops;
	u32 nr_slots;		/* peak live objects */
	u32 nr_allocs;		/* KMALLOC + CACHE_ALLOC ops */
	u32 nr_frees;		/* FREE ops */
	u32 duration_us;	/* the trace's span */
};

struct replay_cache {
	u32 object_size;
	u32 align;		/* 0 = the allocator's default */
	char name[24];		/* NUL-terminated */
};

enum replay_opcode {
	REPLAY_KMALLOC = 0,	/* arg = size in bytes */
	REPLAY_CACHE_ALLOC = 1,	/* arg = cache index */
	REPLAY_FREE = 2,	/* arg = 0; frees the object in slot */
	REPLAY_TIME = 3,	/* arg = microseconds since the trace began; slot = 0 */
};

#define REPLAY_MAX_CACHES	0xfffeu		/* 0xffff means "no cache" */
#define REPLAY_MAX_SLOTS	(1u << 24)	/* the range of an op's slot field */

#define REPLAY_OP_MASK		0x3u
#define REPLAY_FLAG_ZERO	0x4u	/* the caller asked for zeroed memory */
#define REPLAY_SLOT_SHIFT	8

struct replay_op {
	u32 code;		/* opcode | flags | slot << REPLAY_SLOT_SHIFT */
	u32 arg;
};

#define REPLAY_SAMPLES		256	/* footprint samples kept over a run */

struct replay_sample {
	u32 op;			/* index of the op after which it was taken */
	u32 held_pages;		/* pages the object allocator held */
	u32 live_bytes;		/* bytes requested by the live objects */
};

struct replay_result {
	unsigned long ops, allocs, frees, failures, corruptions;
	unsigned long largest_refused;		/* bytes of the largest failed allocation */
	unsigned long injected;		/* of the failures, those fault injection made */
	unsigned long too_large;	/* of the others, requests larger than any block */
	unsigned long long peak_live_bytes;
	unsigned long peak_live_objects;
	unsigned long held_pages_at_peak;	/* Slab pages when live bytes peaked */
	unsigned long max_held_pages;
	unsigned long memfree_at_peak;		/* pages */
	unsigned long memfree_end;		/* pages, after the periodic reclaim ran */
	unsigned long held_pages_end;
	unsigned long held_pages_after_free_all;
	unsigned long long alloc_cycles, free_cycles;
	unsigned long nr_samples;
	struct replay_sample samples[REPLAY_SAMPLES];
};

/* What a run prints beside its summary: a person at the console sees the
 * summary and a progress line; the scripts ask for the data they parse
 * (the "replay=data" option, the console's "replay data"). */
#define REPLAY_PROGRESS		0x1	/* "replay: running 10% 20% ... done" */
#define REPLAY_DATA		0x2	/* the allocator's report at the end of the trace,
					 * the replay-sample: lines and the calls'
					 * distribution (replay-calls:, -hist:, -slowest:) */
#define REPLAY_MAP		0x4	/* the heap map (kmem_heap_map()) at each step of
					 * the progress line and at its end ("replay map") */
extern unsigned int replay_output;
/* replay_run() prints, after operation replay_map_op (0 is the first, time
 * ops included), the pages held, the live bytes, the bytes cached by the
 * per-CPU layers (kmem_cached_bytes()) and the heap map: the
 * "replay_map_at=" boot option; scripts/compare passes the operation of
 * the peak of live bytes.  ~0UL (the default): nowhere. */
extern unsigned long replay_map_op;

/*
 * Checks the trace at data (len bytes) and replays it: every object is
 * filled with a pattern when allocated and checked when freed.  Returns 0
 * if the run was clean, -1 if the trace is malformed (reported), -2 if
 * Ctrl-C stopped it (every object is freed all the same), and 1 if there
 * were allocation failures or corruption (counted in res).  Runs with
 * interrupts off, driving timers from the trace's clock.
 */
int replay_run(const void *data, size_t len, struct replay_result *res);
/* Prints the report of a run. */
void replay_report(const struct replay_result *res, const char *trace_name);
/* The soak (kernel/replay_soak.c): every boot module's trace replayed
 * once a round for rounds rounds on this allocator, what each leaves live
 * kept for three rounds; a "soak-round:" line after every round.  0 if
 * every round was clean, 1 on failures, corruption or a validator's
 * report, -1 if a trace is malformed, -2 after Ctrl-C. */
int replay_soak(unsigned long rounds);
/* Replays the first boot module (the "replay" command and boot option)
 * with the progress line; output may add REPLAY_DATA (what the scripts
 * parse) and REPLAY_MAP (the heap map at each step). */
int replay_from_boot_module(unsigned int output);

#endif /* TINY_REPLAY_H */
