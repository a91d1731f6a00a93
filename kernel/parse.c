/* parse.c - the number parsers that the command line's parameters and the
 * console share (<tiny/cmdline.h>).  Pure functions: the host build of mm/
 * links them too, for the parameters mm/ registers (SLUB's slub_max_order=
 * and slub_min_objects=).
 */
#include <tiny/kernel.h>
#include <tiny/cmdline.h>

#define ULONG_MAX_VALUE	((unsigned long)-1)

/* The value of digit c in base 10 or 16, or -1. */
static int digit_in_base(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Reads the digits at s (decimal, or hex after 0x) into *v and points *end
 * after them.  Returns PARSE_BAD if there are none, PARSE_RANGE if the
 * number does not fit in an unsigned long (every digit is still consumed).
 */
static int parse_digits(const char *s, unsigned long *v, const char **end)
{
	unsigned int base = 10;
	unsigned long n = 0;
	int d, overflow = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_in_base(s[2], 16) >= 0) {
		s += 2;
		base = 16;
	}
	if (digit_in_base(*s, base) < 0)
		return PARSE_BAD;
	for (; (d = digit_in_base(*s, base)) >= 0; s++) {
		if (n > (ULONG_MAX_VALUE - (unsigned long)d) / base)
			overflow = 1;
		else
			n = n * base + (unsigned long)d;
	}
	*v = n;
	*end = s;
	return overflow ? PARSE_RANGE : PARSE_OK;
}

int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *val)
{
	const char *end;
	unsigned long v;
	int r;

	if (!s)
		return PARSE_BAD;
	r = parse_digits(s, &v, &end);
	if (r == PARSE_BAD || *end)
		return PARSE_BAD;
	if (r == PARSE_RANGE || v < min || v > max)
		return PARSE_RANGE;
	*val = v;
	return PARSE_OK;
}

int parse_size(const char *s, unsigned long *size)
{
	unsigned int shift = 0;
	const char *end;
	unsigned long v;
	int r;

	if (!s)
		return PARSE_BAD;
	r = parse_digits(s, &v, &end);
	if (r == PARSE_BAD)
		return PARSE_BAD;
	switch (*end) {
	case 'G': case 'g': shift = 30; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'K': case 'k': shift = 10; end++; break;
	}
	if (*end)
		return PARSE_BAD;
	if (r == PARSE_RANGE || v > ULONG_MAX_VALUE >> shift)
		return PARSE_RANGE;
	*size = v << shift;
	return PARSE_OK;
}
