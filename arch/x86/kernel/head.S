/* head.S - the Multiboot header and the kernel's first instructions.
 *
 * A Multiboot loader (GRUB, or QEMU's -kernel) loads the ELF image at
 * 1 MiB and jumps to _start in 32-bit protected mode with paging off,
 * EAX = the loader's magic and EBX = the Multiboot information.  We set up
 * a stack, check the CPU, and call start_kernel(magic, info).
 *
 * The C code is compiled for i686 (-march=i686: CMOV among others) and
 * reads the TSC, so before any of it runs, check_cpu makes sure the CPU
 * has CPUID, CMOV and the TSC.  Where one is missing (a 486, a Pentium)
 * it says so on COM1 and on the VGA text screen, in this file's own
 * instructions (i386 ones), and halts: compiled code would fault on its
 * first CMOV before the IDT exists, and the machine would reset silently.
 */
#include <asm/multiboot.h>

#define MB_FLAGS	(MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

#define EFLAGS_ID	0x00200000	/* settable: the CPU has CPUID */
#define CPUID_1_TSC	(1 << 4)	/* leaf 1, EDX */
#define CPUID_1_CMOV	(1 << 15)
#define COM1		0x3f8		/* as arch/x86/kernel/serial.c sets it up */
#define UART_LSR_THRE	0x20
#define VGA_TEXT	0xb8000
#define VGA_ATTR	0x07		/* light grey on black */

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
	call check_cpu		/* returns only on a CPU the C code can run on */
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

	/* Returns if the CPU has CPUID, CMOV and the TSC; keeps EBX and ESI.
	 * Otherwise says which is missing and halts. */
	.type check_cpu, @function
check_cpu:
	pushfl			/* CPUID exists if EFLAGS.ID can be flipped */
	popl %eax
	movl %eax, %ecx
	xorl $EFLAGS_ID, %eax
	pushl %eax
	popfl
	pushfl
	popl %eax
	pushl %ecx
	popfl
	xorl %ecx, %eax
	movl $no_cpuid, %edi
	testl $EFLAGS_ID, %eax
	jz cpu_refused
	pushl %ebx
	xorl %eax, %eax
	cpuid
	movl $no_cmov, %edi
	xorl %edx, %edx		/* no leaf 1: no feature known */
	cmpl $1, %eax
	jb 1f
	movl $1, %eax
	cpuid
1:	popl %ebx
	testl $CPUID_1_CMOV, %edx
	jz cpu_refused
	movl $no_tsc, %edi
	testl $CPUID_1_TSC, %edx
	jz cpu_refused
	ret

	/* Says on COM1 and the VGA screen that the CPU lacks what EDI names,
	 * then halts. */
cpu_refused:
	movw $COM1 + 1, %dx	/* 115200 8N1, FIFOs on, as serial_init() */
	movb $0x00, %al		/* IER: no interrupts */
	outb %al, %dx
	movw $COM1 + 3, %dx
	movb $0x80, %al		/* LCR: divisor latch */
	outb %al, %dx
	movw $COM1, %dx
	movb $1, %al		/* divisor 1 */
	outb %al, %dx
	movw $COM1 + 1, %dx
	movb $0, %al
	outb %al, %dx
	movw $COM1 + 3, %dx
	movb $0x03, %al		/* 8N1 */
	outb %al, %dx
	movw $COM1 + 2, %dx
	movb $0xc7, %al		/* FIFOs enabled and cleared */
	outb %al, %dx
	movw $COM1 + 4, %dx
	movb $0x0b, %al		/* DTR, RTS, OUT2 */
	outb %al, %dx
	movl $VGA_TEXT, %ebx	/* the top two rows, blanked */
	movl $159, %ecx
1:	movw $((VGA_ATTR << 8) | 0x20), (%ebx,%ecx,2)
	loop 1b
	movw $((VGA_ATTR << 8) | 0x20), (%ebx)
	movl $cpu_needs, %esi
	call early_puts
	movl %edi, %esi
	call early_puts
2:	cli
	hlt
	jmp 2b
	.size check_cpu, . - check_cpu

	/* Writes the string at ESI to COM1 (LF as CR LF) and, from EBX on,
	 * to the VGA screen (LF not shown).  Advances ESI and EBX. */
	.type early_puts, @function
early_puts:
	lodsb
	testb %al, %al
	jz 2f
	cmpb $0x0a, %al		/* LF */
	jne 1f
	movb $0x0d, %al
	call early_serial_putc
	movb $0x0a, %al
	call early_serial_putc
	jmp early_puts
1:	call early_serial_putc
	movb %al, (%ebx)
	movb $VGA_ATTR, 1(%ebx)
	addl $2, %ebx
	jmp early_puts
2:	ret
	.size early_puts, . - early_puts

	/* Writes AL to COM1 once its transmitter is empty; keeps AL. */
	.type early_serial_putc, @function
early_serial_putc:
	movb %al, %ah
	movw $COM1 + 5, %dx
1:	inb %dx, %al
	testb $UART_LSR_THRE, %al
	jz 1b
	movb %ah, %al
	movw $COM1, %dx
	outb %al, %dx
	ret
	.size early_serial_putc, . - early_serial_putc

	.section .rodata
cpu_needs:
	.asciz "tinyslab needs an i686 (Pentium Pro) or later CPU: "
no_cpuid:
	.asciz "CPUID missing\n"
no_cmov:
	.asciz "CMOV missing\n"
no_tsc:
	.asciz "TSC missing\n"

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
