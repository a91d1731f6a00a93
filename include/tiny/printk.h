/* printk.h - the kernel log: printk(), log levels and string formatting. */
#ifndef TINY_PRINTK_H
#define TINY_PRINTK_H

#include <tiny/types.h>
#include <tiny/compiler.h>

/*
 * A message may start with a level marker: ASCII SOH followed by a digit,
 * as in Linux (levels 1 and 2, alert and critical, have no use here).  Messages above console_loglevel are not shown.
 */
#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_CONT	KERN_SOH "c"	/* continues the previous line */

#define LOGLEVEL_DEFAULT	6	/* level of a message without marker */
#define LOGLEVEL_CONT		(-1)	/* KERN_CONT: the level of the line it continues */

extern int console_loglevel;
/* panic(), once the other CPUs are stopped: printk on the CPU reporting
 * the crash no longer waits for the console (<tiny/oops.h>). */
void printk_bust(void);
/* printk calls in progress on this CPU (more than 0: an interrupt or a
 * fault came inside one). */
int printk_depth(void);
/* A test aid (fault=console-stuck): takes the console, sets *held and
 * spins for good, never writing, as a CPU hung while printing would. */
__noreturn void printk_hold_console(int *held);

/* Splits the KERN_<LEVEL> marker off *text; returns its level,
 * LOGLEVEL_CONT, or LOGLEVEL_DEFAULT for a message without one. */
static inline int printk_level(const char **text)
{
	const char *s = *text;

	if (s[0] != KERN_SOH[0] || !s[1])
		return LOGLEVEL_DEFAULT;
	*text = s + 2;
	if (s[1] == 'c')
		return LOGLEVEL_CONT;
	return s[1] >= '0' && s[1] <= '7' ? s[1] - '0' : LOGLEVEL_DEFAULT;
}

/* Formats and logs a message; callable from any context.  Returns bytes formatted. */
__printf(1, 2) int printk(const char *fmt, ...);
int vprintk(const char *fmt, va_list args);

/* Formatting into a buffer; always NUL-terminates when size > 0 and returns
 * the length the full output would have had (C99 semantics). */
__printf(3, 4) int snprintf(char *buf, size_t size, const char *fmt, ...);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list args);

#define pr_err(fmt, ...)	printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)

#endif /* TINY_PRINTK_H */
