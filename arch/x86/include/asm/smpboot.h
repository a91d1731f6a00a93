/* asm/smpboot.h (i386, CONFIG_SMP) - what the SMP files of arch/x86/kernel
 * call of each other: start-up, the idle loop, the IPI handlers. */
#ifndef ASM_SMPBOOT_H
#define ASM_SMPBOOT_H

#include <tiny/kconfig.h>

#ifdef CONFIG_SMP
/* NMI on a CPU that smp_stop_other_cpus() stops: returns only if not stopping. */
void smp_nmi_stop_check(void);
/* Serves a CALL_FUNCTION_VECTOR IPI (smp.c). */
void smp_call_function_interrupt(void);
/* Reserves a free page of low RAM for the AP trampoline (smpboot.c).
 * Before paging_init() and before the first MiB is reserved. */
void smp_reserve_trampoline(void);
/* An AP's life once online: runs smp_run_on_all_cpus() work, else halts
 * with interrupts on (smp.c). */
__attribute__((__noreturn__)) void smp_idle_loop(void);
/* Called by trampoline.S on the new AP's stack (smpboot.c). */
void ap_start_kernel(void);
/* Parses a test aid's "CPU,MS" (CPU 1..NR_CPUS-1, MS 0..60000): 0, or
 * PARSE_BAD / PARSE_RANGE (smpboot.c). */
int parse_cpu_ms(const char *val, unsigned int *cpu, unsigned long *ms);
#else
static inline void smp_reserve_trampoline(void) { }
static inline void smp_detect(void) { }
#endif

#endif /* ASM_SMPBOOT_H */
