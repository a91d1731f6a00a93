/* test_console.c - self-tests of the console's input path: the input ring
 * (Ctrl-C, lost input never spliced) and the line editor (escape
 * sequences, line length, Enter), fed byte by byte without the UART. */
#include <tiny/kernel.h>
#include <tiny/ktest.h>
#include <tiny/console.h>
#include <tiny/string.h>
#include <tiny/irqflags.h>

/* ---- the input ring --------------------------------------------------------- */

#define RING	16

static void put_string(struct input_ring *r, const char *s)
{
	while (*s)
		input_ring_put(r, (u8)*s++);
}

/* Reads from r into buf up to the next non-byte item; returns that item. */
static int get_string(struct input_ring *r, char *buf, size_t size, struct input_loss *loss)
{
	size_t n = 0;
	int c;

	while ((c = input_ring_get(r, loss)) >= 0)
		if (n + 1 < size)
			buf[n++] = (char)c;
	buf[n] = '\0';
	return c;
}

static void ring_keeps_order(struct ktest *t)
{
	struct input_ring r;
	struct input_loss loss;
	u8 buf[RING];
	char out[40];

	input_ring_init(&r, buf, RING);
	put_string(&r, "meminfo\r");
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "meminfo\r");
	put_string(&r, "0123456789abcdef");		/* exactly full, across the wrap */
	KTEST_EXPECT_TRUE(t, input_ring_full(&r));
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "0123456789abcdef");
}

static void ring_marks_where_input_was_lost(struct ktest *t)
{
	struct input_ring r;
	struct input_loss loss = { 0, 0 };
	u8 buf[RING];
	char out[40];

	input_ring_init(&r, buf, RING);
	put_string(&r, "meminfo\rmeminfo\rmeminfo\r");	/* 8 bytes too many */
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_LOST);
	KTEST_EXPECT_STREQ(t, out, "meminfo\rmeminfo\r");
	KTEST_EXPECT_EQ(t, loss.count, 8UL);
	KTEST_EXPECT_FALSE(t, loss.overrun);
	put_string(&r, "help\r");			/* taken again once there is room */
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "help\r");
}

static void ring_merges_a_second_loss(struct ktest *t)
{
	struct input_ring r;
	struct input_loss loss = { 0, 0 };
	u8 buf[RING];
	char out[40];

	input_ring_init(&r, buf, RING);
	put_string(&r, "0123456789abcdefXY");	/* full, 2 lost after 'f' */
	KTEST_EXPECT_EQ(t, input_ring_get(&r, &loss), '0');
	KTEST_EXPECT_EQ(t, input_ring_get(&r, &loss), '1');
	put_string(&r, "gh");			/* room for two, after the loss */
	input_ring_put(&r, 'Z');		/* full again: a second loss */
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_LOST);
	KTEST_EXPECT_STREQ(t, out, "23456789abcdef");
	KTEST_EXPECT_EQ(t, loss.count, 5UL);	/* X Y, then g h between the losses, then Z */
	KTEST_EXPECT_EQ(t, input_ring_get(&r, &loss), INPUT_NONE);
}

static void ring_reports_an_overrun(struct ktest *t)
{
	struct input_ring r;
	struct input_loss loss = { 0, 0 };
	u8 buf[RING];
	char out[40];

	input_ring_init(&r, buf, RING);
	put_string(&r, "abc");
	input_ring_overrun(&r);
	put_string(&r, "def");
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_LOST);
	KTEST_EXPECT_STREQ(t, out, "abc");
	KTEST_EXPECT_TRUE(t, loss.overrun);
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "def");
}

static void ctrl_c_discards_what_came_before(struct ktest *t)
{
	struct input_ring r;
	struct input_loss loss;
	u8 buf[RING];
	char out[40];
	unsigned long before;

	input_ring_init(&r, buf, RING);
	before = r.interrupts;
	put_string(&r, "0123456789abcdefLOST");	/* full, with a loss */
	input_ring_put(&r, CTRL_C);		/* still seen with the ring full */
	put_string(&r, "help\r");
	KTEST_EXPECT_EQ(t, r.interrupts, before + 1);
	KTEST_EXPECT_EQ(t, input_ring_get(&r, &loss), INPUT_INTR);
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "help\r");
}

/* The UART's own FIFO overruns (bytes sent in loopback faster than read):
 * the bytes it kept arrive, then the loss, never the bytes after it. */
