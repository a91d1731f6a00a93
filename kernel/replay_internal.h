/* replay_internal.h - what kernel/replay.c shares with the soak
 * (kernel/replay_soak.c): a checked trace, its slot table and the steps of
 * a run.  Not a public header: <tiny/replay.h> is the interface. */
#ifndef KERNEL_REPLAY_INTERNAL_H
#define KERNEL_REPLAY_INTERNAL_H

#include <tiny/replay.h>
#include <tiny/slab.h>

#define NO_CACHE	0xffffu

enum slot_state { SLOT_EMPTY, SLOT_LIVE, SLOT_FAILED };

/* One live object of the trace, from its allocation to its free. */
struct slot {
	void *ptr;
	u32 size;
	u16 cache;		/* NO_CACHE for kmalloc() */
	u8 pattern;
	u8 state;		/* enum slot_state */
};

struct replay_state {
	const struct replay_header *hdr;
	const struct replay_cache *caches;
	const struct replay_op *ops;
	struct kmem_cache **cache_ptr;	/* created on first use */
	struct slot *slots;
	unsigned long long live_bytes;
	unsigned long live_objects;
	unsigned long start_jiffies;
	unsigned int sample_every;
	unsigned int progress_every;	/* 0: no progress line */
	unsigned long map_after;	/* op + 1 after which to print the state at
					 * that op (replay_state_at()); 0: none */
	struct replay_result *res;
};

/* Pages the object allocator holds (Slab: slabs or heap, and large blocks). */
unsigned long replay_held_pages(void);

/* Checks the file (header, caches, then every op with slots as scratch,
 * left empty) and points rs at its parts; 0, or -1 after reporting the
 * first problem.  rs->slots must hold hdr->nr_slots entries: call
 * replay_check_header() first to learn it. */
int replay_check_header(const void *data, size_t len, struct replay_state *rs);
int replay_check_ops(struct replay_state *rs);

/* Bookkeeping memory from the page allocator (outside Slab), zeroed. */
void *replay_table_alloc(size_t bytes);
void replay_table_free(void *p, size_t bytes);

/* Starts the trace's clock from a reclaimed allocator, the free lists in
 * address order and the timers at a fixed phase (sets rs->start_jiffies). */
void replay_start_in_step(struct replay_state *rs);
/* Runs every op of the trace from rs->start_jiffies (0, or -2 after Ctrl-C:
 * the objects stay in the slots), then the clock on to the trace's end
 * plus settle_us. */
int replay_run_ops(struct replay_state *rs, u64 settle_us);
/* Frees the live object in slot s and checks its pattern (a corruption is
 * counted in rs->res); not counted in the trace's figures. */
void replay_free_slot(struct replay_state *rs, struct slot *s);

#endif /* KERNEL_REPLAY_INTERNAL_H */
