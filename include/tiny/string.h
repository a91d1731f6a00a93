/* string.h - the string and memory helpers the kernel provides.
 *
 * The kernel implements them in kernel/string.c; the host build of mm/
 * gets the same functions from its C library.
 */
#ifndef TINY_STRING_H
#define TINY_STRING_H

#include <tiny/types.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
void *memchr(const void *s, int c, size_t n);

/* Kernel-only helpers (kernel/string.c), not part of the host's libc. */
size_t strscpy(char *dst, const char *src, size_t size);
/* Parses an unsigned number in base 10 or, with 0x, 16; *end gets the first
 * unparsed character.  Saturates at ULONG_MAX. */
unsigned long simple_strtoul(const char *s, char **end, unsigned int base);

/* Returns the first byte in s[0..n) that differs from c, or NULL.  Inline:
 * the kernel and the host build both use it, and no C library has it. */
static inline void *memchr_inv(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p != (unsigned char)c)
			return (void *)p;
	return NULL;
}

#endif /* TINY_STRING_H */
