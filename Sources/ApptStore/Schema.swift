import ApptCore

/// appt's schema: the append-only list of migrations, each in both engines' dialects. The
/// schema version is the number of steps applied: SQLite keeps it in `PRAGMA user_version`,
/// PostgreSQL in the `appt_schema` table. Fixtures of each SQLite version live in Tests.
public enum Schema {
  /// `PRAGMA application_id` of appt files ("appt" in ASCII): how a file is recognised as ours.
  public static let applicationID: Int32 = 0x6170_7074

  /// The PostgreSQL channel the change trigger notifies; the payload is "table id".
  public static let changeChannel = "appt_changes"

  // A rowid table on purpose: SQLite's update hook, which drives observation, is silent for
  // WITHOUT ROWID tables. The length index lets a window query bound its scan of the start
  // index by the longest appointment (`max(end_ms - start_ms)` is one index lookup).
  //
  // PostgreSQL keeps the same integer columns, so one set of queries serves both engines,
  // and adds `timestamptz` columns generated from them for people and reporting tools. Text
  // that appt sorts or ranges over is COLLATE "C", so it orders bytewise as in SQLite (an
  // id prefix range `id >= 'ab12' AND id < 'ab12~'` relies on it). A
  // trigger NOTIFYs every row change (delivered at commit, only if it commits), which is
  // how other clients learn of it. `instr` exists on both engines.
  public static let migrations: [Migration] = [
    Migration(
      name: "create appointment",
      sqlite: """
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
        """,
      postgres: """
        CREATE TABLE appointment (
          id text COLLATE "C" PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
          title text COLLATE "C" NOT NULL,
          start_ms bigint NOT NULL,
          end_ms bigint NOT NULL CONSTRAINT "end_ms > start_ms" CHECK (end_ms > start_ms),
          note text NOT NULL DEFAULT '',
          status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled')),
          created_ms bigint NOT NULL,
          updated_ms bigint NOT NULL,
          starts_at timestamptz NOT NULL GENERATED ALWAYS AS (to_timestamp(start_ms / 1000.0)) STORED,
          ends_at timestamptz NOT NULL GENERATED ALWAYS AS (to_timestamp(end_ms / 1000.0)) STORED,
          created_at timestamptz NOT NULL GENERATED ALWAYS AS (to_timestamp(created_ms / 1000.0)) STORED,
          updated_at timestamptz NOT NULL GENERATED ALWAYS AS (to_timestamp(updated_ms / 1000.0)) STORED
        );
        CREATE INDEX appointment_by_start ON appointment (start_ms);
        CREATE INDEX appointment_by_length ON appointment ((end_ms - start_ms));
        -- Unicode lower-casing for search, as SQLite's appt_fold: ICU's root locale when the
        -- server has ICU, else the database's own LC_CTYPE.
        DO $do$
        BEGIN
          IF EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
            CREATE FUNCTION appt_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
              AS $f$ SELECT lower($1 COLLATE "und-x-icu") $f$;
          ELSE
            CREATE FUNCTION appt_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
              AS $f$ SELECT lower($1) $f$;
          END IF;
        END
        $do$;
        CREATE FUNCTION instr(text, text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
          AS $f$ SELECT strpos($1, $2) $f$;
        CREATE FUNCTION appt_notify_change() RETURNS trigger LANGUAGE plpgsql AS $f$
        BEGIN
          PERFORM pg_notify('appt_changes', TG_TABLE_NAME || ' ' || CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
          RETURN NULL;
        END
        $f$;
        CREATE TRIGGER appointment_changed AFTER INSERT OR UPDATE OR DELETE ON appointment
          FOR EACH ROW EXECUTE FUNCTION appt_notify_change();
        """
    ),
    // Series and whole days. `series_end_ms` is the end of a series' last
    // occurrence (NULL: it never ends), so a window finds the series that reach it through a
    // small partial index; `exceptions` lists cancelled occurrence starts (ms, comma-separated).
    Migration(
      name: "recurrence, whole days, time zones, iCalendar UIDs",
      sqlite: """
        ALTER TABLE appointment ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1));
        ALTER TABLE appointment ADD COLUMN recurrence TEXT CHECK (recurrence IS NULL OR recurrence LIKE 'FREQ=%');
        ALTER TABLE appointment ADD COLUMN exceptions TEXT NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN series_end_ms INTEGER;
        ALTER TABLE appointment ADD COLUMN uid TEXT;
        CREATE INDEX appointment_series ON appointment (start_ms) WHERE recurrence IS NOT NULL;
        CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid) WHERE uid IS NOT NULL;
        """,
      postgres: """
        ALTER TABLE appointment ADD COLUMN time_zone text NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN all_day integer NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1));
        ALTER TABLE appointment ADD COLUMN recurrence text CHECK (recurrence IS NULL OR recurrence LIKE 'FREQ=%');
        ALTER TABLE appointment ADD COLUMN exceptions text NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN series_end_ms bigint;
        ALTER TABLE appointment ADD COLUMN uid text COLLATE "C";
        CREATE INDEX appointment_series ON appointment (start_ms) WHERE recurrence IS NOT NULL;
        CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid) WHERE uid IS NOT NULL;
        """
    ),
    // Revisions: each write of a row counts up, so an edit, cancel, restore or
    // delete based on what a client saw can be refused when someone else changed it since.
    Migration(
      name: "revisions",
      sqlite: "ALTER TABLE appointment ADD COLUMN revision INTEGER NOT NULL DEFAULT 1 CHECK (revision > 0);",
      postgres: "ALTER TABLE appointment ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);"
    ),
    // Search keys: the title and the note as `TextSearch.folded` folds them,
    // written with every row, so a search finds on both engines exactly what the calendar's
    // `/` shows, whatever the server's locale. They replace `appt_fold`, which lowered case
    // by each engine's own rules (and by none beyond ASCII on a C-locale server).
    Migration(name: "search keys") { engine, connection throws(StoreError) in
      let type = engine == .sqlite ? "TEXT" : "text COLLATE \"C\""
      try connection.execute(
        """
        ALTER TABLE appointment ADD COLUMN title_folded \(type) NOT NULL DEFAULT '';
        ALTER TABLE appointment ADD COLUMN note_folded \(type) NOT NULL DEFAULT '';
        """
      )
      if engine == .postgres { try connection.execute("DROP FUNCTION IF EXISTS appt_fold(text)") }
      var rows: [(id: SQLValue, title: String, note: String)] = []
      try connection.query("SELECT id, title, note FROM appointment", []) { row throws(StoreError) in
        rows.append((row.value(at: 0), row.string(at: 1), row.string(at: 2)))
      }
      for row in rows {
        try connection.run(
          "UPDATE appointment SET title_folded = ?, note_folded = ? WHERE id = ?",
          [.text(TextSearch.folded(row.title)), .text(TextSearch.folded(row.note)), row.id]
        )
      }
    },
    // The calendar model: LOCATION (and its search key), RDATEs, SEQUENCE,
    // overridden occurrences (RECURRENCE-ID) as rows of their own, what appt does not model
    // (extras), and several RRULEs (one per line) or none (an RDATE-only series). The
    // occurrences the old `editOccurrence` detached become overrides. See
    // Schema+CalendarModel.swift.
    Migration(name: "calendar model") { engine, connection throws(StoreError) in
      try connection.execute(engine == .sqlite ? Schema.calendarModelSQLite : Schema.calendarModelPostgres)
      try Schema.migrateDetachedOccurrences(connection)
    },
    // Calendars: several in one store; every appointment moves into `personal`.
    // See Schema+Calendars.swift.
    Migration(
      name: "calendars",
      sqlite: Schema.calendarsSQLite,
      postgres: Schema.calendarsPostgres
    ),
    // Rows in the order of their start on SQLite (StartOrder.swift), and which weeks each
    // series has an instance in, so a window reads only those series (SeriesWeeks.swift).
    // A later step that rebuilds `appointment` must keep its rowids (`INSERT ... SELECT
    // rowid, ...`) and create its triggers again (StartOrder.rebuild does both).
    Migration(name: "start order, series weeks") { engine, connection throws(StoreError) in
      if engine == .sqlite { try StartOrder.rebuild(connection) }
      try SeriesWeeks.create(engine: engine, connection: connection)
      try connection.execute(SeriesWeeks.seriesIndex)
    },
    // Sync state: what a CalDAV sync remembers of each server resource, the
    // conflicts it found, and when each calendar last synced. See Schema+Sync.swift.
    Migration(
      name: "sync state",
      sqlite: Schema.syncStateSQLite,
      postgres: Schema.syncStatePostgres
    ),
    // Alarms: how many VALARMs each row holds, and what the reminder daemon fired.
    // See Schema+Alarms.swift.
    Migration(name: "alarms") { engine, connection throws(StoreError) in
      try Schema.migrateAlarms(engine: engine, connection: connection)
    },
    // Series days (for speed): which days of each week a series has an instance on,
    // and which weekdays a wide one can, so a day's window reads only the series it shows.
    // The rows of every series are written again. See SeriesWeeks.swift.
    Migration(name: "series days") { engine, connection throws(StoreError) in
      try SeriesWeeks.addDays(engine: engine, connection: connection)
    },
    // The window index (for speed): a `list`'s one-offs, with the columns a line shows
    // (`Appointment.lineColumns`), read from the index alone, not a table row per entry. The
    // partial index's condition is `AppointmentDAO.isOneOff` and `AppointmentDAO.lineTerm`
    // (spelled out: a step never changes once shipped): only a query naming that term may
    // use it. SQLite (3.40) uses an index as covering only when it holds every column the
    // query names, those of its own condition too, so `recurrence` and `rdates` (the same in
    // every entry) are in it. PostgreSQL's leaves the title out: a btree entry may not pass
    // about 2.7 KB, and a title can be 8 KB (500 characters of up to 16 bytes), so there the
    // title comes from the row. See README, "The window's one-offs from one index".
    Migration(
      name: "window index",
      sqlite: """
        CREATE INDEX appointment_window ON appointment (start_ms, end_ms, status, id, title, all_day, \
        series_id, recurrence_ms, range_future, recurrence, rdates) WHERE recurrence IS NULL AND rdates = '' AND all_day >= 0;
        """,
      postgres: """
        CREATE INDEX appointment_window ON appointment (start_ms) INCLUDE (end_ms, status, id, all_day, \
        series_id, recurrence_ms, range_future) WHERE recurrence IS NULL AND rdates = '' AND all_day >= 0;
        """
    ),
    // The series window index (for speed): `appointment_series` keeps its key and its
    // condition and holds, after them, every column a `list` line of a series needs
    // (`Appointment.seriesLineColumns`), so a list's series are read from the index alone,
    // not a table row each (scattered among the one-offs in start order: a week at 1M read
    // 661 such rows). SQLite only: on PostgreSQL a btree entry may not pass about 2.7 KB, and
    // a title (8 KB) or a long list of EXDATEs can; there the index stays as it was and the
    // row is read, as for the window index's title. See README, "A list's series from one index".
    Migration(name: "series window index") { engine, connection throws(StoreError) in
      guard engine == .sqlite else { return }
      try connection.execute(
        """
        DROP INDEX appointment_series;
        CREATE INDEX appointment_series ON appointment (start_ms, series_end_ms, id, title, end_ms, status, \
        all_day, time_zone, recurrence, exceptions, rdates) WHERE recurrence IS NOT NULL OR rdates <> '';
        """
      )
    },
    // Conflict history: each local version a sync kept is a row of its own (its own id), the
    // event it belongs to in `appointment_id`; a second conflict on one event no longer
    // replaces the first. The conflicts kept before keep their id, their event's.
    Migration(
      name: "conflict history",
      sqlite: """
        ALTER TABLE sync_conflict ADD COLUMN appointment_id TEXT;
        UPDATE sync_conflict SET appointment_id = id;
        CREATE INDEX sync_conflict_by_appointment ON sync_conflict (appointment_id);
        """,
      postgres: """
        ALTER TABLE sync_conflict ADD COLUMN appointment_id text COLLATE "C";
        UPDATE sync_conflict SET appointment_id = id;
        CREATE INDEX sync_conflict_by_appointment ON sync_conflict (appointment_id);
        """
    ),
    // Identity as CalDAV has it: an event is (calendar, UID, RECURRENCE-ID), so the same UID
    // may live in several calendars (an invitation sent to two addresses, a copy), each
    // synced on its own. The uid stays first: an import without a calendar finds a UID in
    // any of them through the same index.
    Migration(
      name: "identity per calendar",
      sqlite: """
        DROP INDEX appointment_by_uid;
        CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid, coalesce(recurrence_ms, -1), calendar_id)
          WHERE uid IS NOT NULL;
        """,
      postgres: """
        DROP INDEX appointment_by_uid;
        CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid, coalesce(recurrence_ms, -1), calendar_id)
          WHERE uid IS NOT NULL;
        """
    ),
    // A synced calendar's local name and whether it syncs are the user's: `remote_name` is
    // the server's display name as last seen, `named_by_user` stops a sync from renaming it,
    // `sync_off` pauses it (`calendar unsync`); `sync_skipped` is a synced calendar the user
    // deleted, which a sync must not bring back. The server's name of a calendar synced before
    // is what its local name says.
    Migration(
      name: "the user's calendars",
      sqlite: """
        ALTER TABLE calendar ADD COLUMN remote_name TEXT;
        ALTER TABLE calendar ADD COLUMN named_by_user INTEGER NOT NULL DEFAULT 0 CHECK (named_by_user IN (0, 1));
        ALTER TABLE calendar ADD COLUMN sync_off INTEGER NOT NULL DEFAULT 0 CHECK (sync_off IN (0, 1));
        CREATE TABLE sync_skipped (
          account TEXT NOT NULL,
          remote_url TEXT NOT NULL,
          name TEXT NOT NULL,
          PRIMARY KEY (account, remote_url)
        );
        UPDATE calendar SET remote_name = substr(name, length(account) + 2)
          WHERE source = 'caldav' AND substr(name, 1, length(account) + 1) = account || '/';
        """,
      postgres: """
        ALTER TABLE calendar ADD COLUMN remote_name text;
        ALTER TABLE calendar ADD COLUMN named_by_user integer NOT NULL DEFAULT 0 CHECK (named_by_user IN (0, 1));
        ALTER TABLE calendar ADD COLUMN sync_off integer NOT NULL DEFAULT 0 CHECK (sync_off IN (0, 1));
        CREATE TABLE sync_skipped (
          account text COLLATE "C" NOT NULL,
          remote_url text COLLATE "C" NOT NULL,
          name text NOT NULL,
          PRIMARY KEY (account, remote_url)
        );
        UPDATE calendar SET remote_name = substr(name, length(account) + 2)
          WHERE source = 'caldav' AND substr(name, 1, length(account) + 1) = account || '/';
        """
    ),
    // Floating events (a time without a zone) found at once: the few a process moves to its
    // own zone when it opens the store (`AppointmentDAO.followClockZone`).
    Migration(
      name: "floating events",
      sql: "CREATE INDEX appointment_floating ON appointment (time_zone) WHERE \(Schema.isFloating);"
    ),
    Migration(name: "events of no length", migrate: Schema.allowMoments),
  ]
}
