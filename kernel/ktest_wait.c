/* ktest_wait.c - the kernel's way for a self-test to let timer ticks pass. */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/irqflags.h>
#include <tiny/ktest.h>
#include <tiny/timer.h>

void ktest_wait_ticks(unsigned long ticks)
{
	unsigned long end = jiffies + ticks;

	BUG_ON(irqs_disabled());
	while (time_before(jiffies, end))
		arch_idle();
}

unsigned long ktest_ticks_per_second(void)
{
	return HZ;
}
