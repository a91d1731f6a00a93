/* vsprintf.c - printf-style formatting for printk and snprintf.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%, with the l, ll, z and h
 * length modifiers, the flags - 0 + space #, a field width and a
 * precision (either may be *).  %p prints a pointer as 0x plus hex digits.
 * %pE prints a string with every byte outside printable ASCII as \xNN
 * (and a backslash as \\), so that text from outside (command lines, names
 * in a trace) cannot reach the terminal as control sequences; a width pads
 * the escaped text.  %pS prints a kernel text address as the function
 * that holds it, with the offset and the function's size
 * ("kmalloc+0x1c/0x80"); %ps prints the name alone; an address outside the
 * text (or any address without CONFIG_KALLSYMS) prints as 0x plus hex.
 */
#include <tiny/kernel.h>
#include <tiny/kallsyms.h>
#include <tiny/string.h>

struct fmt_spec {
	unsigned int left:1, zero:1, plus:1, space:1, alt:1, upper:1;
	int width;
	int precision;		/* -1 if none */
	unsigned int base;
};

struct out_buf {
	char *buf;
	size_t size;
	size_t len;		/* characters produced so far, stored or not */
};

static void put(struct out_buf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out_buf *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_string(struct out_buf *o, const char *s, const struct fmt_spec *f)
{
	int len, i;

	if (!s)
		s = "(null)";
	len = (int)strnlen(s, f->precision >= 0 ? (size_t)f->precision : (size_t)-1);
	if (!f->left)
		pad(o, ' ', f->width - len);
	for (i = 0; i < len; i++)
		put(o, s[i]);
	if (f->left)
		pad(o, ' ', f->width - len);
}

/* Writes byte c as it shows in %pE output; returns the characters written. */
static int put_escaped_byte(struct out_buf *o, unsigned char c)
{
	const char *hex = "0123456789abcdef";

	if (c >= 0x20 && c < 0x7f && c != '\\') {
		if (o)
			put(o, (char)c);
		return 1;
	}
	if (o) {
		put(o, '\\');
		if (c == '\\') {
			put(o, '\\');
		} else {
			put(o, 'x');
			put(o, hex[c >> 4]);
			put(o, hex[c & 15]);
		}
	}
	return c == '\\' ? 2 : 4;
}

static void put_escaped_string(struct out_buf *o, const char *s, const struct fmt_spec *f)
{
	int len, i, width = 0;

	if (!s)
		s = "(null)";
	len = (int)strlen(s);
	for (i = 0; i < len; i++)
		width += put_escaped_byte(NULL, (unsigned char)s[i]);
	if (!f->left)
		pad(o, ' ', f->width - width);
	for (i = 0; i < len; i++)
		put_escaped_byte(o, (unsigned char)s[i]);
	if (f->left)
		pad(o, ' ', f->width - width);
}

static void put_number(struct out_buf *o, unsigned long long v, int negative,
		       const struct fmt_spec *f);

/* %pS (with_offset) or %ps: the symbol holding addr, padded to the width. */
static void put_symbol(struct out_buf *o, unsigned long addr, int with_offset,
		       const struct fmt_spec *f)
{
	struct fmt_spec plain = { .precision = -1, .base = 10 };
	unsigned long offset, size;
	const char *name = kallsyms_lookup(addr, &offset, &size);
	char buf[96];

	if (!name)
		snprintf(buf, sizeof(buf), "%#lx", addr);
	else if (with_offset)
		snprintf(buf, sizeof(buf), "%s+%#lx/%#lx", name, offset, size);
	else
		snprintf(buf, sizeof(buf), "%s", name);
	plain.width = f->width;
	plain.left = f->left;
	put_string(o, buf, &plain);
}

static void put_number(struct out_buf *o, unsigned long long v, int negative,
		       const struct fmt_spec *f)
{
	const char *digits = f->upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], sign = 0;
	const char *prefix = "";
	int n = 0, zeros, width;

	do {
		tmp[n++] = digits[v % f->base];
		v /= f->base;
	} while (v);
	if (f->precision == 0 && n == 1 && tmp[0] == '0')
		n = 0;
	if (negative)
		sign = '-';
	else if (f->plus)
		sign = '+';
	else if (f->space)
		sign = ' ';
	if (f->alt && f->base == 16)
		prefix = f->upper ? "0X" : "0x";
	else if (f->alt && f->base == 8 && (n == 0 || tmp[n - 1] != '0'))
		prefix = "0";

	zeros = f->precision > n ? f->precision - n : 0;
	width = f->width - n - zeros - (sign ? 1 : 0) - (int)strlen(prefix);
	if (f->zero && !f->left && f->precision < 0) {
		zeros += width;
		width = 0;
	}
	if (!f->left)
		pad(o, ' ', width);
	if (sign)
		put(o, sign);
	while (*prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (n > 0)
		put(o, tmp[--n]);
	if (f->left)
		pad(o, ' ', width);
}

/* Reads flags, width and precision; returns the position after them. */
static const char *parse_spec(const char *p, struct fmt_spec *f, va_list *ap)
{
	for (;; p++) {
		if (*p == '-')
			f->left = 1;
		else if (*p == '0')
			f->zero = 1;
		else if (*p == '+')
			f->plus = 1;
		else if (*p == ' ')
			f->space = 1;
		else if (*p == '#')
			f->alt = 1;
		else
			break;
	}
	if (*p == '*') {
		f->width = va_arg(*ap, int);
		if (f->width < 0) {
			f->left = 1;
			f->width = -f->width;
		}
		p++;
	} else {
		while (*p >= '0' && *p <= '9')
			f->width = f->width * 10 + (*p++ - '0');
	}
	if (*p == '.') {
		p++;
		f->precision = 0;
		if (*p == '*') {
			f->precision = va_arg(*ap, int);
			p++;
		} else {
			while (*p >= '0' && *p <= '9')
				f->precision = f->precision * 10 + (*p++ - '0');
		}
	}
	return p;
}

/* Length modifiers: returns 'H' for hh, 'h', 'l', 'L' for ll, 'z', or 0. */
static const char *parse_length(const char *p, char *len)
{
	*len = 0;
	if (p[0] == 'l' && p[1] == 'l') {
		*len = 'L';
		return p + 2;
	}
	if (p[0] == 'h' && p[1] == 'h') {
		*len = 'H';
		return p + 2;
	}
	if (*p == 'l' || *p == 'h' || *p == 'z' || *p == 't') {
		*len = *p == 't' ? 'z' : *p;
		return p + 1;
	}
	return p;
}

static unsigned long long get_unsigned(char len, va_list *ap)
{
	switch (len) {
	case 'L': return va_arg(*ap, unsigned long long);
	case 'l': return va_arg(*ap, unsigned long);
	case 'z': return va_arg(*ap, size_t);
	case 'h': return (unsigned short)va_arg(*ap, unsigned int);
	case 'H': return (unsigned char)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

static long long get_signed(char len, va_list *ap)
{
	switch (len) {
	case 'L': return va_arg(*ap, long long);
	case 'l': return va_arg(*ap, long);
	case 'z': return (long long)(intptr_t)va_arg(*ap, size_t);
	case 'h': return (short)va_arg(*ap, int);
	case 'H': return (signed char)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static void format_one(struct out_buf *o, char conv, char len, struct fmt_spec *f, va_list *ap)
{
	long long sv;
	char c;

	switch (conv) {
	case 'd':
	case 'i':
		sv = get_signed(len, ap);
		put_number(o, sv < 0 ? -(unsigned long long)sv : (unsigned long long)sv, sv < 0, f);
		break;
	case 'u':
		put_number(o, get_unsigned(len, ap), 0, f);
		break;
	case 'X':
		f->upper = 1;
		/* fall through */
	case 'x':
		f->base = 16;
		put_number(o, get_unsigned(len, ap), 0, f);
		break;
	case 'o':
		f->base = 8;
		put_number(o, get_unsigned(len, ap), 0, f);
		break;
	case 'p':
		f->base = 16;
		f->alt = 1;
		put_number(o, (uintptr_t)va_arg(*ap, void *), 0, f);
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		if (!f->left)
			pad(o, ' ', f->width - 1);
		put(o, c);
		if (f->left)
			pad(o, ' ', f->width - 1);
		break;
	case 's':
		put_string(o, va_arg(*ap, const char *), f);
		break;
	case '%':
		put(o, '%');
		break;
	default:		/* unknown conversion: show it as written */
		put(o, '%');
		put(o, conv);
		break;
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	struct out_buf o = { buf, size, 0 };
	va_list ap;
	char len;

	va_copy(ap, args);
	while (*fmt) {
		struct fmt_spec f = { .precision = -1, .base = 10 };

		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &f, &ap);
		fmt = parse_length(fmt, &len);
		if (!*fmt)
			break;
		if (fmt[0] == 'p' && fmt[1] == 'E') {
			put_escaped_string(&o, va_arg(ap, const char *), &f);
			fmt += 2;
			continue;
		}
		if (fmt[0] == 'p' && (fmt[1] == 'S' || fmt[1] == 's')) {
			put_symbol(&o, (unsigned long)(uintptr_t)va_arg(ap, void *), fmt[1] == 'S', &f);
			fmt += 2;
			continue;
		}
		format_one(&o, *fmt++, len, &f, &ap);
	}
	va_end(ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}
