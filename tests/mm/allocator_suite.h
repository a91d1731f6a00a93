/* allocator_suite.h - what the allocators' own suites (slab, slub,
 * slub_cpu, slob) share: their init, which skips each case while kmem_debug
 * debugs new caches and kmalloc() blocks.  Those suites read the allocator
 * behind the public handle (slab pages, free lists, counts, object starts),
 * and a debugged object is a larger block of the allocator with the
 * caller's pointer inside it, so their checks cannot hold: without the skip
 * a case finds no slab for its object (slub's validator_finds_damage once
 * read address 0x14 through that NULL page and took the kernel down) or
 * frees a pointer it computed from a layout that is not there.  Decided at
 * run time (kmem_debug_active()), so the same kernel runs them in full
 * without kmem_debug=.
 */
#ifndef TESTS_MM_ALLOCATOR_SUITE_H
#define TESTS_MM_ALLOCATOR_SUITE_H

#include <tiny/kmem_debug.h>
#include <tiny/ktest.h>

static inline int allocator_suite_init(struct ktest *t)
{
	if (!kmem_debug_active())
		return 0;
	ktest_skip(t, "kmem_debug is on: objects are debug blocks, not the allocator's layout");
	return 1;
}

#endif /* TESTS_MM_ALLOCATOR_SUITE_H */
