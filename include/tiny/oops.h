/* oops.h - crash reports: one CPU reports, and the report always gets out.
 *
 * die() (a CPU exception or an NMI), the double-fault task, BUG_ON() and
 * panic() begin with oops_begin(), interrupts off.  The first CPU to call
 * it owns the report (oops_cpu); any other CPU that crashes meanwhile is
 * stopped there, without a report (two would only mix), and panic() of
 * the owner stops the rest.  The owner may crash again while reporting
 * (a fault inside printk, say): oops_begin() then returns a depth above
 * 1, and past OOPS_DEPTH_MAX it ends the run at once, unreported, rather
 * than recurse off the stack.
 *
 * printk() on the owner never waits for ever on the console: it waits
 * while another CPU holding it makes progress, then prints anyway, and
 * once panic() has stopped the other CPUs (printk_bust()) it does not
 * wait at all (kernel/printk.c).
 */
#ifndef TINY_OOPS_H
#define TINY_OOPS_H

#include <tiny/compiler.h>

/* A crash report nested deeper than this (die, panic, die, panic) is not
 * printed: the run ends there. */
#define OOPS_DEPTH_MAX	4

/* The CPU that owns the crash report, or -1 while there is none. */
extern int oops_cpu;

/*
 * Claims the crash report for this CPU and returns how deep this CPU now
 * is in reports (1: the first).  Does not return if another CPU owns the
 * report (this CPU is stopped) or past OOPS_DEPTH_MAX (the run ends).
 * Interrupts off.
 */
int oops_begin(void);

/* Nonzero if this CPU owns the crash report (printk's question). */
int oops_on_this_cpu(void);

#endif /* TINY_OOPS_H */
