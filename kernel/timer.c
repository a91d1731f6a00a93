/* timer.c - jiffies and the kernel timer list.
 *
 * Pending timers sit on one list sorted by expiry, so a tick looks only at
 * the head.  timer_lock, taken with interrupts saved, protects the list and
 * every pending timer's entry and expires.  Expired timers are unlinked
 * before their function runs, so a function may re-arm its own timer.
 * This file has no hardware dependency: the host build of mm/ runs it too,
 * with the harness calling timer_tick().
 */
#include <tiny/kernel.h>
#include <tiny/timer.h>
#include <tiny/spinlock.h>
#include <tiny/smp.h>

volatile unsigned long jiffies;

static LIST_HEAD(timer_list_head);
static DEFINE_SPINLOCK(timer_lock);
/* The jiffy whose timers timer_tick() is running, 0 outside it.  A timer
 * armed from there for that jiffy or earlier fires on the next tick, as if
 * armed just after it, instead of running again in the same tick. */
static unsigned long running_jiffy;
static int tick_running;

void init_timer(struct timer_list *timer)
{
	timer->entry.next = NULL;
	timer->entry.prev = NULL;
}

void setup_timer(struct timer_list *timer, void (*function)(unsigned long),
		 unsigned long data)
{
	init_timer(timer);
	timer->function = function;
	timer->data = data;
}

/* Unlinks a pending timer.  timer_lock held. */
static void detach_timer(struct timer_list *timer)
{
	list_del(&timer->entry);
	timer->entry.next = NULL;
	timer->entry.prev = NULL;
}

/* Inserts in expiry order, after timers with the same expiry.  timer_lock held. */
static void enqueue_timer(struct timer_list *timer)
{
	struct list_head *pos;

	if (tick_running && time_before_eq(timer->expires, running_jiffy))
		timer->expires = running_jiffy + 1;
	for (pos = timer_list_head.prev; pos != &timer_list_head; pos = pos->prev) {
		struct timer_list *t = list_entry(pos, struct timer_list, entry);

		if (time_before_eq(t->expires, timer->expires))
			break;
	}
	list_add(&timer->entry, pos);
}

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	unsigned long flags;
	int was_pending;

	BUG_ON(!timer->function);
	spin_lock_irqsave(&timer_lock, flags);
	was_pending = timer_pending(timer);
	if (was_pending)
		detach_timer(timer);
	timer->expires = expires;
	enqueue_timer(timer);
	spin_unlock_irqrestore(&timer_lock, flags);
	return was_pending;
}

void add_timer(struct timer_list *timer)
{
	BUG_ON(timer_pending(timer));
	mod_timer(timer, timer->expires);
}

int del_timer(struct timer_list *timer)
{
	unsigned long flags;
	int was_pending;

	spin_lock_irqsave(&timer_lock, flags);
	was_pending = timer_pending(timer);
	if (was_pending)
		detach_timer(timer);
	spin_unlock_irqrestore(&timer_lock, flags);
	return was_pending;
}

/* Takes the first expired timer off the list, or returns NULL. */
static struct timer_list *next_expired(void)
{
	struct timer_list *t = NULL;
	unsigned long flags;

	spin_lock_irqsave(&timer_lock, flags);
	if (!list_empty(&timer_list_head)) {
		t = list_first_entry(&timer_list_head, struct timer_list, entry);
		if (time_after_eq(running_jiffy, t->expires))
			detach_timer(t);
		else
			t = NULL;
	}
	spin_unlock_irqrestore(&timer_lock, flags);
	return t;
}

void timer_tick(void)
{
	struct timer_list *t;

	if (smp_processor_id() != 0)	/* TRANSITIONAL: one timer list, run by CPU 0 */
		return;
	jiffies++;
	running_jiffy = jiffies;
	tick_running = 1;
	while ((t = next_expired()) != NULL)
		t->function(t->data);
	tick_running = 0;
}
