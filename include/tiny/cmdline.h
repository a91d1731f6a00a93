/* cmdline.h - kernel command-line parameters, registered where they are used.
 *
 * Each parameter says what it takes:
 *   kernel_param("name", setup, "help")       name=VALUE only; setup gets VALUE
 *   kernel_flag("name", setup, "help")        the bare name only; setup gets NULL
 *   kernel_param_opt("name", setup, "help")   either; setup gets VALUE or NULL
 * parse_cmdline() refuses a value given to a flag and a missing value
 * before it calls setup.  setup returns 0, or PARSE_BAD / PARSE_RANGE
 * (below) for a bad value; the parameter is then ignored, with a message.
 */
#ifndef TINY_CMDLINE_H
#define TINY_CMDLINE_H

#include <tiny/compiler.h>

enum kernel_param_kind { KP_VALUE, KP_FLAG, KP_OPTIONAL };

struct kernel_param {
	const char *name;
	int (*setup)(const char *val);
	const char *help;
	enum kernel_param_kind kind;
};

#define __kernel_param(_name, _setup, _kind, _help)				\
	static const struct kernel_param __kparam_##_setup			\
		__used __section("kernel_params") __aligned(sizeof(void *)) = {	\
		.name = _name, .setup = _setup, .help = _help, .kind = _kind }

#define kernel_param(_name, _setup, _help)	__kernel_param(_name, _setup, KP_VALUE, _help)
#define kernel_flag(_name, _setup, _help)	__kernel_param(_name, _setup, KP_FLAG, _help)
#define kernel_param_opt(_name, _setup, _help)	__kernel_param(_name, _setup, KP_OPTIONAL, _help)

/* Applies every parameter in cmdline (which it does not modify); reports
 * unknown parameters and bad values and ignores them.  Boot time only. */
void parse_cmdline(const char *cmdline);
/* Lists the known parameters with their help text. */
void show_kernel_params(void);

/* What the number parsers below (and parameter setup functions) return. */
#define PARSE_OK	0
#define PARSE_BAD	(-1)	/* not a number, or junk after it */
#define PARSE_RANGE	(-2)	/* a number, but outside the allowed range */

/* Parses a whole word as an unsigned number, decimal or 0x-prefixed hex,
 * and checks min <= *val <= max.  Never saturates: a number that does not
 * fit in an unsigned long is PARSE_RANGE.  *val is set only on PARSE_OK. */
int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *val);

/* Parses a size: a number as above with an optional K, M or G suffix
 * (binary multiples).  A size that does not fit in an unsigned long is
 * PARSE_RANGE; *size is set only on PARSE_OK. */
int parse_size(const char *s, unsigned long *size);

#endif /* TINY_CMDLINE_H */
