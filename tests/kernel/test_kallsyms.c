/* test_kallsyms.c - self-tests of the built-in symbol table and %pS:
 * known functions resolve to their names, with the offset and size;
 * addresses outside the text resolve to nothing and print as numbers. */
#include <tiny/kernel.h>
#include <tiny/kallsyms.h>
#include <tiny/ktest.h>
#include <tiny/slab.h>
#include <tiny/string.h>

/* A function of known name whose body is long enough to take offsets in. */
static noinline int kallsyms_probe_target(volatile int *v)
{
	int i, sum = 0;

	for (i = 0; i < 8; i++)
		sum += v[i] * (i + 1);
	return sum;
}

static const int not_text = 42;		/* in .rodata: outside the text */

static unsigned long addr_of(int (*fn)(volatile int *))
{
	return (unsigned long)(uintptr_t)fn;
}

static void known_function_resolves(struct ktest *t)
{
	unsigned long offset = 99, size = 0, a = addr_of(kallsyms_probe_target);

	KTEST_ASSERT_GE(t, kallsyms_count(), 100ul);
	KTEST_EXPECT_STREQ(t, kallsyms_lookup(a, &offset, &size), "kallsyms_probe_target");
	KTEST_EXPECT_EQ(t, offset, 0ul);
	KTEST_EXPECT_GE(t, size, 16ul);
	KTEST_EXPECT_LT(t, size, 512ul);
}

static void offsets_inside_the_function(struct ktest *t)
{
	unsigned long offset, size, a = addr_of(kallsyms_probe_target);
	const char *next;

	KTEST_ASSERT_TRUE(t, kallsyms_lookup(a, &offset, &size) != NULL);
	KTEST_EXPECT_STREQ(t, kallsyms_lookup(a + 0x5, &offset, NULL), "kallsyms_probe_target");
	KTEST_EXPECT_EQ(t, offset, 0x5ul);
	KTEST_EXPECT_STREQ(t, kallsyms_lookup(a + size - 1, &offset, NULL), "kallsyms_probe_target");
	KTEST_EXPECT_EQ(t, offset, size - 1);
	next = kallsyms_lookup(a + size, &offset, NULL);	/* the next function, if any */
	KTEST_EXPECT_TRUE(t, !next || strcmp(next, "kallsyms_probe_target"));
	KTEST_EXPECT_TRUE(t, !next || offset == 0);
}

static void names_and_addresses_agree(struct ktest *t)
{
	unsigned long offset;

	KTEST_EXPECT_EQ(t, kallsyms_lookup_name("kallsyms_probe_target"),
			addr_of(kallsyms_probe_target));
	KTEST_EXPECT_EQ(t, kallsyms_lookup_name("kmalloc"), (unsigned long)(uintptr_t)kmalloc);
	KTEST_EXPECT_STREQ(t, kallsyms_lookup((unsigned long)(uintptr_t)kfree + 1, &offset, NULL),
			   "kfree");
	KTEST_EXPECT_EQ(t, kallsyms_lookup_name("no_such_function_here"), 0ul);
}

static void outside_text_is_unknown(struct ktest *t)
{
	unsigned long offset = 7, size = 7;
	char buf[32], want[32];

	KTEST_EXPECT_NULL(t, kallsyms_lookup((unsigned long)(uintptr_t)&not_text, &offset, &size));
	KTEST_EXPECT_EQ(t, offset, 7ul);	/* untouched */
	KTEST_EXPECT_NULL(t, kallsyms_lookup(0, NULL, NULL));
	KTEST_EXPECT_NULL(t, kallsyms_lookup(~0ul, NULL, NULL));
	snprintf(buf, sizeof(buf), "%pS", &not_text);
	snprintf(want, sizeof(want), "%#lx", (unsigned long)(uintptr_t)&not_text);
	KTEST_EXPECT_STREQ(t, buf, want);
}

static void percent_pS_and_ps(struct ktest *t)
{
	unsigned long size, a = addr_of(kallsyms_probe_target);
	char buf[96], want[96];

	KTEST_ASSERT_TRUE(t, kallsyms_lookup(a, NULL, &size) != NULL);
	snprintf(buf, sizeof(buf), "%pS", (void *)(uintptr_t)(a + 0x1c));
	snprintf(want, sizeof(want), "kallsyms_probe_target+0x1c/%#lx", size);
	KTEST_EXPECT_STREQ(t, buf, want);
	snprintf(buf, sizeof(buf), "[%ps]", (void *)(uintptr_t)(a + 3));
	KTEST_EXPECT_STREQ(t, buf, "[kallsyms_probe_target]");
	snprintf(buf, sizeof(buf), "[%-8ps]", (void *)(uintptr_t)kfree);
	KTEST_EXPECT_STREQ(t, buf, "[kfree   ]");
}

static const struct ktest_case kallsyms_cases[] = {
	KTEST_CASE(known_function_resolves),
	KTEST_CASE(offsets_inside_the_function),
	KTEST_CASE(names_and_addresses_agree),
	KTEST_CASE(outside_text_is_unknown),
	KTEST_CASE(percent_pS_and_ps),
	{}
};

static const struct ktest_suite kallsyms_suite = { .name = "kallsyms", .cases = kallsyms_cases };
KTEST_SUITE(kallsyms_suite);
