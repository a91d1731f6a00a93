/* printk.c - the kernel log, written to the console.
 *
 * Each message is formatted into a buffer of the CPU's own, filtered by
 * its level against console_loglevel, prefixed with the time since boot
 * when CONFIG_PRINTK_TIME is set, and written to the console by the CPU
 * that owns it (console_owner), so that messages of several CPUs do not
 * mix.  Interrupts are off meanwhile, so printk works from interrupt
 * handlers.  What the console shows is also kept in log_buf, a ring of
 * the last 2^CONFIG_LOG_BUF_SHIFT characters, which a debugger reads from
 * a stopped kernel (scripts/gdb: ts-dmesg); with CONFIG_LOG_BUF_SHIFT=0
 * there is no log_buf (nor log_end) at all, and ts-dmesg says so.
 *
 * A crash report must always get out, so printk is re-entrant on one CPU
 * and bounded on the CPU that reports a crash (<tiny/oops.h>):
 *   - A printk inside a printk on the same CPU (a fault or an NMI while
 *     formatting or writing, a report from a lock the console uses)
 *     formats into the next of PRINTK_DEPTH_MAX buffers and writes
 *     through the console it already owns, on a line of its own; deeper
 *     ones are dropped, so a report that faults cannot recurse off the
 *     stack.
 *   - The crash-reporting CPU waits for the console only while its owner
 *     makes progress; if the owner stops moving (it was stopped holding
 *     it, or hangs), or once panic() has stopped the other CPUs
 *     (printk_bust()), it takes the console and prints.
 * The owner is taken with a compare-and-swap, not a ticket lock: FIFO
 * order matters little here, taking it over does.
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/smp.h>
#include <tiny/oops.h>
#include <tiny/timer.h>
#include <tiny/arch.h>
#include <tiny/cmdline.h>
#include <tiny/spinlock.h>	/* cpu_relax() */
#include <arch/timex.h>

#define PRINTK_DEPTH_MAX	3	/* printk within printk within printk */
#define PRINTK_NESTED_LEN	256	/* the buffer of a nested message */
/* How long a crash-reporting CPU waits while the console's owner writes
 * nothing before it takes the console over: far longer than a line takes
 * to format and write, short enough that the report starts within about a
 * second.  Timed by the TSC (<arch/timex.h>: calibrated at boot; before
 * that assumed to run at UNCALIBRATED_KHZ, fast, so a wait is at most that
 * much too long).  A count of pauses was 13 to 19 s under QEMU TCG. */
#define CONSOLE_STUCK_MS	500
#define UNCALIBRATED_KHZ	4000000UL
#define NO_OWNER		(-1)

int console_loglevel = 7;	/* show everything but KERN_DEBUG */

/* One CPU's printk state; only that CPU touches it. */
struct printk_cpu {
	int depth;		/* printk calls in progress on this CPU */
	int writing;		/* one of them is writing to the console */
	char buf[1024];		/* the outermost message */
	char nested[PRINTK_DEPTH_MAX - 1][PRINTK_NESTED_LEN];
};

static struct printk_cpu printk_cpus[NR_CPUS];
static int console_owner = NO_OWNER;	/* the CPU writing; guards line_open and log_buf */
static unsigned long console_progress;	/* characters written (atomic) */
static int console_busted;		/* panic(): the other CPUs are stopped */
static int line_open;		/* the last message did not end with a newline */

#if CONFIG_LOG_BUF_SHIFT
#define LOG_BUF_LEN	(1UL << CONFIG_LOG_BUF_SHIFT)
char log_buf[LOG_BUF_LEN];	/* the console owner's; character i at log_buf[i % LOG_BUF_LEN] */
unsigned long log_end;		/* characters ever logged */

/* Keeps a copy of what the console shows in log_buf.  Console owned. */
static void log_store(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		log_buf[log_end++ % LOG_BUF_LEN] = s[i];
}
#else
static inline void log_store(const char *s, size_t len)
{
}
#endif

/* Writes to the console and keeps a copy in log_buf.  Console owned. */
static void console_out(const char *s, size_t len)
{
	log_store(s, len);
	arch_console_write(s, len);
	__atomic_add_fetch(&console_progress, len, __ATOMIC_RELAXED);
}

static void emit_timestamp(void)
{
	unsigned long j = jiffies;
	char ts[32];
	int n;

	n = snprintf(ts, sizeof(ts), "[%5lu.%06lu] ", j / HZ, (j % HZ) * (1000000UL / HZ));
	console_out(ts, (size_t)n);
}

