/* console.c - the interactive console on the serial line.
 *
 * After boot (unless told to power off) the kernel reads command lines
 * with simple editing (backspace, Ctrl-U to clear, escape sequences such
 * as arrow keys ignored) and runs them.  "help" lists the commands.
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/console.h>
#include <tiny/cmdline.h>
#include <tiny/ktest.h>
#include <tiny/mm.h>
#include <tiny/random.h>
#include <tiny/replay.h>
#include <tiny/slab.h>
#include <tiny/string.h>
#include <tiny/timer.h>

#define LINE_MAX	128
#define MAX_ARGS	4
#define PROMPT		"tinyslab> "

struct command {
	const char *name;
	const char *args;
	int min_args, max_args;		/* words after the command name */
	const char *help;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

/* Prints the usage line of the named command; returns -1. */
static int usage(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			printk("usage: %s %s\n", c->name, c->args[0] ? c->args : "(takes no arguments)");
	return -1;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		printk("  %-10s %-12s %s\n", c->name, c->args, c->help);
	printk("Kernel command-line parameters (given at boot):\n");
	show_kernel_params();
	return 0;
}

static int cmd_meminfo(int argc, char **argv)
{
	show_meminfo();
	return 0;
}

static int cmd_buddyinfo(int argc, char **argv)
{
	show_buddyinfo();
	return 0;
}

static int cmd_kmem(int argc, char **argv)
{
	kmem_report();
	return 0;
}

static int cmd_selftest(int argc, char **argv)
{
	int r = ktest_run(argc > 1 ? argv[1] : NULL);

	printk("selftest: %s\n", r == 0 ? "PASS" : "FAIL");
	return r ? -1 : 0;
}

static int cmd_shrink(int argc, char **argv)
{
	unsigned long before = nr_free_pages(), freed = kmem_reclaim();

	printk("shrink: %lu pages given back; MemFree %lu kB -> %lu kB\n", freed,
	       before << (PAGE_SHIFT - 10), nr_free_pages() << (PAGE_SHIFT - 10));
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	int errors = page_alloc_validate() + kmem_validate();

	printk("validate: %d inconsistencies found\n", errors);
	return errors ? -1 : 0;
}

/* One round of the stress command: a random operation on a random slot. */
static int stress_step(struct rnd_state *r, void **slot, size_t *len)
{
	size_t size = 1 + prandom_below(r, prandom_below(r, 8) ? 512 : 3 * PAGE_SIZE);

	if (*slot) {
		if (memchr_inv(*slot, (int)(*len & 0xff), *len)) {
			printk(KERN_ERR "stress: object %p (%zu bytes) was corrupted\n", *slot, *len);
			return -1;
		}
		kfree(*slot);
		*slot = NULL;
		return 0;
	}
	*slot = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (*slot) {
		*len = size;
		memset(*slot, (int)(size & 0xff), size);
	}
	return 0;
}

static int cmd_stress(int argc, char **argv)
{
	unsigned long rounds, i, done;
	void *slots[256] = { NULL };
	size_t lens[256];
	struct rnd_state r;
	char *end;
	int errors = 0;

	rounds = simple_strtoul(argv[1], &end, 0);
	if (*end || !rounds)
		return usage("stress");
	prandom_seed(&r, (u32)jiffies);
	for (done = 0; done < rounds && !errors; done++) {
		unsigned int k = prandom_below(&r, ARRAY_SIZE(slots));

		errors += stress_step(&r, &slots[k], &lens[k]) != 0;
	}
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		kfree(slots[i]);
	printk("stress: %lu operations, %s\n", done, errors ? "CORRUPTION FOUND" : "no corruption");
	return errors ? -1 : 0;
}

static int cmd_replay(int argc, char **argv)
{
	return replay_from_boot_module() ? -1 : 0;
}

static int cmd_halt(int argc, char **argv)
{
	printk("System halting.\n");
	arch_exit(EXIT_PASS);
}

static const struct command commands[] = {
	{ "help", "", 0, 0, "this list", cmd_help },
	{ "meminfo", "", 0, 0, "MemTotal, MemFree, Slab", cmd_meminfo },
	{ "buddyinfo", "", 0, 0, "free blocks per order", cmd_buddyinfo },
	{ "slabinfo", "", 0, 0, "the object allocator's report (slabinfo or SLOB heap)", cmd_kmem },
	{ "heap", "", 0, 0, "the same report, by its SLOB name", cmd_kmem },
	{ "selftest", "[suite,...]", 0, 1, "run self-tests (all, or the suites named)", cmd_selftest },
	{ "stress", "<n>", 1, 1, "n random kmalloc/kfree operations, contents checked", cmd_stress },
	{ "shrink", "", 0, 0, "give every spare page back to the page allocator now", cmd_shrink },
	{ "validate", "", 0, 0, "check the page and object allocators' structures", cmd_validate },
	{ "replay", "", 0, 0, "replay the allocation trace loaded as a boot module", cmd_replay },
	{ "halt", "", 0, 0, "stop the machine (ends the QEMU run)", cmd_halt },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

static int split_args(char *line, char **argv)
{
	int argc = 0;

	while (*line) {
		while (*line == ' ' || *line == '\t')
			*line++ = '\0';
		if (!*line)
			break;
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
	}
	return argc;
}

int console_execute(char *line)
{
	const struct command *c;
	char *argv[MAX_ARGS];
	int argc = split_args(line, argv);

	if (argc == 0)
		return 0;
	if (argc < 0)
		argc = MAX_ARGS + 1;	/* too many words: the usage check below catches it */
	for (c = commands; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (argc - 1 < c->min_args || argc - 1 > c->max_args)
			return usage(c->name);
		return c->run(argc, argv);
	}
	printk("unknown command \"%s\"; type \"help\" for the list\n", argc > 0 ? argv[0] : "");
	return -1;
}

static int console_getc_wait(void)
{
	int c;

	while ((c = arch_console_getc()) < 0)
		arch_idle();
	return c;
}

/* Reads one line with editing; returns its length. */
static size_t read_line(char *buf, size_t size)
{
	size_t n = 0;
	int c;

	for (;;) {
		c = console_getc_wait();
		if (c == '\r' || c == '\n') {
			arch_console_write("\n", 1);
			buf[n] = '\0';
			return n;
		} else if (c == 0x7f || c == '\b') {
			if (n) {
				n--;
				arch_console_write("\b \b", 3);
			}
		} else if (c == 0x15) {			/* Ctrl-U */
			while (n) {
				n--;
				arch_console_write("\b \b", 3);
			}
		} else if (c == 0x1b) {			/* ESC [ ... final byte */
			c = console_getc_wait();
			if (c == '[')
				while ((c = console_getc_wait()) >= 0x20 && c < 0x40)
					;
		} else if (c >= 0x20 && c < 0x7f && n + 1 < size) {
			char ch = (char)c;

			buf[n++] = ch;
			arch_console_write(&ch, 1);
		}
	}
}

void console_run(void)
{
	char line[LINE_MAX];

	arch_console_input_init();
	printk("Console ready: type \"help\" for commands, \"halt\" to stop.\n");
	for (;;) {
		arch_console_write(PROMPT, sizeof(PROMPT) - 1);
		read_line(line, sizeof(line));
		console_execute(line);
	}
}
