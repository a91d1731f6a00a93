/* asm/io.h (i386) - port I/O.  Only arch/x86 includes this. */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <tiny/types.h>

static inline void outb(u8 value, u16 port)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 value;

	__asm__ __volatile__("inb %1, %0" : "=a"(value) : "Nd"(port));
	return value;
}

static inline void outw(u16 value, u16 port)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(value), "Nd"(port));
}

/* A write to an unused port: about a microsecond of delay for slow devices. */
static inline void io_delay(void)
{
	outb(0, 0x80);
}

#endif /* ASM_IO_H */
