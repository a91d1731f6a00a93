/* timer.h - jiffies and one-shot kernel timers run from the timer interrupt.
 *
 * jiffies counts timer interrupts since boot (HZ per second).  A timer
 * fires once, in interrupt context, on the first tick at or after its
 * expiry; its function may re-arm it with mod_timer().  The API follows
 * Linux 2.6: setup_timer(), mod_timer(), del_timer(), timer_pending().
 */
#ifndef TINY_TIMER_H
#define TINY_TIMER_H

#include <tiny/types.h>
#include <tiny/list.h>

#define HZ	CONFIG_HZ

extern volatile unsigned long jiffies;

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

struct timer_list {
	struct list_head entry;		/* on the pending list, sorted by expires */
	unsigned long expires;		/* jiffy at which to fire */
	void (*function)(unsigned long);
	unsigned long data;		/* passed to function */
};

#define TIMER_INITIALIZER(_function, _expires, _data) {		\
	.entry = { NULL, NULL },					\
	.expires = (_expires),						\
	.function = (_function),					\
	.data = (_data),						\
}

#define DEFINE_TIMER(_name, _function, _expires, _data)		\
	struct timer_list _name = TIMER_INITIALIZER(_function, _expires, _data)

void init_timer(struct timer_list *timer);
void setup_timer(struct timer_list *timer, void (*function)(unsigned long),
		 unsigned long data);

/* Nonzero if the timer is armed and has not fired yet. */
static inline int timer_pending(const struct timer_list *timer)
{
	return timer->entry.next != NULL;
}

/* (Re)arms timer to fire at expires; returns 1 if it was already pending.
 * Callable from any context, including the timer's own function. */
int mod_timer(struct timer_list *timer, unsigned long expires);
void add_timer(struct timer_list *timer);
/* Disarms timer; returns 1 if it was pending.  Any context. */
int del_timer(struct timer_list *timer);

/* Called once per tick by the timer interrupt (or the host harness):
 * advances jiffies and runs every expired timer. */
void timer_tick(void);

#endif /* TINY_TIMER_H */
