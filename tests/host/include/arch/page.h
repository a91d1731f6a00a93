/* arch/page.h (host) - the emulated page size: 4 KiB like i386, unless the
 * build asks for another (HOST_PAGE_SHIFT), which proves that mm/ does not
 * assume 4096-byte pages. */
#ifndef ARCH_PAGE_H
#define ARCH_PAGE_H

#ifdef HOST_PAGE_SHIFT
#define ARCH_PAGE_SHIFT	HOST_PAGE_SHIFT
#else
#define ARCH_PAGE_SHIFT	12
#endif

#endif /* ARCH_PAGE_H */
