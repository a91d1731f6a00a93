/* test_string.c - self-tests of the kernel's string and memory helpers. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/string.h>

static void memory_functions(struct ktest *t)
{
	char a[16], b[16];

	memset(a, 'a', sizeof(a));
	KTEST_EXPECT_NULL(t, memchr_inv(a, 'a', sizeof(a)));
	memcpy(b, a, sizeof(b));
	KTEST_EXPECT_EQ(t, memcmp(a, b, sizeof(a)), 0);
	b[7] = 'b';
	KTEST_EXPECT_LT(t, memcmp(a, b, sizeof(a)), 0);
	KTEST_EXPECT_PTR_EQ(t, memchr_inv(b, 'a', sizeof(b)), &b[7]);
	KTEST_EXPECT_PTR_EQ(t, memchr(b, 'b', sizeof(b)), &b[7]);
	KTEST_EXPECT_NULL(t, memchr(b, 'z', sizeof(b)));
}

static void memmove_overlap(struct ktest *t)
{
	char s[] = "abcdefgh";

	memmove(s + 2, s, 5);		/* forwards overlap */
	KTEST_EXPECT_STREQ(t, s, "ababcdeh");
	memmove(s, s + 3, 5);		/* backwards overlap */
	KTEST_EXPECT_STREQ(t, s, "bcdehdeh");
}

static void string_functions(struct ktest *t)
{
	char buf[6];

	KTEST_EXPECT_EQ(t, strlen(""), 0u);
	KTEST_EXPECT_EQ(t, strlen("tinyslab"), 8u);
	KTEST_EXPECT_EQ(t, strnlen("tinyslab", 4), 4u);
	KTEST_EXPECT_EQ(t, strcmp("abc", "abc"), 0);
	KTEST_EXPECT_LT(t, strcmp("abc", "abd"), 0);
	KTEST_EXPECT_GT(t, strcmp("b", "abc"), 0);
	KTEST_EXPECT_EQ(t, strncmp("abcx", "abcy", 3), 0);
	KTEST_EXPECT_STREQ(t, strchr("a=b", '='), "=b");
	KTEST_EXPECT_NULL(t, strchr("abc", 'z'));
	KTEST_EXPECT_EQ(t, strscpy(buf, "truncated", sizeof(buf)), 5u);
	KTEST_EXPECT_STREQ(t, buf, "trunc");
}

static void number_parsing(struct ktest *t)
{
	char *end;

	KTEST_EXPECT_EQ(t, simple_strtoul("1234x", &end, 10), 1234UL);
	KTEST_EXPECT_EQ(t, *end, 'x');
	KTEST_EXPECT_EQ(t, simple_strtoul("0x1f", &end, 0), 31UL);
	KTEST_EXPECT_EQ(t, simple_strtoul("ff", &end, 16), 255UL);
	KTEST_EXPECT_EQ(t, simple_strtoul("99999999999999999999999", &end, 10), ~0UL);
	KTEST_EXPECT_EQ(t, *end, '\0');
	KTEST_EXPECT_EQ(t, simple_strtoul("", &end, 10), 0UL);
}

static const struct ktest_case string_cases[] = {
	KTEST_CASE(memory_functions),
	KTEST_CASE(memmove_overlap),
	KTEST_CASE(string_functions),
	KTEST_CASE(number_parsing),
	{}
};

static const struct ktest_suite string_suite = { .name = "string", .cases = string_cases };
KTEST_SUITE(string_suite);