/* Writes one message; cut: it interrupts another one on this CPU. */
static void emit(const char *text, int level, int cut)
{
	size_t len = strlen(text);
	static int last_level = LOGLEVEL_DEFAULT;

	if (cut) {
		console_out("\n", 1);	/* the interrupted message stays cut short */
		line_open = 0;
	}
	if (level == LOGLEVEL_CONT)
		level = line_open ? last_level : LOGLEVEL_DEFAULT;
	else if (line_open) {
		console_out("\n", 1);	/* a new message ends an open line */
		line_open = 0;
	}
	last_level = level;
	if (level > console_loglevel || !len)
		return;
	if (!line_open && IS_ENABLED(CONFIG_PRINTK_TIME))
		emit_timestamp();
	console_out(text, len);
	line_open = text[len - 1] != '\n';
}

static int try_own_console(int me)
{
	int free = NO_OWNER;

	return __atomic_compare_exchange_n(&console_owner, &free, me, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* TSC cycles per millisecond, assumed fast before the calibration. */
static u64 console_cycles_per_ms(void)
{
	unsigned long khz = cycles_per_ms();

	return khz ? khz : UNCALIBRATED_KHZ;
}

/* Takes the console from a CPU that holds it but has written nothing for
 * waited cycles. */
static void take_console_over(int me, u64 waited)
{
	int owner = __atomic_exchange_n(&console_owner, me, __ATOMIC_ACQUIRE);
	char note[112];

	line_open = 1;		/* whatever the owner wrote last stays apart */
	if (owner == NO_OWNER)
		return;
	snprintf(note, sizeof(note), "printk: CPU %d holds the console without writing: "
		 "taken over after %lu ms\n", owner,
		 (unsigned long)(waited / console_cycles_per_ms()));
	emit(note, 0, 0);
}

/* The crash-reporting CPU's wait: while the owner writes, or until
 * panic() busts the console; then the console is taken over. */
static void wait_or_take_console(int me)
{
	unsigned long seen = __atomic_load_n(&console_progress, __ATOMIC_RELAXED);
	u64 limit = CONSOLE_STUCK_MS * console_cycles_per_ms(), since = get_cycles(), now;

	while (!try_own_console(me)) {
		unsigned long progress = __atomic_load_n(&console_progress, __ATOMIC_RELAXED);

		now = get_cycles();
		if (!__atomic_load_n(&console_busted, __ATOMIC_RELAXED) && progress != seen) {
			seen = progress;
			since = now;
		} else if (__atomic_load_n(&console_busted, __ATOMIC_RELAXED) ||
			   now - since > limit) {
			take_console_over(me, now - since);
			return;
		}
		cpu_relax();
	}
}

/* Makes this CPU the console's owner; returns 0 if it was already (a
 * printk inside a printk), 1 if it must give the console back. */
static int own_console(int me)
{
	if (__atomic_load_n(&console_owner, __ATOMIC_RELAXED) == me)
		return 0;
	if (oops_on_this_cpu()) {
		wait_or_take_console(me);
		return 1;
	}
	while (!try_own_console(me))
		cpu_relax();
	return 1;
}

/* Gives the console back, unless another CPU took it over meanwhile. */
static void release_console(int me)
{
	__atomic_compare_exchange_n(&console_owner, &me, NO_OWNER, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

void printk_hold_console(int *held)
{
	int me = (int)smp_processor_id();

	while (!try_own_console(me))
		cpu_relax();
	__atomic_store_n(held, 1, __ATOMIC_RELEASE);
	for (;;)
		cpu_relax();
}

void printk_bust(void)
{
	__atomic_store_n(&console_busted, 1, __ATOMIC_RELAXED);
}

int printk_depth(void)
{
	return printk_cpus[smp_processor_id()].depth;
}

int vprintk(const char *fmt, va_list args)
{
	unsigned int me;
	struct printk_cpu *pc;
	unsigned long flags;
	int level, n, owned, cut;
	char *buf;

	local_irq_save(flags);
	me = smp_processor_id();
	pc = &printk_cpus[me];
	if (pc->depth == PRINTK_DEPTH_MAX) {	/* a printk that faults in every report */
		local_irq_restore(flags);
		return 0;
	}
	buf = pc->depth ? pc->nested[pc->depth - 1] : pc->buf;
	pc->depth++;
	level = printk_level(&fmt);
	n = vsnprintf(buf, pc->depth > 1 ? PRINTK_NESTED_LEN : sizeof(pc->buf), fmt, args);
	owned = own_console((int)me);
	cut = pc->writing;
	pc->writing = 1;
	emit(buf, level, cut);
	pc->writing = 0;	/* an interrupted message is cut once */
	if (owned)
		release_console((int)me);
	pc->depth--;
	local_irq_restore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vprintk(fmt, args);
	va_end(args);
	return n;
}

static int loglevel_setup(const char *val)
{
	unsigned long level;
	int r = parse_ulong(val, 0, 7, &level);

	if (r)
		return r;
	console_loglevel = (int)level;
	return 0;
}
kernel_param("loglevel", loglevel_setup, "=N: show messages of level 0..N on the console (default 7)");

static int quiet_setup(const char *val)
{
	(void)val;
	console_loglevel = 4;
	return 0;
}
kernel_flag("quiet", quiet_setup, "show only warnings and errors on the console");
