/* host.h - the host harness's own calls (tests/host/host.c). */
#ifndef TESTS_HOST_H
#define TESTS_HOST_H

#include <stddef.h>

/* Gives the page allocator mb MiB of host memory at a base aligned like
 * physical address 0 (to the largest buddy block), every host page of it
 * already backed (written once), then starts the object allocator.
 * Exits on failure. */
void host_mm_init(unsigned long mb);
/* The same, with the RAM and reserved ranges of a kernel boot, as its
 * "replay-layout:" line prints them ("ram=A-B,...;reserved=C-D,..."),
 * placed at the same offsets from an aligned base: the page allocator
 * then starts in the very state the kernel's did. */
void host_mm_init_layout(const char *spec);

/* The CPUs the harness may bring online (num_possible_cpus(); 1 unless
 * said): before host_mm_init(), as a kernel knows its CPUs before it starts
 * the allocators.  Exits if ncpus is not 1..NR_CPUS. */
void host_smp_possible(unsigned int ncpus);
/* Brings CPUs 1..ncpus-1 online, one thread each (smp.c); exits on
 * failure, or if ncpus is more than host_smp_possible() said.  Without it
 * the harness has CPU 0 alone. */
void host_smp_start(unsigned int ncpus);
/* Stops and joins the CPU threads: CPU 0 alone again. */
void host_smp_stop(void);

/* Emulated timer interrupts on every online CPU: every usec microseconds
 * from a per-thread timer's SIGALRM, or (without host_start_ticks) only
 * when a test waits for them. */
void host_start_ticks(unsigned int usec);
void host_stop_ticks(void);
/* Delivers one timer interrupt to this CPU now (as the CPU would: not
 * while its emulated interrupt flag is off; then it is left pending). */
void host_tick(void);

/* A file read whole into memory; exits on failure. */
void *host_read_file(const char *path, size_t *len);

#endif /* TESTS_HOST_H */
