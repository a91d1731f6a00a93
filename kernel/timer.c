/* timer.c - jiffies and the per-CPU kernel timer lists.
 *
 * Each CPU has a timer base: its pending timers on one list sorted by
 * expiry (a tick looks only at the head), the lock guarding that list and
 * every timer on it (its entry, expires and pending flag), and the jiffy
 * whose timers its tick is running.  A timer points at the base it was
 * last queued on; moving it to another base goes through TIMER_MIGRATING,
 * during which whoever else wants to lock the timer's base waits, so that
 * a timer is always guarded by exactly one base's lock.  Expired timers are
 * unlinked before their function runs (so a function may re-arm its own
 * timer), and the base records which timer is running so that re-arming it
 * elsewhere keeps it on its CPU and del_timer_sync() can wait for it.  The
 * rules for callers are in <tiny/timer.h>.
 *
 * This file has no hardware dependency: the host build of mm/ runs it too,
 * with the harness calling timer_tick() on each CPU thread.
 */
#include <tiny/kernel.h>
#include <tiny/atomic.h>
#include <tiny/smp.h>
#include <tiny/timer.h>
#include <tiny/spinlock.h>

unsigned long jiffies_counter;

struct timer_base {
	spinlock_t lock;
	struct list_head list;		/* { NULL, NULL } until first used */
	/* The jiffy whose timers timer_tick() is running (tick_running set).
	 * A timer armed on this base from there for that jiffy or earlier
	 * fires on the next tick, as if armed just after it, instead of
	 * running again in the same tick. */
	unsigned long running_jiffy;
	int tick_running;
	struct timer_list *running_timer;	/* whose function runs now */
} __aligned(64);

static struct timer_base timer_bases[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = { .lock = __SPIN_LOCK_UNLOCKED(timer_base.lock) },
};

/* A timer's base while it moves between two bases: wait, then look again. */
static struct timer_base timer_migrating;
#define TIMER_MIGRATING	(&timer_migrating)

static struct timer_base *this_cpu_base(void)
{
	return &timer_bases[smp_processor_id()];
}

/* The base's list, made empty on first use.  Base lock held. */
static struct list_head *base_list(struct timer_base *base)
{
	assert_spin_held(&base->lock);
	if (!base->list.next)
		INIT_LIST_HEAD(&base->list);
	return &base->list;
}

static struct timer_base *timer_base_of(struct timer_list *timer)
{
	return __atomic_load_n(&timer->base, __ATOMIC_ACQUIRE);
}

static void set_timer_base(struct timer_list *timer, struct timer_base *base)
{
	__atomic_store_n(&timer->base, base, __ATOMIC_RELEASE);
}

void init_timer(struct timer_list *timer)
{
	timer->entry.next = NULL;
	timer->entry.prev = NULL;
	timer->base = NULL;
	timer->pending = 0;
}

void setup_timer(struct timer_list *timer, void (*function)(unsigned long),
		 unsigned long data)
{
	init_timer(timer);
	timer->function = function;
	timer->data = data;
}

/*
 * Locks the base the timer is on and returns it; interrupts already off.
 * A timer never queued has no base: returns NULL, having set its base to
 * TIMER_MIGRATING when claim is set (the caller then gives it one), and
 * having changed nothing otherwise.
 */
static struct timer_base *lock_timer_base(struct timer_list *timer, int claim)
{
	struct timer_base *base;

	assert_irqs_disabled();
	for (;;) {
		base = timer_base_of(timer);
		if (base == TIMER_MIGRATING) {
			cpu_relax();
			continue;
		}
		if (!base) {
			if (!claim || __atomic_compare_exchange_n(&timer->base, &base, TIMER_MIGRATING,
								  0, __ATOMIC_ACQUIRE,
								  __ATOMIC_RELAXED))
				return NULL;
			continue;
		}
		spin_lock(&base->lock);
		if (timer_base_of(timer) == base)
			return base;
		spin_unlock(&base->lock);
	}
}

/* Unlinks a pending timer.  Its base's lock held. */
static void detach_timer(struct timer_list *timer)
{
	assert_spin_held(&timer_base_of(timer)->lock);
	list_del(&timer->entry);
	timer->entry.next = NULL;
	timer->entry.prev = NULL;
	__atomic_store_n(&timer->pending, 0, __ATOMIC_RELAXED);
}

