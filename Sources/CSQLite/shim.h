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

// Reads the first bytes of the main database file through SQLite's own file handle. Opening
// and closing the file ourselves would drop every POSIX lock this process holds on it
// (fcntl locks belong to the process, not the descriptor), and another process could then
// checkpoint and delete the WAL under our feet. A short file reads as zeros.
static inline int appt_sqlite_read_header(sqlite3 *db, unsigned char *buffer, int count) {
  sqlite3_file *file = 0;
  int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
  if (rc != SQLITE_OK || file == 0 || file->pMethods == 0) return SQLITE_ERROR;
  rc = file->pMethods->xRead(file, buffer, count, 0);
  return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_OK : rc;
}

#endif
