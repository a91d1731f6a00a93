/* slab_test_loops.h - what slab_test.c and slab_test_smp.c share: the timed
 * loops and the tables of objects.  Private to the two. */
#ifndef KERNEL_SLAB_TEST_LOOPS_H
#define KERNEL_SLAB_TEST_LOOPS_H

#include <tiny/types.h>
#include <tiny/slab_test.h>

/* count kmalloc(size) into v[], each object's first byte set to tag;
 * failures counted (v[i] NULL).  Returns the loop's cycles. */
u64 slab_test_alloc_loop(void **v, unsigned long count, unsigned int size, u8 tag,
			 unsigned long *failures);
/* kfree of v[0..count-1] (NULL skipped), each set to NULL after; objects
 * whose first byte is not tag counted in *remote.  Returns the cycles. */
u64 slab_test_free_loop(void **v, unsigned long count, u8 tag, unsigned long *remote);
/* count times kmalloc(size), tag written, kfree.  Returns the cycles. */
u64 slab_test_pair_loop(unsigned long count, unsigned int size, u8 tag, unsigned long *failures);

/* A zeroed table of batch object pointers (whole pages), or NULL. */
void **slab_test_table_alloc(unsigned long batch);
void slab_test_table_free(void **table, unsigned long batch);

/* Clears *res and sets what every test sets first. */
void slab_test_result_init(struct slab_test_result *res, enum slab_test_kind kind,
			   unsigned int size, unsigned long n, unsigned int ncpus);

#endif /* KERNEL_SLAB_TEST_LOOPS_H */
