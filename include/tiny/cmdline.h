/* cmdline.h - kernel command-line parameters, registered where they are used.
 *
 * kernel_param("name", setup, "help") puts an entry in the kernel_params
 * section; parse_cmdline() calls setup with the text after "name=" (or
 * NULL for a bare "name").  setup returns 0, or -1 for a bad value.
 */
#ifndef TINY_CMDLINE_H
#define TINY_CMDLINE_H

#include <tiny/compiler.h>

struct kernel_param {
	const char *name;
	int (*setup)(const char *val);
	const char *help;
};

#define kernel_param(_name, _setup, _help)					\
	static const struct kernel_param __kparam_##_setup			\
		__used __section("kernel_params") __aligned(sizeof(void *)) = {	\
		.name = _name, .setup = _setup, .help = _help }

/* Applies every parameter in cmdline (which it does not modify); warns
 * about unknown parameters and bad values.  Boot time only. */
void parse_cmdline(const char *cmdline);
/* Lists the known parameters with their help text. */
void show_kernel_params(void);

/* Parses a size with an optional K, M or G suffix; returns 0 on success. */
int parse_size(const char *s, unsigned long *size);

#endif /* TINY_CMDLINE_H */
