#ifndef APPT_CSQLITE_SHIM_H
#define APPT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stdint.h>
#include <unistd.h>

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

// A busy handler for writers queued behind another process's write lock. SQLite's own
// (`busy_timeout`) sleeps 1, 2, 5, 10, ... up to 100 ms between tries, so a writer behind
// commits that hold the lock for a fraction of a millisecond could sleep 430 ms in all
// (measured with 8 concurrent writers). This one backs off the same way but stops growing
// at 5 ms, until it has slept `timeout_ms` (counted from the tries: no state to keep).
static const int appt_busy_sleeps_us[] = {100, 200, 500, 1000, 2000, 5000};

static int appt_busy_handler(void *timeout_ms, int count) {
  int64_t slept_us = 0;
  for (int i = 0; i < count; i++) slept_us += appt_busy_sleeps_us[i < 5 ? i : 5];
  if (slept_us >= (int64_t)(intptr_t)timeout_ms * 1000) return 0;
  usleep(appt_busy_sleeps_us[count < 5 ? count : 5]);
  return 1;
}

static inline int appt_sqlite_busy_timeout(sqlite3 *db, int timeout_ms) {
  return sqlite3_busy_handler(db, appt_busy_handler, (void *)(intptr_t)timeout_ms);
}

#endif
