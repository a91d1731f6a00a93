/* console.c - the interactive console on the serial line.
 *
 * After boot (unless told to power off) the kernel reads command lines
 * with simple editing (backspace, Ctrl-U to clear, Ctrl-C to cancel,
 * escape sequences such as arrow keys ignored) and runs them through
 * console_execute() (kernel/console_cmds.c, the commands; "help" lists
 * them).  The input queue, with its handling of Ctrl-C and of lost
 * input, the line editor and the loop are here (<tiny/console.h> says
 * how they fit together).
 */
#include <tiny/kernel.h>
#include <tiny/arch.h>
#include <tiny/console.h>
#include <tiny/string.h>
#include <tiny/irqflags.h>

#define PROMPT		"tinyslab> "
#define RX_RING_SIZE	4096	/* bytes of type-ahead the console keeps; a power of two */

/* ---- the input ring --------------------------------------------------------- */

void input_ring_init(struct input_ring *r, u8 *buf, unsigned int size)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->size = size;
}

int input_ring_full(const struct input_ring *r)
{
	return r->head - r->tail >= r->size;
}

/* Whether input_ring_get() would return INPUT_NONE. */
static int input_ring_empty(const struct input_ring *r)
{
	return r->head == r->tail && !r->intr_pending && !r->loss.count;
}

/*
 * Notes n bytes lost after everything the ring holds.  There is one place
 * of loss at a time: if an earlier loss has not been read yet, what was
 * queued since then is dropped and counted with it, since the line
 * editor drops all of it anyway up to a line end it cannot place.
 */
static void note_loss(struct input_ring *r, unsigned long n, int overrun)
{
	if (!r->loss.count) {
		r->lost_at = r->head;
	} else if (r->lost_at != r->head) {
		r->loss.count += r->head - r->lost_at;
		r->head = r->lost_at;
	}
	r->loss.count += n;
	r->loss.overrun |= overrun;
}

void input_ring_put(struct input_ring *r, u8 c)
{
	if (c == CTRL_C) {		/* discard what came before it, loss included */
		r->tail = r->head;
		r->loss.count = 0;
		r->loss.overrun = 0;
		r->intr_pending = 1;
		r->interrupts++;
		return;
	}
	if (input_ring_full(r)) {
		note_loss(r, 1, 0);
		return;
	}
	r->buf[r->head++ & (r->size - 1)] = c;
}

void input_ring_overrun(struct input_ring *r)
{
	note_loss(r, 1, 1);
}

int input_ring_get(struct input_ring *r, struct input_loss *loss)
{
	if (r->intr_pending) {
		r->intr_pending = 0;
		return INPUT_INTR;
	}
	if (r->loss.count && r->tail == r->lost_at) {
		*loss = r->loss;
		r->loss.count = 0;
		r->loss.overrun = 0;
		return INPUT_LOST;
	}
	if (r->tail == r->head)
		return INPUT_NONE;
	return r->buf[r->tail++ & (r->size - 1)];
}

/* ---- the line editor -------------------------------------------------------- */

enum { ESC_NONE, ESC_START, ESC_CSI };

#define KEY_ESC		0x1b
#define KEY_BS		0x08
#define KEY_DEL		0x7f
#define KEY_CTRL_U	0x15

static void echo(struct line_editor *ed, const char *s, size_t len)
{
	if (ed->echo)
		ed->echo(s, len);
}

void line_editor_init(struct line_editor *ed, void (*echo_fn)(const char *s, size_t len))
{
	memset(ed, 0, sizeof(*ed));
	ed->echo = echo_fn;
}

void line_editor_reset(struct line_editor *ed)
{
	ed->len = 0;
	ed->excess = 0;
	ed->esc_state = ESC_NONE;
	ed->skipping = 0;
	ed->loss.count = 0;
	ed->loss.overrun = 0;
}

/*
 * Gives byte c to the escape sequence in progress: ESC [ or ESC O, then
 * parameter and intermediate bytes (0x20-0x3f), then a final byte
 * (0x40-0x7e); the whole sequence is ignored.  Returns 0 if the sequence
 * took c, 1 if c must be edited as an ordinary byte: after a lone ESC, or
 * when a control byte or a sequence longer than ESC_SEQ_MAX abandons it.
 */
static int escape_byte(struct line_editor *ed, int c)
{
	if (c < 0x20 || c > 0x7e || ++ed->esc_len > ESC_SEQ_MAX) {
		ed->esc_state = ESC_NONE;
		return 1;
	}
	if (ed->esc_state == ESC_START) {
		ed->esc_state = c == '[' || c == 'O' ? ESC_CSI : ESC_NONE;
		return ed->esc_state == ESC_NONE;
	}
	if (c >= 0x40)
		ed->esc_state = ESC_NONE;	/* the final byte */
	return 0;
}

static void erase_chars(struct line_editor *ed, size_t n)
{
	while (n--)
		echo(ed, "\b \b", 3);
}

