#ifndef APPT_CNCURSESW_SHIM_H
#define APPT_CNCURSESW_SHIM_H
// The wide-character API is only declared when these are set before curses.h
// (pkg-config's -D_XOPEN_SOURCE is dropped by SwiftPM, so we set them here).
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <wchar.h>
#include <curses.h>
#include <sys/ioctl.h>

// Attribute macros are computed expressions Swift cannot import: re-export as constants.
static const attr_t appt_A_BOLD = A_BOLD;
static const attr_t appt_A_REVERSE = A_REVERSE;
static const attr_t appt_A_DIM = A_DIM;
static const attr_t appt_A_UNDERLINE = A_UNDERLINE;
static const attr_t appt_A_NORMAL = A_NORMAL;

// COLOR_PAIR is a macro over a shift; a function keeps the arithmetic in C.
static inline attr_t appt_color_pair(short pair) { return (attr_t)COLOR_PAIR(pair); }

// COLORS is a mutable global Swift 6 rejects: how many colours the terminal has.
static inline int appt_colors(void) { return COLORS; }

// glibc hides wcwidth from Swift unless _XOPEN_SOURCE is set for the whole import.
extern int wcwidth(wchar_t c);

// TIOCGWINSZ is a macro expanding to a cast expression; ioctl is variadic.
static inline int appt_terminal_size(int fd, int *rows, int *cols) {
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
  *rows = ws.ws_row;
  *cols = ws.ws_col;
  return 0;
}

// glibc's stdin/stdout are mutable globals Swift 6 rejects; newterm needs the FILE*s.
#include <stdio.h>
#include <string.h>
static inline FILE *appt_stdin(void) { return stdin; }
static inline FILE *appt_stdout(void) { return stdout; }

// stdscr is a mutable global Swift 6 rejects; the terminal reads it once after newterm.
static inline WINDOW *appt_stdscr(void) { return stdscr; }

// nl_langinfo(CODESET) tells whether the locale setlocale gave us speaks UTF-8.
#include <langinfo.h>
static inline int appt_locale_is_utf8(void) {
  const char *codeset = nl_langinfo(CODESET);
  return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

// FIONREAD is a macro over ioctl (variadic in C): how many bytes wait on a descriptor.
static inline int appt_bytes_available(int fd) {
  int count = 0;
  if (ioctl(fd, FIONREAD, &count) != 0) return -1;
  return count;
}
// The mouse masks are macros over shifts: the events appt asks for (a press of the first
// button, the wheel), and which of them an event is (1 click, 4 wheel up, 5 wheel down, 0 none).
static inline mmask_t appt_mouse_events(void) {
#ifdef BUTTON5_PRESSED
  return BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED;
#else
  return BUTTON1_PRESSED | BUTTON4_PRESSED;
#endif
}
static inline int appt_mouse_kind(mmask_t state) {
  if (state & BUTTON1_PRESSED) return 1;
  if (state & BUTTON4_PRESSED) return 4;
#ifdef BUTTON5_PRESSED
  if (state & BUTTON5_PRESSED) return 5;
#endif
  return 0;
}
#endif
