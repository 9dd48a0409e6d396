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
    )
  ]
}
