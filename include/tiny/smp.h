/* smp.h - which CPU we are on.  This kernel runs on one CPU; per-CPU data
 * is still indexed by smp_processor_id() so that an SMP port changes this
 * header (and the locks) rather than every user. */
#ifndef TINY_SMP_H
#define TINY_SMP_H

static inline unsigned int smp_processor_id(void)
{
	return 0;
}

#endif /* TINY_SMP_H */
