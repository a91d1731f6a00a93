/* trampoline.S - where an application processor starts: real mode to the kernel.
 *
 * A start-up IPI makes an AP begin in 16-bit real mode at CS:IP =
 * VV00:0000, VV being the IPI's vector, i.e. at physical page VV000.
 * smpboot.c copies the code from trampoline_start to trampoline_end to
 * such a page below 1 MiB.  It loads the boot CPU's flat GDT (whose
 * address the linker fills in: the kernel runs at its physical address),
 * enters protected mode and jumps far into the kernel at ap_entry32,
 * which turns on paging as the boot CPU has it, takes the stack
 * smpboot.c prepared for this AP and calls ap_start_kernel().  Only one
 * AP is started at a time, so the ap_boot_* variables serve each in turn.
 */
#include <asm/desc.h>

#define CR0_PE	0x1

	.section .rodata
	.balign 16
	.code16
	.globl trampoline_start
trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl tr_gdt_ptr - trampoline_start
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $__KERNEL_CS, $ap_entry32

	.balign 4
tr_gdt_ptr:
	.word 8 * 3 - 1		/* null, code, data: all the start needs */
	.long tr_gdt
	.globl trampoline_end
trampoline_end:

	.balign 8
tr_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* __KERNEL_CS: flat 4 GiB code, ring 0 */
	.quad 0x00cf92000000ffff	/* __KERNEL_DS: flat 4 GiB data, ring 0 */

	.text
	.code32
	.globl ap_entry32
ap_entry32:
	movl $__KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl %eax, %fs
	movl %eax, %gs
	movl ap_boot_cr4, %eax
	movl %eax, %cr4
	movl ap_boot_cr3, %eax
	movl %eax, %cr3
	movl ap_boot_cr0, %eax
	movl %eax, %cr0
	jmp 1f
1:	movl ap_boot_stack, %esp
	xorl %ebp, %ebp
	pushl $0
	popfl
	call ap_start_kernel
2:	cli
	hlt
	jmp 2b

	.section .note.GNU-stack, "", @progbits
