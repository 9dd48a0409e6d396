/// appt's schema: the append-only list of migrations. The schema version of a file is the
/// number of steps applied (`PRAGMA user_version`); fixtures of each version live in Tests.
public enum Schema {
  /// `PRAGMA application_id` of appt files ("appt" in ASCII): how a file is recognised as ours.
  public static let applicationID: Int32 = 0x6170_7074

  // A rowid table on purpose: SQLite's update hook, which drives observation, is silent for
  // WITHOUT ROWID tables. The length index lets a window query bound its scan of the start
  // index by the longest appointment (`max(end_ms - start_ms)` is one index lookup).
  public static let migrations: [Migration] = [
    Migration(
      name: "create appointment",
      sql: """
        CREATE TABLE appointment (
          id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
          title TEXT NOT NULL,
          start_ms INTEGER NOT NULL,
          end_ms INTEGER NOT NULL CHECK (end_ms > start_ms),
          note TEXT NOT NULL DEFAULT '',
          status TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled')),
          created_ms INTEGER NOT NULL,
          updated_ms INTEGER NOT NULL
        );
        CREATE INDEX appointment_by_start ON appointment (start_ms);
        CREATE INDEX appointment_by_length ON appointment (end_ms - start_ms);
        """
    ),
    // Series and whole days (issue 5). `series_end_ms` is the end of a series' last
    // occurrence (NULL: it never ends), so a window finds the series that reach it through a
    // small partial index; `exceptions` lists cancelled occurrence starts (ms, comma-separated).
    Migration(
      name: "recurrence, whole days, time zones, iCalendar UIDs",
      sql: """
        ALTER TABLE appointment ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1));
        ALTER TABLE appointment ADD COLUMN recurrence TEXT CHECK (recurrence IS NULL OR recurrence LIKE 'FREQ=%');
        ALTER TABLE appointment ADD COLUMN exceptions TEXT NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN series_end_ms INTEGER;
        ALTER TABLE appointment ADD COLUMN uid TEXT;
        CREATE INDEX appointment_series ON appointment (start_ms) WHERE recurrence IS NOT NULL;
        CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid) WHERE uid IS NOT NULL;
        """
    ),
  ]
}
