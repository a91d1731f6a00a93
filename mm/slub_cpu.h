/* slub_cpu.h - SLUB's lockless fast paths (CONFIG_SLUB_CPU_SLAB),
 * inline in the entry points of mm/slub_caches.c, so that an allocation or a free
 * makes no call on its way; the slow paths, the per-CPU data and the
 * design ("Fast path") are in mm/slub_cpu.c.  Included by mm/slub.h.
 */
#ifndef MM_SLUB_CPU_H
#define MM_SLUB_CPU_H

#define CPU_FREELIST	__builtin_offsetof(struct kmem_cache_cpu, freelist)
#define CPU_TID		__builtin_offsetof(struct kmem_cache_cpu, tid)
#define CPU_SLAB	__builtin_offsetof(struct kmem_cache_cpu, slab)

static inline unsigned long next_tid(unsigned long tid)
{
	return tid + 1;
}

/* An object of c for handle h, from a refill of this CPU's list
 * (interrupts off inside); NULL if out of memory. */
void *slab_alloc_slow(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags);
/* Frees obj, of c through handle h, to its slab at base, which is not this
 * CPU's (interrupts off inside); NULL, or why refused.  marked: a checker
 * was told already. */
const char *slab_free_slow(struct kmem_cache *c, struct kmem_cache *h, void *obj, uintptr_t base,
			   unsigned int idx, int marked);

/* The next object after obj on this CPU's list, read as the fast path reads
 * it: an interrupt may have taken obj meanwhile (and even given its slab
 * back), and then the exchange fails anyway.  Not watched by ASan. */
static inline __no_sanitize_address void *get_freepointer_safe(const struct kmem_cache *c,
							 const void *obj)
{
	return READ_ONCE(*(void *const *)((const char *)obj + c->offset));
}

static __always_inline void *slub_alloc(struct kmem_cache *c, struct kmem_cache *h, gfp_t flags)
{
	percpu_off_t pc = c->cpu.slab;
	unsigned long tid;
	void *obj, *next;

	do {
		tid = arch_this_cpu_read(pc + CPU_TID);
		obj = (void *)arch_this_cpu_read(pc + CPU_FREELIST);
		if (unlikely(!obj))
			return slab_alloc_slow(c, h, flags);
		next = get_freepointer_safe(c, obj);
	} while (unlikely(!arch_this_cpu_cmpxchg_double(pc, (unsigned long)obj, tid,
							 (unsigned long)next, next_tid(tid))));
	arch_this_cpu_add(h->cpu.count, 1);
	return slub_post_alloc(c, h, obj, flags);
}

static __always_inline const char *slub_free(struct kmem_cache *c, struct kmem_cache *h,
					      void *obj, uintptr_t base, unsigned int idx)
{
	percpu_off_t pc = c->cpu.slab;
	unsigned long tid;
	int marked = 0;
	void *head;

	do {
		tid = arch_this_cpu_read(pc + CPU_TID);
		if (unlikely(arch_this_cpu_read(pc + CPU_SLAB) != base))
			return slab_free_slow(c, h, obj, base, idx, marked);
		head = (void *)arch_this_cpu_read(pc + CPU_FREELIST);
		if (unlikely(head == obj))
			return JUST_FREED;
		if (kmem_memcheck_watches() && !marked) {	/* a checker hears of it once */
			slub_mark_freed(c, obj);
			marked = 1;
		}
		set_freepointer(c, obj, head);
	} while (unlikely(!arch_this_cpu_cmpxchg_double(pc, (unsigned long)head, tid,
							 (unsigned long)obj, next_tid(tid))));
	arch_this_cpu_add(h->cpu.count, -1);
	return NULL;
}

#endif /* MM_SLUB_CPU_H */
