/* test_printk.c - self-tests of the printf formatting behind printk. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/string.h>

#define CHECK_FMT(t, expect, ...) do {					\
	char _buf[64];							\
	int _n = snprintf(_buf, sizeof(_buf), __VA_ARGS__);		\
	KTEST_EXPECT_STREQ(t, _buf, expect);				\
	KTEST_EXPECT_EQ(t, _n, (int)strlen(expect));			\
} while (0)

static void signed_decimal(struct ktest *t)
{
	CHECK_FMT(t, "0", "%d", 0);
	CHECK_FMT(t, "-42", "%d", -42);
	CHECK_FMT(t, "2147483647", "%i", 2147483647);
	CHECK_FMT(t, "-2147483648", "%d", (int)0x80000000);
	CHECK_FMT(t, "-9223372036854775808", "%lld", (long long)0x8000000000000000ULL);
	CHECK_FMT(t, "+7  7", "%+d % d", 7, 7);
}

static void unsigned_and_hex(struct ktest *t)
{
	CHECK_FMT(t, "4294967295", "%u", 0xffffffffu);
	CHECK_FMT(t, "deadbeef", "%x", 0xdeadbeefu);
	CHECK_FMT(t, "DEADBEEF", "%X", 0xdeadbeefu);
	CHECK_FMT(t, "0xff", "%#x", 255u);
	CHECK_FMT(t, "777", "%o", 511u);
	CHECK_FMT(t, "ffffffff", "%lx", 0xffffffffUL);
	CHECK_FMT(t, "123456789", "%lu", 123456789UL);
	CHECK_FMT(t, "18446744073709551615", "%llu", ~0ULL);
	CHECK_FMT(t, "4096", "%zu", (size_t)4096);
}

static void width_and_padding(struct ktest *t)
{
	CHECK_FMT(t, "   42", "%5d", 42);
	CHECK_FMT(t, "42   |", "%-5d|", 42);
	CHECK_FMT(t, "00042", "%05d", 42);
	CHECK_FMT(t, "-0042", "%05d", -42);
	CHECK_FMT(t, "0000beef", "%08x", 0xbeefu);
	CHECK_FMT(t, "0x00ff", "%#06x", 255u);
	CHECK_FMT(t, "  007", "%5.3d", 7);
	CHECK_FMT(t, "   42", "%*d", 5, 42);
	CHECK_FMT(t, "42   |", "%*d|", -5, 42);
}

static void strings_and_chars(struct ktest *t)
{
	const char *volatile null_string = NULL;

	CHECK_FMT(t, "hello", "%s", "hello");
	CHECK_FMT(t, "   hi", "%5s", "hi");
	CHECK_FMT(t, "hi   |", "%-5s|", "hi");
	CHECK_FMT(t, "hel", "%.3s", "hello");
	CHECK_FMT(t, "(null)", "%s", null_string);
	CHECK_FMT(t, "x", "%c", 'x');
	CHECK_FMT(t, "  x", "%3c", 'x');
	CHECK_FMT(t, "100%", "%d%%", 100);
}

static void pointers(struct ktest *t)
{
	CHECK_FMT(t, "0x1000", "%p", (void *)0x1000);
	CHECK_FMT(t, "0x0", "%p", (void *)0);
}

/* %pE: text from outside the kernel cannot drive the terminal. */
static void escaped_strings(struct ktest *t)
{
	CHECK_FMT(t, "plain text", "%pE", "plain text");
	CHECK_FMT(t, "\\x1b[2J\\x07", "%pE", "\033[2J\a");
	CHECK_FMT(t, "a\\\\b\\x7f\\xff\\x0d", "%pE", "a\\b\x7f\xff\r");
	CHECK_FMT(t, "   \\x09|", "%7pE|", "\t");		/* width: of the escaped text */
	CHECK_FMT(t, "\\x09   |", "%-7pE|", "\t");
	CHECK_FMT(t, "(null)", "%pE", (const char *)NULL);
	CHECK_FMT(t, "<\\x1b>E", "<%pE>%c", "\033", 'E');	/* arguments after it */
}

static void truncation(struct ktest *t)
{
	char buf[8];
	int n;

	memset(buf, 'X', sizeof(buf));
	n = snprintf(buf, sizeof(buf), "%s", "0123456789");
	KTEST_EXPECT_EQ(t, n, 10);
	KTEST_EXPECT_STREQ(t, buf, "0123456");
	n = snprintf(buf, 0, "%d", 12345);
	KTEST_EXPECT_EQ(t, n, 5);
	KTEST_EXPECT_EQ(t, buf[0], '0');	/* size 0: nothing written */
}

static void log_levels(struct ktest *t)
{
	int saved = console_loglevel;

	/* printk returns the formatted length whether or not the level is shown. */
	console_loglevel = 0;
	KTEST_EXPECT_EQ(t, printk(KERN_DEBUG "hidden %d\n", 5), 9);
	console_loglevel = saved;
	KTEST_EXPECT_EQ(t, printk(KERN_INFO "# printk level test\n"), 20);
}

static const struct ktest_case printk_cases[] = {
	KTEST_CASE(signed_decimal),
	KTEST_CASE(unsigned_and_hex),
	KTEST_CASE(width_and_padding),
	KTEST_CASE(strings_and_chars),
	KTEST_CASE(pointers),
	KTEST_CASE(escaped_strings),
	KTEST_CASE(truncation),
	KTEST_CASE(log_levels),
	{}
};

static const struct ktest_suite printk_suite = { .name = "printk", .cases = printk_cases };
KTEST_SUITE(printk_suite);
