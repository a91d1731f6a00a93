/* test_cmdline.c - self-tests of the number parsers behind the kernel
 * command line and the console: ranges, overflow, suffixes, junk. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/cmdline.h>

#define ULONG_MAX_VALUE	((unsigned long)-1)

/* parse_ulong(s, min, max) returns expect and, on success, value. */
#define CHECK_ULONG(t, s, min, max, expect, value) do {			\
	unsigned long _v = 12345;					\
	KTEST_EXPECT_EQ(t, parse_ulong(s, min, max, &_v), expect);	\
	KTEST_EXPECT_EQ(t, _v, (expect) == PARSE_OK ? (value) : 12345UL);	\
} while (0)

#define CHECK_SIZE(t, s, expect, value) do {				\
	unsigned long _v = 12345;					\
	KTEST_EXPECT_EQ(t, parse_size(s, &_v), expect);			\
	KTEST_EXPECT_EQ(t, _v, (expect) == PARSE_OK ? (value) : 12345UL);	\
} while (0)

static void numbers_in_range(struct ktest *t)
{
	CHECK_ULONG(t, "0", 0, 7, PARSE_OK, 0UL);
	CHECK_ULONG(t, "7", 0, 7, PARSE_OK, 7UL);
	CHECK_ULONG(t, "0x1f", 0, 100, PARSE_OK, 31UL);
	CHECK_ULONG(t, "0XfF", 0, 1000, PARSE_OK, 255UL);
	CHECK_ULONG(t, "007", 0, 7, PARSE_OK, 7UL);
	CHECK_ULONG(t, "4294967295", 1, ULONG_MAX_VALUE, PARSE_OK, 4294967295UL);
	CHECK_ULONG(t, "0xffffffff", 1, ULONG_MAX_VALUE, PARSE_OK, 4294967295UL);
}

static void numbers_out_of_range(struct ktest *t)
{
	CHECK_ULONG(t, "8", 0, 7, PARSE_RANGE, 0UL);
	CHECK_ULONG(t, "0", 1, 7, PARSE_RANGE, 0UL);
	/* past ULONG_MAX: refused, never saturated to 4294967295 */
	CHECK_ULONG(t, "4294967296", 1, ULONG_MAX_VALUE, PARSE_RANGE, 0UL);
	CHECK_ULONG(t, "0x100000000", 1, ULONG_MAX_VALUE, PARSE_RANGE, 0UL);
	CHECK_ULONG(t, "99999999999999999999", 1, ULONG_MAX_VALUE, PARSE_RANGE, 0UL);
	CHECK_ULONG(t, "4294967295", 0, 7, PARSE_RANGE, 0UL);
}

static void numbers_malformed(struct ktest *t)
{
	CHECK_ULONG(t, "", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, NULL, 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "5x", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "-1", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "+1", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "0x", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "1 ", 0, 7, PARSE_BAD, 0UL);
	CHECK_ULONG(t, "99999999999999999999x", 0, 7, PARSE_BAD, 0UL);
}

static void sizes_up_to_the_limit(struct ktest *t)
{
	CHECK_SIZE(t, "16M", PARSE_OK, 16UL << 20);
	CHECK_SIZE(t, "2m", PARSE_OK, 2UL << 20);
	CHECK_SIZE(t, "640k", PARSE_OK, 640UL << 10);
	CHECK_SIZE(t, "1g", PARSE_OK, 1UL << 30);
	CHECK_SIZE(t, "0x800000", PARSE_OK, 8UL << 20);
	/* the largest of each unit, exactly */
	CHECK_SIZE(t, "4294967295", PARSE_OK, 0xffffffffUL);
	CHECK_SIZE(t, "4194303K", PARSE_OK, 0xfffffc00UL);
	CHECK_SIZE(t, "4095M", PARSE_OK, 0xfff00000UL);
	CHECK_SIZE(t, "3G", PARSE_OK, 0xc0000000UL);
}

static void sizes_that_overflow(struct ktest *t)
{
	CHECK_SIZE(t, "4294967296", PARSE_RANGE, 0UL);
	CHECK_SIZE(t, "4194304K", PARSE_RANGE, 0UL);
	CHECK_SIZE(t, "4096M", PARSE_RANGE, 0UL);
	CHECK_SIZE(t, "4098M", PARSE_RANGE, 0UL);	/* was 2 MiB */
	CHECK_SIZE(t, "4G", PARSE_RANGE, 0UL);
	CHECK_SIZE(t, "5G", PARSE_RANGE, 0UL);		/* was 1 GiB */
	CHECK_SIZE(t, "99999999999G", PARSE_RANGE, 0UL);	/* was 3 GiB */
	CHECK_SIZE(t, "99999999999999999999", PARSE_RANGE, 0UL);
}

static void sizes_malformed(struct ktest *t)
{
	CHECK_SIZE(t, "", PARSE_BAD, 0UL);
	CHECK_SIZE(t, "M", PARSE_BAD, 0UL);
	CHECK_SIZE(t, "16MB", PARSE_BAD, 0UL);
	CHECK_SIZE(t, "16T", PARSE_BAD, 0UL);
	CHECK_SIZE(t, "-16M", PARSE_BAD, 0UL);
	CHECK_SIZE(t, "99999999999GB", PARSE_BAD, 0UL);
}

static const struct ktest_case cmdline_cases[] = {
	KTEST_CASE(numbers_in_range),
	KTEST_CASE(numbers_out_of_range),
	KTEST_CASE(numbers_malformed),
	KTEST_CASE(sizes_up_to_the_limit),
	KTEST_CASE(sizes_that_overflow),
	KTEST_CASE(sizes_malformed),
	{}
};

static const struct ktest_suite cmdline_suite = { .name = "cmdline", .cases = cmdline_cases };
KTEST_SUITE(cmdline_suite);
