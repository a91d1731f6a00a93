/* util.c - allocation helpers built on the public API alone, shared by SLAB
 * and SLOB: zeroing and array allocation, krealloc, string duplication,
 * per-CPU allocation, and the reports both allocators use for bad frees. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include <tiny/string.h>

unsigned long kmem_bad_free_count;

void kmem_bad_free(const char *fn, const void *obj, const char *why, void *caller)
{
	__atomic_fetch_add(&kmem_bad_free_count, 1, __ATOMIC_RELAXED);	/* any CPU */
	ktest_count_report();
	pr_err("%s: bad pointer %p from %p: %s; ignored\n", fn, obj, caller, why);
}

void kmem_debug_validate(const char *op, const void *obj)
{
	static int reported;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEM_VALIDATE) || reported)
		return;
	if (kmem_validate()) {
		reported = 1;
		pr_err("kmem: heap inconsistent after %s(%p); further checks off\n", op, obj);
	}
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kzalloc(n * size, flags);
}

void *krealloc(const void *obj, size_t new_size, gfp_t flags)
{
	size_t old_size;
	void *p;

	if (ZERO_OR_NULL_PTR(obj))
		return kmalloc(new_size, flags);
	if (!new_size) {
		kfree(obj);
		return ZERO_SIZE_PTR;
	}
	old_size = ksize(obj);
	if (!old_size)
		return NULL;		/* not a kmalloc() block: ksize() reported it */
	if (new_size <= old_size)
		return (void *)obj;
	p = kmalloc(new_size, flags);
	if (p) {
		memcpy(p, obj, old_size);
		kfree(obj);
	}
	return p;
}

void *kmemdup(const void *src, size_t len, gfp_t flags)
{
	void *p = kmalloc(len, flags);

	if (p && len)
		memcpy(p, src, len);
	return p;
}

char *kstrdup(const char *s, gfp_t flags)
{
	return s ? kmemdup(s, strlen(s) + 1, flags) : NULL;
}

/*
 * Per-CPU data: a descriptor with one pointer per possible CPU, each to a
 * zeroed copy.  Copies needing more than kmalloc()'s alignment are cut
 * from a larger block; raw[] keeps what to free.
 */
struct percpu_data {
	void *ptrs[NR_CPUS];
	void *raw[NR_CPUS];
};

void free_percpu(void *ptr)
{
	struct percpu_data *pd = ptr;
	int cpu;

	if (!pd)
		return;
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		kfree(pd->raw[cpu]);
	kfree(pd);
}

void *__alloc_percpu(size_t size, size_t align)
{
	size_t extra = align > KMALLOC_MIN_ALIGN ? align - 1 : 0;
	struct percpu_data *pd;
	int cpu;

	if (!size || (align && !is_power_of_2(align)) || align > PAGE_SIZE ||
	    size > (size_t)-1 - extra)
		return NULL;
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return NULL;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		pd->raw[cpu] = kzalloc(size + extra, GFP_KERNEL);
		if (!pd->raw[cpu]) {
			free_percpu(pd);
			return NULL;
		}
		pd->ptrs[cpu] = extra ? PTR_ALIGN(pd->raw[cpu], align) : pd->raw[cpu];
	}
	return pd;
}

void *per_cpu_ptr(void *ptr, unsigned int cpu)
{
	struct percpu_data *pd = ptr;

	return cpu < NR_CPUS ? pd->ptrs[cpu] : NULL;
}
