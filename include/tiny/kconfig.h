/* kconfig.h - IS_ENABLED() for plain-C tests of Kconfig options.
 *
 * autoconf.h defines CONFIG_FOO as 1 for every enabled bool option and
 * leaves disabled ones undefined.  IS_ENABLED(CONFIG_FOO) turns that into a
 * constant 0 or 1 that the compiler folds, so code can say
 * "if (IS_ENABLED(CONFIG_FOO))" instead of "#ifdef".
 */
#ifndef TINY_KCONFIG_H
#define TINY_KCONFIG_H

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)

#define IS_ENABLED(option) __is_defined(option)

#endif /* TINY_KCONFIG_H */
