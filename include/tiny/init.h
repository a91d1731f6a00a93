/* init.h - state of the boot sequence shared by init/main.c and kernel/. */
#ifndef TINY_INIT_H
#define TINY_INIT_H

/* Set by the "selftest" and "poweroff" parameters: end the run (exit QEMU
 * with a pass/fail status) after the boot actions, and on panic. */
extern int exit_when_done;

void start_kernel(unsigned long magic, void *multiboot_info);

#endif /* TINY_INIT_H */
