#ifndef APPT_CSQLITE_SHIM_H
#define APPT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// It tells SQLite to copy bound text at once, which is what Swift strings need.
static inline sqlite3_destructor_type appt_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call. Once the file under a connection
// was replaced by another program, closing must not checkpoint our WAL pages into it.
static inline int appt_sqlite_no_checkpoint_on_close(sqlite3 *db) {
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif
