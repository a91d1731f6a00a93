/* arch/page.h (i386) - the hardware page size. */
#ifndef ARCH_PAGE_H
#define ARCH_PAGE_H

#define ARCH_PAGE_SHIFT	12

#endif /* ARCH_PAGE_H */
