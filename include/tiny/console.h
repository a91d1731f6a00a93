/* console.h - the interactive console that runs after boot, its input
 * queue and line editor.
 *
 * Input path: the architecture's console driver puts each received byte
 * in the ring console_input (struct input_ring), from its interrupt
 * handler or from arch_console_poll() when interrupts are off; the bytes
 * wait there until the console reads them through its line editor
 * (struct line_editor).  Ctrl-C is acted on as it arrives: it
 * discards what was received before it and marks the running command
 * interrupted (console_interrupted()).  Input that cannot be kept (the
 * ring was full, or the UART's own FIFO overran) is never spliced into
 * other input: the line it belonged to is dropped, and the console says so.
 */
#ifndef TINY_CONSOLE_H
#define TINY_CONSOLE_H

#include <tiny/types.h>

/* Reads commands from the console and runs them; returns only through
 * "halt".  Process context with interrupts enabled. */
void console_run(void);

/* Runs one command line (as typed at the prompt); returns 0 on success. */
int console_execute(char *line);

/*
 * True once Ctrl-C arrived since the current console command started
 * (false outside console commands).  Long commands call it between steps
 * and stop cleanly when it says so: free what they hold, print
 * "interrupted", return.  Works with interrupts off (it then polls the
 * UART itself); cheap with them on.  Process context.
 */
int console_interrupted(void);

/* ---- the driver's side ---------------------------------------------------- */

struct input_ring;

/* The ring the console reads.  The driver fills it with input_ring_put()
 * and input_ring_overrun() (below) with interrupts off; while it is full
 * (input_ring_full()) the driver leaves bytes in the UART, unless told to
 * drop them. */
extern struct input_ring console_input;

/* Provided by the architecture: moves what the UART received into
 * console_input now; with drop_when_full, also when the ring is full
 * (those bytes are counted as lost, but a Ctrl-C among them still
 * counts).  Any context; leaves the interrupt state as it found it. */
void arch_console_poll(int drop_when_full);

/* Provided by the architecture, for the self-tests: sends the n bytes at s
 * to the UART in loopback mode (nothing goes out on the line), faster than
 * its receive FIFO is emptied, then empties it into r as arch_console_poll()
 * does.  Returns -1 if the UART cannot loop back.  Interrupts off. */
int arch_console_loopback(struct input_ring *r, const char *s, size_t n);

/* ---- the input ring ------------------------------------------------------------ */

#define INPUT_NONE	(-1)	/* nothing waiting */
#define INPUT_INTR	(-2)	/* a Ctrl-C: what was received before it is gone */
#define INPUT_LOST	(-3)	/* bytes were lost here; see struct input_loss */

#define CTRL_C		0x03

struct input_loss {
	unsigned long count;	/* bytes known lost (an overrun counts one) */
	int overrun;		/* some were lost by the UART itself */
};

struct input_ring {
	u8 *buf;
	unsigned int size;		/* a power of two */
	unsigned int head, tail;	/* free-running; head - tail bytes wait */
	unsigned int lost_at;		/* where the loss is, if loss.count */
	struct input_loss loss;
	int intr_pending;		/* a Ctrl-C not yet read */
	unsigned long interrupts;	/* Ctrl-Cs received, ever */
};

/* Sets r up on buf (size a power of two). */
void input_ring_init(struct input_ring *r, u8 *buf, unsigned int size);
/* Producer side (interrupts off): a byte (CTRL_C is acted on, not queued),
 * or an overrun.  A byte that finds the ring full is counted as lost. */
void input_ring_put(struct input_ring *r, u8 c);
void input_ring_overrun(struct input_ring *r);
int input_ring_full(const struct input_ring *r);
/* Consumer side (interrupts off): the next byte, INPUT_NONE, INPUT_INTR,
 * or INPUT_LOST with *loss filled in. */
int input_ring_get(struct input_ring *r, struct input_loss *loss);

/* ---- the line editor (exposed for its self-tests) --------------------------- */

#define CONSOLE_LINE_MAX	128	/* a line holds at most CONSOLE_LINE_MAX - 1 characters */
#define ESC_SEQ_MAX	32	/* longest escape sequence recognised, ESC included */

enum line_status {
	LINE_PENDING,		/* more input needed */
	LINE_READY,		/* Enter: buf holds the line */
	LINE_TOO_LONG,		/* Enter, but more than CONSOLE_LINE_MAX - 1 characters were typed */
	LINE_CANCELLED,		/* Ctrl-C */
	LINE_INPUT_LOST,	/* input was lost here (ed->loss says how much): the
				 * rest of this line will be dropped; say so now */
	LINE_DROPPED,		/* Enter ended a line that lost input */
};

struct line_editor {
	char buf[CONSOLE_LINE_MAX];
	size_t len;			/* characters in buf */
	unsigned long excess;		/* characters typed beyond what buf holds */
	int esc_state, esc_len;		/* inside an escape sequence */
	int skipping;			/* input was lost: drop up to the end of the line */
	int after_cr;			/* the last byte was CR (a following LF is the same Enter) */
	struct input_loss loss;		/* the last loss, for the report */
	void (*echo)(const char *s, size_t len);	/* shows the editing; may be NULL */
};

/* Sets ed up with nothing typed; echo may be NULL. */
void line_editor_init(struct line_editor *ed, void (*echo)(const char *s, size_t len));
/* Starts the next line (keeps echo, and whether the last byte was CR). */
void line_editor_reset(struct line_editor *ed);
/* Takes one input item (a byte, INPUT_INTR, or INPUT_LOST with its loss);
 * returns the line's status.  After LINE_PENDING and LINE_INPUT_LOST the
 * line goes on; after the others the caller uses the result, then calls
 * line_editor_reset(). */
enum line_status line_editor_feed(struct line_editor *ed, int c, const struct input_loss *loss);

#endif /* TINY_CONSOLE_H */
