/* arch/page.h (port example) - the page size: 4 KiB. */
#ifndef ARCH_PAGE_H
#define ARCH_PAGE_H

#define ARCH_PAGE_SHIFT	12

#endif /* ARCH_PAGE_H */
