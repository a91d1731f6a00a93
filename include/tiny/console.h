/* console.h - the interactive console that runs after boot. */
#ifndef TINY_CONSOLE_H
#define TINY_CONSOLE_H

/* Reads commands from the console and runs them; returns only through
 * "halt".  Process context with interrupts enabled. */
void console_run(void);

/* Runs one command line (as typed at the prompt); returns 0 on success. */
int console_execute(char *line);

#endif /* TINY_CONSOLE_H */