/* Edits the line with an ordinary byte (not Enter, not Ctrl-C). */
static void edit_byte(struct line_editor *ed, int c)
{
	if (c == KEY_ESC) {
		ed->esc_state = ESC_START;
		ed->esc_len = 1;
	} else if (c == KEY_DEL || c == KEY_BS) {
		if (ed->excess) {
			ed->excess--;
		} else if (ed->len) {
			ed->len--;
			erase_chars(ed, 1);
		}
	} else if (c == KEY_CTRL_U) {
		erase_chars(ed, ed->len);
		ed->len = 0;
		ed->excess = 0;
	} else if (c >= 0x20 && c < 0x7f) {
		if (ed->len + 1 < sizeof(ed->buf) && !ed->excess) {
			char ch = (char)c;

			ed->buf[ed->len++] = ch;
			echo(ed, &ch, 1);
		} else {
			ed->excess++;	/* the line is full: counted, not shown */
		}
	}				/* other control bytes and 8-bit bytes: ignored */
}

static enum line_status end_of_line(struct line_editor *ed)
{
	ed->buf[ed->len] = '\0';
	if (ed->skipping)
		return LINE_DROPPED;
	echo(ed, "\n", 1);
	return ed->excess ? LINE_TOO_LONG : LINE_READY;
}

enum line_status line_editor_feed(struct line_editor *ed, int c, const struct input_loss *loss)
{
	int after_cr = ed->after_cr;

	ed->after_cr = c == '\r';
	if (c == INPUT_INTR || c == CTRL_C) {
		echo(ed, "^C\n", 3);
		return LINE_CANCELLED;
	}
	if (c == INPUT_LOST) {
		echo(ed, "\n", 1);	/* the report goes on a line of its own */
		ed->skipping = 1;
		ed->esc_state = ESC_NONE;
		ed->loss = *loss;
		return LINE_INPUT_LOST;
	}
	if (c < 0 || (c == '\n' && after_cr))
		return LINE_PENDING;	/* nothing, or the LF of a CR LF */
	if (c == '\r' || c == '\n')
		return end_of_line(ed);	/* Enter ends a line even inside a sequence */
	if (ed->skipping)
		return LINE_PENDING;
	if (ed->esc_state == ESC_NONE || escape_byte(ed, c))
		edit_byte(ed, c);
	return LINE_PENDING;
}

/* ---- the console ----------------------------------------------------------------- */

static u8 rx_ring_buf[RX_RING_SIZE];
struct input_ring console_input = { .buf = rx_ring_buf, .size = RX_RING_SIZE };
static int command_running;
static unsigned long interrupts_at_start;	/* console_input.interrupts when the command began */

int console_interrupted(void)
{
	if (!command_running)
		return 0;
	/* Interrupts off, or the driver holding input back: look at the UART. */
	if (irqs_disabled() || input_ring_full(&console_input))
		arch_console_poll(1);
	return READ_ONCE(console_input.interrupts) != interrupts_at_start;
}

static int console_getc(struct input_loss *loss)
{
	unsigned long flags;
	int c;

	local_irq_save(flags);
	c = input_ring_get(&console_input, loss);
	local_irq_restore(flags);
	return c;
}

/* Waits for the next input item (a byte, INPUT_INTR or INPUT_LOST). */
static int console_getc_wait(struct input_loss *loss)
{
	int c;

	for (;;) {
		c = console_getc(loss);
		if (c != INPUT_NONE)
			return c;
		arch_console_poll(0);		/* lets the driver take input again */
		local_irq_disable();
		if (input_ring_empty(&console_input))
			arch_idle();		/* enables interrupts and waits, atomically */
		local_irq_enable();
	}
}

static void console_echo(const char *s, size_t len)
{
	arch_console_write(s, len);
}

/* Tells the user that input was lost and that its line is being dropped. */
static void report_lost_input(const struct input_loss *loss)
{
	if (loss->overrun)
		printk("console: input lost (the UART's receive FIFO overran)");
	else
		printk("console: %lu characters of input lost (input buffer full)", loss->count);
	pr_cont(": line dropped, up to the next Enter\n");
}

/* Runs a command with console_interrupted() watching for Ctrl-C. */
static void run_command(char *line)
{
	unsigned long flags;

	local_irq_save(flags);
	interrupts_at_start = console_input.interrupts;
	command_running = 1;
	local_irq_restore(flags);
	console_execute(line);
	local_irq_save(flags);
	command_running = 0;
	if (console_input.interrupts != interrupts_at_start)
		console_input.intr_pending = 0;	/* it stopped the command; it does not cancel the next line */
	local_irq_restore(flags);
}

void console_run(void)
{
	static struct line_editor ed;
	struct input_loss loss;

	line_editor_init(&ed, console_echo);
	arch_console_input_init();
	printk("Console ready: type \"help\" for commands, \"halt\" to stop.\n");
	for (;;) {
		enum line_status st;

		arch_console_write(PROMPT, sizeof(PROMPT) - 1);
		do {
			int c = console_getc_wait(&loss);

			st = line_editor_feed(&ed, c, &loss);
			if (st == LINE_INPUT_LOST)
				report_lost_input(&ed.loss);
		} while (st == LINE_PENDING || st == LINE_INPUT_LOST);
		if (st == LINE_READY)
			run_command(ed.buf);
		else if (st == LINE_TOO_LONG)
			printk("console: line longer than %d characters refused; nothing run\n",
			       CONSOLE_LINE_MAX - 1);
		line_editor_reset(&ed);
	}
}
