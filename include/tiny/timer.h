/* timer.h - jiffies and one-shot kernel timers run from the timer interrupt.
 *
 * jiffies counts timer interrupts since boot (HZ per second).  A timer
 * fires once, in interrupt context, on the first tick at or after its
 * expiry; its function may re-arm it with mod_timer().  The API follows
 * Linux 2.6: setup_timer(), mod_timer(), del_timer(), del_timer_sync(),
 * timer_pending().
 *
 * SMP.  Every CPU has its own timer base (a list, its lock, the jiffy it
 * is running) and calls timer_tick() from its own local tick; jiffies
 * advances only in CPU 0's.  The rule:
 *   - mod_timer() queues a timer on the base of the CPU that calls it, and
 *     it fires there (so a per-CPU timer armed on each CPU runs on each);
 *     re-arming it from another CPU moves it to that CPU's base, except
 *     while its function is running: then it stays where it runs, so one
 *     timer never runs on two CPUs at once.
 *   - The timer remembers its base: mod_timer(), del_timer() and
 *     del_timer_sync() from any CPU lock the base it is on.
 *   - del_timer() may return 0 while the function is still running on
 *     another CPU (it was taken off the list to run).  Before freeing a
 *     timer, or what its function uses, call del_timer_sync(), which also
 *     waits for a running function to return (never from that function
 *     itself, nor holding a lock the function takes: that would wait
 *     forever; the first is reported instead).
 */
#ifndef TINY_TIMER_H
#define TINY_TIMER_H

#include <tiny/types.h>
#include <tiny/list.h>

#define HZ	CONFIG_HZ

/* The tick count itself; read it as jiffies (a relaxed atomic load: CPU 0
 * writes it while the others read). */
extern unsigned long jiffies_counter;
#define jiffies ((unsigned long)__atomic_load_n(&jiffies_counter, __ATOMIC_RELAXED))

/* Wrap-safe comparisons of jiffies values. */
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq(b, a)

static inline unsigned long msecs_to_jiffies(unsigned long ms)
{
	return (ms * HZ + 999) / 1000;
}

/* The first jiffy after j that is a multiple of period.  Periodic timers
 * armed with it fire in step with jiffies, whenever they were started (as
 * Linux's round_jiffies() makes housekeeping timers do). */
static inline unsigned long round_jiffies_period(unsigned long j, unsigned long period)
{
	return (j / period + 1) * period;
}

struct timer_base;

struct timer_list {
	struct list_head entry;		/* on its base's list, sorted by expires */
	unsigned long expires;		/* jiffy at which to fire */
	void (*function)(unsigned long);
	unsigned long data;		/* passed to function */
	struct timer_base *base;	/* the base it was last queued on; NULL: none yet */
	int pending;			/* on a list (written under its base's lock) */
};

/* A timer defined ready to arm: as setup_timer() leaves it. */
#define DEFINE_TIMER(name, fn, d)	struct timer_list name = { .function = (fn), .data = (d) }

void init_timer(struct timer_list *timer);
void setup_timer(struct timer_list *timer, void (*function)(unsigned long),
		 unsigned long data);

/* Nonzero if the timer is armed and has not fired yet. */
static inline int timer_pending(const struct timer_list *timer)
{
	return __atomic_load_n(&timer->pending, __ATOMIC_RELAXED);
}

/* (Re)arms timer to fire at expires; returns 1 if it was already pending.
 * Callable from any context, including the timer's own function. */
int mod_timer(struct timer_list *timer, unsigned long expires);
/* Disarms timer; returns 1 if it was pending.  Any context. */
int del_timer(struct timer_list *timer);
/* del_timer(), then waits until the function is not running on any CPU;
 * returns 1 if it was pending.  Process context, or any context but the
 * timer's own function (reported with a WARNING, and then returns at once). */
int del_timer_sync(struct timer_list *timer);

/* Called once per tick by each CPU's timer interrupt (or the host
 * harness): on CPU 0 advances jiffies; runs this CPU's expired timers. */
void timer_tick(void);

#endif /* TINY_TIMER_H */
