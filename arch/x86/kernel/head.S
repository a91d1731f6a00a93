/* head.S - the Multiboot header and the kernel's first instructions.
 *
 * A Multiboot loader (GRUB, or QEMU's -kernel) loads the ELF image at
 * 1 MiB and jumps to _start in 32-bit protected mode with paging off,
 * EAX = the loader's magic and EBX = the Multiboot information.  We set up
 * a stack and call start_kernel(magic, info).
 */
#include <asm/multiboot.h>

#define MB_FLAGS	(MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

	.section .multiboot, "a"
	.balign 4
	.long MULTIBOOT_HEADER_MAGIC
	.long MB_FLAGS
	.long -(MULTIBOOT_HEADER_MAGIC + MB_FLAGS)

	.section .text.entry, "ax"
	.globl _start
	.type _start, @function
_start:
	cli
	cld
	movl $boot_stack_top, %esp
	pushl $0
	popfl			/* known EFLAGS: interrupts off, DF clear */
	movl %eax, %esi
	xorl %eax, %eax		/* clear .bss, in case the loader did not */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	rep stosb
	call gdt_init		/* our GDT, TSS and (SMP) per-CPU %fs, before any C */
	movl %esi, %eax
	xorl %ebp, %ebp		/* ends the frame chain for stack dumps */
	pushl %ebx		/* struct multiboot_info * */
	pushl %eax		/* boot loader magic */
	call start_kernel
1:	cli
	hlt
	jmp 1b
	.size _start, . - _start

	/*
	 * The boot stack, with one page below it that paging_init() leaves
	 * unmapped: an overflow faults instead of corrupting .bss.
	 */
	.section .bss.stack, "aw", @nobits
	.balign 4096
	.globl boot_stack_guard
boot_stack_guard:
	.skip 4096
	.globl boot_stack
boot_stack:
	.skip 16384
	.globl boot_stack_top
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
