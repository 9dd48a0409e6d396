import ApptCore

// Schema step 6, "calendars": the table `calendar` (a name, unique as
// `CalendarRules.folded` folds it; a colour; a source, `local` or `caldav`, with the sync's
// account, collection URL and sync token; shown or hidden, kept here so a hidden calendar
// stays hidden across restarts; a position to list them in), and `appointment.calendar_id`,
// set on every row: the existing ones move into `personal`, which the step creates. An
// override is in its series' calendar (the DAO keeps it so).
//
// SQLite cannot add a column with a REFERENCES clause and a non-NULL default while foreign
// keys are on, so there the DAO is the only writer and checks the calendar exists in the
// transaction that writes; PostgreSQL states the foreign key.
//
// Index `appointment_by_calendar` (calendar_id, start_ms) holds the one-offs and overrides
// only (partial, `AppointmentDAO.isOneOff`): a window limited to some calendars reads just
// their rows in the window's range, and a calendar's count is read from the index. It must
// not hold series: for the series query (`start_ms < END`, open below) a full index would
// win the planner's choice over `appointment_series` and read every row of the calendars
// (measured at 1M rows: 0.29 s instead of 0.04 s). The calendar is one more condition of the
// window queries, on ids resolved once per query: no subquery per row.
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
    CREATE INDEX appointment_by_calendar ON appointment (calendar_id, start_ms) WHERE recurrence IS NULL AND rdates = '';
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
    CREATE INDEX appointment_by_calendar ON appointment (calendar_id, start_ms) WHERE recurrence IS NULL AND rdates = '';
    CREATE TRIGGER calendar_changed AFTER INSERT OR UPDATE OR DELETE ON calendar
      FOR EACH ROW EXECUTE FUNCTION appt_notify_change();
    """
}
