/* config-slub_sheaves.h (port example) - the configuration mm/ is built
 * with, as Kconfig's autoconf.h would give it: one CPU, SLUB with its
 * per-CPU sheaves and barns (Linux 7.0's layer), self-tests. */
#define CONFIG_SLUB 1
#define CONFIG_SLAB_REGISTRY 1
#define CONFIG_KMALLOC_CLASSES 1
#define CONFIG_SLAB_PERCPU_CAPACITY 1
#define CONFIG_SLUB_SHEAVES 1
#define CONFIG_SLUB_PERCPU 1
#define CONFIG_NR_CPUS 1
#define CONFIG_MAX_ORDER 11
#define CONFIG_HZ 100
#define CONFIG_SELFTEST 1
