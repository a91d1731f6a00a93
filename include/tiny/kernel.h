/* kernel.h - arithmetic helpers and the declarations nearly every file needs. */
#ifndef TINY_KERNEL_H
#define TINY_KERNEL_H

#include <tiny/types.h>
#include <tiny/compiler.h>
#include <tiny/kconfig.h>
#include <tiny/printk.h>
#include <tiny/bug.h>

#define ALIGN(x, a)		(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a)		((__typeof__(p))ALIGN((uintptr_t)(p), (a)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define is_power_of_2(n)	((n) != 0 && (((n) & ((n) - 1)) == 0))

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))


/* Stops the machine after printing the message; never returns. */
__noreturn __printf(1, 2) void panic(const char *fmt, ...);

/* Nonzero while a hardware interrupt handler (or its host emulation) runs. */
int in_interrupt(void);

#endif /* TINY_KERNEL_H */
