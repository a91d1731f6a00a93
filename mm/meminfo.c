/* meminfo.c - the memory report in the layout of /proc/meminfo.
 *
 * MemTotal is the RAM the page allocator manages (what is left after the
 * kernel image, mem_map, the boot data and the first MiB), MemFree what it
 * has free, and Slab every page the object allocator holds: its heap or
 * slabs plus the large blocks it took whole from the page allocator.
 */
#include <tiny/kernel.h>
#include <tiny/mm.h>
#include <tiny/slab.h>

#define K(pages)	((pages) << (PAGE_SHIFT - 10))

void show_meminfo(void)
{
	struct kmem_stats st;

	kmem_get_stats(&st);
	printk("MemTotal:     %8lu kB\n", K(totalram_pages()));
	printk("MemFree:      %8lu kB\n", K(nr_free_pages()));
	printk("Slab:         %8lu kB\n", K(st.slab_pages + st.large_pages));
	printk("Reserved:     %8lu kB\n", K(nr_reserved_pages()));
}