static void uart_overrun_is_reported(struct ktest *t)
{
	static const char sent[] = "0123456789abcdefLOST";	/* the FIFO holds 16 */
	struct input_ring r;
	struct input_loss loss = { 0, 0 };
	unsigned long flags;
	u8 buf[64];
	char out[40];
	int ret;

	input_ring_init(&r, buf, sizeof(buf));
	local_irq_save(flags);
	ret = arch_console_loopback(&r, sent, sizeof(sent) - 1);
	local_irq_restore(flags);
	if (ret < 0) {
		ktest_skip(t, "the UART cannot loop back");
		return;
	}
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_LOST);
	KTEST_EXPECT_STREQ(t, out, "0123456789abcdef");
	KTEST_EXPECT_TRUE(t, loss.overrun);
	KTEST_EXPECT_EQ(t, get_string(&r, out, sizeof(out), &loss), INPUT_NONE);
	KTEST_EXPECT_STREQ(t, out, "");
}

/* ---- the line editor -------------------------------------------------------- */

static char echoed[256];
static size_t echoed_len;

static void capture_echo(const char *s, size_t len)
{
	while (len-- && echoed_len + 1 < sizeof(echoed))
		echoed[echoed_len++] = *s++;
	echoed[echoed_len] = '\0';
}

/* Feeds the bytes of s; returns the status after the last byte, or the
 * first status other than LINE_PENDING. */
static int type(struct line_editor *ed, const char *s, size_t len)
{
	int st = LINE_PENDING;

	while (len-- && st == LINE_PENDING)
		st = line_editor_feed(ed, (u8)*s++, NULL);
	return st;
}

#define TYPE(ed, s)	type(ed, s, sizeof(s) - 1)

/* One line typed into a fresh editor: returns its status, with the line in ed. */
static int one_line(struct line_editor *ed, const char *s, size_t len)
{
	line_editor_init(ed, capture_echo);
	echoed_len = 0;
	echoed[0] = '\0';
	return type(ed, s, len);
}

#define ONE_LINE(ed, s)	one_line(ed, s, sizeof(s) - 1)

#define EXPECT_LINE(t, ed, s, line) do {				\
	KTEST_EXPECT_EQ(t, ONE_LINE(ed, s), LINE_READY);		\
	KTEST_EXPECT_STREQ(t, (ed)->buf, line);				\
} while (0)

static void arrow_keys_are_ignored(struct ktest *t)
{
	static struct line_editor ed;

	EXPECT_LINE(t, &ed, "mem\033[Ainfo\r", "meminfo");		/* CSI, normal mode */
	EXPECT_LINE(t, &ed, "mem\033OAinfo\r", "meminfo");		/* SS3, application mode */
	EXPECT_LINE(t, &ed, "mem\033[1;5Cinfo\r", "meminfo");	/* Ctrl-Right: parameters */
	EXPECT_LINE(t, &ed, "mem\033[3~info\r", "meminfo");		/* Delete key */
	EXPECT_LINE(t, &ed, "mem\033[?25 qinfo\r", "meminfo");	/* private marker, intermediate */
	KTEST_EXPECT_STREQ(t, echoed, "meminfo\n");		/* nothing of them echoed */
}

static void enter_always_ends_the_line(struct ktest *t)
{
	static struct line_editor ed;

	EXPECT_LINE(t, &ed, "meminfo\033\r", "meminfo");		/* lone ESC */
	EXPECT_LINE(t, &ed, "meminfo\033[\r", "meminfo");		/* unfinished CSI */
	EXPECT_LINE(t, &ed, "meminfo\033O\r", "meminfo");		/* unfinished SS3 */
	EXPECT_LINE(t, &ed, "meminfo\033[1;5\n", "meminfo");
}

static void lone_escape_then_a_key(struct ktest *t)
{
	static struct line_editor ed;

	EXPECT_LINE(t, &ed, "\033help\r", "help");		/* ESC, then an ordinary key */
	EXPECT_LINE(t, &ed, "abc\033\033[Ad\r", "abcd");	/* ESC ESC [ A */
	EXPECT_LINE(t, &ed, "abc\033[\x15help\r", "help");	/* Ctrl-U inside a sequence */
	EXPECT_LINE(t, &ed, "abc\033[1\x7f\r", "ab");		/* Backspace inside a sequence */
}

static void escape_sequences_are_bounded(struct ktest *t)
{
	static struct line_editor ed;
	char s[64];
	int i, n = 0;

	s[n++] = '\033';
	s[n++] = '[';
	for (i = 0; i < 40; i++)
		s[n++] = '1';
	s[n++] = 'A';
	s[n++] = '\r';
	KTEST_EXPECT_EQ(t, one_line(&ed, s, (size_t)n), LINE_READY);
	/* ESC_SEQ_MAX bytes are taken as the sequence; the rest is typed */
	KTEST_EXPECT_EQ(t, strlen(ed.buf), (size_t)(n - 1 - ESC_SEQ_MAX));
	KTEST_EXPECT_STREQ(t, ed.buf, "1111111111A");
}

