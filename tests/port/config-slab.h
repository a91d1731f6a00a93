/* config-slab.h (port example) - the configuration mm/ is built with, as
 * Kconfig's autoconf.h would give it: one CPU, SLAB, self-tests. */
#define CONFIG_SLAB 1
#define CONFIG_SLAB_REGISTRY 1
#define CONFIG_KMALLOC_CLASSES 1
#define CONFIG_SLAB_PERCPU_CAPACITY 1
#define CONFIG_NR_CPUS 1
#define CONFIG_MAX_ORDER 11
#define CONFIG_HZ 100
#define CONFIG_SELFTEST 1
