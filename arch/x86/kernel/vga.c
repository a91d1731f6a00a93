/* vga.c - the VGA text screen (80x25 at 0xb8000) as a second console. */
#include <tiny/kernel.h>
#include <tiny/string.h>
#include <asm/desc.h>
#include <asm/io.h>

#define VGA_COLS	80
#define VGA_ROWS	25
#define VGA_ATTR	0x0700	/* light grey on black */

static u16 *const vga_mem = (u16 *)0xb8000;
static int vga_row, vga_col;

static void vga_move_cursor(void)
{
	unsigned int pos = vga_row * VGA_COLS + vga_col;

	outb(0x0f, 0x3d4);
	outb(pos & 0xff, 0x3d5);
	outb(0x0e, 0x3d4);
	outb((pos >> 8) & 0xff, 0x3d5);
}

static void vga_scroll(void)
{
	int i;

	memmove(vga_mem, vga_mem + VGA_COLS, (VGA_ROWS - 1) * VGA_COLS * sizeof(u16));
	for (i = 0; i < VGA_COLS; i++)
		vga_mem[(VGA_ROWS - 1) * VGA_COLS + i] = VGA_ATTR | ' ';
	vga_row = VGA_ROWS - 1;
}

void vga_init(void)
{
	int i;

	for (i = 0; i < VGA_COLS * VGA_ROWS; i++)
		vga_mem[i] = VGA_ATTR | ' ';
	vga_row = vga_col = 0;
	vga_move_cursor();
}

static void vga_putc(char c)
{
	if (c == '\n') {
		vga_col = 0;
		vga_row++;
	} else if (c == '\r') {
		vga_col = 0;
	} else if (c == '\b') {
		if (vga_col > 0)
			vga_col--;
	} else {
		vga_mem[vga_row * VGA_COLS + vga_col] = VGA_ATTR | (u8)c;
		if (++vga_col == VGA_COLS) {
			vga_col = 0;
			vga_row++;
		}
	}
	if (vga_row == VGA_ROWS)
		vga_scroll();
}

void vga_write(const char *s, size_t len)
{
	while (len--)
		vga_putc(*s++);
	vga_move_cursor();
}
