#ifndef APPT_CSQLITE_SHIM_H
#define APPT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// It tells SQLite to copy bound text at once, which is what Swift strings need.
static inline sqlite3_destructor_type appt_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
