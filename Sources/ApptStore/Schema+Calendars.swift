import ApptCore

// Schema step 6, "calendars" (issue 14): the table `calendar` (a name, unique as
// `CalendarRules.folded` folds it; a colour; a source, `local` or `caldav`, with the sync's
// account, collection URL and sync token; shown or hidden, kept here so a hidden calendar
// stays hidden across restarts; a position to list them in), and `appointment.calendar_id`,
// set on every row: the existing ones move into `personal`, which the step creates. An
// override is in its series' calendar (the DAO keeps it so).
//
// SQLite cannot add a column with a REFERENCES clause and a non-NULL default while foreign
// keys are on, so there the DAO is the only writer and checks the calendar exists in the
// transaction that writes; PostgreSQL states the foreign key. Index `appointment_by_calendar`
// (calendar_id, start_ms) serves counts, moves and deletes of a calendar; the window queries
// keep their own indexes and take the calendar as one more condition on the row (ids
// resolved once per query: no subquery per row).
extension Schema {
  /// The id `personal` gets when the migration creates it.
  public static let personalCalendarID = CalendarRules.personalID

  static let calendarsSQLite = """
    CREATE TABLE calendar (
      id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
      name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
      name_folded TEXT NOT NULL UNIQUE,
      color TEXT NOT NULL DEFAULT 'blue',
      source TEXT NOT NULL DEFAULT 'local' CHECK (source IN ('local', 'caldav')),
      account TEXT,
      remote_url TEXT,
      sync_token TEXT,
      shown INTEGER NOT NULL DEFAULT 1 CHECK (shown IN (0, 1)),
      position INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO calendar (id, name, name_folded, color, position)
      VALUES ('\(personalCalendarID)', 'personal', 'personal', 'blue', 0);
    ALTER TABLE appointment ADD COLUMN calendar_id TEXT NOT NULL DEFAULT '\(personalCalendarID)';
    CREATE INDEX appointment_by_calendar ON appointment (calendar_id, start_ms);
    """

  static let calendarsPostgres = """
    CREATE TABLE calendar (
      id text COLLATE "C" PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
      name_folded text COLLATE "C" NOT NULL UNIQUE,
      color text NOT NULL DEFAULT 'blue',
      source text NOT NULL DEFAULT 'local' CHECK (source IN ('local', 'caldav')),
      account text,
      remote_url text,
      sync_token text,
      shown integer NOT NULL DEFAULT 1 CHECK (shown IN (0, 1)),
      position bigint NOT NULL DEFAULT 0
    );
    INSERT INTO calendar (id, name, name_folded, color, position)
      VALUES ('\(personalCalendarID)', 'personal', 'personal', 'blue', 0);
    ALTER TABLE appointment ADD COLUMN calendar_id text COLLATE "C" NOT NULL DEFAULT '\(personalCalendarID)'
      REFERENCES calendar (id);
    ALTER TABLE appointment ALTER COLUMN calendar_id DROP DEFAULT;
    CREATE INDEX appointment_by_calendar ON appointment (calendar_id, start_ms);
    CREATE TRIGGER calendar_changed AFTER INSERT OR UPDATE OR DELETE ON calendar
      FOR EACH ROW EXECUTE FUNCTION appt_notify_change();
    """
}