/* Inserts in expiry order, after timers with the same expiry.  base->lock held. */
static void enqueue_timer(struct timer_base *base, struct timer_list *timer)
{
	struct list_head *head = base_list(base), *pos;

	assert_spin_held(&base->lock);
	if (base->tick_running && time_before_eq(timer->expires, base->running_jiffy))
		timer->expires = base->running_jiffy + 1;
	for (pos = head->prev; pos != head; pos = pos->prev) {
		struct timer_list *t = list_entry(pos, struct timer_list, entry);

		if (time_before_eq(t->expires, timer->expires))
			break;
	}
	list_add(&timer->entry, pos);
	__atomic_store_n(&timer->pending, 1, __ATOMIC_RELAXED);
}

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	struct timer_base *old, *new;
	unsigned long flags;
	int was_pending = 0;

	BUG_ON(!timer->function);
	local_irq_save(flags);
	old = lock_timer_base(timer, 1);
	new = this_cpu_base();
	if (old && old->running_timer == timer)
		new = old;		/* running there: stays there */
	if (old && timer_pending(timer)) {
		detach_timer(timer);
		was_pending = 1;
	}
	if (new != old) {
		if (old) {
			set_timer_base(timer, TIMER_MIGRATING);
			spin_unlock(&old->lock);
		}
		spin_lock(&new->lock);
		set_timer_base(timer, new);
	}
	timer->expires = expires;
	enqueue_timer(new, timer);
	spin_unlock(&new->lock);
	local_irq_restore(flags);
	return was_pending;
}

/* del_timer(), telling through *running whether the function is running
 * on some CPU and through *base_out which base the timer is on. */
static int del_timer_running(struct timer_list *timer, int *running,
			     struct timer_base **base_out)
{
	struct timer_base *base;
	unsigned long flags;
	int was_pending = 0;

	local_irq_save(flags);
	base = lock_timer_base(timer, 0);
	*running = 0;
	*base_out = base;
	if (base) {
		if (timer_pending(timer)) {
			detach_timer(timer);
			was_pending = 1;
		}
		*running = base->running_timer == timer;
		spin_unlock(&base->lock);
	}
	local_irq_restore(flags);
	return was_pending;
}

int del_timer(struct timer_list *timer)
{
	struct timer_base *base;
	int running;

	return del_timer_running(timer, &running, &base);
}

int del_timer_sync(struct timer_list *timer)
{
	struct timer_base *base;
	int running, was_pending = 0;

	for (;;) {
		was_pending |= del_timer_running(timer, &running, &base);
		if (!running)
			return was_pending;
		if (base == this_cpu_base()) {
			/* running here, so called from inside it: it would never end */
			WARN_ON(base == this_cpu_base());
			return was_pending;
		}
		cpu_relax();
	}
}

/* Takes the first expired timer off the base's list and marks it running,
 * or returns NULL; fills in its function and data as they were then. */
static struct timer_list *next_expired(struct timer_base *base,
				       void (**fn)(unsigned long), unsigned long *data)
{
	struct list_head *head;
	struct timer_list *t = NULL;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->running_timer = NULL;
	head = base_list(base);
	if (!list_empty(head)) {
		t = list_first_entry(head, struct timer_list, entry);
		if (time_after_eq(base->running_jiffy, t->expires)) {
			detach_timer(t);
			base->running_timer = t;
			*fn = t->function;
			*data = t->data;
		} else {
			t = NULL;
		}
	}
	spin_unlock_irqrestore(&base->lock, flags);
	return t;
}

static void set_tick_running(struct timer_base *base, int running)
{
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->running_jiffy = jiffies;
	base->tick_running = running;
	spin_unlock_irqrestore(&base->lock, flags);
}

void timer_tick(void)
{
	struct timer_base *base = this_cpu_base();
	void (*fn)(unsigned long);
	unsigned long data;

	if (smp_processor_id() == 0)
		__atomic_fetch_add(&jiffies_counter, 1, __ATOMIC_RELAXED);
	set_tick_running(base, 1);
	while (next_expired(base, &fn, &data) != NULL)
		fn(data);
	set_tick_running(base, 0);
}
