/* memcheck_check.c - proves that the memory checker sees inside the heap.
 *
 * usage: memcheck_check MODE
 *   clean        correct use; must exit 0
 *   kmalloc-uaf  reads a kmalloc() block after kfree()
 *   cache-uaf    writes to a cache object after kmem_cache_free()
 *   page-uaf     reads a page after free_page()
 * The heap's memory never goes back to the C library, so without the
 * allocator's <tiny/memcheck.h> annotations AddressSanitizer and valgrind
 * would see nothing wrong.  scripts/test-all expects each bad mode to be
 * reported by the checker (ASan aborts; valgrind exits with its error code).
 */
#include <stdio.h>
#include <string.h>

#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/slab.h>
#include "host.h"

static volatile char sink;

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "clean";
	struct kmem_cache *c;
	char *p;

	host_mm_init(8);
	p = kmalloc(100, GFP_KERNEL);
	memset(p, 1, 100);
	c = kmem_cache_create("check", 64, 0, 0, NULL, NULL);
	if (!strcmp(mode, "clean")) {
		sink = p[99];
		kfree(p);
	} else if (!strcmp(mode, "kmalloc-uaf")) {
		kfree(p);
		sink = p[50];
	} else if (!strcmp(mode, "cache-uaf")) {
		char *obj = kmem_cache_alloc(c, GFP_KERNEL);

		kmem_cache_free(c, obj);
		obj[40] = 1;
	} else if (!strcmp(mode, "page-uaf")) {
		char *page = (char *)__get_free_page(GFP_KERNEL);

		free_page((unsigned long)page);
		sink = page[100];
	} else {
		fprintf(stderr, "memcheck_check: unknown mode %s\n", mode);
		return 2;
	}
	printf("memcheck_check: %s: nothing reported\n", mode);
	return 0;
}
