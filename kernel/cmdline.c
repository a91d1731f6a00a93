/* cmdline.c - applying the kernel command line (the number parsers its
 * parameters use are in kernel/parse.c).
 *
 * The loader's command line starts with the kernel's own path (GRUB and
 * QEMU both put it there); that word is skipped.  Every other word is
 * "name" or "name=value" and goes to the kernel_param() of that name,
 * which says whether it takes a value (<tiny/cmdline.h>).
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

/* Says why the setup of parameter p refused the value in word. */
static void report_bad_value(const char *word, const struct kernel_param *p, int why)
{
	pr_warn("Bad value for kernel parameter \"%pE\", ignored%s (%s%s%s)\n", word,
		why == PARSE_RANGE ? ": out of range" : "", p->name,
		p->help[0] == '=' ? "" : ": ", p->help);
}

/* Handles one word, NUL-terminated in place; returns 0 if known and accepted. */
static int apply_word(char *word, int first)
{
	char *eq = strchr(word, '=');
	size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
	const struct kernel_param *p = find_param(word, name_len);
	int r;

	if (!p) {
		if (first && !eq)
			return 0;	/* the kernel image's path */
		pr_warn("Unknown kernel command line parameter \"%pE\", ignored\n", word);
		return -1;
	}
	if (p->kind == KP_FLAG && eq) {
		pr_warn("Kernel parameter \"%pE\" ignored: %s is a flag and takes no value\n",
			word, p->name);
		return -1;
	}
	if (p->kind == KP_VALUE && !eq) {
		pr_warn("Kernel parameter \"%s\" ignored: it needs a value (%s%s)\n", p->name,
			p->name, p->help);
		return -1;
	}
	r = p->setup(eq ? eq + 1 : NULL);
	if (r) {
		report_bad_value(word, p, r);
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

	pr_info("Kernel command line: %pE\n", cmdline);
	strscpy(cmdline_copy, cmdline, sizeof(cmdline_copy));
	if (strlen(cmdline) >= sizeof(cmdline_copy))	/* boot_info.cmdline never is */
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
