/* entry.S - the interrupt and exception stubs.
 *
 * Each vector gets a stub that pushes a dummy error code where the CPU did
 * not push one, then the vector number, and jumps to common_trap, which
 * saves the registers as a struct pt_regs and calls do_trap(regs).
 * trap_stubs[] lists the stubs for the IDT.
 */
#include <asm/desc.h>
#ifdef CONFIG_SMP
#include <asm/apic.h>
#endif

	.text
common_trap:
	pushal
	pushl %ds
	pushl %es
	pushl %fs
	pushl %gs
	movl $__KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
#ifndef CONFIG_SMP
	movl %eax, %fs		/* SMP: %fs keeps this CPU's per-CPU segment */
#endif
	movl %eax, %gs
	cld
	pushl %esp		/* struct pt_regs * */
	call do_trap
	addl $4, %esp
	popl %gs
	popl %fs
	popl %es
	popl %ds
	popal
	addl $8, %esp		/* vector and error code */
	iret

.macro TRAP_NOERR n
	.balign 8
trap_\n:
	pushl $0
	pushl $\n
	jmp common_trap
.endm

.macro TRAP_ERR n
	.balign 8
trap_\n:
	pushl $\n
	jmp common_trap
.endm

/* Exceptions that push an error code: 8, 10-14, 17, 21, 29, 30. */
.irp n, 0,1,2,3,4,5,6,7,9,15,16,18,19,20,22,23,24,25,26,27,28,31
	TRAP_NOERR \n
.endr
.irp n, 8,10,11,12,13,14,17,21,29,30
	TRAP_ERR \n
.endr
/* Hardware interrupts from the two 8259s, remapped to 32-47. */
.irp n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	TRAP_NOERR \n
.endr
#ifdef CONFIG_SMP
/* The local APIC's vectors (timer, IPIs, spurious): 240-255. */
.irp n, 240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255
	TRAP_NOERR \n
.endr
#endif

	.section .rodata
	.balign 4
	.globl trap_stubs
trap_stubs:
.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.long trap_\n
.endr
.irp n, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	.long trap_\n
.endr

#ifdef CONFIG_SMP
	.globl apic_stubs
apic_stubs:
.irp n, 240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255
	.long trap_\n
.endr
#endif

	.section .note.GNU-stack, "", @progbits
