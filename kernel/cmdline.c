/* cmdline.c - applying the kernel command line.
 *
 * The loader's command line starts with the kernel's own path (GRUB and
 * QEMU both put it there); that word is skipped.  Every other word is
 * "name" or "name=value" and goes to the kernel_param() of that name.
 */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <tiny/boot.h>
#include <tiny/cmdline.h>

extern const struct kernel_param __start_kernel_params[], __stop_kernel_params[];

static const struct kernel_param *find_param(const char *word, size_t len)
{
	const struct kernel_param *p;

	for (p = __start_kernel_params; p < __stop_kernel_params; p++)
		if (strlen(p->name) == len && !strncmp(p->name, word, len))
			return p;
	return NULL;
}

int parse_size(const char *s, unsigned long *size)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = simple_strtoul(s, &end, 0);
	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	}
	if (*end)
		return -1;
	*size = v;
	return 0;
}

/* Handles one word, NUL-terminated in place; returns 0 if known and accepted. */
static int apply_word(char *word, int first)
{
	char *eq = strchr(word, '=');
	size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
	const struct kernel_param *p = find_param(word, name_len);

	if (!p) {
		if (first && !eq)
			return 0;	/* the kernel image's path */
		pr_warn("Unknown kernel command line parameter \"%s\", ignored\n", word);
		return -1;
	}
	if (p->setup(eq ? eq + 1 : NULL)) {
		pr_warn("Bad value for kernel parameter \"%s\", ignored (%s: %s)\n",
			word, p->name, p->help);
		return -1;
	}
	return 0;
}

/* Parameters keep pointers into this copy, so it lives as long as the kernel. */
static char cmdline_copy[BOOT_CMDLINE_SIZE];

void parse_cmdline(const char *cmdline)
{
	char *s = cmdline_copy;
	int first = 1;

	pr_info("Kernel command line: %s\n", cmdline);
	if (strscpy(cmdline_copy, cmdline, sizeof(cmdline_copy)) + 1 >= sizeof(cmdline_copy))
		pr_warn("Kernel command line longer than %zu characters; cut\n",
			sizeof(cmdline_copy) - 1);
	while (*s) {
		char *word;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		word = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
		apply_word(word, first);
		first = 0;
	}
}

void show_kernel_params(void)
{
	const struct kernel_param *p;

	for (p = __start_kernel_params; p < __stop_kernel_params; p++)
		printk("  %-12s %s\n", p->name, p->help);
}
