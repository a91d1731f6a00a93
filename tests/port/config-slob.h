/* config-slob.h (port example) - the configuration mm/ is built with, as
 * Kconfig's autoconf.h would give it: one CPU, SLOB, self-tests. */
#define CONFIG_SLOB 1
#define CONFIG_SLOB_SMALL_HEAP 1
#define CONFIG_NR_CPUS 1
#define CONFIG_MAX_ORDER 11
#define CONFIG_HZ 100
#define CONFIG_SELFTEST 1