static void cr_lf_is_one_enter(struct ktest *t)
{
	static struct line_editor ed;

	KTEST_EXPECT_EQ(t, ONE_LINE(&ed, "ab\r"), LINE_READY);
	line_editor_reset(&ed);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "\ncd\r"), LINE_READY);	/* the LF is not a second line */
	KTEST_EXPECT_STREQ(t, ed.buf, "cd");
	line_editor_reset(&ed);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "\n"), LINE_PENDING);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "\n"), LINE_READY);		/* but LF LF is */
	KTEST_EXPECT_STREQ(t, ed.buf, "");
}

static void long_lines_are_refused(struct ktest *t)
{
	static struct line_editor ed;
	char s[CONSOLE_LINE_MAX + 2];

	memset(s, 'x', sizeof(s));
	s[CONSOLE_LINE_MAX - 1] = '\r';				/* CONSOLE_LINE_MAX - 1 characters: fit */
	KTEST_EXPECT_EQ(t, one_line(&ed, s, CONSOLE_LINE_MAX), LINE_READY);
	KTEST_EXPECT_EQ(t, strlen(ed.buf), (size_t)(CONSOLE_LINE_MAX - 1));
	s[CONSOLE_LINE_MAX - 1] = 'x';
	s[CONSOLE_LINE_MAX] = '\r';				/* one more: refused, not cut */
	KTEST_EXPECT_EQ(t, one_line(&ed, s, CONSOLE_LINE_MAX + 1), LINE_TOO_LONG);
	KTEST_EXPECT_EQ(t, echoed_len, (size_t)(CONSOLE_LINE_MAX - 1) + 1);	/* the excess is not shown */
	s[CONSOLE_LINE_MAX] = '\x7f';				/* one more, then Backspace: fits */
	s[CONSOLE_LINE_MAX + 1] = '\r';
	KTEST_EXPECT_EQ(t, one_line(&ed, s, CONSOLE_LINE_MAX + 2), LINE_READY);
	KTEST_EXPECT_EQ(t, strlen(ed.buf), (size_t)(CONSOLE_LINE_MAX - 1));
}

static void editing_keys(struct ktest *t)
{
	static struct line_editor ed;

	EXPECT_LINE(t, &ed, "memix\x7f\x7finfo\r", "meminfo");
	KTEST_EXPECT_STREQ(t, echoed, "memix\b \b\b \binfo\n");
	EXPECT_LINE(t, &ed, "halt\x15meminfo\r", "meminfo");
	EXPECT_LINE(t, &ed, "\bmem\tinfo\001\r", "meminfo");	/* other controls ignored */
	EXPECT_LINE(t, &ed, "mem\xc3\xa9info\r", "meminfo");	/* and 8-bit bytes */
	KTEST_EXPECT_EQ(t, ONE_LINE(&ed, "halt\003"), LINE_CANCELLED);
}

static void lost_input_drops_the_line(struct ktest *t)
{
	static struct line_editor ed;
	struct input_loss loss = { 3, 0 };

	KTEST_EXPECT_EQ(t, ONE_LINE(&ed, "memin"), LINE_PENDING);
	KTEST_EXPECT_EQ(t, (int)line_editor_feed(&ed, INPUT_LOST, &loss), LINE_INPUT_LOST);
	KTEST_EXPECT_EQ(t, ed.loss.count, 3UL);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "fo\r"), LINE_DROPPED);	/* never "meminfo" */
	line_editor_reset(&ed);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "help\r"), LINE_READY);
	KTEST_EXPECT_STREQ(t, ed.buf, "help");
	line_editor_reset(&ed);
	KTEST_EXPECT_EQ(t, (int)line_editor_feed(&ed, INPUT_LOST, &loss), LINE_INPUT_LOST);
	KTEST_EXPECT_EQ(t, (int)line_editor_feed(&ed, INPUT_INTR, NULL), LINE_CANCELLED);
	line_editor_reset(&ed);
	KTEST_EXPECT_EQ(t, TYPE(&ed, "help\r"), LINE_READY);	/* Ctrl-C ended the dropping */
}

static const struct ktest_case console_cases[] = {
	KTEST_CASE(ring_keeps_order),
	KTEST_CASE(ring_marks_where_input_was_lost),
	KTEST_CASE(ring_merges_a_second_loss),
	KTEST_CASE(ring_reports_an_overrun),
	KTEST_CASE(ctrl_c_discards_what_came_before),
	KTEST_CASE(uart_overrun_is_reported),
	KTEST_CASE(arrow_keys_are_ignored),
	KTEST_CASE(enter_always_ends_the_line),
	KTEST_CASE(lone_escape_then_a_key),
	KTEST_CASE(escape_sequences_are_bounded),
	KTEST_CASE(cr_lf_is_one_enter),
	KTEST_CASE(long_lines_are_refused),
	KTEST_CASE(editing_keys),
	KTEST_CASE(lost_input_drops_the_line),
	{}
};

static const struct ktest_suite console_suite = { .name = "console", .cases = console_cases };
KTEST_SUITE(console_suite);
