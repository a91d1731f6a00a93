/* printk.c - the kernel log, written to the console.
 *
 * Each message is formatted into a buffer under printk_lock (taken with
 * interrupts saved, so printk works from interrupt handlers), filtered by
 * its level against console_loglevel, prefixed with the time since boot
 * when CONFIG_PRINTK_TIME is set, and written to the console.  During a
 * panic the lock is ignored so that the report always gets out.  What the
 * console shows is also kept in log_buf, a ring of the last
 * 2^CONFIG_LOG_BUF_SHIFT characters, which a debugger reads from a stopped
 * kernel (scripts/gdb: ts-dmesg); with CONFIG_LOG_BUF_SHIFT=0 there is no
 * log_buf (nor log_end) at all, and ts-dmesg says so.
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/spinlock.h>
#include <tiny/timer.h>
#include <tiny/arch.h>
#include <tiny/cmdline.h>

int console_loglevel = 7;	/* show everything but KERN_DEBUG */
int oops_in_progress;

static DEFINE_SPINLOCK(printk_lock);	/* protects printk_buf and line_open */
static char printk_buf[1024];
static int line_open;		/* the last message did not end with a newline */

#if CONFIG_LOG_BUF_SHIFT
#define LOG_BUF_LEN	(1UL << CONFIG_LOG_BUF_SHIFT)
char log_buf[LOG_BUF_LEN];	/* under printk_lock; character i at log_buf[i % LOG_BUF_LEN] */
unsigned long log_end;		/* characters ever logged */

/* Keeps a copy of what the console shows in log_buf.  printk_lock held. */
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

/* Writes to the console and keeps a copy in log_buf.  printk_lock held. */
static void console_out(const char *s, size_t len)
{
	log_store(s, len);
	arch_console_write(s, len);
}

static void emit_timestamp(void)
{
	unsigned long j = jiffies;
	char ts[32];
	int n;

	n = snprintf(ts, sizeof(ts), "[%5lu.%06lu] ", j / HZ, (j % HZ) * (1000000UL / HZ));
	console_out(ts, (size_t)n);
}

static void emit(const char *text, int level)
{
	size_t len = strlen(text);
	static int last_level = LOGLEVEL_DEFAULT;

	if (level == LOGLEVEL_CONT)
		level = line_open ? last_level : LOGLEVEL_DEFAULT;
	else if (line_open)
		console_out("\n", 1);	/* a new message ends an open line */
	last_level = level;
	if (level > console_loglevel || !len)
		return;
	if (!line_open && IS_ENABLED(CONFIG_PRINTK_TIME))
		emit_timestamp();
	console_out(text, len);
	line_open = text[len - 1] != '\n';
}

int vprintk(const char *fmt, va_list args)
{
	unsigned long flags;
	int level, n;

	local_irq_save(flags);
	if (!oops_in_progress)
		spin_lock(&printk_lock);
	level = printk_level(&fmt);
	n = vsnprintf(printk_buf, sizeof(printk_buf), fmt, args);
	emit(printk_buf, level);
	if (!oops_in_progress)
		spin_unlock(&printk_lock);
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
